"""The version folder's one canonical serialisation, its hash, and reading it back."""

import hashlib
import json
from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.models import Message, Turn
from labeler.versions.checking import inspect
from labeler.versions.format import (
    FORMAT_V2,
    ChunkEntry,
    Content,
    QuestionEntry,
    check_name,
    check_trec_ids,
    content_hash_v1,
    manifest_bytes,
    manifest_content_key,
    manifest_hash,
    seal,
    serialise,
    version_dirs,
)
from labeler.versions.reading import parse_content, read_version

STALE = ("manifest.json (no longer matches its content hash)",)

CONTENT = Content(
    questions={
        "q2": QuestionEntry("q2", "Zwei?", "Ja.", ("b", "a")),
        "q1": QuestionEntry("q1", "Eins?"),
        "q3": QuestionEntry("q3", "Nie?", unanswerable=True),
    },
    qrels={"q2": {"c2": 0, "c1": 2}, "q1": {"c1": 1}},
    chunks={"c2": ChunkEntry("c2", "zwei"), "c1": ChunkEntry("c1", "eins", "d", "T")},
)

QUESTIONS = (
    '{"id": "q1", "question": "Eins?", "reference_answer": null, "tags": [],'
    ' "unanswerable": false}\n'
    '{"id": "q2", "question": "Zwei?", "reference_answer": "Ja.", "tags": ["a", "b"],'
    ' "unanswerable": false}\n'
    '{"id": "q3", "question": "Nie?", "reference_answer": null, "tags": [], "unanswerable": true}\n'
)
QRELS = "q1\t0\tc1\t1\nq2\t0\tc1\t2\nq2\t0\tc2\t0\n"
CHUNKS = (
    '{"doc_id": "d", "id": "c1", "text": "eins", "title": "T"}\n'
    '{"doc_id": null, "id": "c2", "text": "zwei", "title": null}\n'
)


def changed(folder: Path, manifest: dict) -> tuple[str, ...]:
    return inspect(folder, manifest)[0].changed


def write_version(folder: Path, files: dict[str, bytes], **manifest) -> Path:
    """A version of the previous format (labeler-testset/2: no completeness, unsigned), which
    is still read and checked by its own rule."""
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    base = {"format": FORMAT_V2, "name": "t", "version": 1, "chunking": "default", "min_grade": 1}
    record = seal(base, files)
    record.update(manifest)
    (folder / "manifest.json").write_bytes(manifest_bytes(record))
    return folder


def test_one_content_has_one_serialisation_sorted_and_lf() -> None:
    files = serialise(CONTENT)
    assert files["questions.jsonl"].decode() == QUESTIONS
    assert files["qrels.tsv"].decode() == QRELS
    assert files["chunks.jsonl"].decode() == CHUNKS


def test_the_v1_hash_is_sha256_over_names_lengths_and_bytes() -> None:
    files = serialise(CONTENT)
    digest = hashlib.sha256()
    for name, text in (
        ("questions.jsonl", QUESTIONS),
        ("qrels.tsv", QRELS),
        ("chunks.jsonl", CHUNKS),
    ):
        data = text.encode()
        digest.update(f"{name}\n{len(data)}\n".encode() + data)
    assert content_hash_v1(files) == "sha256:" + digest.hexdigest()


def test_moving_bytes_between_files_changes_the_hash() -> None:
    a = {"questions.jsonl": b"ab", "qrels.tsv": b"", "chunks.jsonl": b""}
    b = {"questions.jsonl": b"a", "qrels.tsv": b"b", "chunks.jsonl": b""}
    assert content_hash_v1(a) != content_hash_v1(b)
    old = {"format": FORMAT_V2, "name": "t"}
    assert seal(old, a)["content_hash"] != seal(old, b)["content_hash"]


