"""Reading qrels, runs, questions and test-set versions: formats, both TREC readers, and every
user error as one LabelerError naming the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from labeler.errors import LabelerError
from labeler.metrics import fastread, files
from labeler.metrics.evaluation import evaluate
from labeler.metrics.files import read_qrels, read_questions, read_run
from labeler.metrics.frames import qrels_from_dataframe, run_from_dataframe
from labeler.metrics.testsets import read_testset
from labeler.versions.format import (
    ChunkEntry,
    Content,
    QuestionEntry,
    manifest_bytes,
    seal,
    serialise,
)

QRELS = "q1 0 a 2\nq1 0 b 0\nq2 0 c 1\n"
RUN = "q1 Q0 b 1 2.5 bm25\nq1 Q0 a 2 1.5 bm25\nq2 Q0 c 1 9 bm25\nq2 Q0 d 2 8 bm25\n"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_trec_files_read_as_plain_dicts(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path, "qrels.txt", QRELS))
    run = read_run(write(tmp_path, "bm25.trec", RUN))
    assert qrels.to_dict() == {"q1": {"a": 2, "b": 0}, "q2": {"c": 1}}
    assert run.name == "bm25"
    assert run.to_dict() == {"q1": ["b", "a"], "q2": ["c", "d"]}
    assert run.records()["q1"] == [("b", 1, 2.5), ("a", 2, 1.5)]


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda t: t, id="single spaces (fast reader)"),
        pytest.param(lambda t: t.replace(" ", "\t"), id="tabs (fast reader)"),
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="CRLF (fast reader)"),
        pytest.param(lambda t: t.replace(" ", " \t  "), id="mixed spacing (line reader)"),
        pytest.param(lambda t: "\ufeff" + t, id="BOM (line reader)"),
        pytest.param(lambda t: t.replace("\n", " extra fields\n"), id="trailing fields"),
    ],
)
def test_every_spelling_of_a_trec_run_reads_the_same(tmp_path: Path, variant) -> None:
    run = read_run(write(tmp_path, "r.trec", variant(RUN)), name="r")
    assert run.to_dict() == {"q1": ["b", "a"], "q2": ["c", "d"]}
    assert run.ranks.tolist() == [1, 2, 1, 2]
    assert run.scores.tolist() == [2.5, 1.5, 9.0, 8.0]


def test_the_fast_reader_is_used_for_clean_files_and_agrees(tmp_path: Path) -> None:
    path = write(tmp_path, "r.trec", RUN)
    fast = fastread.fast_run(path, "r", keep_ranks=True, keep_scores=True)
    slow = files._rows_run(path, "r", keep_ranks=True, keep_scores=True)
    assert fast is not None
    assert fast.to_dict() == slow.to_dict()
    assert fast.ranks.tolist() == slow.ranks.tolist()
    assert fast.scores.tolist() == slow.scores.tolist()
    assert (
        fastread.fast_qrels(write(tmp_path, "q.txt", QRELS)).to_dict()
        == read_qrels(write(tmp_path, "q2.txt", QRELS.replace(" ", "  "))).to_dict()
    )


def test_interleaved_questions_group_correctly(tmp_path: Path) -> None:
    text = "q1 Q0 a 1 3 r\nq2 Q0 c 1 3 r\nq1 Q0 b 2 2 r\nq2 Q0 d 2 2 r\n"
    run = read_run(write(tmp_path, "r.trec", text))
    assert run.to_dict() == {"q1": ["a", "b"], "q2": ["c", "d"]}
    result = evaluate({"q1": {"b": 1}, "q2": {"c": 1}}, run, "mrr")
    assert result.per_question("mrr") == {"q1": 0.5, "q2": 1.0}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("qrels.txt", "q1 0 a 2\nq1 0 b\n", r"qrels.txt:2: expected 4 fields"),
        (
            "qrels.txt",
            "q1 0 a 2\nq1 0 b x\n",
            r'qrels.txt:2: field "grade": expected a whole number',
        ),
        ("qrels.txt", "q1 0 a 1.5\n", r'qrels.txt:1: field "grade": expected a whole number'),
        (
            "qrels.txt",
            "q1 0 a 1\nq1 0 b 1\nq1 0 a 2\n",
            r"qrels.txt:3: .*chunk a is labelled twice \(lines 1 and 3\)",
        ),
        ("qrels.txt", "q1 0 a 1 extra\n", r"qrels.txt:1: expected 4 fields"),
    ],
)
def test_bad_qrels_lines(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(LabelerError, match=message):
        read_qrels(write(tmp_path, name, text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 r\n", r"r.trec:2: expected at least 6 fields"),
        ("q1 Q0 a one 2.0 r\n", r'r.trec:1: field "rank": expected a whole number'),
        ("q1 Q0 a 1 high r\n", r'r.trec:1: field "score": expected a number'),
        ("q1 Q0 a 1 nan r\n", r'r.trec:1: field "score": expected a number'),
    ],
)
def test_bad_run_lines(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(LabelerError, match=message):
        read_run(write(tmp_path, "r.trec", text))


@pytest.mark.parametrize("spacing", [" ", " \t "], ids=["fast reader", "line reader"])
def test_a_chunk_listed_twice_is_refused_when_evaluated(tmp_path: Path, spacing: str) -> None:
    """trec_eval refuses such a run too; the check runs with the evaluation (it needs the
    sort by question and chunk that matching does anyway), naming file, run, question, chunk,
    and the lines of both (#19 item 10: row 34 is line 35, the appended one line 501)."""
    lines = [f"q{i // 10} Q0 c{i % 10} {i % 10 + 1} {10 - i % 10} r" for i in range(500)]
    lines.append("q3 Q0 c4 11 0 r")
    path = write(tmp_path, "r.trec", "\n".join(lines).replace(" ", spacing) + "\n")
    run = read_run(path)
    with pytest.raises(LabelerError) as caught:
        evaluate({"q3": {"c4": 1}}, run, "mrr")
    assert str(caught.value) == (
        f"{path}:501: field \"chunk_id\": run 'r': question q3: chunk c4 is listed twice"
        " (lines 35 and 501)"
    )


def test_a_chunk_listed_twice_in_a_json_list_is_on_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "r.json", '{"q1": ["a", "b"],\n "q3": ["c4", "c5", "c4"]}')
    with pytest.raises(LabelerError) as caught:
        evaluate({"q3": {"c4": 1}}, read_run(path), "mrr")
    assert str(caught.value) == (
        f"{path}:2: field \"chunk_id\": run 'r': question q3: chunk c4 is listed twice (on line 2)"
    )


