"""Every derived format, written from a hand-built version and read back (round trips)."""

import ast
import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from labeler.conversations import same_turn
from labeler.errors import LabelerError
from labeler.export import export_testset
from labeler.exporters import csvfile, trec
from labeler.exporters.convert import FORMATS, convert, formats_table
from labeler.importers.deepeval import import_deepeval
from labeler.importers.ragas import import_ragas
from labeler.importers.testset import import_testset
from labeler.models import Message, Turn
from labeler.store import Store
from labeler.versions.format import (
    ChunkEntry,
    Content,
    QuestionEntry,
    Version,
    manifest_bytes,
    seal,
    serialise,
)

ERR = '=HYPERLINK("http://x")\n429 means: wait and retry.'
PAGE = "- next_cursor gives the next page"
RATE = "100 requests per minute; then 429."
CONTENT = Content(
    questions={
        "q1": QuestionEntry("q1", "How do I retry after 429?", "Wait for Retry-After.", ("api",)),
        "q2": QuestionEntry("q2", "Größe der Seite?", None, ("api", "paging")),
        "q3": QuestionEntry("q3", "Is there a phone number?", unanswerable=True),
    },
    qrels={"q1": {"c-rate": 2, "c-err": 1, "c-page": 0}, "q2": {"c-page": 2, "c-err": 1}},
    chunks={
        "c-err": ChunkEntry("c-err", ERR, "api", "Errors"),
        "c-page": ChunkEntry("c-page", PAGE, "api", None),
        "c-rate": ChunkEntry("c-rate", RATE, None, "Rate limits"),
    },
)


@pytest.fixture
def version(tmp_path: Path) -> Path:
    folder = tmp_path / "exports" / "orders" / "v3"
    folder.mkdir(parents=True)
    files = serialise(CONTENT)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    manifest = {
        "format": "labeler-testset/2",  # unsigned, as versions written before #19 are
        "name": "orders",
        "version": 3,
        "chunking": "default",
        "min_grade": 1,
    }
    (folder / "manifest.json").write_bytes(manifest_bytes(seal(manifest, files)))
    return folder


def chunk_rows() -> list[dict]:
    return [
        {"id": c.id, "text": c.text, "doc_id": c.doc_id, "title": c.title}
        for c in CONTENT.chunks.values()
    ]


# trec -------------------------------------------------------------------------------------


def test_trec_qrels_with_grades(version: Path, tmp_path: Path) -> None:
    [path] = convert(version, "trec", out=tmp_path / "trec")
    assert path.read_text(encoding="utf-8") == (
        "q1 0 c-err 1\nq1 0 c-page 0\nq1 0 c-rate 2\nq2 0 c-err 1\nq2 0 c-page 2\n"
    )
    assert trec.read(path) == CONTENT.qrels


# beir -------------------------------------------------------------------------------------


def test_beir_folder(version: Path, tmp_path: Path) -> None:
    paths = convert(version, "beir", out=tmp_path / "beir")
    assert [p.relative_to(tmp_path / "beir").as_posix() for p in paths] == [
        "corpus.jsonl",
        "queries.jsonl",
        "qrels/test.tsv",
    ]
    corpus = [json.loads(line) for line in paths[0].read_text(encoding="utf-8").splitlines()]
    assert corpus == [
        {"_id": "c-err", "doc_id": "api", "text": ERR, "title": "Errors"},
        {"_id": "c-page", "doc_id": "api", "text": PAGE, "title": ""},
        {"_id": "c-rate", "text": RATE, "title": "Rate limits"},
    ]
    queries = [json.loads(line) for line in paths[1].read_text(encoding="utf-8").splitlines()]
    assert queries == [
        {
            "_id": "q1",
            "text": "How do I retry after 429?",
            "reference_answer": "Wait for Retry-After.",
            "tags": ["api"],
        },
        {"_id": "q2", "text": "Größe der Seite?", "tags": ["api", "paging"]},
        {"_id": "q3", "text": "Is there a phone number?", "unanswerable": True},
    ]
    assert paths[2].read_text(encoding="utf-8") == (
        "query-id\tcorpus-id\tscore\n"
        "q1\tc-err\t1\nq1\tc-page\t0\nq1\tc-rate\t2\nq2\tc-err\t1\nq2\tc-page\t2\n"
    )


