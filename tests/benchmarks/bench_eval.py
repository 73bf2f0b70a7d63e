"""Benchmark: `labeler eval` as a whole process against trec_eval and pytrec_eval, on the same
TREC files.

The reference workload (from the issues): 10,000 questions x 100 results, graded 0-2, as TREC
qrels and run files of 1,000,000 lines each; nDCG@10, MAP, MRR and recall@100. Targets for
`labeler eval` as a whole process, from the files to the printed table:

- at most half of trec_eval's wall time (issue #23; NIST's C trec_eval 10.0 built with -O2 by
  the shared ``build_trec_eval.sh``, found with ``--trec-eval``, on PATH or in /tmp/trec_eval);
- under 1.0 s at 10,000 questions;
- under 10 s and 2 GB of memory at 100,000 questions x 100 results;
- every metric at once (all of them at k = 1, 3, 5, 10, 100) under twice the time of the four.

The data is generated from ``--seed``: each question has a pool of 100 labelled chunks (grade 0
60%, 1 25%, 2 15%) and a run of 100 results, half from the pool and half unlabelled chunks of a
5,000,000-chunk corpus, in score order (ranks agree with the scores, as retrievers write them).
Generated files are kept in ``--workdir`` and reused when the parameters match.

Each timing is a fresh process (``python -m labeler eval``, trec_eval, and a script that reads
the files into dicts and runs pytrec_eval, as a user of pytrec_eval would); memory is that
process's peak resident set (``os.wait4``'s rusage). The three are measured side by side: after
one untimed warm-up each, ``--repeat`` rounds in which each runs once in turn, so that a change
of load on the shared machine falls on all of them; the ratio is given of the best times, of the
medians, of the CPU times, and as the median of the per-round ratios (of two runs next to each
other in time); the half-time target is judged on the larger of the last two. On a loaded
machine Linux's autogroup scheduler gives each session a fair share of the CPU, so threads buy
no time there and the wall-time ratio follows the CPU ratio: the load average is printed before
and after. The values are then checked question by question against pytrec_eval's (every
digit) and trec_eval's (the four decimals it prints).

Usage::

    python tests/benchmarks/bench_eval.py                    # 10k, all metrics, and 100k
    python tests/benchmarks/bench_eval.py --questions 2000 --no-large   # a quick look
    python tests/benchmarks/bench_eval.py --trec-eval /tmp/trec_eval/trec_eval --no-large

Nothing here asserts on time: it prints the figures and a PASS/MISS line per target.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run from a checkout: measure this tree's labeler
    sys.path.insert(0, str(REPO))

from labeler.metrics.registry import parse_metrics  # noqa: E402

FOUR = "ndcg@10,map,mrr,recall@100"
ALL = (
    "hit_rate@k,recall@k,precision@k,mrr,mrr@k,ndcg,ndcg@k,map,map@k,r_precision,"
    "context_precision@k,judged@k"
)
ALL_KS = "1,3,5,10,100"
PYTREC_MEASURES = ("ndcg_cut.10", "map", "recip_rank", "recall.100")  # trec_eval -m names
PYTREC_NAMES = {
    "ndcg@10": "ndcg_cut_10",
    "map": "map",
    "mrr": "recip_rank",
    "recall@100": "recall_100",
}

PYTREC_SCRIPT = r"""
import sys, pytrec_eval
qrels, run = {}, {}
with open(sys.argv[1]) as f:
    for line in f:
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
with open(sys.argv[2]) as f:
    for line in f:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
measures = {"ndcg_cut.10", "map", "recip_rank", "recall.100"}
result = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = ["ndcg_cut_10", "map", "recip_rank", "recall_100"]
for name in names:
    print(name, sum(v[name] for v in result.values()) / len(result))
if len(sys.argv) > 3:
    import json
    with open(sys.argv[3], "w") as out:
        json.dump(result, out)
