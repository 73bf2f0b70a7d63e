"""Reading a version (or a BEIR folder) back into a database; the round trip keeps the hash."""

import os
from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.export import Selection, export_testset
from labeler.exporters.convert import convert
from labeler.importers import IMPORT_KINDS
from labeler.importers.testset import import_testset
from labeler.store import Store
from tests.conftest import table_counts


@pytest.fixture
def exported(loaded: Store, tmp_path: Path):
    """A version with two reviewers, an adjudication, a policy and an unanswerable question."""
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 1)
    loaded.labels.set_grade("q1", "default", "error-codes", "ana", 1)
    loaded.labels.set_grade("q1", "default", "pagination", "ben", 0)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 2)
    loaded.labels.set_grade("q2", "default", "webhooks", "ana", 0)
    loaded.labels.set_grade("q2", "default", "webhooks", "ben", 1)
    loaded.adjudications.set("q2", "default", "webhooks", 0, "lead")
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    return export_testset(
        loaded, "orders", out=tmp_path / "exports", selection=Selection(policy="max")
    )


def test_the_round_trip_gives_the_same_content(exported, tmp_path: Path) -> None:
    with Store(tmp_path / "fresh.db") as fresh:
        result = import_testset(fresh, exported.path)
        assert (result.kind, result.chunking, result.reviewer) == (
            "version",
            "default",
            "testset:orders@v1",
        )
        again = export_testset(fresh, "orders", out=tmp_path / "again")
    # The same content (its hash covers the manifest too: created, reviewers, ... differ).
    assert again.plan.content_key == exported.plan.content_key
    for name in ("questions.jsonl", "qrels.tsv", "chunks.jsonl"):
        assert (again.path / name).read_bytes() == (exported.path / name).read_bytes()


def test_what_comes_in(exported, tmp_path: Path) -> None:
    with Store(tmp_path / "fresh.db") as fresh:
        result = import_testset(fresh, exported.path)
        summaries = [r.summary() for r in result.reports]
        assert summaries == [
            "chunks: 4 added, 0 updated, 0 unchanged (chunking 'default')",
            "questions: 3 added, 0 updated, 0 unchanged",
            "qrels: 5 added, 0 updated, 0 unchanged (reviewer 'testset:orders@v1')",
            "unanswerable: 1 added, 0 updated, 0 unchanged (reviewer 'testset:orders@v1')",
        ]
        labels = {
            (r["chunk_id"], r["grade"]) for r in fresh.labels.question_labels("q1", "default")
        }
        assert labels == {("rate-limits", 2), ("error-codes", 1), ("pagination", 0)}
        assert fresh.labels.marks("q3", "default") == {
            "testset:orders@v1": {"unanswerable": True, "skipped": False}
        }
        q2 = fresh.questions.get("q2")
        assert (q2.reference_answer, q2.tags, q2.review_status) == (
            "Pass next_cursor.",
            ("api", "paging"),
            "accepted",
        )


def test_importing_twice_changes_nothing(exported, tmp_path: Path) -> None:
    with Store(tmp_path / "fresh.db") as fresh:
        import_testset(fresh, exported.path)
        before = table_counts(fresh)
        result = import_testset(fresh, exported.path)
        assert not any(r.changed for r in result.reports)
        assert table_counts(fresh) == before


def test_into_the_same_database_it_came_from(exported, loaded: Store, tmp_path: Path) -> None:
    import_testset(loaded, exported.path)
    again = export_testset(
        loaded, "orders", out=tmp_path / "exports", selection=Selection(policy="max")
    )
    assert (again.status, again.version) == ("unchanged", 1)


def test_a_chunk_with_another_text_is_a_conflict_not_an_overwrite(exported, tmp_path: Path) -> None:
    with Store(tmp_path / "fresh.db") as fresh:
        fresh.corpus.ensure_chunking("default")
        fresh.corpus.upsert_chunks("default", [{"id": "pagination", "text": "Another text."}])
        before = table_counts(fresh)
        with pytest.raises(LabelerError, match="'pagination' is already in chunking 'default'"):
            import_testset(fresh, exported.path)
        assert table_counts(fresh) == before
        result = import_testset(fresh, exported.path, chunking="from-orders")
        assert result.chunking == "from-orders"
        assert fresh.corpus.get_chunk("default", "pagination").text == "Another text."


def test_a_modified_version_is_refused_unless_allowed(exported, tmp_path: Path) -> None:
    qrels = exported.path / "qrels.tsv"
    os.chmod(qrels, 0o644)
    qrels.write_text(qrels.read_text().replace("rate-limits\t2", "rate-limits\t1"))
    with Store(tmp_path / "fresh.db") as fresh:
        with pytest.raises(LabelerError, match="modified after export"):
            import_testset(fresh, exported.path)
        assert fresh.questions.count() == 0
        import_testset(fresh, exported.path, allow_modified=True, reviewer="restored")
        grades = {r["chunk_id"]: r["grade"] for r in fresh.labels.question_labels("q1", "default")}
        assert grades["rate-limits"] == 1


def test_a_bad_line_writes_nothing(exported, tmp_path: Path) -> None:
    qrels = exported.path / "qrels.tsv"
    os.chmod(qrels, 0o644)
    qrels.write_text(qrels.read_text() + "q2\t0\tzz-new\t7\n")
    with Store(tmp_path / "fresh.db") as fresh:
        before = table_counts(fresh)
        with pytest.raises(LabelerError, match=r'qrels\.tsv:6: field "grade"'):
            import_testset(fresh, exported.path, allow_modified=True)
        assert table_counts(fresh) == before


def test_a_beir_folder_round_trip_gives_the_same_content(exported, tmp_path: Path) -> None:
    convert(exported.path, "beir", out=tmp_path / "beir")
    with Store(tmp_path / "fresh.db") as fresh:
        result = import_testset(fresh, tmp_path / "beir")
        assert (result.kind, result.reviewer) == ("beir", "testset:beir")
        assert fresh.labels.marks("q3", "default")["testset:beir"]["unanswerable"]
        again = export_testset(fresh, "orders", out=tmp_path / "again")
    assert again.plan.content_key == exported.plan.content_key


def test_a_folder_that_is_neither(tmp_path: Path, store: Store) -> None:
    (tmp_path / "stuff").mkdir()
    with pytest.raises(LabelerError, match="neither a test-set version"):
        import_testset(store, tmp_path / "stuff")
    with pytest.raises(LabelerError, match="not a folder"):
        import_testset(store, tmp_path / "nope")


def test_the_import_kinds_registry_lists_the_new_kinds() -> None:
    assert {"testset", "ragas", "deepeval"} <= set(IMPORT_KINDS)
