"""``labeler judge import``: every format on real files (DeepEval's and Ragas' own samples in
tests/data/formats, see tests/data/README.md) and on small hand-made ones; every kind of bad
input names its file, line and field and leaves the database as it was."""

import json
from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.judge.importing import import_judgements
from labeler.judge.records import answer_key
from labeler.store import Store
from tests.conftest import DATA, table_counts

DEEPEVAL_RUN = DATA / "formats" / "deepeval" / "test_run_sample.json"
RAGAS_ANNOTATED = DATA / "formats" / "ragas" / "annotated_data.json"
RAGAS_SUMMARY = DATA / "formats" / "ragas" / "sample_annotated_summary.json"

RATING_TABLES = ["rating_metrics", "raters", "rating_items", "ratings", "rating_events"]


def counts(store: Store) -> dict[str, int]:
    found = table_counts(store)
    found.update({t: store.scalar(f"SELECT count(*) FROM {t}") for t in RATING_TABLES})
    return found


def rows(store: Store, metric: str) -> list[tuple]:
    return sorted(
        (key, rater, kind, value, passed, rationale)
        for key, rater, kind, value, passed, rationale in store.ratings.metric_ratings(
            metric, "default"
        )
    )


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# DeepEval ---------------------------------------------------------------------------------------


def test_deepeval_run_reads_the_test_cases_own_metrics(store: Store) -> None:
    result = import_judgements(store, DEEPEVAL_RUN)
    assert result.format == "deepeval"
    assert (result.added, result.items_added) == (2, 1)
    case = json.loads(DEEPEVAL_RUN.read_text())["testCases"][0]
    key = answer_key(case["input"], case["actualOutput"], None)
    relevancy = rows(store, "Answer Relevancy")
    assert [(k, r, kind, v, p) for k, r, kind, v, p, _ in relevancy] == [
        (key, "gpt-5.4", "model", 0.92, 1)
    ]
    # Only the test case's Faithfulness (0.45), not the trace's or the spans' copies (0.91, 0.88).
    [(_, _, _, value, passed, reason)] = rows(store, "Faithfulness")
    assert (value, passed) == (0.45, 0)
    assert reason.startswith("## Reasoning\n\nThe response introduces **two claims**")
    metrics = store.ratings.metrics()
    assert (metrics["Faithfulness"]["scale"], metrics["Faithfulness"]["threshold"]) == (
        "score",
        0.7,
    )
    assert metrics["Faithfulness"]["threshold_source"] == "file"
    assert metrics["Answer Relevancy"]["threshold"] == 0.5
    item = store.ratings.rating_items_by_key([key])[key]
    assert item["question"] == case["input"]


def test_deepeval_run_twice_changes_nothing(store: Store) -> None:
    import_judgements(store, DEEPEVAL_RUN)
    before = counts(store)
    again = import_judgements(store, DEEPEVAL_RUN)
    assert (again.added, again.updated, again.unchanged, again.changed) == (0, 0, 2, False)
    assert counts(store) == before


def test_deepeval_stated_threshold_replaces_its_own_decision(store: Store) -> None:
    import_judgements(store, DEEPEVAL_RUN, thresholds={"Faithfulness": 0.4})
    [(_, _, _, value, passed, _)] = rows(store, "Faithfulness")
    assert (value, passed) == (0.45, None)  # 0.45 >= 0.4 passes now, by the stated threshold
    stored = store.ratings.metrics()["Faithfulness"]
    assert (stored["threshold"], stored["threshold_source"]) == (0.4, "stated")


