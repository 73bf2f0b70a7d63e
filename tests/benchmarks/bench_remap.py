"""Benchmark: how accurate and how fast ``labeler remap`` is.

Accuracy (``accuracy`` and ``aligners``): the demo corpus (57 documents, the 336 chunks of its
paragraph chunking ``v1``), labelled by one reviewer for all 88 questions: every chunk holding
part of a ground-truth quote gets the quote's grade, the other chunks of the three runs' top 10
get 0, and the 11 unanswerable questions are marked so. That is about 2,000 labels. Each
scenario re-chunks the corpus (smaller, larger, overlapping windows, sentences) or edits its
documents first (sentences inserted, removed, rewritten, whitespace changed, sections moved,
document ids changed), and the remap is judged against the ground truth of remap_scenarios.py:

- **correct**: an applied label is correct when its grade is the new chunk's true grade: the
  highest grade of the question's quotes whose text (or its rewrite) reaches into the chunk,
  else 0. This is the demo's own rule for which chunks a quote makes relevant, so the same rule
  judges old chunks and new. A grade 0 applied to a chunk that holds a sliver of an answer is
  wrong, and so is a 2 applied to a chunk whose answer sentence was removed.
- **precision**: correct applied labels / applied labels (the goal is 100 %: every wrong
  applied label is a defect).
- **recall**: of the labels the same rules would apply given perfect evidence (coverage and
  containment counted exactly from where each old character went; rewritten text counts as not
  found), the share the remap applied with the same grade. These are "the cases the rules can
  decide" (the goal is at least 97 %).
- **review**: proposals queued (and the distinct question/chunk pairs they make), and labels
  lost.
- **rules' own precision**: the precision of the perfect-evidence decisions against the truth:
  a figure below 100 % would be a fault of the rules, not of the matching.

``aligners`` runs every scenario with the fuzzy method alone (no hash, no offsets) for each
aligner of labeler.remap.align, to compare them on the same cases.

Speed (``speed``): 100,000 labelled chunks onto 200,000 new chunks (synthetic documents made of
sentences drawn from a 20,000-word vocabulary), a fifth of the documents edited; the remap runs
in its own process (``labeler remap``), timed, with its peak memory.

Usage::

    python tests/benchmarks/bench_remap.py                 # accuracy, aligners and speed
    python tests/benchmarks/bench_remap.py accuracy        # one part
    python tests/benchmarks/bench_remap.py speed --labelled 10000 --new 20000   # a quick look

Nothing here asserts: it prints the figures and a PASS/MISS line per target.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import remap_scenarios as S  # noqa: E402

from labeler.grading.labeling import mark  # noqa: E402
from labeler.importers import import_chunks, import_qrels, import_questions  # noqa: E402
from labeler.remap import OldLabel, decide, plan_remap  # noqa: E402
from labeler.remap.align import ALIGNERS  # noqa: E402
from labeler.remap.evidence import Evidence, Passage  # noqa: E402
from labeler.remap.rules import PIECES  # noqa: E402
from labeler.remap.text import term_share, terms  # noqa: E402
from labeler.store import Store  # noqa: E402

DEMO = REPO / "data" / "demo"
REVIEWER = "bench"
POOL_DEPTH = 10


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = load_module(REPO / "data" / "build_demo.py", "build_demo")
QUESTIONS = load_module(REPO / "data" / "demo_source" / "questions.py", "demo_questions").QUESTIONS


def answer_spans() -> dict[str, list[tuple[int, int]]]:
    """{doc id: [(start, end)]} of every ground-truth quote."""
    texts = {d["id"]: d["text"] for d in read_jsonl(DEMO / "documents.jsonl")}
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for q in QUESTIONS:
        for doc_id, quote, _ in q.get("relevant", []):
            start = texts[doc_id].index(quote)
            spans[doc_id].append((start, start + len(quote)))
    return spans


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


ANSWERS = answer_spans()


def v1_chunker(text: str) -> list[tuple[int, int]]:
    return [
        (c["start"], c["end"]) for c in BUILD.chunk_document({"id": "d", "title": "", "text": text})
    ]


@dataclass(frozen=True)
class Scenario:
    name: str
    what: str
    chunker: object
    edits: tuple[str, ...] = ()
    edited_share: float = 0.0
    rename: bool = False


SCENARIOS = [
    Scenario("identity", "the same chunks under a new name", v1_chunker),
    Scenario("smaller", "paragraphs packed to 350 characters", lambda t: S.paragraphs(t, 350)),
    Scenario("larger", "paragraphs packed to 1,400 characters", lambda t: S.paragraphs(t, 1400)),
    Scenario(
        "overlap", "windows of 500 characters, 100 overlapping", lambda t: S.windows(t, 500, 100)
    ),
    Scenario(
        "sentences", "sentences packed to 300 characters", lambda t: S.sentences_packed(t, 300)
    ),
    Scenario("insert", "3 sentences inserted in 60 % of documents", v1_chunker, ("insert",), 0.6),
    Scenario("remove", "2 sentences removed in 60 % of documents", v1_chunker, ("remove",), 0.6),
    Scenario("rewrite", "3 sentences reworded in 60 % of documents", v1_chunker, ("rewrite",), 0.6),
    Scenario(
        "answer removed",
        "a sentence holding an answer removed, in every document with one",
        v1_chunker,
        ("remove-answer",),
        1.0,
    ),
    Scenario(
        "whitespace", "blank lines and spaces changed in 60 %", v1_chunker, ("whitespace",), 0.6
    ),
    Scenario("move", "a section moved in 60 % of documents", v1_chunker, ("move",), 0.6),
    Scenario(
        "mixed",
        "all five edits in 60 %, then sentences to 300",
        lambda t: S.sentences_packed(t, 300),
        ("insert", "remove", "rewrite", "whitespace", "move"),
        0.6,
    ),
    Scenario(
        "renamed",
        "all edits in 60 %, every document id changed, 350",
        lambda t: S.paragraphs(t, 350),
        ("insert", "remove", "rewrite", "whitespace", "move"),
        0.6,
        True,
    ),
]


# the labelled base ------------------------------------------------------------------------


def bench_labels(chunks: list[dict], documents: dict[str, str]) -> tuple[list[str], list[str]]:
    """qrels lines (one reviewer, every question) and the unanswerable question ids."""
    by_doc = defaultdict(list)
    for chunk in chunks:
        by_doc[chunk["doc_id"]].append(chunk)
    pools: dict[str, set[str]] = defaultdict(set)
    for run in sorted((DEMO / "runs").glob("*.trec")):
        for line in run.read_text(encoding="utf-8").splitlines():
            qid, _, chunk_id, rank, *_ = line.split()
            if int(rank) <= POOL_DEPTH:
                pools[qid].add(chunk_id)
    lines, unanswerable = [], []
    for q in QUESTIONS:
        grades: dict[str, int] = {}
        for doc_id, quote, grade in q.get("relevant", []):
            start = documents[doc_id].index(quote)
            end = start + len(quote)
            for c in by_doc[doc_id]:
                if c["start"] < end and start < c["end"]:
                    grades[c["id"]] = max(grade, grades.get(c["id"], 0))
        for chunk_id in sorted(pools[q["id"]]):
            grades.setdefault(chunk_id, 0)
        if not q.get("relevant"):
            unanswerable.append(q["id"])
        lines += [f"{q['id']} 0 {c} {g}" for c, g in sorted(grades.items())]
    return lines, unanswerable


def build_base(folder: Path) -> Path:
    db = folder / "base.db"
    documents = {d["id"]: d["text"] for d in read_jsonl(DEMO / "documents.jsonl")}
    chunks = read_jsonl(DEMO / "chunks.jsonl")
    with Store(db) as store:
        store.corpus.upsert_documents(read_jsonl(DEMO / "documents.jsonl"))
        import_chunks(store, DEMO / "chunks.jsonl", chunking="v1")
        import_questions(store, DEMO / "questions.jsonl")
        lines, unanswerable = bench_labels(chunks, documents)
        qrels = folder / "bench.qrels"
        qrels.write_text("\n".join(lines) + "\n", encoding="utf-8")
        import_qrels(store, qrels, reviewer=REVIEWER, chunking="v1")
        for qid in unanswerable:
            mark(store, qid, REVIEWER, unanswerable=True, chunking="v1")
    return db


# one scenario -------------------------------------------------------------------------------


@dataclass
class Built:
    db: Path
    edited: dict[str, S.EditedDocument]  # by old doc id
    new_id: dict[str, str]
    chunks: dict[str, list[dict]]  # by new doc id, by start


def build_scenario(base: Path, folder: Path, scenario: Scenario) -> Built:
    db = folder / f"{scenario.name}.db"
    shutil.copyfile(base, db)
    documents = read_jsonl(DEMO / "documents.jsonl")
    edited, new_id, chunks = {}, {}, {}
    doc_rows, chunk_rows = [], []
    for index, doc in enumerate(documents):
        rng = random.Random(f"{scenario.name}/{doc['id']}")
        if scenario.edits and rng.random() < scenario.edited_share:
            result = S.edit(doc["id"], doc["text"], scenario.edits, rng, ANSWERS[doc["id"]])
        else:
            result = S.EditedDocument.unchanged(doc["id"], doc["text"])
        edited[doc["id"]] = result
        target = f"moved-{index:03d}" if scenario.rename else doc["id"]
        new_id[doc["id"]] = target
        doc_rows.append({"id": target, "title": doc["title"], "text": result.new_text})
        spans = scenario.chunker(result.new_text)
        chunks[target] = [
            {
                "id": f"{target}@{k}",
                "doc_id": target,
                "text": result.new_text[s:e],
                "start": s,
                "end": e,
            }
            for k, (s, e) in enumerate(spans)
        ]
        chunk_rows += chunks[target]
    with Store(db) as store:
        store.corpus.upsert_documents(doc_rows)
        store.corpus.ensure_chunking("v2")
        store.corpus.upsert_chunks("v2", chunk_rows)
    return Built(db, edited, new_id, chunks)


def quote_images(built: Built) -> dict[str, dict[str, list]]:
    """{question: {new doc id: [(grade, new spans)]}} of every quote."""
    images: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for q in QUESTIONS:
        for doc_id, quote, grade in q.get("relevant", []):
            doc = built.edited[doc_id]
            start = doc.old_text.index(quote)
            images[q["id"]][built.new_id[doc_id]].append(
                (grade, doc.image(start, start + len(quote)))
            )
    return images


def old_labels(store: Store) -> tuple[list[OldLabel], dict[tuple, Passage]]:
    """The labels as plan_remap reads them, with their passages."""
    labels, passages = [], {}
    for qid, chunk_id, reviewer, grade, note, text, doc_id, start, end in store.remaps.remap_labels(
        "v1"
    ):
        passage = Passage.of(chunk_id, text, doc_id, start, end)
        passages.setdefault(passage.key, passage)
        labels.append(OldLabel("label", qid, reviewer, chunk_id, grade, note, passage.key))
    return labels, passages


def perfect_evidence(built: Built, passages: dict[tuple, Passage]) -> dict[tuple, tuple]:
    """Coverage and containment counted from where every old character went."""
    ranks: dict[str, list[int]] = {}
    for doc_chunks in built.chunks.values():
        for c in doc_chunks:
            ranks[c["id"]] = [c["start"] + i for i, ch in enumerate(c["text"]) if not ch.isspace()]
    evidence = {}
    for key, p in passages.items():
        doc = built.edited[p.doc_id]
        copied = doc.copied(p.start, p.end)
        size = sum(1 for ch in p.text if not ch.isspace())
        found = []
        for c in built.chunks[built.new_id[p.doc_id]]:
            inside = S.in_range(copied, c["start"], c["end"])
            if not inside or not ranks[c["id"]]:
                continue
            positions = ranks[c["id"]]
            local = [bisect_left(positions, x) for x in inside]
            method = "identical" if c["text"] == p.text else "offsets"
            found.append(
                Evidence(
                    c["id"],
                    method,
                    len(inside) / size,
                    len(inside) / len(positions),
                    100.0,
                    tuple(S.spans_of(local)),
                    len(positions),
                    (c["doc_id"], c["start"], c["id"]),
                )
            )
        evidence[key] = tuple(found)
    return evidence


def bench_pointers(built: Built):
    """``rules.Pointers`` from the demo's question texts and answers and the new chunks' texts,
    as ``plan_remap`` works them out from the store."""
    wanted = {q["id"]: terms(f"{q['question']} {q.get('answer') or ''}") for q in QUESTIONS}
    texts = {c["id"]: c["text"] for cs in built.chunks.values() for c in cs}
    return lambda question, chunk: term_share(wanted.get(question, frozenset()), texts[chunk])


def offered_right(mappings, images, chunk_spans) -> tuple[int, int]:
    """Proposals of positive labels queued in pieces (split, partial, edited, or "elsewhere"
    after the pointer rule) whose offered grade is the new chunk's true grade: accepted as
    offered (the default key), they would be right. (right, proposals)"""
    right = total = 0
    for m in mappings:
        if m.kind != "label" or m.decision != "queued" or m.old_grade == 0:
            continue
        if m.reason not in (*PIECES, "elsewhere"):
            continue
        doc_id, start, end = chunk_spans[m.new_chunk]
        total += 1
        right += m.grade == S.truth_grade(images[m.question_id].get(doc_id, []), start, end)
    return right, total


def applied_targets(mappings) -> dict[tuple, tuple[int, str]]:
    return {
        (m.question_id, m.reviewer, m.new_chunk): (m.grade, m.method)
        for m in mappings
        if m.kind == "label" and m.decision == "applied"
    }


def judge(built: Built, mappings, images, chunk_spans) -> tuple[int, int, Counter, list]:
    applied = applied_targets(mappings)
    correct, wrong = 0, []
    by_method = Counter()
    for (qid, _, chunk_id), (grade, method) in applied.items():
        doc_id, start, end = chunk_spans[chunk_id]
        truth = S.truth_grade(images[qid].get(doc_id, []), start, end)
        if truth == grade:
            correct += 1
            by_method[method, "ok"] += 1
        else:
            wrong.append((qid, chunk_id, grade, truth, method))
            by_method[method, "wrong"] += 1
    return correct, len(applied), by_method, wrong


def evaluate(scenario: Scenario, base: Path, folder: Path, *, methods=None, aligner="words"):
    built = build_scenario(base, folder, scenario)
    chunk_spans = {
        c["id"]: (c["doc_id"], c["start"], c["end"]) for cs in built.chunks.values() for c in cs
    }
    images = quote_images(built)
    with Store(built.db) as store:
        labels, passages = old_labels(store)
        kwargs = {"aligner": aligner}
        if methods:
            kwargs["methods"] = methods
        cpu, wall = time.process_time(), time.perf_counter()
        plan = plan_remap(store, "v1", "v2", **kwargs)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    evidence = perfect_evidence(built, passages)
    perfect = decide(labels, evidence)
    pointed = decide(labels, evidence, pointers=bench_pointers(built))
    offered_before = offered_right(perfect, images, chunk_spans)
    offered_after = offered_right(pointed, images, chunk_spans)
    offered_plan = offered_right(plan.mappings, images, chunk_spans)
    decidable = applied_targets(perfect)
    found = applied_targets(plan.mappings)
    correct, applied, by_method, wrong = judge(built, plan.mappings, images, chunk_spans)
    rule_correct, rule_applied, _, rule_wrong = judge(built, perfect, images, chunk_spans)
    recalled = sum(1 for t, (g, _) in decidable.items() if found.get(t, (None,))[0] == g)
    queued = [m for m in plan.label_mappings() if m.decision == "queued"]
    return {
        "scenario": scenario.name,
        "what": scenario.what,
        "labels": plan.labels,
        "applied": applied,
        "precision": correct / applied if applied else 1.0,
        "wrong": wrong,
        "decidable": len(decidable),
        "recall": recalled / len(decidable) if decidable else 1.0,
        "extra": len(set(found) - set(decidable)),
        "queued": len(queued),
        "queue_items": len({(m.question_id, m.new_chunk) for m in queued}),
        "lost": sum(1 for m in plan.label_mappings() if m.decision == "lost"),
        "by_method": by_method,
        "rule_precision": rule_correct / rule_applied if rule_applied else 1.0,
        "offered_before": offered_before,
        "offered_after": offered_after,
        "offered_plan": offered_plan,
        "rule_wrong": rule_wrong,
        "wall": wall,
        "cpu": cpu,
        "searches": plan.searches,
    }


def percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def run_accuracy(folder: Path, base: Path, *, verbose: bool) -> list[dict]:
    print("\n## Accuracy (all methods, default aligner)\n")
    print(
        "| scenario | what | labels | applied | precision | recall | queued (items) | lost |"
        " by method (applied) | rules' own precision | s |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    results = []
    for scenario in SCENARIOS:
        r = evaluate(scenario, base, folder)
        results.append(r)
        methods = ", ".join(
            f"{m} {r['by_method'][m, 'ok'] + r['by_method'][m, 'wrong']}"
            for m in ("identical", "offsets", "fuzzy")
            if r["by_method"][m, "ok"] + r["by_method"][m, "wrong"]
        )
        print(
            f"| {r['scenario']} | {r['what']} | {r['labels']} | {r['applied']} |"
            f" {percent(r['precision'])} | {percent(r['recall'])} of {r['decidable']} |"
            f" {r['queued']} ({r['queue_items']}) | {r['lost']} | {methods} |"
            f" {percent(r['rule_precision'])} | {r['wall']:.2f} |"
        )
        if verbose:
            for w in r["wrong"][:10]:
                print(f"    wrong: {w}")
            for w in r["rule_wrong"][:5]:
                print(f"    rule wrong: {w}")
    print(
        "\nProposals of a positive label's pieces (split, partial, edited) accepted as offered"
        " (A): right / proposals, perfect evidence without the pointer rule -> with it;"
        " the real remap with it\n"
    )
    print("| scenario | before | after | real remap |")
    print("| --- | ---: | ---: | ---: |")
    for r in results:
        cells = [
            f"{right}/{total} ({percent(right / total) if total else '-'})"
            for right, total in (r["offered_before"], r["offered_after"], r["offered_plan"])
        ]
        print(f"| {r['scenario']} | " + " | ".join(cells) + " |")
    sums = [
        tuple(sum(r[k][i] for r in results) for i in (0, 1))
        for k in ("offered_before", "offered_after", "offered_plan")
    ]
    print(
        "all scenarios: "
        + ", ".join(
            f"{name} {right}/{total} ({percent(right / total) if total else '-'})"
            for name, (right, total) in zip(("before", "after", "real"), sums, strict=True)
        )
    )
    worst_precision = min(r["precision"] for r in results)
    worst_recall = min(r["recall"] for r in results)
    print(
        f"\nprecision, worst scenario: {percent(worst_precision)} (goal 100 %):"
        f" {'PASS' if worst_precision == 1.0 else 'MISS'}"
    )
    print(
        f"recall, worst scenario: {percent(worst_recall)} (goal >= 97 %):"
        f" {'PASS' if worst_recall >= 0.97 else 'MISS'}"
    )
    return results


def run_aligners(folder: Path, base: Path) -> None:
    print("\n## Aligners, fuzzy method alone (no hash, no offsets)\n")
    names = list(ALIGNERS)
    print("| scenario | " + " | ".join(f"{n}: precision / recall / s" for n in names) + " |")
    print("| --- | " + " | ".join("---" for _ in names) + " |")
    totals = {n: Counter() for n in names}
    for scenario in SCENARIOS:
        cells = []
        for name in names:
            r = evaluate(scenario, base, folder, methods=("fuzzy",), aligner=name)
            cells.append(f"{percent(r['precision'])} / {percent(r['recall'])} / {r['wall']:.2f}")
            t = totals[name]
            t["applied"] += r["applied"]
            t["correct"] += round(r["precision"] * r["applied"])
            t["decidable"] += r["decidable"]
            t["recalled"] += round(r["recall"] * r["decidable"])
            t["wall"] += r["wall"]
        print(f"| {scenario.name} | " + " | ".join(cells) + " |")
    cells = []
    for name in names:
        t = totals[name]
        cells.append(
            f"{percent(t['correct'] / max(t['applied'], 1))} /"
            f" {percent(t['recalled'] / max(t['decidable'], 1))} / {t['wall']:.2f}"
        )
    print("| **all** | " + " | ".join(cells) + " |")


# speed ------------------------------------------------------------------------------------


SPEED_SCRIPT = """
import json, resource, sys, time
from labeler.cli import main
start, cpu = time.perf_counter(), time.process_time()
try:
    main(sys.argv[1:])
