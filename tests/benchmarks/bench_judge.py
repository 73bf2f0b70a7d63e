"""Benchmark of the judge audit at the issue's size: 200,000 ratings (4 metrics, 3 judges,
5 people) imported from one long-format JSONL file (target: under 20 s), then the full report
with bootstrap intervals (target: under 10 s). Also the second import of the same file (it
changes nothing) and a spot-check sample.

The data: 12,500 answers, each rated by the 3 judges on 4 metrics (150,000 ratings), and 3,125
of them by 4 of the 5 people (50,000 ratings). Every row carries its item's question, answer
and two contexts, as a file written row by row would. Verdicts come from a hidden truth per
item: people agree with it 85 % of the time, judges 70 to 90 %, one of them lenient.

    python tests/benchmarks/bench_judge.py [--items 12500] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from labeler.judge.importing import import_judgements
from labeler.judge.report import build_report
from labeler.judge.sampling import sample_plan
from labeler.store import Store

METRICS = {  # name: (scale, declared)
    "faithfulness": "score",
    "answer_relevancy": "score",
    "helpfulness": "ordinal:1-4",
    "correctness": "binary",
}
JUDGES = {"judge-a": (0.9, 0.0), "judge-b": (0.8, 0.15), "judge-c": (0.7, -0.1)}
PEOPLE = ["ana", "bo", "cy", "dee", "eli"]


def verdict(rng: random.Random, scale: str, truth: float, accuracy: float, lean: float):
    """A rater's verdict: the truth with probability ``accuracy``, else noise; ``lean`` pushes
    a judge up (lenient) or down."""
    if scale == "score":
        value = truth if rng.random() < accuracy else rng.random()
        return round(min(1.0, max(0.0, value + lean + rng.gauss(0, 0.05))), 3)
    if scale == "binary":
        value = truth >= 0.5 if rng.random() < accuracy else rng.random() < 0.5 + lean
        return int(value)
    grade = 1 + min(3, int(truth * 4))
    if rng.random() >= accuracy:
        grade = min(4, max(1, grade + rng.choice((-1, 1)) + (1 if lean > 0.1 else 0)))
    return grade


def write_file(path: Path, items: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    rows = 0
    people_items = items // 4
    with path.open("w", encoding="utf-8") as out:
        for n in range(items):
            truth = rng.random()
            detail = {
                "question": f"How do I handle case {n} of the Orders API?",
                "answer": f"For case {n}, retry after the delay in Retry-After and keep the"
                " same idempotency key so the order is not created twice.",
                "contexts": [
                    f"Chunk {n}-a: Rate limits are counted per API key over a sliding window.",
                    f"Chunk {n}-b: Idempotency keys are kept for 24 hours after first use.",
                ],
            }
            raters = [(j, "model", acc, lean) for j, (acc, lean) in JUDGES.items()]
            if n < people_items:
                left_out = PEOPLE[n % len(PEOPLE)]
                raters += [(p, "human", 0.85, 0.0) for p in PEOPLE if p != left_out]
            for metric, scale in METRICS.items():
                for rater, kind, accuracy, lean in raters:
                    value = verdict(rng, scale, truth, accuracy, lean)
                    if kind == "human" and scale == "score":
                        value = int(value >= 0.5)
                    record = {
                        "item": f"answer-{n:06d}",
                        "metric": metric,
                        "rater": rater,
                        "rater_kind": kind,
                        "verdict": value,
                        **detail,
                    }
                    if kind == "model":
                        record["rationale"] = f"The answer's claims about case {n} hold."
                    out.write(json.dumps(record) + "\n")
                    rows += 1
    return rows


def timed(label: str, func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{label:<44} wall {wall:6.2f} s   cpu {cpu:6.2f} s   load average {load}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=12_500)
    parser.add_argument("--keep", type=Path, default=None, help="Keep the files in DIR.")
    args = parser.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-judge-"))
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "ratings.jsonl"
    rows = write_file(data, args.items)
    size = data.stat().st_size / 1e6
    print(
        f"{rows:,} ratings, {args.items:,} items, {len(METRICS)} metrics, {len(JUDGES)} judges,"
        f" {len(PEOPLE)} people; file {size:.0f} MB"
    )
    scales = {m: s for m, s in METRICS.items() if s != "score"}
    thresholds = {"faithfulness": 0.5, "answer_relevancy": 0.5}
    with Store(folder / "bench.db") as store:
        result = timed(
            "import (target < 20 s)",
            lambda: import_judgements(store, data, scales=scales, thresholds=thresholds),
        )
        print(f"  {result.added:,} ratings added, {result.items_added:,} items")
        again = timed(
            "import again (changes nothing)",
            lambda: import_judgements(store, data, scales=scales, thresholds=thresholds),
        )
        assert not again.changed
        report = timed(
            "report, 2,000 bootstrap resamples (target < 10 s)", lambda: build_report(store)
        )
        for name, metric in report.metrics.items():
            kappas = ", ".join(
                f"{j} {s.kappa:.2f} [{s.kappa_ci[0]:.2f}, {s.kappa_ci[1]:.2f}] n={s.items}"
                for j, s in metric.judges.items()
            )
            print(f"  {name}: alpha {metric.humans.alpha:.3f}; {kappas}")
        timed(
            "sample 30 per stratum, with disagreements",
            lambda: sample_plan(
                store, "helpfulness", judge="judge-b", per_stratum=30, seed=1, disagreements=True
            ),
        )
    if args.keep is None:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
