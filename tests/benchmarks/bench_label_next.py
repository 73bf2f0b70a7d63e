"""Benchmark: label-next, measured against an oracle (issue #12).

Simulated labelling: start from no labels, repeatedly take the next 20 pairs ``labeler next``
names, grade them from the full labels (the oracle), until the comparison is proven. Reported
for each pair of runs, against the size of the depth-k pool of the two runs (k the metric's
cutoff):

- the labels used when a winner was first named (likely, or proven), and whether it was right
  (the winner on the full labels);
- rounds whose named winner was wrong (a wrong "likely" is a defect);
- the labels used when proven;
- the labels a greedy order that knows the grades needs to prove it (for reference).

Goals: the right winner named within 30 % of the depth-10 pool, proven within 50 %.

Sections (``--sections``, default all):

- ``demo``: the bundled demo (``data/demo``: 88 questions, runs weak / bm25 / hybrid, the
  ground truth as the oracle), every pair, nDCG@10, precision@10, recall@10, MRR@10, MAP@10.
- ``synthetic``: a synthetic collection of ``--questions`` (1,000) questions (see
  ``tests/label_next_sim.py``: not the relevance model's own story), four pairs of runs from
  far apart to nearly equal, nDCG@10.
- ``random``: the demo labelled in random order (not label-next's), every pair both ways:
  how many states name a likely winner, and how many of those are wrong.
- ``calibration``: many small synthetic collections (``--seeds``), label-next from no labels
  for 12 rounds; every round's P(A beats B) binned against how often A truly is better, and
  the first winner named against the truth.
- ``prior``: the demo again, every pair and metric, from no labels, without and with a judge's
  grades as the relevance model's prior (``labeler next --prior-judge``): the labels needed to
  name a winner and to prove it, and rounds whose named winner was wrong. Two judges: the
  demo's imported one (gpt-4o-mini: 345 grades, on the pools of the questions people graded,
  15 of them wrong), and a judge of every pair of the pool whose grades are drawn from that
  judge's own confusion against the ground truth (what a full ``labeler judge run`` of a
  judge that good would give).
- ``speed``: next pairs for 10,000 questions x 2 runs x 100 results (nDCG@10), from no labels
  and with 40 % of the pool labelled: wall and CPU time (target: under 2 s), three calls in
  one process, then the first call of a fresh process (what ``labeler next`` makes), and the
  import time apart.

Prints figures with CPU time beside wall time and the load average; asserts nothing.

Usage::

    python tests/benchmarks/bench_label_next.py
    python tests/benchmarks/bench_label_next.py --sections speed
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from labeler.metrics import evaluate, read_qrels, read_run  # noqa: E402
from labeler.metrics.decision import decide, decide_contest  # noqa: E402
from labeler.metrics.tables import Qrels, Run  # noqa: E402
from tests import label_next_sim as sim  # noqa: E402

DEMO = REPO / "data" / "demo"
DEMO_PAIRS = (("hybrid", "bm25"), ("bm25", "weak"), ("hybrid", "weak"))
DEMO_METRICS = ("ndcg@10", "precision@10", "recall@10", "mrr@10", "map@10")
SYNTHETIC_PAIRS = (
    ("strong", "weak"),
    ("strong", "good"),
    ("good", "good-b"),
    ("good-b", "weak"),
    ("good-b", "good-c"),  # the close pair
)


def clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> str:
    wall, cpu = time.perf_counter() - start[0], time.process_time() - start[1]
    return f"{wall:6.1f} s wall, {cpu:6.1f} s CPU"


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def percent(part: int | None, whole: int) -> str:
    return "never" if part is None else f"{part:5d} ({100 * part / whole:4.1f} %)"


HEADER = (
    f"{'metric':<13}{'A vs B':<18}{'A - B':>8}{'pool':>7}  {'named (likely)':<17}{'right':<7}"
    f"{'wrong rounds':<14}{'proven':<17}{'greedy proves':<17}time"
)


def simulate_pair(questions, truth: Qrels, a: Run, b: Run, metric: str) -> tuple[str, dict]:
    start = clock()
    pool = sim.fresh(questions, a, b, metric)
    oracle = sim.oracle_grades(pool, truth)
    sign = sim.truth_sign(truth, a, b, metric)
    diff = (evaluate(truth, a, metric).mean(metric) or 0) - (
        evaluate(truth, b, metric).mean(metric) or 0
    )
    trace = sim.label_next(pool, oracle, sign)
    greedy = sim.greedy(pool, oracle, sign)
    right = "-" if not trace.named else ("yes" if trace.named == sign else "NO")
    line = (
        f"{metric:<13}{a.name + ' vs ' + b.name:<18}{diff:+8.4f}{pool.size:7d}  "
        f"{percent(trace.named_at, pool.size):<17}{right:<7}{trace.wrong:<14d}"
        f"{percent(trace.proven_at, pool.size):<17}{percent(greedy, pool.size):<17}{since(start)}"
    )
    figures = {
        "pool": pool.size,
        "named": trace.named_at,
        "right": trace.named == sign,
        "wrong_rounds": trace.wrong,
        "proven": trace.proven_at,
        "greedy": greedy,
    }
    return line, figures


def demo() -> list[dict]:
    print(f"\n== Demo: 88 questions, the ground truth as the oracle ({load()})")
    questions = [json.loads(line)["id"] for line in (DEMO / "questions.jsonl").open()]
    truth = read_qrels(DEMO / "ground_truth.qrels").with_questions(questions)
    runs = {name: read_run(DEMO / "runs" / f"{name}.trec") for name in ("weak", "bm25", "hybrid")}
    print(HEADER)
    out = []
    for metric in DEMO_METRICS:
        for a, b in DEMO_PAIRS:
            line, figures = simulate_pair(questions, truth, runs[a], runs[b], metric)
            print(line, flush=True)
            out.append({"corpus": "demo", "metric": metric, "pair": f"{a}/{b}", **figures})
    return out


def synthetic(questions: int, metrics: tuple[str, ...], pairs=SYNTHETIC_PAIRS) -> list[dict]:
    corpus = sim.synthetic(questions, depth=100, seed=7)
    print(f"\n== Synthetic: {questions} questions, runs of 100 results ({load()})")
    for name, run in corpus.runs.items():
        means = evaluate(corpus.truth, run, "ndcg@10,recall@10,mrr").means()
        print(f"   {name:<8}" + "  ".join(f"{k} {v:.3f}" for k, v in means.items()))
    print(HEADER)
    out = []
    for metric in metrics:
        for a, b in pairs:
            line, figures = simulate_pair(
                corpus.questions, corpus.truth, corpus.runs[a], corpus.runs[b], metric
            )
            print(line, flush=True)
            out.append({"corpus": "synthetic", "metric": metric, "pair": f"{a}/{b}", **figures})
    return out


def calibration(seeds: int, metrics: tuple[str, ...]) -> None:
    # Each pair in both orders: A is the better run as often as B, as the model assumes.
    pairs = [("strong", "good"), ("good", "good-b"), ("good", "weak")]
    pairs += [(b, a) for a, b in pairs]
    print(
        f"\n== Calibration: {seeds} synthetic collections of 100 questions x {len(pairs)} pairs"
        f" (each in both orders), 12 rounds of 20 labels each from no labels ({load()})"
    )
    edges = (0.0, 0.05, 0.2, 0.5, 0.8, 0.95, 1.0001)
    for metric in metrics:
        start = clock()
        named, states = [], []
        for seed in range(seeds):
            corpus = sim.synthetic(100, depth=20, seed=100 + seed)
            for a, b in pairs:
                sign = sim.truth_sign(corpus.truth, corpus.runs[a], corpus.runs[b], metric)
                if sign == 0:
                    continue
                pool = sim.fresh(corpus.questions, corpus.runs[a], corpus.runs[b], metric)
                trace = sim.label_next(pool, sim.oracle_grades(pool, corpus.truth), sign, rounds=12)
                if trace.named:
                    named.append(trace.named == sign)
                states += [(p, sign) for p, _ in trace.probabilities]
        print(
            f"{metric}: winners named {len(named)}, right {sum(named)}"
            f" ({100 * sum(named) / max(len(named), 1):.0f} %); {since(start)}"
        )
        table = np.array(states)
        for low, high in itertools.pairwise(edges):
            inside = (table[:, 0] >= low) & (table[:, 0] < high)
            if inside.any():
                print(
                    f"   P(A beats B) in [{low:.2f}, {min(high, 1):.2f}): {inside.sum():5d} states,"
                    f" mean P {table[inside, 0].mean():.3f}, A truly better"
                    f" {np.mean(table[inside, 1] > 0):.3f}"
                )


def random_order(seeds: int, metrics: tuple[str, ...]) -> None:
    """Labels in random order, not label-next's: the model must not name a wrong winner from
    whatever the labels happen to be. Every state after 20, 40, ... 300 random labels."""
    print(f"\n== Random-order labelling of the demo: {seeds} orders per pair and metric ({load()})")
    questions = [json.loads(line)["id"] for line in (DEMO / "questions.jsonl").open()]
    truth = read_qrels(DEMO / "ground_truth.qrels").with_questions(questions)
    runs = {name: read_run(DEMO / "runs" / f"{name}.trec") for name in ("weak", "bm25", "hybrid")}
    pairs = (("hybrid", "bm25"), ("bm25", "hybrid"), ("bm25", "weak"), ("weak", "hybrid"))
    for metric in metrics:
        start = clock()
        states = named = wrong = 0
        for a, b in pairs:
            pool = sim.fresh(questions, runs[a], runs[b], metric)
            oracle = sim.oracle_grades(pool, truth)
            sign = sim.truth_sign(truth, runs[a], runs[b], metric)
            for seed in range(seeds):
                order = np.random.default_rng(seed).permutation(pool.size)
                for labels in range(20, 320, 20):
                    grade = np.full(pool.size, -1, dtype=np.int8)
                    grade[order[:labels]] = oracle[order[:labels]]
                    decision = decide_contest(pool.with_grades(grade), budget=0)
                    states += 1
                    if decision.status == "likely":
                        named += 1
                        wrong += (decision.winner == pool.run_a) != (sign > 0)
        print(
            f"{metric}: {states} states, {named} with a likely winner, {wrong} wrong;", since(start)
        )


def demo_judge() -> dict[tuple[str, str], int]:
    """The demo's imported judge's relevance grades: {(question, chunk): grade}."""
    found = {}
    for line in (DEMO / "judge" / "relevance.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        if row["metric"] == "relevance" and row["rater_kind"] == "model":
            found[row["question"], row["chunk_id"]] = int(row["verdict"])
    return found


def full_judge(pool, oracle: np.ndarray, known: dict, rng: np.random.Generator) -> np.ndarray:
    """A grade for every slot, drawn from the demo judge's confusion against the oracle (its
    rows: true grade; smoothed by one count per cell)."""
    confusion = np.ones((3, 3))
    ids = pool.chunk_ids(np.arange(pool.size))
    for slot in range(pool.size):
        said = known.get((pool.questions[pool.question[slot]], ids[slot]))
        if said is not None:
            confusion[oracle[slot], said] += 1
    rows = confusion / confusion.sum(axis=1, keepdims=True)
    return np.array([rng.choice(3, p=rows[g]) for g in oracle], dtype=np.int8)


def prior(metrics: tuple[str, ...]) -> None:
    """Label-next with and without a judge's prior, on the demo from no labels."""
    from labeler.metrics.judge_prior import slot_grades

    print(f"\n== Demo with a judge's prior: labels to name and to prove a winner ({load()})")
    questions = [json.loads(line)["id"] for line in (DEMO / "questions.jsonl").open()]
    truth = read_qrels(DEMO / "ground_truth.qrels").with_questions(questions)
    runs = {name: read_run(DEMO / "runs" / f"{name}.trec") for name in ("weak", "bm25", "hybrid")}
    known = demo_judge()
    print(
        f"{'metric':<13}{'A vs B':<17}{'pool':>5} {'judge':<13}{'graded':>7}"
        f"{'named':>8}{'wrong':>6}{'proven':>8}"
    )
    totals: dict[str, list[int]] = {}
    for metric in metrics:
        for a, b in DEMO_PAIRS:
            pool = sim.fresh(questions, runs[a], runs[b], metric)
            oracle = sim.oracle_grades(pool, truth)
            sign = sim.truth_sign(truth, runs[a], runs[b], metric)
            judges = {
                "none": None,
                "imported": slot_grades(pool, known),
                "every pair": full_judge(pool, oracle, known, np.random.default_rng(3)),
            }
            for name, grades in judges.items():
                trace = sim.label_next(pool, oracle, sign, prior=grades)
                graded = 0 if grades is None else int((grades >= 0).sum())
                print(
                    f"{metric:<13}{a + ' vs ' + b:<17}{pool.size:5d} {name:<13}{graded:7d}"
                    f"{trace.named_at if trace.named_at is not None else -1:8d}{trace.wrong:6d}"
                    f"{trace.proven_at if trace.proven_at is not None else -1:8d}",
                    flush=True,
                )
                entry = totals.setdefault(name, [0, 0, 0, 0])
                entry[0] += trace.named_at or 0
                entry[1] += trace.proven_at or 0
                entry[2] += trace.wrong
                entry[3] += trace.named == sign
    for name, (named, proven, wrong, right) in totals.items():
        print(
            f"   {name:<11} in all: named after {named} labels, proven after {proven};"
            f" {wrong} rounds with a wrong winner; first winner right {right} times"
        )


