"""Exporting a version: the files, the manifest, hash stability, selection, consensus, and
immutability (no rewrite, no half-written version, hand edits caught)."""

import hashlib
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from labeler import __version__
from labeler.errors import LabelerError
from labeler.export import Selection, export_testset, plan_export
from labeler.grading.completeness import Requirement
from labeler.grading.consensus import DisagreementError
from labeler.store import Store
from labeler.versions import writing as testset_module
from labeler.versions.history import list_versions
from tests.conftest import retext

QUESTIONS = (
    '{"id": "q1", "question": "How should a client retry after a 429 response?",'
    ' "reference_answer": null, "tags": ["api"], "unanswerable": false}\n'
    '{"id": "q2", "question": "How do I get the next page of orders?",'
    ' "reference_answer": "Pass next_cursor.", "tags": ["api", "paging"], "unanswerable": false}\n'
    '{"id": "q3", "question": "What does error 404 mean?",'
    ' "reference_answer": null, "tags": ["errors"], "unanswerable": true}\n'
)
QRELS = "q1\t0\terror-codes\t1\nq1\t0\tpagination\t0\nq1\t0\trate-limits\t2\nq2\t0\tpagination\t2\n"
CHUNKS = (
    '{"doc_id": "api", "id": "error-codes", "text": "404 means the order does not exist. 429'
    ' means too many requests: wait and retry.", "title": "Error codes"}\n'
    '{"doc_id": "api", "id": "pagination", "text": "Use the next_cursor field to get the next'
    ' page of orders.", "title": "Pagination"}\n'
    '{"doc_id": "api", "id": "rate-limits", "text": "Each API key may send 100 requests per'
    ' minute. Extra requests return status 429 with a Retry-After header.",'
    ' "title": "Rate limits"}\n'
)


@pytest.fixture
def graded(loaded: Store) -> Store:
    """ana graded q1's three candidates and q2's answer, and marked q3 unanswerable."""
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "error-codes", "ana", 1)
    loaded.labels.set_grade("q1", "default", "pagination", "ana", 0)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 2)
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    return loaded


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_version_holds_its_files_as_documented(graded: Store, tmp_path: Path) -> None:
    result = export_testset(graded, "orders", out=tmp_path)
    assert result.status == "created"
    assert result.path == tmp_path / "orders" / "v1"
    assert listing(result.path) == [
        "chunks.jsonl",
        "completeness.jsonl",
        "manifest.json",
        "qrels.tsv",
        "questions.jsonl",
        "signature.json",
    ]
    assert (result.path / "questions.jsonl").read_text(encoding="utf-8") == QUESTIONS
    assert (result.path / "qrels.tsv").read_text(encoding="utf-8") == QRELS
    assert (result.path / "chunks.jsonl").read_text(encoding="utf-8") == CHUNKS


