"""Flags kept current in the database (labeler.review.flagging), and the queue order they give
(labeler.review.queue)."""

from dataclasses import replace

import pytest

from labeler import review
from labeler.errors import LabelerError
from labeler.importers import import_questions
from labeler.review import QueueFilter
from labeler.store import Store
from tests.conftest import write_jsonl


def generated(question_id: str, text: str, **extra) -> dict:
    return {
        "id": question_id,
        "origin": "generated",
        "generator": "ragas",
        "question": text,
        **extra,
    }


ROWS = [
    generated("g1", "How should a client retry after a 429 response?"),  # repeats human q1
    generated(
        "g2",
        "How many requests per minute can one key send?",
        reference="100 requests per minute.",
        contexts=["rate-limits"],
    ),
    generated("g3", "What does a 404 error mean?"),  # repeats human q3
    generated("g4", "What does error 404 mean for an order?"),
    generated("g5", "Pagination?", contexts=["A page that the corpus never had, long gone."]),
    generated(
        "g6",
        "Are webhooks signed with HMAC SHA-256 so that you can verify the sender?",
        reference="Webhooks are signed with HMAC SHA-256 so you can verify the sender.",
        contexts=["webhooks"],
    ),
]


@pytest.fixture
def flagged(loaded: Store, tmp_path) -> Store:
    import_questions(loaded, write_jsonl(tmp_path / "g.jsonl", ROWS))
    review.ensure_flags(loaded)
    return loaded


def flag_names(store: Store) -> dict[str, list[str]]:
    return {
        q: sorted(f["name"] for f in found)
        for q, found in store.flags.flags_of([r["id"] for r in ROWS]).items()
    }


def test_ensure_flags_flags_every_generated_question_once(flagged: Store) -> None:
    assert flag_names(flagged) == {
        "g1": ["duplicate"],
        "g3": ["duplicate"],
        "g4": ["duplicate"],
        "g5": ["context_not_found", "too_short"],
        "g6": ["answer_leak", "copied_from_source"],
    }
    duplicate = flagged.flags.flags_of(["g3"])["g3"][0]
    assert duplicate["related"] == ["g4", "q3"]
    assert review.ensure_flags(flagged) == review.FlagRefresh()  # nothing changed: no work
    assert flagged.flags.flags_of(["q1", "q3"]) == {}  # human questions are never flagged


def test_the_queue_puts_clusters_first_then_flagged_then_the_rest(flagged: Store) -> None:
    order = [r["id"] for r in review.list_questions(flagged, QueueFilter())]
    assert order == ["g1", "g3", "g4", "g6", "g5", "g2"]
    # g1 and q1 are one cluster, g3, g4 and q3 another: members come together.
    assert review.queue_key("g6", ["answer_leak"], None) < review.queue_key(
        "g5", ["too_short", "context_not_found"], None
    )


def test_an_edit_reflags_that_question_and_its_cluster(flagged: Store) -> None:
    review.edit(flagged, "g4", "maria", text="Which scope does a refund need?", reference=None)
    refresh = review.ensure_flags(flagged)
    assert (refresh.questions, refresh.full) == (1, False)
    names = flag_names(flagged)
    assert "g4" not in names
    assert flagged.flags.flags_of(["g3"])["g3"][0]["related"] == ["q3"]
    assert [r["id"] for r in review.list_questions(flagged, QueueFilter(flag="duplicate"))] == [
        "g1",
        "g3",
    ]


def test_a_new_import_is_flagged_the_next_time_anyone_looks(flagged: Store, tmp_path) -> None:
    more = [generated("g7", "How many requests per minute can one API key send?")]
    import_questions(flagged, write_jsonl(tmp_path / "more.jsonl", more))
    assert review.ensure_flags(flagged).questions == 1
    assert flagged.flags.flags_of(["g7"])["g7"][0]["related"] == ["g2"]


def test_a_changed_threshold_recomputes_everything(flagged: Store) -> None:
    with pytest.raises(LabelerError, match='field "duplicate_threshold"'):
        review.save_config(flagged, duplicate_threshold=120)
    assert review.load_config(flagged).duplicate_threshold == 85
    review.save_config(flagged, duplicate_threshold=99, min_words=1)
    refresh = review.ensure_flags(flagged)
    assert (refresh.questions, refresh.full) == (6, True)
    assert flag_names(flagged)["g5"] == ["context_not_found"]
    assert "g4" not in flag_names(flagged)


