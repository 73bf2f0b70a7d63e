"""The Results page through AppTest: its figures are the engine's, its warnings and errors say
what is wrong in words, and it reads current labels, versions and uploaded runs alike."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.export import Selection, export_testset
from labeler.grading.current import current_labels, stored_run
from labeler.importers import import_run
from labeler.metrics import evaluate, read_qrels
from labeler.metrics.comparison import compare
from labeler.store import Store
from tests.conftest import captions, html_table, notes, write_jsonl
from tests.test_sources import DENSE

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


@pytest.fixture
def project(loaded: Store, tmp_path: Path, monkeypatch) -> Store:
    """Two runs (bm25 and dense) and labels on two of the three questions."""
    run = tmp_path / "dense.trec"
    run.write_text(DENSE, encoding="utf-8")
    import_run(loaded, run)
    grades = {
        ("q1", "rate-limits"): 2,
        ("q1", "error-codes"): 1,
        ("q1", "pagination"): 0,
        ("q1", "webhooks"): 0,
        ("q2", "pagination"): 2,
        ("q2", "webhooks"): 0,
        ("q2", "authentication"): 0,
    }
    for (question, chunk), grade in grades.items():
        loaded.labels.set_grade(question, "default", chunk, "ana", grade)
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    monkeypatch.setenv("LABELER_EXPORTS", str(tmp_path / "exports"))
    return loaded


def open_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "ana"
    at.switch_page("app_pages/results.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def table(at: AppTest, key: str):
    return html_table(at, key)


def test_each_run_with_its_interval_as_the_engine_computes_it(project: Store) -> None:
    at = open_page()
    runs = table(at, "results_runs_table").set_index("run")
    labels = current_labels(project, policy="median")
    for name in ("bm25", "dense"):
        result = evaluate(labels.qrels, stored_run(project, name), "ndcg@10")
        mean = runs.loc[name, "ndcg@10"]  # the exact mean; shown "0.667 [0.500, 1.000]"
        assert mean == pytest.approx(result.mean("ndcg@10"))
        (element,) = at.container(key="results_runs_table").html
        exact = re.escape(repr(float(mean)))
        shown = re.search(rf"{exact}\">([0-9.]+) \[([0-9.]+), ([0-9.]+)\]", element.proto.body)
        low, high = float(shown[2]), float(shown[3])
        assert float(shown[1]) == pytest.approx(mean, abs=5e-4)
        assert low <= float(shown[1]) <= high
    assert at.caption[0].value.startswith(
        "Means over the 2 answerable questions (a chunk graded 1 or more; left out: 0 marked"
        " unanswerable, 1 without a relevant label yet)"
    )


def test_the_paired_comparison_is_the_comparison_module(project: Store) -> None:
    at = open_page()
    pair = table(at, "results_pair").set_index("metric")
    labels = current_labels(project, policy="median")
    a = evaluate(labels.qrels, stored_run(project, "dense"), "ndcg@10")
    b = evaluate(labels.qrels, stored_run(project, "bm25"), "ndcg@10")
    (expected,) = compare(b, a, ["ndcg@10"], resamples=2000)
    assert pair.loc["ndcg@10", "dense - bm25"] == pytest.approx(expected.difference)
    # shown to 3 places with its sign (0.1199 -> +0.120), never "-0.000" (issue #23)
    (element,) = at.container(key="results_pair").html
    assert ">+0.120</td>" in element.proto.body
    assert pair.loc["ndcg@10", "dense better"] == expected.wins


def test_per_question_differences_sorted_for_the_chosen_pair(project: Store) -> None:
    at = open_page()
    rows = table(at, "results_questions")
    assert list(rows.columns) == ["question", "text", "dense", "bm25", "difference"]
    assert list(rows["difference"]) == sorted(rows["difference"])
    assert set(rows["question"]) == {"q1", "q2"}
    assert "How should a client retry" in rows.set_index("question").loc["q1", "text"]


def test_a_run_whose_top_k_is_mostly_unjudged_is_warned_about(project: Store) -> None:
    at = open_page()
    at.multiselect(key="results_cutoffs").set_value([3]).run()
    assert not notes(at, "warning")  # every chunk in bm25's and dense's top 3 is judged
    # A run whose top 3 for q1 starts with a chunk nobody graded: 2 of 3 judged there, 1 of 1
    # for q2: 83 % over the two scored questions.
    wide = b"q1 Q0 authentication 1 3.0 wide\nq1 Q0 webhooks 2 2.0 wide\n"
    wide += b"q1 Q0 rate-limits 3 1.0 wide\nq2 Q0 pagination 1 1.0 wide\n"
    at.get("file_uploader")[0].upload("wide.trec", wide).run()
    coverage = table(at, "results_coverage").set_index("run")
    assert coverage.loc["wide", "judged@3"] == pytest.approx(5 / 6)
    assert coverage.loc["bm25", "judged@3"] == 1.0
    assert notes(at, "warning") == [
        "wide's top 3 is 83 % judged: unjudged chunks count as not relevant, so its"
        " ndcg@3 is a lower bound."
    ]


def test_label_next_says_when_the_comparison_is_proven(project: Store) -> None:
    at = open_page()
    assert notes(at, "ok") == [
        "proven: dense better than bm25 on ndcg@10; proven range +0.120 to +0.413"
    ]
    assert any(
        "7 of the 9 pairs in the two runs' top 10 are labelled." in c.value for c in at.caption
    )


def test_label_next_lists_the_pairs_to_grade_while_open(
    loaded: Store, tmp_path: Path, monkeypatch
) -> None:
    run = tmp_path / "dense.trec"
    run.write_text(DENSE, encoding="utf-8")
    import_run(loaded, run)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    at = open_page()
    status = [i for i in notes(at, "info") if "proven range" in i]
    assert len(status) == 1
    assert status[0].startswith(("open: ", "likely: "))
    pairs = table(at, "results_next_pairs")
    assert list(pairs.columns) == ["question", "chunk", "weight"]
    assert len(pairs) == 8  # every unjudged pair of the pool, at most 10
    assert list(pairs["weight"]) == sorted(pairs["weight"], reverse=True)


def test_an_uploaded_run_is_checked_like_an_import(project: Store) -> None:
    at = open_page()
    at.get("file_uploader")[0].upload("mine.trec", b"q1 Q0 rate-limits 1 2.0 mine\n").run()
    assert not at.exception
    assert "mine" in set(table(at, "results_runs_table")["run"])
    at.get("file_uploader")[0].clear().upload(
        "broken.trec", b"q1 Q0 rate-limits 1 2.0 x\nq1 Q0 no-such-chunk 2 1.0 x\n"
    ).run()
    assert notes(at, "error") == [
        "broken.trec:2: field \"chunk_id\": unknown chunk id 'no-such-chunk' in chunking 'default'"
    ]


def test_a_run_named_with_markup_shows_its_name_as_text(project: Store) -> None:
    """Run names come from files: every table and the chart escape them (issue #23's rule
    for untrusted text); nothing of the name becomes a tag."""
    name = "<img/src=x/onerror=alert(1)>"
    at = open_page()
    at.get("file_uploader")[0].upload("m.trec", f"q1 Q0 rate-limits 1 2.0 {name}\n".encode()).run()
    assert not at.exception
    assert name in set(table(at, "results_runs_table")["run"])  # shown as typed
    bodies = "".join(h.proto.body for h in at.html)
    assert "<img" not in bodies
    assert "&lt;img/src=x/onerror=alert(1)&gt;" in bodies


def test_a_version_as_labels_and_two_versions_side_by_side(project: Store, tmp_path) -> None:
    out = tmp_path / "exports"
    export_testset(project, "faq", out=out, selection=Selection(tags=("paging",)))
    project.labels.set_grade("q1", "default", "pagination", "ana", 1)
    export_testset(project, "faq", out=out)
    at = open_page()
    at.selectbox(key="results_labels").set_value("faq v1").run()
    assert not at.exception
    assert "Labels: faq v1." in captions(at)
    shifts = table(at, "results_versions")
    row = shifts[(shifts["run"] == "bm25") & (shifts["metric"] == "ndcg@10")].iloc[0]
    qrels = read_qrels(out / "faq" / "v1" / "qrels.tsv")
    v1 = evaluate(qrels, stored_run(project, "bm25"), "ndcg@10")
    assert row["v1"] == pytest.approx(v1.mean("ndcg@10"))
    assert row["questions"] == "1 → 2"
    # Question by question: the one v1 did not hold shows a dash there, not "None".
    moved = table(at, "results_shifts")
    new = moved[moved["change"] == "new in v2"]
    assert len(new) == 1
    assert new.iloc[0]["v1"] == "\N{EM DASH}"
    v2 = evaluate(
        read_qrels(out / "faq" / "v2" / "qrels.tsv"), stored_run(project, "bm25"), "ndcg@10"
    )
    qid = new.iloc[0]["question"]
    assert new.iloc[0]["v2"] == f"{v2.per_question('ndcg@10')[qid]:.3f}"


def test_without_a_relevant_label_the_page_says_what_to_do(loaded: Store, monkeypatch) -> None:
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    at = open_page()
    assert [i.value for i in at.info] == [
        "No question has a relevant label yet: grade some on the grading page, or choose a"
        " test-set version."
    ]


def test_a_judges_grades_can_be_label_nexts_prior(
    loaded: Store, tmp_path: Path, monkeypatch
) -> None:
    from labeler.grading.decide import decide_runs
    from labeler.judge.importing import import_judgements
    from tests.conftest import write_jsonl

    run = tmp_path / "dense.trec"
    run.write_text(DENSE, encoding="utf-8")
    import_run(loaded, run)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    judged = {("q1", "error-codes"): 1, ("q2", "pagination"): 2, ("q2", "webhooks"): 0}
    rows = [
        {
            "metric": "relevance",
            "rater": "llm",
            "rater_kind": "model",
            "verdict": g,
            "question": q,
            "chunk_id": c,
        }
        for (q, c), g in judged.items()
    ]
    import_judgements(loaded, write_jsonl(tmp_path / "judge.jsonl", rows))
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    at = open_page()
    assert at.selectbox(key="results_decide_prior").options == ["none", "llm"]
    before = [i for i in notes(at, "info") if "proven range" in i]
    at.selectbox(key="results_decide_prior").select("llm").run()
    assert not at.exception
    after = [i for i in notes(at, "info") + notes(at, "ok") if "proven range" in i]
    expected = decide_runs(loaded, "dense", "bm25", "ndcg@10", policy="median", prior="llm")
    assert after == [expected.sentence()]
    assert before == [decide_runs(loaded, "dense", "bm25", "ndcg@10", policy="median").sentence()]


def test_a_forged_version_is_not_offered_as_labels(project: Store, tmp_path) -> None:
    """#19 item 4: a version edited, resealed and signed again with another key is consistent
    in itself; the page checks it with the project's key and leaves it out."""
    from tests.test_versions_checking import regrade, reseal

    out = tmp_path / "exports"
    export_testset(project, "faq", out=out)
    project.labels.set_grade("q1", "default", "pagination", "ana", 1)
    export_testset(project, "faq", out=out)
    reseal(out / "faq" / "v1", files_edit=regrade, sign="mallory")
    at = open_page()
    assert at.selectbox(key="results_labels").options == [
        "Current labels (every reviewer)",
        "faq v2",
    ]


