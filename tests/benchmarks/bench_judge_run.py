"""Benchmark: ``labeler judge run`` on 10,000 pairs against a local OpenAI-compatible server
that answers each call after 50 ms (tests/judge_server.py, in a process of its own so that its
CPU is not counted as the tool's), at concurrency 16.

Targets (issue #20): the run finishes in under 60 s (the ideal is 10,000 x 50 ms / 16 =
31 s); the tool's own CPU per call under 5 ms (this process's CPU time over the run, every
thread: the client, the parsing, the writes; the server is elsewhere); a second run makes 0
calls in under 5 s (timed as a user runs it: ``labeler judge run`` in a fresh process).

The project: ``--questions`` questions (1,000) with ``--per-question`` chunks each (10) in one
run's results, questions worded so the full-text search adds nothing: exactly 10,000 pairs.

Prints the figures with the load average beside them; asserts nothing.

Usage::

    python tests/benchmarks/bench_judge_run.py
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from labeler.importers import import_chunks, import_questions, import_run  # noqa: E402
from labeler.judge.client import Endpoint  # noqa: E402
from labeler.judge.prompts import builtin_prompt  # noqa: E402
from labeler.judge.run import RunOptions, Selection, plan_run, run_judge  # noqa: E402
from labeler.store import Store  # noqa: E402

MODEL = "bench-model"


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def build(folder: Path, questions: int, per_question: int) -> Path:
    rng = random.Random(7)
    words = [f"w{i}" for i in range(5000)]
    chunks, runs, qs = [], [], []
    for q in range(questions):
        qs.append({"id": f"q{q:05d}", "question": f"Zq{q}x how does xv{q}y work?"})
        for c in range(per_question):
            grade = ("GRADE2 " if c == 0 else "GRADE1 " if c == 1 else "") + " ".join(
                rng.choices(words, k=60)
            )
            chunks.append({"id": f"q{q:05d}-c{c}", "doc_id": f"d{q}", "text": grade})
            runs.append(f"q{q:05d} Q0 q{q:05d}-c{c} {c + 1} {100 - c} bench")
    db = folder / "bench.db"
    (folder / "chunks.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chunks))
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in qs))
    (folder / "bench.trec").write_text("\n".join(runs) + "\n")
    with Store(db) as store:
        import_chunks(store, folder / "chunks.jsonl")
        import_questions(store, folder / "questions.jsonl")
        import_run(store, folder / "bench.trec", pool_depth=per_question)
    return db


def start_server(delay: float) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "tests" / "judge_server.py"),
            "--delay",
            str(delay),
            "--model",
            MODEL,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    port = int(server.stdout.readline())
    return server, port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--per-question", type=int, default=10)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    pairs = args.questions * args.per_question
    print(f"judge-run benchmark; {os.cpu_count()} cores; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        db = build(Path(tmp), args.questions, args.per_question)
        print(f"   project of {pairs:,} pairs built in {time.perf_counter() - start:.1f} s")
        server, port = start_server(args.delay)
        try:
            url = f"http://127.0.0.1:{port}/v1"
            options = RunOptions(
                metric="relevance",
                endpoint=Endpoint(url, MODEL, None, 30.0),
                prompt=builtin_prompt("relevance"),
                selection=Selection(everything=True),
                concurrency=args.concurrency,
            )
            ideal = pairs * args.delay / args.concurrency
            with Store(db) as store:
                wall, cpu = time.perf_counter(), time.process_time()
                plan = plan_run(store, options)
                plan_wall = time.perf_counter() - wall
                plan_cpu = time.process_time() - cpu
                print(
                    f"   plan: {plan.pairs:,} pairs, {len(plan.calls):,} calls to make;"
                    f" {plan_wall:.1f} s wall, {plan_cpu:.1f} s CPU"
                )
                wall, cpu = time.perf_counter(), time.process_time()
                summary = run_judge(store, options, plan=plan)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(
                f"first run: {summary.calls:,} calls, {summary.failed} failed,"
                f" {summary.ratings_written:,} ratings written in {wall:.1f} s wall"
                f" (target < 60 s, ideal {ideal:.1f} s); {summary.calls / wall:.0f} calls/s;"
                f" {load()}"
            )
            print(
                f"   the tool's CPU: {cpu:.1f} s over the run, {1000 * cpu / summary.calls:.2f} ms"
                f" per call (target < 5 ms); with the plan"
                f" {1000 * (cpu + plan_cpu) / summary.calls:.2f} ms per call"
            )
            command = [sys.executable, "-m", "labeler", "--db", str(db), "judge", "run"]
            command += ["--metric", "relevance", "--base-url", url, "--model", MODEL, "--all"]
            command += ["--concurrency", str(args.concurrency), "--format", "json"]
            wall = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            result = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter() - wall
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            again = json.loads(result.stdout)
            print(
                f"second run (labeler judge run, a fresh process): {again['calls']} calls,"
                f" {again['cached']:,} cached, in {wall:.1f} s wall, {cpu:.1f} s CPU"
                f" (target < 5 s); {load()}"
            )
        finally:
            server.send_signal(signal.SIGINT)
            _, err = server.communicate(timeout=10)
            print(f"   the server counted: {err.strip()}")


if __name__ == "__main__":
    main()