except SystemExit:
    pass
figures = {
    "wall": time.perf_counter() - start,
    "cpu": time.process_time() - cpu,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}
print(json.dumps(figures), file=sys.stderr)
"""


def synthetic_documents(count: int, rng: random.Random) -> list[dict]:
    """``count`` documents of ten paragraphs of four to seven sentences, each sentence 8 to 20
    words from a Zipf-like 20,000-word vocabulary with English function words mixed in."""
    vocabulary = [f"w{i}" for i in range(20_000)]
    cumulative, total = [], 0.0
    for i in range(len(vocabulary)):
        total += 1 / (i + 10)
        cumulative.append(total)
    common = "the of and to a in is that for it as with be on not this are by at".split()

    def sentence() -> str:
        words = rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(8, 20))
        words = [rng.choice(common) if rng.random() < 0.4 else w for w in words]
        return " ".join(words).capitalize() + "."

    pool = [sentence() for _ in range(60_000)]
    documents = []
    for d in range(count):
        paragraphs = [
            " ".join(rng.choice(pool) for _ in range(rng.randint(4, 7))) + f" Ref {d}-{k}."
            for k in range(10)
        ]
        documents.append(
            {"id": f"doc{d:06d}", "title": f"Document {d}", "text": "\n\n".join(paragraphs)}
        )
    return documents


def chunk_rows(doc_id: str, text: str, spans, mark: str) -> list[dict]:
    return [
        {"id": f"{doc_id}{mark}{k}", "doc_id": doc_id, "text": text[s:e], "start": s, "end": e}
        for k, (s, e) in enumerate(spans)
    ]


def run_speed(folder: Path, labelled: int, new: int, seed: int) -> None:
    print(f"\n## Speed: {labelled:,} labelled chunks onto about {new:,} new chunks\n")
    started = time.perf_counter()
    rng = random.Random(seed)
    documents = synthetic_documents(max(1, labelled // 10), rng)
    target = max(120, int(500 * labelled / new))
    v1, v2, new_documents, edited = [], [], [], 0
    for doc in documents:
        text = doc["text"]
        v1 += chunk_rows(doc["id"], text, [S._trim(text, *b) for b in S.blocks(text)], "#")
        if rng.random() < 0.2:
            edited += 1
            text = S.edit(
                doc["id"], text, ("insert", "remove", "rewrite", "whitespace"), rng
            ).new_text
        new_documents.append({**doc, "text": text})
        v2 += chunk_rows(doc["id"], text, S.paragraphs(text, target), "@")
    questions = [{"id": f"q{i:05d}", "text": f"question {i}"} for i in range(len(v1) // 10 + 1)]
    qrels = [
        f"q{i // 10:05d} 0 {row['id']} {rng.choice((0, 0, 1, 2))}"
        for i, row in enumerate(v1[:labelled])
    ]
    print(
        f"generated {len(documents):,} documents ({edited:,} edited), {len(v1):,} v1 chunks,"
        f" {len(v2):,} v2 chunks, {len(qrels):,} labels in {time.perf_counter() - started:.0f} s"
    )
    db = folder / "speed.db"
    for path in folder.glob("speed.db*"):
        path.unlink()
    started = time.perf_counter()
    with Store(db) as store:
        store.corpus.upsert_documents(documents)
        store.corpus.ensure_chunking("v1")
        for k in range(0, len(v1), 20_000):
            store.corpus.upsert_chunks("v1", v1[k : k + 20_000])
        store.questions.upsert(questions)
        qrels_path = folder / "speed.qrels"
        qrels_path.write_text("\n".join(qrels) + "\n", encoding="utf-8")
        import_qrels(store, qrels_path, reviewer="speed", chunking="v1")
        store.corpus.upsert_documents(new_documents)
        store.corpus.ensure_chunking("v2")
        for k in range(0, len(v2), 20_000):
            store.corpus.upsert_chunks("v2", v2[k : k + 20_000])
        # The remap below starts from a database at rest, as a user's would be.
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(f"database built in {time.perf_counter() - started:.0f} s")

    command = [sys.executable, "-c", SPEED_SCRIPT, "remap", "--from", "v1", "--to", "v2"]
    command += ["--db", str(db)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for attempt in ("remap", "the same remap again (writes nothing)"):
        load = os.getloadavg()
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        figures = json.loads(done.stderr.strip().splitlines()[-1])
        if attempt == "remap":
            print("\n".join(done.stdout.splitlines()[:6]))
        print(
            f"{attempt}: {figures['wall']:.1f} s wall, {figures['cpu']:.1f} s CPU, peak memory"
            f" {figures['rss_mb']:.0f} MB (the whole process); load average"
            f" {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after"
        )
        if attempt == "remap":
            print(f"under 60 s: {'PASS' if figures['wall'] < 60 else 'MISS'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "part", nargs="?", default="all", choices=["all", "accuracy", "aligners", "speed"]
    )
    parser.add_argument("--labelled", type=int, default=100_000)
    parser.add_argument("--new", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--verbose", action="store_true", help="list the wrong decisions")
    parser.add_argument("--work", default=None, help="work folder (default: a temporary one)")
    args = parser.parse_args()
    folder = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-remap-"))
    folder.mkdir(parents=True, exist_ok=True)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average at start: {load}; work folder {folder}")
    if args.part in ("all", "accuracy", "aligners"):
        base = build_base(folder)
        if args.part in ("all", "accuracy"):
            run_accuracy(folder, base, verbose=args.verbose)
        if args.part in ("all", "aligners"):
            run_aligners(folder, base)
    if args.part in ("all", "speed"):
        run_speed(folder, args.labelled, args.new, args.seed)
    if not args.work:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
