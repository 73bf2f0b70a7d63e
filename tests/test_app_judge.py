"""The judge pages through AppTest (blind spot-check, adjudication, report): every action is
checked in the store afterwards."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.grading import labeling
from labeler.judge.importing import import_judgements
from labeler.judge.sampling import sample_plan
from labeler.store import Store

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")
RATIONALE = "## Supported\n\n**All** claims ![x](http://example.invalid/x.png)"


def open_page(db: Path, monkeypatch, page: str, reviewer: str = "ana", **params) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = reviewer
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception
    return at


def every_text(at: AppTest) -> str:
    parts = [t.value for t in at.text] + [c.value for c in at.caption]
    parts += [h.proto.body for h in at.html] + [m.value for m in at.markdown]
    return "\n".join(parts)


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
            "rationale": RATIONALE,
        },
        {
            "item": "ans-2",
            "metric": "Faithfulness",
            "rater": "J",
            "rater_kind": "model",
            "verdict": 0.2,
            "question": "q2",
            "answer": "Use page numbers.",
            "rationale": "no",
        },
    ]
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_judgements(loaded, path)
    sample_plan(loaded, "Faithfulness", per_stratum=5, seed=0, name="faith")
    return loaded


def test_spot_check_is_blind_until_the_verdict(planned: Store, monkeypatch) -> None:
    at = open_page(planned.path, monkeypatch, "judge_review", plan="faith", item="ans-1")
    before = every_text(at)
    assert "Wait for Retry-After." in before
    assert "Supported" not in before
    assert "gpt" not in before
    assert "appear once you have given yours" in before
    at.button(key="judge_key_1").click().run()
    ratings = planned.ratings.item_ratings("Faithfulness", "ans-1", "default")
    assert [(r["rater"], r["value"], r["passed"]) for r in ratings if r["kind"] == "human"] == [
        ("ana", 1.0, 1)
    ]
    after = every_text(at)
    assert RATIONALE in [t.value for t in at.text]  # as text: the markdown is not rendered
    assert "Same verdict" in after
    assert at.button(key="judge_key_1").disabled  # locked once the judge is shown
    at.button(key="judge_key_n").click().run()
    assert at.query_params["item"] in (["ans-2"], "ans-2")
    assert "Use page numbers." in every_text(at)


def test_spot_check_note_and_change_of_verdict(planned: Store, monkeypatch) -> None:
    at = open_page(planned.path, monkeypatch, "judge_review", plan="faith", item="ans-2")
    at.button(key="judge_key_1").click().run()
    at.text_area(key="judge_note").input("the pages are cursors").run()
    at.button(key="judge_note_save").click().run()
    at.button(key="judge_unlock").click().run()
    at.button(key="judge_key_0").click().run()
    [mine] = [
        r
        for r in planned.ratings.item_ratings("Faithfulness", "ans-2", "default")
        if r["rater"] == "ana"
    ]
    assert (mine["value"], mine["rationale"]) == (0.0, "the pages are cursors")
    events = [
        (e["action"], e["new_value"])
        for e in planned.ratings.history("ans-2")
        if e["rater"] == "ana"
    ]
    assert events == [("rate", 1.0), ("rate", 0.0)]


def test_spot_check_without_a_plan_says_how(loaded: Store, monkeypatch) -> None:
    at = open_page(loaded.path, monkeypatch, "judge_review")
    assert "labeler judge sample" in every_text(at)


@pytest.fixture
def disputed(loaded: Store) -> Store:
    labeling.grade(loaded, "q1", "rate-limits", "maria", 2, note="answers it")
    labeling.grade(loaded, "q1", "rate-limits", "tom", 1, note="only the limit")
    labeling.grade(loaded, "q1", "error-codes", "maria", 0)
    labeling.grade(loaded, "q1", "error-codes", "tom", 1)
    return loaded


def test_adjudication_by_key_records_the_final_grade(disputed: Store, monkeypatch) -> None:
    at = open_page(disputed.path, monkeypatch, "adjudicate", reviewer="lead")
    text = every_text(at)
    assert "answers it" in text
    assert "only the limit" in text
    assert "Settled: 0 of 2 disputed chunks" in [p.proto.text for p in at.get("progress")]
    first = at.session_state["adjudicate_chunk_ids"][at.session_state["adjudicate_cursor"]]
    at.button(key="adjudicate_key_1").click().run()
    assert disputed.adjudications.get("q1", "default", first)["grade"] == 1
    assert disputed.adjudications.get("q1", "default", first)["reviewer"] == "lead"
    second = at.session_state["adjudicate_chunk_ids"][at.session_state["adjudicate_cursor"]]
    assert second != first
    at.button(key="adjudicate_key_0").click().run()
    assert disputed.adjudications.get("q1", "default", second)["grade"] == 0
    assert "Settled: 2 of 2 disputed chunks" in [p.proto.text for p in at.get("progress")]


def test_adjudication_toolbar_shows_the_settled_grade_not_a_default(
    disputed: Store, monkeypatch
) -> None:
    at = open_page(disputed.path, monkeypatch, "adjudicate", reviewer="lead")
    kinds = {v: at.button(key=f"adjudicate_key_{v}").proto.type for v in (2, 1, 0)}
    assert kinds == {2: "secondary", 1: "secondary", 0: "secondary"}
    at.button(key="adjudicate_key_1").click().run()
    at.button(key="adjudicate_key_k").click().run()  # back to the chunk just settled
    kinds = {v: at.button(key=f"adjudicate_key_{v}").proto.type for v in (2, 1, 0)}
    assert kinds == {2: "secondary", 1: "primary", 0: "secondary"}


def test_adjudication_filter_by_pair(disputed: Store, monkeypatch) -> None:
    labeling.grade(disputed, "q2", "pagination", "ana", 2)
    labeling.grade(disputed, "q2", "pagination", "bo", 0)
    at = open_page(disputed.path, monkeypatch, "adjudicate", reviewer="lead")
    at.selectbox(key="adjudicate_pair").set_value("ana · bo").run()
    assert at.session_state["adjudicate_qid"] == "q2"


def test_report_page_shows_the_sentence_and_the_disagreements(
    planned: Store, monkeypatch, tmp_path
) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {
                    "item": "ans-1",
                    "metric": "Faithfulness",
                    "rater": "ana",
                    "rater_kind": "human",
                    "verdict": 0,
                },
                {
                    "item": "ans-2",
                    "metric": "Faithfulness",
                    "rater": "ana",
                    "rater_kind": "human",
                    "verdict": 0,
                },
            ]
        ),
        encoding="utf-8",
    )
    import_judgements(planned, path)
    at = open_page(planned.path, monkeypatch, "judge_report", metric="Faithfulness")
    text = every_text(at)
    assert "J on Faithfulness: only 2 items have both its verdict and a human one" in text
    frame = at.dataframe[0].value
    assert list(frame["people"]) == ["fail"]
    assert list(frame["rationale"]) == [RATIONALE]
    assert list(frame["open"]) == ["judge_review?plan=faith&item=ans-1"]


def test_an_item_outside_any_plan_opens_from_the_report(planned: Store, monkeypatch) -> None:
    planned.plans.delete("faith")
    at = open_page(
        planned.path, monkeypatch, "judge_review", metric="Faithfulness", item="ans-2", judge="J"
    )
    assert "One item of Faithfulness, opened from the judge report" in every_text(at)
    assert "no" not in [t.value for t in at.text]  # the judge's rationale, still blind
    at.button(key="judge_key_0").click().run()
    [mine] = [
        r
        for r in planned.ratings.item_ratings("Faithfulness", "ans-2", "default")
        if r["rater"] == "ana"
    ]
    assert (mine["value"], mine["passed"]) == (0.0, 0)
    assert "Same verdict" in every_text(at)


def test_names_from_files_are_shown_as_text(planned: Store, monkeypatch) -> None:
    """A plan or metric name is untrusted too: escaped HTML, never markdown."""
    name = "![x](http://example.invalid/p.png) <b>plan</b>"
    sample_plan(planned, "Faithfulness", per_stratum=5, seed=0, name=name)
    at = open_page(planned.path, monkeypatch, "judge_review", plan=name, item="ans-1")
    bodies = [h.proto.body for h in at.html]
    assert any(
        "&lt;b&gt;plan&lt;/b&gt;" in b and "![x](http://example.invalid" in b for b in bodies
    )
    assert not any("example.invalid" in m.value for m in at.markdown)
    assert not any("example.invalid" in c.value for c in at.caption)


def test_a_lead_shows_reviewers_the_judges_grade_from_the_report(
    loaded: Store, monkeypatch, tmp_path
) -> None:
    records = [
        {
            "metric": "relevance",
            "rater": "llm",
            "rater_kind": "model",
            "verdict": 2,
            "question": "q1",
            "chunk_id": "rate-limits",
        }
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_judgements(loaded, path)
    at = open_page(loaded.path, monkeypatch, "judge_report", metric="relevance")
    choice = at.selectbox(key="judge_report_reveal")
    assert (choice.options, choice.value) == (["no judge", "llm"], None)
    choice.select("llm").run()
    assert not at.exception
    assert loaded.ratings.revealed_judge() == "llm"
    at.selectbox(key="judge_report_reveal").select(None).run()
    assert loaded.ratings.revealed_judge() is None
