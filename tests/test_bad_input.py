"""Every bad input, through every importer it applies to, from the command line (#8's table).

Each case is a file (or a folder) with one defect, imported with ``labeler import KIND`` into a
database already holding the worked-example corpus. Each must exit with code 2 and print one
line naming the file, the line and the field, and leave the database exactly as it was (a full
SQL dump compared before and after). The defects are those of issue #8 (items 3 to 7 and 12):
ids that TREC files cannot carry, silent coercions, the BEIR header, empty files, the two
tracebacks, and errors without a line number; plus the classic ones (bad JSON, a wrong column
count, an unknown id); and those of issue #19 (items 5 and 7 to 10): unclosed CSV quotes, deep
JSON, an out-of-range judge score, invisible characters and loose names, long values, and
eval's duplicate chunk. A case with a ``command`` runs that command (``judge import``,
``eval``) instead of ``import KIND``; every error line is short, whatever the file holds."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.store import Store
from labeler.versions.signing import SigningKey
from tests.conftest import CHUNKS, QUESTIONS, write_jsonl


@dataclass(frozen=True)
class Case:
    """``files`` maps a path (relative to the case's folder) to its text; ``target`` is what
    the command is given; the error must match ``where`` (``file:line: field "f":``) and
    ``says`` (part of the message)."""

    name: str
    kind: str
    files: dict[str, str | bytes]
    where: str
    says: str
    target: str | None = None
    options: tuple[str, ...] = ()
    command: tuple[str, ...] = ()  # the command before the file; "{dir}" is the case's folder

    def arguments(self, folder: Path, target: Path, db: Path) -> list[str]:
        if not self.command:
            return ["import", self.kind, str(target), *self.options, "--db", str(db)]
        prefix = [part.format(dir=folder) for part in self.command]
        return ["--db", str(db), *prefix, str(target), *self.options]


def jl(*records: object) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


GOOD_CHUNK = {"id": "c-1", "text": "A chunk."}
GOOD_Q = {"id": "nq", "question": "New?"}


def beir(corpus: str, queries: str, qrels: str) -> dict[str, str]:
    return {"b/corpus.jsonl": corpus, "b/queries.jsonl": queries, "b/qrels/test.tsv": qrels}


BEIR_CORPUS = jl({"_id": "b1", "text": "one"}, {"_id": "b2", "text": "two"})
BEIR_QUERIES = jl({"_id": "bq", "text": "Which?"})
DEEP = "[" * 10_000  # #19 item 7: a RecursionError traceback in every JSON reader
JUDGE = ("judge", "import")
BIG = "x" * 1_000_000  # #19 item 10: a long value is cut in the message


def ragas_results(bad_row: int, value: str) -> str:
    """50 rows of Ragas results, faithfulness ``value`` on the row ``bad_row`` (from 0)."""
    rows = [f"Q{i}?,A{i},\"['c{i}']\",{value if i == bad_row else '0.5'}" for i in range(50)]
    return "user_input,response,retrieved_contexts,faithfulness\n" + "\n".join(rows) + "\n"


CASES = [
    # 3. ids that TREC files cannot carry ---------------------------------------------------
    Case(
        "chunk id with NUL",
        "chunks",
        {"c.jsonl": jl(GOOD_CHUNK, {"id": "a\0b", "text": "t"})},
        'c.jsonl:2: field "id"',
        "control character",
    ),
    Case(
        "chunk id with tab",
        "chunks",
        {"c.jsonl": jl({"id": "a\tb", "text": "t"})},
        'c.jsonl:1: field "id"',
        "holds a tab",
    ),
    Case(
        "chunk id with newline (CSV)",
        "chunks",
        {"c.csv": 'id,text\n"a\nb",t\n'},
        'c.csv:2: field "id"',
        "holds a line break",
    ),
    Case(
        "chunk id with no-break space",
        "chunks",
        {"c.jsonl": jl({"id": "a\u00a0b", "text": "t"})},
        'c.jsonl:1: field "id"',
        "U+00A0",
    ),
    Case(
        "chunk id starting with #",
        "chunks",
        {"c.jsonl": jl({"id": "#1", "text": "t"})},
        'c.jsonl:1: field "id"',
        "starts with '#'",
    ),
    Case(
        "doc id with space",
        "chunks",
        {"c.jsonl": jl({"id": "c", "text": "t", "doc_id": "d 1"})},
        'c.jsonl:1: field "doc_id"',
        "holds a space",
    ),
    Case(
        "document id with CR",
        "documents",
        {"d.jsonl": jl({"id": "d\r", "text": "t"})},
        'd.jsonl:1: field "id"',
        "carriage return",
    ),
    Case(
        "question id with space",
        "questions",
        {"q.jsonl": jl(GOOD_Q, {"id": "q 9", "question": "x"})},
        'q.jsonl:2: field "id"',
        "holds a space",
    ),
    Case(
        "question id with NUL (TSV)",
        "questions",
        {"q.tsv": "id\tquestion\nq\0\tx\n"},
        'q.tsv:2: field "id"',
        "control character",
    ),
    Case(
        "run chunk id with NUL",
        "run",
        {"r.trec": "q1 Q0 rate\0limits 1 2 r\n"},
        'r.trec:1: field "chunk_id"',
        "control character",
    ),
    Case(
        "run id with no-break space",
        "run",
        {"r.trec": "q1 Q0 rate\u00a0limits 1 2 r\n"},
        'r.trec:1: field "chunk_id"',
        "U+00A0",
    ),
    Case(
        "run JSONL id with tab",
        "run",
        {"r.jsonl": jl({"question_id": "q1", "chunk_id": "a\tb", "rank": 1})},
        'r.jsonl:1: field "chunk_id"',
        "holds a tab",
    ),
    Case(
        "qrels id with vertical tab",
        "qrels",
        {"q.qrels": "q1 0 rate-limits 1\nq1 0 a\x0bb 1\n"},
        'q.qrels:2: field "chunk_id"',
        "U+000B",
    ),
    Case(
        "qrels chunk id starting with #",
        "qrels",
        {"q.qrels": "q1 0 #x 1\n"},
        'q.qrels:1: field "chunk_id"',
        "starts with '#'",
    ),
    Case(
        "BEIR corpus id with space",
        "beir",
        beir(jl({"_id": "b 1", "text": "x"}), BEIR_QUERIES, "bq\tb1\t1\n"),
        'corpus.jsonl:1: field "id"',
        "holds a space",
        target="b",
    ),
    Case(
        "BEIR qrels id with NUL",
        "beir",
        beir(BEIR_CORPUS, BEIR_QUERIES, "bq\tb\x001\t1\n"),
        'test.tsv:1: field "corpus-id"',
        "control character",
        target="b",
    ),
    Case(
        "Ragas id with tab",
        "ragas",
        {"r.jsonl": jl({"user_input": "Q?", "id": "r\t1"})},
        'r.jsonl:1: field "id"',
        "holds a tab",
    ),
    Case(
        "DeepEval question_id with newline",
        "deepeval",
        {"g.json": json.dumps([{"input": "Q?", "additional_metadata": {"question_id": "g\n1"}}])},
        'g.json:1: field "additional_metadata.question_id"',
        "line break",
    ),
    Case(
        "DeepEval chunk id with space",
        "deepeval",
        {"g.json": json.dumps([{"input": "Q?", "additional_metadata": {"chunk_ids": ["a b"]}}])},
        'g.json:1: field "additional_metadata.chunk_ids"',
        "holds a space",
    ),
    # 4. silent coercion ----------------------------------------------------------------------
    Case(
        "float id",
        "chunks",
        {"c.jsonl": jl({"id": 1.5, "text": "t"})},
        'c.jsonl:1: field "id"',
        "a float",
    ),
    Case(
        "whole float id",
        "chunks",
        {"c.jsonl": jl({"id": 3.0, "text": "t"})},
        'c.jsonl:1: field "id"',
        "a float",
    ),
    Case(
        "NaN id",
        "questions",
        {"q.jsonl": '{"id": NaN, "question": "x"}\n'},
        "q.jsonl:1: ",
        "NaN is not a JSON number",
    ),
    Case(
        "number as text",
        "chunks",
        {"c.jsonl": jl({"id": "c", "text": 12345})},
        'c.jsonl:1: field "text"',
        "expected text, got the number 12345",
    ),
    Case(
        "number as a question",
        "questions",
        {"q.jsonl": jl({"id": "q", "question": 1e16})},
        'q.jsonl:1: field "question"',
        "expected text",
    ),
    Case(
        "qrels grade 0_1",
        "qrels",
        {"q.qrels": "q1 0 rate-limits 0_1\n"},
        'q.qrels:1: field "grade"',
        "expected a whole number, got '0_1'",
    ),
    Case(
        "qrels full-width grade",
        "qrels",
        {"q.qrels": "q1 0 rate-limits \uff12\n"},
        'q.qrels:1: field "grade"',
        "expected a whole number",
    ),
    Case(
        "qrels grade 1.0",
        "qrels",
        {"q.qrels": "q1 0 rate-limits 1.0\n"},
        'q.qrels:1: field "grade"',
        "expected a whole number",
    ),
    Case(
        "run score inf",
        "run",
        {"r.trec": "q1 Q0 rate-limits 1 inf r\n"},
        'r.trec:1: field "score"',
        "expected a number, got 'inf'",
    ),
    Case(
        "run score 1e999",
        "run",
        {"r.trec": "q1 Q0 rate-limits 1 1e999 r\n"},
        'r.trec:1: field "score"',
        "finite",
    ),
    Case(
        "run rank 0",
        "run",
        {"r.trec": "q1 Q0 rate-limits 0 1 r\n"},
        'r.trec:1: field "rank"',
        "rank of 1 or more, got 0",
    ),
    Case(
        "run rank -3",
        "run",
        {"r.jsonl": jl({"question_id": "q1", "chunk_id": "pagination", "rank": -3})},
        'r.jsonl:1: field "rank"',
        "rank of 1 or more",
    ),
    Case(
        "duplicate JSON key",
        "chunks",
        {"c.jsonl": '{"id": "c", "text": "a", "text": "b"}\n'},
        'c.jsonl:1: field "text"',
        "appears twice",
    ),
    Case(
        "duplicate key in a Ragas list",
        "ragas",
        {"r.json": '[\n {"user_input": "A?"},\n {"user_input": "B?", "user_input": "C?"}\n]'},
        'r.json:3: field "user_input"',
        "appears twice",
    ),
    Case(
        "DeepEval chunk_ids not a list",
        "deepeval",
        {"g.json": json.dumps([{"input": "Q?", "additional_metadata": {"chunk_ids": "c-1"}}])},
        'g.json:1: field "additional_metadata.chunk_ids"',
        "expected a list",
    ),
    Case(
        "Ragas context an object",
        "ragas",
        {"r.csv": "user_input,reference_contexts\nQ?,\"[{'a': 1}]\"\n"},
        'r.csv:2: field "reference_contexts"',
        "item 1 is an object",
    ),
    Case(
        "Ragas context a number",
        "ragas",
        {"r.jsonl": jl({"user_input": "Q?", "reference_contexts": ["x", 1]})},
        'r.jsonl:1: field "reference_contexts"',
        "item 2 is the number 1",
    ),
    # 5. the BEIR header ----------------------------------------------------------------------
    Case(
        "BEIR first line with a bad score",
        "beir",
        beir(BEIR_CORPUS, BEIR_QUERIES, "bq\tb1\thigh\n"),
        'test.tsv:1: field "score"',
        "expected a whole number",
        target="b",
    ),
    # 6. empty files --------------------------------------------------------------------------
    Case(
        "empty chunks with a new chunking",
        "chunks",
        {"c.jsonl": ""},
        "c.jsonl: ",
        "the file is empty: it holds no chunks",
        options=("--chunking", "v9"),
    ),
    Case(
        "chunks CSV with a header only",
        "chunks",
        {"c.csv": "id,text\n"},
        "c.csv: ",
        "the file is empty",
    ),
    Case("empty documents", "documents", {"d.jsonl": "\n\n"}, "d.jsonl: ", "the file is empty"),
    Case("empty questions", "questions", {"q.jsonl": ""}, "q.jsonl: ", "the file is empty"),
    Case(
        "empty qrels",
        "qrels",
        {"q.qrels": ""},
        "q.qrels: ",
        "the file is empty: it holds no labels",
    ),
    Case(
        "qrels of comments only",
        "qrels",
        {"q.qrels": "# nothing\n"},
        "q.qrels: ",
        "the file is empty",
    ),
    Case("empty run", "run", {"r.trec": ""}, "r.trec: ", "the file is empty: it holds no results"),
    Case("empty Ragas list", "ragas", {"r.json": "[]"}, "r.json: ", "the file is empty"),
    Case("empty DeepEval file", "deepeval", {"g.jsonl": ""}, "g.jsonl: ", "the file is empty"),
    Case(
        "empty BEIR qrels",
        "beir",
        beir(BEIR_CORPUS, BEIR_QUERIES, "query-id\tcorpus-id\tscore\n"),
        "test.tsv: ",
        "the file is empty",
        target="b",
    ),
    # 7. what were tracebacks -----------------------------------------------------------------
    Case(
        "title that is a list",
        "chunks",
        {"c.jsonl": jl({"id": "c", "text": "t", "title": ["a"]})},
        'c.jsonl:1: field "title"',
        "expected text, got a list",
    ),
    Case(
        "document title that is a list",
        "documents",
        {"d.jsonl": jl({"id": "d", "text": "t", "title": ["a"]})},
        'd.jsonl:1: field "title"',
        "expected text, got a list",
    ),
    # 12. line numbers everywhere ---------------------------------------------------------------
    Case(
        "Latin-1 in Ragas JSON",
        "ragas",
        {"r.json": '[\n {"user_input": "A?"},\n {"user_input": "caf\xe9"}\n]'.encode("latin-1")},
        "r.json:3: ",
        "not valid UTF-8",
    ),
    Case(
        "Latin-1 in DeepEval JSON",
        "deepeval",
        {"g.json": '[{"input": "caf\xe9"}]'.encode("latin-1")},
        "g.json:1: ",
        "not valid UTF-8",
    ),
    Case(
        "unclosed JSON array",
        "ragas",
        {"r.json": '[\n {"user_input": "A?"},\n {"user_input": "B?"}\n'},
        "r.json:3: ",
        "is not closed",
    ),
    Case(
        "unclosed DeepEval list mid-item",
        "deepeval",
        {"g.json": '[\n{"input": "A?"},\n{"input": "B'},
        "g.json:3: ",
        "not valid JSON",
    ),
    # the classics ---------------------------------------------------------------------------
    Case(
        "bad JSON",
        "chunks",
        {"c.jsonl": jl(GOOD_CHUNK) + '{"id": "x",\n'},
        "c.jsonl:2: ",
        "not valid JSON",
    ),
    Case(
        "qrels with 3 fields",
        "qrels",
        {"q.qrels": "q1 0 rate-limits 1\nq1 0 pagination\n"},
        "q.qrels:2: ",
        "expected 4 fields",
    ),
    Case(
        "run with 5 fields",
        "run",
        {"r.trec": "q1 Q0 rate-limits 1 2\n"},
        "r.trec:1: ",
        "expected at least 6 fields",
    ),
    Case(
        "unknown question in a run",
        "run",
        {"r.trec": "q1 Q0 rate-limits 1 2 r\nq7 Q0 pagination 2 1 r\n"},
        'r.trec:2: field "question_id"',
        "unknown question id 'q7'",
    ),
    Case(
        "unknown chunk in a JSON run",
        "run",
        {"r.json": '{"q1": ["rate-limits",\n "ghost"]}'},
        'r.json:1: field "chunk_id"',
        "unknown chunk id 'ghost'",
    ),
    Case(
        "qrels grade 3",
        "qrels",
        {"q.qrels": "q1 0 rate-limits 3\n"},
        'q.qrels:1: field "grade"',
        "expected 0, 1 or 2, got 3",
    ),
    Case(
        "qrels labelled twice",
        "qrels",
        {"q.qrels": "q1 0 rate-limits 1\nq1 0 rate-limits 2\n"},
        'q.qrels:2: field "chunk_id"',
        "labelled twice (lines 1 and 2)",
    ),
    Case(
        "UTF-16 questions",
        "questions",
        {"q.jsonl": jl(GOOD_Q).encode("utf-16")},
        "q.jsonl:1: ",
        "UTF-16",
    ),
    Case(
        "CSV row with an extra cell",
        "questions",
        {"q.csv": "id,question\nq,x,y\n"},
        "q.csv:2: ",
        "expected 2 columns",
    ),
    # #19 item 5: an unclosed quote swallowed every row after it -------------------------------
    Case(
        "unclosed quote in a chunks CSV",
        "chunks",
        {"u.csv": 'id,text\nc1,"hello\nc2,world\n'},
        'u.csv:2: field "text"',
        "the quoted cell that opens here is never closed",
    ),
    Case(
        "text after a closing quote, rows later",
        "chunks",
        {"u.csv": 'id,text\nc1,"hello\nc2,"world"\n'},
        'u.csv:2: field "text"',
        "has more text after its closing '\"' on line 3",
    ),
    Case(
        "unclosed quote in a questions TSV",
        "questions",
        {"q.tsv": 'id\tquestion\nq1\tWhy?\nq9\t"How?\nq10\tWhen?\n'},
        'q.tsv:3: field "question"',
        "never closed",
    ),
    Case(
        "unclosed quote in a Ragas CSV",
        "ragas",
        {"r.csv": 'user_input,reference_contexts\n"Q?,x\nR?,y\n'},
        'r.csv:2: field "user_input"',
        "never closed",
    ),
    Case(
        "unclosed quote in a DeepEval CSV",
        "deepeval",
        {"g.csv": 'input,expected_output\nQ?,"A\nR?,B\n'},
        'g.csv:2: field "expected_output"',
        "never closed",
    ),
    Case(
        "unclosed quote in Ragas results",
        "judge",
        {"r.csv": ragas_results(3, '"0.5')},
        'r.csv:5: field "faithfulness"',
        "has more text after its closing '\"' on line 6",
        command=JUDGE,
    ),
    # #19 item 7: deep JSON ---------------------------------------------------------------------
    Case(
        "deep JSON in a chunk's text",
        "chunks",
        {"c.jsonl": jl(GOOD_CHUNK) + '{"id": "c", "text": ' + DEEP + "}\n"},
        'c.jsonl:2: field "text"',
        "nested too deep: 10,001 levels",
    ),
    Case(
        "deep chunk metadata that Python still parses",
        "chunks",
        {
            "c.jsonl": '{"id": "c", "text": "t", "metadata": {"a": '
            + "[" * 120
            + "1"
            + "]" * 120
            + "}}\n"
        },
        'c.jsonl:1: field "metadata"',
        "nested too deep: more than 100 levels",
    ),
    Case("deep JSON questions", "questions", {"q.json": DEEP}, "q.json:1: ", "nested too deep"),
    Case("deep JSON Ragas", "ragas", {"r.json": DEEP}, "r.json:1: ", "nested too deep"),
    Case(
        "deep list in a Ragas CSV cell",
        "ragas",
        {"r.csv": f'user_input,reference_contexts\nQ?,"{DEEP}"\n'},
        'r.csv:2: field "reference_contexts"',
        "could not read it: lists or objects nested too deep",
    ),
    Case("deep JSON DeepEval", "deepeval", {"g.json": DEEP}, "g.json:1: ", "nested too deep"),
    Case(
        "deep JSON run",
        "run",
        {"r.json": '{"q1": ' + DEEP + "}"},
        "r.json:1: ",
        "nested too deep: 10,000 levels",
    ),
    Case(
        "deep JSON qrels",
        "qrels",
        {"q.jsonl": '{"question_id": "q1", "chunk_id": ' + DEEP + "}\n"},
        'q.jsonl:1: field "chunk_id"',
        "nested too deep",
    ),
    Case(
        "deep JSON judge file",
        "judge",
        {"j.json": DEEP},
        "j.json:1: ",
        "nested too deep",
        command=JUDGE,
    ),
    Case(
        "deep JSON judge lines",
        "judge",
        {"j.jsonl": '{"item": "a", "verdict": ' + DEEP + "}\n"},
        'j.jsonl:1: field "verdict"',
        "nested too deep",
        command=JUDGE,
    ),
    Case(
        "deep JSON run for eval",
        "eval",
        {"q.qrels": "q1 0 rate-limits 1\n", "r.json": '{"q1": ' + DEEP + "}"},
        "r.json:1: ",
        "nested too deep",
        target="r.json",
        command=("eval", "--qrels", "{dir}/q.qrels", "--run"),
    ),
    # #19 item 8: one score off its scale -------------------------------------------------------
    Case(
        "faithfulness 1.02 in 50 Ragas results",
        "judge",
        {"r.csv": ragas_results(37, "1.02")},
        'r.csv:39: field "faithfulness"',
        "1.02 is not a verdict on faithfulness's scale: a score from 0 to 1",
        command=JUDGE,
    ),
    # #19 item 9: invisible characters and loose names -------------------------------------------
    Case(
        "chunk id with a zero width space",
        "chunks",
        {"c.jsonl": jl({"id": "rate\u200blimits", "text": "t"})},
        'c.jsonl:1: field "id"',
        "invisible formatting character (U+200B ZERO WIDTH SPACE)",
    ),
    Case(
        "question id with a bidi override",
        "questions",
        {"q.csv": "id,question\nq\u202e1,Why?\n"},
        'q.csv:2: field "id"',
        "(U+202E RIGHT-TO-LEFT OVERRIDE)",
    ),
    Case(
        "run chunk id with a zero width space",
        "run",
        {"r.trec": "q1 Q0 rate\u200blimits 1 2 r\n"},
        'r.trec:1: field "chunk_id"',
        "invisible formatting character (U+200B ZERO WIDTH SPACE)",
    ),
    Case(
        "qrels chunk id with a word joiner",
        "qrels",
        {"q.qrels": "q1 0 rate-limits 1\nq1 0 pagi\u2060nation 1\n"},
        'q.qrels:2: field "chunk_id"',
        "U+2060 WORD JOINER",
    ),
    Case(
        "Ragas id with a line separator",
        "ragas",
        {"r.jsonl": jl({"user_input": "Q?", "id": "r\u20281"})},
        'r.jsonl:1: field "id"',
        "U+2028",
    ),
    Case(
        "chunk id with a lone surrogate",
        "chunks",
        {"c.jsonl": '{"id": "c\\ud800", "text": "t"}\n'},
        'c.jsonl:1: field "id"',
        "lone surrogate",
    ),
    Case(
        "chunk text with a lone surrogate",
        "chunks",
        {"c.jsonl": '{"id": "c", "text": "half an emoji \\ud83d"}\n'},
        'c.jsonl:1: field "text"',
        "lone surrogate",
    ),
    Case(
        "empty chunking name",
        "chunks",
        {"c.jsonl": jl(GOOD_CHUNK)},
        'Error: field "chunking": a chunking name is not empty',
        "'' is empty",
        options=("--chunking", ""),
    ),
    Case(
        "chunking name with a tab",
        "chunks",
        {"c.jsonl": jl(GOOD_CHUNK)},
        'Error: field "chunking": ',
        "'a\\tb' holds a tab",
        options=("--chunking", "a\tb"),
    ),
    Case(
        "unanswerable maybe",
        "questions",
        {"q.jsonl": jl(GOOD_Q, {"id": "q9", "question": "Why?", "unanswerable": "maybe"})},
        'q.jsonl:2: field "unanswerable"',
        "expected true or false, got 'maybe'",
    ),
    Case(
        "unanswerable maybe in a CSV",
        "questions",
        {"q.csv": "id,question,unanswerable\nq9,Why?,maybe\n"},
        'q.csv:2: field "unanswerable"',
        "expected true or false",
    ),
    # #19 item 10: long values, and the lines of both duplicates -------------------------------
    Case(
        "a 1 MB unknown question id",
        "run",
        {"r.trec": f"{BIG} Q0 rate-limits 1 2 r\n"},
        'r.trec:1: field "question_id"',
        "unknown question id 'xxxxxxxx",
    ),
    Case(
        "a 1 MB chunk id with a space",
        "chunks",
        {"c.jsonl": jl({"id": BIG + " y", "text": "t"})},
        'c.jsonl:1: field "id"',
        "… (1,000,002 characters) holds a space",
    ),
    Case(
        "a 1 MB id labelled twice",
        "qrels",
        {"q.qrels": f"q1 0 {BIG} 1\nq1 0 {BIG} 2\n"},
        'q.qrels:2: field "chunk_id"',
        "… (1,000,000 characters) is labelled twice (lines 1 and 2)",
    ),
    Case(
        "eval: a chunk listed twice",
        "eval",
        {"q.qrels": "q1 0 a 1\n", "r.trec": "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 a 3 1 r\n"},
        'r.trec:3: field "chunk_id"',
        "run 'r': question q1: chunk a is listed twice (lines 1 and 3)",
        target="r.trec",
        command=("eval", "--qrels", "{dir}/q.qrels", "--run"),
    ),
]


def dump(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return "\n".join(conn.iterdump())


@pytest.fixture(scope="module")
def base_db(tmp_path_factory) -> Path:
    """The worked-example corpus and questions, imported once; each case works on a copy."""
    from labeler.importers import import_chunks, import_questions

    folder = tmp_path_factory.mktemp("base")
    with Store(folder / "base.db") as store:
        import_chunks(store, write_jsonl(folder / "chunks.jsonl", CHUNKS))
        import_questions(store, write_jsonl(folder / "questions.jsonl", QUESTIONS))
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return folder / "base.db"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.kind}: {c.name}")
def test_bad_input_exits_2_names_file_line_field_and_writes_nothing(
    case: Case, base_db: Path, tmp_path: Path
) -> None:
    db = tmp_path / "project.db"
    db.write_bytes(base_db.read_bytes())
    for relative, text in case.files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    target = tmp_path / (case.target or next(iter(case.files)))
    before = dump(db)
    result = CliRunner().invoke(main, case.arguments(tmp_path, target, db))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert message.count("\n") == 0, message  # one line
    assert len(message) < 800, message[:800]  # a short one, whatever the file holds
    assert message.startswith("Error: "), message
    assert case.where in message, message
    assert case.says in message, message
    assert dump(db) == before


def test_the_table_covers_every_importer() -> None:
    kinds = {c.kind for c in CASES}
    assert kinds >= {
        "chunks",
        "documents",
        "questions",
        "run",
        "qrels",
        "beir",
        "ragas",
        "deepeval",
        "judge",
        "eval",
    }


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    """#8 item 7: any command pointed at a file that is not a SQLite database."""
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a database\n" * 50, encoding="utf-8")
    before = db.read_bytes()
    result = CliRunner().invoke(main, ["status", "--db", str(db)])
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"Error: {db}: not a labeler database (SQLite says: file is not a database)"
    )
    assert db.read_bytes() == before


