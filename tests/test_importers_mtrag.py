"""labeler import mtrag (labeler/importers/mtrag.py) on MTRAG's own sample
(tests/data/formats/mtrag/responses-10.jsonl, IBM/mt-rag-benchmark, Apache-2.0): ten turns of two
conversations, 23 passages judged yes by annotators g1 and r1, bare NaN for missing tags; and
on lines changed by hand from it, one quirk at a time."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.errors import LabelerError
from labeler.importers.mtrag import import_mtrag, parse_feedback, tag_name
from labeler.models import Message
from labeler.store import Store
from tests.conftest import DATA, table_counts

SAMPLE = DATA / "formats" / "mtrag" / "responses-10.jsonl"
REWRITES = DATA / "formats" / "mtrag" / "rewrites.jsonl"
CARDINALS = "dd6b6ffd177f2b311abe676261279d2f"
SHELTERS = "5b2404d71f9ff7edabddb3b1a8b329e7"
COLLECTION = "collection:mt-rag-clapnq-elser-512-100-20240503"


def sample_lines() -> list[str]:
    return SAMPLE.read_text(encoding="utf-8").splitlines()


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_real_sample_comes_in_turn_by_turn(store: Store) -> None:
    reports = import_mtrag(store, SAMPLE, rewrites=str(REWRITES))
    assert [r.summary() for r in reports] == [
        "passages: 22 added, 0 updated, 0 unchanged (chunking 'default')",
        "turns: 10 added, 0 updated, 0 unchanged (2 conversations; 9 with a rewrite from"
        " rewrites.jsonl, whose 5 other rows name turns not in this file)",
        "feedback: 18 added, 0 updated, 0 unchanged (reviewer 'g1')",
        "feedback: 5 added, 0 updated, 0 unchanged (reviewer 'r1')",
    ]
    assert store.conversations.turns(CARDINALS) == [(n, f"{CARDINALS}::{n}") for n in range(1, 9)]
    third = store.questions.get(f"{CARDINALS}::3")
    assert third.text == "Are the Arizona Cardinals and the Chicago Cardinals the same team?"
    assert [m.role for m in third.turn.history] == ["user", "assistant", "user", "assistant"]
    assert third.turn.history[0] == Message("user", "where do the arizona cardinals play this week")
    assert third.turn.rewrite == third.text  # MTRAG's rewrite of this turn is the turn itself
    assert third.reference_answer.startswith("The Chicago Cardinals became the St. Louis")
    assert third.tags == (
        "answerability:ANSWERABLE",
        COLLECTION,
        "multi-turn:Clarification",
        "question-type:Explanation",
    )
    assert (third.origin, third.review_status) == ("human", "accepted")


def test_a_bare_nan_tag_is_missing(store: Store) -> None:
    import_mtrag(store, SAMPLE)
    first = store.questions.get(f"{CARDINALS}::1")  # "Multi-Turn": NaN, "Standalone Type": NaN
    assert first.tags == ("answerability:UNANSWERABLE", COLLECTION, "question-type:Factoid")
    assert first.turn.rewrite is None
    assert store.questions.get(f"{CARDINALS}::8").tags == (
        "answerability:ANSWERABLE",
        COLLECTION,
        "multi-turn:Follow-up",
        "question-type:Explanation",
        "question-type:Factoid",
    )


def test_feedback_becomes_each_annotators_labels(store: Store) -> None:
    import_mtrag(store, SAMPLE)
    labels = store.labels.question_labels(f"{SHELTERS}::1", "default")
    assert sorted((r["chunk_id"], r["reviewer"], r["grade"]) for r in labels) == [
        ("7d4d64e7f6aff125-3194-5132", "r1", 2),
        ("c8db6e06ff46669e-50302-52227", "r1", 2),
    ]
    # A passage judged for two turns is one chunk, labelled for each.
    shared = "832860310_2886-3341-0-455"
    for turn in (4, 5):
        found = store.labels.question_labels(f"{CARDINALS}::{turn}", "default")
        assert shared in {r["chunk_id"] for r in found}
    assert store.corpus.get_chunk("default", shared).title == "NFL playoffs"


def test_another_feedback_mapping(store: Store) -> None:
    import_mtrag(store, SAMPLE, feedback="yes:1,no:0", annotator_prefix="mtrag.")
    counts = store.labels.counts("default")
    assert counts["by_grade"] == {"1": 23}
    assert counts["by_reviewer"] == {"mtrag.g1": 18, "mtrag.r1": 5}


def test_feedback_mapped_to_skip_leaves_the_passage_to_grade(store: Store, tmp_path: Path) -> None:
    import_mtrag(store, SAMPLE, feedback="yes:skip,no:0")
    assert store.labels.counts("default")["by_grade"] == {}
    assert store.pools.sources(f"{SHELTERS}::1", "default") == []  # judged: not a suggestion


def test_importing_again_changes_nothing(store: Store) -> None:
    import_mtrag(store, SAMPLE, rewrites=str(REWRITES))
    again = import_mtrag(store, SAMPLE, rewrites=str(REWRITES))
    assert [(r.added, r.updated) for r in again] == [(0, 0)] * 4


def test_passages_already_in_the_chunking_are_matched_by_id(store: Store) -> None:
    record = json.loads(sample_lines()[8])
    context = record["contexts"][0]
    store.corpus.ensure_chunking("govt")
    store.corpus.upsert_chunks("govt", [{"id": context["document_id"], "text": context["text"]}])
    reports = import_mtrag(store, SAMPLE, chunking="govt")
    assert reports[0].summary() == (
        "passages: 21 added, 0 updated, 1 unchanged (chunking 'govt', 1 already there)"
    )


def test_a_passage_with_another_text_in_the_chunking_is_refused(
    store: Store, tmp_path: Path
) -> None:
    record = json.loads(sample_lines()[8])
    store.corpus.ensure_chunking("default")
    store.corpus.upsert_chunks(
        "default", [{"id": record["contexts"][1]["document_id"], "text": "Something else."}]
    )
    before = table_counts(store)
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, SAMPLE)
    assert str(error.value).startswith(
        f"{SAMPLE}:9: field \"contexts\": passage '7d4d64e7f6aff125-3194-5132' is already chunk"
    )
    assert table_counts(store) == before


def with_changed(tmp_path: Path, index: int, change) -> Path:
    lines = sample_lines()
    record = json.loads(lines[index])
    change(record)
    lines[index] = json.dumps(record)
    return write_lines(tmp_path / "tasks.jsonl", lines)


def test_a_new_text_for_a_graded_turn_is_refused(store: Store, tmp_path: Path) -> None:
    """As every import of questions: the annotators' labels were given for the old text."""
    import_mtrag(store, SAMPLE)
    before = table_counts(store)

    def reword(record: dict) -> None:
        record["input"][-1]["text"] = "Who coaches the Patriots now?"

    path = with_changed(tmp_path, 7, reword)
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, path)
    assert str(error.value).startswith(
        f'{path}:8: field "question": changes the text of 1 question already graded:'
        f" {CARDINALS}::8 (2 labels)."
    )
    assert table_counts(store) == before
    assert store.questions.get(f"{CARDINALS}::8").text == "Who is the Patriot's coach?"