@pytest.mark.parametrize(("field", "value"), [("name", "u"), ("chunking", "v2"), ("min_grade", 2)])
def test_the_v2_hash_covers_what_changes_what_consumers_read(field: str, value: object) -> None:
    """#8 item 8: name, chunking and min_grade change what convert, import and eval read."""
    files = serialise(CONTENT)
    base = {"format": FORMAT_V2, "name": "t", "version": 1, "chunking": "default", "min_grade": 1}
    assert seal(base, files)["content_hash"] != seal({**base, field: value}, files)["content_hash"]
    informative = {**base, "created": "later", "counts": {"questions": 99}, "version": 7}
    assert seal(base, files)["content_hash"] == seal(informative, files)["content_hash"]


V3_FILES = {**serialise(CONTENT), "completeness.jsonl": b""}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("created", "2030-01-01T00:00:00+00:00"),
        ("counts", {"questions": 99}),
        ("reviewers", ["mallory"]),
        ("policy", "max"),
        ("version", 7),
        ("parent", 3),
        ("selection", {"tags": ["x"]}),
        ("anything", "new"),
    ],
)
def test_the_v3_hash_covers_every_manifest_field(field: str, value: object) -> None:
    """#19 item 4: policy, reviewers, counts, created (and every other field) are hashed."""
    base = {"name": "t", "version": 1, "chunking": "default", "min_grade": 1, "policy": None}
    sealed = seal(base, V3_FILES)
    assert sealed["format"] == "labeler-testset/3"
    assert set(sealed["files"]) == {*V3_FILES}
    assert sealed["content_hash"] == manifest_hash(sealed)
    assert seal({**base, field: value}, V3_FILES)["content_hash"] != sealed["content_hash"]


