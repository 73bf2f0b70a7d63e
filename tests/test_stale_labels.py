"""Nothing changes what a label means in silence (issue #8, item 1).

Re-importing a labelled chunk with another text is refused; with --replace-text its labels
become stale: ungraded for progress and the cursor, shown with the old and the new text, left
out of exports (and counted) until a reviewer confirms or changes the grade. A field the file
does not carry keeps its stored value.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.errors import LabelerError
from labeler.export import export_testset, plan_export
from labeler.grading import cursor, disputes, labeling
from labeler.importers import import_chunks
from labeler.store import Store
from tests.conftest import CHUNKS, table_counts, write_jsonl

NEW_TEXT = "Each API key may send 50 requests per minute."


@pytest.fixture
def graded(loaded: Store) -> Store:
    """ana graded rate-limits 2 and pagination 0 on q1; ben graded rate-limits 1."""
    labeling.grade(loaded, "q1", "rate-limits", "ana", 2)
    labeling.grade(loaded, "q1", "pagination", "ana", 0)
    labeling.grade(loaded, "q1", "rate-limits", "ben", 1)
    return loaded


def chunks_file(tmp_path: Path, **texts: str) -> Path:
    """The conftest chunks, with some texts replaced."""
    rows = [dict(c, text=texts.get(c["id"].replace("-", "_"), c["text"])) for c in CHUNKS]
    return write_jsonl(tmp_path / "chunks-again.jsonl", rows)


def test_a_new_text_on_a_labelled_chunk_is_refused_naming_it(graded: Store, tmp_path) -> None:
    path = chunks_file(tmp_path, rate_limits=NEW_TEXT, webhooks="Webhooks are signed.")
    before = table_counts(graded)
    with pytest.raises(LabelerError) as caught:
        import_chunks(graded, path)
    message = str(caught.value)
    assert message.startswith(f'{path}:1: field "text": changes the text of 1 chunk')
    assert "rate-limits (2 labels)" in message
    assert "webhooks" not in message  # no label on it: its new text would be fine
    assert "`labeler remap`" in message
    assert "--replace-text" in message
    assert table_counts(graded) == before
    assert graded.corpus.get_chunk("default", "webhooks").text == CHUNKS[4]["text"]
    assert graded.corpus.get_chunk("default", "rate-limits").text == CHUNKS[0]["text"]


def test_the_cli_exits_2_and_writes_nothing(graded: Store, tmp_path) -> None:
    path = chunks_file(tmp_path, rate_limits=NEW_TEXT)
    db = str(graded.path)
    result = CliRunner().invoke(main, ["import", "chunks", str(path), "--db", db])
    assert result.exit_code == 2
    assert "rate-limits (2 labels)" in result.output
    assert graded.corpus.get_chunk("default", "rate-limits").text == CHUNKS[0]["text"]
    result = CliRunner().invoke(main, ["import", "chunks", str(path), "--db", db, "--replace-text"])
    assert result.exit_code == 0, result.output
    assert "2 labels on 1 chunk whose text changed are now stale" in result.output
    assert graded.corpus.get_chunk("default", "rate-limits").text == NEW_TEXT


def test_with_replace_text_the_labels_go_stale_with_history(graded: Store, tmp_path) -> None:
    import_chunks(graded, chunks_file(tmp_path, rate_limits=NEW_TEXT), replace_text=True)
    labels = {
        (r["reviewer"], r["chunk_id"]): (r["grade"], r["state"])
        for r in graded.labels.question_labels("q1", "default")
    }
    assert labels == {
        ("ana", "pagination"): (0, "current"),
        ("ana", "rate-limits"): (2, "stale"),
        ("ben", "rate-limits"): (1, "stale"),
    }
    events = [e for e in graded.labels.history("q1") if e["action"] == "stale"]
    assert [(e["reviewer"], e["chunk_id"], e["old_grade"], e["new_grade"]) for e in events] == [
        ("ana", "rate-limits", 2, 2),
        ("ben", "rate-limits", 1, 1),
    ]


def test_a_stale_grade_counts_as_ungraded_until_confirmed(graded: Store, tmp_path) -> None:
    view = labeling.open_question(graded, "q1", "ana")
    for candidate in view.candidates:
        if candidate.grade is None:
            labeling.grade(graded, "q1", candidate.chunk.id, "ana", 0)
    assert labeling.open_question(graded, "q1", "ana").complete
    assert labeling.progress(graded, "ana")["mine"] == 1
    import_chunks(graded, chunks_file(tmp_path, rate_limits=NEW_TEXT), replace_text=True)
    # Progress drops at once (the import adjusts it), and opening the question agrees.
    assert labeling.progress(graded, "ana")["mine"] == 0
    view = labeling.open_question(graded, "q1", "ana")
    assert not view.complete
    stale = next(c for c in view.candidates if c.chunk.id == "rate-limits")
    assert stale.stale
    assert stale.needs_grade
    assert stale.grade == 2
    assert stale.graded_text == CHUNKS[0]["text"]
    assert stale.chunk.text == NEW_TEXT
    assert view.graded == len(view.candidates) - 1
    assert cursor.first_to_grade(view) == view.candidates.index(stale)
    # The same grade again confirms it for the new text.
    labeling.grade(graded, "q1", "rate-limits", "ana", 2)
    view = labeling.open_question(graded, "q1", "ana")
    confirmed = next(c for c in view.candidates if c.chunk.id == "rate-limits")
    assert not confirmed.stale
    assert view.complete
    assert graded.labels.history("q1")[-1]["action"] == "confirm"
    passage = graded.query(
        "SELECT passage_text FROM labels WHERE reviewer = 'ana' AND chunk_id = 'rate-limits'"
    )
    assert passage == [{"passage_text": NEW_TEXT}]
    assert labeling.progress(graded, "ana")["today"] == len(view.candidates) + 1


def test_exports_leave_stale_labels_out_and_count_them(graded: Store, tmp_path) -> None:
    out = tmp_path / "exports"
    import_chunks(graded, chunks_file(tmp_path, rate_limits=NEW_TEXT), replace_text=True)
    plan = plan_export(graded, "orders", out=out)
    assert plan.stale_labels == 2
    assert plan.content.qrels == {"q1": {"pagination": 0}}
    assert plan.disagreements == ()  # ana 2 and ben 1 are both stale: nothing to settle
    labeling.grade(graded, "q1", "rate-limits", "ana", 1)  # ana changes her grade
    result = export_testset(graded, "orders", out=out)
    assert result.as_dict()["stale_labels"] == 1  # ben's is still stale
    qrels = (out / "orders" / "v1" / "qrels.tsv").read_text().splitlines()
    assert qrels == ["q1\t0\tpagination\t0", "q1\t0\trate-limits\t1"]
    chunks = [json.loads(line) for line in (out / "orders" / "v1" / "chunks.jsonl").open()]
    assert {c["id"]: c["text"] for c in chunks}["rate-limits"] == NEW_TEXT


def test_a_stale_adjudication_settles_nothing_until_made_again(graded: Store, tmp_path) -> None:
    disputes.adjudicate(graded, "q1", "rate-limits", 2, "lead")
    import_chunks(graded, chunks_file(tmp_path, rate_limits=NEW_TEXT), replace_text=True)
    assert graded.adjudications.current("default") == {}
    assert graded.adjudications.get("q1", "default", "rate-limits")["state"] == "stale"
    disputes.adjudicate(graded, "q1", "rate-limits", 1, "lead")
    assert graded.adjudications.current("default") == {("q1", "rate-limits"): 1}


def test_the_cli_export_says_how_many_stale_labels_it_left_out(graded: Store, tmp_path) -> None:
    import_chunks(graded, chunks_file(tmp_path, rate_limits=NEW_TEXT), replace_text=True)
    out = tmp_path / "exports"
    result = CliRunner().invoke(
        main, ["export", "orders", "--out", str(out), "--db", str(graded.path)]
    )
    assert result.exit_code == 0, result.output
    assert "2 stale labels left out" in result.output


def test_fields_a_file_omits_keep_their_stored_values(loaded: Store, tmp_path) -> None:
    path = write_jsonl(tmp_path / "text-only.jsonl", [{"id": "pagination", "text": "Paging."}])
    report = import_chunks(loaded, path)
    assert (report.added, report.updated) == (0, 1)
    chunk = loaded.corpus.get_chunk("default", "pagination")
    assert (chunk.text, chunk.doc_id, chunk.title, chunk.start, chunk.end) == (
        "Paging.",
        "api",
        "Pagination",
        186,
        243,
    )
    # A field given empty clears it.
    path = write_jsonl(
        tmp_path / "cleared.jsonl", [{"id": "pagination", "text": "Paging.", "title": None}]
    )
    import_chunks(loaded, path)
    assert loaded.corpus.get_chunk("default", "pagination").title is None
    assert loaded.corpus.get_chunk("default", "pagination").doc_id == "api"
    # The same file again changes nothing.
    assert not import_chunks(loaded, path).changed


def test_csv_without_a_column_keeps_it(loaded: Store, tmp_path) -> None:
    path = tmp_path / "chunks.csv"
    path.write_text("id,text\nwebhooks,Webhooks are signed with HMAC.\n", encoding="utf-8")
    import_chunks(loaded, path)
    chunk = loaded.corpus.get_chunk("default", "webhooks")
    assert (chunk.text, chunk.title, chunk.doc_id) == (
        "Webhooks are signed with HMAC.",
        "Webhooks",
        "hooks",
    )
