"""A model's answer, read strictly: exactly ``{"grade": G, "reason": "..."}``, G one of the
grades the prompt offers, or it is no grade at all.

Strict because a grade is a label people will trust: a reply wrapped in a code fence, with a
word before the object, a grade of ``"2"``, ``2.0`` or ``true``, a missing or extra key, a
key given twice, or an empty reason is a failed call whose raw text is kept for a person to
read (``labeler judge ratings --failed``), and the next run asks again. Whitespace around the
object is the only leniency.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

KEYS = ("grade", "reason")


@dataclass(frozen=True, slots=True)
class Verdict:
    grade: int
    reason: str


class BadAnswer(ValueError):
    """Why a reply is not a verdict (the message is shown beside the raw text)."""


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    found: dict = {}
    for key, value in pairs:
        if key in found:
            msg = f"the key {key!r} is given twice"
            raise BadAnswer(msg)
        found[key] = value
    return found


def _no_constant(name: str) -> object:
    msg = f"{name} is not JSON"
    raise BadAnswer(msg)


def parse_answer(text: str | None, grades: tuple[int, ...]) -> Verdict:
    """The verdict in ``text``, or BadAnswer saying why there is none."""
    if text is None or not text.strip():
        raise BadAnswer("the reply is empty")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        msg = f"not a JSON object: {error.msg} at character {error.pos}"
        raise BadAnswer(msg) from None
    if not isinstance(value, dict):
        msg = f"expected a JSON object, got a JSON {type(value).__name__}"
        raise BadAnswer(msg)
    if sorted(value) != sorted(KEYS):
        msg = f"expected exactly the keys grade and reason, got {', '.join(value) or 'none'}"
        raise BadAnswer(msg)
    grade, reason = value["grade"], value["reason"]
    if type(grade) is not int or grade not in grades:
        allowed = ", ".join(map(str, grades))
        msg = f"grade must be one of the whole numbers {allowed}, got {json.dumps(grade)}"
        raise BadAnswer(msg)
    if not isinstance(reason, str) or not reason.strip():
        msg = f"reason must be a non-empty string, got {json.dumps(reason)}"
        raise BadAnswer(msg)
    return Verdict(grade, reason.strip())


__all__ = ["KEYS", "BadAnswer", "Verdict", "parse_answer"]