# the options #19 added, from the command line ------------------------------------------------


@dataclass(frozen=True)
class CommandCase:
    """A command (``{db}``, ``{version}`` and ``{tmp}`` filled in) with one bad option, against a
    graded project with one exported version: it must exit 2 with one line holding ``says``,
    and leave the database (a full dump) and the exports as they were."""

    name: str
    args: tuple[str, ...]
    says: str
    files: dict[str, str | bytes] | None = None


OTHER_KEY = SigningKey(b"\x07" * 32).public.pem()  # a valid key, not the project's

COMMAND_CASES = [
    CommandCase(
        "export: a depth below the runs' pools",
        ("export", "orders", "--require-depth", "11"),
        "run 'bm25' pools only its top 10",
    ),
    CommandCase(
        "export: --require-depth of an unknown run",
        ("export", "orders", "--require-depth", "2", "--run", "ghost"),
        "no run 'ghost' on chunking 'default' (runs: bm25)",
    ),
    CommandCase(
        "export: --run without --require-depth",
        ("export", "orders", "--run", "bm25"),
        "give --require-depth K too",
    ),
    CommandCase(
        "export: --partial error with partial questions",
        ("export", "orders2", "--partial", "error"),
        'field "partial": 2 questions not graded as required (every candidate graded): q1',
    ),
    CommandCase(
        "eval: --public-key that is not a key",
        ("eval", "--testset", "{version}", "--run", "{tmp}/run.trec", "--public-key", "{tmp}/k"),
        "k: not a public key: expected a PEM block",
        {"k": "hello\n"},
    ),
    CommandCase(
        "eval: --public-key that does not exist",
        ("eval", "--testset", "{version}", "--run", "{tmp}/run.trec", "--public-key", "{tmp}/no"),
        "no: no such file",
    ),
    CommandCase(
        "eval: --public-key of another project",
        ("eval", "--testset", "{version}", "--run", "{tmp}/run.trec", "--public-key", "{tmp}/k"),
        "unknown key: signed by SHA256:",
        {"k": OTHER_KEY},
    ),
    CommandCase(
        "eval: --public-key with --qrels",
        ("eval", "--qrels", "{tmp}/run.trec", "--run", "{tmp}/run.trec", "--public-key", "x"),
        "--public-key and --db check a --testset",
    ),
    CommandCase(
        "versions verify: not a version",
        ("versions", "verify", "{tmp}/empty"),
        "neither a version folder (manifest.json) nor a test set's folder",
        {"empty/README": "nothing here\n"},
    ),
    CommandCase(
        "versions verify: a key that did not sign it",
        ("versions", "verify", "{version}", "--public-key", "{tmp}/k"),
        "1 of 1 version failed the check: v1 FORGED: unknown key",
        {"k": OTHER_KEY},
    ),
    CommandCase(
        "key export-public: a folder that does not exist",
        ("key", "export-public", "{tmp}/nowhere/k.pub"),
        "k.pub: the folder does not exist",
    ),
    CommandCase(
        "key export-public: onto a folder",
        ("key", "export-public", "{tmp}/empty"),
        "empty: is a folder",
        {"empty/README": "nothing here\n"},
    ),
    CommandCase(
        "import questions: a graded question's new text",
        ("import", "questions", "{tmp}/q.jsonl"),
        'q.jsonl:1: field "question": changes the text of 1 question already graded: q1',
        {"q.jsonl": jl({"id": "q1", "question": "Reworded?"})},
    ),
]