def test_wrong_encoding_names_the_line(tmp_path: Path) -> None:
    data = b"q1 0 a 1\n" + "q1 0 caf\xe9 1\n".encode("latin-1")
    with pytest.raises(LabelerError, match=r"qrels.txt:2: not valid UTF-8"):
        read_qrels(write(tmp_path, "qrels.txt", data))


def test_utf16_is_named(tmp_path: Path) -> None:
    with pytest.raises(LabelerError, match="UTF-16"):
        read_qrels(write(tmp_path, "qrels.txt", QRELS.encode("utf-16")))


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(LabelerError, match="no such file"):
        read_run(tmp_path / "nope.trec")
    with pytest.raises(LabelerError, match="not a file"):
        read_qrels(tmp_path)


def test_empty_files_are_an_error(tmp_path: Path) -> None:
    """#8 item 6: one rule for every reader; an empty run is an error here as in import."""
    with pytest.raises(LabelerError, match=r"q.txt: the file is empty: it holds no labels"):
        read_qrels(write(tmp_path, "q.txt", ""))
    with pytest.raises(LabelerError, match=r"r.trec: the file is empty: it holds no results"):
        read_run(write(tmp_path, "r.trec", "\n\n# only a comment\n"))


def test_jsonl_qrels_and_both_shapes_of_jsonl_runs(tmp_path: Path) -> None:
    qrels = write(
        tmp_path,
        "qrels.jsonl",
        '{"question_id": "q1", "chunk_id": "a", "grade": 2}\n'
        '{"question_id": "q1", "chunk_id": "b", "grade": 0}\n',
    )
    per_result = write(
        tmp_path,
        "results.jsonl",
        '{"question_id": "q1", "chunk_id": "b", "rank": 2, "score": 0.1}\n'
        '{"question_id": "q1", "chunk_id": "a", "rank": 1, "score": 0.9}\n',
    )
    per_question = write(
        tmp_path,
        "lists.jsonl",
        '{"question_id": "q1", "chunk_ids": ["b", "a"], "scores": [0.1, 0.9]}\n',
    )
    labels = read_qrels(qrels)
    assert labels.to_dict() == {"q1": {"a": 2, "b": 0}}
    assert evaluate(labels, read_run(per_result), "mrr").mean("mrr") == 1.0  # by its ranks
    assert evaluate(labels, read_run(per_question), "mrr").mean("mrr") == 0.5  # as listed
    assert evaluate(labels, read_run(per_question), "mrr", order="score").mean("mrr") == 1.0


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("q.jsonl", '{"question_id": "q1", "grade": 1}\n', r'q.jsonl:1: field "chunk_id": missing'),
        (
            "q.jsonl",
            '{"question_id": "q1", "chunk_id": "a"}\n',
            r'q.jsonl:1: field "grade": missing',
        ),
        (
            "q.jsonl",
            '{"question_id": "q1", "chunk_id": "a", "grade": "two"}\n',
            r'field "grade": expected a whole number',
        ),
        ("q.jsonl", '{"question_id": "q1"\n', r"q.jsonl:1: not valid JSON"),
        ("q.jsonl", "[1, 2]\n", r"q.jsonl:1: expected a JSON object"),
    ],
)
def test_bad_jsonl_qrels(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(LabelerError, match=message):
        read_qrels(write(tmp_path, name, text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"chunk_id": "a"}\n', r'r.jsonl:1: field "question_id": missing'),
        (
            '{"question_id": "q", "chunk_id": "a", "rank": 1}\n'
            '{"question_id": "q", "chunk_id": "b"}\n',
            r'r.jsonl:2: field "rank": needs a rank or a score',
        ),
        (
            '{"question_id": "q", "chunk_ids": ["a", "b"], "scores": [1]}\n',
            r'r.jsonl:1: field "scores"',
        ),
        ('{"question_id": "q", "chunk_ids": "a"}\n', r'r.jsonl:1: field "chunk_ids"'),
    ],
)
def test_bad_jsonl_runs(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(LabelerError, match=message):
        read_run(write(tmp_path, "r.jsonl", text))


def test_json_files_as_pytrec_eval_takes_them(tmp_path: Path) -> None:
    qrels = read_qrels(write(tmp_path, "q.json", json.dumps({"q1": {"a": 1}, "q2": {}})))
    run = read_run(write(tmp_path, "r.json", json.dumps({"q1": {"x": 2.0, "a": 1.0}})))
    assert qrels.questions == ("q1", "q2")
    assert evaluate(qrels, run, "mrr", order="score").mean("mrr") == 0.5
    with pytest.raises(LabelerError, match=r"q.json:1: field \"grade\": expected a whole number"):
        read_qrels(write(tmp_path, "q.json", json.dumps({"q1": {"a": "x"}})))


def test_dataframes(tmp_path: Path) -> None:
    labels = pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["a", "b"], "grade": [2, 0]})
    results = pd.DataFrame({"question_id": [1, 1], "chunk_id": ["b", "a"], "rank": [2, 1]})
    qrels = qrels_from_dataframe(labels)
    assert qrels.to_dict() == {"q1": {"a": 2, "b": 0}}
    run = run_from_dataframe(results.assign(question_id="q1"), name="df")
    assert evaluate(qrels, run, "mrr").mean("mrr") == 1.0
    with pytest.raises(LabelerError, match="no column 'grade'"):
        qrels_from_dataframe(labels.drop(columns="grade"))


