"""The blind spot-check's core: what a reviewer sees, and what their verdicts write."""

import json

import pytest

from labeler.errors import LabelerError
from labeler.judge import review
from labeler.judge.importing import import_judgements
from labeler.judge.sampling import sample_plan
from labeler.store import Store


@pytest.fixture
def planned(loaded: Store, tmp_path) -> Store:
    records = [
        {
            "item": "ans-1",
            "metric": "Faithfulness",
            "rater": "J",
            "rater_kind": "model",
            "verdict": 0.9,
            "question": "q1",
            "answer": "Wait for Retry-After.",
            "contexts": ["rate-limits"],
            "rationale": "## Supported\n\n**All** claims.",
        },
        {
            "item": "ans-2",
            "metric": "Faithfulness",
            "rater": "J",
            "rater_kind": "model",
            "verdict": 0.2,
            "question": "q2",
            "answer": "Use page numbers.",
        },
        {
            "item": "q1/rate-limits",
            "metric": "relevance",
            "rater": "J",
            "rater_kind": "model",
            "verdict": 2,
            "question": "q1",
            "chunk_id": "rate-limits",
        },
    ]
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_judgements(loaded, path)
    sample_plan(loaded, "Faithfulness", per_stratum=5, seed=0, name="faith")
    sample_plan(loaded, "relevance", per_stratum=5, seed=0, name="rel")
    return loaded


def test_an_item_shows_question_answer_contexts_and_definition(planned: Store) -> None:
    item = review.open_item(planned, "faith", "ans-1", "ana")
    assert item.question == "How should a client retry after a 429 response?"
    assert item.answer == "Wait for Retry-After."
    assert item.contexts[0].startswith("Each API key may send 100 requests per minute.")
    assert item.definition.startswith("Is every claim in the answer supported")
    assert item.scale.describe() == "a score from 0 to 1 (higher is better); passes at >= 0.5"
    assert not item.revealed
    assert item.mine is None


def test_a_verdict_is_recorded_and_reveals_the_judge(planned: Store) -> None:
    review.give_verdict(planned, "faith", "ans-1", "ana", 0)
    item = review.open_item(planned, "faith", "ans-1", "ana")
    assert item.revealed
    assert (item.mine.rater, item.mine.code, item.mine.value) == ("ana", 0, 0.0)
    assert (item.judge.code, item.judge.rationale) == (1, "## Supported\n\n**All** claims.")
    assert review.progress(planned, "faith", "ana") == review.Progress(done=1, total=2)
    assert review.next_item(planned, "faith", "ana") == "ans-2"
    history = planned.ratings.history("ans-1")
    assert [(e["rater"], e["action"], e["new_value"]) for e in history][-1] == ("ana", "rate", 0.0)


def test_a_note_needs_a_verdict_first(planned: Store) -> None:
    with pytest.raises(LabelerError, match="give your verdict before adding a note"):
        review.save_note(planned, "faith", "ans-2", "ana", "why")
    review.give_verdict(planned, "faith", "ans-2", "ana", 1)
    review.save_note(planned, "faith", "ans-2", "ana", "the answer is fine")
    item = review.open_item(planned, "faith", "ans-2", "ana")
    assert (item.mine.code, item.mine.rationale) == (1, "the answer is fine")


def test_a_relevance_verdict_is_a_label(planned: Store) -> None:
    key = '["q1","rate-limits"]'
    item = review.open_item(planned, "rel", key, "ana")
    assert item.chunk_text.startswith("Each API key may send")
    review.give_verdict(planned, "rel", key, "ana", 1)
    assert [
        (r["chunk_id"], r["reviewer"], r["grade"])
        for r in planned.labels.question_labels("q1", "default")
    ] == [("rate-limits", "ana", 1)]
    review.save_note(planned, "rel", key, "ana", "only the limit")
    assert planned.labels.question_labels("q1", "default")[0]["note"] == "only the limit"
    assert review.next_item(planned, "rel", "ana") is None


def test_the_judge_cannot_review_itself_and_codes_are_checked(planned: Store) -> None:
    with pytest.raises(LabelerError, match="'J' is a judge; review under your own name"):
        review.give_verdict(planned, "faith", "ans-1", "J", 1)
    with pytest.raises(LabelerError, match="expected one of fail, pass"):
        review.give_verdict(planned, "faith", "ans-1", "ana", 2)
    with pytest.raises(LabelerError, match="is not in the plan"):
        review.open_item(planned, "faith", "nope", "ana")


def test_an_item_opened_on_its_own(planned: Store) -> None:
    item = review.open_item(planned, None, "ans-2", "ana", metric="Faithfulness")
    assert (item.plan, item.position, item.total, item.judge.rater) == (None, 1, 1, "J")
    review.give_verdict(planned, None, "ans-2", "ana", 1, metric="Faithfulness")
    assert review.open_item(planned, None, "ans-2", "ana", metric="Faithfulness").mine.code == 1
    assert review.plans_with(planned, "Faithfulness", "ans-2") == ["faith"]
    with pytest.raises(LabelerError, match="no rating of Faithfulness on the item 'nope'"):
        review.open_item(planned, None, "nope", "ana", metric="Faithfulness")