"""


def _lines_of(start: int, ids, grades, ranked, scores, pool: int) -> tuple[list[str], list[str]]:
    qrels, run = [], []
    for i in range(len(ids)):
        q = f"q{start + i}"
        labelled = zip(ids[i, :pool].tolist(), grades[i].tolist(), strict=True)
        qrels += [f"{q} 0 d{d} {g}" for d, g in labelled]
        results = zip(ranked[i].tolist(), scores[i].tolist(), strict=True)
        run += [f"{q} Q0 d{d} {r} {s:.2f} bench" for r, (d, s) in enumerate(results, 1)]
    return qrels, run


def generate(folder: Path, questions: int, results: int, seed: int) -> tuple[Path, Path]:
    """qrels and run files for ``questions`` x ``results`` (kept and reused by name).

    Scores are distinct multiples of 1/4 (float32 holds them exactly, as pytrec_eval reads
    scores as float32), decreasing with the rank, so both tools see the same ranking.
    """
    qrels_path = folder / f"qrels-{questions}x{results}-s{seed}.txt"
    run_path = folder / f"run-{questions}x{results}-s{seed}.txt"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    import numpy as np  # here only: the measuring process stays small (see ``once``)

    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    pool = results  # labelled chunks per question
    width = pool + results // 2
    with qrels_path.open("w") as qrels_out, run_path.open("w") as run_out:
        for start in range(0, questions, 10_000):
            n = min(10_000, questions - start)
            ids = rng.integers(0, 5_000_000, size=(n, width))
            for row in np.flatnonzero([len(set(r)) < width for r in ids.tolist()]):
                while len(set(ids[row].tolist())) < width:
                    ids[row] = rng.integers(0, 5_000_000, size=width)
            grades = rng.choice(3, size=(n, pool), p=[0.6, 0.25, 0.15])
            shuffle = rng.permuted(np.tile(np.arange(results), (n, 1)), axis=1)
            ranked = np.take_along_axis(ids[:, pool // 2 :], shuffle, axis=1)  # half labelled
            steps = rng.integers(1, 8, size=(n, results)) / 4
            scores = np.cumsum(steps, axis=1)[:, ::-1]
            qrels_lines, run_lines = _lines_of(start, ids, grades, ranked, scores, pool)
            qrels_out.write("\n".join(qrels_lines) + "\n")
            run_out.write("\n".join(run_lines) + "\n")
    size = run_path.stat().st_size / 1e6
    took = time.perf_counter() - started
    print(f"generated {questions:,} x {results} in {took:.1f} s ({size:.0f} MB run)")
    return qrels_path, run_path


def generated(folder: Path, questions: int, results: int, seed: int) -> tuple[Path, Path]:
    """``generate`` in a child process: numpy's arrays must not swell this process, whose
    size every forked child starts from (and ``ru_maxrss`` would count)."""
    command = [sys.executable, __file__, "--generate", str(questions), str(results), str(seed)]
    subprocess.run([*command, str(folder)], check=True)
    return generate(folder, questions, results, seed)  # the files exist now: just their paths


def once(command: list[str]) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, stdout) of one fresh process. Output goes to
    files, not pipes, so the process can be reaped with ``os.wait4``, whose rusage is this
    child's own. CPU time (user + system, all threads) moves less than wall time when other
    processes share the machine."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=REPO)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            sys.exit(f"failed: {' '.join(command)}\n{err.read().decode()}")
        cpu = usage.ru_utime + usage.ru_stime
        return elapsed, cpu, usage.ru_maxrss / 1024, out.read().decode()


def _figures(runs: list[tuple[float, float, float, str]]) -> dict:
    times = [r[0] for r in runs]
    return {
        "best": min(times),
        "median": statistics.median(times),
        "cpu": statistics.median(r[1] for r in runs),
        "peak_mb": max(r[2] for r in runs),
        "out": runs[0][3],
        "times": times,
    }


def best_of(command: list[str], repeat: int) -> dict:
    """A fresh process ``repeat`` times, after one untimed warm-up (so every timed run finds the
    files in the page cache): best and median wall time, and the largest peak RSS."""
    once(command)
    return _figures([once(command) for _ in range(repeat)])


def side_by_side(commands: dict[str, list[str]], repeat: int) -> dict[str, dict]:
    """Each command once untimed, then ``repeat`` rounds of each once in turn: what ``best_of``
    gives for each, measured under the same load."""
    for command in commands.values():
        once(command)
    runs: dict[str, list] = {label: [] for label in commands}
    for _ in range(repeat):
        for label, command in commands.items():
            runs[label].append(once(command))
    return {label: _figures(r) for label, r in runs.items()}


def ratios(ours: dict, theirs: dict) -> dict[str, float]:
    """ours / theirs: of the best and median wall times, the median CPU times, and the median
    of the ratios of each round (the two runs of a round are a second apart)."""
    rounds = [a / b for a, b in zip(ours["times"], theirs["times"], strict=True)]
    return {
        "best": ours["best"] / theirs["best"],
        "median": ours["median"] / theirs["median"],
        "cpu": ours["cpu"] / theirs["cpu"],
        "rounds": statistics.median(rounds),
    }


def labeler_eval(qrels: Path, run: Path, metrics: str, ks: str = "10", *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "labeler", "eval", "--qrels", str(qrels), "--run", str(run),
        "--metrics", metrics, "-k", ks, *extra,
    ]  # fmt: skip


def pytrec(qrels: Path, run: Path, *extra: str) -> list[str]:
    return [sys.executable, "-c", PYTREC_SCRIPT, str(qrels), str(run), *extra]


def trec_eval_command(binary: str, qrels: Path, run: Path, *extra: str) -> list[str]:
    measures = [arg for name in PYTREC_MEASURES for arg in ("-m", name)]
    return [binary, *extra, *measures, str(qrels), str(run)]


def find_trec_eval(given: str | None) -> str | None:
    """``--trec-eval``, else trec_eval on PATH, else where ``build_trec_eval.sh`` puts it."""
    if given:
        return given
    default = Path("/tmp/trec_eval/trec_eval")
    return shutil.which("trec_eval") or (str(default) if default.exists() else None)


def per_question_ours(qrels: Path, run: Path, folder: Path) -> dict[tuple[str, str], float]:
    """labeler eval's per-question values of the four metrics: (question, trec name) -> value."""
    ours_file = folder / "ours.csv"
    per_question = ("--per-question", str(ours_file), "--format", "json")
    subprocess.run(labeler_eval(qrels, run, FOUR, "10", *per_question), check=True, cwd=REPO,
                   capture_output=True)  # fmt: skip
    with ours_file.open() as handle:
        return {
            (row["question"], PYTREC_NAMES[row["metric"]]): float(row["value"])
            for row in csv.DictReader(handle)
        }


