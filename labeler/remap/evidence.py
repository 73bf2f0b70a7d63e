"""The evidence for each old passage: which new chunks hold how much of it, and how we know.

Strongest first, per passage (the text a label was given for, with its document and offsets):

1. ``identical``: a new chunk of the same document (of any document, when the passage's
   document has no chunk in the new chunking) has exactly the passage's text (its hash).
2. ``offsets``: the document's current text still holds the passage at its old offsets, and the
   new chunks of that document carry offsets: the overlap of the two spans is exact.
3. ``fuzzy``: the passage is aligned (``labeler.remap.align``) against the document's current
   text, found by verbatim probes, and the aligned blocks are shared out to the new chunks by
   their offsets; without a document text or offsets, against each new chunk of the document
   that shares a probe with it. When the passage's document has no chunk in the new chunking
   (its id changed), candidates come from the full-text index: a few of the document's
   passages are searched, the new document most of their hits belong to stands in for it, and a
   passage not found there is aligned against its own search hits. Never all pairs.

Coverage is the share of the passage (collapsed characters, see ``labeler.remap.text``) found
in a new chunk; containment the share of the new chunk made of the passage; similarity how
alike the two texts are where they align (100 for identical and offsets).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from labeler.errors import LabelerError
from labeler.remap.align import (
    ALIGNERS,
    DEFAULT_ALIGNER,
    Alignment,
    align_in,
    nonblank,
)
from labeler.remap.text import Normalized, collapse, nonblank_count
from labeler.store import Store
from labeler.store.base import text_hash

METHODS = ("identical", "offsets", "fuzzy")
DOCS_PER_BATCH = 200
VOTE_PASSAGES = 4
VOTE_HITS = 5
SEARCH_HITS = 10
LONG_CHUNK = 4  # a chunk this many times the passage's length is searched in windows


@dataclass(frozen=True, slots=True)
class Passage:
    """The text one or more old labels were given for, where it was. ``key`` tells passages
    apart: the old chunk, the text's hash and its place (``Passage.of`` computes it once)."""

    chunk_id: str
    text: str
    doc_id: str | None = None
    start: int | None = None
    end: int | None = None
    key: tuple = ()

    @classmethod
    def of(
        cls, chunk_id: str, text: str, doc_id: str | None, start: int | None, end: int | None
    ) -> Passage:
        return cls(chunk_id, text, doc_id, start, end, (chunk_id, text_hash(text), doc_id, start))


@dataclass(frozen=True, slots=True)
class Evidence:
    """How much of one passage one new chunk holds. ``spans`` are the parts of the new chunk
    (collapsed text, from its start) made of the passage; ``length`` is the chunk's collapsed
    length; ``order`` its place in its document."""

    chunk_id: str
    method: str
    coverage: float
    containment: float
    similarity: float
    spans: tuple[tuple[int, int], ...] = ()
    length: int = 0
    order: tuple = ()


@dataclass(frozen=True, slots=True)
class _NewChunk:
    id: str
    text: str
    start: int | None
    end: int | None
    hash: str
    order: tuple


def _chunk(row: dict, index: int) -> _NewChunk:
    return _NewChunk(
        row["id"],
        row["text"],
        row["start"],
        row["end"],
        row["text_hash"],
        (row["doc_id"] or "", index, row["id"]),
    )


def _identical(passage: Passage, chunk: _NewChunk) -> Evidence:
    text = collapse(chunk.text)
    length = nonblank(text, 0, len(text))
    return Evidence(chunk.id, "identical", 1.0, 1.0, 100.0, ((0, length),), length, chunk.order)


