"""A model's answer is read strictly: exactly {"grade": G, "reason": "..."}, or no grade."""

import pytest

from labeler.judge.answers import BadAnswer, Verdict, parse_answer

GRADES = (0, 1, 2)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ('{"grade": 2, "reason": "It answers it."}', Verdict(2, "It answers it.")),
        ('  \n{"reason": "Off topic.", "grade": 0}\n', Verdict(0, "Off topic.")),
        ('{"grade": 1, "reason": "  Part of it.  "}', Verdict(1, "Part of it.")),
    ],
)
def test_a_verdict(text: str, verdict: Verdict) -> None:
    assert parse_answer(text, GRADES) == verdict


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "the reply is empty"),
        (None, "the reply is empty"),
        ('```json\n{"grade": 2, "reason": "x"}\n```', "not a JSON object"),
        ('Sure: {"grade": 2, "reason": "x"}', "not a JSON object"),
        ('{"grade": 2, "reason": "x"} thanks', "not a JSON object"),
        ('[{"grade": 2, "reason": "x"}]', "expected a JSON object, got a JSON list"),
        ('{"grade": 2}', "expected exactly the keys grade and reason, got grade"),
        ('{"grade": 2, "reason": "x", "score": 1}', "got grade, reason, score"),
        ('{"grade": "2", "reason": "x"}', 'got "2"'),
        ('{"grade": 2.0, "reason": "x"}', "got 2.0"),
        ('{"grade": true, "reason": "x"}', "got true"),
        ('{"grade": 3, "reason": "x"}', "one of the whole numbers 0, 1, 2, got 3"),
        ('{"grade": NaN, "reason": "x"}', "NaN is not JSON"),
        ('{"grade": 2, "reason": ""}', 'reason must be a non-empty string, got ""'),
        ('{"grade": 2, "reason": null}', "got null"),
        ('{"grade": 2, "grade": 1, "reason": "x"}', "the key 'grade' is given twice"),
    ],
)
def test_anything_else_is_no_grade(text: str | None, why: str) -> None:
    with pytest.raises(BadAnswer) as raised:
        parse_answer(text, GRADES)
    assert why in str(raised.value)


def test_the_prompts_grades_decide() -> None:
    assert parse_answer('{"grade": 1, "reason": "ok"}', (0, 1)).grade == 1
    with pytest.raises(BadAnswer, match="one of the whole numbers 0, 1, got 2"):
        parse_answer('{"grade": 2, "reason": "ok"}', (0, 1))
