"""Text as the remap compares it: runs of whitespace collapsed to one space, with a map back.

A re-chunking or an edit that only changes whitespace (a blank line more, a tab, a trailing
space) must not look like a change of content, so every comparison and every figure (coverage,
containment) is made on the collapsed text, counted in its characters. ``Normalized`` keeps, for
each word, where it starts in the original and in the collapsed text, so offsets go both ways.
Case is kept: lower-casing can change a string's length ("İ" becomes two characters), which
would break the map, and a change of case is a change of the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

_WORD = re.compile(r"\S+")
_TERM = re.compile(r"\w+")
# Words that point at nothing when asked where a question's words are.
_COMMON = frozenset(
    (
        "a an and are as at be but by can could did do does for from had has have how i if in"
        " into is it its me my no not of on or our should so than that the their them then"
        " there these they this to was we were what when where which who why will with would"
        " you your"
    ).split()
)


def collapse(text: str) -> str:
    """The collapsed form of ``text``: what ``Normalized(text).text`` holds, without the map."""
    return " ".join(text.split())


def nonblank_count(text: str, start: int = 0, end: int | None = None) -> int:
    """Non-blank characters of ``text[start:end]``: the same in a text and its collapsed form,
    so coverage and containment do not depend on whitespace."""
    return len("".join(text[start:end].split()))


def terms(text: str) -> frozenset[str]:
    """The distinct words of ``text`` that can point at an answer: lower-cased, common words
    left out, a plural "s" taken off ("refunds" finds "refund")."""
    found = set()
    for word in _TERM.findall(text.lower()):
        if word in _COMMON:
            continue
        found.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return frozenset(found)


def term_share(wanted: frozenset[str], text: str) -> float:
    """The share of ``wanted`` (a question's and its answer's ``terms``) that ``text`` holds."""
    return len(wanted & terms(text)) / len(wanted) if wanted else 0.0


@dataclass(frozen=True, slots=True)
class Normalized:
    """``text`` with whitespace collapsed, and the word-by-word map to the original."""

    text: str
    norm_starts: tuple[int, ...]
    orig_starts: tuple[int, ...]
    orig_ends: tuple[int, ...]

    @classmethod
    def of(cls, original: str) -> Normalized:
        spans = [m.span() for m in _WORD.finditer(original)]
        orig_starts = tuple(start for start, _ in spans)
        orig_ends = tuple(end for _, end in spans)
        norm_starts = tuple(accumulate((end - start + 1 for start, end in spans), initial=0))
        return cls(collapse(original), norm_starts[: len(spans)], orig_starts, orig_ends)

    def __len__(self) -> int:
        return len(self.text)

    def from_original(self, index: int) -> int:
        """The collapsed position of original position ``index``; a position inside a run of
        whitespace maps to the space (or the end) after the word before it."""
        word = bisect_right(self.orig_starts, index) - 1
        if word < 0:
            return 0
        offset = index - self.orig_starts[word]
        width = self.orig_ends[word] - self.orig_starts[word]
        return self.norm_starts[word] + min(offset, width)

    def span_from_original(self, start: int, end: int) -> tuple[int, int]:
        return self.from_original(start), self.from_original(end)

    def to_original(self, index: int) -> int:
        """The original position of collapsed position ``index`` (a space maps to the end of
        the word before it)."""
        word = bisect_right(self.norm_starts, index) - 1
        if word < 0:
            return 0
        offset = index - self.norm_starts[word]
        width = self.orig_ends[word] - self.orig_starts[word]
        return self.orig_starts[word] + min(offset, width)


__all__ = ["Normalized", "collapse", "nonblank_count"]