def test_questions_jsonl(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "questions.jsonl",
        '{"id": "q1", "question": "?", "tags": ["api", "api", "paging"]}\n'
        '{"id": "q2", "unanswerable": true}\n',
    )
    questions = read_questions(path)
    assert [(q.id, q.tags, q.unanswerable) for q in questions] == [
        ("q1", ("api", "paging"), False),
        ("q2", (), True),
    ]
    with pytest.raises(LabelerError, match=r'questions.jsonl:1: field "tags"'):
        read_questions(write(tmp_path, "questions.jsonl", '{"id": "q1", "tags": "api"}\n'))


def make_version(root: Path, name: str = "docs-qa", version: int = 3) -> Path:
    """A version folder as ``labeler export`` writes it (its own serialisation and hash)."""
    content = Content(
        questions={
            "q1": QuestionEntry("q1", "How do I retry?", tags=("api",)),
            "q2": QuestionEntry("q2", "Next page?", tags=("api", "paging")),
            "q3": QuestionEntry("q3", "Who is the CEO?", unanswerable=True),
        },
        qrels={"q1": {"rate-limits": 2, "errors": 1}, "q2": {"pagination": 2}},
        chunks={c: ChunkEntry(c, f"text of {c}") for c in ("errors", "pagination", "rate-limits")},
    )
    files = serialise(content)
    folder = root / name / f"v{version}"
    folder.mkdir(parents=True)
    for file_name, data in files.items():
        (folder / file_name).write_bytes(data)
    manifest = {
        "format": "labeler-testset/1",
        "name": name,
        "version": version,
    }
    (folder / "manifest.json").write_bytes(manifest_bytes(seal(manifest, files)))
    return folder