def test_the_manifest_describes_the_version(graded: Store, tmp_path: Path) -> None:
    path = export_testset(graded, "orders", out=tmp_path, created="2026-01-02T03:04:05Z").path
    data = manifest(path)
    # The hash, by hand: the canonical JSON of every other manifest field (files: each file's
    # sha256 and size).
    body = {k: v for k, v in data.items() if k != "content_hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert data["format"] == "labeler-testset/3"
    assert data["content_hash"] == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert set(data["files"]) == {
        "questions.jsonl",
        "qrels.tsv",
        "chunks.jsonl",
        "completeness.jsonl",
    }
    assert {k: data[k] for k in ("name", "version", "parent", "created", "chunking")} == {
        "name": "orders",
        "version": 1,
        "parent": None,
        "created": "2026-01-02T03:04:05Z",
        "chunking": "default",
    }
    assert data["tool"] == {"name": "labeler", "version": __version__}
    assert data["counts"] == {
        "questions": 3,
        "answerable": 2,
        "unanswerable": 1,
        "no_relevant_label": 0,
        "qrels": 4,
        "labels_per_grade": {"0": 1, "1": 1, "2": 2},
        "relevant": 3,
        "chunks": 3,
        "reviewers": 1,
        "adjudicated": 0,
        "settled_by_policy": 0,
        # q1's fourth bm25 result (webhooks) and q2's second are ungraded.
        "partial": 2,
        "ungraded": 2,
        "left_out": 0,
    }
    assert data["selection"] == {
        "tags": [],
        "min_reviewers": 1,
        "review_status": ["accepted"],
        "min_grade": 1,
        "policy": None,
        "require_depth": None,
        "runs": [],
        "partial": "include",
    }
    assert data["completeness"] == {
        "rule": "every candidate graded",
        "require_depth": None,
        "runs": [],
        "partial": "include",
        "left_out": [],
        "incomplete": ["q1", "q2"],
    }
    assert data["reviewers"] == ["ana"]
    assert data["changes"] is None
    assert data["files"]["qrels.tsv"] == {
        "sha256": hashlib.sha256(QRELS.encode()).hexdigest(),
        "bytes": len(QRELS),
    }


def test_exporting_again_without_change_writes_nothing(graded: Store, tmp_path: Path) -> None:
    first = export_testset(graded, "orders", out=tmp_path)
    graded.labels.set_grade("q1", "default", "rate-limits", "ana", 2, note="a note is not content")
    graded.labels.set_mark("q2", "default", "ana", mark="skipped", value=True)
    graded.questions.upsert([{"id": "q4", "text": "Not graded, so not in a test set"}])
    again = export_testset(graded, "orders", out=tmp_path)
    assert (again.status, again.version, again.path) == ("unchanged", 1, first.path)
    assert again.plan.content_key == first.plan.content_key
    assert again.as_dict()["content_hash"] == first.plan.content_hash
    assert listing(tmp_path / "orders") == ["v1"]


def test_the_same_state_exports_byte_identical_apart_from_the_time(
    graded: Store, tmp_path: Path
) -> None:
    one = export_testset(graded, "orders", out=tmp_path / "a", created="2026-01-01T00:00:00Z")
    two = export_testset(graded, "orders", out=tmp_path / "b", created="2026-06-30T12:00:00Z")
    for name in ("questions.jsonl", "qrels.tsv", "chunks.jsonl"):
        assert (one.path / name).read_bytes() == (two.path / name).read_bytes()
    lines_one = (one.path / "manifest.json").read_text().splitlines()
    lines_two = (two.path / "manifest.json").read_text().splitlines()
    differing = [(a, b) for a, b in zip(lines_one, lines_two, strict=True) if a != b]
    assert [a for a, _ in differing] == [
        f'  "content_hash": "{one.plan.content_hash}",',
        '  "created": "2026-01-01T00:00:00Z",',
    ]
    assert differing[1][1] == '  "created": "2026-06-30T12:00:00Z",'


def _replace_text_and_confirm(store: Store) -> None:
    """A chunk's new text, accepted: its labels go stale, and the reviewer confirms them."""
    store.corpus.upsert_chunks(
        "default",
        [{"id": "pagination", "text": "Use next_cursor to page."}],
        replace_text=True,
    )
    store.labels.set_grade("q1", "default", "pagination", "ana", 0)
    store.labels.set_grade("q2", "default", "pagination", "ana", 2)


CHANGES = {
    "question text": lambda s: retext(s, "q1", "How to retry a 429?"),
    "reference answer": lambda s: s.questions.upsert(
        [
            {
                "id": "q1",
                "text": "How should a client retry after a 429 response?",
                "reference_answer": "Wait for Retry-After.",
            }
        ]
    ),
    "tags": lambda s: s.questions.upsert(
        [{"id": "q2", "text": "How do I get the next page of orders?", "tags": ["paging"]}]
    ),
    "a grade": lambda s: s.labels.set_grade("q1", "default", "error-codes", "ana", 2),
    "a new label": lambda s: s.labels.set_grade("q2", "default", "webhooks", "ana", 0),
    "a chunk text": lambda s: _replace_text_and_confirm(s),
    "an unanswerable mark": lambda s: s.labels.set_mark(
        "q3", "default", "ana", mark="unanswerable", value=False
    ),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_any_change_in_content_is_a_new_hash_and_version(
    graded: Store, tmp_path: Path, change: str
) -> None:
    first = export_testset(graded, "orders", out=tmp_path)
    CHANGES[change](graded)
    second = export_testset(graded, "orders", out=tmp_path)
    assert second.status == "created"
    assert (second.version, second.plan.parent) == (2, 1)
    assert second.plan.content_key != first.plan.content_key
    assert manifest(second.path)["parent"] == 1


def test_the_manifest_says_what_changed_since_the_parent(graded: Store, tmp_path: Path) -> None:
    export_testset(graded, "orders", out=tmp_path)
    retext(graded, "q1", "How to retry a 429?", tags=["api"])
    graded.labels.set_grade("q1", "default", "error-codes", "ana", 2)  # regraded
    graded.labels.set_grade("q2", "default", "webhooks", "ana", 0)  # added
    graded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=False)  # q3 leaves
    second = export_testset(graded, "orders", out=tmp_path)
    assert manifest(second.path)["changes"] == {
        "parent": 1,
        "questions_added": 0,
        "questions_removed": 1,
        "questions_edited": 1,
        "labels_added": 1,
        "labels_removed": 0,
        "labels_regraded": 1,
        "chunks_changed": 0,
        "added": [],
        "removed": ["q3"],
        "edited": ["q1"],
        "relabelled": ["q2"],
    }


def test_selection_by_tag(graded: Store, tmp_path: Path) -> None:
    result = export_testset(graded, "paging", out=tmp_path, selection=Selection(tags=("paging",)))
    assert list(result.plan.content.questions) == ["q2"]
    assert (result.path / "qrels.tsv").read_text() == "q2\t0\tpagination\t2\n"
    assert manifest(result.path)["selection"]["tags"] == ["paging"]


def test_selection_by_number_of_reviewers(graded: Store, tmp_path: Path) -> None:
    graded.labels.set_grade("q2", "default", "pagination", "ben", 2)
    graded.labels.set_mark("q3", "default", "ben", mark="unanswerable", value=True)
    result = export_testset(graded, "two", out=tmp_path, selection=Selection(min_reviewers=2))
    assert sorted(result.plan.content.questions) == ["q2", "q3"]
    assert result.plan.counts["reviewers"] == 2


def test_only_accepted_questions_unless_pending_are_asked_for(
    graded: Store, tmp_path: Path
) -> None:
    graded.questions.upsert(
        [
            {"id": "g1", "text": "Generated, pending?", "origin": "generated"},
            {
                "id": "g2",
                "text": "Generated, rejected?",
                "origin": "generated",
                "review_status": "rejected",
            },
        ]
    )
    graded.labels.set_grade("g1", "default", "webhooks", "ana", 2)
    graded.labels.set_grade("g2", "default", "webhooks", "ana", 2)
    accepted = export_testset(graded, "a", out=tmp_path)
    assert sorted(accepted.plan.content.questions) == ["q1", "q2", "q3"]
    pending = export_testset(graded, "b", out=tmp_path, selection=Selection(include_pending=True))
    assert sorted(pending.plan.content.questions) == ["g1", "q1", "q2", "q3"]
    assert manifest(pending.path)["selection"]["review_status"] == ["accepted", "pending"]


def test_min_grade_is_recorded_not_applied(graded: Store, tmp_path: Path) -> None:
    result = export_testset(graded, "o", out=tmp_path, selection=Selection(min_grade=2))
    data = manifest(result.path)
    assert (data["min_grade"], data["counts"]["qrels"], data["counts"]["relevant"]) == (2, 4, 2)


def test_disagreements_stop_the_export_and_are_listed(graded: Store, tmp_path: Path) -> None:
    graded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    graded.labels.set_grade("q2", "default", "pagination", "ben", 1)
    with pytest.raises(DisagreementError) as caught:
        export_testset(graded, "orders", out=tmp_path)
    assert [(d.question_id, d.chunk_id) for d in caught.value.disagreements] == [
        ("q1", "rate-limits"),
        ("q2", "pagination"),
    ]
    assert not (tmp_path / "orders").exists()


@pytest.mark.parametrize(
    ("policy", "q1_grade", "q2_grade"),
    [
        ("majority", 0, 1),
        ("max", 2, 2),
        ("min", 0, 1),
        ("median", 0, 1),
    ],
)
def test_a_policy_settles_them_and_is_recorded(
    graded: Store, tmp_path: Path, policy: str, q1_grade: int, q2_grade: int
) -> None:
    graded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    graded.labels.set_grade("q2", "default", "pagination", "ben", 1)
    result = export_testset(graded, "orders", out=tmp_path, selection=Selection(policy=policy))
    assert result.plan.content.qrels["q1"]["rate-limits"] == q1_grade
    assert result.plan.content.qrels["q2"]["pagination"] == q2_grade
    data = manifest(result.path)
    assert (data["policy"], data["selection"]["policy"]) == (policy, policy)
    assert data["counts"]["settled_by_policy"] == 2


def test_an_adjudicated_grade_settles_a_disagreement(graded: Store, tmp_path: Path) -> None:
    graded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    graded.adjudications.set("q1", "default", "rate-limits", 1, "lead")
    result = export_testset(graded, "orders", out=tmp_path)
    assert result.plan.content.qrels["q1"]["rate-limits"] == 1
    assert manifest(result.path)["counts"]["adjudicated"] == 1


def test_unanswerable_against_a_grade_follows_the_policy(graded: Store, tmp_path: Path) -> None:
    graded.labels.set_mark("q2", "default", "ben", mark="unanswerable", value=True)
    with pytest.raises(DisagreementError, match="q2 / pagination: ana 2, ben unanswerable"):
        export_testset(graded, "orders", out=tmp_path)
    kept = export_testset(graded, "max", out=tmp_path, selection=Selection(policy="max"))
    assert kept.plan.content.qrels["q2"] == {"pagination": 2}
    assert not kept.plan.content.questions["q2"].unanswerable
    refused = export_testset(graded, "min", out=tmp_path, selection=Selection(policy="min"))
    assert "q2" not in refused.plan.content.qrels
    assert refused.plan.content.questions["q2"].unanswerable
    assert "q2\t" not in (refused.path / "qrels.tsv").read_text()


def test_a_crash_before_the_rename_leaves_no_version(
    graded: Store, tmp_path: Path, monkeypatch
) -> None:
    def crash(temporary: Path, target: Path) -> None:
        raise OSError("disk unplugged")

    monkeypatch.setattr(testset_module, "_publish", crash)
    with pytest.raises(OSError, match="disk unplugged"):
        export_testset(graded, "orders", out=tmp_path)
    assert listing(tmp_path / "orders") == []
    assert graded.versions.recorded("orders") == {}
    monkeypatch.undo()
    assert export_testset(graded, "orders", out=tmp_path).version == 1


def test_a_half_written_folder_from_a_killed_export_is_not_a_version(
    graded: Store, tmp_path: Path
) -> None:
    stale = tmp_path / "orders" / ".v1-killed.tmp"
    stale.mkdir(parents=True)
    (stale / "questions.jsonl").write_text('{"id": "q1"', encoding="utf-8")
    assert list_versions(tmp_path, "orders") == []
    result = export_testset(graded, "orders", out=tmp_path)
    assert result.version == 1
    assert listing(tmp_path / "orders") == [".v1-killed.tmp", "v1"]


def test_a_written_version_is_read_only_and_logged(graded: Store, tmp_path: Path) -> None:
    result = export_testset(graded, "orders", out=tmp_path)
    for path in result.path.iterdir():
        assert not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    record = graded.versions.recorded("orders")[1]
    assert record["content_hash"] == result.plan.content_hash
    assert record["path"] == str(result.path.resolve())


def test_a_hand_edited_version_stops_the_next_export(graded: Store, tmp_path: Path) -> None:
    first = export_testset(graded, "orders", out=tmp_path)
    qrels = first.path / "qrels.tsv"
    os.chmod(qrels, 0o644)
    qrels.write_text(QRELS.replace("pagination\t2", "pagination\t1"), encoding="utf-8")
    graded.labels.set_grade("q2", "default", "webhooks", "ana", 0)
    with pytest.raises(LabelerError, match=r"v1 MODIFIED: qrels\.tsv"):
        export_testset(graded, "orders", out=tmp_path)
    assert listing(tmp_path / "orders") == ["v1"]


def test_a_dry_run_writes_nothing(graded: Store, tmp_path: Path) -> None:
    result = export_testset(graded, "orders", out=tmp_path, dry_run=True)
    assert (result.status, result.version) == ("dry-run", 1)
    assert not (tmp_path / "orders").exists()
    assert graded.versions.recorded("orders") == {}


def test_versions_count_up_from_one_per_folder(graded: Store, tmp_path: Path) -> None:
    export_testset(graded, "orders", out=tmp_path / "trial")
    result = export_testset(graded, "orders", out=tmp_path / "real")
    assert (result.version, result.plan.parent) == (1, None)
    graded.labels.set_grade("q2", "default", "webhooks", "ana", 0)
    assert export_testset(graded, "orders", out=tmp_path / "real").version == 2


def test_nothing_to_export_is_a_clear_error(loaded: Store, tmp_path: Path) -> None:
    with pytest.raises(LabelerError, match="nothing to export"):
        export_testset(loaded, "orders", out=tmp_path)
    with pytest.raises(LabelerError, match="no chunking named 'v9'"):
        export_testset(loaded, "orders", out=tmp_path, chunking="v9")


def test_ids_that_trec_cannot_carry_are_refused(loaded: Store, tmp_path: Path) -> None:
    loaded.questions.upsert([{"id": "q 9", "text": "Spaces in the id?"}])
    loaded.labels.set_grade("q 9", "default", "webhooks", "ana", 1)
    with pytest.raises(LabelerError, match="'q 9' holds a space"):
        export_testset(loaded, "orders", out=tmp_path)


def test_labels_of_another_chunking_are_not_in_the_version(graded: Store, tmp_path: Path) -> None:
    graded.corpus.ensure_chunking("v2")
    graded.corpus.upsert_chunks(
        "v2", [{"id": "small-1", "text": "Each API key may send 100 requests."}]
    )
    graded.labels.set_grade("q2", "v2", "small-1", "ana", 1)
    result = export_testset(graded, "orders", out=tmp_path)
    assert "small-1" not in result.plan.content.chunks
    other = export_testset(graded, "orders-v2", out=tmp_path, chunking="v2")
    assert other.plan.content.qrels == {"q2": {"small-1": 1}}
    assert manifest(other.path)["chunking"] == "v2"


def test_the_plan_shows_the_version_an_export_would_write(graded: Store, tmp_path: Path) -> None:
    plan = plan_export(graded, "orders", out=tmp_path)
    assert (plan.version, plan.parent, plan.existing, plan.disagreements) == (1, None, None, ())
    export_testset(graded, "orders", out=tmp_path)
    assert plan_export(graded, "orders", out=tmp_path).existing == 1


def test_a_grade_on_a_chunk_gone_from_the_chunking_is_left_out_and_counted(
    graded: Store, tmp_path: Path
) -> None:
    graded.conn.execute("DELETE FROM chunks WHERE chunking = 'default' AND id = 'error-codes'")
    result = export_testset(graded, "orders", out=tmp_path)
    assert result.plan.missing_chunks == 1
    assert result.as_dict()["missing_chunks"] == 1
    assert result.plan.content.qrels["q1"] == {"pagination": 0, "rate-limits": 2}


KILLED_EXPORT = """
import os, sys, time, fcntl
folder = sys.argv[1]
os.makedirs(folder)
handle = os.open(os.path.join(folder, ".export.lock"), os.O_CREAT | os.O_RDWR, 0o600)
fcntl.flock(handle, fcntl.LOCK_EX)
with open(os.path.join(folder, "qrels.tsv"), "w") as out:
    out.write("q1\\t0\\tpart")
print("ready", flush=True)
time.sleep(60)
"""


def _holding_export(folder: Path) -> subprocess.Popen:
    """A process that started writing a version into ``folder`` and holds its lock."""
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_EXPORT, str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout.readline().strip() == "ready"
    return process


@pytest.mark.skipif(sys.platform == "win32", reason="no flock: nothing can be proven abandoned")
def test_a_killed_exports_temporary_folder_is_cleared_by_the_next(
    graded: Store, tmp_path: Path
) -> None:
    """#8 item 9: a folder is removed only when it is provably ours (our name, our files, our
    lock file) and abandoned (its lock can be taken: the process holding it is gone)."""
    folder = tmp_path / "orders"
    killed = folder / ".v1-abc123_x.tmp"
    alive = folder / ".v1-alive_1.tmp"
    foreign = folder / ".v1-notes.tmp"
    dead = _holding_export(killed)
    dead.kill()  # kill -9: no cleanup of its own
    dead.wait()
    running = _holding_export(alive)
    foreign.mkdir()
    (foreign / "my-notes.txt").write_text("not an export's", encoding="utf-8")
    try:
        result = export_testset(graded, "orders", out=tmp_path)
        assert result.status == "created"
        assert not killed.exists()
        assert alive.exists()  # its export may still finish
        assert foreign.exists()  # not ours: never touched
        assert sorted(p.name for p in result.path.iterdir()) == [
            "chunks.jsonl",
            "completeness.jsonl",
            "manifest.json",
            "qrels.tsv",
            "questions.jsonl",
            "signature.json",
        ]
    finally:
        running.kill()
        running.wait()


# completeness (#19) -------------------------------------------------------------------------
#
# The graded fixture's pools (bm25 pools to 10): q1's run ranks error-codes 1, pagination 2,
# rate-limits 3, webhooks 4, and ana graded the first three; q2's ranks pagination 1 (graded
# 2) and webhooks 2 (ungraded); q3 was marked unanswerable and has no candidates.

COMPLETENESS = [
    {
        "id": "q1",
        "candidates": 4,
        "graded": 3,
        "ungraded": 1,
        "partial": True,
        "unanswerable": False,
        "runs": {"bm25": {"pool_depth": 10, "pooled": 4, "ungraded": 1, "complete_to": 3}},
    },
    {
        "id": "q2",
        "candidates": 2,
        "graded": 1,
        "ungraded": 1,
        "partial": True,
        "unanswerable": False,
        "runs": {"bm25": {"pool_depth": 10, "pooled": 2, "ungraded": 1, "complete_to": 1}},
    },
    {
        "id": "q3",
        "candidates": 0,
        "graded": 0,
        "ungraded": 0,
        "partial": False,
        "unanswerable": True,
        "runs": {},
    },
]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "completeness.jsonl").read_text().splitlines()]