def agreement(ours: dict[tuple[str, str], float], qrels: Path, run: Path, folder: Path) -> str:
    """Our per-question values against pytrec_eval's, on the four metrics, every digit."""
    theirs_file = folder / "theirs.json"
    subprocess.run(pytrec(qrels, run, str(theirs_file)), check=True, capture_output=True)
    theirs = json.loads(theirs_file.read_text())
    worst = max(abs(value - theirs[q][name]) for (q, name), value in ours.items())
    expected = len(theirs) * len(PYTREC_NAMES)
    verdict = "agree" if worst < 1e-9 and len(ours) == expected else "DISAGREE"
    return f"{verdict}: {len(ours):,} per-question values compared, largest difference {worst:.1e}"


def trec_eval_agreement(ours: dict[tuple[str, str], float], binary: str, qrels: Path,
                        run: Path) -> str:  # fmt: skip
    """Our per-question values against ``trec_eval -q``'s, which prints four decimals: each of
    ours, printed as trec_eval prints (``%6.4f``), must be the same text."""
    output = subprocess.run(trec_eval_command(binary, qrels, run, "-q"), check=True,
                            capture_output=True, text=True).stdout  # fmt: skip
    theirs = {}
    for line in output.splitlines():
        name, question, value = line.split()
        if question != "all":
            theirs[(question, name)] = value
    printed = {key: f"{value:6.4f}" for key, value in ours.items()}
    differ = [key for key, value in theirs.items() if printed.get(key) != value.strip()]
    verdict = "agree" if not differ and len(theirs) == len(ours) else "DISAGREE"
    example = f" (first: {differ[0]})" if differ else ""
    return f"{verdict}: {len(theirs):,} per-question values compared, {len(differ)} differ{example}"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def show(label: str, figures: dict, note: str = "") -> None:
    print(
        f"  {label:<15} best {figures['best']:.2f} s  median {figures['median']:.2f} s"
        f"  (CPU {figures['cpu']:.2f} s)  peak {figures['peak_mb']:.0f} MB{note}"
    )


