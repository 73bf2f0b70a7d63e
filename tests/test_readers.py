import pytest

from labeler.errors import LabelerError
from labeler.readers import iter_columns, iter_csv, iter_jsonl, iter_records


def test_jsonl_yields_line_numbers_and_skips_blank_lines(tmp_path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n{"a": 2}\r\n')
    assert list(iter_jsonl(path)) == [(1, {"a": 1}), (3, {"a": 2})]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": 1}\n{"a": \n', r"a.jsonl:2: not valid JSON"),
        (b'{"a": 1}\n[1, 2]\n', r"a.jsonl:2: expected a JSON object, got a list"),
        (b'{"a": 1}\n{"a": "caf\xe9"}\n', r"a.jsonl:2: not valid UTF-8"),
    ],
)
def test_jsonl_errors_name_the_file_and_line(tmp_path, content, message) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(content)
    with pytest.raises(LabelerError, match=message):
        list(iter_jsonl(path))


def test_csv_rows_start_at_their_physical_line(tmp_path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('id,text\n1,"two\nlines"\n2,plain\n', encoding="utf-8")
    assert list(iter_csv(path)) == [
        (2, {"id": "1", "text": "two\nlines"}),
        (4, {"id": "2", "text": "plain"}),
    ]


def test_csv_with_a_wrong_column_count(tmp_path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("id,text\n1,a,extra\n", encoding="utf-8")
    with pytest.raises(LabelerError, match=r"q.csv:2: expected 2 columns"):
        list(iter_csv(path))


def test_columns_skip_comments(tmp_path) -> None:
    path = tmp_path / "r.trec"
    path.write_text("# comment\nq1 Q0 a 1 2.0 x\n\n", encoding="utf-8")
    assert list(iter_columns(path)) == [(2, ["q1", "Q0", "a", "1", "2.0", "x"])]


def test_missing_file_and_unknown_type(tmp_path) -> None:
    with pytest.raises(LabelerError, match="no such file"):
        iter_records(tmp_path / "none.jsonl")
    (tmp_path / "x.xml").write_text("<x/>")
    with pytest.raises(LabelerError, match=r"unknown file type '\.xml'"):
        iter_records(tmp_path / "x.xml")
