"""Importing DeepEval goldens: the real JSON and CSV files in tests/data/formats, and small
hand-made ones."""

import hashlib
import json
from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.importers.deepeval import import_deepeval, read_deepeval
from labeler.store import Store
from tests.conftest import table_counts

FORMATS = Path(__file__).resolve().parent / "data" / "formats"
GOLDENS_JSON = FORMATS / "deepeval" / "goldens.json"
GOLDENS_CSV = FORMATS / "deepeval" / "goldens.csv"


def derived(text: str) -> str:
    return "deepeval-" + hashlib.sha1(text.encode()).hexdigest()[:10]


@pytest.fixture
def corpus(store: Store) -> Store:
    store.corpus.ensure_chunking("default")
    store.corpus.upsert_chunks(
        "default",
        [
            {"id": "geo", "text": "Geography"},
            {"id": "lit", "text": "Literature"},
            {
                "id": "long",
                "text": "Geography and mountains: Mount Everest is the tallest mountain in the"
                " world, and geography is the study of places, mountains and capital cities.",
            },
        ],
    )
    return store


def test_the_real_json_file_reads_with_its_quirks() -> None:
    goldens = list(read_deepeval(GOLDENS_JSON))
    assert len(goldens) == 15
    assert [g.line for g in goldens][:3] == [2, 18, 33]
    first = goldens[0]
    assert (first.text, first.reference, first.contexts) == (
        "What is the tallest mountain in the world?",
        "Mount Everest",
        ("Geography", "Mountains"),
    )
    assert (first.id, first.generator) == (derived(first.text), "deepeval")
    # the file repeats one golden (Name 10 and Name 15)
    assert goldens[9].text == goldens[14].text == "Who wrote 'Romeo and Juliet'?"


def test_the_real_csv_file_splits_lists_on_pipes() -> None:
    goldens = list(read_deepeval(GOLDENS_CSV))
    assert len(goldens) == 15
    assert goldens[8].contexts == ("Physics", "Speed of Light")
    assert goldens[8].reference == "299,792,458 meters per second"  # a quoted cell with commas
    assert goldens[12].reference == "100°C"
    assert [g.line for g in goldens][:2] == [2, 3]


def test_importing_the_real_json(corpus: Store) -> None:
    result = import_deepeval(corpus, GOLDENS_JSON)
    assert (result.report.added, result.duplicates) == (14, 1)
    # 14 questions with 2 contexts each; "Geography" (3 goldens) and "Literature" (the merged
    # Romeo and Juliet golden) are exact; no short context matches the long chunk fuzzily.
    assert (result.contexts, result.by_id, result.exact, result.fuzzy) == (28, 0, 4, 0)
    assert result.unmatched_total == 24
    assert len(result.unmatched) == 10
    everest = corpus.questions.get(derived("What is the tallest mountain in the world?"))
    assert (everest.origin, everest.review_status, everest.generator) == (
        "generated",
        "pending",
        "deepeval",
    )
    assert (everest.reference_answer, everest.source_chunk_ids) == ("Mount Everest", ("geo",))
    romeo = corpus.questions.get(derived("Who wrote 'Romeo and Juliet'?"))
    assert romeo.source_chunk_ids == ("lit",)
    assert "1 repeated questions merged" in result.summary()


def test_the_csv_after_the_json_changes_nothing(corpus: Store) -> None:
    import_deepeval(corpus, GOLDENS_JSON)
    before = table_counts(corpus)
    result = import_deepeval(corpus, GOLDENS_CSV)
    assert (result.report.added, result.report.updated, result.report.unchanged) == (0, 0, 14)
    assert table_counts(corpus) == before


def test_evolutions_and_camel_case(corpus: Store, tmp_path: Path) -> None:
    goldens = [
        {
            "input": "Where is Everest?",
            "expectedOutput": "In the Himalayas.",
            "context": ["Geography"],
            "additionalMetadata": {
                "evolutions": ["Reasoning", "Multi-context"],
                "synthetic_input_quality": 0.8,
            },
        }
    ]
    path = tmp_path / "g.json"
    path.write_text(json.dumps(goldens), encoding="utf-8")
    import_deepeval(corpus, path)
    question = corpus.questions.get(derived("Where is Everest?"))
    assert (question.generator, question.reference_answer, question.source_chunk_ids) == (
        "deepeval",
        "In the Himalayas.",
        ("geo",),
    )
    assert corpus.reviews.generation(question.id)["synthesizer"] == "Reasoning+Multi-context"


