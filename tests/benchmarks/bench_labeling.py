"""Benchmark: import a large corpus, open and grade questions, rerun the grading page.

Targets (from the issue), at 1,000,000 chunks, 10,000 questions and three runs of 100 results
per question:

- importing the chunks, full-text index included: under 90 s (issue #13's target; round one
  asked 60 s and measured 79 s);
- loading one question with its pooled candidates again, and saving one grade: p95 under 50 ms
  each, measured in the core functions the page calls (``labeling.open_question``,
  ``labeling.grade``). The first opening of a question whose pool was not computed ahead runs
  its search on the spot, behind a spinner: issue #13 lets such a jump take longer, so it is
  printed without a target;
- the grading page's whole rerun after a grade (AppTest, same data): p95 under 300 ms;
- (issue #13) the pooling search against exact BM25 on a sample of questions: recall and nDCG@10
  of the chunk each question was written from, top-10 overlap, time per question; and opening
  each question while following the queue, with the background worker computing the pools of
  the next ones ahead while the "reviewer" grades: p95 under 50 ms.

Usage::

    python tests/benchmarks/bench_labeling.py                      # the full size (~10 min)
    python tests/benchmarks/bench_labeling.py --chunks 20000 --questions 500   # a quick look

The data is synthetic and made from ``--seed``: chunks of 60-120 words drawn from a Zipf-like
vocabulary of 50,000 words whose head is English function words (so the stop-word list does what
it does on real text); documents of 1-20 chunks with titles and character offsets; questions of
6-14 words, most taken from one "source" chunk (so full-text search has something to find) with
some noise; and three TREC runs that rank each question's source chunk, its document neighbours
and random chunks with different amounts of noise, so the runs overlap as real retrievers do.
Generated files are kept in the work folder and reused when the parameters match (generation is
timed and printed apart); the databases are built fresh each time.

Nothing here asserts on time: it prints the figures and a PASS/MISS table against the targets.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run from a checkout: measure this tree's labeler, not another
    sys.path.insert(0, str(REPO))

from labeler.grading import labeling, search_pools  # noqa: E402
from labeler.grading.worker import PREFETCH_AHEAD, PoolWorker  # noqa: E402
from labeler.importers import import_chunks, import_questions, import_run  # noqa: E402
from labeler.store import Store  # noqa: E402

APP = REPO / "labeler" / "app" / "streamlit_app.py"
REVIEWER = "bench"
VOCABULARY = 50_000
# The head of the vocabulary: English function words, most frequent first. Some are on the
# store's stop-word list and some are not, as on real text.
HEAD = (
    "the of and to a in is that for it as with was on be by this are or from at an which not"
    " but have has can all more one their also its if will other used when there may these"
    " such into each only two some most than over new how should where what any use must first"
    " then about after between both same so through per while without because before does"
).split()
TAGS = ("billing", "api", "security", "onboarding", "returns", "shipping", "hr", "legal")
OPENERS = (
    "how do i",
    "what is the",
    "why does the",
    "when should",
    "which",
    "how can the",
    "what happens to",
    "where is the",
    "can i",
    "is there a",
)

TARGETS = {
    "import": 90.0,  # seconds (issue #13)
    "core_p95_ms": 50.0,
    "rerun_p95_ms": 300.0,
    "follow_p95_ms": 50.0,
}


# data ---------------------------------------------------------------------------------------


def make_vocabulary(rng: random.Random, size: int) -> list[str]:
    """Function words first, then pronounceable made-up words, each once."""
    onsets = [
        "",
        *"bcdfghjklmnprstvwz",
        "br",
        "ch",
        "cl",
        "dr",
        "fl",
        "gr",
        "pl",
        "pr",
        "sh",
        "st",
        "th",
        "tr",
    ]
    vowels = [*"aeiouaeioy", "ai", "ea", "ou"]
    codas = ["", "", "", *"lmnrstk", "nd", "ng", "st"]
    words = list(dict.fromkeys(HEAD))
    seen = set(words)
    while len(words) < size:
        syllables = rng.choices((1, 2, 3, 4), weights=(3, 6, 3, 1))[0]
        word = "".join(
            rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(syllables)
        )
        if len(word) > 2 and word not in seen:
            seen.add(word)
            words.append(word)
    return words


def zipf_table(
    vocab: list[str], *, slots: int = 1 << 22, exponent: float = 1.0, shift: float = 2.7
) -> list[str]:
    """Zipf-Mandelbrot (weight of rank r is 1 / (r + shift) ** exponent) as a lookup table.

    Each word fills slots in proportion to its weight (at least one), so drawing a word is one
    uniform pick from the table: several times faster than ``choices(cum_weights=...)``, which
    matters for the ~90 million words of the full size.
    """
    weights = [1.0 / (r + shift) ** exponent for r in range(1, len(vocab) + 1)]
    scale = slots / sum(weights)
    table: list[str] = []
    for word, weight in zip(vocab, weights, strict=True):
        table.extend(itertools.repeat(word, max(1, round(weight * scale))))
    return table


def chunk_id(doc: int, part: int) -> str:
    return f"doc{doc:06d}_c{part:02d}"


def question_text(
    rng: random.Random, words: list[str], rank: dict[str, int], table: list[str]
) -> str:
    """6-14 words: an opener, content words of the source chunk (rarer ones likelier), noise."""
    opener = rng.choice(OPENERS).split()
    content = sorted({w for w in words if rank[w] >= len(HEAD)}, key=rank.__getitem__)
    want = rng.randint(6, 14) - len(opener)
    noise = min(rng.randint(0, 2), max(want - 3, 0))
    rare, common = content[len(content) // 2 :], content[: len(content) // 2]
    picked = rng.sample(rare, min(len(rare), (want - noise + 1) // 2))
    picked += rng.sample(common, min(len(common), want - noise - len(picked)))
    picked += rng.choices(table, k=max(want - len(picked), 0))
    rng.shuffle(picked)
    return " ".join(opener + picked) + "?"


def generate(
    workdir: Path, *, chunks: int, questions: int, runs: int, depth: int, seed: int
) -> dict[str, Path]:
    """Write chunks.jsonl, questions.jsonl and run<i>.trec; reuse them if already made alike."""
    params = {
        "chunks": chunks,
        "questions": questions,
        "runs": runs,
        "depth": depth,
        "seed": seed,
        "vocabulary": VOCABULARY,
        "format": 2,
    }
    files = {
        "chunks": workdir / "chunks.jsonl",
        "questions": workdir / "questions.jsonl",
        "truth": workdir / "truth.tsv",
    }
    files.update({f"run{i}": workdir / f"run{i}.trec" for i in range(1, runs + 1)})
    manifest = workdir / "data.json"
    if (
        manifest.exists()
        and json.loads(manifest.read_text()) == params
        and all(p.exists() for p in files.values())
    ):
        print(f"data: reusing {workdir} (same parameters)")
        return files
    workdir.mkdir(parents=True, exist_ok=True)
    manifest.unlink(missing_ok=True)
    started = time.perf_counter()
    rng = random.Random(seed)
    vocab = make_vocabulary(rng, VOCABULARY)
    rank = {w: i for i, w in enumerate(vocab)}
    table = zipf_table(vocab)
    sources = rng.sample(range(chunks), min(questions, chunks))
    source_of = {index: number for number, index in enumerate(sources)}
    texts: list[str] = [""] * len(sources)
    truth: list[str] = [""] * len(sources)  # the chunk each question was written from
    doc_first: list[int] = []  # first chunk index of each document
    doc_size: list[int] = []
    with files["chunks"].open("w", encoding="utf-8") as out:
        index = 0
        while index < chunks:
            doc = len(doc_first)
            size = min(rng.randint(1, 20), chunks - index)
            doc_first.append(index)
            doc_size.append(size)
            title = " ".join(rng.choices(vocab[len(HEAD) : 2000], k=rng.randint(2, 6))).title()
            offset = 0
            for part in range(size):
                words = rng.choices(table, k=rng.randint(60, 120))
                sentences = [words[i : i + 15] for i in range(0, len(words), 15)]
                text = " ".join(" ".join(s).capitalize() + "." for s in sentences)
                record = {
                    "id": chunk_id(doc, part),
                    "doc_id": f"doc{doc:06d}",
                    "title": title,
                    "text": text,
                    "start": offset,
                    "end": offset + len(text),
                }
                out.write(json.dumps(record) + "\n")
                offset += len(text) + 2
                if index in source_of:
                    texts[source_of[index]] = question_text(rng, words, rank, table)
                    truth[source_of[index]] = record["id"]
                index += 1
    qids = [f"q{n:05d}" for n in range(len(sources))]
    files["truth"].write_text("".join(f"{q}\t{c}\n" for q, c in zip(qids, truth, strict=True)))
    with files["questions"].open("w", encoding="utf-8") as out:
        for qid, text in zip(qids, texts, strict=True):
            record = {"id": qid, "question": text, "tags": rng.sample(TAGS, rng.randint(0, 2))}
            if rng.random() < 0.3:
                record["reference_answer"] = " ".join(rng.choices(table, k=20))
            out.write(json.dumps(record) + "\n")
    write_runs(
        files,
        rng,
        qids,
        sources,
        chunks=chunks,
        runs=runs,
        depth=depth,
        doc_first=doc_first,
        doc_size=doc_size,
    )
    manifest.write_text(json.dumps(params))
    sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.0f} MB" for p in files.values())
    print(f"data: generated in {time.perf_counter() - started:.1f} s (not counted): {sizes}")
    return files


def write_runs(
    files: dict[str, Path],
    rng: random.Random,
    qids: list[str],
    sources: list[int],
    *,
    chunks: int,
    runs: int,
    depth: int,
    doc_first: list[int],
    doc_size: list[int],
) -> None:
    """TREC runs that agree in part, as real retrievers do.

    Per question, a shared base order: the source chunk, up to five chunks of its document, then
    random chunks. Each run perturbs that order by its own amount of noise (run1 least) and adds
    a fifth of chunks only it finds, then keeps its top ``depth``.
    """
    doc_of = [d for d, size in enumerate(doc_size) for _ in range(size)]
    ids = [chunk_id(d, i - doc_first[d]) for i, d in enumerate(doc_of)]
    handles = [files[f"run{i}"].open("w", encoding="utf-8") for i in range(1, runs + 1)]
    try:
        for qid, source in zip(qids, sources, strict=True):
            doc = doc_of[source]
            siblings = [doc_first[doc] + k for k in range(doc_size[doc])]
            rng.shuffle(siblings)
            base = [source, *siblings[:5], *rng.sample(range(chunks), min(depth * 2, chunks))]
            base = list(dict.fromkeys(base))
            for run, handle in enumerate(handles, start=1):
                spread = 12.0 * run
                jitter = [spread * (rng.random() - rng.random()) for _ in base]
                keyed = [(p + j, c) for p, (j, c) in enumerate(zip(jitter, base, strict=True))]
                extra = rng.sample(range(chunks), min(depth // 5, chunks))
                keyed += [(rng.uniform(0, depth * 2), c) for c in extra]
                ranked = list(dict.fromkeys(c for _, c in sorted(keyed)))[:depth]
                score = 30.0 + rng.random()
                lines = []
                for position, c in enumerate(ranked, start=1):
                    lines.append(f"{qid} Q0 {ids[c]} {position} {score:.4f} run{run}\n")
                    score -= rng.uniform(0.01, 0.5)
                handle.writelines(lines)
    finally:
        for handle in handles:
            handle.close()


# measuring ----------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: the smallest value with at least q% of values at or below."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def describe(name: str, seconds: Sequence[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    stats = {"n": len(ms), "p50": statistics.median(ms), "p95": percentile(ms, 95), "max": max(ms)}
    print(
        f"  {name:<36} n={stats['n']:<4} p50 {stats['p50']:8.1f} ms   "
        f"p95 {stats['p95']:8.1f} ms   max {stats['max']:8.1f} ms"
    )
    return stats


def timed(func: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = func()
    return time.perf_counter() - started, result


def fresh_db(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def size_mb(path: Path) -> float:
    """The database file itself (the WAL after a big commit is scratch space, reused)."""
    return Path(path).stat().st_size / 1e6


def cpu_seconds(*, children: bool = False) -> float:
    """CPU time of this process (or of its finished children): the machine may be shared, and
    CPU time says what the work cost when the wall clock also counts someone else's load."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# the stages ---------------------------------------------------------------------------------