def test_read_testset(tmp_path: Path) -> None:
    folder = make_version(tmp_path)
    version = read_testset(folder)
    assert (version.name, version.version) == ("docs-qa", 3)
    assert version.content_hash.startswith("sha256:")
    assert version.qrels.questions == ("q1", "q2", "q3")
    assert {q.id: q.tags for q in version.questions}["q2"] == ("api", "paging")
    result = evaluate(version.qrels, {"q1": ["rate-limits"], "q2": ["x"]}, "recall@1")
    assert result.unanswerable == 1  # q3, flagged, has no qrels line
    assert result.missing == 1
    assert read_testset(tmp_path / "docs-qa").path == str(folder)  # the latest version


def test_a_modified_version_is_refused(tmp_path: Path) -> None:
    folder = make_version(tmp_path)
    qrels = folder / "qrels.tsv"
    qrels.write_text(qrels.read_text(encoding="utf-8").replace("\t2\n", "\t1\n"), encoding="utf-8")
    with pytest.raises(LabelerError, match=r"modified after export .*qrels.tsv"):
        read_testset(folder)


def test_not_a_version_folder(tmp_path: Path) -> None:
    with pytest.raises(LabelerError, match="not a test-set version folder"):
        read_testset(tmp_path)


@pytest.mark.parametrize("spacing", [" ", "  "], ids=["fast reader", "line reader"])
def test_a_run_read_for_one_order_keeps_only_that_column(tmp_path: Path, spacing: str) -> None:
    path = write(tmp_path, "r.trec", RUN.replace(" ", spacing))
    by_rank = read_run(path, order="rank")
    by_score = read_run(path, order="score")
    assert (by_rank.ranks.tolist(), by_rank.scores) == ([1, 2, 1, 2], None)
    assert (by_score.ranks, by_score.scores.tolist()) == (None, [2.5, 1.5, 9.0, 8.0])
    junk = write(tmp_path, "junk.trec", "q1 Q0 a 1 high r\n".replace(" ", spacing))
    for order in ("rank", "score"):  # one grammar: every field is checked, whatever is kept
        with pytest.raises(LabelerError, match=r'junk.trec:1: field "score"'):
            read_run(junk, order=order)