def test_export_convert_to_beir_import_export_gives_the_same_content(
    version: Path, tmp_path: Path
) -> None:
    beir = tmp_path / "beir"
    convert(version, "beir", out=beir)
    with Store(tmp_path / "fresh.db") as fresh:
        import_testset(fresh, beir)
        again = export_testset(fresh, "orders", out=tmp_path / "again")
    original = json.loads((version / "manifest.json").read_text(encoding="utf-8"))
    # The v2 hash of the hand-built version is the content key of what is exported again.
    assert again.plan.content_key == original["content_hash"]


# ragas ------------------------------------------------------------------------------------

RAGAS_ROWS = [
    {
        "user_input": "How do I retry after 429?",
        "reference": "Wait for Retry-After.",
        "reference_contexts": [RATE, ERR],
        "reference_context_ids": ["c-rate", "c-err"],
        "synthesizer_name": "labeler:orders@v3",
    },
    {
        "user_input": "Größe der Seite?",
        "reference_contexts": [PAGE, ERR],
        "reference_context_ids": ["c-page", "c-err"],
        "synthesizer_name": "labeler:orders@v3",
    },
    {
        "user_input": "Is there a phone number?",
        "reference_contexts": [],
        "reference_context_ids": [],
        "synthesizer_name": "labeler:orders@v3",
    },
]


def test_ragas_jsonl_and_csv_hold_the_same_samples(version: Path, tmp_path: Path) -> None:
    jsonl, table = convert(version, "ragas", out=tmp_path / "ragas")
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert rows == RAGAS_ROWS
    with table.open(encoding="utf-8", newline="") as handle:
        cells = list(csv.DictReader(handle))
    assert [c["user_input"] for c in cells] == [r["user_input"] for r in RAGAS_ROWS]
    for cell, row in zip(cells, RAGAS_ROWS, strict=True):
        # JSON arrays in the cells, which Python's literal reader (as Ragas users use) reads too
        assert json.loads(cell["reference_contexts"]) == row["reference_contexts"]
        assert ast.literal_eval(cell["reference_contexts"]) == row["reference_contexts"]
        assert json.loads(cell["reference_context_ids"]) == row["reference_context_ids"]
        assert cell["reference"] == row.get("reference", "")


def test_ragas_contexts_follow_min_grade(version: Path, tmp_path: Path) -> None:
    jsonl, _ = convert(version, "ragas", out=tmp_path / "r2", min_grade=2)
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert [r["reference_context_ids"] for r in rows] == [["c-rate"], ["c-page"], []]


def test_ragas_round_trip_through_the_importer(version: Path, tmp_path: Path) -> None:
    jsonl, table = convert(version, "ragas", out=tmp_path / "ragas")
    with Store(tmp_path / "r.db") as store:
        store.corpus.ensure_chunking("default")
        store.corpus.upsert_chunks("default", chunk_rows())
        result = import_ragas(store, jsonl)
        assert (result.report.added, result.by_id, result.unmatched_total) == (3, 4, 0)
        by_text = {q.text: q for q in map(store.questions.get, store.questions.ids())}
        for question in CONTENT.questions.values():
            mine = by_text[question.question]
            assert mine.reference_answer == question.reference_answer
            relevant = sorted(
                CONTENT.qrels.get(question.id, {}).items(), key=lambda cg: (-cg[1], cg[0])
            )
            assert list(mine.source_chunk_ids) == [c for c, g in relevant if g >= 1]
        again = import_ragas(store, table)
        assert (again.report.added, again.report.updated, again.report.unchanged) == (0, 0, 3)


# deepeval ---------------------------------------------------------------------------------


def test_deepeval_goldens(version: Path, tmp_path: Path) -> None:
    [path] = convert(version, "deepeval", out=tmp_path / "de")
    goldens = json.loads(path.read_text(encoding="utf-8"))
    assert goldens[0] == {
        "input": "How do I retry after 429?",
        "expected_output": "Wait for Retry-After.",
        "context": [RATE, ERR],
        "additional_metadata": {
            "question_id": "q1",
            "chunk_ids": ["c-rate", "c-err"],
            "grades": [2, 1],
            "tags": ["api"],
            "unanswerable": False,
            "testset": "orders@v3",
        },
    }
    assert goldens[2]["context"] == []
    assert goldens[2]["expected_output"] is None
    assert goldens[2]["additional_metadata"]["unanswerable"] is True