def compare_four(args: argparse.Namespace, folder: Path, binary: str | None) -> dict:
    """The four metrics at ``--questions``: labeler eval, trec_eval and pytrec_eval side by
    side, the ratios, the targets and the agreement of the values. Returns labeler's figures."""
    qrels, run = generated(folder, args.questions, args.results, args.seed)
    lines = sum(1 for _ in run.open())
    print(f"\n{args.questions:,} questions x {args.results} results ({lines:,} run lines), {FOUR}")
    commands = {"labeler eval": labeler_eval(qrels, run, FOUR)}
    if binary:
        commands["trec_eval (C)"] = trec_eval_command(binary, qrels, run)
    commands["pytrec_eval"] = pytrec(qrels, run)
    notes = {"pytrec_eval": " (reads the files into dicts, then evaluates)", "trec_eval (C)": ""}
    figures = side_by_side(commands, args.repeat)
    ours = figures["labeler eval"]
    for label, measured in figures.items():
        show(label, measured, notes.get(label, ""))
    for label in commands:
        if label == "labeler eval":
            continue
        r = ratios(ours, figures[label])
        print(
            f"  labeler / {label:<13} wall {r['best']:.2f}x (best), {r['median']:.2f}x (median),"
            f" {r['rounds']:.2f}x (median of rounds); CPU {r['cpu']:.2f}x"
        )
    ours_values = per_question_ours(qrels, run, folder)
    print(f"  values vs pytrec_eval  {agreement(ours_values, qrels, run, folder)}")
    if binary:
        print(f"  values vs trec_eval    {trec_eval_agreement(ours_values, binary, qrels, run)}")
        half = ratios(ours, figures["trec_eval (C)"])
        worst = max(half["median"], half["rounds"])
        print(f"  target <= 0.5x trec_eval's wall time: {verdict(worst <= 0.5)} ({worst:.2f}x)")
    else:
        print("  trec_eval (C): not found (build it with build_trec_eval.sh, give --trec-eval)")
    target = ours["median"] < 1.0
    print(f"  target < 1.0 s at {args.questions:,} questions: {verdict(target)}")
    return ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--results", type=int, default=100)
    parser.add_argument("--large-questions", type=int, default=100_000)
    parser.add_argument("--no-large", action="store_true", help="skip the 100,000-question run")
    parser.add_argument("--only-four", action="store_true",
                        help="only the four metrics side by side (no every-metric, score order or"
                        " large run)")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None, help="keep generated files here")
    parser.add_argument("--trec-eval", help="the trec_eval binary (default: PATH, /tmp/trec_eval)")
    parser.add_argument("--generate", nargs=4, metavar=("N", "RESULTS", "SEED", "DIR"),
                        help=argparse.SUPPRESS)  # fmt: skip
    args = parser.parse_args()
    if args.generate:
        n, results, seed, where = args.generate
        generate(Path(where), int(n), int(results), int(seed))
        return

    folder = args.workdir or Path(tempfile.mkdtemp(prefix="bench-eval-"))
    folder.mkdir(parents=True, exist_ok=True)
    # An installed package has its bytecode compiled; a checkout run with
    # PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module on every start.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "labeler")], check=True)
    binary = find_trec_eval(args.trec_eval)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {_load()}"
          f" (other processes share the machine), files in {folder}")  # fmt: skip
    ours = compare_four(args, folder, binary)
    print(f"  {_load()} after")
    qrels, run = generated(folder, args.questions, args.results, args.seed)
    if args.only_four:
        print(f"\nlabeler eval's table for the {args.questions:,}-question run:\n{ours['out']}")
        return

    every = best_of(labeler_eval(qrels, run, ALL, ALL_KS), args.repeat)
    print(f"\nevery metric at k = {ALL_KS} ({len(parse_metrics(ALL, ALL_KS))} figures), {_load()}")
    show("labeler eval", every)
    ratio = every["median"] / ours["median"]
    print(f"  target < 2x the four: {verdict(ratio < 2)} ({ratio:.2f}x)")

    scored = best_of(labeler_eval(qrels, run, FOUR, "10", "--order", "score"), args.repeat)
    print("\n--order score (ranked by score, ties by chunk id, as trec_eval)")
    show("labeler eval", scored)

    if not args.no_large:
        big_qrels, big_run = generated(folder, args.large_questions, args.results, args.seed)
        print(f"\n{args.large_questions:,} questions x {args.results} results, {FOUR}, {_load()}")
        big = best_of(labeler_eval(big_qrels, big_run, FOUR), max(1, args.repeat // 2))
        big_theirs = best_of(pytrec(big_qrels, big_run), 1)
        show("labeler eval", big)
        show("pytrec_eval", big_theirs)
        print(
            f"  ratio           {big_theirs['median'] / big['median']:.1f}x (median),"
            f" {big_theirs['cpu'] / big['cpu']:.1f}x (CPU)"
        )
        ok = big["median"] < 10 and big["peak_mb"] < 2048
        print(f"  target < 10 s and < 2 GB: {verdict(ok)}")
    print(f"\nlabeler eval's table for the {args.questions:,}-question run:\n{ours['out']}")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


if __name__ == "__main__":
    main()