SPEED_CASES = ("no labels", "40 % of the pool labelled")


def speed_data() -> tuple[Run, Run, dict[str, Qrels]]:
    """10,000 questions x 2 runs x 100 results, and the labels of each of ``SPEED_CASES``."""
    questions, depth = 10_000, 100
    rng = np.random.default_rng(0)
    names = [f"q{i}" for i in range(questions)]

    def run(name: str, shuffle: bool) -> Run:
        chunks = []
        for i in range(questions):
            ids = rng.permutation(300)[:depth] if shuffle else np.arange(depth)
            chunks += [f"c{i}-{j}" for j in ids]
        return Run.from_rows(
            name,
            np.repeat(names, depth).tolist(),
            chunks,
            ranks=np.tile(np.arange(1, depth + 1), questions),
        )

    a, b = run("A", False), run("B", True)
    empty = Qrels.from_rows([], [], []).with_questions(names)
    picks = np.random.default_rng(1)
    rows = [
        (q, f"c{i}-{j}", int(picks.choice([0, 0, 0, 1, 2])))
        for i, q in enumerate(names)
        for j in range(10)
        if picks.random() < 0.4
    ]
    labelled = Qrels.from_rows(*map(list, zip(*rows, strict=True))).with_questions(names)
    return a, b, dict(zip(SPEED_CASES, (empty, labelled), strict=True))