class _Document:
    """The new chunking's view of one document: its chunks, its current text, lazily collapsed."""

    def __init__(self, chunks: list[_NewChunk], text: str | None) -> None:
        self.chunks = chunks
        self.text = text
        self.by_hash: dict[str, list[_NewChunk]] = defaultdict(list)
        for chunk in chunks:
            self.by_hash[chunk.hash].append(chunk)
        self.placed = sorted(
            (c for c in chunks if c.start is not None and c.end is not None),
            key=lambda c: (c.start, c.end),
        )
        self.starts = [c.start for c in self.placed]
        self.widest = max((c.end - c.start for c in self.placed), default=0)
        self._normalized: Normalized | None = None
        self._collapsed: dict[str, str] = {}
        self._lengths: dict[str, int] = {}

    @property
    def normalized(self) -> Normalized:
        if self._normalized is None:
            self._normalized = Normalized.of(self.text or "")
        return self._normalized

    @property
    def has_offsets(self) -> bool:
        return self.text is not None and bool(self.placed)

    def overlapping(self, start: int, end: int) -> list[_NewChunk]:
        low = bisect_left(self.starts, start - self.widest)
        found = []
        for chunk in self.placed[low:]:
            if chunk.start >= end:
                break
            if chunk.end > start:
                found.append(chunk)
        return found

    def length(self, chunk: _NewChunk) -> int:
        """The chunk's non-blank characters."""
        found = self._lengths.get(chunk.id)
        if found is None:
            found = self._lengths[chunk.id] = nonblank_count(chunk.text)
        return found

    def collapsed(self, chunk: _NewChunk) -> str:
        text = self._collapsed.get(chunk.id)
        if text is None:
            text = self._collapsed[chunk.id] = collapse(chunk.text)
        return text