def test_deepeval_round_trip_keeps_ids(version: Path, tmp_path: Path) -> None:
    [path] = convert(version, "deepeval", out=tmp_path / "de")
    with Store(tmp_path / "d.db") as store:
        store.corpus.ensure_chunking("default")
        store.corpus.upsert_chunks("default", chunk_rows())
        result = import_deepeval(store, path)
        assert (result.report.added, result.by_id) == (3, 4)
        assert store.questions.ids() == ["q1", "q2", "q3"]
        q2 = store.questions.get("q2")
        assert (q2.text, q2.reference_answer, q2.source_chunk_ids) == (
            "Größe der Seite?",
            None,
            ("c-page", "c-err"),
        )
        assert (q2.origin, q2.review_status, q2.generator) == ("generated", "pending", "deepeval")


# csv --------------------------------------------------------------------------------------


def test_csv_rows_with_formula_cells_escaped(version: Path, tmp_path: Path) -> None:
    [path] = convert(version, "csv", out=tmp_path / "csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfquestion_id,question,")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0] == list(csvfile.COLUMNS)
    assert [(r[0], r[5], r[6]) for r in rows[1:]] == [
        ("q1", "c-err", "1"),
        ("q1", "c-page", "0"),
        ("q1", "c-rate", "2"),
        ("q2", "c-err", "1"),
        ("q2", "c-page", "2"),
        ("q3", "", ""),
    ]
    assert rows[1][9] == "'" + ERR
    assert rows[2][9] == "'" + PAGE
    assert rows[3][9] == RATE
    assert rows[1][3:5] == ["api", "false"]
    assert rows[6][1:5] == ["Is there a phone number?", "", "", "true"]


def test_csv_reads_back_to_the_same_content(version: Path, tmp_path: Path) -> None:
    [path] = convert(version, "csv", out=tmp_path / "csv")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = [{k: csvfile.unescape_cell(v) for k, v in r.items()} for r in csv.DictReader(handle)]
    questions, qrels, chunks = {}, {}, {}
    for r in rows:
        questions[r["question_id"]] = QuestionEntry(
            r["question_id"],
            r["question"],
            r["reference_answer"] or None,
            tuple(t for t in r["tags"].split("|") if t),
            r["unanswerable"] == "true",
        )
        if r["chunk_id"]:
            qrels.setdefault(r["question_id"], {})[r["chunk_id"]] = int(r["grade"])
            chunks[r["chunk_id"]] = ChunkEntry(
                r["chunk_id"], r["chunk_text"], r["doc_id"] or None, r["title"] or None
            )
    assert serialise(Content(questions, qrels, chunks)) == serialise(CONTENT)


def test_cell_escaping_is_reversible() -> None:
    for text in ("=1+1", "+x", "-", "@a", "'quoted", "''", "plain", "\tTab"):
        assert csvfile.unescape_cell(csvfile.escape_cell(text)) == text
    assert csvfile.escape_cell("plain") == "plain"


# every format -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_each_format_writes_the_files_it_declares(version: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / fmt
    paths = convert(version, fmt, out=out)
    declared = [name.strip() for name in FORMATS[fmt].files.split(",")]
    assert [p.relative_to(out).as_posix() for p in paths] == declared
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted(
        declared
    )
    for path in paths:
        assert b"\r\n" not in path.read_bytes()
    assert f"| `{fmt}` |" in formats_table()


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_modified_version_is_not_converted(version: Path, tmp_path: Path, fmt: str) -> None:
    (version / "qrels.tsv").write_text("q1 0 c-rate 1\n", encoding="utf-8")
    with pytest.raises(LabelerError, match="modified after export"):
        convert(version, fmt, out=tmp_path / fmt)
    assert not (tmp_path / fmt).exists()


