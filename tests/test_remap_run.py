"""Applying a remap: carried labels with provenance, old labels untouched, idempotence, a redo
after a threshold change, marks and adjudications, dry runs, export on the new chunking, and
the input it refuses."""

from __future__ import annotations

import json

import pytest

from labeler.errors import LabelerError
from labeler.export import export_testset
from labeler.grading.disputes import adjudicate
from labeler.grading.labeling import mark
from labeler.remap import apply_remap, mapping_csv, plan_remap, remap
from labeler.store import Store
from tests.conftest import table_counts
from tests.remap_helpers import BOTH, P_GIFT, P_OPENED, P_PAYS, P_UNOPENED, grade, setup

REMAP_TABLES = ("remaps", "remap_mappings")


def everything(store: Store) -> dict:
    counts = table_counts(store)
    counts.update({t: store.scalar(f"SELECT count(*) FROM {t}") for t in REMAP_TABLES})
    counts["adjudications"] = store.scalar("SELECT count(*) FROM adjudications")
    counts["remaps_at"] = store.scalar("SELECT group_concat(updated_at) FROM remaps")
    return counts


@pytest.fixture
def merged(store: Store) -> Store:
    """v1: two paragraphs and a gift-card paragraph; v2: the two merged, gift cards kept."""
    setup(store, {"a": P_UNOPENED, "b": P_OPENED, "g": P_GIFT}, {"m": BOTH, "x": P_GIFT})
    grade(store, "q1", "a", 2, reviewer="maria")
    grade(store, "q1", "b", 2, reviewer="maria")
    grade(store, "q3", "g", 2, reviewer="tom")
    grade(store, "q3", "a", 0, reviewer="tom")
    store.labels.set_grade("q3", "v1", "g", "tom", 2, note="says so in the first line")
    return store


def labels(store: Store, chunking: str) -> list[tuple]:
    return [
        (r["question_id"], r["chunk_id"], r["reviewer"], r["grade"], r["note"])
        for r in store.query(
            "SELECT * FROM labels WHERE chunking = ? ORDER BY question_id, chunk_id, reviewer",
            (chunking,),
        )
    ]


def test_carried_labels_keep_their_reviewer_note_and_provenance(merged: Store) -> None:
    before = labels(merged, "v1")
    result = remap(merged, "v1", "v2")
    assert labels(merged, "v2") == [
        ("q1", "m", "maria", 2, None),
        ("q3", "x", "tom", 2, "says so in the first line"),
    ]
    assert labels(merged, "v1") == before  # old labels are never changed
    assert (result.labels_added, result.plan.counts()["queued"]) == (2, 1)
    history = merged.labels.history("q1", "v2")
    assert [(e["chunk_id"], e["reviewer"], e["action"], e["new_grade"]) for e in history] == [
        ("m", "maria", "remap", 2)
    ]
    assert history[0]["note"].startswith("remap v1 -> v2: from a (offsets; coverage 1.00")
    assert history[0]["note"].endswith("and 1 more")
    provenance = merged.remaps.label_provenance("q1", "v2", "m", "maria")
    assert [(p["old_chunk_id"], p["method"], p["coverage"], p["decision"]) for p in provenance] == [
        ("a", "offsets", 1.0, "applied"),
        ("b", "offsets", 1.0, "applied"),
    ]
    # The carried label holds the new chunk's passage, ready for the next re-chunking.
    row = merged.query("SELECT passage_text, start FROM labels WHERE chunking = 'v2'")[0]
    assert row["passage_text"] == BOTH


def test_the_same_remap_twice_changes_nothing(merged: Store) -> None:
    remap(merged, "v1", "v2")
    before = everything(merged)
    again = remap(merged, "v1", "v2")
    assert not again.changed
    assert again.labels_present == 2
    assert everything(merged) == before


def test_a_dry_run_writes_nothing_and_says_what_it_would(merged: Store) -> None:
    before = everything(merged)
    result = remap(merged, "v1", "v2", dry_run=True)
    assert everything(merged) == before
    assert (result.dry_run, result.labels_added) == (True, 2)
    assert remap(merged, "v1", "v2").labels_added == 2


