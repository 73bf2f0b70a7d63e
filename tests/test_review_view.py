"""What the review page shows of one question (labeler.review.view), and the stats
(labeler.review.stats)."""

import pytest

from labeler import review
from labeler.importers import import_questions
from labeler.review.view import covered_spans, word_diff
from labeler.store import Store
from tests.conftest import write_jsonl


def test_covered_spans_mark_the_runs_a_context_repeats() -> None:
    chunk = "Each API key may send 100 requests per minute. Extra requests return status 429."
    context = "In production each API key may send 100 requests per minute, says the page."
    spans = covered_spans(context, chunk)
    assert [chunk[a:b] for a, b in spans] == ["Each API key may send 100 requests per minute"]
    # Runs separated only by punctuation join; runs shorter than three words are chance.
    assert covered_spans("Extra requests return status 429 and more", chunk) == ((47, 79),)
    assert covered_spans("requests per", chunk) == ()
    assert covered_spans("", chunk) == ()


def test_word_diff_shows_what_an_edit_changed() -> None:
    assert word_diff("How do I page orders?", "How do I page through orders?") == [
        ("=", "How do I page "),
        ("+", "through "),
        ("=", "orders?"),
    ]
    assert word_diff("old words", "new words") == [("-", "old"), ("+", "new"), ("=", " words")]


@pytest.fixture
def viewed(loaded: Store, tmp_path) -> Store:
    rows = [
        {
            "id": "g1",
            "origin": "generated",
            "generator": "ragas",
            "question": "How should a client retry after a 429 response?",
            "reference": "Wait as Retry-After says.",
            "contexts": [
                "404 means the order does not exist. 429 means too many requests: wait and retry.",
                "A context that no chunk of the corpus holds at all, from a removed page.",
            ],
            "metadata": {"synthesizer_name": "single_hop", "query_style": "PERFECT_GRAMMAR"},
        }
    ]
    import_questions(loaded, write_jsonl(tmp_path / "g.jsonl", rows))
    review.ensure_flags(loaded)
    return loaded


def test_open_for_review_gathers_everything_the_page_shows(viewed: Store) -> None:
    view = review.open_for_review(viewed, "g1")
    assert view.question.text == "How should a client retry after a 429 response?"
    assert (view.revision, view.edited) == (0, False)
    assert view.generation["synthesizer"] == "single_hop"
    assert [f["name"] for f in view.flags] == ["duplicate", "context_not_found"]
    found, lost = view.contexts
    assert (found.how, found.found, lost.found) == ("exact", True, False)
    assert [m.chunk.id for m in found.matches] == ["error-codes"]
    assert found.matches[0].spans == ((0, 79),)  # the whole chunk
    assert lost.text.startswith("A context that no chunk")
    assert [(m.id, m.origin, m.status) for m in view.cluster] == [("q1", "human", "accepted")]
    assert view.cluster[0].score == pytest.approx(100.0)


def test_after_an_edit_the_view_holds_the_original(viewed: Store) -> None:
    review.edit(viewed, "g1", "maria", text="How should a client retry after 429?", reference="x")
    view = review.open_for_review(viewed, "g1")
    assert view.edited
    assert view.state["original_text"] == "How should a client retry after a 429 response?"
    assert [e["action"] for e in view.history] == ["edit"]


def test_stats_count_acceptance_reasons_and_time(viewed: Store, tmp_path) -> None:
    rows = [
        {
            "id": f"h{n}",
            "origin": "generated",
            "generator": "in-house",
            "question": f"Q {n}?",
            "metadata": {"persona": "agent" if n % 2 else "developer"},
        }
        for n in range(4)
    ]
    import_questions(viewed, write_jsonl(tmp_path / "h.jsonl", rows))
    review.accept(viewed, "h0", "maria", seconds=10)
    review.accept(viewed, "h1", "maria", seconds=30)
    review.reject(viewed, "h2", "tom", "ambiguous", seconds=20)
    review.reject(viewed, "g1", "tom", "duplicate", seconds=4000)  # a coffee break
    stats = review.review_stats(viewed)
    assert (stats["total"], stats["remaining"], stats["accepted"], stats["rejected"]) == (
        5,
        1,
        2,
        2,
    )
    assert stats["acceptance"] == 0.5
    by_generator = {r["value"]: r for r in stats["by_generator"]}
    assert by_generator["in-house"]["acceptance"] == pytest.approx(2 / 3)
    assert by_generator["ragas"]["acceptance"] == 0.0
    by_persona = {
        r["value"]: (r["accepted"], r["rejected"], r["pending"]) for r in stats["by_persona"]
    }
    assert by_persona == {"developer": (1, 1, 0), "agent": (1, 0, 1), None: (0, 1, 0)}
    assert [(r["reason"], r["count"]) for r in stats["reject_reasons"]] == [
        ("ambiguous", 1),
        ("duplicate", 1),
    ]
    assert (stats["median_seconds"], stats["timed_decisions"]) == (20, 3)
    assert stats["decisions_by_reviewer"] == {"maria": 2, "tom": 2}


def _view_with(*members):
    from labeler.review.view import Member, ReviewView

    cluster = tuple(
        Member(i, "text", origin, status, score) for i, origin, status, score in members
    )
    return ReviewView(None, {}, {}, (), (), (), cluster, ())


@pytest.mark.parametrize(
    ("members", "same", "key"),
    [
        ((), None, "accept"),
        ((("g2", "generated", "pending", 88.5),), None, "accept"),  # alike, not the same
        ((("q8", "human", "accepted", 94.8),), "q8", "reject"),
        ((("g2", "generated", "accepted", 100.0),), "g2", "reject"),
        ((("g2", "generated", "pending", 100.0),), "g2", None),  # the reviewer picks one
        (
            (("g2", "generated", "pending", 100.0), ("q8", "human", "accepted", 91.0)),
            "q8",
            "reject",
        ),
    ],
)
def test_the_default_key_is_not_accept_for_a_question_asked_again(members, same, key) -> None:
    view = _view_with(*members)
    assert (view.same_as.id if view.same_as else None, view.expected_key) == (same, key)