def bench_cli_import(files: dict[str, Path], workdir: Path) -> float:
    db = fresh_db(workdir / "cli.db")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH")))),
    }
    command = [
        sys.executable,
        "-m",
        "labeler",
        "import",
        "chunks",
        str(files["chunks"]),
        "--db",
        str(db),
    ]
    cpu = cpu_seconds(children=True)
    seconds, done = timed(
        lambda: subprocess.run(
            command, cwd=REPO, env=env, capture_output=True, text=True, check=False
        )
    )
    cpu = cpu_seconds(children=True) - cpu
    if done.returncode != 0:
        print(done.stdout, done.stderr, sep="\n")
        msg = f"the CLI import failed with exit code {done.returncode}"
        raise SystemExit(msg)
    print(
        f"  CLI  `labeler import chunks`         {seconds:8.1f} s   (cpu {cpu:.1f} s)"
        f"  {done.stdout.strip()}  [db {size_mb(db):.0f} MB]"
    )
    fresh_db(db)  # two databases of this size are not needed; the in-process one is kept
    return seconds


def bench_imports(store: Store, files: dict[str, Path], runs: int) -> dict[str, float]:
    figures = {}
    cpu = cpu_seconds()
    seconds, report = timed(lambda: import_chunks(store, files["chunks"]))
    cpu = cpu_seconds() - cpu
    figures["chunks"] = seconds
    print(
        f"  in-process import_chunks             {seconds:8.1f} s   (cpu {cpu:.1f} s)"
        f"  {report.summary()}  [db {size_mb(store.path):.0f} MB]"
    )
    seconds, report = timed(lambda: import_questions(store, files["questions"]))
    figures["questions"] = seconds
    print(f"  in-process import_questions          {seconds:8.1f} s   {report.summary()}")
    for i in range(1, runs + 1):
        seconds, report = timed(lambda i=i: import_run(store, files[f"run{i}"]))
        figures[f"run{i}"] = seconds
        print(f"  in-process import_run (run{i})         {seconds:8.1f} s   {report.summary()}")
    return figures


