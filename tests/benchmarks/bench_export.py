"""Benchmark: export a test set of 10,000 questions and 200,000 labels, sign it, verify it,
and convert it.

Target (from round one): exporting and converting such a test set, under 10 s. Issue #19 adds
to every export the completeness of each question's pool (read in the export's one read
transaction) and an Ed25519 signature, and to every reader the check of the signature: their
cost is printed apart.

The database is built through the store API (bulk writes: ``upsert_chunks``, ``stage_labels`` +
``merge_staged_labels``), from ``--seed``:

- 60,000 chunks of 40-90 words (about 400 characters) in 6,000 documents;
- 10,000 accepted questions; 9,800 of them graded by "alice" on 16 chunks and by "bob" on 4 of
  those (bob disagrees on ``--disagree`` of them, settled with ``--policy majority``): 20 labels
  per question; the other 200 graded 0 on 20 chunks by "carol" and marked unanswerable by
  "dave" (so they are exported as unanswerable): 200,000 labels in all;
- grades drawn 60% 0, 25% 1, 15% 2;
- one run, "bm25", pooling its top 20 of each question: the 16 chunks alice graded, in a random
  order, then 4 chunks nobody graded (200,000 run results), so every graded question is partial
  and complete to some depth between 0 and 16.

Timed: the first export (plan + completeness + write + sign), a second export after 1,000
labels changed (with the diff against the first), the completeness of every pool and the
signature alone, each conversion of the second version, ``labeler versions`` (which re-hashes
and checks the signature of every version), ``labeler versions verify`` of the second version
with the public key (as a receiver runs it), the reading of it by ``labeler eval`` (hash and
signature), a diff of the two versions, and a zip of one. Nothing asserts on time:
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

from labeler.export import Selection, _completeness, _content, export_testset
from labeler.exporters.convert import FORMATS, convert
from labeler.grading.consensus import consensus, get_policy
from labeler.metrics.testsets import read_testset
from labeler.store import Store
from labeler.versions.diff import diff_versions
from labeler.versions.format import sha256_hex, version_files
from labeler.versions.history import list_versions, verify_copies, zip_version
from labeler.versions.reading import read_manifest
from labeler.versions.signing import (
    given_key,
    project_key,
    signature_record,
    write_public_key,
)

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
    run_rows = []
    by_question: dict[str, list[str]] = {}
    for _, qid, chunk, _ in alice:
        by_question.setdefault(qid, []).append(chunk)
    for qid, chunks in by_question.items():
        ranked = rng.sample(chunks, len(chunks)) + [
            f"c{rng.randrange(args.chunks):06d}" for _ in range(args.run_extra)
        ]
        ranked = list(dict.fromkeys(ranked))
        run_rows += [(qid, c, rank) for rank, c in enumerate(ranked, 1)]
    with store.write():
        store.runs.stage_results(
            (line, q, c, rank, None) for line, (q, c, rank) in enumerate(run_rows, start=1)
        )
        store.runs.merge_staged_results("bm25", "default", "bench", pool_depth=args.pool_depth)
    for n in range(graded, args.questions):
        store.labels.set_mark(f"q{n:05d}", "default", "dave", mark="unanswerable", value=True)
    return {
        "chunks": args.chunks,
        "questions": args.questions,
        "labels": len(alice) + len(bob) + len(carol),
        "run_results": len(run_rows),
        "alice": alice,
    }


def completeness_inputs(store: Store) -> tuple:
    """What the export has worked out before the completeness step (not timed)."""
    questions = store.labels.judged_questions("default", ("accepted",))
    labels = list(store.labels.chunking_labels("default"))
    marks = store.labels.unanswerable_marks("default")
    adjudications = store.adjudications.current("default")
    agreed = consensus(labels, marks, adjudications, policy=get_policy("majority"))
    content, _ = _content(store, "default", questions, agreed)
    return questions, agreed, content


def completeness_alone(store: Store, inputs: tuple) -> int:
    """The step #19 added to every export: every pool read (one query) and each question's
    completeness worked out."""
    questions, agreed, content = inputs
    with store.snapshot():
        depths = store.pools.run_depths("default")
        found = _completeness(store, "default", questions, agreed, content, depths)
    return sum(1 for c in found.values() if c.partial)


def sign_alone(key, folder: Path) -> dict:
    manifest = read_manifest(folder)
    digests = {n: sha256_hex((folder / n).read_bytes()) for n in version_files(manifest)}
    return signature_record(key, manifest, digests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--labels-per-question", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=60_000)
    parser.add_argument("--disagree", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pool-depth", type=int, default=20, help="The run's pool depth.")
    parser.add_argument("--run-extra", type=int, default=4, help="Ungraded results per question.")
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
            f" {sizes['labels']:,} labels, {sizes['run_results']:,} run results in"
            f" {time.perf_counter() - start:.1f} s (not timed)"
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
        inputs = completeness_inputs(store)
        timed("  of which: completeness of every pool", figures, completeness_alone, store, inputs)
        key = project_key(store)
        timed("  of which: the signature", figures, sign_alone, key, second.path)
        public = write_public_key(work / "project.pub", key.public)
        verified = timed(
            "versions verify v2 --public-key",
            figures,
            verify_copies,
            second.path,
            public_key=public,
        )
        timed(
            "eval's read of v2 (hash + signature)",
            figures,
            read_testset,
            second.path,
            trust=given_key(public),
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
        infos = timed(
            "versions (re-hash and check both signatures)",
            figures,
            list_versions,
            out,
            "bench",
            store=store,
        )
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
        print(
            f"  partial questions: {counts['partial']:,} ({counts['ungraded']:,} candidates"
            f" ungraded); verified: {[i.status()[:40] for i in verified]}"
        )
        export_s = figures[0][1]
        all_s = next(s for label, s in figures if label.startswith("convert v2 --to all"))
        verify_s = next(s for label, s in figures if label.startswith("versions verify"))
        total = export_s + all_s
        verdict = "PASS" if total < TARGET_S else "MISS"
        print(f"  converted files: {len(every)}")
        print(f"Export + convert --to all: {total:.2f} s (target < {TARGET_S:.0f} s): {verdict}")
        print(
            f"Export (signed) + verify with the public key: {export_s + verify_s:.2f} s;"
            f" with convert --to all too: {total + verify_s:.2f} s"
        )
        print(
            f"Export + the five conversions run one by one (each reads the version):"
            f" {export_s + each_total:.2f} s"
        )
        print(f"CPU time of this process: {time.process_time():.1f} s (wall figures above)")


if __name__ == "__main__":
    main()