def test_converting_into_the_version_folder_is_refused(version: Path) -> None:
    with pytest.raises(LabelerError, match="outside the version folder"):
        convert(version, "trec", out=version / "trec")
    with pytest.raises(LabelerError, match="unknown format 'xml'"):
        convert(version, "xml", out=version.parent / "x")


def test_several_formats_share_one_folder_and_one_read(version: Path, tmp_path: Path) -> None:
    paths = convert(version, ["csv", "trec"], out=tmp_path / "two")
    assert [p.name for p in paths] == ["qrels.txt", "labels.csv"]  # registry order
    every = convert(version, "all", out=tmp_path / "all")
    names = [p.relative_to(tmp_path / "all").as_posix() for p in every]
    assert len(names) == len(set(names)) == 8  # 1 + 3 + 2 + 1 + 1
    for fmt in FORMATS:
        alone = convert(version, fmt, out=tmp_path / f"alone-{fmt}")
        for path in alone:
            relative = path.relative_to(tmp_path / f"alone-{fmt}")
            assert (tmp_path / "all" / relative).read_bytes() == path.read_bytes()


def test_the_default_folder_is_named_for_version_and_format(
    version: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    [path] = convert(version, "trec")
    assert path == Path("orders-v3-trec") / "qrels.txt"
    assert convert(version, ["trec", "csv"])[0] == Path("orders-v3-formats") / "qrels.txt"


# conversations ------------------------------------------------------------------------------

HISTORY_1 = (
    Message("user", "How many requests may I send?"),
    Message("assistant", "100 a minute."),
)
HISTORY_2 = (
    *HISTORY_1,
    Message("user", "And over that?"),
    Message("assistant", "Let me check."),
    Message("tool", "429 means: wait and retry."),
    Message("assistant", "You get a 429."),
)
TURNS = {
    "c1::1": QuestionEntry(
        "c1::1",
        "How many requests may I send?",
        "100 a minute.",
        ("question-type:Factoid",),
        turn=Turn("c1", 1),
    ),
    "c1::2": QuestionEntry(
        "c1::2",
        "And over that?",
        None,
        ("multi-turn:Follow-up",),
        turn=Turn("c1", 2, HISTORY_1, rewrite="What happens over the rate limit?"),
    ),
    "c1::3": QuestionEntry(
        "c1::3", "How long do I wait?", "As Retry-After says.", turn=Turn("c1", 3, HISTORY_2)
    ),
}
TALK = Content(
    questions={**CONTENT.questions, **TURNS},
    qrels={
        **CONTENT.qrels,
        "c1::1": {"c-rate": 2},
        "c1::2": {"c-err": 2, "c-rate": 1},
        "c1::3": {"c-err": 1, "c-page": 0},
    },
    chunks=CONTENT.chunks,
)


@pytest.fixture
def talk(tmp_path: Path) -> Path:
    folder = tmp_path / "exports" / "talk" / "v1"
    folder.mkdir(parents=True)
    files = serialise(TALK)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    manifest = {
        "format": "labeler-testset/2",  # unsigned, as the version fixture above
        "name": "talk",
        "version": 1,
        "chunking": "default",
        "min_grade": 1,
    }
    (folder / "manifest.json").write_bytes(manifest_bytes(seal(manifest, files)))
    return folder


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_version_with_conversations_gets_their_files_too(
    talk: Path, tmp_path: Path, fmt: str
) -> None:
    out = tmp_path / fmt
    paths = convert(talk, fmt, out=out)
    assert [p.relative_to(out).as_posix() for p in paths] == FORMATS[fmt].declared(
        conversations=True
    )


def test_trec_keeps_turns_apart_by_their_ids(talk: Path, tmp_path: Path) -> None:
    [path] = convert(talk, "trec", out=tmp_path / "trec")
    assert trec.read(path)["c1::2"] == {"c-err": 2, "c-rate": 1}


def test_beir_queries_carry_the_conversation_and_mtrags_three_query_files(
    talk: Path, tmp_path: Path
) -> None:
    paths = {p.name: p for p in convert(talk, "beir", out=tmp_path / "beir")}
    queries = {q["_id"]: q for q in lines_of(paths["queries.jsonl"])}
    assert queries["c1::2"]["conversation"] == {
        "id": "c1",
        "turn": 2,
        "history": [
            {"role": "user", "text": "How many requests may I send?"},
            {"role": "assistant", "text": "100 a minute."},
        ],
        "rewrite": "What happens over the rate limit?",
    }
    assert "conversation" not in queries["q1"]
    texts = {
        name: {q["_id"]: q["text"] for q in lines_of(paths[name])}
        for name in ("queries_lastturn.jsonl", "queries_rewrite.jsonl", "queries_questions.jsonl")
    }
    assert texts["queries_lastturn.jsonl"]["c1::2"] == "|user|: And over that?"
    assert texts["queries_rewrite.jsonl"]["c1::2"] == "|user|: What happens over the rate limit?"
    assert texts["queries_rewrite.jsonl"]["c1::3"] == "|user|: How long do I wait?"
    assert texts["queries_questions.jsonl"]["c1::3"] == (
        "|user|: How many requests may I send?\n|user|: And over that?\n|user|: How long do I wait?"
    )
    assert {t["q1"] for t in texts.values()} == {"|user|: How do I retry after 429?"}


def test_ragas_turns_are_multi_turn_samples(talk: Path, tmp_path: Path) -> None:
    paths = {p.name: p for p in convert(talk, "ragas", out=tmp_path / "ragas")}
    # The questions that stand alone, as before.
    assert lines_of(paths["ragas.jsonl"]) == [
        {**row, "synthesizer_name": "labeler:talk@v1"} for row in RAGAS_ROWS
    ]
    samples = lines_of(paths["ragas_turns.jsonl"])
    assert len(samples) == 3
    third = samples[2]
    assert [(m["type"], m["content"]) for m in third["user_input"]] == [
        ("human", "How many requests may I send?"),
        ("ai", "100 a minute."),
        ("human", "And over that?"),
        ("ai", "Let me check."),
        ("ai", "429 means: wait and retry."),
        ("ai", "You get a 429."),
        ("human", "How long do I wait?"),
    ]
    assert third["user_input"][4]["metadata"] == {"role": "tool"}
    assert third["user_input"][2]["metadata"] == {"conversation_id": "c1", "question_id": None}
    assert third["user_input"][-1]["metadata"] == {
        "question_id": "c1::3",
        "conversation_id": "c1",
        "turn": 3,
        "rewrite": None,
        "reference": "As Retry-After says.",
        "reference_contexts": [ERR],
        "reference_context_ids": ["c-err"],
        "grades": [1],
        "tags": [],
        "unanswerable": False,
    }
    assert (third["reference"], third["synthesizer_name"]) == (
        "As Retry-After says.",
        "labeler:talk@v1",
    )


def test_deepeval_gets_one_conversational_golden_per_conversation(
    talk: Path, tmp_path: Path
) -> None:
    paths = {p.name: p for p in convert(talk, "deepeval", out=tmp_path / "de")}
    assert [g["input"] for g in json.loads(paths["goldens.json"].read_text("utf-8"))] == [
        q.text for q in CONTENT.questions.values()
    ]
    [golden] = json.loads(paths["conversational_goldens.json"].read_text("utf-8"))
    assert (golden["scenario"], golden["name"], golden["additional_metadata"]) == (
        "How many requests may I send?",
        "c1",
        {"conversation_id": "c1", "testset": "talk@v1"},
    )
    assert [(t["role"], t["content"]) for t in golden["turns"]] == [
        ("user", "How many requests may I send?"),
        ("assistant", "100 a minute."),
        ("user", "And over that?"),
        ("assistant", "Let me check."),
        ("assistant", "429 means: wait and retry."),
        ("assistant", "You get a 429."),
        ("user", "How long do I wait?"),
    ]
    second = golden["turns"][2]
    assert second["retrieval_context"] == [ERR, RATE]  # best grade first
    assert second["metadata"] == {
        "question_id": "c1::2",
        "turn": 2,
        "rewrite": "What happens over the rate limit?",
        "reference_answer": None,
        "chunk_ids": ["c-err", "c-rate"],
        "grades": [2, 1],
        "tags": ["multi-turn:Follow-up"],
        "unanswerable": False,
    }
    assert golden["turns"][4]["metadata"] == {"role": "tool"}


def test_turns_said_after_different_histories_get_a_golden_each(tmp_path: Path) -> None:
    from labeler.exporters.deepeval import conversational_goldens

    other = replace(TURNS["c1::3"], turn=Turn("c1", 3, (Message("user", "Something else?"),)))
    questions = {**TURNS, "c1::3": other}
    version = Version(tmp_path, {"name": "x", "version": 1}, Content(questions, {}, {}))
    goldens = conversational_goldens(version, 1)
    assert [[t["content"] for t in g["turns"]] for g in goldens] == [
        ["How many requests may I send?", "100 a minute.", "And over that?"],
        ["Something else?", "How long do I wait?"],
    ]


def test_csv_rows_place_a_turn_in_its_conversation(talk: Path, tmp_path: Path) -> None:
    [path] = convert(talk, "csv", out=tmp_path / "csv")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    placed = {
        (r["question_id"], r["chunk_id"]): (r["conversation_id"], r["turn"], r["rewrite"])
        for r in rows
    }
    assert placed[("c1::2", "c-err")] == ("c1", "2", "What happens over the rate limit?")
    assert placed[("q1", "c-err")] == ("", "", "")


def same_conversations(store: Store, ids=TURNS) -> None:
    for question_id, question in TURNS.items():
        if question_id in ids:
            assert same_turn(store.questions.get(question_id).turn, question.turn), question_id


def test_a_version_round_trips_with_its_conversations(talk: Path, tmp_path: Path) -> None:
    with Store(tmp_path / "v.db") as fresh:
        import_testset(fresh, talk)
        same_conversations(fresh)
        again = export_testset(fresh, "talk", out=tmp_path / "again")
    original = json.loads((talk / "manifest.json").read_text(encoding="utf-8"))
    assert again.plan.content_key == original["content_hash"]  # a v2 hash is its content key


def test_beir_round_trips_with_its_conversations(talk: Path, tmp_path: Path) -> None:
    beir = tmp_path / "beir"
    convert(talk, "beir", out=beir)
    with Store(tmp_path / "b.db") as fresh:
        import_testset(fresh, beir)
        same_conversations(fresh)
        again = export_testset(fresh, "talk", out=tmp_path / "again")
    original = json.loads((talk / "manifest.json").read_text(encoding="utf-8"))
    assert again.plan.content_key == original["content_hash"]  # a v2 hash is its content key


@pytest.mark.parametrize(
    ("fmt", "name", "importer"),
    [
        ("ragas", "ragas_turns.jsonl", import_ragas),
        ("deepeval", "conversational_goldens.json", import_deepeval),
    ],
)
def test_generated_formats_round_trip_with_their_conversations(
    talk: Path, tmp_path: Path, fmt: str, name: str, importer
) -> None:
    convert(talk, fmt, out=tmp_path / fmt)
    with Store(tmp_path / "g.db") as store:
        store.corpus.ensure_chunking("default")
        store.corpus.upsert_chunks("default", chunk_rows())
        result = importer(store, tmp_path / fmt / name)
        assert (result.report.added, result.unmatched_total) == (3, 0)
        same_conversations(store)
        for question_id, question in TURNS.items():
            mine = store.questions.get(question_id)
            assert (mine.text, mine.reference_answer, mine.tags) == (
                question.text,
                question.reference_answer,
                question.tags,
            )
            relevant = sorted(TALK.qrels[question_id].items(), key=lambda cg: (-cg[1], cg[0]))
            assert list(mine.source_chunk_ids) == [c for c, g in relevant if g >= 1]
        assert importer(store, tmp_path / fmt / name).report.unchanged == 3


def test_trec_round_trips_its_labels_by_turn_id(talk: Path, tmp_path: Path) -> None:
    from labeler.importers.qrels import import_qrels

    [path] = convert(talk, "trec", out=tmp_path / "trec")
    with Store(tmp_path / "t.db") as store:
        import_testset(store, talk, reviewer="first")
        import_qrels(store, path, reviewer="trec")
        labels = store.labels.question_labels("c1::2", "default")
        assert {(r["chunk_id"], r["grade"]) for r in labels if r["reviewer"] == "trec"} == {
            ("c-err", 2),
            ("c-rate", 1),
        }