def bench_core(
    store: Store, qids: Sequence[str], truth: dict[str, str]
) -> dict[str, dict[str, float]]:
    first, again, graded, sizes = [], [], [], []
    found = {"search": 0, "pool": 0}
    for qid in qids:
        seconds, view = timed(lambda qid=qid: labeling.open_question(store, qid, REVIEWER))
        first.append(seconds)
        sizes.append(len(view.candidates))
        for candidate in view.candidates:
            if candidate.chunk.id == truth.get(qid):
                found["pool"] += 1
                found["search"] += any(s.kind == "search" for s in candidate.entry.sources)
        seconds, view = timed(lambda qid=qid: labeling.open_question(store, qid, REVIEWER))
        again.append(seconds)
        target = view.candidates[len(view.candidates) // 2].chunk.id
        seconds, _ = timed(
            lambda qid=qid, target=target: labeling.grade(store, qid, target, REVIEWER, 2)
        )
        graded.append(seconds)
    print(
        f"  candidates per question: mean {statistics.mean(sizes):.1f}, "
        f"min {min(sizes)}, max {max(sizes)}"
    )
    print(
        f"  recall check: the chunk each question was written from is in its full-text pool"
        f" for {found['search']}/{len(qids)} questions, in its whole pool for"
        f" {found['pool']}/{len(qids)}"
    )
    return {
        "open_first": describe("open_question, first (FTS pooling)", first),
        "open_again": describe("open_question, again", again),
        "grade": describe("grade", graded),
    }


def bench_quality(store: Store, qids: Sequence[str], truth: dict[str, str]) -> dict[str, float]:
    """The pooling search against exact BM25 (FTS5's plain ranking over every word).

    The chunk each question was written from is its one relevant chunk: recall@10 is whether
    it is in the top 10, nDCG@10 is 1 / log2(1 + its rank) there.
    """
    chunking = store.corpus.current_chunking()
    sums = {"rp": 0.0, "re": 0.0, "np": 0.0, "ne": 0.0, "overlap": 0.0, "same": 0.0}
    times: dict[str, list[float]] = {"pooled": [], "exact": []}
    cpu = {"pooled": 0.0, "exact": 0.0}
    for qid in qids:
        text = store.questions.get(qid).text
        found = {}
        for name, search in (
            ("exact", store.search.exact_search),
            ("pooled", store.search.pool_search),
        ):
            before = cpu_seconds()
            seconds, found[name] = timed(lambda s=search, t=text: s(chunking, t, limit=10))
            cpu[name] += cpu_seconds() - before
            times[name].append(seconds)
        for name, key in (("pooled", "p"), ("exact", "e")):
            ranked = [h.chunk_id for h in found[name]]
            if truth.get(qid) in ranked:
                sums["r" + key] += 1
                sums["n" + key] += 1 / math.log2(ranked.index(truth[qid]) + 2)
        exact = {h.chunk_id for h in found["exact"]}
        sums["overlap"] += len(exact & {h.chunk_id for h in found["pooled"]}) / max(len(exact), 1)
        sums["same"] += found["pooled"] == found["exact"]
    n = max(len(qids), 1)
    f = {k: v / n for k, v in sums.items()}
    print(
        "  | chunks | recall@10 pooled / exact | nDCG@10 pooled / exact | top-10 overlap"
        " | identical | ms per question pooled / exact (p95) | CPU ms pooled / exact |"
    )
    print(
        f"  | {store.corpus.count_chunks():,} | {f['rp']:.3f} / {f['re']:.3f}"
        f" | {f['np']:.3f} / {f['ne']:.3f} | {f['overlap']:.2f} | {f['same']:.2f}"
        f" | {statistics.mean(times['pooled']) * 1000:.0f} /"
        f" {statistics.mean(times['exact']) * 1000:.0f}"
        f" ({percentile(times['pooled'], 95) * 1000:.0f} /"
        f" {percentile(times['exact'], 95) * 1000:.0f})"
        f" | {cpu['pooled'] / n * 1000:.0f} / {cpu['exact'] / n * 1000:.0f} |"
    )
    return f


def bench_following(db: Path, count: int, think: float) -> dict[str, float] | None:
    """A reviewer follows the queue: each question opens, they grade for ``think`` seconds,
    then press Next. The page asks the background worker for the next questions' pools at
    every open, as the grading page does; the first open is a jump (nothing computed ahead)."""
    reviewer = "follower"
    with Store(db) as store:
        chunking = store.corpus.current_chunking()
        stored = store.pools.fts_pool_hashes(chunking)
        queue = [
            r["id"] for r in store.questions.queue(chunking, reviewer) if r["id"] not in stored
        ]
        queue = queue[: count + 1]
        if len(queue) < 2:
            print("  skipped: every question's pool is computed already (try more --questions)")
            return None
        worker = PoolWorker(db)
        opens, ready = [], 0
        jump = 0.0
        try:
            for at, qid in enumerate(queue):
                worker.request(chunking, queue[at + 1 : at + 1 + PREFETCH_AHEAD])
                was_ready = search_pools.pool_ready(store, store.questions.get(qid), chunking)
                seconds, view = timed(lambda qid=qid: labeling.open_question(store, qid, reviewer))
                if at == 0:
                    jump = seconds
                else:
                    opens.append(seconds)
                    ready += was_ready
                if view.candidates:
                    labeling.grade(store, qid, view.candidates[0].chunk.id, reviewer, 1)
                time.sleep(think)
        finally:
            worker.stop()
        searches = [
            r["search_ms"]
            for r in store.query(
                "SELECT search_ms FROM pool_fts_state WHERE computed_by = ?", (worker.name,)
            )
        ]
    print(
        f"  first open (a jump: its search runs on the spot, behind a spinner):"
        f" {jump * 1000:.0f} ms"
    )
    print(
        f"  {ready}/{len(opens)} questions were ready when opened; the worker computed"
        f" {worker.written} pools, search p50 {statistics.median(searches or [0]):.0f} ms,"
        f" p95 {percentile(searches or [0], 95):.0f} ms"
    )
    return describe("open_question, following the queue", opens)


def bench_app(db: Path, qid: str, reruns: int) -> dict[str, dict[str, float]]:
    from streamlit.testing.v1 import AppTest

    # AppTest runs the page outside a server, which Streamlit notes once with a warning.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(
        logging.ERROR
    )
    os.environ["LABELER_DB"] = str(db)
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["reviewer"] = REVIEWER
    at.query_params["question"] = qid
    seconds, _ = timed(at.run)
    check_app(at)
    print(
        f"  first run (question {qid}, includes its FTS pooling): {seconds * 1000:.0f} ms, "
        f"{len(at.get('segmented_control'))} candidate cards"
    )
    times = []
    for _ in range(reruns):
        button = at.button(key="label_key_2")
        seconds, _ = timed(lambda button=button: button.click().run())
        check_app(at)
        times.append(seconds)
    print(
        f"  (of each rerun, ~{compile_ms():.0f} ms is AppTest compiling the app's two scripts "
        "afresh: it makes a new ScriptCache per run, a server compiles them once)"
    )
    with Store(db) as store:
        labels = store.labels.question_labels(qid, store.corpus.current_chunking())
    print(
        f"  after {reruns} clicks: {sum(r['reviewer'] == REVIEWER for r in labels)} chunks of "
        f"{qid} graded by {REVIEWER!r}"
    )
    return {
        "first": {"p50": seconds * 1000},
        "rerun": describe("rerun after clicking label_key_2", times),
    }


