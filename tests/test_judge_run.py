"""``labeler judge run`` against a real OpenAI-compatible server on 127.0.0.1 (tests/
judge_server.py: a ThreadingHTTPServer that answers well, answers garbage, returns 429 with
Retry-After, 500s, hangs, refuses a key, and counts its calls), through the official client,
the store and the CLI.

The corpus is small and its grades are written in the chunks (GRADE2, GRADE1, else 0), so the
expected ratings are read off the data. Questions use words no chunk holds, so the full-text
search adds nothing and each pool is exactly the run's results.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.errors import LabelerError
from labeler.importers import import_chunks, import_questions, import_run
from labeler.judge.client import Endpoint
from labeler.judge.prompts import builtin_prompt
from labeler.judge.run import RunOptions, Selection, judge_name, plan_run, run_judge
from labeler.store import Store
from tests.conftest import REPO, write_jsonl
from tests.judge_server import JudgeServer

pytest.importorskip("openai")

CHUNKS = [
    {"id": "c1", "doc_id": "d", "text": "GRADE2 alpha answers it"},
    {"id": "c2", "doc_id": "d", "text": "GRADE1 beta helps a little"},
    {"id": "c3", "doc_id": "d", "text": "gamma is off topic"},
    {"id": "c4", "doc_id": "d", "text": "GARBAGE delta makes the model ramble"},
    {"id": "c5", "doc_id": "d", "text": "RATELIMIT epsilon GRADE2"},
    {"id": "c6", "doc_id": "d", "text": "BROKEN zeta GRADE1"},
    {"id": "c7", "doc_id": "d", "text": "theta never retrieved"},
]
QUESTIONS = [
    {"id": "qa", "question": "Zorblax quux?", "tags": ["one"]},
    {"id": "qb", "question": "Wibbleton frob?", "tags": ["two"]},
    {"id": "qc", "question": "Flumpus glorp?", "tags": ["three"]},
]
RUN = """qa Q0 c1 1 4.0 bm25
qa Q0 c2 2 3.0 bm25
qa Q0 c3 3 2.0 bm25
qa Q0 c4 4 1.0 bm25
qb Q0 c5 1 9.0 bm25
qb Q0 c6 2 8.0 bm25
qb Q0 c1 3 7.0 bm25
qc Q0 c3 1 3.0 bm25
qc Q0 c2 2 2.0 bm25
qc Q0 c1 3 1.0 bm25
"""
# (question, chunk) -> the grade the server gives (GARBAGE gets none: a failed call)
EXPECTED = {
    ("qa", "c1"): 2,
    ("qa", "c2"): 1,
    ("qa", "c3"): 0,
    ("qb", "c5"): 2,
    ("qb", "c6"): 1,
    ("qb", "c1"): 2,
    ("qc", "c3"): 0,
    ("qc", "c2"): 1,
    ("qc", "c1"): 2,
}
CLEAN = Selection(questions=("qc",))  # no retry, no garbage: three calls, three grades
MODEL = "test-model"


def load(store: Store, folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    run = folder / "bm25.trec"
    run.write_text(RUN, encoding="utf-8")
    import_chunks(store, write_jsonl(folder / "chunks.jsonl", CHUNKS))
    import_questions(store, write_jsonl(folder / "questions.jsonl", QUESTIONS))
    import_run(store, run)


@pytest.fixture
def project(tmp_path: Path) -> Store:
    with Store(tmp_path / "p.db") as store:
        load(store, tmp_path / "in")
        yield store


@pytest.fixture
def server():
    with JudgeServer(hang_s=1.5) as running:
        yield running


def options(server: JudgeServer, **changes) -> RunOptions:
    values = {
        "metric": "relevance",
        "endpoint": Endpoint(server.url, MODEL, None, 1.0),
        "prompt": builtin_prompt("relevance"),
        "selection": Selection(everything=True),
        "concurrency": 4,
    }
    values.update(changes)
    return RunOptions(**values)


def judge_grades(store: Store, judge: str) -> dict[tuple[str, str], int]:
    return {
        tuple(json.loads(key)): int(value)
        for key, rater, _, value, _, _ in store.ratings.metric_ratings("relevance", "default")
        if rater == judge
    }


NAME = judge_name(MODEL, builtin_prompt("relevance"))


# a run -----------------------------------------------------------------------------------------


def test_a_run_grades_every_pair_of_the_pools_and_stores_each_calls_details(
    project: Store, server: JudgeServer
) -> None:
    summary = run_judge(project, options(server))
    # 10 pairs: 9 graded; GARBAGE is a failed call. RATELIMIT (one 429) and BROKEN (two 500s)
    # are retried: 3 extra requests.
    assert (summary.calls, summary.failed, summary.retried) == (10, 1, 3)
    assert (summary.ratings_written, summary.cached) == (9, 0)
    assert server.calls == 13
    assert judge_grades(project, NAME) == EXPECTED
    assert summary.tokens_in > 0
    assert summary.tokens_out > 0
    # every request: the model, temperature 0, one user message holding the question
    assert {r["model"] for r in server.requests} == {MODEL}
    assert {r["temperature"] for r in server.requests} == {0}
    texts = [q["question"] for q in QUESTIONS]
    assert all(len(r["messages"]) == 1 for r in server.requests)
    assert all(
        any(f"<question>\n{t}\n</question>" in r["messages"][0]["content"] for t in texts)
        for r in server.requests
    )
    # no key named: no Authorization header at all
    assert set(server.auth_headers) == {None}
    [row] = [
        r
        for r in project.judge_calls.judge_ratings("relevance", NAME, "default")
        if (r["question_id"], r["chunk_id"]) == ("qa", "c1")
    ]
    assert (row["model"], row["host"], row["value"]) == (MODEL, f"127.0.0.1:{server.port}", 2.0)
    assert row["prompt_hash"] == builtin_prompt("relevance").hash
    assert row["reason"] == "The passage earns 2."
    assert json.loads(row["raw"]) == {"grade": 2, "reason": "The passage earns 2."}
    # the server counts words: the prompt as sent, and the seven words of its answer
    sent = builtin_prompt("relevance").render(
        {"question": "Zorblax quux?", "passage": "GRADE2 alpha answers it"}
    )
    assert (row["tokens_in"], row["tokens_out"]) == (len(sent.split()), 7)
    assert row["latency_ms"] > 0


def test_garbage_is_a_failed_call_with_its_raw_text_never_a_grade(
    project: Store, server: JudgeServer
) -> None:
    run_judge(project, options(server))
    assert ("qa", "c4") not in judge_grades(project, NAME)
    [failure] = project.judge_calls.failures("relevance")
    assert (failure["question_id"], failure["chunk_id"]) == ("qa", "c4")
    assert failure["raw"] == "Sure! I would say this passage deserves a 0."
    assert failure["error"].startswith("not a JSON object")
    # the next run asks again for it, and only for it
    before = server.calls
    again = run_judge(project, options(server))
    assert (again.calls, again.failed, again.cached) == (1, 1, 9)
    assert server.calls == before + 1


def test_the_ratings_are_the_judges_in_sample_and_report(project: Store, server) -> None:
    from labeler.judge.report import metric_report
    from labeler.judge.sampling import sample_plan

    run_judge(project, options(server))
    plan = sample_plan(project, "relevance", judge=NAME, per_stratum=5, seed=1)
    assert len(plan.items) == 9
    report = metric_report(project, "relevance", resamples=100)
    assert NAME in report.judges
    metric = project.ratings.metrics()["relevance"]
    assert metric["scale"] == "ordinal:0-2"


# the cache ---------------------------------------------------------------------------------------


def test_a_second_run_makes_no_call(project: Store) -> None:
    with JudgeServer() as clean:
        first = run_judge(project, options(clean, selection=CLEAN))
        assert (first.calls, first.failed, clean.calls) == (3, 0, 3)
        second = run_judge(project, options(clean, selection=CLEAN))
        assert (second.calls, second.cached, second.ratings_written) == (0, 3, 0)
        assert clean.calls == 3


def test_a_replaced_text_makes_one_call_for_that_chunk_only(project: Store, tmp_path) -> None:
    with JudgeServer() as clean:
        run_judge(project, options(clean, selection=CLEAN))
        changed = [dict(c) for c in CHUNKS]
        changed[2]["text"] = "gamma rewritten, GRADE2 now"  # c3, in qc's pool
        import_chunks(project, write_jsonl(tmp_path / "v2.jsonl", changed), replace_text=True)
        again = run_judge(project, options(clean, selection=CLEAN))
        assert (again.calls, again.cached, again.ratings_written) == (1, 2, 1)
        assert clean.calls == 4
        assert clean.seen["gamma rewritten, GRADE2 now"] == 1
        assert judge_grades(project, NAME)[("qc", "c3")] == 2


def test_another_judge_name_with_the_same_model_and_prompt_uses_the_cache(project: Store) -> None:
    with JudgeServer() as clean:
        run_judge(project, options(clean, selection=CLEAN))
        other = run_judge(project, options(clean, selection=CLEAN, judge_name="copy"))
        assert (other.calls, other.cached, other.ratings_written) == (0, 3, 3)
        assert clean.calls == 3
        assert judge_grades(project, "copy") == {k: v for k, v in EXPECTED.items() if k[0] == "qc"}


def test_max_calls_caps_a_run_and_the_next_goes_on(project: Store) -> None:
    with JudgeServer() as clean:
        first = run_judge(project, options(clean, selection=CLEAN, max_calls=2))
        assert (first.calls, first.left, first.ratings_written) == (2, 1, 2)
        second = run_judge(project, options(clean, selection=CLEAN))
        assert (second.calls, second.cached, second.left) == (1, 2, 0)
        assert clean.calls == 3


def test_depth_and_selection(project: Store, server: JudgeServer) -> None:
    plan = plan_run(project, options(server, depth=2))
    assert sorted((w.question_id, w.chunk_id) for w in plan.calls) == [
        ("qa", "c1"),
        ("qa", "c2"),
        ("qb", "c5"),
        ("qb", "c6"),
        ("qc", "c2"),
        ("qc", "c3"),
    ]
    tagged = plan_run(project, options(server, selection=Selection(tag="two")))
    assert {w.question_id for w in tagged.calls} == {"qb"}
    with pytest.raises(LabelerError, match="unknown question 'nope'"):
        plan_run(project, options(server, selection=Selection(questions=("nope",))))


def test_which_pool_entries_a_judge_rates() -> None:
    from labeler.grading.candidates import PoolEntry
    from labeler.judge.run import judged
    from labeler.store.pool import PoolSource

    def entry(*sources: PoolSource) -> PoolEntry:
        return PoolEntry("c1", sources)

    dense = PoolSource("", "dense", "all-MiniLM-L6-v2-int8@1.0.0", 7)
    assert judged(entry(dense), depth=3)  # a search's candidate, whatever the run depth
    assert judged(entry(PoolSource("", "search", "bm25", 9)), depth=3)
    assert not judged(entry(PoolSource("", "run", "bm25", 4)), depth=3)
    assert judged(entry(PoolSource("", "run", "bm25", 3)), depth=3)
    assert not judged(entry(PoolSource("", "labelled", "maria", None)), depth=None)


def test_a_chunk_only_labelled_is_not_judged(project: Store, server: JudgeServer) -> None:
    from labeler.grading import labeling

    labeling.grade(project, "qa", "c7", "maria", 0)
    plan = plan_run(project, options(server, selection=Selection(questions=("qa",))))
    assert "c7" not in {w.chunk_id for w in plan.calls}


# failures ----------------------------------------------------------------------------------------


def test_a_hang_times_out_and_is_tried_again(project: Store, tmp_path: Path) -> None:
    changed = [dict(c) for c in CHUNKS]
    changed[2]["text"] = "gamma HANG"  # c3: no answer within the timeout the first time
    import_chunks(project, write_jsonl(tmp_path / "hang.jsonl", changed), replace_text=True)
    with JudgeServer(hang_s=2.0) as slow:
        summary = run_judge(
            project,
            options(
                slow,
                selection=Selection(questions=("qa",)),
                endpoint=Endpoint(slow.url, MODEL, None, 0.5),
            ),
        )
    assert (summary.calls, summary.retried) == (4, 1)
    assert judge_grades(project, NAME)[("qa", "c3")] == 0


def test_retries_run_out_into_a_failed_call(project: Store, tmp_path: Path) -> None:
    changed = [dict(c) for c in CHUNKS]
    changed[0]["text"] = "GRADE2 ALWAYS500"
    import_chunks(project, write_jsonl(tmp_path / "500.jsonl", changed), replace_text=True)
    with JudgeServer() as broken:
        summary = run_judge(project, options(broken, selection=Selection(questions=("qa",))))
        # c1: 5 tries, all 500; c2, c3 answer; c4 is garbage
        assert broken.seen["GRADE2 ALWAYS500"] == 5
    assert (summary.calls, summary.failed, summary.retried) == (4, 2, 4)
    failure = next(f for f in project.judge_calls.failures("relevance") if f["chunk_id"] == "c1")
    assert failure["error"] == "HTTP 500: internal error (5 tries)"
    assert failure["tries"] == 5


def test_retry_after_is_honoured(project: Store) -> None:
    with JudgeServer() as limited:
        started = time.monotonic()
        summary = run_judge(
            project, options(limited, selection=Selection(questions=("qb",)), concurrency=1)
        )
        took = time.monotonic() - started
    assert (summary.calls, summary.retried, summary.failed) == (3, 3, 0)
    # a 429 asking for 1 s, then two 500s backing off 0.25-0.5 s and 0.5-1 s
    assert took >= 1.0


# the key -----------------------------------------------------------------------------------------

SECRET = "sk-test-0123456789abcdef-SECRET"


def cli(db: Path, *args: str, env: dict | None = None):
    return CliRunner().invoke(main, ["--db", str(db), *args], env=env, catch_exceptions=False)


def test_the_key_is_sent_and_never_shown_or_stored(tmp_path: Path, caplog) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    db = tmp_path / "p.db"
    with Store(db) as store:
        load(store, tmp_path / "in")
    with JudgeServer(key=SECRET) as guarded:
        args = ["judge", "run", "--metric", "relevance", "--base-url", guarded.url]
        args += ["--model", MODEL, "--api-key-env", "JUDGE_KEY", "--questions", "qb"]
        result = cli(db, *args, "--format", "json", env={"JUDGE_KEY": SECRET})
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["calls"] == 3
        assert set(guarded.auth_headers) == {f"Bearer {SECRET}"}
        # a wrong key: the server echoes it back in its 401 body and headers; the run stops
        # at once, in one line, exit 2, and the key it echoed is not in that line
        wrong = "sk-wrong-key-987654321"
        result = cli(db, *args, "--questions", "qa", env={"JUDGE_KEY": wrong})
        assert result.exit_code == 2
        assert wrong not in result.output
        assert SECRET not in result.output
        assert "refused the key (401 Unauthorized)" in result.output
        assert len(result.output.strip().splitlines()) == 1
    assert SECRET not in caplog.text
    assert wrong not in caplog.text
    dump = "\n".join(sqlite_dump(db))
    assert SECRET not in dump
    assert wrong not in dump
    assert db.read_bytes().find(SECRET.encode()) == -1


def sqlite_dump(db: Path) -> list[str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def test_auth_errors_stop_the_run_at_once_with_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as store:
        load(store, tmp_path / "in")
    with JudgeServer(key=SECRET) as guarded:
        args = ["judge", "run", "--metric", "relevance", "--base-url", guarded.url, "--all"]
        result = cli(db, *args, "--model", MODEL, "--concurrency", "1")
        assert result.exit_code == 2
        assert guarded.calls == 1  # no retry, no second call
        assert result.output.startswith('Error: field "base-url": http://127.0.0.1:')
        result = cli(db, *args, "--model", "no-such-model", "--api-key-env", "K", env={"K": SECRET})
        assert result.exit_code == 2
        assert "has no such model or path (404 Not Found;" in result.output
        assert result.output.rstrip().endswith(": model 'no-such-model' not found")
    result = cli(db, *args, "--model", MODEL, "--api-key-env", "UNSET_VAR_X")
    assert result.exit_code == 2
    assert "the environment variable UNSET_VAR_X is not set" in result.output


def test_an_unreachable_endpoint_stops_the_run(project: Store) -> None:
    with JudgeServer() as gone:
        url = gone.url
    with pytest.raises(LabelerError, match=r"cannot reach http://127\.0\.0\.1:"):
        run_judge(project, options(gone, endpoint=Endpoint(url, MODEL, None, 0.5), concurrency=1))


# resume after a kill -----------------------------------------------------------------------------


def test_a_killed_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as store:
        load(store, tmp_path / "in")
    with JudgeServer(delay=0.3) as slow:
        args = [sys.executable, "-m", "labeler", "--db", str(db), "judge", "run"]
        args += ["--metric", "relevance", "--base-url", slow.url, "--model", MODEL, "--all"]
        args += ["--concurrency", "1"]
        child = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while slow.calls < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        killed_after = slow.calls
        with Store(db) as store:
            kept = len(judge_grades(store, NAME))
        assert 1 <= kept < len(EXPECTED)
        result = subprocess.run(
            [*args, "--format", "json"], cwd=REPO, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
    with Store(db) as store:
        assert judge_grades(store, NAME) == EXPECTED
    # what was committed is not asked again: only the pairs without a rating are called
    assert summary["cached"] == kept
    assert summary["calls"] == 10 - kept
    assert killed_after >= 4


# a turn of a conversation -----------------------------------------------------------------------


def turn(conversation: str, said_before: str, rewrite: str | None) -> dict:
    history = [{"role": "user", "text": said_before}, {"role": "assistant", "text": "Yes."}]
    return {
        "id": f"{conversation}::2",
        "question": "Quux again?",
        "conversation": {"id": conversation, "turn": 2, "history": history, "rewrite": rewrite},
    }


def test_a_turn_is_judged_with_its_conversation_and_rewrite(
    project: Store, server: JudgeServer, tmp_path: Path
) -> None:
    """The same words in two conversations ask two things: each prompt holds its own history
    and rewrite, and the second is not answered from the first's cache."""
    turns = [turn("x", "Zorblax first?", "Quux of zorblax?"), turn("y", "Wibbleton first?", None)]
    import_questions(project, write_jsonl(tmp_path / "turns.jsonl", turns))
    run = tmp_path / "turns.trec"
    run.write_text("x::2 Q0 c1 1 2.0 bm25\ny::2 Q0 c1 1 2.0 bm25\n", encoding="utf-8")
    import_run(project, run)
    summary = run_judge(project, options(server, selection=Selection(questions=("x::2", "y::2"))))
    assert (summary.calls, summary.cached, summary.ratings_written) == (2, 0, 2)
    sent = sorted(r["messages"][0]["content"] for r in server.requests)  # y (Wibbleton), x
    assert (
        "<question>\nConversation before the question (turn 2):\nuser: Zorblax first?\n" in sent[1]
    )
    assert (
        "assistant: Yes.\n\nQuestion: Quux again?\n"
        "Standalone rewrite of the question: Quux of zorblax?\n</question>"
    ) in sent[1]
    assert (
        "user: Wibbleton first?\nassistant: Yes.\n\nQuestion: Quux again?\n</question>"
    ) in sent[0]
    assert judge_grades(project, NAME) == {("x::2", "c1"): 2, ("y::2", "c1"): 2}