class EvidenceFinder:
    """Finds the evidence for passages in one new chunking; built once per remap.

    ``methods`` and ``aligner`` exist for the benchmark, which measures each method and aligner
    on its own; a remap uses them all, strongest first, with the default aligner.
    """

    def __init__(
        self,
        store: Store,
        chunking: str,
        *,
        methods: Sequence[str] = METHODS,
        aligner: str = DEFAULT_ALIGNER,
    ) -> None:
        unknown = set(methods) - set(METHODS)
        if unknown or aligner not in ALIGNERS:
            msg = f"unknown method or aligner: {sorted(unknown) or aligner!r}"
            raise ValueError(msg)
        self.store = store
        self.chunking = chunking
        self.methods = tuple(methods)
        self.aligner = aligner
        self.align = ALIGNERS[aligner]
        self.doc_ids = store.remaps.chunking_document_ids(chunking)
        self.searches = 0

    # the whole job ----------------------------------------------------------------------------

    def find(self, passages: Iterable[Passage]) -> dict[tuple, tuple[Evidence, ...]]:
        """{passage key: its evidence, best first} for every passage (empty: found nowhere)."""
        return self.find_sorted(sorted(passages, key=lambda p: (p.doc_id is None, p.doc_id or "")))

    def find_sorted(self, passages: Iterable[Passage]) -> dict[tuple, tuple[Evidence, ...]]:
        """``find`` over passages that come grouped by document, read as they come: only
        DOCS_PER_BATCH documents' texts and chunks are held at a time."""
        found: dict[tuple, tuple[Evidence, ...]] = {}
        batch: dict[str, list[Passage]] = {}
        orphans: list[Passage] = []
        for passage in passages:
            if passage.doc_id is None or passage.doc_id not in self.doc_ids:
                orphans.append(passage)
                continue
            if passage.doc_id not in batch and len(batch) >= DOCS_PER_BATCH:
                self._batch(batch, found)
                batch = {}
            batch.setdefault(passage.doc_id, []).append(passage)
        if batch:
            self._batch(batch, found)
        found.update(self._orphans(orphans))
        return found

    def _batch(self, batch: dict[str, list[Passage]], found: dict) -> None:
        for doc_id, document in self._documents(sorted(batch)).items():
            for passage in batch[doc_id]:
                found[passage.key] = self._in_document(passage, document)

    def _documents(self, doc_ids: Sequence[str]) -> dict[str, _Document]:
        chunks: dict[str, list[_NewChunk]] = defaultdict(list)
        for index, row in enumerate(self.store.remaps.document_chunks(self.chunking, doc_ids)):
            chunks[row["doc_id"]].append(_chunk(row, index))
        texts = self.store.remaps.document_texts(doc_ids)
        for doc_id, text in texts.items():
            for chunk in chunks[doc_id]:
                placed = chunk.start is not None and chunk.end is not None
                if placed and text[chunk.start : chunk.end] != chunk.text:
                    msg = (
                        f"chunk {chunk.id!r} of {self.chunking!r} is not the text of document"
                        f" {doc_id!r} at {chunk.start}:{chunk.end}: the chunking was cut from a"
                        " version of the document the database does not hold; import that"
                        " version first (labeler import documents)"
                    )
                    raise LabelerError(msg, field="start")
        return {d: _Document(chunks[d], texts.get(d)) for d in doc_ids}

    # one passage in its document ------------------------------------------------------------

    def _in_document(
        self, passage: Passage, document: _Document, *, same_id: bool = True
    ) -> tuple[Evidence, ...]:
        """The evidence in one document: the passage's own (``same_id``), or the document that
        stands in for it when its id changed (then its old offsets mean nothing)."""
        if "identical" in self.methods:
            same = document.by_hash.get(text_hash(passage.text), [])
            if len(same) > 1 and passage.start is not None:
                # The same text twice in one document: its old place decides, if it is known.
                at = [c for c in same if c.start == passage.start]
                same = at or same
            if same:
                return tuple(_identical(passage, c) for c in same)
        if same_id and "offsets" in self.methods and self._unchanged_at(passage, document):
            return self._by_offsets(passage, document)
        if "fuzzy" not in self.methods:
            return ()
        if document.has_offsets:
            return self._aligned_in_text(passage, document)
        return self._aligned_to_chunks(passage, document.chunks, document.collapsed)

    @staticmethod
    def _unchanged_at(passage: Passage, document: _Document) -> bool:
        """The document's current text holds the passage at its old offsets."""
        if passage.start is None or passage.end is None or not document.has_offsets:
            return False
        return document.text[passage.start : passage.end] == passage.text

    def _by_offsets(self, passage: Passage, document: _Document) -> tuple[Evidence, ...]:
        """Exact overlaps, counted in non-blank characters of the document's own text."""
        text = document.text
        size = nonblank_count(passage.text)
        if not size:
            return ()
        found = []
        for chunk in document.overlapping(passage.start, passage.end):
            low, high = max(passage.start, chunk.start), min(passage.end, chunk.end)
            length = document.length(chunk)
            here = nonblank_count(text, low, high)
            if not here or not length:
                continue
            start = nonblank_count(text, chunk.start, low)
            found.append(
                Evidence(
                    chunk.id,
                    "offsets",
                    here / size,
                    here / length,
                    100.0,
                    ((start, start + here),),
                    length,
                    chunk.order,
                )
            )
        return _best_first(found)

    def _aligned_in_text(self, passage: Passage, document: _Document) -> tuple[Evidence, ...]:
        """Align the passage in the document's current text; share the blocks out by offsets."""
        text = collapse(passage.text)
        if not text:
            return ()
        norm = document.normalized
        best: dict[str, Evidence] = {}
        for alignment in align_in(text, norm.text, aligner=self.aligner):
            reached: dict[str, _NewChunk] = {}
            for block in alignment.blocks:
                low, high = norm.to_original(block.t_start), norm.to_original(block.t_end)
                for chunk in document.overlapping(low, max(high, low + 1)):
                    reached.setdefault(chunk.id, chunk)
            for chunk in reached.values():
                c0, c1 = norm.span_from_original(chunk.start, chunk.end)
                evidence = _from_alignment(alignment, norm.text, chunk, c0, c1, text)
                if evidence is not None and (
                    chunk.id not in best or evidence.coverage > best[chunk.id].coverage
                ):
                    best[chunk.id] = evidence
        return _best_first(best.values())

    def _aligned_to_chunks(
        self, passage: Passage, chunks: Sequence[_NewChunk], collapsed
    ) -> tuple[Evidence, ...]:
        """Align the passage against each chunk sharing a verbatim stretch with it."""
        text = collapse(passage.text)
        if not text:
            return ()
        probes = _probes(text)
        found = []
        for chunk in chunks:
            body = collapsed(chunk)
            if not body:
                continue
            if not (body in text or any(p in body for p in probes)):
                continue
            if len(body) > LONG_CHUNK * len(text):
                alignments = align_in(text, body, aligner=self.aligner)
            else:
                alignments = [self.align(text, body)]
            candidates = [
                e
                for a in alignments
                if a.found
                for e in [_from_alignment(a, body, chunk, 0, len(body), text)]
                if e is not None
            ]
            if candidates:
                found.append(max(candidates, key=lambda e: e.coverage))
        return _best_first(found)

    # passages whose document the new chunking does not name -----------------------------------

    def _orphans(self, passages: list[Passage]) -> dict[tuple, tuple[Evidence, ...]]:
        found: dict[tuple, tuple[Evidence, ...]] = {}
        if not passages:
            return found
        if "identical" in self.methods:
            hashes = {text_hash(p.text) for p in passages}
            same: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for digest, chunk_id, doc_id in self.store.remaps.chunks_with_hashes(
                self.chunking, hashes
            ):
                same[digest].append((chunk_id, doc_id))
            rest = []
            for passage in passages:
                hits = same.get(text_hash(passage.text))
                if not hits:
                    rest.append(passage)
                    continue
                text = collapse(passage.text)
                length = nonblank(text, 0, len(text))
                found[passage.key] = tuple(
                    Evidence(
                        c, "identical", 1.0, 1.0, 100.0, ((0, length),), length, (d or "", 0, c)
                    )
                    for c, d in sorted(hits, key=lambda h: (h[1] or "", h[0]))
                )
            passages = rest
        if "fuzzy" not in self.methods or not passages:
            return found
        groups: dict[str | None, list[Passage]] = defaultdict(list)
        for passage in passages:
            groups[passage.doc_id].append(passage)
        for doc_id, members in groups.items():
            stand_in = self._vote(members) if doc_id is not None else None
            document = self._documents([stand_in])[stand_in] if stand_in else None
            for passage in members:
                evidence: tuple[Evidence, ...] = ()
                if document is not None:
                    evidence = self._in_document(passage, document, same_id=False)
                if not evidence:
                    evidence = self._searched(passage)
                found[passage.key] = evidence
        return found

    def _search(self, text: str, limit: int) -> list:
        self.searches += 1
        return self.store.search.search_chunks(self.chunking, text, limit=limit, any_term=True)

    def _vote(self, passages: list[Passage]) -> str | None:
        """The new document most full-text hits of the old document's longest passages belong
        to, if at least two hits agree (one, for a document with one passage)."""
        votes: Counter[str] = Counter()
        for passage in sorted(passages, key=lambda p: -len(p.text))[:VOTE_PASSAGES]:
            for chunk in self._search(passage.text, VOTE_HITS):
                if chunk.doc_id is not None:
                    votes[chunk.doc_id] += 1
        if not votes:
            return None
        (doc_id, count), *_ = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))
        return doc_id if count >= min(2, len(passages)) else None

    def _searched(self, passage: Passage) -> tuple[Evidence, ...]:
        hits = self._search(passage.text, SEARCH_HITS)
        chunks = [
            _NewChunk(h.id, h.text, h.start, h.end, "", (h.doc_id or "", h.start or 0, h.id))
            for h in hits
        ]
        return self._aligned_to_chunks(passage, chunks, lambda c: collapse(c.text))


