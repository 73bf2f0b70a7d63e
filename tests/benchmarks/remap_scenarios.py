"""Re-chunkings and edits of the demo corpus with their ground truth, for bench_remap.py.

Every edit is recorded as pieces of the new text: copied from the old text (so each old
character knows where it went), inserted, or rewritten from an old span. From that, the ground
truth is exact:

- where an old span went: its copied characters' new places, plus every rewritten stretch that
  replaced part of it (a rewrite keeps the meaning, so a quote rewritten is still the answer);
- the true grade of a new chunk for a question: the highest grade of the question's quotes
  (data/demo_source/questions.py) whose new place reaches into the chunk, else 0 (the demo's
  own rule: a chunk holding any of an answer passage gets its grade);
- the perfect evidence for an old passage: the share of its non-blank characters that were
  copied into each new chunk (coverage), and the share of the new chunk they make up
  (containment). Rewritten text counts as not found: no text matcher can know it.

Deterministic: every random choice comes from a generator seeded by the scenario and document.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

SENTENCE = re.compile(r"\S[^\n]*?(?:[.!?](?= )|$)", re.M)

INSERTED = [
    "This section was reviewed by the documentation team in {month} {year}.",
    "Questions about this page go to the {team} team, who answer within {days} working days.",
    "An earlier version of this page, archived in {year}, described the old process.",
    "The {team} team keeps a changelog of every edit to this section.",
    "Figures on this page were last checked against the {month} {year} release.",
]
MONTHS = ["January", "March", "May", "July", "September", "November"]
TEAMS = ["platform", "support", "policy", "finance", "people", "partner"]

# Word swaps that keep a sentence's meaning, so a rewritten quote is still the answer.
REWRITES = {
    "can": "may",
    "may": "can",
    "must": "have to",
    "within": "inside",
    "customers": "shoppers",
    "customer": "shopper",
    "items": "products",
    "item": "product",
    "request": "call",
    "requests": "calls",
    "returned": "sent back",
    "return": "send back",
    "days": "calendar days",
    "use": "make use of",
    "get": "receive",
    "send": "submit",
    "each": "every",
    "before": "prior to",
    "after": "following",
    "only": "solely",
    "also": "as well",
}


@dataclass
class Piece:
    """A stretch of the new text: copied from ``old`` (start, end), inserted, or rewritten."""

    kind: str
    text: str
    old: tuple[int, int] | None = None


@dataclass
class EditedDocument:
    """A document after edits: its new text, and where every old character went."""

    doc_id: str
    old_text: str
    new_text: str
    new_of_old: list[int]  # new position of each old character, -1 when not copied
    rewrites: list[tuple[int, int, int, int]] = field(default_factory=list)  # old s,e -> new s,e

    @classmethod
    def from_pieces(cls, doc_id: str, old_text: str, pieces: list[Piece]) -> EditedDocument:
        new_of_old = [-1] * len(old_text)
        rewrites = []
        parts, position = [], 0
        for piece in pieces:
            if piece.kind == "copy":
                start, end = piece.old
                for offset in range(end - start):
                    new_of_old[start + offset] = position + offset
            elif piece.kind == "rewrite":
                rewrites.append((*piece.old, position, position + len(piece.text)))
            parts.append(piece.text)
            position += len(piece.text)
        return cls(doc_id, old_text, "".join(parts), new_of_old, rewrites)

    @classmethod
    def unchanged(cls, doc_id: str, text: str) -> EditedDocument:
        return cls(doc_id, text, text, list(range(len(text))))

    def image(self, start: int, end: int) -> list[tuple[int, int]]:
        """New intervals where old ``[start, end)`` went: copied characters, and rewrites."""
        points = sorted(
            self.new_of_old[i]
            for i in range(start, end)
            if self.new_of_old[i] >= 0 and not self.old_text[i].isspace()
        )
        spans: list[tuple[int, int]] = []
        for p in points:
            if spans and p == spans[-1][1]:
                spans[-1] = (spans[-1][0], p + 1)
            elif spans and p < spans[-1][1]:
                continue
            else:
                spans.append((p, p + 1))
        for old_start, old_end, new_start, new_end in self.rewrites:
            if old_start < end and start < old_end:
                spans.append((new_start, new_end))
        return spans

    def copied(self, start: int, end: int) -> list[int]:
        """Sorted new positions of the old span's non-blank characters that were copied."""
        return sorted(
            self.new_of_old[i]
            for i in range(start, end)
            if self.new_of_old[i] >= 0 and not self.old_text[i].isspace()
        )