def test_a_redo_with_a_stricter_threshold_withdraws_what_it_no_longer_carries(
    store: Store,
) -> None:
    setup(store, {"a": BOTH, "b": P_PAYS}, {"x": P_UNOPENED + "\n\n" + P_OPENED[:40], "y": P_PAYS})
    grade(store, "q1", "a", 2)
    grade(store, "q2", "b", 1)
    lax = remap(store, "v1", "v2", min_coverage=0.6)
    assert lax.labels_added == 2
    strict = remap(store, "v1", "v2")
    assert strict.labels_withdrawn == 1
    assert labels(store, "v2") == [("q2", "y", "maria", 1, None)]
    assert [e["action"] for e in store.labels.history("q1", "v2")] == ["remap", "unremap"]
    queued = [m for m in strict.plan.mappings if m.decision == "queued"]
    assert [(m.old_chunk, m.new_chunk) for m in queued] == [("a", "x")]


def test_a_redo_never_withdraws_a_label_a_reviewer_changed(store: Store) -> None:
    setup(store, {"a": BOTH}, {"x": P_UNOPENED + "\n\n" + P_OPENED[:40]})
    grade(store, "q1", "a", 2)
    remap(store, "v1", "v2", min_coverage=0.6)
    store.labels.set_grade("q1", "v2", "x", "maria", 1)
    strict = remap(store, "v1", "v2")
    assert strict.labels_withdrawn == 0
    assert labels(store, "v2") == [("q1", "x", "maria", 1, None)]


def test_a_redo_follows_an_old_label_regraded_since(merged: Store) -> None:
    remap(merged, "v1", "v2")
    grade(merged, "q3", "g", 1, reviewer="tom")
    again = remap(merged, "v1", "v2")
    assert again.labels_regraded == 1
    assert ("q3", "x", "tom", 1, "says so in the first line") in labels(merged, "v2")
    history = merged.labels.history("q3", "v2")
    assert [(e["action"], e["old_grade"], e["new_grade"]) for e in history] == [
        ("remap", None, 2),
        ("remap", 2, 1),
    ]
    assert not remap(merged, "v1", "v2").changed


def test_a_label_already_in_the_new_chunking_is_never_overwritten(merged: Store) -> None:
    merged.labels.set_grade("q1", "v2", "m", "maria", 1)
    result = remap(merged, "v1", "v2")
    assert (result.labels_added, result.labels_kept) == (1, 1)
    assert ("q1", "m", "maria", 1, None) in labels(merged, "v2")


def test_unanswerable_marks_carry_with_the_question(merged: Store) -> None:
    mark(merged, "q2", "tom", unanswerable=True, chunking="v1")
    assert remap(merged, "v1", "v2").marks_carried == 1
    assert merged.labels.marks("q2", "v2") == {"tom": {"unanswerable": True, "skipped": False}}
    # Someone takes the mark back in v2: a redo does not set it again.
    mark(merged, "q2", "tom", unanswerable=False, chunking="v2")
    assert remap(merged, "v1", "v2").marks_carried == 0
    assert merged.labels.marks("q2", "v2")["tom"]["unanswerable"] is False


def test_adjudications_carry_with_their_labels(merged: Store) -> None:
    grade(merged, "q3", "g", 1, reviewer="ana")
    adjudicate(merged, "q3", "g", 2, "lead", chunking="v1")
    adjudicate(merged, "q1", "a", 1, "lead", chunking="v1")
    result = remap(merged, "v1", "v2")
    assert merged.adjudications.current("v2") == {("q3", "x"): 2}
    assert result.adjudications_added == 1
    # q1's adjudication was on one passage of the merged chunk: it does not carry alone.
    counts = result.plan.counts()["adjudications"]
    assert counts == {"total": 2, "applied": 1, "not_carried": 1}
    history = merged.labels.history("q3", "v2")
    assert ("lead", "remap", 2) in [(e["reviewer"], e["action"], e["new_grade"]) for e in history]