def test_replace_text_takes_the_new_turn_and_makes_its_labels_stale(
    store: Store, tmp_path: Path
) -> None:
    import_mtrag(store, SAMPLE)

    def reword(record: dict) -> None:
        record["input"][-1]["text"] = "Who coaches the Patriots now?"

    reports = import_mtrag(store, with_changed(tmp_path, 7, reword), replace_text=True)
    turns = next(r for r in reports if r.kind == "turns")
    assert turns.updated == 1
    assert turns.detail.endswith("; 1 graded turn got a new text: 2 labels now stale")
    turn = f"{CARDINALS}::8"
    assert store.questions.get(turn).text == "Who coaches the Patriots now?"
    states = {r["state"] for r in store.labels.question_labels(turn, "default")}
    assert states == {"stale"}  # its 2 labels were given for the old words
    others = store.labels.question_labels(f"{CARDINALS}::7", "default")
    assert others
    assert {r["state"] for r in others} == {"current"}


def test_nan_anywhere_else_is_an_error(store: Store, tmp_path: Path) -> None:
    lines = sample_lines()
    lines[2] = lines[2].replace('"turn": 3,', '"turn": NaN,')
    path = write_lines(tmp_path / "t.jsonl", lines)
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, path)
    assert str(error.value) == f'{path}:3: field "turn": expected a whole number, got NaN'
    lines = sample_lines()
    lines[4] = lines[4].replace('"Multi-Turn": ["Follow-up"]', '"Multi-Turn": Infinity')
    with pytest.raises(LabelerError, match="Infinity is not a JSON number"):
        import_mtrag(store, write_lines(tmp_path / "t.jsonl", lines))
    assert store.questions.count() == 0


def test_every_other_reader_still_refuses_nan(store: Store, tmp_path: Path) -> None:
    from labeler.importers import import_questions

    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "q1", "question": "x", "tags": NaN}\n', encoding="utf-8")
    with pytest.raises(LabelerError, match="NaN is not a JSON number"):
        import_questions(store, path)


def test_a_feedback_value_the_mapping_lacks(store: Store, tmp_path: Path) -> None:
    def maybe(record: dict) -> None:
        record["contexts"][0]["feedback"]["relevant"]["g1"]["value"] = "maybe"

    path = with_changed(tmp_path, 1, maybe)
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, path)
    assert str(error.value) == (
        f'{path}:2: field "contexts[0].feedback.relevant.g1.value": expected one of yes, no'
        " (see --feedback), got 'maybe'"
    )
    with pytest.raises(LabelerError, match='field "feedback": expected VALUE:GRADE pairs'):
        parse_feedback("yes=2")


