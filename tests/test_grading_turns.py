"""Grading a turn (labeler/grading/turns.py and the grading core around it): the conversation
above it, its pool's search, the queue that keeps a conversation together; and what works on a
question working on a turn (remap, the current labels, review, the judge's spot-check)."""

import json
from pathlib import Path

import pytest

from labeler.conversations import search_text
from labeler.errors import LabelerError
from labeler.grading import labeling, queues
from labeler.grading.candidates import pool
from labeler.grading.current import current_labels
from labeler.grading.search_pools import SEARCH_POOL_SIZE, pool_key
from labeler.grading.turns import conversation_view, earlier_turns, set_search
from labeler.models import Message, Turn
from labeler.store import Store

CHUNKING = "default"


def test_the_conversation_above_a_turn_with_what_was_graded_2(talking: Store) -> None:
    labeling.grade(talking, "c1::1", "rate-limits", "ana", 2)
    labeling.grade(talking, "c1::1", "error-codes", "ben", 1)
    labeling.grade(talking, "c1::2", "error-codes", "ben", 2)
    view = conversation_view(talking, talking.questions.get("c1::3"), CHUNKING)
    assert [(t.number, t.text, t.question_id) for t in view.earlier] == [
        (1, "How many requests may one API key send?", "c1::1"),
        (2, "And what happens to the ones over that?", "c1::2"),
    ]
    assert [m.text for m in view.earlier[1].replies] == ["They get status 429."]
    assert [c.id for c in view.earlier[0].answers] == ["rate-limits"]
    assert view.answered == {"rate-limits": (1,), "error-codes": (2,)}
    assert conversation_view(talking, talking.questions.get("q1"), CHUNKING).earlier == ()


def test_a_stale_grade_of_2_is_not_shown_as_an_answer(talking: Store) -> None:
    labeling.grade(talking, "c1::1", "rate-limits", "ana", 2)
    talking.corpus.upsert_chunks(
        CHUNKING, [{"id": "rate-limits", "text": "A new text."}], replace_text=True
    )
    view = conversation_view(talking, talking.questions.get("c1::2"), CHUNKING)
    assert view.answered == {}


def test_a_history_cut_short_numbers_the_turns_it_keeps() -> None:
    history = (
        Message("assistant", "Welcome back."),
        Message("user", "Fourth question?"),
        Message("assistant", "Fourth answer."),
    )
    turns = earlier_turns(Turn("c", 5, history))
    assert [(t.number, t.text, [m.text for m in t.replies]) for t in turns] == [
        (0, None, ["Welcome back."]),
        (4, "Fourth question?", ["Fourth answer."]),
    ]


def test_the_pool_of_a_turn_is_searched_with_its_rewrite(talking: Store) -> None:
    second = talking.questions.get("c1::2")
    entries = pool(talking, second, CHUNKING)
    searched = [e.chunk_id for e in entries if any(s.kind == "search" for s in e.sources)]
    expected = talking.search.pool_search(
        CHUNKING, "What happens to requests over the rate limit?", limit=SEARCH_POOL_SIZE
    )
    assert (
        sorted(searched)
        == sorted(h.chunk_id for h in expected)
        == [
            "error-codes",
            "rate-limits",
        ]
    )
    # The turn alone would find nothing: it names neither requests nor limits.
    alone = talking.search.pool_search(CHUNKING, second.text, limit=SEARCH_POOL_SIZE)
    assert [h.chunk_id for h in alone] == []
    assert talking.pools.fts_pool_hash("c1::2", CHUNKING) == pool_key(talking, second, CHUNKING)


def test_choosing_another_search_redoes_the_pool_and_keeps_the_grades(talking: Store) -> None:
    second = talking.questions.get("c1::2")
    pool(talking, second, CHUNKING)
    labeling.grade(talking, "c1::2", "webhooks", "ana", 0)
    assert set_search(talking, "c1::2", "turn") is True
    chosen = talking.questions.get("c1::2")
    assert search_text(chosen) == "And what happens to the ones over that?"
    assert pool_key(talking, chosen, CHUNKING) != pool_key(talking, second, CHUNKING)
    view = labeling.open_question(talking, "c1::2", "ana")
    assert talking.pools.fts_pool_hash("c1::2", CHUNKING) == pool_key(talking, chosen, CHUNKING)
    assert "webhooks" in {c.chunk.id for c in view.candidates}  # labelled: it stays


def test_a_search_the_turn_cannot_take(talking: Store) -> None:
    with pytest.raises(LabelerError, match="has no 'rewrite' to search with"):
        set_search(talking, "c1::3", "rewrite")
    with pytest.raises(LabelerError, match="unknown search 'dense'"):
        set_search(talking, "c1::3", "dense")
    with pytest.raises(LabelerError, match="is not a turn of a conversation"):
        set_search(talking, "q1", "turn")