def test_each_question_records_how_deep_its_pool_is_graded(graded: Store, tmp_path: Path) -> None:
    result = export_testset(graded, "orders", out=tmp_path)
    assert records(result.path) == COMPLETENESS
    assert [c.question_id for c in result.plan.partial] == ["q1", "q2"]


def test_graded_means_a_current_grade_the_consensus_keeps(graded: Store, tmp_path: Path) -> None:
    """A grade of any reviewer counts once the consensus settles it; a stale one does not; a
    chunk added to the pool by a reviewer is a candidate like any other."""
    graded.labels.set_grade("q2", "default", "webhooks", "ben", 0)  # q2 complete now
    graded.labels.set_grade("q1", "default", "webhooks", "ben", 1)
    graded.labels.set_grade("q1", "default", "webhooks", "ana", 0)  # disagree: ungraded...
    with pytest.raises(DisagreementError):
        export_testset(graded, "x", out=tmp_path)
    settled = plan_export(graded, "x", out=tmp_path, selection=Selection(policy="max"))
    assert settled.completeness["q1"].ungraded == 0  # ...until a policy settles it
    assert settled.completeness["q2"].partial is False
    graded.corpus.upsert_chunks(  # webhooks' text replaced: its grades go stale
        "default", [{"id": "webhooks", "text": "Webhooks are signed."}], replace_text=True
    )
    stale = plan_export(graded, "x", out=tmp_path, selection=Selection(policy="max"))
    assert [(c.question_id, c.ungraded) for c in stale.partial] == [("q1", 1), ("q2", 1)]
    graded.pools.add("q2", "default", ["authentication"], source="search", added_by="ana")
    added = plan_export(graded, "x", out=tmp_path, selection=Selection(policy="max"))
    assert (added.completeness["q2"].candidates, added.completeness["q2"].ungraded) == (3, 2)