def test_the_v3_hash_is_sha256_of_the_canonical_manifest_without_it() -> None:
    sealed = seal({"name": "t", "version": 1}, V3_FILES)
    body = {k: v for k, v in sealed.items() if k != "content_hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert sealed["content_hash"] == "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def test_the_same_content_is_the_same_whatever_the_format_and_the_description() -> None:
    """The export never writes the same content twice: its key ignores creation time, counts
    and the format's other files."""
    base = {"name": "t", "version": 1, "chunking": "default", "min_grade": 1}
    v3 = seal({**base, "created": "now", "reviewers": ["a"]}, V3_FILES)
    v3_later = seal({**base, "created": "later", "reviewers": ["b"], "version": 2}, V3_FILES)
    v2 = seal({**base, "format": FORMAT_V2}, serialise(CONTENT))
    assert v3["content_hash"] != v3_later["content_hash"]
    assert manifest_content_key(v3) == manifest_content_key(v3_later) == manifest_content_key(v2)
    assert manifest_content_key(v2) == v2["content_hash"]  # the v2 hash is that key
    assert manifest_content_key({**v3, "min_grade": 2}) != manifest_content_key(v3)


def test_an_edited_min_grade_is_a_modification(tmp_path: Path) -> None:
    folder = write_version(tmp_path / "t" / "v1", serialise(CONTENT))
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["min_grade"] = 2
    assert changed(folder, manifest) == STALE


def test_the_folder_and_the_manifest_agree_on_the_version(tmp_path: Path) -> None:
    folder = write_version(tmp_path / "t" / "v2", serialise(CONTENT))  # the manifest says 1
    with pytest.raises(LabelerError, match="the folder is v2 but the manifest says version 1"):
        read_version(folder)


def test_unicode_stays_readable_but_line_separators_are_escaped() -> None:
    content = Content(
        questions={"q1": QuestionEntry("q1", "Größe\u2028zwei\nZeilen")}, qrels={}, chunks={}
    )
    line = serialise(content)["questions.jsonl"].decode()
    assert "Größe\\u2028zwei\\nZeilen" in line
    assert line.count("\n") == 1
    assert json.loads(line)["question"] == "Größe\u2028zwei\nZeilen"


def test_a_written_version_reads_back_as_the_same_content(tmp_path: Path) -> None:
    folder = write_version(tmp_path / "t" / "v1", serialise(CONTENT))
    version = read_version(folder)
    assert version.content.questions == {
        "q1": QuestionEntry("q1", "Eins?"),
        "q2": QuestionEntry("q2", "Zwei?", "Ja.", ("a", "b")),
        "q3": QuestionEntry("q3", "Nie?", unanswerable=True),
    }
    assert version.content.qrels == {"q1": {"c1": 1}, "q2": {"c1": 2, "c2": 0}}
    assert serialise(version.content) == serialise(CONTENT)
    assert (version.name, version.number, version.min_grade) == ("t", 1, 1)


def test_a_hand_edited_file_is_named(tmp_path: Path) -> None:
    folder = write_version(tmp_path / "t" / "v1", serialise(CONTENT))
    (folder / "qrels.tsv").write_text(QRELS.replace("\t2\n", "\t1\n"), encoding="utf-8")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert changed(folder, manifest) == ("qrels.tsv",)
    with pytest.raises(LabelerError, match=r"modified after export .*qrels\.tsv"):
        read_version(folder)
    assert read_version(folder, allow_modified=True).content.qrels["q2"]["c1"] == 1


def test_an_edited_hash_in_the_manifest_is_caught_too(tmp_path: Path) -> None:
    folder = write_version(tmp_path / "t" / "v1", serialise(CONTENT), content_hash="sha256:0")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert changed(folder, manifest) == STALE


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("qrels.tsv", "q1 0 c1\n", r"qrels\.tsv:1: expected 4 fields"),
        (
            "qrels.tsv",
            "q1 0 c1 1\nq1 0 c1 2\n",
            r'qrels\.tsv:2: field "chunk_id": .* labelled twice',
        ),
        ("qrels.tsv", "q1 0 c1 3\n", r'qrels\.tsv:1: field "grade": expected 0, 1 or 2'),
        (
            "qrels.tsv",
            "q9 0 c1 1\n",
            r"qrels\.tsv:1: field \"question_id\": qrels name question 'q9'",
        ),
        ("qrels.tsv", "q1 0 c9 1\n", r"qrels\.tsv:1: field \"chunk_id\": qrels name chunk 'c9'"),
        ("qrels.tsv", "q3 0 c1 1\n", r"qrels\.tsv:1: .*'q3' is flagged unanswerable but has qrels"),
        ("questions.jsonl", '{"id": "q1"}\n', r'questions\.jsonl:1: field "question"'),
        ("questions.jsonl", '{"id": "q1", "question": "a", "tags": "x"}\n', r'field "tags"'),
        ("questions.jsonl", "[1]\n", r"questions\.jsonl:1: expected a JSON object"),
        ("chunks.jsonl", '{"id": "c1", "text": ""}\n', r'chunks\.jsonl:1: field "text"'),
        ("chunks.jsonl", "{oops\n", r"chunks\.jsonl:1: not valid JSON"),
    ],
)
def test_a_bad_version_file_names_file_line_and_field(
    tmp_path: Path, file: str, text: str, message: str
) -> None:
    files = serialise(CONTENT)
    files[file] = text.encode()
    with pytest.raises(LabelerError, match=message):
        parse_content(tmp_path, files)


def test_a_folder_without_manifest_is_not_a_version(tmp_path: Path) -> None:
    with pytest.raises(LabelerError, match=r"no manifest\.json"):
        read_version(tmp_path)
    with pytest.raises(LabelerError, match="no such version folder"):
        read_version(tmp_path / "nope")


@pytest.mark.parametrize("name", ["orders-faq", "v1.2_final", "A"])
def test_good_names(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name", ["", ".hidden", "a/b", "../up", "with space", "x" * 101, "orders\n", "orders\r\n"]
)
def test_bad_names(name: str) -> None:
    with pytest.raises(LabelerError, match='field "name"'):
        check_name(name)


