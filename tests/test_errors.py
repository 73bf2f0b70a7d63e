"""Values quoted in error messages are cut (#19 item 10: a 50 MB id was echoed whole)."""

from labeler.errors import LabelerError, Quoted, cut, shown


def test_short_values_are_quoted_as_they_are() -> None:
    assert shown("q1") == "'q1'"
    assert shown(1.02) == "1.02"
    assert cut("q1") == "q1"


def test_long_values_keep_their_start_and_say_how_long_they_were() -> None:
    value = "x" * 1_000_000
    assert shown(value) == "'" + "x" * 80 + "'… (1,000,000 characters)"
    assert cut(value) == "x" * 80 + "… (1,000,000 characters)"
    assert shown(["a" * 100]) == "['" + "a" * 78 + "… (104 characters)"


def test_a_template_filled_later_quotes_its_value_cut() -> None:
    template = "unknown question id {!r} (import the questions first)"
    assert template.format(Quoted("q" * 200)) == (
        "unknown question id '" + "q" * 80 + "'… (200 characters) (import the questions first)"
    )
    assert f"{Quoted('short')}" == "short"
    error = LabelerError(f"chunk {cut('c' * 90)} is listed twice", path="r.trec", line=3)
    assert str(error) == "r.trec:3: chunk " + "c" * 80 + "… (90 characters) is listed twice"
