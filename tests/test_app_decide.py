"""The grading page's queue "decide A vs B" through AppTest: the Results page's link opens it on
the most decisive question, the deciding chunks are marked, N follows label-next's order, and
grading them ends in a proven comparison."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.deciding import decision_queue
from labeler.importers import import_run
from labeler.store import Store
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


def marked(at: AppTest) -> list[str]:
    """The chunk ids of the cards marked as deciding the comparison."""
    return [
        h.value.split("</span>")[1].split("<")[0]
        for h in at.html
        if 'class="lbl-decides"' in h.value
    ]


def test_the_link_opens_the_most_decisive_question_with_its_chunks_marked(project) -> None:
    at = open_decide()
    queue = decision_queue(project, "dense", "bm25", "ndcg@3", policy="median")
    first = queue.questions[0]
    assert at.query_params["question"] == first
    assert sorted(marked(at)) == sorted(queue.chunks[first])
    (status,) = [i.value for i in at.info if "proven range" in i.value]
    assert status.startswith(("open: ", "likely: "))
    assert at.radio(key="label_decide_mode").value == "decide A vs B"


def test_next_follows_label_next_and_grading_the_queue_proves_it(project: Store) -> None:
    at = open_decide()
    for _ in range(10):
        if any("Nothing more to grade" in s.value for s in at.success):
            break
        question = at.query_params["question"]
        for chunk in marked(at):
            project.set_grade(question, "default", chunk, "ana", TRUTH.get((question, chunk), 0))
        expected = decision_queue(project, "dense", "bm25", "ndcg@3", policy="median")
        at.button(key="label_key_n").click().run()
        assert not at.exception
        if expected.questions:
            assert at.query_params["question"] == expected.questions[0]
    (done,) = [s.value for s in at.success]
    assert done.startswith("proven: dense better than bm25 on ndcg@3")
    assert done.endswith("Nothing more to grade for this comparison.")
    at.button(key="label_decide_stop").click().run()
    assert at.radio(key="label_decide_mode").value == "every question, by id"
    assert not [i.value for i in at.info if "proven range" in i.value]


def test_a_bad_choice_is_a_message_and_every_question_still_opens(project: Store) -> None:
    at = open_decide("dense,bm25,recall")
    assert [e.value for e in at.error] == [
        "field \"metric\": 'recall' needs a cutoff, e.g. recall@10"
    ]
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