def speed_line(label: str, attempt: str, start: tuple[float, float], decision) -> str:
    return (
        f"   {label:<26} {attempt:<12} {since(start)}; pool {decision.pool:,},"
        f" {decision.labelled:,} labelled, {decision.status}; {load()}"
    )


def speed() -> None:
    """Each case three times in this process (the first call pays for the memory the process
    has not used yet; later calls reuse it), then the first call in a fresh process, as
    ``labeler next`` makes it (the imports are done before the clock starts: any process pays
    them, and they are timed separately)."""
    print("\n== Speed: next pairs, 10,000 questions x 2 runs x 100 results, nDCG@10")
    a, b, cases = speed_data()
    for label, qrels in cases.items():
        for attempt in range(3):
            start = clock()
            decision = decide(qrels, a, b, "ndcg@10", budget=20)
            print(speed_line(label, f"try {attempt + 1}:", start, decision), flush=True)
    for label in cases:
        # A pause first: memory just freed by this process is cheap to take again, and a
        # user's fresh process does not get it (on a VM it may take seconds to go cold).
        time.sleep(5)
        child = [sys.executable, __file__, "--speed-first", label]
        print(subprocess.run(child, check=True, capture_output=True, text=True).stdout, end="")
    imports = [sys.executable, "-c", IMPORT_TIME]
    took = subprocess.run(imports, check=True, capture_output=True, text=True, cwd=REPO).stdout
    print(f"   importing labeler.metrics.decision in a fresh process (not in the above): {took}")


