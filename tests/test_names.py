"""The one name rule, and names made safe for a terminal."""

import json

import pytest

from labeler.errors import LabelerError
from labeler.names import NAME_MAX, check_name, is_name, terminal_safe
from labeler.store import check_reviewer


@pytest.mark.parametrize("name", ["maria", "Tom_2", "a.b-c", "x" * NAME_MAX, "0"])
def test_names_the_rule_allows(name: str) -> None:
    assert is_name(name)
    assert check_name(name) == name
    assert check_reviewer(name) == name


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "is empty"),
        ("x" * (NAME_MAX + 1), "is 65 characters long"),
        ("maria lopez", "holds a space"),
        ("evil\x1b[2J", "holds U+001B"),
        ("testset:orders@v1", "holds U+003A COLON"),
        ("m\u0430ria", "holds U+0430 CYRILLIC SMALL LETTER A"),
        ("*", "holds U+002A ASTERISK"),
        (" maria", "holds a space"),
    ],
)
def test_names_the_rule_refuses_say_why(name: str, problem: str) -> None:
    with pytest.raises(LabelerError) as caught:
        check_reviewer(name)
    assert caught.value.field == "reviewer"
    assert str(caught.value).endswith(problem)
    assert "\x1b" not in str(caught.value)


def test_a_refusal_names_the_kind_of_name() -> None:
    with pytest.raises(LabelerError, match=r"^field \"name\": an account name is 1 to 64"):
        check_name("a b", field="name", what="account")


def test_terminal_safe_escapes_what_a_terminal_acts_on_and_keeps_the_rest() -> None:
    text = "evil\x1b[2J\x07 \u202edcba\x9b31m é 東京\n\tnext \U000e0041"
    safe = terminal_safe(text)
    assert safe == ("evil\\u001b[2J\\u0007 \\u202edcba\\u009b31m é 東京\n\tnext \\udb40\\udc41")
    # The escapes are JSON's: inside a JSON string they read back as the original.
    assert json.loads('"' + safe.replace("\n", "\\n").replace("\t", "\\t") + '"') == text


def test_terminal_safe_leaves_plain_text_alone() -> None:
    assert terminal_safe("q001 0 orders-api#3 2\n") == "q001 0 orders-api#3 2\n"