def test_require_depth_leaves_out_and_names_the_questions_short_of_it(
    graded: Store, tmp_path: Path
) -> None:
    require = Requirement(depth=2)
    result = export_testset(graded, "orders", out=tmp_path, selection=Selection(require=require))
    assert sorted(result.plan.content.questions) == ["q1", "q3"]  # q2 is complete to 1 only
    assert "q2" not in (result.path / "qrels.tsv").read_text()
    assert [r["id"] for r in records(result.path)] == ["q1", "q3"]
    data = manifest(result.path)
    assert data["completeness"] == {
        "rule": "complete to depth 2 of bm25",
        "require_depth": 2,
        "runs": ["bm25"],
        "partial": "leave-out",
        "left_out": ["q2"],
        "incomplete": [],
    }
    assert (data["counts"]["left_out"], data["counts"]["partial"]) == (1, 1)  # q1: webhooks


def test_leave_out_without_a_depth_keeps_only_complete_questions(
    graded: Store, tmp_path: Path
) -> None:
    require = Requirement(partial="leave-out")
    result = export_testset(graded, "orders", out=tmp_path, selection=Selection(require=require))
    assert list(result.plan.content.questions) == ["q3"]
    assert manifest(result.path)["completeness"]["left_out"] == ["q1", "q2"]