def test_a_large_projects_decision_is_worked_out_when_asked(project: Store, monkeypatch) -> None:
    """Issue #23: label next's decision took 16 s of CPU on a 10,000-question project's first
    open; above AT_ONCE_QUESTIONS (here lowered below the fixture's 3) the page asks first, and
    shows at once a decision already worked out (the grading page's queue, a click before)."""
    from labeler.app import decide as app_decide
    from labeler.grading.decide import Comparison, decide_runs, kept_decision_queue

    monkeypatch.setattr(app_decide, "AT_ONCE_QUESTIONS", 2)
    expected = decide_runs(project, "dense", "bm25", "ndcg@10", policy="majority").sentence()
    at = open_page()
    assert at.button(key="results_decide_work").label.startswith("Work it out (3 questions")
    assert expected not in notes(at, "info") + notes(at, "ok")
    assert kept_decision_queue(project, "dense", "bm25", "ndcg@10", policy="majority") is None
    at.button(key="results_decide_work").click().run()
    assert expected in notes(at, "info") + notes(at, "ok")
    at.selectbox(key="results_decide_prior").select(None).run()  # another rerun: still shown
    assert expected in notes(at, "info") + notes(at, "ok")
    assert "results_decide_work" not in [b.key for b in at.button]
    kept = Comparison("dense", "bm25", "ndcg@10", "majority").kept(project)
    assert kept is not None
    assert kept.decision.sentence() == expected


