"""Everything the review page shows for one question: the question and its review state, its
flags, its contexts matched to chunks (with the part each context covers), its duplicate
cluster, and its history. Plus the word diff of an edit.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from labeler.errors import NotFoundError
from labeler.importers.contexts import strip_hop
from labeler.models import Chunk, Question
from labeler.store import Store

_TOKEN = re.compile(r"\w+", re.UNICODE)
# A run of this many words in common is a covered passage; shorter ones are chance.
MIN_COVERED_WORDS = 3


# A context that covers this share of a chunk's words is shown as the whole chunk.
WHOLE_CHUNK = 0.95


@dataclass(frozen=True, slots=True)
class ChunkMatch:
    """A chunk a context matched, and the character spans of it that the context covers."""

    chunk: Chunk
    spans: tuple[tuple[int, int], ...]

    @property
    def whole(self) -> bool:
        """The context covers (nearly) the whole chunk: 95 % of its words or more, so the page
        says so instead of marking every word of it."""
        covered = sum(len(self.chunk.text[a:b].split()) for a, b in self.spans)
        return covered >= WHOLE_CHUNK * max(len(self.chunk.text.split()), 1)


@dataclass(frozen=True, slots=True)
class ContextView:
    position: int
    text: str
    how: str
    chunking: str
    matches: tuple[ChunkMatch, ...]

    @property
    def found(self) -> bool:
        return bool(self.matches)


# A duplicate this close (token_sort_ratio, 0-100) is the same question asked again: "How long
# does standard delivery take within the UK?" and "... in the UK?" score 94.8 (the duplicate
# flag starts at 85: those are only alike).
SAME_SCORE = 90.0


@dataclass(frozen=True, slots=True)
class Member:
    """A question of the duplicate cluster; ``score`` against the question shown, when the
    two were paired directly."""

    id: str
    text: str
    origin: str
    status: str
    score: float | None


@dataclass(frozen=True, slots=True)
class ReviewView:
    question: Question
    state: dict
    generation: dict
    flags: tuple[dict, ...]
    contexts: tuple[ContextView, ...]
    # Source chunks no stored context covers (questions imported before contexts were kept).
    other_sources: tuple[Chunk, ...]
    cluster: tuple[Member, ...]
    history: tuple[dict, ...]

    @property
    def revision(self) -> int:
        return int(self.state["revision"])

    @property
    def same_as(self) -> Member | None:
        """The closest question this one repeats almost word for word (score at least
        SAME_SCORE), the ones already kept (written by people or accepted) first."""
        same = [m for m in self.cluster if m.score is not None and m.score >= SAME_SCORE]
        kept = [m for m in same if m.origin == "human" or m.status == "accepted"]
        return (kept or [m for m in same if m.status == "pending"] or [None])[0]

    @property
    def expected_key(self) -> str | None:
        """The decision the page offers as its default key: "reject" for a near-copy of a
        question already kept (accepting would add it twice), none for a near-copy of another
        question waiting (the reviewer chooses which to keep), else "accept"."""
        same = self.same_as
        if same is None:
            return "accept"
        return "reject" if same.origin == "human" or same.status == "accepted" else None

    @property
    def edited(self) -> bool:
        return self.state.get("original_text") is not None


def covered_spans(context: str, text: str) -> tuple[tuple[int, int], ...]:
    """Character spans of ``text`` (a chunk) that ``context`` repeats: runs of at least
    ``MIN_COVERED_WORDS`` words in the same order (case ignored), joined across the spaces and
    punctuation between them."""
    words = [(m.group().lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    other = [m.group().lower() for m in _TOKEN.finditer(context)]
    if not words or not other:
        return ()
    matcher = difflib.SequenceMatcher(None, [w for w, _, _ in words], other, autojunk=False)
    spans: list[list[int]] = []
    for block in matcher.get_matching_blocks():
        if block.size < MIN_COVERED_WORDS:
            continue
        start, end = words[block.a][1], words[block.a + block.size - 1][2]
        if spans and not _TOKEN.search(text[spans[-1][1] : start]):
            spans[-1][1] = end
        else:
            spans.append([start, end])
    return tuple((s, e) for s, e in spans)


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """The change from ``old`` to ``new`` word by word: ("=", text), ("-", removed) and
    ("+", added) segments, spaces kept, so the page can show an edit at a glance."""
    a = re.findall(r"\s+|\w+|[^\w\s]", old or "")
    b = re.findall(r"\s+|\w+|[^\w\s]", new or "")
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("=", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", "".join(b[j1:j2])))
    return out


def open_for_review(store: Store, question_id: str, *, chunking: str | None = None) -> ReviewView:
    """The whole of one question as the review page shows it."""
    chunking = chunking or store.corpus.current_chunking()
    question = store.questions.get(question_id)
    if question is None:
        msg = f"unknown question {question_id!r}"
        raise NotFoundError(msg, field="question_id")
    stored = store.reviews.question_contexts(question_id)
    wanted = {c for row in stored if row["chunking"] == chunking for c in row["chunk_ids"]}
    wanted |= set(question.source_chunk_ids)
    chunks = store.corpus.get_chunks(chunking, sorted(wanted))
    contexts = []
    covered: set[str] = set()
    for row in stored:
        text = strip_hop(row["text"])
        ids = row["chunk_ids"] if row["chunking"] == chunking else []
        matches = tuple(
            ChunkMatch(chunks[c], covered_spans(text, chunks[c].text)) for c in ids if c in chunks
        )
        covered.update(m.chunk.id for m in matches)
        contexts.append(ContextView(row["position"], text, row["how"], row["chunking"], matches))
    others = tuple(chunks[c] for c in question.source_chunk_ids if c in chunks and c not in covered)
    flags = tuple(store.flags.flags_of([question_id]).get(question_id, []))
    return ReviewView(
        question=question,
        state=store.reviews.state(question_id),
        generation=store.reviews.generation(question_id),
        flags=flags,
        contexts=tuple(contexts),
        other_sources=others,
        cluster=_cluster(store, question_id, flags),
        history=tuple(store.reviews.history(question_id)),
    )


def _cluster(store: Store, question_id: str, flags: tuple[dict, ...]) -> tuple[Member, ...]:
    duplicate = next((f for f in flags if f["name"] == "duplicate"), None)
    if duplicate is None:
        return ()
    scores = store.flags.pair_scores(question_id)
    rows = store.reviews.states([question_id, *duplicate["related"]])
    members = []
    for member_id in duplicate["related"]:
        row = rows.get(member_id)
        if row is None:
            continue
        members.append(
            Member(member_id, row["text"], row["origin"], row["status"], scores.get(member_id))
        )
    members.sort(key=lambda m: (m.score is None, -(m.score or 0), m.id))
    return tuple(members)


__all__ = [
    "MIN_COVERED_WORDS",
    "SAME_SCORE",
    "ChunkMatch",
    "ContextView",
    "Member",
    "ReviewView",
    "covered_spans",
    "open_for_review",
    "word_diff",
]
