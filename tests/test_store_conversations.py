"""Turns in the store (labeler/store/conversations.py, through store.questions): written and
read with their question, changed only by a file that says so, one question per turn."""

from dataclasses import replace

import pytest

from labeler.errors import LabelerError
from labeler.models import Message, Turn
from labeler.store import Store

HISTORY = (Message("user", "How many requests?"), Message("assistant", "100 a minute."))
SECOND = Turn("c1", 2, HISTORY, rewrite="What happens over the rate limit?")


def test_a_turn_is_written_and_read_with_its_question(store: Store) -> None:
    assert store.questions.upsert([{"id": "c1::2", "text": "And over that?", "turn": SECOND}]) == (
        1,
        0,
    )
    question = store.questions.get("c1::2")
    assert (question.text, question.turn) == ("And over that?", SECOND)
    assert store.questions.many(["c1::2", "nope"])["c1::2"].turn == SECOND
    assert store.conversations.turns("c1") == [(2, "c1::2")]
    assert store.conversations.counts() == {"conversations": 1, "turns": 1}


def test_the_same_turn_again_changes_nothing_and_another_history_updates_it(store: Store) -> None:
    row = {"id": "c1::2", "text": "And over that?", "turn": SECOND}
    store.questions.upsert([row])
    assert store.questions.upsert([row]) == (0, 0)
    edited = replace(SECOND, history=(*HISTORY[:1], Message("assistant", "100 per minute.")))
    assert store.questions.upsert([{**row, "turn": edited}]) == (0, 1)
    assert store.questions.get("c1::2").turn.history[1].text == "100 per minute."


def test_a_file_without_conversations_keeps_the_stored_turn(store: Store) -> None:
    store.questions.upsert([{"id": "c1::2", "text": "And over that?", "turn": SECOND}])
    assert store.questions.upsert([{"id": "c1::2", "text": "And over that?", "tags": ["x"]}]) == (
        0,
        1,
    )
    assert store.questions.get("c1::2").turn == SECOND


def test_one_question_per_turn_of_a_conversation(store: Store) -> None:
    store.questions.upsert([{"id": "c1::2", "text": "And over that?", "turn": SECOND}])
    with pytest.raises(LabelerError) as error:
        store.questions.upsert([{"id": "other", "text": "Same turn?", "turn": SECOND}])
    assert str(error.value) == (
        "field \"turn\": turn 2 of conversation 'c1' is already question 'c1::2', not 'other'"
    )
    assert store.questions.get("other") is None  # nothing written


def test_a_reviewers_search_choice_stays_when_the_turn_is_imported_again(store: Store) -> None:
    store.questions.upsert([{"id": "c1::2", "text": "And over that?", "turn": SECOND}])
    assert store.conversations.set_search("c1::2", "conversation") is True
    assert store.conversations.set_search("c1::2", "conversation") is False
    store.questions.upsert([{"id": "c1::2", "text": "And over that?", "turn": SECOND}])
    assert store.questions.get("c1::2").turn.search == "conversation"


def test_the_queue_says_which_rows_are_turns(talking: Store) -> None:
    rows = {r["id"]: r for r in talking.questions.queue("default", "ana")}
    assert (rows["c1::3"]["conversation"], rows["c1::3"]["turn"]) == ("c1", 3)
    assert (rows["q1"]["conversation"], rows["q1"]["turn"]) == (None, None)


def test_questions_built_elsewhere_get_their_turns(talking: Store) -> None:
    from labeler.models import Question

    found = talking.questions.with_turns([Question("c1::1"), Question("q1")])
    assert (found[0].turn.number, found[1].turn) == (1, None)
