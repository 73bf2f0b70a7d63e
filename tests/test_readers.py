import ast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeler.errors import LabelerError
from labeler.readers import (
    as_id,
    as_name,
    as_object,
    as_texts,
    iter_columns,
    iter_csv,
    iter_items,
    iter_jsonl,
    iter_qrels,
    iter_records,
    json_document,
    parse_literal,
)
from labeler.readers.fields import _string_list


def test_jsonl_yields_line_numbers_and_skips_blank_lines(tmp_path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n{"a": 2}\r\n')
    assert list(iter_jsonl(path)) == [(1, {"a": 1}), (3, {"a": 2})]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": 1}\n{"a": \n', r"a.jsonl:2: not valid JSON"),
        (b'{"a": 1}\n[1, 2]\n', r"a.jsonl:2: expected a JSON object, got a list"),
        # json says "Unterminated string starting at": the message says "at" once.
        (b'{"a": "open', r"a.jsonl:1: not valid JSON: Unterminated string starting at column 7$"),
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


# #19: malformed input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "line", "field", "says"),
    [
        ('id,text\nc1,"hello\nc2,world\n', 2, "text", "is never closed"),
        ('id,text\nc1,"hello\nc2,"world"\n', 2, "text", "closing '\"' on line 3"),
        ('id,text\nc1,"he"llo\n', 2, "text", "has more text after its closing '\"' (a quote"),
        ('id,"te\nxt\n', 1, "column 2", "is never closed"),
        ('id,text\nc0,ok\n"c1\n', 3, "id", "is never closed"),
    ],
)
def test_a_badly_quoted_cell_names_the_line_it_opens_on(tmp_path, content, line, field, says):
    """#19 item 5: read leniently, one missing quote swallowed every row after it."""
    path = tmp_path / "u.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LabelerError) as caught:
        list(iter_csv(path))
    assert (caught.value.line, caught.value.field) == (line, field)
    assert says in caught.value.message


def test_quoted_cells_that_close_read_as_before(tmp_path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('id,text\n1,"say ""hi""\n\nthen, go"\n2,a"b\n', encoding="utf-8")
    assert list(iter_csv(path)) == [
        (2, {"id": "1", "text": 'say "hi"\n\nthen, go'}),
        (5, {"id": "2", "text": 'a"b'}),
    ]


def test_deep_json_is_one_error_naming_the_line_and_field(tmp_path) -> None:
    """#19 item 7: '[' 10,000 times was a RecursionError traceback."""
    lines = tmp_path / "a.jsonl"
    lines.write_text('{"a": 1}\n{"id": "c", "text": ' + "[" * 5000 + "}\n", encoding="utf-8")
    with pytest.raises(LabelerError) as caught:
        list(iter_jsonl(lines))
    assert str(caught.value) == (
        f'{lines}:2: field "text": lists or objects nested too deep: 5,001 levels, more than'
        " Python's JSON parser can follow"
    )
    document = tmp_path / "d.json"
    document.write_text('{"items": [\n{"a": 1},\n' + "[" * 5000 + "\n]}", encoding="utf-8")
    with pytest.raises(LabelerError, match=r'd.json:3: field "items": .* deep: 5,002 levels'):
        json_document(document)
    listed = tmp_path / "l.json"
    listed.write_text('[\n{"q": "a"},\n{"q": "b",\n "c": ' + "[" * 5000 + "}]", encoding="utf-8")
    with pytest.raises(LabelerError) as caught:
        list(iter_items(listed))
    assert (caught.value.line, caught.value.field) == (4, "c")


def test_deep_values_in_cells_and_objects() -> None:
    with pytest.raises(LabelerError, match="could not read it: lists or objects nested too deep"):
        as_texts("[" * 5000, path="f.csv", line=2, field="contexts")
    deep: list = []
    for _ in range(150):
        deep = [deep]
    with pytest.raises(LabelerError, match=r'field "metadata": .* more than 100 levels'):
        as_object({"a": deep}, path="f.jsonl", line=1, field="metadata")
    assert as_object({"a": [[[1]]]}) == {"a": [[[1]]]}


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("a\u200bb", "an invisible formatting character (U+200B ZERO WIDTH SPACE)"),
        ("a\u202eb", "an invisible formatting character (U+202E RIGHT-TO-LEFT OVERRIDE)"),
        ("\ufeffa", "(U+FEFF ZERO WIDTH NO-BREAK SPACE)"),
        ("a\u2028b", "whitespace (U+2028)"),
        ("a\x85b", "whitespace (U+0085)"),
        ("a\ud800", "a lone surrogate (U+D800)"),
    ],
)
def test_ids_refuse_invisible_characters(value: str, says: str) -> None:
    """#19 item 9: U+200B and U+202E made two ids that look the same."""
    with pytest.raises(LabelerError) as caught:
        as_id(value, path="c.jsonl", line=3)
    assert says in caught.value.message
    assert (caught.value.line, caught.value.field) == (3, "id")


@pytest.mark.parametrize("value", ["q-1", "Ω", "日本語", "a:b/c", "😀", "\ue000"])
def test_ids_keep_visible_text(value: str) -> None:
    assert as_id(value) == value


def test_a_name_follows_the_rule_of_ids() -> None:
    assert as_name("512-overlap-64", what="chunking") == "512-overlap-64"
    for bad, says in (("", "'' is empty"), ("a\tb", "holds a tab"), ("#v", "starts with '#'")):
        with pytest.raises(LabelerError) as caught:
            as_name(bad, what="chunking")
        assert caught.value.field == "chunking"
        assert caught.value.message.startswith("a chunking name is not empty, without whitespace")
        assert says in caught.value.message


def test_trec_fields_refuse_invisible_characters(tmp_path) -> None:
    path = tmp_path / "q.qrels"
    path.write_text("q1 0 a 1\nq1 0 b\u2060c 1\n", encoding="utf-8")
    with pytest.raises(LabelerError) as caught:
        list(iter_qrels(path))
    assert (caught.value.line, caught.value.field) == (2, "chunk_id")
    assert "(U+2060 WORD JOINER)" in caught.value.message


def test_a_lone_surrogate_in_text_names_its_field(tmp_path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": "c", "text": "ok \\ud83d\\ude00"}\n{"id": "d", "text": "\\udc00"}\n')
    with pytest.raises(LabelerError) as caught:
        list(iter_jsonl(path))
    assert (caught.value.line, caught.value.field) == (2, "text")
    assert "lone surrogate" in caught.value.message
    with pytest.raises(ValueError, match="lone surrogate"):
        parse_literal("['\\ud800']")


texts = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=8)


@given(st.lists(texts, max_size=5), st.sampled_from([", ", ",", " , ", ",\n "]), st.booleans())
def test_a_python_list_of_texts_reads_as_ast_reads_it(items, separator, trailing) -> None:
    """The fast reader of Ragas' list cells (#19 item 11) gives what ast.literal_eval gives,
    or declines and leaves it to ast."""
    text = "[" + separator.join(repr(i) for i in items) + ("," if trailing and items else "") + "]"
    fast = _string_list(text)
    assert fast is None or fast == ast.literal_eval(text)
    assert parse_literal(text) == items
