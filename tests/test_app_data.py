"""The Data page: status, and uploads through the same importers as the CLI."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.store import Store
from tests.conftest import DATA, notes, table_counts

PAGE = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "app_pages" / "data.py")


@pytest.fixture
def page(loaded: Store, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    return AppTest.from_file(PAGE, default_timeout=60).run()


def upload(page: AppTest, kind: str, name: str, content: bytes) -> AppTest:
    page.selectbox(key="data_kind").set_value(kind).run()
    page.get("file_uploader")[0].set_value((name, content, "application/octet-stream")).run()
    return page.button(key="data_import").click().run()


def test_status_is_shown(page: AppTest) -> None:
    # Chunks, questions, fully graded, runs, labels.
    assert [m.value for m in page.metric] == ["5", "3", "0", "1", "0"]


def test_an_uploaded_qrels_file_is_imported_as_that_reviewer(page: AppTest, loaded: Store) -> None:
    page.selectbox(key="data_kind").set_value("qrels").run()
    page.text_input(key="data_qrels_reviewer").input("assessors").run()
    page.get("file_uploader")[0].set_value(("judged.qrels", b"q1 0 rate-limits 2\n", "text/plain"))
    page.run()
    page.button(key="data_import").click().run()
    assert notes(page, "ok") == ["qrels: 1 added, 0 updated, 0 unchanged (reviewer 'assessors')"]
    assert [
        (r["chunk_id"], r["reviewer"]) for r in loaded.labels.question_labels("q1", "default")
    ] == [("rate-limits", "assessors")]


def test_a_bad_upload_shows_the_error_and_writes_nothing(page: AppTest, loaded: Store) -> None:
    before = table_counts(loaded)
    upload(page, "chunks", "broken.jsonl", b'{"id": "x", "text": "ok"}\n{"id": "y"}\n')
    assert notes(page, "error") == ['broken.jsonl:2: field "text": missing or empty']
    assert table_counts(loaded) == before


@pytest.mark.parametrize(
    ("kind", "name", "content", "error"),
    [
        (
            "chunks",
            "u.csv",
            b'id,text\nc1,"hello\nc2,world\n',
            'u.csv:2: field "text": the quoted cell that opens here is never closed: a \'"\' is'
            " missing, and every line after it would be read into this one cell",
        ),
        (
            "questions",
            "deep.json",
            b"[" * 10_000,
            "deep.json:1: lists or objects nested too deep: 9,999 levels, more than Python's JSON"
            " parser can follow",
        ),
        (
            "ragas",
            "deep.json",
            b'[{"user_input": "Q?", "reference_contexts": ' + b"[" * 10_000 + b"}]",
            'deep.json:1: field "reference_contexts": lists or objects nested too deep: 10,001'
            " levels, more than Python's JSON parser can follow",
        ),
    ],
    ids=["unclosed quote", "deep questions", "deep Ragas contexts"],
)
def test_a_malformed_upload_is_one_error_without_a_server_path(
    page: AppTest, loaded: Store, kind: str, name: str, content: bytes, error: str
) -> None:
    """#19 items 5 and 7: the upload goes through the same readers as the command line; the
    error names the file as the user knows it (no temporary folder of the server), and no
    traceback is shown."""
    before = table_counts(loaded)
    upload(page, kind, name, content)
    assert not page.exception
    assert notes(page, "error") == [error]
    assert table_counts(loaded) == before


def test_a_ragas_file_comes_in_as_generated_questions(page: AppTest, loaded: Store) -> None:
    path = DATA / "formats" / "ragas" / "testset_2.csv"
    upload(page, "ragas", path.name, path.read_bytes())
    assert not page.exception
    assert notes(page, "ok")[0].startswith("ragas: 10 added")
    pending = loaded.query("SELECT origin, review_status FROM questions WHERE origin = 'generated'")
    assert len(pending) == 10
    assert {r["review_status"] for r in pending} == {"pending"}


def test_the_form_is_built_from_the_importer_registry(page: AppTest) -> None:
    from labeler.importers.registry import IMPORT_KINDS

    offered = page.selectbox(key="data_kind").options
    uploadable = [k for k, kind in IMPORT_KINDS.items() if not kind.folder]
    assert [o.split(":")[0] for o in offered] == uploadable
    page.selectbox(key="data_kind").set_value("run").run()
    assert page.number_input(key="data_run_pool_depth").value == 10
    assert page.get("file_uploader")[0].proto.type == [
        ".trec",
        ".txt",
        ".run",
        ".qrels",
        ".tsv",
        ".tab",
        ".jsonl",
        ".ndjson",
        ".json",
    ]


def test_a_changed_text_is_refused_unless_the_box_is_ticked(page: AppTest, loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "pagination", "ana", 1)
    content = b'{"id": "pagination", "text": "Pass next_cursor to page."}\n'
    upload(page, "chunks", "again.jsonl", content)
    assert notes(page, "error")[0].startswith('again.jsonl:1: field "text": changes the text of 1')
    assert loaded.corpus.get_chunk("default", "pagination").text.startswith("Use the next_cursor")
    page.checkbox(key="data_chunks_replace_text").check().run()
    page.button(key="data_import").click().run()
    assert "1 label on 1 chunk whose text changed is now stale" in notes(page, "ok")[0]
    assert [r["state"] for r in loaded.labels.question_labels("q1", "default")] == ["stale"]