IMPORT_TIME = """
import time
start = time.perf_counter(), time.process_time()
import labeler.metrics.decision
wall, cpu = time.perf_counter() - start[0], time.process_time() - start[1]
print(f"{wall:6.2f} s wall, {cpu:6.2f} s CPU")
"""


def speed_first(label: str) -> None:
    """The first ``decide`` of a fresh process (``speed``'s child)."""
    a, b, cases = speed_data()
    start = clock()
    decision = decide(cases[label], a, b, "ndcg@10", budget=20)
    print(speed_line(label, "fresh proc.:", start, decision), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default="speed,demo,prior,random,calibration,synthetic")
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=15)
    parser.add_argument("--synthetic-metrics", default="ndcg@10")
    parser.add_argument(
        "--synthetic-pairs",
        default=",".join(f"{a}/{b}" for a, b in SYNTHETIC_PAIRS),
        help="Pairs of the synthetic runs, e.g. good-b/good-c.",
    )
    parser.add_argument("--calibration-metrics", default="ndcg@10,precision@10,mrr@10")
    parser.add_argument("--speed-first", choices=SPEED_CASES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.speed_first:
        speed_first(args.speed_first)
        return
    sections = set(args.sections.split(","))
    print(f"label-next benchmark; {os.cpu_count()} cores; {load()}")
    if "speed" in sections:
        speed()
    if "demo" in sections:
        demo()
    if "prior" in sections:
        prior(DEMO_METRICS)
    if "random" in sections:
        random_order(args.seeds // 3 or 1, tuple(args.calibration_metrics.split(",")))
    if "calibration" in sections:
        calibration(args.seeds, tuple(args.calibration_metrics.split(",")))
    if "synthetic" in sections:
        pairs = tuple(tuple(p.split("/")) for p in args.synthetic_pairs.split(","))
        synthetic(args.questions, tuple(args.synthetic_metrics.split(",")), pairs)


if __name__ == "__main__":
    main()
