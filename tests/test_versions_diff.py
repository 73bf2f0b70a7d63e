"""Diff on a hand-built pair of versions, values worked out by hand."""

from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.versions.diff import LabelChange, changes_record, diff_contents, diff_versions
from labeler.versions.format import (
    ChunkEntry,
    Content,
    QuestionEntry,
    manifest_bytes,
    seal,
    serialise,
)

OLD = Content(
    questions={
        "q1": QuestionEntry("q1", "Eins?", None, ("a",)),
        "q2": QuestionEntry("q2", "Zwei?", "Ja."),
        "q3": QuestionEntry("q3", "Drei?"),
    },
    qrels={"q1": {"c1": 2, "c2": 0}, "q2": {"c1": 1}, "q3": {"c3": 2}},
    chunks={
        "c1": ChunkEntry("c1", "eins"),
        "c2": ChunkEntry("c2", "zwei"),
        "c3": ChunkEntry("c3", "drei"),
    },
)
NEW = Content(
    questions={
        "q1": QuestionEntry("q1", "Eins?", "Eins.", ("a", "b")),  # reference and tags edited
        "q2": QuestionEntry("q2", "Zwei?", "Ja."),  # c1 regraded 1 -> 2, c2 added
        "q4": QuestionEntry("q4", "Vier?", unanswerable=True),  # added; q3 removed
    },
    qrels={"q1": {"c1": 2, "c2": 0}, "q2": {"c1": 2, "c2": 0}},
    chunks={"c1": ChunkEntry("c1", "eins"), "c2": ChunkEntry("c2", "ZWEI")},
)


def write(folder: Path, content: Content, number: int) -> Path:
    files = serialise(content)
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    manifest = {
        "format": "labeler-testset/2",  # unsigned, as versions written before #19 are
        "name": "hand",
        "version": number,
    }
    (folder / "manifest.json").write_bytes(manifest_bytes(seal(manifest, files)))
    return folder


def test_each_question_that_differs_and_how() -> None:
    diff = diff_contents(OLD, NEW)
    assert [(q.id, q.status, q.fields) for q in diff.questions] == [
        ("q1", "edited", ("reference_answer", "tags")),
        ("q2", "relabelled", ()),
        ("q3", "removed", ()),
        ("q4", "added", ()),
    ]
    labels = {q.id: q.labels for q in diff.questions}
    assert labels == {
        "q1": (),
        "q2": (LabelChange("c1", 1, 2), LabelChange("c2", None, 0)),
        "q3": (LabelChange("c3", 2, None),),
        "q4": (),
    }
    assert [c.kind for c in labels["q2"]] == ["regraded", "added"]
    assert diff.chunks_changed == ("c2",)


def test_the_summary_counts_by_hand() -> None:
    assert diff_contents(OLD, NEW).summary() == {
        "questions_added": 1,
        "questions_removed": 1,
        "questions_edited": 1,
        "labels_added": 1,
        "labels_removed": 1,
        "labels_regraded": 1,
        "chunks_changed": 1,
    }


def test_the_json_form_carries_old_and_new_values() -> None:
    data = diff_contents(OLD, NEW).as_dict()
    q1 = data["questions"][0]
    assert q1 == {
        "id": "q1",
        "status": "edited",
        "fields": {
            "reference_answer": {"old": None, "new": "Eins."},
            "tags": {"old": ["a"], "new": ["a", "b"]},
        },
        "labels": [],
    }
    assert data["questions"][2] == {
        "id": "q3",
        "status": "removed",
        "question": "Drei?",
        "labels": [{"chunk_id": "c3", "change": "removed", "old": 2, "new": None}],
    }
    assert data["chunks_changed"] == ["c2"]


def test_a_content_against_itself_is_empty() -> None:
    diff = diff_contents(OLD, OLD)
    assert diff.empty
    assert set(diff.summary().values()) == {0}


def test_diffing_two_version_folders(tmp_path: Path) -> None:
    old = write(tmp_path / "hand" / "v1", OLD, 1)
    new = write(tmp_path / "hand" / "v2", NEW, 2)
    assert diff_versions(old, new) == diff_contents(OLD, NEW)
    assert diff_versions(new, old).summary()["questions_added"] == 1  # q3 comes back


def test_a_modified_version_is_not_diffed(tmp_path: Path) -> None:
    old = write(tmp_path / "hand" / "v1", OLD, 1)
    new = write(tmp_path / "hand" / "v2", NEW, 2)
    (new / "questions.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(LabelerError, match="modified after export"):
        diff_versions(old, new)


def test_the_manifest_record_lists_ids() -> None:
    record = changes_record(diff_contents(OLD, NEW), parent=1)
    assert (record["parent"], record["added"], record["removed"]) == (1, ["q4"], ["q3"])
    assert (record["edited"], record["relabelled"]) == (["q1"], ["q2"])


def test_a_changed_conversation_edits_the_turn(tmp_path: Path) -> None:
    from labeler.cli.versions import _diff_lines
    from labeler.models import Message, Turn

    before = Turn("c1", 2, (Message("user", "Eins?"),))
    after = Turn("c1", 2, (Message("user", "Eins?"),), rewrite="Zwei nach eins?")
    old = Content({"t": QuestionEntry("t", "Zwei?", turn=before)}, {}, {})
    new = Content({"t": QuestionEntry("t", "Zwei?", turn=after)}, {}, {})
    diff = diff_contents(old, new)
    assert [(q.id, q.status, q.fields) for q in diff.questions] == [
        ("t", "edited", ("conversation",))
    ]
    assert diff.as_dict()["questions"][0]["fields"]["conversation"]["new"]["rewrite"] == (
        "Zwei nach eins?"
    )
    assert _diff_lines(diff) == [
        '~ t (edited) "Zwei?"',
        "    conversation: turn 2 of c1, after 1 messages -> turn 2 of c1, after 1 messages,"
        " rewrite 'Zwei nach eins?'",
    ]
