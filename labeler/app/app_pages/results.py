"""Results: how the runs compare on the current labels or a test-set version, with their
uncertainty; question by question, a click away from the grading page; how much of each run
the labels cover; which pairs to grade to settle a comparison; one run on two versions.

Everything is computed by the core (``labeler.sources``, ``labeler.metrics``); this page picks,
calls and draws. Untrusted text (questions) only appears in table cells.
"""

from __future__ import annotations

import streamlit as st

from labeler.app import breakdown, decide
from labeler.app.pages import PAGES_DIR
from labeler.app.state import db_path, get_store, uploaded, user_errors
from labeler.app.tables import DASH, Column, differences_html, show_table
from labeler.app.widgets import caption, note, policy_select
from labeler.config import exports_dir
from labeler.grading.counts import LABELS
from labeler.grading.current import current_labels, kept_run
from labeler.metrics import evaluate
from labeler.metrics.comparison import compare
from labeler.metrics.registry import DEFAULT_METRICS as ENGINE_DEFAULT_METRICS
from labeler.metrics.registry import REGISTRY, parse_metrics
from labeler.metrics.summary import (
    PAGE_RESAMPLES,
    coverage,
    mean_intervals,
    question_differences,
)
from labeler.numbers import plain, signed
from labeler.sources import checked_run, compare_versions, version_labels
from labeler.spreadsheet import csv_text
from labeler.versions.history import intact_versions, list_versions, names_under

store = get_store()
chunking = store.corpus.current_chunking()
OUT = exports_dir(db_path())
GRADING = str(PAGES_DIR / "label.py")
CURRENT = "current"
METRIC_NAMES = [name for name in REGISTRY if name != "judged"]  # judged@k has its own section
# labeler eval's defaults, led by nDCG: the pair compared by default is the best two on it.
DEFAULT_METRICS = [m.name for m in parse_metrics(ENGINE_DEFAULT_METRICS) if m.name in METRIC_NAMES]
CUTOFFS = [1, 3, 5, 10, 20, 50, 100]


# -- what to evaluate ------------------------------------------------------------------------


def choose_labels(column) -> object | None:
    versions = intact_versions(OUT, store=store)
    with column:
        source = st.selectbox(
            "Labels",
            [CURRENT, *versions],
            key="results_labels",
            format_func=lambda s: "Current labels (every reviewer)" if s == CURRENT else s,
            help="The current labels of the current chunking, one grade per chunk as an export"
            " settles them; or an exported test-set version.",
        )
        if source != CURRENT:
            return version_labels(versions[source])
        policy = policy_select(store, "When reviewers disagree", "results_policy")
        return current_labels(store, policy=policy, chunking=chunking)


def uploaded_run():
    """A run file from the uploader, checked as an import would check it (not stored)."""
    upload = st.file_uploader(
        "Add a run file (TREC or JSONL)",
        type=["trec", "txt", "run", "tsv", "jsonl", "ndjson"],
        key="results_upload",
        help="Checked like an imported run: every question and chunk must be known.",
    )
    if upload is None:
        return None
    with uploaded(upload) as path:
        return checked_run(store, path, chunking=chunking, shown_as=upload.name)
    return None  # the file was refused, and the page says why


def choose_runs(column) -> list:
    names = store.runs.names()
    with column:
        chosen = st.multiselect("Runs", names, default=names, key="results_runs")
        runs = [kept_run(store, name) for name in chosen]
        extra = uploaded_run()
        if extra is not None:
            if extra.name in chosen:
                note(
                    f"An imported run is already named {extra.name!r}: rename the file.",
                    kind="error",
                )
            else:
                runs.append(extra)
    return runs


def choose_metrics(column) -> tuple[list[str], list[int]]:
    with column:
        # Pills wrap; a multiselect of five metrics cut the last one to "m…" (issue #23).
        names = st.pills(
            "Metrics",
            METRIC_NAMES,
            selection_mode="multi",
            default=DEFAULT_METRICS,
            key="results_metrics",
        )
        cutoffs = st.multiselect("Cutoffs (k)", CUTOFFS, default=[10], key="results_cutoffs") or [
            10
        ]
    metrics = []
    for name in names:
        if REGISTRY[name].k == "none":
            metrics.append(name)
        else:
            metrics += [f"{name}@{k}" for k in sorted(cutoffs)]
    return metrics, sorted(cutoffs)


# -- the sections ----------------------------------------------------------------------------


