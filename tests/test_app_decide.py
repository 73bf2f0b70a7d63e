"""The grading page's queue "decide A vs B" through AppTest: the Results page's link opens it on
the most decisive question, the deciding chunks are marked, N follows label-next's order, and
grading them ends in a proven comparison."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.app.widgets import markdown_escaped
from labeler.grading.decide import decision_queue
from labeler.importers import import_run
from labeler.store import Store
from tests.conftest import notes
from tests.test_sources import DENSE

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")
TRUTH = {("q1", "rate-limits"): 2, ("q2", "pagination"): 2, ("q3", "error-codes"): 2}


@pytest.fixture
def project(loaded: Store, tmp_path: Path, monkeypatch) -> Store:
    run = tmp_path / "dense.trec"
    run.write_text(DENSE, encoding="utf-8")
    import_run(loaded, run)
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    return loaded


def open_decide(link: str = "dense,bm25,ndcg@3") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "ana"
    at.query_params["decide"] = link
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def status_line(at: AppTest) -> list[str]:
    """The queue's status line (where the comparison stands), if shown."""
    return [h.value for h in at.html if 'class="lbl-decide-status"' in h.value]


def marked(at: AppTest) -> list[str]:
    """The chunk ids of the cards marked as deciding the comparison."""
    return [
        h.value.split("</span>")[1].split("<")[0]
        for h in at.html
        if 'class="lbl-decides"' in h.value
    ]


def test_the_link_opens_the_most_decisive_question_with_its_chunks_marked(project) -> None:
    at = open_decide()
    queue = decision_queue(project, "dense", "bm25", "ndcg@3", policy="majority")
    first = queue.questions[0]
    assert at.query_params["question"] == first
    assert sorted(marked(at)) == sorted(queue.chunks[first])
    (status,) = status_line(at)
    sentence = status.split("<b>")[1].split("</b>")[0]
    assert sentence.startswith(("open: ", "likely: "))
    assert "proven range" in sentence
    assert f"{len(queue.chunks[first])} chunks marked <i>decides</i> on this question" in status
    assert at.selectbox(key="label_queue").value == "decide"


def test_next_follows_label_next_and_grading_the_queue_proves_it(project: Store) -> None:
    at = open_decide()
    for _ in range(10):
        if any("Nothing more to grade" in s for s in notes(at, "ok")):
            break
        question = at.query_params["question"]
        for chunk in marked(at):
            project.labels.set_grade(
                question, "default", chunk, "ana", TRUTH.get((question, chunk), 0)
            )
        expected = decision_queue(project, "dense", "bm25", "ndcg@3", policy="majority")
        at.button(key="label_key_n").click().run()
        assert not at.exception
        if expected.questions:
            assert at.query_params["question"] == expected.questions[0]
    (done,) = notes(at, "ok")
    assert done.startswith("proven: dense better than bm25 on ndcg@3")
    assert done.endswith("Nothing more to grade for this comparison.")
    at.button(key="label_decide_stop").click().run()
    assert at.selectbox(key="label_queue").value == "assigned"
    assert not status_line(at)
    assert "decide" not in at.query_params


def test_a_bad_choice_is_a_message_and_every_question_still_opens(project: Store) -> None:
    at = open_decide("dense,bm25,recall")
    assert notes(at, "error") == ["field \"metric\": 'recall' needs a cutoff, e.g. recall@10"]
    assert at.query_params["question"] in {"q1", "q2", "q3"}
    assert not marked(at)


def test_a_grade_key_moves_to_the_next_marked_chunk(project: Store) -> None:
    at = open_decide()
    question = at.query_params["question"]
    decisive = set(marked(at))
    assert len(decisive) >= 2
    ids = at.session_state["label_chunk_ids"]
    first = ids[at.session_state["label_cursor"]]
    assert first in decisive  # the question opens on a marked chunk
    at.button(key="label_key_0").click().run()
    after = ids[at.session_state["label_cursor"]]
    assert after in decisive
    assert after != first
    assert at.query_params["question"] == question


def test_the_sidebar_choice_opens_the_queue_and_the_url_keeps_it(project: Store) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "ana"
    at.query_params["question"] = "q3"
    at.run()
    assert at.selectbox(key="label_queue").value == "assigned"
    assert not status_line(at)
    at.selectbox(key="label_queue").set_value("decide").run()
    at.selectbox(key="label_decide_a").set_value("dense").run()
    at.selectbox(key="label_decide_b").set_value("bm25").run()
    at.text_input(key="label_decide_metric").input("ndcg@3").run()
    assert not at.exception
    queue = decision_queue(project, "dense", "bm25", "ndcg@3", policy="majority")
    assert at.query_params["question"] == queue.questions[0]  # not q3: the queue's first
    assert at.query_params["decide"] == "dense,bm25,ndcg@3"
    assert at.query_params["policy"] == "majority"
    assert sorted(marked(at)) == sorted(queue.chunks[queue.questions[0]])
    # Back to every question: the link goes, the question stays.
    question = at.query_params["question"]
    at.selectbox(key="label_queue").set_value("by-id").run()
    assert "decide" not in at.query_params
    assert at.query_params["question"] == question
    assert not marked(at)


def test_the_status_line_follows_each_grade(project: Store) -> None:
    at = open_decide()
    question = at.query_params["question"]
    here = len(marked(at))
    before = status_line(at)[0]
    assert f"{here} chunks marked <i>decides</i> on this question" in before
    graded = at.session_state["label_chunk_ids"][at.session_state["label_cursor"]]
    at.button(key="label_key_0").click().run()
    after = status_line(at)[0]
    assert f"{here - 1} chunk{'s' * (here - 1 != 1)} marked <i>decides</i>" in after
    # The key reran the head, the graded card (now without its mark) and the status line.
    (card,) = [h.value for h in at.html if 'class="lbl-card-head"' in h.value]
    assert f"<span>{graded}</span>" in card
    assert at.query_params["question"] == question


def test_a_tag_narrows_the_queue_and_says_when_none_of_its_questions_decide(
    project: Store,
) -> None:
    at = open_decide()
    at.selectbox(key="label_tag").set_value("errors").run()  # q3 alone
    at.button(key="label_key_n").click().run()
    assert at.query_params["question"] == "q3"
    assert sorted(marked(at)) == sorted(
        decision_queue(project, "dense", "bm25", "ndcg@3", policy="majority").chunks["q3"]
    )
    for chunk in marked(at):
        project.labels.set_grade("q3", "default", chunk, "ana", TRUTH.get(("q3", chunk), 0))
    # q1 and q2 still decide, but not under that tag: N says so and stays.
    assert decision_queue(project, "dense", "bm25", "ndcg@3", policy="majority").questions
    at.button(key="label_key_n").click().run()
    assert at.query_params["question"] == "q3"
    assert [t.value for t in at.toast] == [
        markdown_escaped("No other question in this queue tagged 'errors'.")
    ]
    # Opening the page afresh under that tag: which comparison, and why nothing opens.
    at.query_params.pop("question")
    at.run()
    assert notes(at, "info") == [
        "No question tagged 'errors' can still change dense vs bm25 on ndcg@3: choose another"
        " tag, or all questions."
    ]
    assert status_line(at)