# faithfulness ------------------------------------------------------------------------------------


def test_faithfulness_judges_the_answers_against_their_passages(
    project: Store, tmp_path: Path
) -> None:
    from labeler.judge.importing import import_judgements

    answers = [
        ("qa", "GRADE1 the answer holds", ["passage one", "passage two"]),
        ("qb", "nothing in the passages", ["passage three"]),
        ("qb", "GRADE2 is not a faithfulness grade", ["passage four"]),
    ]
    rows = [
        {
            "metric": "faithfulness",
            "rater": "maria",
            "rater_kind": "human",
            "verdict": "pass",
            "question": q,
            "answer": a,
            "contexts": c,
        }
        for q, a, c in answers
    ]
    import_judgements(project, write_jsonl(tmp_path / "people.jsonl", rows))
    with JudgeServer() as clean, Store(project.path) as fresh:  # a connection of its own
        summary = run_judge(
            fresh,
            options(clean, metric="faithfulness", prompt=builtin_prompt("faithfulness")),
        )
        sent = [r["messages"][0]["content"] for r in clean.requests]
    assert (summary.calls, summary.failed, summary.ratings_written) == (3, 1, 2)
    assert any("[1] passage one\n\n[2] passage two" in text for text in sent)
    name = judge_name(MODEL, builtin_prompt("faithfulness"))
    given = {
        r["answer"]: r["value"]
        for r in project.judge_calls.judge_ratings("faithfulness", name, "default")
    }
    assert given == {"GRADE1 the answer holds": 1.0, "nothing in the passages": 0.0}
    [failure] = project.judge_calls.failures("faithfulness")
    assert failure["error"] == "grade must be one of the whole numbers 0, 1, got 2"
    # the metric keeps the scale people's verdicts gave it (a score, passing at 0.5)
    assert project.ratings.metrics()["faithfulness"]["scale"] == "score"