def test_export_works_on_the_new_chunking_and_records_it(merged: Store, tmp_path) -> None:
    remap(merged, "v1", "v2")
    result = export_testset(merged, "returns", out=tmp_path, chunking="v2")
    manifest = json.loads((result.path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["chunking"] == "v2"
    qrels = (result.path / "qrels.tsv").read_text(encoding="utf-8").split("\n")
    assert [line for line in qrels if line] == ["q1\t0\tm\t2", "q3\t0\tx\t2"]


def test_the_mapping_report_lists_every_mapping(merged: Store) -> None:
    plan = plan_remap(merged, "v1", "v2")
    lines = mapping_csv(plan).splitlines()
    assert lines[0] == (
        "question,reviewer,old_chunk,new_chunk,grade,method,coverage,containment,similarity,"
        "decision,reason,kind,old_grade"
    )
    assert lines[1:] == [
        "q1,maria,a,m,2,offsets,1.0000,0.4884,100.00,applied,contains,label,2",
        "q1,maria,b,m,2,offsets,1.0000,0.5116,100.00,applied,contains,label,2",
        "q3,tom,a,m,0,offsets,1.0000,0.4884,100.00,queued,unseen,label,0",
        "q3,tom,g,x,2,identical,1.0000,1.0000,100.00,applied,identical,label,2",
    ]


def test_the_mapping_report_neutralises_formulas(store: Store) -> None:
    """#19 item 6: reviewers and ids starting with =, +, - or @ reached the report as they
    were, for a spreadsheet to run; the figures stay numbers."""
    setup(store, {"=a": P_UNOPENED, "+b": P_OPENED}, {"-m": BOTH})
    grade(store, "q1", "=a", 2, reviewer="@bob")
    lines = mapping_csv(plan_remap(store, "v1", "v2")).splitlines()
    assert lines[1] == "q1,'@bob,'=a,'-m,2,offsets,1.0000,0.4884,100.00,applied,contains,label,2"


def test_the_json_report_has_exactly_the_documented_shape(merged: Store) -> None:
    data = apply_remap(merged, plan_remap(merged, "v1", "v2"), dry_run=True).as_json()
    assert list(data) == ["applied", "queued", "lost", "by_method", "mappings"]
    assert (data["applied"], data["queued"], data["lost"]) == (3, 1, 0)
    assert data["by_method"] == {"identical": 1, "offsets": 2, "fuzzy": 0}
    assert list(data["mappings"][0]) == [
        "question",
        "reviewer",
        "old_chunk",
        "new_chunk",
        "grade",
        "method",
        "coverage",
        "containment",
        "similarity",
        "decision",
    ]


# bad input: a clear error, and nothing written ----------------------------------------------


@pytest.mark.parametrize(
    ("source", "target", "coverage", "message"),
    [
        ("v0", "v2", 0.95, "field \"from\": no chunking named 'v0'; known: 'v1', 'v2'"),
        ("v1", "nope", 0.95, "field \"to\": no chunking named 'nope'; known: 'v1', 'v2'"),
        ("v1", "v1", 0.95, "are the same chunking ('v1')"),
        ("v1", "v2", 1.5, 'field "min-coverage": expected a share between 0.5 and 1.0, got 1.5'),
    ],
)
def test_bad_requests_are_refused(merged: Store, source, target, coverage, message) -> None:
    before = everything(merged)
    with pytest.raises(LabelerError) as error:
        remap(merged, source, target, min_coverage=coverage)
    assert message in str(error.value)
    assert everything(merged) == before


def test_a_new_chunking_naming_an_unknown_document_is_refused(merged: Store) -> None:
    merged.corpus.upsert_chunks("v2", [{"id": "z", "doc_id": "handbook-2025", "text": "New text."}])
    before = everything(merged)
    with pytest.raises(LabelerError) as error:
        remap(merged, "v1", "v2")
    assert str(error.value) == (
        "field \"doc_id\": chunk 'z' of 'v2' names document 'handbook-2025', which is not in the"
        " database; import the new chunking's documents first (labeler import documents)"
    )
    assert everything(merged) == before


def test_a_new_chunking_cut_from_another_version_of_its_document_is_refused(
    merged: Store,
) -> None:
    merged.corpus.upsert_chunks(
        "v2", [{"id": "m", "doc_id": "returns", "text": BOTH.upper(), "start": 11, "end": 142}]
    )
    before = everything(merged)
    with pytest.raises(LabelerError, match="'m' of 'v2' is not the text of document 'returns'"):
        remap(merged, "v1", "v2")
    assert everything(merged) == before


def test_without_any_document_the_remap_works_on_chunk_text_alone(store: Store) -> None:
    store.questions.upsert([{"id": "q1", "text": "How long?"}])
    store.corpus.ensure_chunking("v1")
    store.corpus.upsert_chunks("v1", [{"id": "a", "doc_id": "d", "text": P_UNOPENED}])
    store.corpus.ensure_chunking("v2")
    store.corpus.upsert_chunks("v2", [{"id": "m", "doc_id": "d", "text": BOTH}])
    store.labels.set_grade("q1", "v1", "a", "maria", 2)
    (m,) = plan_remap(store, "v1", "v2").mappings
    assert (m.new_chunk, m.decision, m.method, m.coverage) == ("m", "applied", "fuzzy", 1.0)


# a killed remap and its report (#19 item 10) ------------------------------------------------

KILL_TRIALS = 10


def _large_remap(path) -> int:
    """A database whose remap v1 -> v2 carries every label by identical text: 600 documents of
    four paragraphs, the same paragraphs under new ids in v2, 2,400 questions graded on two
    chunks each. Returns the labels."""
    import random

    rng = random.Random(19)
    words = "order refund parcel courier invoice stock label return postage member".split()
    with Store(path) as store:
        store.corpus.ensure_chunking("v1")
        store.corpus.ensure_chunking("v2")
        v1, v2 = [], []
        for d in range(600):
            for p in range(4):
                text = f"Doc {d} part {p}: " + " ".join(rng.choice(words) for _ in range(30))
                v1.append({"id": f"a{d}-{p}", "doc_id": f"d{d}", "text": text})
                v2.append({"id": f"b{d}-{p}", "doc_id": f"d{d}", "text": text})
        store.corpus.upsert_chunks("v1", v1)
        store.corpus.upsert_chunks("v2", v2)
        store.questions.upsert([{"id": f"q{n}", "text": f"Question {n}?"} for n in range(2400)])
        rows = [
            (line, f"q{n}", f"a{(n + k) % 600}-{k}", (n + k) % 3)
            for line, (n, k) in enumerate(((n, k) for n in range(2400) for k in (0, 1)), start=1)
        ]
        store.labels.stage_labels(rows)
        store.labels.merge_staged_labels("v1", "maria")
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return len(rows)


def _held(path) -> tuple[int, int]:
    """(remap records, labels the remap carried into v2) that the database holds."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        runs = conn.execute("SELECT count(*) FROM remaps").fetchone()[0]
        carried = conn.execute(
            "SELECT count(*) FROM labels WHERE chunking = 'v2' AND reviewer = 'maria'"
        ).fetchone()[0]
        return runs, carried
    finally:
        conn.close()


def _claimed(report) -> int:
    import csv

    with open(report, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return sum(1 for r in rows if r["kind"] == "label" and r["decision"] == "applied")


def test_a_killed_remap_leaves_no_report_claiming_what_the_database_does_not_hold(
    tmp_path,
) -> None:
    """A real `labeler remap --report` killed with SIGKILL at points spread over its run: every
    report left behind says only what the database holds (it is written after the commit)."""
    import random
    import shutil
    import signal
    import subprocess
    import sys
    import time

    base = tmp_path / "base.db"
    labels = _large_remap(base)

    def start(db, report):
        command = [sys.executable, "-m", "labeler", "remap", "--from", "v1", "--to", "v2"]
        return subprocess.Popen(
            [*command, "--report", str(report), "--db", str(db)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    # A whole run, timed: the report then claims exactly what the database holds.
    whole = tmp_path / "whole.db"
    shutil.copy(base, whole)
    began = time.monotonic()
    assert start(whole, tmp_path / "whole.csv").wait(timeout=600) == 0
    seconds = time.monotonic() - began
    assert _held(whole) == (1, labels)
    assert _claimed(tmp_path / "whole.csv") == labels
    assert (tmp_path / "whole.csv").stat().st_mode & 0o777 == 0o644 & ~_umask()

    rng = random.Random(10)
    outcomes = []
    for trial in range(KILL_TRIALS):
        db, report = tmp_path / f"t{trial}.db", tmp_path / f"t{trial}.csv"
        shutil.copy(base, db)
        process = start(db, report)
        time.sleep(seconds * (trial + rng.random()) / KILL_TRIALS)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        runs, carried = _held(db)
        assert (runs, carried) in ((0, 0), (1, labels)), trial  # all or nothing
        if report.exists():
            assert (runs, carried) == (1, labels), trial  # a report only over a committed remap
            assert _claimed(report) == labels
        outcomes.append((runs, report.exists()))
    # The kills landed before the commit, after it, and (but for timing) after the report.
    assert (0, False) in outcomes


def _umask() -> int:
    import os

    current = os.umask(0)
    os.umask(current)
    return current