# edits --------------------------------------------------------------------------------------


def units(text: str) -> list[tuple[int, int]]:
    """Sentences and single lines (headings, list items) as (start, end) spans."""
    return [m.span() for m in SENTENCE.finditer(text)]


def _inserted(rng: random.Random) -> str:
    template = rng.choice(INSERTED)
    return template.format(
        month=rng.choice(MONTHS),
        year=rng.randint(2019, 2025),
        team=rng.choice(TEAMS),
        days=rng.randint(2, 9),
    )


def rewrite(sentence: str, rng: random.Random) -> str:
    """The sentence reworded: swaps from REWRITES, and a clause moved to the front."""
    words = sentence.split(" ")
    out = []
    for word in words:
        bare = word.strip(".,;:").lower()
        if bare in REWRITES and rng.random() < 0.8:
            swapped = REWRITES[bare]
            if word[:1].isupper():
                swapped = swapped[:1].upper() + swapped[1:]
            out.append(word.lower().replace(bare, swapped, 1) if word.islower() else swapped)
        else:
            out.append(word)
    text = " ".join(out)
    if ", " in text and rng.random() < 0.5:
        head, tail = text.split(", ", 1)
        tail = tail.rstrip(".")
        text = f"{tail[:1].upper()}{tail[1:]}, {head[:1].lower()}{head[1:]}."
    if text == sentence:
        text = "In short: " + sentence
    return text


def edit(
    doc_id: str,
    text: str,
    kinds: tuple[str, ...],
    rng: random.Random,
    answers: list[tuple[int, int]] = (),
) -> EditedDocument:
    """Apply a few edits of the given kinds (insert, remove, rewrite, whitespace, move, and
    remove-answer: one sentence holding part of an answer quote, ``answers``, removed)."""
    spans = units(text)
    if not spans:
        return EditedDocument.unchanged(doc_id, text)
    body = [i for i, (s, e) in enumerate(spans) if not text[s:e].startswith("#")]
    inserted_after: dict[int, str] = {}
    removed: set[int] = set()
    rewritten: dict[int, str] = {}
    for kind in kinds:
        if kind == "insert":
            for i in rng.sample(body, k=min(3, len(body))):
                inserted_after[i] = _inserted(rng)
        elif kind == "remove":
            for i in rng.sample(body, k=min(2, len(body))):
                removed.add(i)
        elif kind == "remove-answer":
            hits = [i for i in body if any(a < spans[i][1] and spans[i][0] < b for a, b in answers)]
            if hits:
                removed.add(rng.choice(hits))
        elif kind == "rewrite":
            for i in rng.sample(body, k=min(3, len(body))):
                s, e = spans[i]
                rewritten[i] = rewrite(text[s:e], rng)
    # The pieces: units and the gaps between them, in order (moves reorder sections below).
    items: list[list[Piece]] = []
    previous_end = 0
    for i, (s, e) in enumerate(spans):
        gap = Piece("copy", text[previous_end:s], (previous_end, s))
        if "whitespace" in kinds and rng.random() < 0.5:
            gap = Piece("new", _whitespace(text[previous_end:s], rng))
        unit: list[Piece] = [gap]
        if i in removed:
            unit = [gap]
        elif i in rewritten:
            unit.append(Piece("rewrite", rewritten[i], (s, e)))
        else:
            unit.append(Piece("copy", text[s:e], (s, e)))
        if i in inserted_after:
            unit.append(Piece("new", " " + inserted_after[i]))
        items.append(unit)
        previous_end = e
    tail = [Piece("copy", text[previous_end:], (previous_end, len(text)))]
    if "move" in kinds:
        items = _move_section(items, spans, text, rng)
    pieces = [p for unit in items for p in unit] + tail
    return EditedDocument.from_pieces(doc_id, text, pieces)