def test_a_conversational_test_set_is_broken_down_by_turn(
    talking: Store, tmp_path: Path, monkeypatch
) -> None:
    run = tmp_path / "turns.trec"
    run.write_text(
        "c1::1 Q0 rate-limits 1 2 turns\nc1::2 Q0 webhooks 1 2 turns\n"
        "c1::2 Q0 error-codes 2 1 turns\n",
        encoding="utf-8",
    )
    import_run(talking, run)
    talking.labels.set_grade("c1::1", "default", "rate-limits", "ana", 2)
    talking.labels.set_grade("c1::2", "default", "error-codes", "ana", 2)
    monkeypatch.setenv("LABELER_DB", str(talking.path))
    monkeypatch.setenv("LABELER_EXPORTS", str(tmp_path / "exports"))
    at = open_page()
    rows = table(at, "results_by_turn")
    turns = rows[rows["run"] == "turns"].set_index("group")
    assert turns.loc["turn: first", "questions"] == 1
    assert turns.loc["turn: first", "ndcg@10"] == pytest.approx(1.0)
    assert turns.loc["turn: later", "ndcg@10"] == pytest.approx(1 / math.log2(3))
    assert turns.loc["question-type: Explanation", "questions"] == 1


def test_no_breakdown_without_conversations(project: Store) -> None:
    at = open_page()
    with pytest.raises(KeyError):
        at.container(key="results_by_turn")


