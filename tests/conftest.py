"""Shared fixtures: a fresh store, and the small Orders API corpus of WORKED_EXAMPLES.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labeler.store import Store

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"  # copies of other projects' files, with their licences

CHUNKS = [
    {
        "id": "rate-limits",
        "doc_id": "api",
        "title": "Rate limits",
        "text": "Each API key may send 100 requests per minute. Extra requests return status 429"
        " with a Retry-After header.",
        "start": 0,
        "end": 103,
    },
    {
        "id": "error-codes",
        "doc_id": "api",
        "title": "Error codes",
        "text": "404 means the order does not exist. 429 means too many requests: wait and retry.",
        "start": 104,
        "end": 185,
    },
    {
        "id": "pagination",
        "doc_id": "api",
        "title": "Pagination",
        "text": "Use the next_cursor field to get the next page of orders.",
        "start": 186,
        "end": 243,
    },
    {
        "id": "authentication",
        "doc_id": "auth",
        "title": "Authentication",
        "text": "Authenticate with a bearer token in the Authorization header.",
    },
    {
        "id": "webhooks",
        "doc_id": "hooks",
        "title": "Webhooks",
        "text": "Webhooks are signed with HMAC SHA-256 so you can verify the sender.",
    },
]

QUESTIONS = [
    {"id": "q1", "question": "How should a client retry after a 429 response?", "tags": ["api"]},
    {
        "id": "q2",
        "question": "How do I get the next page of orders?",
        "reference_answer": "Pass next_cursor.",
        "tags": ["api", "paging"],
    },
    {"id": "q3", "question": "What does error 404 mean?", "tags": ["errors"]},
]

RUN = """q1 Q0 error-codes 1 4.0 bm25
q1 Q0 pagination 2 3.0 bm25
q1 Q0 rate-limits 3 2.0 bm25
q1 Q0 webhooks 4 1.0 bm25
q2 Q0 pagination 1 9.5 bm25
q2 Q0 webhooks 2 1.5 bm25
"""


def retext(store: Store, question_id: str, text: str, **fields: object) -> None:
    """Give a graded question a new text, as `import questions --replace-text` does (its labels
    go stale, its unanswerable marks are withdrawn), then confirm each label for the new text,
    as a reviewer would on the grading page."""
    store.questions.upsert([{"id": question_id, "text": text, **fields}], replace_text=True)
    for chunking in store.corpus.chunkings():
        for label in store.labels.question_labels(question_id, chunking["name"]):
            if label["state"] == "stale":
                store.labels.set_grade(
                    question_id,
                    chunking["name"],
                    label["chunk_id"],
                    label["reviewer"],
                    label["grade"],
                )


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "test.db") as opened:
        yield opened


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """The worked-example corpus as the files a user would bring."""
    folder = tmp_path / "in"
    folder.mkdir()
    run = folder / "bm25.trec"
    run.write_text(RUN, encoding="utf-8")
    return {
        "chunks": write_jsonl(folder / "chunks.jsonl", CHUNKS),
        "questions": write_jsonl(folder / "questions.jsonl", QUESTIONS),
        "run": run,
    }


@pytest.fixture
def loaded(store: Store, files: dict[str, Path]) -> Store:
    """A store holding the corpus, the questions and the bm25 run."""
    from labeler.importers import import_chunks, import_questions, import_run

    import_chunks(store, files["chunks"])
    import_questions(store, files["questions"])
    import_run(store, files["run"])
    return store


@pytest.fixture
def letters(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Store:
    """A project whose embedding model is a bag of four letters, its values worked by hand
    (tests/test_dense_project.py)."""
    from tests.test_dense_project import letters_project

    yield from letters_project(monkeypatch, tmp_path)


def table_counts(store: Store) -> dict[str, int]:
    """Rows per table: the 'nothing was written' check after a failed import."""
    tables = [
        "chunks",
        "chunkings",
        "documents",
        "questions",
        "question_tags",
        "runs",
        "run_results",
        "labels",
        "label_events",
        "question_marks",
        "pool_additions",
        "progress",
    ]
    return {t: store.scalar(f"SELECT count(*) FROM {t}") for t in tables}


def _html_blocks(at, css_class: str) -> list[tuple[str, str]]:
    import html
    import re

    pattern = re.compile(rf'<div class="{css_class}(?: {css_class}-(\w+))?">(.*?)</div>', re.S)
    found = []
    for element in at.html:
        for kind, body in pattern.findall(element.proto.body):
            found.append((kind, html.unescape(body)))
    return found


def notes(at, kind: str | None = None) -> list[str]:
    """The messages a page showed with ``labeler.app.widgets.note`` (escaped boxes that never
    read Markdown), as the reader sees them; ``kind`` is error, warning, info or ok."""
    return [text for k, text in _html_blocks(at, "lbl-note") if kind is None or k == kind]


def captions(at) -> list[str]:
    """The captions a page showed with ``labeler.app.widgets.caption``, as the reader sees them."""
    return [text for _, text in _html_blocks(at, "lbl-caption")]


# A conversation over the same corpus: three turns of one partner, the second and third only
# meaningful after the first (questions.jsonl's conversation field, as a version writes it).
CONVERSATION = [
    {
        "id": "c1::1",
        "question": "How many requests may one API key send?",
        "reference_answer": "100 a minute.",
        "tags": ["answerability:ANSWERABLE", "question-type:Factoid"],
        "conversation": {"id": "c1", "turn": 1, "history": [], "rewrite": None},
    },
    {
        "id": "c1::2",
        "question": "And what happens to the ones over that?",
        "tags": ["answerability:ANSWERABLE", "question-type:Explanation", "multi-turn:Follow-up"],
        "conversation": {
            "id": "c1",
            "turn": 2,
            "history": [
                {"role": "user", "text": "How many requests may one API key send?"},
                {"role": "assistant", "text": "100 requests per minute."},
            ],
            "rewrite": "What happens to requests over the rate limit?",
        },
    },
    {
        "id": "c1::3",
        "question": "How long do I wait then?",
        "tags": ["answerability:ANSWERABLE", "question-type:Factoid", "multi-turn:Follow-up"],
        "conversation": {
            "id": "c1",
            "turn": 3,
            "history": [
                {"role": "user", "text": "How many requests may one API key send?"},
                {"role": "assistant", "text": "100 requests per minute."},
                {"role": "user", "text": "And what happens to the ones over that?"},
                {"role": "assistant", "text": "They get status 429."},
            ],
            "rewrite": None,
        },
    },
]


@pytest.fixture
def talking(loaded: Store, tmp_path: Path) -> Store:
    """``loaded`` with the conversation c1 (three turns) among its questions."""
    from labeler.importers import import_questions

    import_questions(loaded, write_jsonl(tmp_path / "conversation.jsonl", CONVERSATION))
    return loaded


def html_rows(body: str) -> list[dict]:
    """The rows of the HTML table ``labeler.app.tables.table_html`` wrote, as dicts: a
    number cell as its exact value (``data-value``), any other cell as the text it shows."""
    from html.parser import HTMLParser

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.head: list[str] = []
            self.rows: list[list] = []
            self.cell: list[str] | None = None
            self.value: float | None = None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("th", "td"):
                self.cell, self.value = [], None
                value = dict(attrs).get("data-value")
                self.value = None if value is None else float(value)

        def handle_endtag(self, tag):
            if tag in ("th", "td") and self.cell is not None:
                text = "".join(self.cell).strip()
                self.rows[-1].append(self.value if self.value is not None else text)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    reader = Reader()
    reader.feed(body)
    head, *rows = reader.rows
    return [dict(zip(head, row, strict=True)) for row in rows]


def html_table(at, key: str):
    """The table a page drew with ``labeler.app.tables.show_table`` under ``key``, as a
    DataFrame (see ``html_rows``)."""
    import pandas as pd

    (element,) = at.container(key=key).html
    rows = html_rows(element.proto.body)
    return pd.DataFrame(rows)
