"""Benchmark: `labeler import mtrag` of 10,000 conversations of 8 turns, 5 passages each (#22).

Target: under 60 s. The file is an MTRAG task file as IBM writes them, one line per turn
(generated once, seeded, and kept in the folder): each line holds the conversation up to the
turn (turn k: 2k - 1 messages, user turns of 8-20 words, agent replies of 25-60), its tags
(with MTRAG's bare NaN for a first turn's missing Multi-Turn), the agent's answer, and 5
passages of 60-120 words, each judged yes or no by one of 12 annotators. Every passage is a
different one (400,000 chunks, indexed for search, as MTRAG's 4 corpora have 366,000 passages),
so the import writes 80,000 turns, 400,000 chunks and 400,000 labels. Words are drawn from a
Zipf-like vocabulary of 20,000, so the full-text index has real work to do.

Measured: ``python -m labeler import mtrag`` as a whole process (start-up, reading, writing,
committing) into a new database, best of ``--repeat`` fresh imports, with its CPU time (user +
system, which a loaded machine does not inflate as it does the wall time) and peak memory;
and the same file imported again into that database (every row compared, nothing written).

Usage::

    python tests/benchmarks/bench_conversations.py                      # 10,000 conversations
    python tests/benchmarks/bench_conversations.py --conversations 1000 --folder /tmp/mtrag
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET_S = 60.0
TURNS = 8
PASSAGES = 5
ANNOTATORS = [f"a{i}" for i in range(12)]
VOCABULARY = 20_000


def words(seed: int) -> tuple[list[str], list[float]]:
    """A vocabulary of made-up words and Zipf weights (rank r drawn with weight 1 / r)."""
    draw = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = list(
        dict.fromkeys(
            "".join(draw.choice(letters) for _ in range(draw.randint(2, 11)))
            for _ in range(VOCABULARY * 2)
        )
    )[:VOCABULARY]
    return vocabulary, [1.0 / rank for rank in range(1, len(vocabulary) + 1)]


def text(draw: random.Random, vocabulary: list[str], cum: list[float], low: int, high: int) -> str:
    chosen = draw.choices(vocabulary, cum_weights=cum, k=draw.randint(low, high))
    return " ".join(chosen).capitalize() + "."


def write_file(path: Path, conversations: int, seed: int = 22) -> None:
    vocabulary, weights = words(seed)
    cum, total = [], 0.0
    for w in weights:
        total += w
        cum.append(total)
    draw = random.Random(seed)
    passage = 0
    with path.open("w", encoding="utf-8") as out:
        for c in range(conversations):
            conversation = f"{c:032x}"
            messages: list[dict] = []
            for turn in range(1, TURNS + 1):
                messages.append(
                    {
                        "speaker": "user",
                        "text": text(draw, vocabulary, cum, 8, 20),
                        "metadata": {"author_type": "human", "author_id": "u1"},
                        "enrichments": {"Question Type": ["Factoid"]},
                    }
                )
                contexts = []
                for _ in range(PASSAGES):
                    passage += 1
                    annotator = draw.choice(ANNOTATORS)
                    value = "yes" if draw.random() < 0.4 else "no"
                    contexts.append(
                        {
                            "document_id": f"p{passage}-0-{draw.randint(200, 900)}",
                            "text": text(draw, vocabulary, cum, 60, 120),
                            "title": text(draw, vocabulary, cum, 2, 5),
                            "url": "",
                            "score": round(draw.uniform(5, 30), 4),
                            "feedback": {"relevant": {annotator: {"value": value}}},
                        }
                    )
                answer = text(draw, vocabulary, cum, 25, 60)
                record = {
                    "conversation_id": conversation,
                    "task_id": f"{conversation}::{turn}",
                    "task_type": "rag",
                    "turn": turn,
                    "collection": "bench",
                    "contexts": contexts,
                    "input": messages,
                    "targets": [{"speaker": "agent", "text": answer}],
                    "Question Type": ["Factoid"],
                    "answerability": ["ANSWERABLE"],
                    "Multi-Turn": ["Follow-up"] if turn > 1 else math.nan,
                    "Standalone Type": math.nan,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                messages.append({"speaker": "agent", "text": answer})


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_import(path: Path, db: Path) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system: what the machine's load does not inflate),
    peak memory (MB) and the last line of output of the whole CLI process."""
    command = [sys.executable, "-m", "labeler", "import", "mtrag", str(path), "--db", str(db)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu = _children_cpu() - cpu
    return seconds, cpu, max(peak, before) / 1024, done.stdout.strip().splitlines()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--folder", type=Path, help="keep the generated file here (made once)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh imports, best reported")
    args = parser.parse_args()
    print(
        f"bench_conversations: {args.conversations:,} conversations x {TURNS} turns x"
        f" {PASSAGES} passages; python {sys.version.split()[0]}, {os.cpu_count()} cpus,"
        f" load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.folder or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"mtrag-{args.conversations}.jsonl"
        if not path.is_file():
            started = time.perf_counter()
            write_file(path, args.conversations)
            print(f"wrote {path} in {time.perf_counter() - started:.1f} s")
        size = path.stat().st_size / 1e6
        print(f"file: {size:,.0f} MB, {args.conversations * TURNS:,} lines")
        best = None
        for attempt in range(args.repeat):
            db = Path(scratch) / f"bench-{attempt}.db"
            seconds, cpu, peak, line = run_import(path, db)
            print(
                f"  import mtrag: {seconds:.1f} s, CPU {cpu:.1f} s, peak {peak:,.0f} MB"
                f" ({line.strip()})"
            )
            best = seconds if best is None else min(best, seconds)
        again, cpu, _, line = run_import(path, db)
        print(f"  the same file again: {again:.1f} s, CPU {cpu:.1f} s ({line.strip()})")
        print(f"  database: {db.stat().st_size / 1e6:,.0f} MB")
    verdict = "PASS" if best < TARGET_S else "MISS"
    print(f"\nimport of the file: {best:.1f} s (target < {TARGET_S:.0f} s) {verdict}")
    print(f"load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