@pytest.fixture(scope="module")
def graded_project(base_db: Path, tmp_path_factory) -> tuple[Path, Path]:
    """The base database, graded (q1 partly, q2 wholly by the run's standard), with the bm25
    run and version v1 of "orders" exported; and that version's folder."""
    from labeler.export import export_testset
    from labeler.importers import import_run
    from tests.conftest import RUN

    folder = tmp_path_factory.mktemp("graded")
    db = folder / "graded.db"
    db.write_bytes(base_db.read_bytes())
    (folder / "run.trec").write_text(RUN, encoding="utf-8")
    with Store(db) as store:
        import_run(store, folder / "run.trec")
        store.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
        store.labels.set_grade("q2", "default", "pagination", "ana", 2)
        result = export_testset(store, "orders", out=folder / "exports")
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db, result.path


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` but SQLite's own (-wal, -shm: the dump's connection)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }


@pytest.mark.parametrize("case", COMMAND_CASES, ids=lambda c: c.name)
def test_bad_options_exit_2_in_one_line_and_change_nothing(
    case: CommandCase, graded_project: tuple[Path, Path], tmp_path: Path, monkeypatch
) -> None:
    source, version = graded_project
    db = tmp_path / "project.db"
    db.write_bytes(source.read_bytes())
    (tmp_path / "run.trec").write_bytes((source.parent / "run.trec").read_bytes())
    for relative, text in (case.files or {}).items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LABELER_DB", str(db))
    monkeypatch.setenv("LABELER_EXPORTS", str(version.parent.parent))
    args = [a.format(db=db, version=version, tmp=tmp_path) for a in case.args]
    before, exports, files = dump(db), tree(version.parent.parent), tree(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert message.count("\n") == 0, message
    assert message.startswith("Error: "), message
    assert case.says in message, message
    assert dump(db) == before
    assert tree(version.parent.parent) == exports
    assert set(tree(tmp_path)) == set(files)


def test_key_show_refuses_a_database_that_does_not_exist(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["key", "show", "--db", str(tmp_path / "missing.db")])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {tmp_path / 'missing.db'}: no such database;")
    assert list(tmp_path.iterdir()) == []