def run_table(results, metrics: list[str]) -> None:
    st.subheader("Runs")
    intervals = mean_intervals(results, metrics, resamples=PAGE_RESAMPLES)
    rows: dict[str, dict] = {}
    for m in intervals:
        rows.setdefault(m.run, {"run": m.run})[m.metric] = (m.mean, m.low, m.high)
    columns = [Column("run", "text"), *(Column(m, "interval") for m in metrics)]
    show_table(list(rows.values()), columns, key="results_runs_table")
    first = results[0]
    st.caption(
        f"Means over the {first.num_scored} {LABELS['answerable']} questions (a chunk graded 1"
        f" or more; left out: {first.unanswerable} marked unanswerable,"
        f" {first.no_relevant_label} without a relevant label yet); in brackets, and drawn"
        f" under each figure on a 0 to 1 scale, a 95 % bootstrap interval (the questions"
        f" resampled {PAGE_RESAMPLES:,} times)."
    )


def coverage_notes(results, cutoffs: list[int], metrics: list[str]) -> None:
    st.subheader("How much of each run the labels cover")
    rows = []
    warnings = []
    for k in cutoffs:
        for c in coverage(results, k):
            rows.append({"run": c.run, "k": k, "judged": None if c.judged is None else c.judged})
            figure = next((m for m in metrics if m.endswith(f"@{k}")), None)
            warning = c.warning(figure)
            if warning:
                warnings.append(warning)
    by_run: dict[str, dict] = {}
    for row in rows:
        by_run.setdefault(row["run"], {"run": row["run"]})[f"judged@{row['k']}"] = row["judged"]
    columns = [Column("run", "text"), *(Column(f"judged@{k}", "share") for k in cutoffs)]
    show_table(list(by_run.values()), columns, key="results_coverage")
    for warning in warnings:  # run names are data: escaped, never Markdown
        note(warning, kind="warning")
    if not warnings:
        st.caption("Every run's top k is at least 90 % judged on the scored questions.")


def pair_choice(results, metric: str) -> tuple[int, int]:
    """Run A and run B; by default the best two on the first metric."""
    names = [r.run for r in results]
    ranked = sorted(names, key=lambda n: -(results[names.index(n)].mean(metric) or 0.0))
    left, right = st.columns(2)
    a = left.selectbox("Run A", ranked, index=0, key="results_a")
    others = [n for n in ranked if n != a]
    b = right.selectbox("Run B", others, index=0, key="results_b")
    return names.index(a), names.index(b)


def paired_comparison(results, metrics: list[str]) -> tuple[object, object] | None:
    st.subheader("Compare two runs")
    if len(results) < 2:
        st.info("Choose at least two runs to compare them.")
        return None
    ia, ib = pair_choice(results, metrics[0])
    a, b = results[ia], results[ib]
    comparisons = compare(b, a, metrics, resamples=PAGE_RESAMPLES)
    rows = [
        {
            "metric": c.metric,
            f"{a.run}": c.run_mean,
            f"{b.run}": c.baseline_mean,
            f"{a.run} - {b.run}": c.difference,
            "95 % interval": f"[{signed(c.ci_low, 3)}, {signed(c.ci_high, 3)}]",
            "p-value": c.p_value,
            f"{a.run} better": c.wins,
            "ties": c.ties,
            f"{b.run} better": c.losses,
        }
        for c in comparisons
    ]
    if not rows:
        st.info("No question has a relevant label yet: nothing to compare.")
        return None
    columns = [
        Column("metric", "text"),
        Column(a.run, "number"),
        Column(b.run, "number"),
        Column(f"{a.run} - {b.run}", "signed"),
        Column("95 % interval", "text"),
        Column("p-value", "number", digits=4),
        Column(f"{a.run} better"),
        Column("ties"),
        Column(f"{b.run} better"),
    ]
    show_table(rows, columns, key="results_pair")
    st.caption(
        "Paired over the same questions: the mean difference, its 95 % bootstrap interval,"
        " a randomization test's p-value, and on how many questions each run wins."
    )
    for sentence in filter(None, (c.mixed_verdict() for c in comparisons)):
        note(sentence, kind="warning")
    return a, b


def open_question(question_id: str) -> None:
    st.switch_page(GRADING, query_params={"question": question_id})


QUESTION_ROWS = 300  # above, the table holds the questions each run wins by most


def per_question(a, b, metrics: list[str], texts: dict[str, str]) -> None:
    st.subheader("Question by question")
    metric = st.selectbox("Metric", metrics, key="results_question_metric")
    rows = question_differences(a, b, metric)
    if not rows:
        return
    st.html(
        differences_html(
            [r.question for r in rows], [r.difference for r in rows], a.run, b.run, metric
        )
    )
    table = [
        {
            "question": r.question,
            "text": texts.get(r.question, ""),
            a.run: r.a,
            b.run: r.b,
            "difference": r.difference,
        }
        for r in rows
    ]
    shown = table
    if len(table) > QUESTION_ROWS:
        half = QUESTION_ROWS // 2
        shown = table[:half] + table[-half:]
    columns = [
        Column("question", "text"),
        Column("text", "text"),
        Column(a.run, "number"),
        Column(b.run, "number"),
        Column("difference", "signed"),
    ]
    show_table(shown, columns, key="results_questions", tall=True)
    if len(shown) < len(table):
        names = [c.name for c in columns]  # question texts are data: cells neutralised
        st.caption(
            f"The {QUESTION_ROWS // 2} questions each run wins by most, of {len(table):,};"
            " the file below holds them all."
        )
        st.download_button(
            "Every question (CSV)",
            csv_text([names, *([row[n] for n in names] for row in table)]).encode("utf-8"),
            file_name=f"{a.run}-vs-{b.run}-{metric}.csv",
            mime="text/csv",
            key="results_questions_csv",
        )
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    differences = {r["question"]: r["difference"] for r in shown}
    by_size = sorted(differences, key=lambda q: -abs(differences[q]))
    picked = left.selectbox(
        "Open a question on the grading page",
        by_size,
        format_func=lambda q: f"{q} ({signed(differences[q], 3)}) {texts.get(q, '')[:90]}",
        key="results_open_question",
        help="Largest differences first.",
    )
    if right.button("Open", key="results_open", width="stretch") and picked:
        open_question(picked)


