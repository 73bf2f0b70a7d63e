"""Where an old passage's text is in a new text: aligned blocks, from which coverage and
containment are counted.

Both texts are collapsed (see ``labeler.remap.text``). An aligner returns the blocks of the
passage found in the target, in order, with their place in each; a block's ``weight`` is the
share of its characters that match (1 for an exact block).

The aligners, compared on the benchmark scenarios (tests/benchmarks/bench_remap.py, figures in
docs/remap.md):

- ``words`` (the default): the longest common subsequence of the two texts' words (rapidfuzz's
  ``LCSseq`` over word lists), keeping only runs of at least ``MIN_RUN_WORDS`` consecutive
  words. A run of three words in the same order is no accident; common words matched alone
  ("the", "a") are, and are dropped. Exact, so a figure like 0.95 means 95 % of the passage's
  characters are there, in order.
- ``chars``: the same over characters (rapidfuzz's ``Indel`` opcodes), keeping blocks of at
  least ``MIN_RUN_CHARS`` characters. Finer within words, but slower on long targets.
- ``partial_ratio``: rapidfuzz's ``partial_ratio_alignment``, the best window of the longer
  text for the shorter, scored by its Indel similarity: one block whose weight is that score.
  The score rewards near-misses (half the passage scores about 67), so a coverage read off it
  is an estimate, and it costs milliseconds on long texts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

MIN_RUN_WORDS = 3
MIN_RUN_CHARS = 12
PROBES = 12
PROBE_CHARS = 24


@dataclass(frozen=True, slots=True)
class Block:
    """``passage[p_start:p_end]`` found at ``target[t_start:t_end]``."""

    p_start: int
    p_end: int
    t_start: int
    t_end: int
    weight: float = 1.0

    def shifted(self, offset: int) -> Block:
        return Block(
            self.p_start, self.p_end, self.t_start + offset, self.t_end + offset, self.weight
        )


@dataclass(frozen=True, slots=True)
class Alignment:
    """The blocks of a passage found in a target, and how alike the texts are where they
    align (0-100: the Indel similarity of the passage's aligned stretch and the target's)."""

    blocks: tuple[Block, ...]
    similarity: float

    @property
    def found(self) -> bool:
        return bool(self.blocks)

    def shifted(self, offset: int) -> Alignment:
        return Alignment(tuple(b.shifted(offset) for b in self.blocks), self.similarity)

    def within(
        self, target: str, start: int, end: int
    ) -> tuple[float, float, tuple[tuple[int, int], ...]]:
        """What of the passage lies inside ``target[start:end]``, in non-blank characters:
        (passage characters found there, target characters they match, the target spans they
        occupy as ranks among the stretch's non-blank characters), each block by its weight."""
        found = matched = 0.0
        spans = []
        for block in self.blocks:
            low, high = max(block.t_start, start), min(block.t_end, end)
            if high <= low:
                continue
            width = block.t_end - block.t_start
            here = nonblank(target, low, high)
            matched += block.weight * here
            found += block.weight * here * ((block.p_end - block.p_start) / width if width else 0)
            spans.append((rank(target, start, low), rank(target, start, high)))
        return found, matched, tuple(spans)


def nonblank(text: str, start: int, end: int) -> int:
    """Non-blank characters of a collapsed ``text[start:end]`` (its only blanks are spaces)."""
    return max(0, end - start - text.count(" ", start, end))


def rank(text: str, origin: int, position: int) -> int:
    """How many non-blank characters of a collapsed text lie in ``[origin, position)``."""
    return nonblank(text, origin, position)


EMPTY = Alignment((), 0.0)


def _similarity(passage: str, target: str, blocks: list[Block]) -> float:
    from rapidfuzz.distance import Indel

    if not blocks:
        return 0.0
    p = passage[blocks[0].p_start : blocks[-1].p_end]
    t = target[blocks[0].t_start : blocks[-1].t_end]
    return round(100.0 * Indel.normalized_similarity(p, t), 2)


def _word_starts(words: list[str]) -> list[int]:
    """Where each word of a single-spaced text starts: its letters before it, plus one space
    per word before it (``accumulate`` over ``map`` runs in C)."""
    return [total + i for i, total in enumerate(accumulate(map(len, words), initial=0))]


def align_words(passage: str, target: str) -> Alignment:
    """Runs of at least MIN_RUN_WORDS words in the same order (all of a shorter passage)."""
    from rapidfuzz.distance import LCSseq

    p_words, t_words = passage.split(" "), target.split(" ")
    if not passage or not target:
        return EMPTY
    p_starts, t_starts = _word_starts(p_words), _word_starts(t_words)
    least = min(MIN_RUN_WORDS, len(p_words))
    blocks = []
    for op in LCSseq.opcodes(p_words, t_words):
        if op.tag != "equal" or op.src_end - op.src_start < least:
            continue
        last_p, last_t = op.src_end - 1, op.dest_end - 1
        blocks.append(
            Block(
                p_starts[op.src_start],
                p_starts[last_p] + len(p_words[last_p]),
                t_starts[op.dest_start],
                t_starts[last_t] + len(t_words[last_t]),
            )
        )
    return Alignment(tuple(blocks), _similarity(passage, target, blocks))


def align_chars(passage: str, target: str) -> Alignment:
    """Runs of at least MIN_RUN_CHARS characters in the same order."""
    from rapidfuzz.distance import Indel

    if not passage or not target:
        return EMPTY
    least = min(MIN_RUN_CHARS, len(passage))
    blocks = [
        Block(op.src_start, op.src_end, op.dest_start, op.dest_end)
        for op in Indel.opcodes(passage, target)
        if op.tag == "equal" and op.src_end - op.src_start >= least
    ]
    return Alignment(tuple(blocks), _similarity(passage, target, blocks))


def align_partial_ratio(passage: str, target: str) -> Alignment:
    """One block: rapidfuzz's best partial alignment, weighted by its score."""
    from rapidfuzz import fuzz

    if not passage or not target:
        return EMPTY
    found = fuzz.partial_ratio_alignment(passage, target)
    if found is None or found.score <= 0:
        return EMPTY
    block = Block(
        found.src_start, found.src_end, found.dest_start, found.dest_end, found.score / 100
    )
    return Alignment((block,), round(found.score, 2))


ALIGNERS: dict[str, Callable[[str, str], Alignment]] = {
    "words": align_words,
    "chars": align_chars,
    "partial_ratio": align_partial_ratio,
}
DEFAULT_ALIGNER = "words"


def _occurrences(needle: str, haystack: str, limit: int) -> list[int]:
    found, position = [], haystack.find(needle)
    while position >= 0 and len(found) < limit:
        found.append(position)
        position = haystack.find(needle, position + 1)
    return found


def placements(passage: str, target: str, *, limit: int = 3) -> list[int]:
    """Where ``passage`` probably starts in ``target`` (a long text: a whole document).

    Exact occurrences first. Otherwise PROBES stretches of PROBE_CHARS characters, spread over
    the passage, are looked up verbatim (C-speed ``str.find``); each hit votes for a start
    (its place minus its offset in the passage), and votes within a quarter of the passage's
    length of each other agree. The best-supported starts come back, best first; an empty list
    when no stretch of the passage survives anywhere in the target.
    """
    exact = _occurrences(passage, target, limit)
    if exact:
        return exact
    width = min(PROBE_CHARS, max(8, len(passage) // 4))
    if len(passage) < width:
        return []
    count = max(2, min(PROBES, len(passage) // width))
    step = (len(passage) - width) / (count - 1)
    votes: list[int] = []
    for k in range(count):
        offset = round(k * step)
        for hit in _occurrences(passage[offset : offset + width], target, limit):
            votes.append(hit - offset)
    if not votes:
        return []
    votes.sort()
    tolerance = len(passage) // 4 + 16
    clusters: list[list[int]] = [[votes[0]]]
    for vote in votes[1:]:
        if vote - clusters[-1][0] <= tolerance:
            clusters[-1].append(vote)
        else:
            clusters.append([vote])
    clusters.sort(key=lambda c: (-len(c), c[0]))
    best = len(clusters[0])
    return [sorted(c)[len(c) // 2] for c in clusters[:limit] if len(c) * 2 >= best and len(c) >= 1]


def align_in(passage: str, target: str, *, aligner: str = DEFAULT_ALIGNER) -> list[Alignment]:
    """The passage aligned at each of its placements in a long target (a window around each
    one), in target coordinates; one alignment per place the passage was found.

    A longest-common-subsequence alignment may match a word at either of two places with the
    same score, and over a window of a whole section it sometimes picks scattered common words
    over the real stretch (a heading whose next sentence was removed). So the first alignment
    only anchors. Each stretch of the passage it left unmatched (``_fill``) is then looked for
    verbatim in the whole target, at the place nearest where its neighbours put it (a section
    moved elsewhere takes part of the passage with it), and aligned there; a stretch found
    nowhere verbatim (reworded) is aligned against the target between its neighbours.
    """
    align = ALIGNERS[aligner]
    slack = len(passage) // 2 + 32
    found = []
    for start in placements(passage, target):
        low = max(0, start - slack)
        high = min(len(target), start + len(passage) + slack)
        alignment = align(passage, target[low:high])
        if not alignment.found:
            continue
        blocks = _fill(passage, target, list(alignment.shifted(low).blocks), align)
        found.append(Alignment(tuple(blocks), alignment.similarity))
    return found


RELOCATE_CHARS = 24


def _gaps(passage: str, blocks: list[Block]) -> list[tuple[int, int, int | None, int | None]]:
    """The stretches of the passage no block covers: (p start, p end, target reach before,
    target reach after), the reaches taken from the neighbouring blocks (None at an edge)."""
    gaps, reach_p, reach_t = [], 0, None
    ordered = sorted(blocks, key=lambda b: b.p_start)
    for block in ordered:
        if block.p_start > reach_p:
            gaps.append((reach_p, block.p_start, reach_t, block.t_start))
        if block.p_end > reach_p:
            reach_p, reach_t = block.p_end, block.t_end
    if reach_p < len(passage):
        gaps.append((reach_p, len(passage), reach_t, None))
    return gaps


def _sub_blocks(passage: str, p0: int, p1: int, target: str, t0: int, t1: int, align):
    piece = passage[p0:p1]
    if not piece.strip() or t1 <= t0:
        return []
    sub = align(piece, target[t0:t1])
    return [Block(b.p_start + p0, b.p_end + p0, b.t_start + t0, b.t_end + t0) for b in sub.blocks]


def _fill(passage: str, target: str, blocks: list[Block], align) -> list[Block]:
    """Align the stretches the anchors left unmatched: verbatim wherever they are, nearest
    first; else between their neighbouring anchors."""
    taken = [(b.t_start, b.t_end) for b in blocks]

    def free(block: Block) -> bool:
        return not any(block.t_start < e and s < block.t_end for s, e in taken)

    extra: list[Block] = []
    for p0, p1, before, after in _gaps(passage, blocks):
        piece = passage[p0:p1]
        expected = before if before is not None else (after or 0) - (p1 - p0)
        added: list[Block] = []
        if p1 - p0 >= RELOCATE_CHARS:
            places = sorted(placements(piece, target), key=lambda s: abs(s - expected))
            for start in places[:1]:
                low = max(0, start - 32)
                high = min(len(target), start + len(piece) + 32)
                added = [
                    b for b in _sub_blocks(passage, p0, p1, target, low, high, align) if free(b)
                ]
        if not added:
            margin = (p1 - p0) + 64
            t0 = before if before is not None else max(0, (after or 0) - margin)
            t1 = after if after is not None else min(len(target), (before or 0) + margin)
            added = [b for b in _sub_blocks(passage, p0, p1, target, t0, t1, align) if free(b)]
        extra += added
        taken += [(b.t_start, b.t_end) for b in added]
    return sorted(blocks + extra, key=lambda b: b.p_start)


__all__ = [
    "ALIGNERS",
    "DEFAULT_ALIGNER",
    "EMPTY",
    "Alignment",
    "Block",
    "align_chars",
    "align_in",
    "align_partial_ratio",
    "align_words",
    "nonblank",
    "placements",
    "rank",
]