def test_the_turn_must_be_the_users_last_message(store: Store, tmp_path: Path) -> None:
    path = with_changed(tmp_path, 1, lambda r: r["input"].pop())
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, path)
    assert str(error.value) == (
        f'{path}:2: field "input": expected the messages up to the turn, the last one the user\'s'
    )


def test_a_turn_after_more_user_messages_than_turns_before_it(store: Store, tmp_path: Path) -> None:
    path = with_changed(tmp_path, 2, lambda r: r.update(turn=2, task_id="other"))
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, path)
    assert str(error.value) == (
        f'{path}:3: field "turn": turn 2 comes after 2 user messages: expected at most 1'
    )


def test_two_tasks_for_one_turn(store: Store, tmp_path: Path) -> None:
    lines = sample_lines()
    record = json.loads(lines[1])
    record["task_id"] = "copy-of-turn-2"
    path = write_lines(tmp_path / "t.jsonl", [*lines, json.dumps(record)])
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, path)
    assert str(error.value) == (
        f'{path}:11: field "turn": turn 2 of conversation {CARDINALS!r} is also question'
        f" '{CARDINALS}::2' (line 2)"
    )


def test_mtrag_un_ids_turns_as_text_and_passages_without_feedback(
    store: Store, tmp_path: Path
) -> None:
    """MTRAG-UN's task files: ids with <::>, the turn as text, passages without feedback."""

    def un(record: dict) -> None:
        record["task_id"] = record["task_id"].replace("::", "<::>")
        record["turn"] = str(record["turn"])
        for context in record["contexts"]:
            del context["feedback"]

    path = with_changed(tmp_path, 9, un)
    import_mtrag(store, path, rewrites=str(REWRITES))
    question = store.questions.get(f"{SHELTERS}<::>2")
    assert (question.turn.number, question.turn.rewrite) == (
        2,
        "What items should I keep in the safe room?",
    )
    suggested = store.pools.sources(f"{SHELTERS}<::>2", "default")
    assert sorted(c for c, source, _ in suggested) == [
        "7d4d64e7f6aff125-1590-3637",
        "88aca7ee734372ad-0-1462",
        "c8db6e06ff46669e-48670-50814",
    ]
    assert {source for _, source, _ in suggested} == {"added:suggested"}


def test_a_task_without_id_is_named_after_its_conversation_and_turn(
    store: Store, tmp_path: Path
) -> None:
    path = with_changed(tmp_path, 0, lambda r: r.pop("task_id"))
    import_mtrag(store, path)
    assert store.questions.get(f"{CARDINALS}::1").turn.number == 1


def test_tag_names() -> None:
    assert [tag_name(f) for f in ("answerability", "Question Type", "Multi-Turn")] == [
        "answerability",
        "question-type",
        "multi-turn",
    ]


def test_the_command(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    result = CliRunner().invoke(
        main, ["import", "mtrag", str(SAMPLE), "--rewrites", str(REWRITES), "--db", db]
    )
    assert result.exit_code == 0, result.output
    assert "turns: 10 added" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"conversation_id": "c", "turn": 1, "input": []}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["import", "mtrag", str(bad), "--db", db])
    assert result.exit_code == 2
    assert result.output.strip().endswith(
        f'{bad}:1: field "input": expected the messages up to the turn, the last one the user\'s'
    )


def test_batches_of_three_turns_write_what_one_batch_does(
    store: Store, tmp_path: Path, monkeypatch
) -> None:
    """The passages are checked and staged in the reading thread, batch by batch: lines 4 and
    5 share a passage, lines 9 and 10 are in the last batch."""
    with Store(tmp_path / "whole.db") as one:
        whole = [r.summary() for r in import_mtrag(one, SAMPLE)]
        found = [c.id for c in one.search.search_chunks("default", "cardinals stadium")]
    monkeypatch.setattr("labeler.importers.mtrag.BATCH", 3)
    assert [r.summary() for r in import_mtrag(store, SAMPLE)] == whole
    assert store.corpus.count_chunks("default") == 22
    assert [c.id for c in store.search.search_chunks("default", "cardinals stadium")] == found
    assert len(found) >= 2
    # FTS5's own check raises when the index disagrees with the chunks.
    store.conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)")


def test_a_passage_given_another_text_in_a_later_batch(
    store: Store, tmp_path: Path, monkeypatch
) -> None:
    lines = sample_lines()
    first = json.loads(lines[1])["contexts"][0]
    record = json.loads(lines[8])
    record["contexts"].append({**first, "text": "Another text."})
    lines[8] = json.dumps(record)
    path = write_lines(tmp_path / "tasks.jsonl", lines)
    monkeypatch.setattr("labeler.importers.mtrag.BATCH", 3)
    with pytest.raises(LabelerError) as error:
        import_mtrag(store, path)
    assert str(error.value) == (
        f'{path}:9: field "contexts": passage {first["document_id"]!r} has another text than on'
        " line 2"
    )
    assert store.corpus.count_chunks() == 0