def test_trec_ids_cannot_hold_whitespace() -> None:
    check_trec_ids(["q-1", "q-2"], "question")
    with pytest.raises(LabelerError, match="'q 1' holds a space"):
        check_trec_ids(["q-1", "q 1"], "question")
    with pytest.raises(LabelerError, match=r"'q\\u2003' holds whitespace \(U\+2003\)"):
        check_trec_ids(["q\u2003"], "question")  # an em space is whitespace too
    with pytest.raises(LabelerError, match="'' is empty"):
        check_trec_ids(["a", ""], "chunk")
    with pytest.raises(LabelerError, match="starts with '#'"):
        check_trec_ids(["a", "#b"], "chunk")


def test_only_v_number_folders_are_versions(tmp_path: Path) -> None:
    for name in ("v1", "v10", "v2", ".v3-abc.tmp", "v0", "v02", "notes"):
        (tmp_path / "t" / name).mkdir(parents=True)
    assert [n for n, _ in version_dirs(tmp_path, "t")] == [1, 2, 10]
    assert version_dirs(tmp_path, "missing") == []


# a turn of a conversation ---------------------------------------------------------------------

TURN = Turn("c1", 2, (Message("user", "Wie viel?"), Message("assistant", "Hundert.")), "Und dann?")


def with_turn(turn: Turn | None) -> Content:
    questions = {**CONTENT.questions, "c1::2": QuestionEntry("c1::2", "Und?", turn=turn)}
    return Content(questions, CONTENT.qrels, CONTENT.chunks)


def test_a_turn_carries_its_conversation_in_questions_jsonl() -> None:
    line = serialise(with_turn(TURN))["questions.jsonl"].decode().splitlines()[0]
    assert json.loads(line) == {
        "id": "c1::2",
        "question": "Und?",
        "reference_answer": None,
        "tags": [],
        "unanswerable": False,
        "conversation": {
            "id": "c1",
            "turn": 2,
            "history": [
                {"role": "user", "text": "Wie viel?"},
                {"role": "assistant", "text": "Hundert."},
            ],
            "rewrite": "Und dann?",
        },
    }
    # Questions that stand alone are written as they always were: their hashes do not move.
    assert serialise(CONTENT)["questions.jsonl"].decode() == QUESTIONS


def test_the_hash_covers_the_conversation(tmp_path: Path) -> None:
    manifest = {"name": "t", "version": 1, "chunking": "default"}
    completeness = {"completeness.jsonl": b""}
    base = seal(manifest, serialise(with_turn(TURN)) | completeness)["content_hash"]
    other = Turn(TURN.conversation, 2, (*TURN.history[:1], Message("assistant", "100.")))
    assert seal(manifest, serialise(with_turn(other)) | completeness)["content_hash"] != base
    # A reviewer's search choice is a grading setting, not test-set content.
    chose = Turn(TURN.conversation, 2, TURN.history, TURN.rewrite, search="turn")
    assert serialise(with_turn(chose)) == serialise(with_turn(TURN))


def test_a_version_reads_its_turns_back(tmp_path: Path) -> None:
    folder = write_version(tmp_path / "t" / "v1", serialise(with_turn(TURN)), name="t", version=1)
    assert read_version(folder).content.questions["c1::2"].turn == TURN


def test_two_questions_for_one_turn_are_refused(tmp_path: Path) -> None:
    questions = {
        **with_turn(TURN).questions,
        "again": QuestionEntry("again", "Und?", turn=TURN),
    }
    files = serialise(Content(questions, CONTENT.qrels, CONTENT.chunks))
    folder = write_version(tmp_path / "t" / "v1", files, name="t", version=1)
    with pytest.raises(LabelerError) as error:
        read_version(folder)
    assert str(error.value) == (
        f"{folder / 'questions.jsonl'}:2: field \"turn\": turn 2 of conversation 'c1' is also"
        " question 'again' (line 1)"
    )