def compile_ms() -> float:
    """What AppTest spends per run recompiling (with Streamlit's magic) the entry and the page."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    scripts = (APP, APP.parent / "app_pages" / "label.py")
    times = []
    for _ in range(5):
        cache = ScriptCache()
        seconds, _ = timed(lambda cache=cache: [cache.get_bytecode(str(s)) for s in scripts])
        times.append(seconds * 1000)
    return statistics.median(times)


def check_app(at) -> None:
    if at.exception:
        messages = "; ".join(str(e.value) for e in at.exception)
        msg = f"the grading page raised: {messages}"
        raise SystemExit(msg)
    errors = [e.value for e in at.error]
    if errors:
        print(f"  (the page shows errors: {errors})")


# summary ------------------------------------------------------------------------------------


def verdict(measured: float | None, target: float | None) -> str:
    if measured is None:
        return "n/a"
    if target is None:
        return "(no target)"
    return "PASS" if measured < target else "MISS"


def summary(rows: list[tuple[str, str, float | None, float | None]]) -> None:
    print("\nSummary (targets from the issue; no timing asserts)")
    print(f"  {'measure':<52} {'target':>10} {'measured':>11}  result")
    for name, unit, measured, target in rows:
        shown = "skipped" if measured is None else f"{measured:.{1 if unit else 3}f} {unit}"
        wanted = "" if target is None else f"< {target:g} {unit}"
        print(f"  {name:<52} {wanted:>10} {shown:>11}  {verdict(measured, target)}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--depth", type=int, default=100, help="results per question per run")
    parser.add_argument("--seed", type=int, default=20251130)
    parser.add_argument("--samples", type=int, default=200, help="questions opened and graded")
    parser.add_argument("--reruns", type=int, default=50, help="page reruns after a grade")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where data and databases go (default: a folder under the temp dir)",
    )
    parser.add_argument("--follow", type=int, default=60, help="questions followed in order")
    parser.add_argument(
        "--think", type=float, default=2.0, help="seconds a reviewer grades each question"
    )
    parser.add_argument(
        "--reuse-db", action="store_true", help="measure on the database of an earlier run"
    )
    parser.add_argument("--skip-cli", action="store_true", help="skip the CLI subprocess import")
    parser.add_argument("--skip-app", action="store_true", help="skip the AppTest reruns")
    parser.add_argument(
        "--imports-only", action="store_true", help="time the imports, then stop (#23)"
    )
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.gettempdir()) / (
        f"bench_labeling_{args.chunks}_{args.questions}_{args.runs}_{args.depth}_{args.seed}"
    )
    workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"bench_labeling: {args.chunks:,} chunks, {args.questions:,} questions, {args.runs} runs"
        f" x {args.depth} results; seed {args.seed}; workdir {workdir}"
    )
    print(
        f"python {sys.version.split()[0]}, sqlite {__import__('sqlite3').sqlite_version}, "
        f"{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.2f}; labeler from {REPO}"
    )
    total = time.perf_counter()
    files = generate(
        workdir,
        chunks=args.chunks,
        questions=args.questions,
        runs=args.runs,
        depth=args.depth,
        seed=args.seed,
    )

    print("\nImports")
    cli_seconds = None if args.skip_cli else bench_cli_import(files, workdir)
    db = workdir / "bench.db"
    reuse = args.reuse_db and db.exists()
    if not reuse:
        fresh_db(db)
    with Store(db) as store:
        if reuse:
            # A rerun of the measures on the database of an earlier run: its imports are not
            # timed again, and its search pools are forgotten so that they are computed again.
            print(f"  reusing {db} ({store.corpus.count_chunks():,} chunks): imports not timed")
            store.conn.execute("DELETE FROM pool_fts_state")
            imports = {"chunks": None}
        else:
            imports = bench_imports(store, files, args.runs)
        if args.imports_only:
            print(f"load average now {os.getloadavg()[0]:.2f}")
            return
        qids = store.questions.ids()
        rng = random.Random(args.seed + 1)
        sample = rng.sample(qids, min(args.samples, len(qids) - 1))
        app_qid = rng.choice(sorted(set(qids) - set(sample)))
        print(f"\nCore functions, {len(sample)} random questions, reviewer {REVIEWER!r}")
        truth = dict(line.split("\t") for line in files["truth"].read_text().splitlines() if line)
        core = bench_core(store, sample, truth)
        print(
            f"\nPooling search vs exact BM25, {len(sample)} random questions (load"
            f" average {os.getloadavg()[0]:.2f})"
        )
        quality = bench_quality(store, sample, truth)

    print(
        f"\nFollowing the queue with background pooling, {args.follow} questions,"
        f" {args.think:g} s of grading each (load average {os.getloadavg()[0]:.2f})"
    )
    following = bench_following(db, args.follow, args.think)

    app = None
    if not args.skip_app:
        print(f"\nGrading page (AppTest), {args.reruns} reruns")
        app = bench_app(db, app_qid, args.reruns)

    ms = "ms"
    # Issue #13: within 0.01 of exact at ~200k chunks, within 0.02 at 1M.
    tolerance = 0.02 if args.chunks > 500_000 else 0.01
    summary(
        [
            ("import chunks, FTS included (CLI subprocess)", "s", cli_seconds, TARGETS["import"]),
            ("import chunks, FTS included (in-process)", "s", imports["chunks"], TARGETS["import"]),
            (
                "open_question p95, a jump (search on the spot)",
                ms,
                core["open_first"]["p95"],
                None,
            ),
            ("open_question p95, again", ms, core["open_again"]["p95"], TARGETS["core_p95_ms"]),
            ("grade p95", ms, core["grade"]["p95"], TARGETS["core_p95_ms"]),
            (
                "recall@10 of the source chunk, exact minus pooled",
                "",
                quality["re"] - quality["rp"],
                tolerance,
            ),
            ("nDCG@10, exact minus pooled", "", quality["ne"] - quality["np"], tolerance),
            (
                "open_question p95, following the queue (pools ahead)",
                ms,
                following["p95"] if following else None,
                TARGETS["follow_p95_ms"],
            ),
            (
                "page rerun after a grade p95 (AppTest)",
                ms,
                app and app["rerun"]["p95"],
                TARGETS["rerun_p95_ms"],
            ),
        ]
    )
    print(
        f"\n(whole benchmark: {time.perf_counter() - total:.0f} s; load average now "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus: above ~1 someone else shares them)"
    )


if __name__ == "__main__":
    main()
