"""Build the bundled demo data set in data/demo/ from the hand-written sources in data/demo_source/.

Why a script: the demo is data the app and the tests rely on, so it must be reproducible.
Everything here is standard library only and deterministic (the only randomness is a seeded
generator), so running it twice gives the same bytes. `--check` rebuilds into a temporary
folder and fails when anything differs from the committed data/demo/.

Steps:
1. documents: every Markdown file in demo_source/documents/ is one document; its id is the file
   name without `.md`, its title the text of the first `# ` heading, its text the whole file.
2. chunks: a paragraph chunker (see `chunk_document`), with exact character offsets.
3. questions and ground truth: demo_source/questions.py; each relevant passage is named by
   document id and a short exact quote, resolved here to the chunk(s) containing it.
4. runs: three retrievers of deliberately different quality (bm25, weak, hybrid).
5. labels: what two reviewers, maria and tom, would have graded for about half the questions,
   and the work a lead assigned them (labels/assignments.tsv).
6. review: generated questions awaiting review (demo_source/review.py), as a Ragas testset and
   as plain JSONL from another generator, and the decisions the reviewers already made.
7. conversations: Fernleaf support chats (demo_source/conversations.py) as an MTRAG task file,
   one line per turn, with the reviewers' feedback on some turns, and MTRAG's rewrite queries;
   the runs and the ground truth cover their turns too.

Usage:
    python data/build_demo.py            # rebuild data/demo/ and print a summary
    python data/build_demo.py --check    # rebuild into a temp dir, fail if data/demo/ differs
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import importlib.util
import json
import math
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "demo_source"
OUTPUT = HERE / "demo"

# Chunker settings (characters).
MAX_CHUNK = 700  # paragraphs are packed while the chunk stays within this size
MIN_BEFORE_HEADING = 200  # a heading starts a new chunk unless the open chunk is shorter

RUN_DEPTH = 20  # results per question in every run
POOL_DEPTH = 5  # top-k of each run that reviewers are shown (pooled)
RRF_K = 60  # reciprocal rank fusion constant
SEED = 20250301

STOP_WORDS = frozenset(
    """a an and are as at be by can do does for from has have how i if in is it its my of on
    or our so that the their then there they this to was we what when where which who why will
    with you your me us""".split()
)


class BuildError(Exception):
    """A problem in the hand-written sources (bad quote, unknown document, ...)."""


# ---------------------------------------------------------------------------------------------
# Sources


def load_module(name: str, folder: Path = SOURCE) -> ModuleType:
    """Import a demo_source/*.py file by path (the folder is data, not a package)."""
    path = folder / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"demo_source_{name}", path)
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_documents() -> list[dict]:
    """Read every Markdown document; normalise line endings and the final newline only."""
    documents = []
    for path in sorted((SOURCE / "documents").glob("*.md")):
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n").rstrip() + "\n"
        first = text.split("\n", 1)[0]
        if not first.startswith("# "):
            raise BuildError(f"{path.name}: the first line must be a '# Title' heading")
        documents.append({"id": path.stem, "title": first[2:].strip(), "text": text})
    return documents


# ---------------------------------------------------------------------------------------------
# Chunking


def split_blocks(text: str) -> list[tuple[int, int]]:
    """Paragraph blocks as (start, end) offsets: runs of non-blank lines.

    A fenced code block (``` ... ```) is one block even if it holds blank lines. `end` excludes
    the newline that closes the block.
    """
    blocks: list[tuple[int, int]] = []
    pos = 0
    start = None
    in_fence = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        line_end = pos + len(line.rstrip("\n"))
        if stripped.startswith("```"):
            in_fence = not in_fence
        if stripped or in_fence:
            if start is None:
                start = pos
            last_end = line_end
        elif start is not None:
            blocks.append((start, last_end))
            start = None
        pos += len(line)
    if start is not None:
        blocks.append((start, last_end))
    return blocks


def split_long_block(
    text: str, start: int, end: int, limit: int = MAX_CHUNK
) -> list[tuple[int, int]]:
    """Cut a block longer than ``limit`` at line breaks, then at sentence ends."""
    if end - start <= limit:
        return [(start, end)]
    # Candidate cut points: after a newline, or after ". " / "; " inside a line.
    cuts = [m.end() for m in re.finditer(r"\n|(?<=[.;:])[ ](?=\S)", text[start:end])]
    pieces = []
    piece_start = start
    last_ok = None
    for cut in cuts:
        absolute = start + cut
        if absolute - piece_start <= limit:
            last_ok = absolute
            continue
        if last_ok is None:  # one sentence longer than the limit: accept it whole
            last_ok = absolute
        pieces.append((piece_start, last_ok))
        piece_start = last_ok
        last_ok = absolute if absolute - piece_start <= limit else None
    pieces.append((piece_start, end))
    # Trim the whitespace left at the cut points so offsets hold text only.
    trimmed = []
    for s, e in pieces:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            trimmed.append((s, e))
    return trimmed


def is_heading(text: str, span: tuple[int, int]) -> bool:
    return text[span[0] : span[1]].startswith("#")


def chunk_document(
    doc: dict, *, limit: int = MAX_CHUNK, mark: str = "#", carry_headings: bool = False
) -> list[dict]:
    """Split a document into chunks of whole paragraphs, without overlap.

    Rules: a Markdown heading starts a new chunk (unless the open chunk is shorter than
    MIN_BEFORE_HEADING characters, e.g. a title followed by a one-line introduction), and is
    never the last block of a chunk; paragraphs are packed while the chunk stays within
    ``limit`` characters (MAX_CHUNK); a paragraph longer than that is cut at line or sentence
    ends. A chunk's text is exactly document.text[start:end]; its id is the document id, ``mark``
    and its number from 1. With ``carry_headings`` (the second chunking), a heading that would
    end a chunk cut for size goes on to the next one with its section (the default chunking
    keeps its first behaviour, so the demo's chunk ids and runs stay as they are).
    """
    text = doc["text"]
    blocks: list[tuple[int, int]] = []
    for start, end in split_blocks(text):
        blocks.extend(split_long_block(text, start, end, limit))

    groups: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []

    def only_headings(group: list[tuple[int, int]]) -> bool:
        return all(is_heading(text, b) for b in group)

    for block in blocks:
        if current:
            size_if_added = block[1] - current[0][0]
            open_size = current[-1][1] - current[0][0]
            starts_section = is_heading(text, block) and open_size >= MIN_BEFORE_HEADING
            too_big = size_if_added > limit and not only_headings(current)
            if starts_section or too_big:
                carried = []
                while carry_headings and len(current) > 1 and is_heading(text, current[-1]):
                    carried.insert(0, current.pop())
                groups.append(current)
                current = carried
        current.append(block)
    if current:
        groups.append(current)

    chunks = []
    for number, group in enumerate(groups, start=1):
        start, end = group[0][0], group[-1][1]
        chunks.append(
            {
                "id": f"{doc['id']}{mark}{number}",
                "doc_id": doc["id"],
                "title": chunk_title(doc, start),
                "text": text[start:end],
                "start": start,
                "end": end,
            }
        )
    return chunks


def chunk_title(doc: dict, start: int) -> str:
    """Document title, plus the section (## heading) the chunk starts in, if any."""
    section = None
    for match in re.finditer(r"^## (.+)$", doc["text"], flags=re.MULTILINE):
        if match.start() <= start:
            section = match.group(1).strip()
        else:
            break
    return (
        f"{doc['title']} \N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK} {section}"
        if section
        else doc["title"]
    )


# ---------------------------------------------------------------------------------------------
# Ground truth


def resolve_quote(doc_text: str, chunks: list[dict], doc_id: str, quote: str, where: str) -> list:
    """The chunks of a document that overlap the one occurrence of `quote`.

    Fails loudly when the quote is absent or occurs more than once in the document, so that a
    typo or an edited document cannot silently move a label.
    """
    count = doc_text.count(quote)
    if count == 0:
        raise BuildError(f"{where}: quote not found in {doc_id}: {quote!r}")
    if count > 1:
        raise BuildError(f"{where}: quote occurs {count} times in {doc_id}: {quote!r}")
    start = doc_text.index(quote)
    end = start + len(quote)
    found = [c["id"] for c in chunks if c["start"] < end and start < c["end"]]
    if not found:
        raise BuildError(f"{where}: quote falls between chunks in {doc_id}: {quote!r}")
    return found


def build_ground_truth(questions: list[dict], documents: dict, chunks_by_doc: dict):
    """{question id: {chunk id: grade}} from the (doc, quote, grade) triples of each question."""
    truth: dict[str, dict[str, int]] = {}
    spanning = []
    for q in questions:
        grades: dict[str, int] = {}
        for doc_id, quote, grade in q.get("relevant", []):
            if doc_id not in documents:
                raise BuildError(f"{q['id']}: unknown document {doc_id!r}")
            if grade not in (1, 2):
                raise BuildError(f"{q['id']}: grade must be 1 or 2, got {grade!r}")
            ids = resolve_quote(
                documents[doc_id]["text"], chunks_by_doc[doc_id], doc_id, quote, q["id"]
            )
            if len(ids) > 1:
                spanning.append((q["id"], doc_id, quote))
            for chunk_id in ids:
                grades[chunk_id] = max(grade, grades.get(chunk_id, 0))
        truth[q["id"]] = grades
    return truth, spanning


# ---------------------------------------------------------------------------------------------
# Retrieval


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric tokens minus a small stop list (no stemming: that is BM25's
    weakness the semantic retriever makes up for)."""
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP_WORDS]


class BM25:
    """Okapi BM25 over a list of token lists (k1=1.2, b=0.75, Robertson-Sparck Jones idf + 1)."""

    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tfs = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avgdl = sum(self.lengths) / len(docs)
        df = Counter(term for tf in self.tfs for term in tf)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: list[str]) -> list[float]:
        out = []
        terms = [t for t in query if t in self.idf]
        for tf, length in zip(self.tfs, self.lengths, strict=True):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.avgdl)
            for term in terms:
                f = tf.get(term)
                if f:
                    score += self.idf[term] * f * (self.k1 + 1) / (f + norm)
            out.append(score)
        return out


def stem(token: str) -> str:
    """A deliberately light stemmer for the simulated semantic retriever.

    Plural and verb endings go, then a final "e", so that "authenticate", "authenticated" and
    "authenticates" meet; words of four letters or fewer are left alone.
    """
    if len(token) <= 4:
        return token
    if token.endswith("ies"):
        token = token[:-3] + "y"
    elif token.endswith("sses"):
        token = token[:-2]
    elif token.endswith("s") and not token.endswith(("ss", "us", "is")):
        token = token[:-1]
    for suffix in ("ing", "ed"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            token = token[: -len(suffix)]
            break
    if token.endswith("e") and len(token) > 4:
        token = token[:-1]
    return token


class Semantic:
    """A stand-in for an embedding retriever: concept vectors compared by cosine.

    Text is lower-cased, multi-word phrases from the synonym table are replaced by their concept,
    single words are lightly stemmed and mapped to their concept, and query words unknown to the
    corpus are matched to a known word one edit away (typos). Vectors are tf-idf weighted. It
    knows paraphrases that keyword search misses, and it also blurs distinctions keyword search
    keeps, as real embeddings do.
    """

    def __init__(self, texts: list[str], synonym_groups: list[list[str]]):
        self.phrases: list[tuple[re.Pattern, str]] = []
        self.words: dict[str, str] = {}
        for group in synonym_groups:
            concept = "C_" + re.sub(r"\W+", "_", group[0].lower())
            for term in group:
                term = term.lower()
                if " " in term or "-" in term:
                    pattern = re.compile(r"\b" + re.escape(term) + r"\b")
                    self.phrases.append((pattern, f" {concept} "))
                else:
                    self.words[stem(term)] = concept
        # Longest phrases first, so "annual leave" wins over "leave".
        self.phrases.sort(key=lambda p: -len(p[0].pattern))
        docs = [self.concepts(t) for t in texts]
        self.vocabulary = {t for d in docs for t in d}
        df = Counter(t for d in docs for t in set(d))
        n = len(docs)
        self.idf = {t: math.log((n + 1) / (f + 0.5)) for t, f in df.items()}
        self.vectors = [self.vector(d) for d in docs]

    def concepts(self, text: str) -> list[str]:
        text = text.lower()
        for pattern, concept in self.phrases:
            text = pattern.sub(concept, text)
        out = []
        for token in re.findall(r"C_\w+|[a-z0-9]+", text):
            if token.startswith("C_"):
                out.append(token)
                continue
            if token in STOP_WORDS:
                continue
            token = stem(token)
            out.append(self.words.get(token, token))
        return out

    def vector(self, terms: list[str]) -> dict[str, float]:
        tf = Counter(terms)
        vec = {t: (1 + math.log(c)) * self.idf.get(t, 0.0) for t, c in tf.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    def correct(self, term: str) -> str:
        """Map an unknown query term to the closest corpus term within one edit, if any."""
        if term in self.vocabulary or term.startswith("C_") or len(term) < 4:
            return term
        candidates = sorted(
            t for t in self.vocabulary if abs(len(t) - len(term)) <= 1 and within_one_edit(term, t)
        )
        return candidates[0] if candidates else term

    def scores(self, query: str) -> list[float]:
        terms = [self.correct(t) for t in self.concepts(query)]
        q = self.vector(terms)
        return [sum(w * d.get(t, 0.0) for t, w in q.items()) for d in self.vectors]


def within_one_edit(a: str, b: str) -> bool:
    """True when a and b differ by one insertion, deletion, substitution or adjacent swap."""
    if a == b:
        return True
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and a[diffs[0]] == b[diffs[1]]
            and a[diffs[1]] == b[diffs[0]]
        )
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) != 1:
        return False
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def top_k(scores: list[float], ids: list[str], k: int) -> list[tuple[str, float]]:
    """Best k (chunk id, score), score descending, ties broken by chunk id ascending."""
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))
    return [(ids[i], scores[i]) for i in order[:k]]


def rrf(rankings: list[list[str]], k: int = RRF_K) -> dict[str, float]:
    fused: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, chunk_id in enumerate(ranking, start=1):
            fused[chunk_id] += 1.0 / (k + rank)
    return fused


def make_runs(questions: list[dict], chunks: list[dict], synonym_groups) -> dict:
    """The three runs: {run name: {question id: [(chunk id, score), ...]}}."""
    ids = [c["id"] for c in chunks]
    full = BM25([tokenize(c["title"] + "\n" + c["text"]) for c in chunks])
    # weak: BM25 that only sees the first 100 characters of each chunk's text (no title),
    # with seeded noise on the scores, like a badly configured index.
    prefix = BM25([tokenize(c["text"][:100]) for c in chunks])
    semantic = Semantic([c["title"] + "\n" + c["text"] for c in chunks], synonym_groups)
    rng = random.Random(SEED)

    runs: dict[str, dict[str, list[tuple[str, float]]]] = {"bm25": {}, "weak": {}, "hybrid": {}}
    for q in questions:
        query = tokenize(q["question"])
        bm25_scores = full.scores(query)
        runs["bm25"][q["id"]] = top_k(bm25_scores, ids, RUN_DEPTH)

        weak_scores = [s + rng.gauss(0.0, 1.0) for s in prefix.scores(query)]
        runs["weak"][q["id"]] = top_k(weak_scores, ids, RUN_DEPTH)

        sem_scores = semantic.scores(q["question"])
        depth = 100
        fused = rrf(
            [
                [c for c, _ in top_k(bm25_scores, ids, depth)],
                [c for c, _ in top_k(sem_scores, ids, depth)],
            ]
        )
        fused_ids = list(fused)
        runs["hybrid"][q["id"]] = top_k([fused[c] for c in fused_ids], fused_ids, RUN_DEPTH)
    return runs


def strictly_descending(results: list[tuple[str, float]], decimals: int) -> list[str]:
    """Format scores so the written values are strictly descending.

    Tied scores would leave the order to each reader's tie-breaking rule; instead the rank
    order decided here (score, then chunk id) is made explicit by lowering a tied score by the
    smallest printed step.
    """
    step = 10.0**-decimals
    out = []
    previous = None
    for _, score in results:
        value = round(score, decimals)
        if previous is not None and value >= previous:
            value = round(previous - step, decimals)
        out.append(f"{value:.{decimals}f}")
        previous = value
    return out


# ---------------------------------------------------------------------------------------------
# Evaluation (only to show the quality ordering; the app has its own engine)


def evaluate(run: dict, truth: dict) -> tuple[float, float]:
    """Mean recall@10 and MRR (over the 20 results) across questions with relevant chunks."""
    recalls, rrs = [], []
    for qid, grades in truth.items():
        relevant = {c for c, g in grades.items() if g >= 1}
        if not relevant:
            continue
        ranking = [c for c, _ in run.get(qid, [])]
        recalls.append(len(relevant & set(ranking[:10])) / len(relevant))
        rr = 0.0
        for rank, chunk_id in enumerate(ranking, start=1):
            if chunk_id in relevant:
                rr = 1.0 / rank
                break
        rrs.append(rr)
    return sum(recalls) / len(recalls), sum(rrs) / len(rrs)


# ---------------------------------------------------------------------------------------------
# Labels


def make_labels(questions, truth, runs, plan, disagreements, documents, chunks_by_doc):
    """Reviewer qrels as they would look after grading the pooled candidates.

    For each labelled question, the reviewer grades the union of the top POOL_DEPTH of every
    run plus the relevant chunks (found with the search box when no run surfaced them):
    relevant chunks get their ground-truth grade, everything else 0. Then the deliberate
    disagreements from demo_source/labels.py are applied.
    """
    known = {q["id"] for q in questions}
    labels: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    unanswerable: list[tuple[str, str]] = []
    for qid, reviewers in plan.items():
        if qid not in known:
            raise BuildError(f"labels.py: unknown question {qid}")
        pool = set()
        for run in runs.values():
            pool.update(c for c, _ in run[qid][:POOL_DEPTH])
        pool.update(truth[qid])
        for reviewer in reviewers:
            labels[reviewer][qid] = {c: truth[qid].get(c, 0) for c in pool}
            if not truth[qid]:
                unanswerable.append((qid, reviewer))
    applied = []
    for d in disagreements:
        qid, reviewer = d["question"], d["reviewer"]
        if reviewer not in plan.get(qid, ()):
            raise BuildError(f"labels.py: {reviewer} does not label {qid}")
        ids = resolve_quote(
            documents[d["doc"]]["text"],
            chunks_by_doc[d["doc"]],
            d["doc"],
            d["quote"],
            f"labels.py {qid}",
        )
        for chunk_id in ids:
            before = labels[reviewer][qid].get(chunk_id)
            if before is None:
                raise BuildError(f"labels.py: {chunk_id} is not in the pool of {qid}")
            if before == d["grade"]:
                raise BuildError(f"labels.py: {reviewer} already gives {chunk_id} grade {before}")
            labels[reviewer][qid][chunk_id] = d["grade"]
            applied.append((qid, chunk_id, reviewer, before, d["grade"]))
    return labels, sorted(unanswerable), applied


# ---------------------------------------------------------------------------------------------
# The second chunking (the remap demo)


def revise(doc_id: str, text: str, edits: list[tuple[str, str, str]]) -> str:
    """Apply the hand-written revisions of demo_source/remap.py to one document's text."""
    for kind, old, new in edits:
        if text.count(old) != 1:
            raise BuildError(f"remap.py {doc_id}: {old!r} occurs {text.count(old)} times")
        if kind == "replace":
            text = text.replace(old, new)
        elif kind == "move":
            start = text.index(old)
            following = text.find("\n## ", start + len(old))
            end = following + 1 if following >= 0 else len(text)
            section = text[start:end]
            text = text[:start] + text[end:]
            if text.count(new) != 1:
                raise BuildError(f"remap.py {doc_id}: heading {new!r} not found once")
            at = text.index(new)
            text = text[:at] + section.rstrip("\n") + "\n\n" + text[at:]
        else:
            raise BuildError(f"remap.py {doc_id}: unknown revision {kind!r}")
    return text


def build_remap(out: Path, documents: list[dict]) -> dict:
    """The revised documents and every chunk of the second chunking, into ``out``."""
    source = load_module("remap")
    unknown = set(source.REVISED) - {d["id"] for d in documents}
    if unknown:
        raise BuildError(f"remap.py: unknown documents {sorted(unknown)}")
    revised, chunks = [], []
    for doc in documents:
        plan = source.REVISED.get(doc["id"])
        if plan is not None:
            doc = {
                "id": plan["id"],
                "title": doc["title"],
                "text": revise(doc["id"], doc["text"], plan["edits"]),
            }
            revised.append(doc)
        for chunk in chunk_document(doc, limit=source.LIMIT, mark="~", carry_headings=True):
            assert doc["text"][chunk["start"] : chunk["end"]] == chunk["text"], chunk["id"]
            chunks.append(chunk)
    assert len({c["id"] for c in chunks}) == len(chunks), "duplicate chunk ids"
    write_jsonl(out / "documents.jsonl", revised)
    write_jsonl(out / "chunks.jsonl", chunks)
    return {"chunking": source.CHUNKING, "revised": revised, "chunks": chunks}


# ---------------------------------------------------------------------------------------------
# Writing


def chunk_sort_key(chunk_id: str) -> tuple[str, int]:
    doc_id, _, number = chunk_id.rpartition("#")
    return doc_id, int(number)


# ---------------------------------------------------------------------------------------------
# Generated questions to review


def section_of(doc_text: str, doc_id: str, quote: str) -> str:
    """The section (heading to next heading) of a document holding the one occurrence of
    `quote`: what Ragas' Markdown splitter hands its LLM as one context."""
    if doc_text.count(quote) != 1:
        raise BuildError(
            f"review: quote found {doc_text.count(quote)} times in {doc_id}: {quote!r}"
        )
    at = doc_text.index(quote)
    start = doc_text.rfind("\n## ", 0, at)
    end = doc_text.find("\n## ", at)
    return doc_text[start + 1 if start >= 0 else 0 : end if end >= 0 else len(doc_text)].strip()


def ragas_id(text: str) -> str:
    """The id `labeler import ragas` gives a question without one (tests/test_demo.py checks
    the two agree)."""
    return "ragas-" + hashlib.sha1(text.strip().encode("utf-8")).hexdigest()[:10]


def build_review(out: Path, docs_by_id: dict, chunks: list[dict]) -> dict:
    """Write the review demo: a Ragas testset, another generator's JSONL, and decisions."""
    source = load_module("review")
    rows, texts = [], {}
    for item in source.RAGAS:
        contexts = []
        for hop, (doc_id, quote) in enumerate(item["ctx"], start=1):
            if doc_id == "!":
                text = quote
            elif doc_id in docs_by_id:
                text = section_of(docs_by_id[doc_id]["text"], doc_id, quote)
            else:
                raise BuildError(f"review: unknown document {doc_id!r}")
            contexts.append(f"<{hop}-hop>\n\n{text}" if len(item["ctx"]) > 1 else text)
        rows.append(
            {
                "user_input": item["q"],
                "reference_contexts": contexts,
                "reference": item["ref"],
                "synthesizer_name": item["syn"],
                "persona_name": item["persona"],
                "query_style": item["style"],
                "query_length": item["length"],
            }
        )
        texts[item["q"]] = ragas_id(item["q"])
    chunk_ids = {c["id"] for c in chunks}
    generated = []
    for item in source.ACME:
        for chunk_id in item["ctx"]:
            if chunk_id not in chunk_ids and chunk_id.split("#")[0] in docs_by_id:
                raise BuildError(f"review: {item['id']}: no chunk {chunk_id!r}")
        generated.append(
            {
                "id": item["id"],
                "origin": "generated",
                "generator": item["generator"],
                "question": item["q"],
                "reference": item["ref"],
                "contexts": item["ctx"],
                "metadata": {"synthesizer": item["synthesizer"], "persona": item["persona"]},
            }
        )
        texts[item["q"]] = item["id"]
    if len(texts) != len(source.RAGAS) + len(source.ACME):
        raise BuildError("review: two generated questions have the same text")
    decisions = []
    for text, reviewer, decision, reason, note, seconds in source.DECISIONS:
        if text not in texts:
            raise BuildError(f"review: a decision names no generated question: {text!r}")
        row = {"question_id": texts[text], "reviewer": reviewer, "decision": decision}
        row.update({k: v for k, v in (("reason", reason), ("note", note)) if v})
        row["seconds"] = seconds
        decisions.append(row)
    write_jsonl(out / "ragas_testset.jsonl", rows)
    write_jsonl(out / "generated.jsonl", generated)
    write_jsonl(out / "decisions.jsonl", decisions)
    return {"ragas": len(rows), "generated": len(generated), "decisions": len(decisions)}


# Timestamps of the conversations' messages and feedback: fixed, so the build is reproducible.
CHAT_EPOCH = 1767261600  # 2026-01-01 10:00 UTC
CHAT_NEGATIVES = 2  # the hybrid run's best non-answers a graded turn's feedback says "no" to


def conversation_turns(conversations: list[dict]) -> list[dict]:
    """Every turn as a question: id ``<conversation>::<turn>``, the user's text, its ground
    truth; in conversation order."""
    turns = []
    for conversation in conversations:
        if not 3 <= len(conversation["turns"]) <= 5:
            raise BuildError(f"conversations: {conversation['id']} must have 3 to 5 turns")
        for number, turn in enumerate(conversation["turns"], start=1):
            turns.append(
                {
                    "id": f"{conversation['id']}::{number}",
                    "question": turn["user"],
                    "relevant": turn["relevant"],
                }
            )
    return turns


def build_conversations(
    out: Path, conversations: list[dict], truth: dict, runs: dict, chunks: list[dict]
) -> dict:
    """The MTRAG task file and rewrite queries of the demo's conversations (see
    demo_source/conversations.py)."""
    by_id = {c["id"]: c for c in chunks}
    tasks, rewrites = [], []
    clock = CHAT_EPOCH
    graded = Counter()
    for conversation in conversations:
        conv = conversation["id"]
        messages: list[dict] = []
        for number, turn in enumerate(conversation["turns"], start=1):
            task_id = f"{conv}::{number}"
            answerable = ["ANSWERABLE" if truth[task_id] else "UNANSWERABLE"]
            enrichments = {"answerability": answerable, "Question Type": turn["question_type"]}
            if "multi_turn" in turn:
                enrichments["Multi-Turn"] = [turn["multi_turn"]]
            clock += 60
            messages.append(
                {
                    "speaker": "user",
                    "text": turn["user"],
                    "metadata": {
                        "author_type": "human",
                        "author_id": "customer",
                        "created_at": clock,
                    },
                    "enrichments": enrichments,
                }
            )
            contexts = []
            reviewer = turn.get("graded_by")
            if reviewer:
                graded[reviewer] += 1
                relevant = [c for c, g in truth[task_id].items() if g == 2]
                others = [c for c, _ in runs["hybrid"][task_id] if c not in truth[task_id]]
                judged = [(c, "yes") for c in sorted(relevant, key=chunk_sort_key)]
                judged += [(c, "no") for c in others[:CHAT_NEGATIVES]]
                for chunk_id, value in judged:
                    clock += 7
                    chunk = by_id[chunk_id]
                    contexts.append(
                        {
                            "document_id": chunk_id,
                            "text": chunk["text"],
                            "title": chunk["title"],
                            "feedback": {
                                "relevant": {reviewer: {"value": value, "timestamp": clock}}
                            },
                        }
                    )
            tasks.append(
                {
                    "conversation_id": conv,
                    "task_id": task_id,
                    "task_type": "rag",
                    "turn": number,
                    "collection": "fernleaf-demo",
                    "dataset": "Fernleaf demo",
                    "contexts": contexts,
                    "input": list(messages),
                    "targets": [{"speaker": "agent", "text": turn["assistant"]}],
                    "Question Type": turn["question_type"],
                    "answerability": answerable,
                    # MTRAG writes a missing tag as a bare NaN (not JSON): so does the demo.
                    "Multi-Turn": [turn["multi_turn"]] if "multi_turn" in turn else math.nan,
                    "Standalone Type": math.nan,
                }
            )
            if turn.get("rewrite"):
                rewrites.append(
                    {"_id": f"{conv}<::>{number}", "text": f"|user|: {turn['rewrite']}"}
                )
            clock += 30
            messages.append(
                {
                    "speaker": "agent",
                    "text": turn["assistant"],
                    "metadata": {
                        "author_type": "model",
                        "author_id": "fernleaf-assistant",
                        "created_at": clock,
                    },
                }
            )
    write_jsonl(out / "tasks.jsonl", tasks)
    write_text(out / "rewrites.jsonl", [json.dumps(r, separators=(",", ":")) for r in rewrites])
    return {
        "conversations": len(conversations),
        "turns": len(tasks),
        "graded": graded,
        "rewrites": len(rewrites),
    }


def write_text(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.write("".join(line + "\n" for line in lines))


def write_jsonl(path: Path, rows: list[dict]) -> None:
    write_text(path, [json.dumps(row, ensure_ascii=False) for row in rows])


def build(out: Path) -> dict:
    """Build everything into `out` and return the figures for the summary."""
    documents = load_documents()
    docs_by_id = {d["id"]: d for d in documents}
    chunks_by_doc = {d["id"]: chunk_document(d) for d in documents}
    chunks = [c for d in documents for c in chunks_by_doc[d["id"]]]
    for c in chunks:  # the invariant the app relies on
        assert docs_by_id[c["doc_id"]]["text"][c["start"] : c["end"]] == c["text"], c["id"]
    assert len({c["id"] for c in chunks}) == len(chunks), "duplicate chunk ids"

    questions = load_module("questions").QUESTIONS
    qids = [q["id"] for q in questions]
    assert len(set(qids)) == len(qids), "duplicate question ids"
    assert qids == sorted(qids), "questions must be listed in id order"
    synonyms = load_module("synonyms").SYNONYM_GROUPS
    label_source = load_module("labels")

    conversations = load_module("conversations").CONVERSATIONS
    turns = conversation_turns(conversations)
    truth, spanning = build_ground_truth(questions, docs_by_id, chunks_by_doc)
    turn_truth, turn_spanning = build_ground_truth(turns, docs_by_id, chunks_by_doc)
    # The turns come after the questions, so the weak run's noise on every question is as
    # before; each run reads a turn alone, as a retriever that ignores the conversation would.
    runs = make_runs(questions + turns, chunks, synonyms)
    labels, unanswerable, applied = make_labels(
        questions,
        truth,
        runs,
        label_source.LABEL_PLAN,
        label_source.DISAGREEMENTS,
        docs_by_id,
        chunks_by_doc,
    )

    write_jsonl(out / "documents.jsonl", documents)
    write_jsonl(out / "chunks.jsonl", chunks)
    question_rows = []
    for q in questions:
        row = {"id": q["id"], "question": q["question"]}
        if q.get("answer"):
            row["reference_answer"] = q["answer"]
        row["tags"] = list(q["tags"])
        question_rows.append(row)
    write_jsonl(out / "questions.jsonl", question_rows)

    for name, run in runs.items():
        lines = []
        for qid in qids + [t["id"] for t in turns]:
            results = run[qid]
            for rank, ((chunk_id, _), score) in enumerate(
                zip(results, strictly_descending(results, 6), strict=True), start=1
            ):
                lines.append(f"{qid} Q0 {chunk_id} {rank} {score} {name}")
        write_text(out / "runs" / f"{name}.trec", lines)

    for reviewer in ("maria", "tom"):
        lines = []
        for qid in sorted(labels[reviewer]):
            for chunk_id in sorted(labels[reviewer][qid], key=chunk_sort_key):
                lines.append(f"{qid} 0 {chunk_id} {labels[reviewer][qid][chunk_id]}")
        write_text(out / "labels" / f"{reviewer}.qrels", lines)
    write_text(out / "labels" / "unanswerable.tsv", [f"{q}\t{r}" for q, r in unanswerable])
    assigned = sorted(
        {(q, r) for q, reviewers in label_source.LABEL_PLAN.items() for r in reviewers}
        | {(q, r) for r, todo in label_source.ASSIGNED_TO_DO.items() for q in todo}
    )
    for question, _ in assigned:
        if question not in qids:
            raise BuildError(f"labels.py: ASSIGNED_TO_DO names no question {question!r}")
    write_text(out / "labels" / "assignments.tsv", [f"{q}\t{r}" for q, r in assigned])

    remap = build_remap(out / "remap", documents)

    lines = []
    for qid, grades in [*((q, truth[q]) for q in qids), *turn_truth.items()]:
        for chunk_id in sorted(grades, key=chunk_sort_key):
            lines.append(f"{qid} 0 {chunk_id} {grades[chunk_id]}")
    write_text(out / "ground_truth.qrels", lines)
    chats = build_conversations(out / "conversations", conversations, turn_truth, runs, chunks)
    review = build_review(out / "review", docs_by_id, chunks)

    # The judge's decisions and people's verdicts on them (data/build_judge.py).
    judge = load_module("build_judge", HERE).build_judge(
        out,
        source=load_module("judge"),
        questions=questions,
        truth=truth,
        runs=runs,
        chunks=chunks,
        documents=docs_by_id,
        chunks_by_doc=chunks_by_doc,
        label_plan=label_source.LABEL_PLAN,
        resolve_quote=resolve_quote,
        chunk_sort_key=chunk_sort_key,
        pool_depth=POOL_DEPTH,
        write_text=write_text,
        error=BuildError,
    )

    return {
        "review": review,
        "documents": documents,
        "chunks": chunks,
        "questions": questions,
        "truth": truth,
        "spanning": spanning,
        "runs": runs,
        "labels": labels,
        "plan": label_source.LABEL_PLAN,
        "unanswerable": unanswerable,
        "applied": applied,
        "judge": judge,
        "remap": remap,
        "conversations": chats,
        "turn_truth": turn_truth,
        "turn_spanning": turn_spanning,
    }


def check_and_summarise(figures: dict) -> None:
    """Print the summary and assert the properties the demo promises."""
    documents, chunks, questions = figures["documents"], figures["chunks"], figures["questions"]
    truth = figures["truth"]
    answerable = [q for q in questions if truth[q["id"]]]
    themes = Counter("api" if d["id"].startswith("orders-api") else "handbook" for d in documents)
    sizes = sorted(len(c["text"]) for c in chunks)
    print(
        f"documents: {len(documents)} ({themes['api']} Orders API, {themes['handbook']} handbook)"
    )
    print(
        f"chunks:    {len(chunks)} (characters: min {sizes[0]}, median "
        f"{sizes[len(sizes) // 2]}, max {sizes[-1]})"
    )
    with_answer = sum(1 for q in questions if q.get("answer"))
    print(
        f"questions: {len(questions)} ({len(answerable)} answerable, "
        f"{len(questions) - len(answerable)} not answerable from the documents, "
        f"{with_answer} with a reference answer)"
    )
    grades = Counter(g for t in truth.values() for g in t.values())
    print(f"ground truth: {grades[2]} grade-2 and {grades[1]} grade-1 judgements")
    for qid, doc_id, quote in figures["spanning"]:
        print(f"  note: {qid} quote spans two chunks of {doc_id}: {quote!r}")

    results = {}
    for name in ("weak", "bm25", "hybrid"):
        recall, mrr = evaluate(figures["runs"][name], truth)
        results[name] = (recall, mrr)
        print(f"run {name:<7} recall@10 {recall:.3f}  MRR {mrr:.3f}")

    plan = figures["plan"]
    per_reviewer = Counter(r for reviewers in plan.values() for r in reviewers)
    both = sorted(q for q, r in plan.items() if len(r) == 2)
    print(
        f"labelled questions: {len(plan)} (maria {per_reviewer['maria']}, tom "
        f"{per_reviewer['tom']}, both {len(both)}: {', '.join(both)})"
    )
    for reviewer in ("maria", "tom"):
        count = sum(len(v) for v in figures["labels"][reviewer].values())
        print(f"  {reviewer}: {count} graded chunks")
    print(f"  marked unanswerable: {', '.join(f'{q} ({r})' for q, r in figures['unanswerable'])}")
    for qid, chunk_id, reviewer, before, after in figures["applied"]:
        other = "tom" if reviewer == "maria" else "maria"
        print(f"  disagreement {qid} {chunk_id}: {other} {before}, {reviewer} {after}")

    review = figures["review"]
    print(
        f"generated questions to review: {review['ragas']} Ragas, {review['generated']} from"
        f" another generator; {review['decisions']} already decided"
    )
    judge = figures["judge"]
    print(
        f"judge: {judge['relevance_rows']} relevance grades on {judge['relevance_questions']}"
        f" questions ({judge['relevance_mistakes']} differ from the ground truth);"
        f" {judge['answers']} answers judged for faithfulness, {judge['reviews']} people's verdicts"
    )

    chats = figures["conversations"]
    turn_truth = figures["turn_truth"]
    turn_results = {n: evaluate(figures["runs"][n], turn_truth) for n in ("weak", "bm25", "hybrid")}
    print(
        f"conversations: {chats['conversations']}, {chats['turns']} turns"
        f" ({sum(1 for t in turn_truth.values() if not t)} not answerable,"
        f" {chats['rewrites']} with a rewrite); feedback on"
        f" {', '.join(f'{n} by {r}' for r, n in sorted(chats['graded'].items()))}"
    )
    for name, (recall, mrr) in turn_results.items():
        print(f"  run {name:<7} on the turns alone: recall@10 {recall:.3f}  MRR {mrr:.3f}")
    for qid, doc_id, quote in figures["turn_spanning"]:
        print(f"  note: {qid} quote spans two chunks of {doc_id}: {quote!r}")

    remap = figures["remap"]
    print(
        f"second chunking {remap['chunking']!r}: {len(remap['chunks'])} chunks; revised and"
        f" renamed: {', '.join(d['id'] for d in remap['revised'])}"
    )

    # The promises of the brief, checked on every build.
    assert len(documents) >= 40, "at least 40 documents"
    assert len(chunks) >= 300, "at least 300 chunks"
    assert len(questions) >= 60, "at least 60 questions"
    assert len(questions) - len(answerable) >= 8, "at least 8 unanswerable questions"
    assert results["hybrid"][0] > results["bm25"][0] > results["weak"][0], "recall ordering"
    assert results["hybrid"][1] > results["bm25"][1] > results["weak"][1], "MRR ordering"
    for name, run in figures["runs"].items():
        for qid in [*truth, *turn_truth]:
            assert len(run[qid]) == RUN_DEPTH, (name, qid)


def compare_dirs(built: Path, committed: Path) -> list[str]:
    """Relative paths that differ between two trees (missing, extra or changed files)."""

    def files(root: Path) -> set[str]:
        return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}

    a, b = files(built), files(committed)
    diffs = sorted(a ^ b)
    for rel in sorted(a & b):
        if not filecmp.cmp(built / rel, committed / rel, shallow=False):
            diffs.append(rel)
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="rebuild into a temporary folder and fail if data/demo/ differs",
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            with tempfile.TemporaryDirectory() as tmp:
                figures = build(Path(tmp))
                check_and_summarise(figures)
                diffs = compare_dirs(Path(tmp), OUTPUT)
            if diffs:
                print(
                    "data/demo/ is out of date; run `python data/build_demo.py`. Differs:",
                    file=sys.stderr,
                )
                for rel in diffs:
                    print(f"  {rel}", file=sys.stderr)
                return 1
            print("data/demo/ is up to date")
            return 0
        with tempfile.TemporaryDirectory(dir=HERE) as tmp:
            figures = build(Path(tmp))
            check_and_summarise(figures)
            replace_output(Path(tmp))
        print(f"wrote {OUTPUT.relative_to(HERE.parent)}/")
        return 0
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def replace_output(built: Path) -> None:
    """Swap the freshly built tree in for data/demo/ (only after every check passed)."""
    import shutil

    if OUTPUT.exists():
        shutil.rmtree(OUTPUT)
    shutil.copytree(built, OUTPUT)
    for path in [OUTPUT, *OUTPUT.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


if __name__ == "__main__":
    sys.exit(main())