def test_past_300_questions_the_table_keeps_each_runs_largest_wins(
    store: Store, tmp_path: Path, monkeypatch
) -> None:
    """302 scored questions: the table holds the 150 each run wins by most, the rest is in the
    CSV, the chart's bars are 200 means of runs of questions, and the question picker lists
    the table's questions only (a selectbox of 10,000 was most of a large page's time)."""
    n = 302
    chunks = [{"id": f"c{i}", "text": f"chunk {i}"} for i in range(n)] + [
        {"id": "other", "text": "a chunk no question wants"}
    ]
    questions = [{"id": f"q{i:03d}", "question": f"question {i}?"} for i in range(n)]
    # A finds every question's chunk first; B only the even ones' (second after "other").
    run_a = "".join(f"q{i:03d} Q0 c{i} 1 2 A\nq{i:03d} Q0 other 2 1 A\n" for i in range(n))
    run_b = "".join(
        f"q{i:03d} Q0 other 1 2 B\n" + (f"q{i:03d} Q0 c{i} 2 1 B\n" if i % 2 == 0 else "")
        for i in range(n)
    )
    from labeler.importers import import_chunks, import_questions

    import_chunks(store, write_jsonl(tmp_path / "chunks.jsonl", chunks))
    import_questions(store, write_jsonl(tmp_path / "questions.jsonl", questions))
    for name, text in (("a", run_a), ("b", run_b)):
        (tmp_path / f"{name}.trec").write_text(text, encoding="utf-8")
        import_run(store, tmp_path / f"{name}.trec")
    for i in range(n):
        store.labels.set_grade(f"q{i:03d}", "default", f"c{i}", "ana", 2)
    monkeypatch.setenv("LABELER_DB", str(store.path))
    monkeypatch.setenv("LABELER_EXPORTS", str(tmp_path / "exports"))
    at = open_page()
    rows = table(at, "results_questions")
    assert len(rows) == 300
    assert "The 150 questions each run wins by most, of 302;" in " ".join(
        c.value for c in at.caption
    )
    assert len(at.get("download_button")) == 1
    assert len(at.selectbox(key="results_open_question").options) == 300
    (chart,) = [h.proto.body for h in at.html if '<div class="lbl-bars">' in h.proto.body]
    assert chart.count("lbl-bar-col") == 151  # runs of 2 questions
    assert "A better (302)" in chart  # rank 1 against rank 2 (even) or not found (odd)