def test_a_csv_with_metadata_as_a_python_literal(corpus: Store, tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    path.write_text(
        "input,expected_output,context,additional_metadata\n"
        "\"Which field?\",Geography,Geography|Other,\"{'question_id': 'q-geo',"
        " 'chunk_ids': ['geo', 'gone']}\"\n",
        encoding="utf-8",
    )
    result = import_deepeval(corpus, path)
    assert (result.by_id, result.unmatched_total) == (1, 1)  # "gone" is no chunk; "Other" fails
    assert corpus.questions.get("q-geo").source_chunk_ids == ("geo",)


def test_goldens_under_a_key_and_in_jsonl(corpus: Store, tmp_path: Path) -> None:
    wrapped = tmp_path / "w.json"
    wrapped.write_text(json.dumps({"goldens": [{"input": "A?"}, {"input": "B?"}]}))
    assert import_deepeval(corpus, wrapped).report.added == 2
    lines = tmp_path / "g.jsonl"
    lines.write_text('{"input": "C?"}\n\n{"input": "A?"}\n', encoding="utf-8")
    result = import_deepeval(corpus, lines)
    assert (result.report.added, result.report.unchanged) == (1, 1)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("g.json", '[{"input": "A?"},\n {"expected_output": "x"}]', r'g\.json:2: field "input"'),
        (
            "g.json",
            '[{"input": "A?", "additional_metadata": "{not python"}]',
            r'g\.json:1: field "additional_metadata"',
        ),
        ("g.json", '[{"input": "A?", "additional_metadata": [1]}]', "expected an object"),
        ("g.csv", "input,context\nA?,x\nB?\n", r"g\.csv:3: expected 2 columns"),
    ],
)
def test_bad_input_names_the_line_and_writes_nothing(
    corpus: Store, tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    before = table_counts(corpus)
    with pytest.raises(LabelerError, match=message):
        import_deepeval(corpus, path)
    assert table_counts(corpus) == before


# conversational goldens -----------------------------------------------------------------------

# DeepEval's own fixtures (confident-ai/deepeval, tests/test_core/test_datasets/): turns as JSON
# text in a JSON file and in a CSV (now), and DeepEval 3's "role: text [retrieval_context: ...]|"
# (before); and what DeepEval 4.3.1's save_as writes (tests/data/formats/write_conversations.py).
CONVO = FORMATS / "deepeval" / "convo_goldens.json"
CONVO_CSV = FORMATS / "deepeval" / "convo_goldens.csv"
CONVO_3 = FORMATS / "deepeval" / "convo_goldens_3.json"
SAVED = [FORMATS / "deepeval" / f"conversational_goldens_4.{k}" for k in ("json", "csv", "jsonl")]


def test_deepevals_conversational_goldens_in_every_shape_it_wrote(loaded: Store) -> None:
    skipped = [0]
    now = list(read_deepeval(CONVO, skipped))
    assert (len(now), skipped) == (15, [0])  # one user turn in each of 15 goldens
    first = now[0]
    assert (first.text, first.turn.number, first.turn.history) == (
        "What's the weather like in Paris this weekend?",
        1,
        (),
    )
    assert first.contexts == ("Weather API docs", "Weather API reference")
    assert first.reference == "It's expected to be rainy with temperatures around 18°C."
    assert first.metadata["scenario"] == "User asks for weather forecast for Paris"
    csv = list(read_deepeval(CONVO_CSV, [0]))
    assert [(q.id, q.text, q.contexts) for q in csv] == [(q.id, q.text, q.contexts) for q in now]
    # DeepEval 3 wrote the same conversations (one context fewer here): the same ids.
    before = list(read_deepeval(CONVO_3, [0]))
    assert [q.id for q in before] == [q.id for q in now]
    assert before[0].contexts == ("Weather API docs",)
    result = import_deepeval(loaded, CONVO)
    # Each user turn's own retrieval context: two for the first, one for each other (names of
    # APIs, which no chunk of the corpus holds).
    assert (result.report.added, result.contexts, result.unmatched_total) == (15, 16, 16)


def test_deepeval_4s_files_a_user_turns_contexts_and_reference(loaded: Store) -> None:
    json_, csv, jsonl = (list(read_deepeval(path, [0])) for path in SAVED)
    assert [(q.id, q.turn, q.contexts) for q in csv] == [(q.id, q.turn, q.contexts) for q in json_]
    assert [(q.id, q.turn, q.contexts) for q in jsonl] == [
        (q.id, q.turn, q.contexts) for q in json_
    ]
    first, second, third = json_
    rate = loaded.corpus.get_chunk("default", "rate-limits").text
    errors = loaded.corpus.get_chunk("default", "error-codes").text
    assert first.contexts == (rate,)  # the answering assistant turn's retrieval context
    assert second.contexts == (errors, rate)
    assert third.contexts == (rate,)  # none of its own: the golden's context
    assert [q.reference for q in json_] == [
        "100 requests per minute.",
        "Too many requests: wait and retry.",
        None,
    ]
    assert [m.role for m in third.turn.history] == ["user", "assistant", "user", "assistant"]
    result = import_deepeval(loaded, SAVED[0])
    assert (result.report.added, result.exact, result.unmatched_total) == (3, 4, 0)
    assert loaded.questions.get(second.id).source_chunk_ids == ("error-codes", "rate-limits")


def test_a_scenario_without_turns_is_skipped(loaded: Store, tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    goldens = [
        {"scenario": "A partner asks about refunds", "turns": None},
        {"input": "What does error 404 mean?"},
    ]
    path.write_text(json.dumps(goldens), encoding="utf-8")
    result = import_deepeval(loaded, path)
    assert (result.report.added, result.multi_turn) == (1, 1)


def test_a_turn_without_a_role_names_its_place(loaded: Store, tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps([{"scenario": "s", "turns": [{"content": "hi"}]}]), "utf-8")
    with pytest.raises(LabelerError) as error:
        import_deepeval(loaded, path)
    assert str(error.value).startswith(f'{path}:1: field "turns[0].role": expected one of')