@pytest.mark.parametrize(
    ("require", "says"),
    [
        (
            Requirement(partial="error"),
            "2 questions not graded as required (every candidate graded): q1 (1 ungraded; bm25"
            " 3/10), q2 (1 ungraded; bm25 1/10); grade them, or export with --partial leave-out",
        ),
        (
            Requirement(depth=2, partial="error"),
            "1 question not graded as required (complete to depth 2 of bm25): q2 (1 ungraded;"
            " bm25 1/10)",
        ),
    ],
)
def test_partial_error_refuses_the_export_naming_them(
    graded: Store, tmp_path: Path, require: Requirement, says: str
) -> None:
    with pytest.raises(LabelerError, match=re.escape(says)) as caught:
        export_testset(graded, "orders", out=tmp_path, selection=Selection(require=require))
    assert caught.value.field == "partial"
    assert not (tmp_path / "orders").exists()
    assert graded.versions.recorded("orders") == {}


def test_completeness_alone_makes_no_new_version(graded: Store, tmp_path: Path) -> None:
    """The same content, completeness aside (a deeper run imported since): nothing written."""
    first = export_testset(graded, "orders", out=tmp_path)
    graded.pools.add("q1", "default", ["authentication"], source="search", added_by="ana")
    again = export_testset(graded, "orders", out=tmp_path)
    assert (again.status, again.version) == ("unchanged", first.version)