def test_the_first_of_each_cluster_is_human_else_accepted_else_first_by_id(
    flagged: Store, tmp_path
) -> None:
    more = [
        generated("g8", "Which scope does a refund need?"),
        generated("g9", "Which scope does a refund need, please?"),
    ]
    import_questions(flagged, write_jsonl(tmp_path / "more.jsonl", more))
    review.ensure_flags(flagged)
    where = QueueFilter(flag="duplicate")
    # Clusters with a human question keep none of their generated members.
    assert review.keepers(flagged, where) == {"g8"}
    review.accept(flagged, "g9", "maria")
    assert review.keepers(flagged, QueueFilter(status=None, flag="duplicate")) == {"g9"}
    rest = review.all_but_first(flagged, QueueFilter(status=None, flag="duplicate"))
    assert [r["id"] for r in review.list_questions(flagged, rest)] == ["g1", "g3", "g4", "g8"]


def test_moving_through_the_queue(flagged: Store) -> None:
    where = QueueFilter()
    assert review.next_question(flagged, where) == "g1"
    assert review.next_question(flagged, where, "g1") == "g3"
    assert review.next_question(flagged, where, "g2") == "g1"  # wraps round
    assert review.next_question(flagged, where, "g1", skip=["g3", "g4"]) == "g6"
    assert review.previous_question(flagged, where, "g3") == "g1"
    assert review.position(flagged, where, "g4") == 3
    review.reject(flagged, "g3", "maria", "duplicate")
    assert review.next_question(flagged, where, "g1") == "g4"
    assert review.position(flagged, where, "g3") is None  # no longer in the queue
    assert review.next_question(flagged, QueueFilter(status="rejected")) == "g3"
    assert review.next_question(flagged, QueueFilter(generator="nobody")) is None


def test_filters_by_generator_synthesizer_persona_tag_and_flag(loaded: Store, tmp_path) -> None:
    rows = [
        generated(
            "a1",
            "First question about retries?",
            metadata={"synthesizer_name": "single_hop", "persona_name": "developer"},
            tags=["api"],
        ),
        {
            **generated("a2", "Second question about pages?"),
            "generator": "deepeval",
            "synthesizer": "multi_hop",
            "persona": "agent",
        },
    ]
    import_questions(loaded, write_jsonl(tmp_path / "a.jsonl", rows))
    review.ensure_flags(loaded)

    def ids(**kw) -> list[str]:
        return [r["id"] for r in review.list_questions(loaded, QueueFilter(**kw))]

    assert ids(generator="deepeval") == ["a2"]
    assert ids(synthesizer="single_hop") == ["a1"]
    assert ids(persona="agent") == ["a2"]
    assert ids(tag="api") == ["a1"]
    assert ids(flag="duplicate") == []
    values = loaded.flags.filter_values()
    assert values["generator"] == [("deepeval", 1), ("ragas", 1)]
    assert values["persona"] == [("agent", 1), ("developer", 1)]


def follow_up(question_id: str, conversation: str, before: str, text: str) -> dict:
    history = [{"role": "user", "text": before}, {"role": "assistant", "text": "It depends."}]
    turn = {"id": conversation, "turn": 2, "history": history}
    return generated(question_id, text, conversation=turn)


def test_a_follow_up_is_a_duplicate_only_of_the_same_question_in_context(
    loaded: Store, tmp_path
) -> None:
    rows = [
        follow_up("a::2", "a", "What happens after a 429 response?", "How long do I wait then?"),
        follow_up("b::2", "b", "How do I ask for a refund?", "How long do I wait then?"),
        follow_up("c::2", "c", "What happens after a 429 response?", "How long do I wait then?"),
    ]
    import_questions(loaded, write_jsonl(tmp_path / "turns.jsonl", rows))
    review.ensure_flags(loaded)
    found = loaded.flags.flags_of(["a::2", "b::2", "c::2"])
    assert [f["related"] for f in found["a::2"] if f["name"] == "duplicate"] == [["c::2"]]
    assert "duplicate" not in {f["name"] for f in found.get("b::2", [])}
    # A new rewrite of a turn marks its flags for recomputing.
    dirty_before = loaded.flags.dirty_questions()[1]
    turn = loaded.questions.get("b::2").turn
    loaded.questions.upsert(
        [{"id": "b::2", "text": "How long do I wait then?", "turn": replace(turn, rewrite="x")}]
    )
    assert "b::2" in loaded.flags.dirty_questions()[1]
    assert "b::2" not in dirty_before