def _probes(text: str) -> list[str]:
    """Verbatim stretches of a collapsed passage, to find the chunks worth aligning."""
    width = min(24, max(8, len(text) // 4))
    if len(text) <= width:
        return [text]
    count = max(2, min(12, len(text) // width))
    step = (len(text) - width) / (count - 1)
    return [text[round(k * step) : round(k * step) + width] for k in range(count)]


def _from_alignment(
    alignment: Alignment, target: str, chunk: _NewChunk, c0: int, c1: int, passage: str
) -> Evidence | None:
    """The evidence one alignment gives for the chunk at ``target[c0:c1]`` (collapsed)."""
    length = nonblank(target, c0, c1)
    size = nonblank(passage, 0, len(passage))
    if not length or not size:
        return None
    found, matched, spans = alignment.within(target, c0, c1)
    if found <= 0:
        return None
    return Evidence(
        chunk.id,
        "fuzzy",
        min(1.0, found / size),
        min(1.0, matched / length),
        alignment.similarity,
        spans,
        length,
        chunk.order,
    )


def _best_first(found: Iterable[Evidence]) -> tuple[Evidence, ...]:
    return tuple(sorted(found, key=lambda e: (-e.coverage, -e.containment, e.order)))


__all__ = ["METHODS", "Evidence", "EvidenceFinder", "Passage"]