# a conversation ---------------------------------------------------------------------------------


def test_a_conversations_version_is_signed_and_records_each_turns_completeness(
    talking: Store, tmp_path: Path
) -> None:
    """A turn is a question to the signature and the completeness record: the version holds
    its conversation under the hash that is signed, each turn has its completeness line from
    its pool, and the version reads and imports back with the same turns."""
    from labeler.importers import import_run, import_testset
    from labeler.versions.reading import read_version
    from labeler.versions.signing import project_trust

    run = tmp_path / "turns.trec"
    run.write_text("c1::2 Q0 error-codes 1 2.0 chat\nc1::2 Q0 webhooks 2 1.0 chat\n")
    import_run(talking, run)
    talking.labels.set_grade("c1::1", "default", "rate-limits", "ana", 2)
    talking.labels.set_grade("c1::2", "default", "error-codes", "ana", 2)
    result = export_testset(talking, "chat", out=tmp_path / "exports")
    version = read_version(result.path, trust=project_trust(talking, required=True))
    assert version.findings.signature.state == "verified"
    turns = {q: e.turn for q, e in version.content.questions.items() if e.turn is not None}
    assert sorted(turns) == ["c1::1", "c1::2"]  # c1::3 has no grade: not in the test set
    assert turns["c1::2"] == talking.questions.get("c1::2").turn
    lines = {r["id"]: r for r in records(result.path)}
    # c1::1: its one labelled chunk, graded; c1::2: the run's two results, the first graded
    assert (lines["c1::1"]["candidates"], lines["c1::1"]["ungraded"]) == (1, 0)
    assert lines["c1::2"] == {
        "id": "c1::2",
        "candidates": 2,
        "graded": 1,
        "ungraded": 1,
        "partial": True,
        "unanswerable": False,
        "runs": {"chat": {"pool_depth": 10, "pooled": 2, "ungraded": 1, "complete_to": 1}},
    }
    with Store(tmp_path / "back.db") as back:
        import_testset(back, result.path)
        assert back.questions.get("c1::2").turn == turns["c1::2"]
        assert back.questions.get("c1::1").turn == turns["c1::1"]