def _whitespace(gap: str, rng: random.Random) -> str:
    if "\n" in gap:
        return gap.replace("\n", "\n\n", 1) if rng.random() < 0.5 else gap + "\n"
    return rng.choice(["  ", " \t", "\n"]) if gap else gap


def _move_section(items, spans, text, rng):
    """Move one ``## `` section (heading to the next heading) before another section."""
    heads = [i for i, (s, e) in enumerate(spans) if text[s:e].startswith("## ")]
    if len(heads) < 3:
        return items
    bounds = [*heads, len(spans)]
    sections = [(bounds[k], bounds[k + 1]) for k in range(len(heads))]
    moved = rng.randrange(1, len(sections))
    before = rng.choice([k for k in range(len(sections)) if k not in (moved, moved + 1)] or [0])
    a, b = sections[moved]
    block = items[a:b]
    rest = items[:a] + items[b:]
    target = sections[before][0] if before < moved else sections[before][0] - (b - a)
    return rest[:target] + block + rest[target:]


# chunkers -----------------------------------------------------------------------------------


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def blocks(text: str) -> list[tuple[int, int]]:
    """Runs of non-blank lines."""
    return [m.span() for m in re.finditer(r"(?:[^\n]*\S[^\n]*(?:\n|$))+", text)]


def paragraphs(text: str, max_chars: int) -> list[tuple[int, int]]:
    """Pack paragraphs up to ``max_chars`` (a heading starts a chunk; a long paragraph is cut
    at sentence ends)."""
    pieces = []
    for start, end in blocks(text):
        if end - start <= max_chars:
            pieces.append((start, end))
            continue
        pieces += sentences_packed(text, max_chars, start, end)
    return _pack(text, pieces, max_chars)


def sentences_packed(text: str, max_chars: int, lo: int = 0, hi: int | None = None):
    hi = len(text) if hi is None else hi
    found = [(s, e) for s, e in units(text[lo:hi])]
    return _pack(text, [(lo + s, lo + e) for s, e in found], max_chars)


def _pack(text: str, pieces: list[tuple[int, int]], max_chars: int) -> list[tuple[int, int]]:
    chunks, current = [], None
    for start, end in pieces:
        heading = text[start:end].startswith("#")
        if current is not None and (end - current[0] > max_chars or heading):
            chunks.append(current)
            current = None
        current = (start, end) if current is None else (current[0], end)
    if current is not None:
        chunks.append(current)
    return [t for c in chunks if (t := _trim(text, *c))]


def windows(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Fixed windows of about ``size`` characters overlapping by ``overlap``, cut at spaces."""
    chunks, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > start else end
        if (trimmed := _trim(text, start, end)) is not None:
            chunks.append(trimmed)
        if end >= len(text):
            break
        next_start = max(start + 1, end - overlap)
        space = text.find(" ", next_start)
        start = space + 1 if 0 <= space < end else next_start
    return chunks


# ground truth ---------------------------------------------------------------------------


def truth_grade(images: list[tuple[int, list[tuple[int, int]]]], start: int, end: int) -> int:
    """The highest grade of the quotes whose new place reaches into ``[start, end)``."""
    best = 0
    for grade, spans in images:
        if grade > best and any(s < end and start < e for s, e in spans):
            best = grade
    return best


def nonblank_ranks(text: str, start: int, end: int) -> list[int]:
    """Positions of the non-blank characters of ``text[start:end]``."""
    return [i for i in range(start, end) if not text[i].isspace()]


def spans_of(positions: list[int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for p in positions:
        if spans and p == spans[-1][1]:
            spans[-1] = (spans[-1][0], p + 1)
        else:
            spans.append((p, p + 1))
    return spans


def in_range(sorted_positions: list[int], start: int, end: int) -> list[int]:
    return sorted_positions[
        bisect_left(sorted_positions, start) : bisect_right(sorted_positions, end - 1)
    ]


__all__ = [
    "EditedDocument",
    "Piece",
    "edit",
    "in_range",
    "nonblank_ranks",
    "paragraphs",
    "rewrite",
    "sentences_packed",
    "spans_of",
    "truth_grade",
    "units",
    "windows",
]