def test_n_and_p_walk_a_conversation_turn_by_turn(talking: Store) -> None:
    rows = queues.queue_rows(talking, "ana")
    assert [r["id"] for r in rows] == ["c1::1", "c1::2", "c1::3", "q1", "q2", "q3"]
    assert queues.next_question(talking, "ana", "c1::1") == "c1::2"
    assert queues.previous_question(talking, "ana", "c1::3") == "c1::2"
    labeling.mark(talking, "c1::2", "ana", unanswerable=True)  # done: Next passes over it
    assert queues.next_question(talking, "ana", "c1::1") == "c1::3"


def test_turn_ten_comes_after_turn_nine(store: Store) -> None:
    history: tuple[Message, ...] = ()
    rows = []
    for number in range(1, 12):
        rows.append(
            {"id": f"c::{number}", "text": f"turn {number}?", "turn": Turn("c", number, history)}
        )
        history = (*history, Message("user", f"turn {number}?"), Message("assistant", "ok"))
    store.questions.upsert(rows)
    ids = [r["id"] for r in queues.queue_rows(store, "ana")]
    assert ids == [f"c::{n}" for n in range(1, 12)]


def test_the_current_labels_know_the_turns_and_their_tags(talking: Store) -> None:
    labeling.grade(talking, "c1::2", "error-codes", "ana", 2)
    labels = current_labels(talking)
    assert labels.turns == {"c1::1": 1, "c1::2": 2, "c1::3": 3}
    assert labels.tags["c1::2"] == (
        "answerability:ANSWERABLE",
        "multi-turn:Follow-up",
        "question-type:Explanation",
    )


def test_a_turns_labels_are_carried_to_a_new_chunking(talking: Store) -> None:
    from labeler.remap import remap

    labeling.grade(talking, "c1::2", "error-codes", "ana", 2)
    chunks = talking.corpus.chunk_texts(CHUNKING, ["error-codes", "rate-limits"])
    talking.corpus.ensure_chunking("v2")
    talking.corpus.upsert_chunks(
        "v2", [{"id": c["id"] + "~1", "text": c["text"], "doc_id": c["doc_id"]} for c in chunks]
    )
    remap(talking, CHUNKING, "v2")
    carried = talking.labels.question_labels("c1::2", "v2")
    assert [(r["chunk_id"], r["reviewer"], r["grade"]) for r in carried] == [
        ("error-codes~1", "ana", 2)
    ]


def test_an_accepted_generated_turn_joins_the_queue_in_its_conversation(
    loaded: Store, tmp_path: Path
) -> None:
    from labeler.importers.ragas import import_ragas
    from labeler.review import accept

    sample = {
        "user_input": [
            {"content": "What does error 404 mean?", "type": "human"},
            {"content": "The order does not exist.", "type": "ai"},
            {"content": "And 429?", "type": "human"},
        ]
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(sample) + "\n", encoding="utf-8")
    import_ragas(loaded, path)
    ids = [q for q in loaded.questions.ids() if "::" in q]
    assert [loaded.questions.get(q).review_status for q in ids] == ["pending", "pending"]
    for question_id in reversed(ids):
        accept(loaded, question_id, "ana")
    rows = [r["id"] for r in queues.queue_rows(loaded, "ana")]
    assert rows[rows.index(ids[0]) + 1] == ids[1]
    assert loaded.questions.get(ids[1]).turn.history[1].text == "The order does not exist."


def test_the_spot_check_of_a_turn_shows_its_conversation(talking: Store, tmp_path: Path) -> None:
    from labeler.judge import review
    from labeler.judge.importing import import_judgements
    from labeler.judge.sampling import sample_plan

    record = {
        "item": "c1::2/error-codes",
        "metric": "relevance",
        "rater": "J",
        "rater_kind": "model",
        "verdict": 2,
        "question": "c1::2",
        "chunk_id": "error-codes",
    }
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    import_judgements(talking, path)
    plan = sample_plan(talking, "relevance", per_stratum=5, seed=0, name="rel")
    item = review.open_item(talking, "rel", plan.items[0].item, "ana")
    assert (item.question_id, item.question) == ("c1::2", "And what happens to the ones over that?")
    assert item.turn.history[0].text == "How many requests may one API key send?"


def test_label_next_offers_a_turns_pairs(talking: Store, tmp_path: Path) -> None:
    """``labeler next`` between two runs that differ on a turn only: the pairs to grade are
    that turn's, by its id."""
    from labeler.grading.decide import decide_runs
    from labeler.importers import import_run

    for name, first, second in (("a", "error-codes", "webhooks"), ("b", "webhooks", "error-codes")):
        run = tmp_path / f"{name}.trec"
        run.write_text(
            f"c1::1 Q0 rate-limits 1 2.0 {name}\nc1::2 Q0 {first} 1 2.0 {name}\n"
            f"c1::2 Q0 {second} 2 1.0 {name}\n",
            encoding="utf-8",
        )
        import_run(talking, run)
    talking.labels.set_grade("c1::1", CHUNKING, "rate-limits", "ana", 2)
    decision = decide_runs(talking, "a", "b", "mrr@10", budget=5)
    assert sorted((p.question, p.chunk) for p in decision.pairs) == [
        ("c1::2", "error-codes"),
        ("c1::2", "webhooks"),
    ]
