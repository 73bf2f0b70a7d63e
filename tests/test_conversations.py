"""The rules of a turn (labeler/conversations.py): ids, what its pool's search asks, the one
shape in files, the order of a conversation's turns."""

import pytest

from labeler.conversations import (
    TurnRegister,
    by_conversation,
    default_search,
    describe_turn,
    order_key,
    prompt_text,
    read_turn,
    search_choice,
    search_choices,
    search_text,
    turn_id,
    turn_record,
    user_texts,
)
from labeler.errors import LabelerError
from labeler.models import Message, Question, Turn

HISTORY = (
    Message("user", "What is the rate limit?"),
    Message("assistant", "100 requests per minute."),
    Message("tool", "rate-limits: 100/min"),
    Message("user", "And in the sandbox?"),
    Message("assistant", "25."),
)
THIRD = Question(
    "c::3",
    "What happens when I go over it?",
    turn=Turn("c", 3, HISTORY, rewrite="What happens over the sandbox rate limit?"),
)
ALONE = Question("q1", "How do I retry after a 429?")


def test_a_turn_id_is_conversation_and_number() -> None:
    assert turn_id("dd6b", 2) == "dd6b::2"


def test_user_texts_are_what_the_user_said_up_to_the_turn() -> None:
    assert user_texts(THIRD) == [
        "What is the rate limit?",
        "And in the sandbox?",
        "What happens when I go over it?",
    ]
    assert user_texts(ALONE) == ["How do I retry after a 429?"]


def test_the_search_of_a_turn_asks_its_rewrite_by_default() -> None:
    assert search_choices(THIRD) == ["rewrite", "previous", "turn", "conversation"]
    assert (default_search(THIRD), search_choice(THIRD)) == ("rewrite", "rewrite")
    assert search_text(THIRD) == "What happens over the sandbox rate limit?"


def test_a_judge_reads_a_turn_with_its_conversation_and_rewrite() -> None:
    assert prompt_text(THIRD) == (
        "Conversation before the question (turn 3):\n"
        "user: What is the rate limit?\n"
        "assistant: 100 requests per minute.\n"
        "tool: rate-limits: 100/min\n"
        "user: And in the sandbox?\n"
        "assistant: 25.\n"
        "\n"
        "Question: What happens when I go over it?\n"
        "Standalone rewrite of the question: What happens over the sandbox rate limit?"
    )
    first = Question("c::1", "What is the rate limit?", turn=Turn("c", 1, ()))
    assert prompt_text(first) == "What is the rate limit?"
    rewritten = Question("c::1", "And it?", turn=Turn("c", 1, (), rewrite="What is it?"))
    assert (
        prompt_text(rewritten)
        == "Question: And it?\nStandalone rewrite of the question: What is it?"
    )
    assert prompt_text(ALONE) == "How do I retry after a 429?"


def test_without_a_rewrite_the_turn_is_searched_with_the_previous_user_turn() -> None:
    plain = Question(THIRD.id, THIRD.text, turn=Turn("c", 3, HISTORY))
    assert search_choices(plain) == ["previous", "turn", "conversation"]
    assert search_text(plain) == "And in the sandbox?\nWhat happens when I go over it?"


def test_a_chosen_search_wins_unless_the_turn_no_longer_offers_it() -> None:
    chose = Question(THIRD.id, THIRD.text, turn=Turn("c", 3, HISTORY, search="conversation"))
    assert search_text(chose) == "\n".join(user_texts(THIRD))
    gone = Question(THIRD.id, THIRD.text, turn=Turn("c", 3, HISTORY, search="rewrite"))
    assert search_choice(gone) == "previous"  # no rewrite any more: the default
    first = Question("c::1", "What is the rate limit?", turn=Turn("c", 1))
    assert search_text(first) == "What is the rate limit?"  # no previous user turn


def test_a_question_that_stands_alone_is_searched_with_its_text() -> None:
    assert (search_choices(ALONE), search_choice(ALONE), search_text(ALONE)) == (
        [],
        None,
        ALONE.text,
    )


def test_a_turn_reads_back_as_written() -> None:
    record = turn_record(THIRD.turn)
    assert record == {
        "id": "c",
        "turn": 3,
        "history": [{"role": m.role, "text": m.text} for m in HISTORY],
        "rewrite": "What happens over the sandbox rate limit?",
    }
    assert read_turn(record, path="q.jsonl", line=4) == THIRD.turn
    assert read_turn(None, path="q.jsonl", line=4) is None


def test_other_tools_names_of_speakers_are_read_as_roles() -> None:
    record = {
        "id": "c",
        "turn": 2,
        "history": [{"speaker": "user", "text": "hi"}, {"type": "ai", "content": "hello"}],
    }
    turn = read_turn(record, path="q.jsonl", line=1)
    assert turn.history == (Message("user", "hi"), Message("assistant", "hello"))


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"id": "c", "history": []}, 'q.jsonl:7: field "conversation.turn": missing'),
        (
            {"id": "c", "turn": 0},
            'q.jsonl:7: field "conversation.turn": expected a whole number from 1 to',
        ),
        (
            {"id": "c", "turn": 1, "history": [{"role": "user", "text": "before"}]},
            'q.jsonl:7: field "conversation.turn": turn 1 comes after 1 user messages:'
            " expected at most 0",
        ),
        (
            {"id": "c", "turn": 2, "history": [{"role": "system", "text": "be nice"}]},
            'q.jsonl:7: field "conversation.history[0].role": expected one of',
        ),
        ({"id": "c c", "turn": 1}, 'q.jsonl:7: field "conversation.id": the id'),
        ("c::1", 'q.jsonl:7: field "conversation": expected an object'),
    ],
)
def test_a_bad_turn_names_the_file_line_and_field(record: object, message: str) -> None:
    with pytest.raises(LabelerError) as error:
        read_turn(record, path="q.jsonl", line=7)
    assert str(error.value).startswith(message)


def test_a_conversations_turns_sort_together_in_turn_order() -> None:
    rows = [("b", None), ("c::10", Turn("c", 10)), ("c::2", Turn("c", 2)), ("a", None)]
    assert [q for q, _ in sorted(rows, key=lambda r: order_key(*r))] == [
        "a",
        "b",
        "c::2",
        "c::10",
    ]


def test_turns_are_grouped_by_conversation() -> None:
    second = Question("c::2", "And in the sandbox?", turn=Turn("c", 2))
    first = Question("c::1", "What is the rate limit?", turn=Turn("c", 1))
    assert by_conversation([ALONE, second, first]) == {"c": [first, second]}


def test_a_file_gives_one_question_per_turn() -> None:
    register = TurnRegister("t.jsonl")
    register.add(1, "c::1", Turn("c", 1))
    register.add(2, "c::1", Turn("c", 1))  # the same question again: the importer's concern
    with pytest.raises(LabelerError) as error:
        register.add(3, "other", Turn("c", 1))
    assert str(error.value) == (
        "t.jsonl:3: field \"turn\": turn 1 of conversation 'c' is also question 'c::1' (line 1)"
    )


def test_a_turn_in_one_line() -> None:
    assert describe_turn(THIRD.turn) == (
        "turn 3 of c, after 5 messages, rewrite 'What happens over the sandbox rate limit?'"
    )
    assert describe_turn(None) == "none"
