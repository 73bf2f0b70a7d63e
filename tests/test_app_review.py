"""The review page through AppTest: accept, edit with the original kept, reject with a reason,
batch, undo and a conflict, every one checked in the store afterwards."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler import review
from labeler.app.pages import PAGES_DIR
from labeler.importers import import_questions
from labeler.store import Store
from tests.conftest import notes, write_jsonl

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")
PAGE = str(PAGES_DIR / "review.py")

ROWS = [
    {
        "id": "g1",
        "origin": "generated",
        "generator": "ragas",
        "question": "How should a client retry after a 429 response?",
        "reference": "Extra requests return 429 with a Retry-After header.",
        "contexts": ["rate-limits"],
        "metadata": {"synthesizer_name": "single_hop"},
    },
    {
        "id": "g2",
        "origin": "generated",
        "generator": "ragas",
        "question": "Which field gives the next page of orders?",
        "reference": "next_cursor.",
        "contexts": ["pagination"],
    },
    {
        "id": "g3",
        "origin": "generated",
        "generator": "in-house",
        "question": "How are webhooks signed?",
        "reference": "With HMAC SHA-256.",
        "contexts": ["webhooks"],
    },
]


@pytest.fixture
def db(loaded: Store, tmp_path) -> Store:
    import_questions(loaded, write_jsonl(tmp_path / "g.jsonl", ROWS))
    return loaded


@pytest.fixture
def app(db: Store, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(db.path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = "ana"
    at.run()
    at.switch_page(PAGE)
    return at


def html_text(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.html)


def current(at: AppTest) -> str:
    value = at.query_params["question"]
    return value[0] if isinstance(value, list) else value


def test_the_page_opens_on_the_first_question_of_the_queue(app: AppTest) -> None:
    app.run()
    assert not app.exception
    assert current(app) == "g1"  # a duplicate of human question q1: clusters come first
    body = html_text(app)
    assert "How should a client retry after a 429 response?" in body
    assert "near-duplicate of 1 other question; closest q1" in body
    assert "Extra requests return 429 with a Retry-After header." in body
    assert "Context 1 · matched by chunk id · rate-limits" in body
    assert "1 of 3 in this queue" in body


def test_accept_moves_on_and_the_question_joins_the_grading_queue(app: AppTest, db: Store) -> None:
    app.run()
    app.button(key="review_key_a").click().run()
    assert db.questions.get("g1").review_status == "accepted"
    assert [e["reviewer"] for e in db.reviews.history("g1")] == ["ana"]
    assert db.reviews.history("g1")[0]["seconds"] is not None
    assert "g1" in [r["id"] for r in db.questions.queue("default", "ana")]
    assert db.labels.question_labels("g1", "default") == []
    assert current(app) != "g1"
    assert "Accepted. It is in the grading queue now." in html_text(app)


def test_accept_with_sources_grades_them_2_under_my_name(app: AppTest, db: Store) -> None:
    app.query_params["question"] = "g2"
    app.run()
    app.button(key="review_key_shift_a").click().run()
    assert [
        (r["chunk_id"], r["grade"], r["reviewer"])
        for r in db.labels.question_labels("g2", "default")
    ] == [("pagination", 2, "ana")]
    assert "and 1 source chunk graded 2" in html_text(app)


def test_reject_with_a_reason_and_other_needs_a_note(app: AppTest, db: Store) -> None:
    app.query_params["question"] = "g3"
    app.run()
    app.button(key="review_key_x").click().run()
    app.button(key="review_reason_7").click().run()  # Other, without a note
    assert db.questions.get("g3").review_status == "pending"
    assert "needs a note" in html_text(app)
    app.text_input(key="review_note").input("asks about an old version")
    app.button(key="review_reason_7").click().run()
    state = db.reviews.state("g3")
    assert (state["status"], state["reason"], state["note"], state["decided_by"]) == (
        "rejected",
        "other",
        "asks about an old version",
        "ana",
    )


def test_edit_keeps_the_original_and_shows_the_change(app: AppTest, db: Store) -> None:
    app.query_params["question"] = "g2"
    app.run()
    app.button(key="review_key_e").click().run()
    app.text_area(key="review_edit_text").input("Which field gives the next page of results?")
    app.button(key="FormSubmitter:review_edit_form-Save edit").click().run()
    question = db.questions.get("g2")
    assert question.text == "Which field gives the next page of results?"
    assert question.review_status == "pending"
    state = db.reviews.state("g2")
    assert (state["original_text"], state["edited_by"]) == (
        "Which field gives the next page of orders?",
        "ana",
    )
    body = html_text(app)
    assert "<del>orders</del>" in body
    assert "<ins>results</ins>" in body


def test_an_edit_that_empties_the_question_changes_nothing(app: AppTest, db: Store) -> None:
    app.query_params["question"] = "g2"
    app.run()
    app.button(key="review_key_e").click().run()
    app.text_area(key="review_edit_text").input("   ")
    app.button(key="FormSubmitter:review_edit_form-Save edit").click().run()
    assert db.questions.get("g2").text == "Which field gives the next page of orders?"
    assert db.reviews.history("g2") == []
    assert notes(app, "error") == ['field "text": the question cannot be empty']


def test_undo_reverts_my_last_decision(app: AppTest, db: Store) -> None:
    app.run()
    app.button(key="review_key_a").click().run()
    assert db.questions.get("g1").review_status == "accepted"
    app.button(key="review_key_u").click().run()
    assert db.questions.get("g1").review_status == "pending"
    assert current(app) == "g1"
    assert [e["action"] for e in db.reviews.history("g1")] == ["accept", "undo"]


def test_a_decision_made_meanwhile_is_a_conflict_not_an_overwrite(app: AppTest, db: Store) -> None:
    app.query_params["question"] = "g2"
    app.run()
    review.reject(db, "g2", "tom", "ambiguous")  # tom, in another browser
    app.button(key="review_key_a").click().run()
    state = db.reviews.state("g2")
    assert (state["status"], state["decided_by"]) == ("rejected", "tom")
    body = html_text(app)
    assert "changed since you opened it: tom (reject" in body
    assert "Rejected by tom" in body  # the page now shows tom's decision


def test_batch_reject_after_a_confirmation_with_the_count(app: AppTest, db: Store) -> None:
    app.run()
    app.selectbox(key="review_generator").set_value("ragas").run()
    app.radio(key="review_batch_action").set_value("Reject").run()
    app.selectbox(key="review_batch_reason").set_value("unrealistic").run()
    app.button(key="review_batch_prepare").click().run()
    assert db.questions.get("g1").review_status == "pending"  # nothing before confirming
    assert "Reject 2 questions as “Unrealistic for our users”?" in html_text(app)
    app.button(key="review_batch_confirm").click().run()
    assert [db.questions.get(q).review_status for q in ("g1", "g2", "g3")] == [
        "rejected",
        "rejected",
        "pending",
    ]
    assert {e["batch"] for q in ("g1", "g2") for e in db.reviews.history(q)} != {None}
    assert "2 rejected (U undoes the batch)." in html_text(app)
    app.button(key="review_key_u").click().run()
    assert [db.questions.get(q).review_status for q in ("g1", "g2")] == [
        "pending",
        "pending",
    ]


def test_question_text_is_shown_as_text_never_markup(db: Store, app: AppTest, tmp_path) -> None:
    hostile = [
        {
            "id": "evil",
            "origin": "generated",
            "generator": "<b>gen</b>",
            "question": "![pixel](http://example.invalid/p.png) <img src=x onerror=alert(1)>?",
            "reference": "**bold** <script>alert(1)</script>",
            "contexts": ["<i>not in the corpus</i> and a long enough context to show"],
            "metadata": {"persona": "<u>persona</u>"},
        }
    ]
    import_questions(db, write_jsonl(tmp_path / "evil.jsonl", hostile))
    app.query_params["question"] = "evil"
    app.run()
    body = html_text(app)
    assert "&lt;img src=x onerror=alert(1)&gt;" in body
    assert "&lt;script&gt;" in body
    assert "<script>alert" not in body
    assert "&lt;b&gt;gen&lt;/b&gt;" in body
    assert "&lt;u&gt;persona&lt;/u&gt;" in body
    assert "&lt;i&gt;not in the corpus&lt;/i&gt;" in body
    assert not [m for m in app.markdown if "pixel" in m.value or "bold" in m.value]


def test_stats_view(app: AppTest, db: Store) -> None:
    review.accept(db, "g1", "maria", seconds=12)
    review.reject(db, "g2", "maria", "duplicate", seconds=8)
    app.run()
    app.segmented_control(key="review_view").set_value("Stats").run()
    assert not app.exception
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["To review"] == "1"
    assert metrics["Acceptance"] == "50%"
    assert metrics["Median per decision"] == "10 s"


def test_nothing_to_review(app: AppTest, db: Store) -> None:
    review.decide_many(db, ["g1", "g2", "g3"], "maria", "accept")
    app.run()
    assert "Nothing to review here" in [h.value for h in app.subheader]


def test_a_generated_turn_is_reviewed_below_its_conversation(
    db: Store, monkeypatch, tmp_path
) -> None:
    import json

    from labeler.importers.ragas import import_ragas

    sample = {
        "user_input": [
            {"content": "What does error 404 mean?", "type": "human"},
            {"content": "The order does not exist.", "type": "ai"},
            {"content": "And 429?", "type": "human"},
        ]
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(sample) + "\n", encoding="utf-8")
    import_ragas(db, path)
    second = next(q for q in db.questions.ids() if q.endswith("::2"))
    monkeypatch.setenv("LABELER_DB", str(db.path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = "ana"
    at.run()
    at.switch_page(PAGE)
    at.query_params["question"] = second
    at.run()
    assert not at.exception
    body = html_text(at)
    assert body.index("The order does not exist.") < body.index("And 429?")
    assert "Turn 2 of conversation" in body