def test_deepeval_lower_is_better_metric_passes_at_or_below(store: Store, tmp_path) -> None:
    run = {
        "testCases": [
            {
                "input": f"q{i}",
                "actualOutput": f"a{i}",
                "metricsData": [
                    {
                        "name": "Hallucination",
                        "threshold": 0.5,
                        "score": score,
                        "success": ok,
                        "reason": "r",
                        "evaluationModel": "judge-x",
                    }
                ],
            }
            for i, (score, ok) in enumerate([(0.2, True), (0.8, False), (0.5, True)])
        ]
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    import_judgements(store, path)
    assert store.ratings.metrics()["Hallucination"]["pass_when"] == "<="


def test_deepeval_skips_errored_metrics_and_counts_them(store: Store, tmp_path) -> None:
    run = {
        "testCases": [
            {
                "input": "q",
                "actualOutput": "a",
                "metricsData": [
                    {
                        "name": "Faithfulness",
                        "threshold": 0.7,
                        "success": False,
                        "score": None,
                        "error": "timeout",
                        "evaluationModel": "m",
                    },
                    {
                        "name": "Faithfulness2",
                        "threshold": 0.7,
                        "success": True,
                        "score": 0.9,
                        "evaluationModel": "m",
                    },
                ],
            }
        ],
        "conversationalTestCases": [{"name": "c"}],
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    result = import_judgements(store, path)
    assert result.added == 1
    assert result.skipped == {
        "metric results with an error or no score": 1,
        "conversational test cases (no single answer to rate)": 1,
    }


# Ragas annotated --------------------------------------------------------------------------------


def test_ragas_annotated_imports_the_judge_and_the_person(store: Store) -> None:
    result = import_judgements(store, RAGAS_ANNOTATED)
    assert result.format == "ragas-annotated"
    assert (result.added, result.items_added) == (42, 21)
    assert store.ratings.metrics()["helpfulness"]["scale"] == "binary"
    found = rows(store, "helpfulness")
    judge = [r for r in found if r[1] == "ragas"]
    person = [r for r in found if r[1] == "ragas-annotator"]
    assert len(judge) == len(person) == 21
    # By hand from the file: 9 outputs are 1; the 5 rejected ones flip (2 of 1 -> 0, 3 of 0 -> 1).
    assert sum(r[3] for r in judge) == 9
    assert sum(r[3] for r in person) == 10
    # Two inputs are annotated twice: each repeat is an item of its own.
    assert sum(1 for r in judge if r[0].endswith("#2")) == 2
    samples = json.loads(RAGAS_ANNOTATED.read_text())["helpfulness"]
    first = samples[0]
    key = answer_key(first["metric_input"]["user_input"], first["metric_input"]["response"], None)
    [judged] = [r for r in judge if r[0] == key]
    prompt = first["prompts"]["single_turn_aspect_critic_prompt"]
    assert judged[5] == prompt["prompt_output"]["reason"]
    [theirs] = [r for r in person if r[0] == key]
    assert theirs[5] == prompt["edited_output"]["reason"]  # the person's own wording
    extra = store.ratings.rating_extras("helpfulness", "ragas")[key]
    assert extra["prompts"] == first["prompts"]


def test_ragas_annotated_summary_human_side_by_hand(store: Store) -> None:
    """10 accepted with output 1 -> 1; 7 rejected 1s -> 0; 2 rejected 0s -> 1: 12 passes."""
    import_judgements(store, RAGAS_SUMMARY, reviewer="lee")
    person = [r for r in rows(store, "summary_accuracy") if r[1] == "lee"]
    assert len(person) == 19
    assert sum(r[3] for r in person) == 12
    assert store.ratings.raters()["lee"] == "human"


def test_ragas_annotated_rejected_score_without_target_is_skipped(store: Store, tmp_path) -> None:
    sample = {"metric_input": {"user_input": "q", "response": "a"}, "prompts": {}}
    data = {
        "faith": [
            {**sample, "metric_output": 0.4, "is_accepted": False},
            {
                **sample,
                "metric_input": {"user_input": "q2", "response": "a"},
                "metric_output": 0.9,
                "is_accepted": False,
                "target": 0.2,
            },
        ]
    }
    path = tmp_path / "annotated.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = import_judgements(store, path)
    assert result.skipped == {"rejected scores without a target (the right score is unknown)": 1}
    person = [r for r in rows(store, "faith") if r[2] == "human"]
    assert [(r[3], r[4]) for r in person] == [(0.2, None)]  # a score, so the threshold decides


# Ragas evaluation results -----------------------------------------------------------------------

# As Ragas' EvaluationResult.to_pandas().to_csv() writes them: pandas' unnamed index column,
# lists as Python literals, NaN where a metric failed, and a timing column a team added.
RAGAS_RESULTS_CSV = (
    ",user_input,retrieved_contexts,response,reference,faithfulness,answer_relevancy,"
    "response_time\n"
    "0,How many requests per minute?,\"['Each API key may send 100 requests per minute.']\","
    "100 per minute.,100.,1.0,0.93,7.5\n"
    '1,What does 404 mean?,"[\'404 means the order does not exist.\', ""It\'s gone.""]",'
    "It means the order does not exist.,Not found.,0.5,nan,6.2\n"
)


def test_ragas_results_csv_one_column_per_metric(store: Store, tmp_path) -> None:
    path = tmp_path / "results.csv"
    path.write_text(RAGAS_RESULTS_CSV, encoding="utf-8")
    result = import_judgements(store, path)
    assert result.format == "ragas"
    assert result.added == 3
    assert result.skipped == {
        "empty or NaN scores": 1,
        "column 'response_time': not a score from 0 to 1 (its values run from 6.2 to 7.5),"
        " so not a metric": 1,
    }
    faith = rows(store, "faithfulness")
    assert sorted(r[3] for r in faith) == [0.5, 1.0]
    assert {r[1] for r in faith} == {"ragas"}
    key = answer_key(
        "What does 404 mean?",
        "It means the order does not exist.",
        ["404 means the order does not exist.", "It's gone."],
    )
    assert store.ratings.rating_items_by_key([key])[key]["contexts"] == [
        "404 means the order does not exist.",
        "It's gone.",
    ]
    assert store.ratings.metrics()["faithfulness"]["threshold_source"] == "default"


def ragas_results(path: Path, faithfulness: list[str], extra: str = "") -> Path:
    """A Ragas results CSV, one row per faithfulness value (and ``extra``'s column)."""
    head = "user_input,response,retrieved_contexts,faithfulness" + (",custom" if extra else "")
    rows = [
        f"Q{i}?,A{i},\"['c{i}']\",{value}" + (f",{extra}" if extra else "")
        for i, value in enumerate(faithfulness)
    ]
    path.write_text(head + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_one_score_off_a_known_metrics_scale_refuses_the_file(store: Store, tmp_path) -> None:
    """#19 item 8: a faithfulness of 1.02 on the 38th of 50 rows (line 39) used to drop the
    whole metric (0 ratings, exit 0); it names the line, the column, the value and the scale."""
    values = ["0.5"] * 50
    values[37] = "1.02"
    path = ragas_results(tmp_path / "results.csv", values)
    before = counts(store)
    with pytest.raises(LabelerError) as caught:
        import_judgements(store, path)
    assert str(caught.value) == (
        f'{path}:39: field "faithfulness": 1.02 is not a verdict on faithfulness\'s scale:'
        " a score from 0 to 1 (higher is better); passes at >= 0.5"
    )
    assert counts(store) == before


def test_a_stored_metric_is_checked_not_dropped(store: Store, tmp_path) -> None:
    """A column of a name no metric is known by is taken on trust, and dropped when its values
    leave 0 to 1; once it is stored as a metric, a later file's bad value is refused."""
    first = ragas_results(tmp_path / "first.csv", ["0.5", "0.7"], extra="0.25")
    import_judgements(store, first)
    assert store.ratings.metrics()["custom"]["scale"] == "score"
    later = ragas_results(tmp_path / "later.csv", ["0.5", "0.6"], extra="1.5")
    with pytest.raises(LabelerError, match=r'later.csv:2: field "custom": 1.5 is not a verdict'):
        import_judgements(store, later)


def test_ragas_results_jsonl_and_a_named_judge(store: Store, tmp_path) -> None:
    path = write_lines(
        tmp_path / "results.jsonl",
        [
            {"user_input": "q", "response": "a", "retrieved_contexts": ["c"], "faithfulness": 0.8},
        ],
    )
    import_judgements(store, path, judge="gpt-4o", thresholds={"faithfulness": 0.75})
    assert [(r[1], r[3]) for r in rows(store, "faithfulness")] == [("gpt-4o", 0.8)]
    assert store.ratings.metrics()["faithfulness"]["threshold"] == 0.75


# the long format --------------------------------------------------------------------------------


def test_long_format_links_chunks_and_makes_human_relevance_labels(loaded: Store, tmp_path) -> None:
    path = write_lines(
        tmp_path / "ratings.jsonl",
        [
            {
                "item": "a",
                "metric": "relevance",
                "rater": "judge-1",
                "rater_kind": "model",
                "verdict": 2,
                "question": "q1",
                "chunk_id": "rate-limits",
                "rationale": "**yes**",
            },
            {
                "item": "a",
                "metric": "relevance",
                "rater": "ana",
                "rater_kind": "human",
                "verdict": 1,
            },
            {
                "item": "b",
                "metric": "helpfulness",
                "rater": "judge-1",
                "rater_kind": "model",
                "verdict": "pass",
                "question": "How do I get the next page of orders?",
                "answer": "Use next_cursor.",
                "contexts": ["pagination", "webhooks"],
            },
        ],
    )
    result = import_judgements(loaded, path)
    assert result.labels == {"ana": (1, 0, 0)}
    assert [
        (r["chunk_id"], r["reviewer"], r["grade"])
        for r in loaded.labels.question_labels("q1", "default")
    ] == [("rate-limits", "ana", 1)]
    relevance = rows(loaded, "relevance")
    assert [(k, r, v) for k, r, _, v, _, _ in relevance] == [
        ('["q1","rate-limits"]', "ana", 1.0),
        ('["q1","rate-limits"]', "judge-1", 2.0),
    ]
    item = loaded.ratings.rating_items_by_key(["b"])["b"]
    assert item["question_id"] == "q2"  # linked by the question's exact text
    assert item["context_ids"] == ["pagination", "webhooks"]
    assert item["contexts"][0].startswith("Use the next_cursor field")
    assert loaded.ratings.metrics()["helpfulness"]["scale"] == "binary"  # inferred: all 0/1


def test_long_format_csv_with_declared_ordinal_scale(store: Store, tmp_path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(
        "item,metric,rater,rater_kind,verdict,answer,contexts\n"
        'x,helpfulness,m,model,4,An answer,"[""c1"", ""c2""]"\n'
        "x,helpfulness,ana,human,3,,\n",
        encoding="utf-8",
    )
    import_judgements(store, path, scales={"helpfulness": "ordinal:1-4"})
    assert store.ratings.metrics()["helpfulness"]["scale"] == "ordinal:1-4"
    assert sorted(r[3] for r in rows(store, "helpfulness")) == [3.0, 4.0]
    assert store.ratings.rating_items_by_key(["x"])["x"]["contexts"] == ["c1", "c2"]


def test_long_format_item_may_be_named_by_its_answer(store: Store, tmp_path) -> None:
    """People's verdicts without an item id join the DeepEval run's test case."""
    case = json.loads(DEEPEVAL_RUN.read_text())["testCases"][0]
    import_judgements(store, DEEPEVAL_RUN)
    path = write_lines(
        tmp_path / "reviews.jsonl",
        [
            {
                "metric": "Faithfulness",
                "rater": "ana",
                "rater_kind": "human",
                "verdict": "fail",
                "question": case["input"],
                "answer": case["actualOutput"],
            },
        ],
    )
    result = import_judgements(store, path)
    assert result.items_added == 0
    faith = rows(store, "Faithfulness")
    assert len({r[0] for r in faith}) == 1
    assert [(r[1], r[3], r[4]) for r in faith if r[2] == "human"] == [("ana", 0.0, 0)]


def test_updating_a_verdict_is_recorded(store: Store, tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    write_lines(
        path, [{"item": "x", "metric": "m", "rater": "j", "rater_kind": "model", "verdict": 1}]
    )
    import_judgements(store, path)
    write_lines(
        path, [{"item": "x", "metric": "m", "rater": "j", "rater_kind": "model", "verdict": 0}]
    )
    result = import_judgements(store, path)
    assert (result.added, result.updated) == (0, 1)
    history = store.ratings.history("x")
    assert [(e["action"], e["old_value"], e["new_value"]) for e in history] == [
        ("import", None, 1.0),
        ("import", 1.0, 0.0),
    ]


# bad input: one test per kind, each names the place and writes nothing -------------------------


def long_row(**changes) -> dict:
    row = {"item": "x", "metric": "helpfulness", "rater": "j", "rater_kind": "model", "verdict": 1}
    row.update(changes)
    return {k: v for k, v in row.items() if v is not None}


BAD_LONG = [
    (
        "verdict_not_a_number",
        [long_row(verdict="maybe")],
        1,
        "verdict",
        "expected a number or pass/fail, got 'maybe'",
    ),
    ("missing_rater", [long_row(rater=None)], 1, "rater", "missing or empty"),
    (
        "bad_rater_kind",
        [long_row(rater_kind="robot")],
        1,
        "rater_kind",
        "expected model or human, got 'robot'",
    ),
    (
        "off_the_scale",
        [long_row(), long_row(item="y", verdict=5)],
        2,
        "verdict",
        "5.0 is not a verdict on helpfulness's scale: a whole number from 1 to 4",
    ),
    (
        "twice",
        [long_row(), long_row()],
        2,
        "rater",
        "'j' rates this item on this metric twice in the file",
    ),
    (
        "kind_flip",
        [long_row(), long_row(item="y", rater_kind="human")],
        2,
        "rater_kind",
        "rater 'j' is called both a model and a human in this file",
    ),
    (
        "unknown_chunk",
        [long_row(question="q1", chunk_id="nope")],
        1,
        "chunk_id",
        "unknown chunk id 'nope' in chunking 'default'",
    ),
    (
        "item_contradicts_itself",
        [long_row(answer="a"), long_row(rater="k", answer="b")],
        2,
        "answer",
        "item 'x' was given another answer on an earlier line",
    ),
    (
        "relevance_needs_a_chunk",
        [long_row(metric="relevance", verdict=2)],
        1,
        "chunk_id",
        "item 'x': relevance is graded on a question's chunk; give chunk_id and the question's id",
    ),
    (
        "no_item",
        [long_row(item=None)],
        1,
        "item",
        "missing (an item id, or an answer or a question and chunk_id to name it)",
    ),
]


@pytest.mark.parametrize(
    ("records", "line", "field", "message"),
    [case[1:] for case in BAD_LONG],
    ids=[case[0] for case in BAD_LONG],
)
def test_bad_long_format_names_the_place_and_writes_nothing(
    loaded: Store, tmp_path, records, line, field, message
) -> None:
    path = write_lines(tmp_path / "bad.jsonl", records)
    before = counts(loaded)
    declared = any(r.get("metric") == "helpfulness" for r in records)
    scales = {"helpfulness": "ordinal:1-4"} if declared else None
    with pytest.raises(LabelerError) as caught:
        import_judgements(loaded, path, scales=scales)
    assert str(caught.value) == f'{path}:{line}: field "{field}": {message}'
    assert counts(loaded) == before


def test_undeclared_whole_number_scale_is_refused(store: Store, tmp_path) -> None:
    path = write_lines(tmp_path / "r.jsonl", [long_row(verdict=3), long_row(item="y", verdict=5)])
    with pytest.raises(
        LabelerError,
        match=r'r.jsonl:1: field "metric": metric \'helpfulness\' '
        r"has no declared scale and its verdicts run from 3 to 5: declare it, e.g."
        r" --metric-scale helpfulness=ordinal:3-5",
    ):
        import_judgements(store, path)
    assert store.scalar("SELECT count(*) FROM ratings") == 0


def test_model_named_like_a_reviewer_is_refused(loaded: Store, tmp_path) -> None:
    from labeler.grading import labeling

    labeling.grade(loaded, "q1", "rate-limits", "maria", 2)
    path = write_lines(tmp_path / "r.jsonl", [long_row(rater="maria")])
    with pytest.raises(LabelerError, match="'maria' is a reviewer who grades chunks"):
        import_judgements(loaded, path)


def test_relevance_has_one_scale(store: Store, tmp_path) -> None:
    path = write_lines(tmp_path / "r.jsonl", [long_row(metric="relevance")])
    with pytest.raises(LabelerError, match="relevance is graded on ordinal:0-2"):
        import_judgements(store, path, scales={"relevance": "binary"})


def test_a_changed_scale_must_fit_the_stored_ratings(store: Store, tmp_path) -> None:
    path = write_lines(tmp_path / "r.jsonl", [long_row(verdict=3)])
    import_judgements(store, path, scales={"helpfulness": "ordinal:1-4"})
    with pytest.raises(LabelerError, match="holds 1 ratings from 3 to 3, which do not fit binary"):
        import_judgements(store, path, scales={"helpfulness": "binary"})


def test_bad_json_names_the_line(store: Store, tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(long_row()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(LabelerError, match=r"bad.jsonl:2: not valid JSON"):
        import_judgements(store, path)
    assert store.scalar("SELECT count(*) FROM ratings") == 0


def test_deepeval_bad_score_names_the_test_case(store: Store, tmp_path) -> None:
    text = json.dumps(
        {
            "testCases": [
                {
                    "input": "q",
                    "actualOutput": "a",
                    "metricsData": [
                        {"name": "F", "threshold": 0.5, "success": True, "score": "high"}
                    ],
                }
            ]
        },
        indent=2,
    )
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LabelerError) as caught:
        import_judgements(store, path)
    assert str(caught.value) == f"{path}:3: field \"score\": expected a number, got 'high'"


def test_unknown_shape_asks_for_the_format(store: Store, tmp_path) -> None:
    path = write_lines(tmp_path / "odd.jsonl", [{"foo": 1}])
    with pytest.raises(LabelerError, match="cannot tell the format"):
        import_judgements(store, path)


def test_the_docs_format_table_is_the_registry() -> None:
    from labeler.judge.formats import formats_table
    from tests.conftest import REPO

    assert formats_table() in (REPO / "docs" / "judge.md").read_text(encoding="utf-8")


# who may import ----------------------------------------------------------------------------------


def test_importing_a_judge_file_is_an_owners_right_on_a_team_server(store: Store) -> None:
    from labeler.accounts import users
    from labeler.accounts.roles import shell_authority
    from labeler.errors import PermissionDenied

    with shell_authority("setup"):
        users.add_user(store, "olga", "owner", "olga-password-1", actor="setup")
        users.add_user(store, "lea", "lead", "lea-password-12", actor="setup")
    before = counts(store)
    with pytest.raises(PermissionDenied, match="a lead may not import data"):
        import_judgements(store, DEEPEVAL_RUN, actor="lea")
    assert counts(store) == before
    result = import_judgements(store, DEEPEVAL_RUN, actor="olga")
    assert (result.added, result.items_added) == (2, 1)