def test_a_dry_run_calls_nothing_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    with Store(db) as store:
        load(store, tmp_path / "in")
    with JudgeServer() as clean:
        args = ["judge", "run", "--metric", "relevance", "--base-url", clean.url]
        result = cli(db, *args, "--model", MODEL, "--all", "--dry-run", "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == {
            "judge": NAME,
            "metric": "relevance",
            "pairs": 10,
            "rated": 0,
            "cached": 0,
            "calls": 10,
            "left": 0,
            "skipped": {},
        }
        assert clean.calls == 0
    with Store(db) as store:
        assert store.scalar("SELECT count(*) FROM ratings") == 0
        assert store.scalar("SELECT count(*) FROM judge_calls") == 0


def test_without_the_openai_client_the_command_says_how_to_install_it(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # `import openai` fails, as if absent
    db = tmp_path / "p.db"
    args = ["judge", "run", "--metric", "relevance", "--base-url", "http://127.0.0.1:9/v1"]
    result = cli(db, *args, "--model", MODEL, "--all")
    assert result.exit_code == 2
    assert result.output == (
        'Error: labeler judge run needs the openai client: pip install "labeler[judge]"\n'
    )


def test_a_judge_may_not_take_a_persons_name(project: Store, server: JudgeServer) -> None:
    from labeler.grading import labeling

    labeling.grade(project, "qa", "c1", "maria", 2)
    with pytest.raises(LabelerError, match="'maria' is a person who rates or grades here"):
        plan_run(project, options(server, judge_name="maria"))
    assert server.calls == 0


def test_ctrl_c_writes_what_finished_and_says_so(tmp_path: Path) -> None:
    import re

    db = tmp_path / "p.db"
    with Store(db) as store:
        load(store, tmp_path / "in")
    with JudgeServer(delay=0.3) as slow:
        args = [sys.executable, "-m", "labeler", "--db", str(db), "judge", "run"]
        args += ["--metric", "relevance", "--base-url", slow.url, "--model", MODEL]
        args += ["--questions", "qc", "--questions", "qa", "--concurrency", "2"]
        child = subprocess.Popen(
            args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 30
        while slow.calls < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
    assert child.returncode == 130
    [line] = [x for x in err.splitlines() if " interrupted in " in x]
    assert err.rstrip().endswith("run the same command again to go on where this one stopped")
    written = int(re.search(r"(\d+) ratings written", line).group(1))
    with Store(db) as store:
        assert len(judge_grades(store, NAME)) == written >= 1


# who may run a judge ----------------------------------------------------------------------------


def test_running_a_judge_and_showing_it_to_reviewers_are_a_leads_rights(project: Store) -> None:
    """On a team server the core refuses a reviewer's run before any call is made, and the
    switch that shows a judge's grades to reviewers (``labeler judge reveal``) likewise."""
    from labeler.accounts import users
    from labeler.accounts.roles import shell_authority
    from labeler.errors import PermissionDenied
    from labeler.judge.reveal import revealed_judge, set_revealed_judge

    REFUSED = "a reviewer may not run the judge and define its metrics"
    with shell_authority("setup"):
        users.add_user(project, "rita", "reviewer", "rita-password-1", actor="setup")
        users.add_user(project, "lea", "lead", "lea-password-12", actor="setup")
    with JudgeServer() as clean:
        with pytest.raises(PermissionDenied, match=REFUSED):
            run_judge(project, options(clean, selection=CLEAN), actor="rita")
        assert clean.calls == 0
        assert judge_grades(project, NAME) == {}
        summary = run_judge(project, options(clean, selection=CLEAN), actor="lea")
        assert (summary.calls, summary.ratings_written, clean.calls) == (3, 3, 3)
    with pytest.raises(PermissionDenied, match=REFUSED):
        set_revealed_judge(project, NAME, actor="rita")
    assert revealed_judge(project) is None
    set_revealed_judge(project, NAME, actor="lea")
    assert revealed_judge(project) == NAME
