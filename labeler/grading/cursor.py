"""The cursor: which chunk of a question a grade key grades, and where it goes next.

Pure functions of the candidates' states, so the page's keys and a test agree on every move.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from labeler.grading.labeling import QuestionView


def first_to_grade(view: QuestionView, prefer: Collection[str] = ()) -> int:
    """Where the cursor starts on a question: its first chunk that needs a grade, one of
    ``prefer`` (chunk ids, such as those a queue marks) if any of them needs one; else 0."""
    needing = [i for i, c in enumerate(view.candidates) if c.needs_grade]
    first = needing[0] if needing else 0
    return next((i for i in needing if view.candidates[i].chunk.id in prefer), first)


def after_grade(needs_grade: Sequence[bool], cursor: int, prefer: Collection[int] = ()) -> int:
    """Where the cursor goes once the chunk at ``cursor`` is graded: the next chunk (wrapping)
    that still needs a grade, one at a position in ``prefer`` (a queue's marked chunks) if any
    of them still needs one; when none needs a grade, simply the next one (staying on the last).

    ``needs_grade`` is per candidate, the chunk just graded included (its value is ignored).
    """
    count = len(needs_grade)
    if count == 0:
        return 0
    waiting = [i for i in ((cursor + step) % count for step in range(1, count)) if needs_grade[i]]
    if not waiting:
        return min(cursor + 1, count - 1)
    return next((i for i in waiting if i in prefer), waiting[0])


def move(count: int, cursor: int, step: int) -> int:
    """The cursor moved by ``step`` chunks (J/K), wrapping round."""
    return (cursor + step) % count if count else 0


__all__ = ["after_grade", "first_to_grade", "move"]