def versions_side_by_side(runs, metrics: list[str]) -> None:
    st.subheader("One run on two versions of a test set")
    names = names_under(OUT)
    if not names:
        st.caption(
            "Export test-set versions (Export page) to see how a run's figures move between"
            " them: a number that moved because the labels changed, not the retriever."
        )
        return
    left, middle, right = st.columns(3)
    name = left.selectbox("Test set", names, key="results_testset")
    path = {i.number: i.path for i in list_versions(OUT, name, store=store) if i.intact}
    numbers = list(path)
    if len(numbers) < 2:
        caption(f"{name} has one version: export another to compare them.")
        return
    older = middle.selectbox(
        "Older", numbers, index=len(numbers) - 2, key="results_older", format_func=lambda n: f"v{n}"
    )
    newer = right.selectbox(
        "Newer", numbers, index=len(numbers) - 1, key="results_newer", format_func=lambda n: f"v{n}"
    )
    shown = compare_versions(runs, metrics, path[older], path[newer])
    st.caption(shown.sentence())
    old, new = f"v{older}", f"v{newer}"
    rows = [
        {"run": s.run, "metric": s.metric, old: s.before, new: s.after, "change": s.change}
        | {"questions": f"{s.questions_before} → {s.questions_after}"}
        for s in shown.shifts
    ]
    columns = [
        Column("run", "text"),
        Column("metric", "text"),
        Column(old, "number"),
        Column(new, "number"),
        Column("change", "signed"),
        Column("questions", "text"),
    ]
    show_table(rows, columns, key="results_versions")
    left, right = st.columns(2)
    run = left.selectbox(
        "Questions that moved, for run", [r.name for r in runs], key="results_shift_run"
    )
    metric = right.selectbox("on", metrics, key="results_shift_metric")
    moved = shown.questions(run, metric)
    if not moved:
        caption(f"No question's {metric} moved for {run}.")
        return
    # A question a version does not score shows a dash, not "None"; the change says when one
    # version alone scores it.
    shifts = [
        {
            "question": m.question,
            old: DASH if m.before is None else plain(m.before, 3),
            new: DASH if m.after is None else plain(m.after, 3),
            "change": f"new in {new}"
            if m.before is None
            else f"not scored in {new}"
            if m.after is None
            else signed(m.change, 3),
        }
        for m in moved
    ]
    columns = [Column(c, "text") for c in ("question", old, new, "change")]
    show_table(shifts, columns, key="results_shifts", tall=True)


# -- the page --------------------------------------------------------------------------------


def render() -> None:
    st.title("Results")
    controls = st.container(border=True, key="results_controls")
    left, middle, right = controls.columns(3)
    with user_errors():
        labels = choose_labels(left)
        runs = choose_runs(middle)
        metrics, cutoffs = choose_metrics(right)
        if labels is None:
            return
        if not runs:
            st.info("Import a run (Data page) or add a run file above to see results.")
            return
        if not metrics:
            st.info("Choose at least one metric.")
            return
        caption(f"Labels: {labels.description}.")
        wanted = metrics + [f"judged@{k}" for k in cutoffs]
        results = [evaluate(labels.qrels, run, wanted) for run in runs]
        if results[0].num_scored == 0:
            st.info(
                "No question has a relevant label yet: grade some on the grading page, or"
                " choose a test-set version."
            )
            return
        run_table(results, metrics)
        breakdown.section(results, metrics, labels)
        coverage_notes(results, cutoffs, metrics)
        pair = paired_comparison(results, metrics)
        if pair is not None:
            per_question(*pair, metrics, store.questions.texts(pair[0].per_question(metrics[0])))
            if st.session_state.get("results_labels") == CURRENT:
                decide.results_section(
                    store, pair[0].run, pair[1].run, metrics, st.session_state.get("results_policy")
                )
        versions_side_by_side(runs, metrics)


with user_errors():  # a problem the controls could not catch (a version changed meanwhile)
    render()
