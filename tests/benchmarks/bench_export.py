"""Benchmark: export a test set of 10,000 questions and 200,000 labels, and convert it.

Target (from the issue): exporting and converting such a test set, under 10 s.

The database is built through the store API (bulk writes: ``upsert_chunks``, ``stage_labels`` +
``merge_staged_labels``), from ``--seed``:

- 60,000 chunks of 40-90 words (about 400 characters) in 6,000 documents;
- 10,000 accepted questions; 9,800 of them graded by "alice" on 16 chunks and by "bob" on 4 of
  those (bob disagrees on ``--disagree`` of them, settled with ``--policy majority``): 20 labels
  per question; the other 200 graded 0 on 20 chunks by "carol" and marked unanswerable by
  "dave" (so they are exported as unanswerable): 200,000 labels in all;
- grades drawn 60% 0, 25% 1, 15% 2.

Timed: the first export (plan + write), a second export after 1,000 labels changed (with the
diff against the first), each conversion of the second version, ``labeler versions`` (which
re-hashes every version), a diff of the two versions, and a zip of one. Nothing asserts on time:
the figures are printed, with the total against the target.

Usage::

    python tests/benchmarks/bench_export.py
    python tests/benchmarks/bench_export.py --questions 1000 --labels-per-question 20
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from labeler.export import Selection, export_testset
from labeler.exporters.convert import FORMATS, convert
from labeler.store import Store
from labeler.versions.diff import diff_versions
from labeler.versions.history import list_versions, zip_version

TARGET_S = 10.0
WORDS = (
    "order orders api key request requests rate limit retry header status page cursor token"
    " webhook signature payload customer invoice refund payment shipping address carrier label"
    " warehouse stock item sku price currency tax discount coupon cart checkout session error"
    " timeout latency region endpoint version deprecated field filter sort query response body"
).split()


def timed(label: str, figures: list[tuple[str, float]], func, *args, **kwargs):
    start = time.perf_counter()
    result = func(*args, **kwargs)
    seconds = time.perf_counter() - start
    figures.append((label, seconds))
    print(f"  {label:<38} {seconds:8.2f} s", flush=True)
    return result


def build(store: Store, args: argparse.Namespace, rng: random.Random) -> dict[str, int]:
    chunks = []
    for n in range(args.chunks):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 90)))
        chunks.append(
            {
                "id": f"c{n:06d}",
                "doc_id": f"d{n // 10:05d}",
                "title": f"Doc {n // 10}",
                "text": body,
            }
        )
    store.corpus.ensure_chunking("default")
    store.corpus.upsert_chunks("default", chunks)
    questions = [
        {
            "id": f"q{n:05d}",
            "text": "How do I " + " ".join(rng.choice(WORDS) for _ in range(8)) + "?",
            "reference_answer": "See the docs." if n % 3 else None,
            "tags": [f"topic-{n % 7}"] + (["hard"] if n % 11 == 0 else []),
        }
        for n in range(args.questions)
    ]
    store.questions.upsert(questions)
    unanswerable = max(1, args.questions // 50)
    graded = args.questions - unanswerable
    per = args.labels_per_question
    bob_per = per // 5
    alice, bob, carol = [], [], []
    line = 0
    for n in range(args.questions):
        qid = f"q{n:05d}"
        picked = rng.sample(range(args.chunks), per if n >= graded else per - bob_per)
        for c in picked:
            line += 1
            if n >= graded:
                carol.append((line, qid, f"c{c:06d}", 0))
            else:
                alice.append((line, qid, f"c{c:06d}", rng.choices((0, 1, 2), (60, 25, 15))[0]))
        if n < graded:
            for _, _, chunk, grade in alice[-bob_per:]:
                line += 1
                other = (grade + 1) % 3 if rng.random() < args.disagree else grade
                bob.append((line, qid, chunk, other))
    for reviewer, rows in (("alice", alice), ("bob", bob), ("carol", carol)):
        store.labels.stage_labels(rows)
        store.labels.merge_staged_labels("default", reviewer)
    for n in range(graded, args.questions):
        store.labels.set_mark(f"q{n:05d}", "default", "dave", mark="unanswerable", value=True)
    return {
        "chunks": args.chunks,
        "questions": args.questions,
        "labels": len(alice) + len(bob) + len(carol),
        "alice": alice,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--labels-per-question", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=60_000)
    parser.add_argument("--disagree", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    figures: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        store = Store(work / "bench.db")
        print("Building the database…", flush=True)
        start = time.perf_counter()
        sizes = build(store, args, rng)
        print(
            f"  {sizes['chunks']:,} chunks, {sizes['questions']:,} questions,"
            f" {sizes['labels']:,} labels in {time.perf_counter() - start:.1f} s (not timed)"
        )
        out = work / "exports"
        selection = Selection(policy="majority")
        print("Timings:")
        first = timed(
            "export v1 (plan + write)",
            figures,
            export_testset,
            store,
            "bench",
            out=out,
            selection=selection,
        )
        # alice changes her mind on her first 1,000 labels (a grade up, 2 back to 0)
        changed = [(line, q, c, (g + 1) % 3) for line, q, c, g in sizes["alice"][:1000]]
        store.labels.stage_labels(changed)
        store.labels.merge_staged_labels("default", "alice")
        second = timed(
            "export v2 (plan + diff + write)",
            figures,
            export_testset,
            store,
            "bench",
            out=out,
            selection=selection,
        )
        every = timed(
            "convert v2 --to all (one read)",
            figures,
            convert,
            second.path,
            "all",
            out=work / "out-all",
        )
        for fmt in FORMATS:
            timed(
                f"convert v2 --to {fmt}",
                figures,
                convert,
                second.path,
                fmt,
                out=work / f"out-{fmt}",
            )
        each_total = sum(
            s for label, s in figures if label.startswith("convert v2 --to ") and "all" not in label
        )
        infos = timed("versions (re-hash both)", figures, list_versions, out, "bench", store=store)
        diff = timed("diff v1 v2", figures, diff_versions, first.path, second.path)
        data = timed("zip v2", figures, zip_version, second.path)
        store.close()
        counts = second.plan.counts
        print("Version v2:")
        print(
            f"  {counts['questions']:,} questions ({counts['unanswerable']:,} unanswerable),"
            f" {counts['qrels']:,} qrels, {counts['chunks']:,} chunks,"
            f" {counts['settled_by_policy']:,} disagreements settled by majority"
        )
        sizes_mb = {p.name: p.stat().st_size / 1e6 for p in second.path.iterdir()}
        print("  files: " + ", ".join(f"{n} {mb:.1f} MB" for n, mb in sorted(sizes_mb.items())))
        print(f"  changes since v1: {diff.summary()}")
        print(f"  zip: {len(data) / 1e6:.1f} MB; versions intact: {all(i.intact for i in infos)}")
        export_s = figures[0][1]
        all_s = next(s for label, s in figures if label.startswith("convert v2 --to all"))
        total = export_s + all_s
        verdict = "PASS" if total < TARGET_S else "MISS"
        print(f"  converted files: {len(every)}")
        print(f"Export + convert --to all: {total:.2f} s (target < {TARGET_S:.0f} s): {verdict}")
        print(
            f"Export + the five conversions run one by one (each reads the version):"
            f" {export_s + each_total:.2f} s"
        )
        print(f"CPU time of this process: {time.process_time():.1f} s (wall figures above)")


if __name__ == "__main__":
    main()
