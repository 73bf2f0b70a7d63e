"""The grading page through AppTest: every write is checked in the store afterwards."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.store import Store
from tests.conftest import captions, notes

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


@pytest.fixture
def app(loaded: Store, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = "ana"
    return at


def html_text(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.html)


def test_asks_for_a_name_first(loaded: Store, monkeypatch) -> None:
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert at.text_input(key="reviewer_input") is not None
    assert not at.segmented_control
    at.text_input(key="reviewer_input").input("  maria ")
    at.button[0].click().run()
    assert at.session_state["reviewer"] == "maria"
    assert at.query_params["reviewer"] == ["maria"] or at.query_params["reviewer"] == "maria"
    assert len(at.segmented_control) > 0


def test_a_grade_key_grades_the_current_chunk_as_me_and_moves_on(
    app: AppTest, loaded: Store
) -> None:
    app.query_params["question"] = "q1"
    app.run()
    assert not app.exception
    first = app.session_state["label_chunk_ids"][app.session_state["label_cursor"]]
    app.button(key="label_key_2").click().run()
    labels = loaded.labels.question_labels("q1", "default")
    assert [(r["chunk_id"], r["reviewer"], r["grade"]) for r in labels] == [(first, "ana", 2)]
    assert app.session_state["label_cursor"] == 1
    app.button(key="label_key_0").click().run()
    assert len(loaded.labels.question_labels("q1", "default")) == 2
    history = loaded.labels.history("q1")
    assert [(e["reviewer"], e["new_grade"]) for e in history] == [("ana", 2), ("ana", 0)]


def test_clicking_a_grade_on_a_card_saves_it(app: AppTest, loaded: Store) -> None:
    app.query_params["question"] = "q2"
    app.run()
    chunk_id = app.session_state["label_chunk_ids"][1]
    app.segmented_control(key=f"label_grade::q2::{chunk_id}").set_value(1).run()
    assert [
        (r["chunk_id"], r["grade"]) for r in loaded.labels.question_labels("q2", "default")
    ] == [(chunk_id, 1)]
    assert app.session_state["label_cursor"] == 1


def test_grading_every_chunk_counts_the_question_as_done(app: AppTest, loaded: Store) -> None:
    app.query_params["question"] = "q2"
    app.run()
    for _ in app.session_state["label_chunk_ids"]:
        app.button(key="label_key_1").click().run()
    (line,) = [p.proto.text for p in app.get("progress")]
    assert line.startswith("Question q2: fully graded · you: 1 of 3 questions fully graded")


def test_unanswerable_and_skip(app: AppTest, loaded: Store) -> None:
    app.query_params["question"] = "q3"
    app.run()
    app.button(key="label_key_u").click().run()
    assert loaded.labels.marks("q3", "default") == {"ana": {"unanswerable": True, "skipped": False}}
    assert "Undo unanswerable" in app.button(key="label_key_u").label
    app.button(key="label_key_s").click().run()
    assert loaded.labels.marks("q3", "default")["ana"]["skipped"]
    assert app.query_params["question"] != "q3"


def test_search_and_add_a_missed_chunk(app: AppTest, loaded: Store) -> None:
    app.query_params["question"] = "q2"
    app.run()
    assert "authentication" not in app.session_state["label_chunk_ids"]
    app.text_input(key="label_search").input("bearer token").run()
    app.button(key="label_add::authentication").click().run()
    assert "authentication" in app.session_state["label_chunk_ids"]
    rows = loaded.query("SELECT chunk_id, source, added_by FROM pool_additions")
    assert rows == [{"chunk_id": "authentication", "source": "search", "added_by": "ana"}]


def test_blind_by_default_and_sources_on_request(app: AppTest) -> None:
    app.query_params["question"] = "q1"
    app.run()
    assert not [c for c in captions(app) if c.startswith("Found by:")]
    assert "bm25" not in html_text(app)
    app.toggle(key="label_reveal").set_value(True).run()
    found = [c for c in captions(app) if c.startswith("Found by:")]
    assert len(found) == len(app.session_state["label_chunk_ids"])
    assert any("bm25 #1" in f for f in found)


def test_deep_link_and_next_question(app: AppTest) -> None:
    app.query_params["question"] = "q2"
    app.run()
    assert "How do I get the next page of orders?" in html_text(app)
    app.button(key="label_key_n").click().run()
    assert app.query_params["question"] in ("q3", ["q3"])
    app.button(key="label_key_p").click().run()
    assert app.query_params["question"] in ("q2", ["q2"])


def test_unknown_deep_link_says_so(app: AppTest) -> None:
    app.query_params["question"] = "nope"
    app.run()
    assert any("no question with id 'nope'" in w for w in notes(app, "warning"))


def test_a_hostile_deep_link_is_shown_as_text(app: AppTest) -> None:
    """The question id comes from the URL: a Markdown image in it must not be rendered (it
    would make the browser fetch from another host)."""
    hostile = "![pixel](http://example.invalid/p.png) **bold**"
    app.query_params["question"] = hostile
    app.run()
    assert any(f"no question with id {hostile!r}" in w for w in notes(app, "warning"))
    rendered = [e.value for e in (*app.markdown, *app.warning, *app.caption, *app.error)]
    assert not [v for v in rendered if "pixel" in str(v)]


def test_chunk_text_is_shown_as_text_never_markup(loaded: Store, app: AppTest) -> None:
    hostile = "<img src=x onerror=alert(1)> ![pixel](http://example.invalid/p.png) **bold**"
    loaded.corpus.upsert_chunks("default", [{"id": "evil", "text": hostile, "title": "<b>t</b>"}])
    loaded.pools.add("q1", "default", ["evil"], source="search", added_by="ana")
    app.query_params["question"] = "q1"
    app.run()
    body = html_text(app)
    assert "&lt;img src=x onerror=alert(1)&gt;" in body
    assert "<img" not in body
    assert "&lt;b&gt;t&lt;/b&gt;" in body
    assert not [m for m in app.markdown if "pixel" in m.value]


def test_note_and_surrounding_text_open_on_request(app: AppTest, loaded: Store) -> None:
    app.query_params["question"] = "q1"
    app.run()
    ids = app.session_state["label_chunk_ids"]
    chunk_id = "pagination"
    index = ids.index(chunk_id)
    assert not app.text_area  # nothing is built until asked for
    app.segmented_control(key=f"label_grade::q1::{chunk_id}").set_value(0).run()
    app.pills(key=f"label_open::q1::{chunk_id}").set_value(["note", "context"]).run()
    app.text_area(key=f"label_note::q1::{chunk_id}").input("about paging, not limits").run()
    app.button(key=f"label_note_save::q1::{chunk_id}").click().run()
    labels = loaded.labels.question_labels("q1", "default")
    assert [(r["chunk_id"], r["grade"], r["note"]) for r in labels] == [
        (chunk_id, 0, "about paging, not limits")
    ]
    # Surrounding text: the chunks before and after it in its document ("api").
    context = [h.proto.body for h in app.html if 'class="lbl-context lbl-md"' in h.proto.body]
    assert len(context) == 1
    assert "404 means the order does not exist" in context[0]
    assert app.session_state["label_cursor"] == index


def test_the_grade_buttons_look_alike_until_the_current_chunk_has_a_grade(app: AppTest) -> None:
    app.query_params["question"] = "q1"
    app.run()
    kinds = {v: app.button(key=f"label_key_{v}").proto.type for v in (2, 1, 0)}
    assert kinds == {2: "secondary", 1: "secondary", 0: "secondary"}
    app.button(key="label_key_1").click().run()  # grades chunk 1, moves to chunk 2
    assert app.button(key="label_key_1").proto.type == "secondary"
    app.button(key="label_key_k").click().run()  # back on the graded chunk
    kinds = {v: app.button(key=f"label_key_{v}").proto.type for v in (2, 1, 0)}
    assert kinds == {2: "secondary", 1: "primary", 0: "secondary"}


def test_a_stale_label_shows_the_old_and_the_new_text(app: AppTest, loaded: Store) -> None:
    from labeler.importers import import_chunks

    loaded.labels.set_grade("q1", "default", "pagination", "ana", 1)
    new_text = "Use next_cursor & the page size <= 100 to page."
    path = loaded.path.parent / "again.jsonl"
    path.write_text(json.dumps({"id": "pagination", "text": new_text}) + "\n", encoding="utf-8")
    import_chunks(loaded, path, replace_text=True)
    app.query_params["question"] = "q1"
    app.run()
    index = app.session_state["label_chunk_ids"].index("pagination")
    assert app.session_state["label_cursor"] == index  # it needs a grade again
    assert app.segmented_control(key="label_grade::q1::pagination").value is None
    warnings = [w.value for w in app.warning]
    assert any(
        w.startswith("Text changed since graded: you gave 1 · helps partly") for w in warnings
    )
    body = html_text(app)
    assert "Use next_cursor &amp; the page size &lt;= 100 to page." in body
    assert "Use the next_cursor field to get the next page of orders." in body
    app.button(key="label_key_1").click().run()  # confirms it
    assert [r["state"] for r in loaded.labels.question_labels("q1", "default")] == ["current"]
    assert not any(w.value.startswith("Text changed") for w in app.warning)


def test_the_judges_grade_shows_after_mine_when_a_lead_switched_it_on(
    app: AppTest, loaded: Store, tmp_path: Path
) -> None:
    from labeler.judge.importing import import_judgements
    from tests.conftest import write_jsonl

    app.query_params["question"] = "q2"
    app.run()
    chunks = app.session_state["label_chunk_ids"]
    rows = [
        {
            "metric": "relevance",
            "rater": "llm",
            "rater_kind": "model",
            "verdict": 1,
            "question": "q2",
            "chunk_id": chunk,
            "rationale": "<b>Partly</b> ![x](http://example.invalid/p.png)",
        }
        for chunk in chunks
    ]
    import_judgements(loaded, write_jsonl(tmp_path / "judge.jsonl", rows))
    loaded.ratings.set_revealed_judge("llm")
    app.run()
    assert not [c for c in captions(app) if c.startswith("Judge llm")]  # nothing graded yet
    app.segmented_control(key=f"label_grade::q2::{chunks[0]}").set_value(2).run()
    shown = [c for c in captions(app) if c.startswith("Judge llm")]
    assert shown == ["Judge llm: 1. <b>Partly</b> ![x](http://example.invalid/p.png)"]
    # escaped, never markup: the text is shown as typed
    assert "&lt;b&gt;Partly&lt;/b&gt;" in html_text(app)


# a turn of a conversation ---------------------------------------------------------------------


@pytest.fixture
def talk_app(talking: Store, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(talking.path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = "ana"
    return at


def test_a_turn_is_shown_below_its_conversation_with_its_rewrite(talk_app: AppTest) -> None:
    talk_app.query_params["question"] = "c1::2"
    talk_app.run()
    assert not talk_app.exception
    body = html_text(talk_app)
    assert body.index("How many requests may one API key send?") < body.index(
        "Turn 2 of conversation c1"
    )
    assert "100 requests per minute." in body
    assert "Standalone rewrite" in body
    assert "What happens to requests over the rate limit?" in body
    assert talk_app.segmented_control(key="label_search_with::c1::2").value == "rewrite"
    assert "Searched: What happens to requests over the rate limit?" in captions(talk_app)


def test_a_long_conversation_folds_all_but_the_last_turns(talk_app: AppTest) -> None:
    talk_app.query_params["question"] = "c1::3"
    talk_app.run()
    body = html_text(talk_app)
    assert "Standalone rewrite" not in body  # turn 3 has none
    assert talk_app.segmented_control(key="label_search_with::c1::3").value == "previous"
    assert (
        "Searched: And what happens to the ones over that? / How long do I wait then?"
        in captions(talk_app)
    )


def test_choosing_another_search_keeps_it_and_searches_again(
    talk_app: AppTest, talking: Store
) -> None:
    from labeler.grading.search_pools import pool_key

    talk_app.query_params["question"] = "c1::2"
    talk_app.run()
    talk_app.segmented_control(key="label_search_with::c1::2").set_value("conversation").run()
    assert not talk_app.exception
    question = talking.questions.get("c1::2")
    assert question.turn.search == "conversation"
    assert talking.pools.fts_pool_hash("c1::2", "default") == pool_key(talking, question, "default")


def test_a_chunk_graded_2_for_an_earlier_turn_is_marked_on_the_turns_cards(
    talk_app: AppTest, talking: Store
) -> None:
    talking.labels.set_grade("c1::1", "default", "rate-limits", "ben", 2)
    talk_app.query_params["question"] = "c1::2"
    talk_app.run()
    body = html_text(talk_app)
    assert "graded 2 for turn 1:" in body
    index = talk_app.session_state["label_chunk_ids"].index("rate-limits")
    head = next(h.proto.body for h in talk_app.html if f"{index + 1}. Rate limits" in h.proto.body)
    assert ">2 for turn 1</span>rate-limits" in head


def test_next_goes_to_the_conversations_next_turn(talk_app: AppTest) -> None:
    talk_app.query_params["question"] = "c1::1"
    talk_app.run()
    talk_app.button(key="label_key_n").click().run()
    assert talk_app.session_state["label_qid"] == "c1::2"
    talk_app.button(key="label_key_n").click().run()
    assert talk_app.session_state["label_qid"] == "c1::3"
    talk_app.button(key="label_key_p").click().run()
    assert talk_app.session_state["label_qid"] == "c1::2"
