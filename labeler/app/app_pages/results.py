"""Results: how the runs compare on the current labels or a test-set version, with their
uncertainty; question by question, a click away from the grading page; how much of each run
the labels cover; which pairs to grade to settle a comparison; one run on two versions.

Everything is computed by the core (``labeler.sources``, ``labeler.metrics``); this page picks,
calls and draws. Untrusted text (questions) only appears in table cells.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from labeler.app.pages import PAGES_DIR
from labeler.app.state import db_path, get_store, user_errors
from labeler.app.widgets import caption, note
from labeler.config import exports_dir
from labeler.errors import LabelerError
from labeler.grading.consensus import POLICIES
from labeler.grading.current import current_labels, stored_run
from labeler.metrics import evaluate
from labeler.metrics.comparison import compare
from labeler.metrics.registry import DEFAULT_METRICS as ENGINE_DEFAULT_METRICS
from labeler.metrics.registry import REGISTRY, label_next_metrics, parse_metrics
from labeler.metrics.summary import (
    PAGE_RESAMPLES,
    coverage,
    mean_intervals,
    question_differences,
    question_shifts,
    version_shift,
)
from labeler.sources import checked_run, version_labels
from labeler.versions.diff import diff_versions
from labeler.versions.history import list_versions, names_under

store = get_store()
chunking = store.corpus.current_chunking()
OUT = exports_dir(db_path())
GRADING = str(PAGES_DIR / "label.py")
CURRENT = "current"
NEXT_PAIRS = 10  # the most decisive pairs shown
METRIC_NAMES = [name for name in REGISTRY if name != "judged"]  # judged@k has its own section
# labeler eval's defaults, led by nDCG: the pair compared by default is the best two on it.
DEFAULT_METRICS = [m.name for m in parse_metrics(ENGINE_DEFAULT_METRICS) if m.name in METRIC_NAMES]
CUTOFFS = [1, 3, 5, 10, 20, 50, 100]


# -- what to evaluate ------------------------------------------------------------------------


def version_options() -> dict[str, Path]:
    """'name vN' -> folder, newest first, for every intact version under the exports folder."""
    options = {}
    for name in names_under(OUT):
        for info in reversed(list_versions(OUT, name, store=store)):
            if info.intact:
                options[f"{name} v{info.number}"] = info.path
    return options


def choose_labels(column) -> object | None:
    versions = version_options()
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
        policy = st.selectbox(
            "When reviewers disagree",
            list(POLICIES),
            key="results_policy",
            format_func=lambda p: f"{p}: {POLICIES[p].summary}",
        )
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
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / Path(upload.name).name
        path.write_bytes(upload.getvalue())
        with user_errors(shown_path=(str(path), upload.name)):
            return checked_run(store, path, chunking=chunking, shown_as=upload.name)
    return None


def choose_runs(column) -> list:
    names = store.runs.names()
    with column:
        chosen = st.multiselect("Runs", names, default=names, key="results_runs")
        runs = [stored_run(store, name) for name in chosen]
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
        names = st.multiselect(
            "Metrics", METRIC_NAMES, default=DEFAULT_METRICS, key="results_metrics"
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
        shown = "—" if m.mean is None else f"{m.mean:.3f}  [{m.low:.3f}, {m.high:.3f}]"
        rows.setdefault(m.run, {"run": m.run})[m.metric] = shown
    with st.container(key="results_runs_table"):
        st.dataframe(pd.DataFrame(list(rows.values())), hide_index=True)
    first = results[0]
    st.caption(
        f"Means over the {first.num_scored} questions with a relevant label (left out:"
        f" {first.unanswerable} marked unanswerable, {first.no_relevant_label} without a"
        " relevant label yet); in brackets a 95 % bootstrap interval (the questions resampled"
        f" {PAGE_RESAMPLES:,} times)."
    )
    frame = pd.DataFrame(
        [
            {"run": m.run, "metric": m.metric, "mean": m.mean, "low": m.low, "high": m.high}
            for m in intervals
            if m.mean is not None
        ]
    )
    if frame.empty:
        return
    base = alt.Chart(frame).encode(
        x=alt.X("metric:N", title=None, sort=metrics, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("run:N"),
        color=alt.Color("run:N", title="run", scale=alt.Scale(scheme="tableau10")),
        tooltip=[
            "run",
            "metric",
            alt.Tooltip("mean:Q", format=".3f"),
            alt.Tooltip("low:Q", format=".3f"),
            alt.Tooltip("high:Q", format=".3f"),
        ],
    )
    chart = base.mark_rule(strokeWidth=2).encode(
        y=alt.Y("low:Q", title="mean with 95 % interval", scale=alt.Scale(domain=[0, 1])),
        y2="high:Q",
    ) + base.mark_point(filled=True, size=70).encode(y="mean:Q")
    st.altair_chart(chart.properties(height=280), key="results_chart")


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
    table = pd.DataFrame(rows).pivot_table(index="run", columns="k", values="judged")
    table.columns = [f"judged@{k}" for k in table.columns]
    with st.container(key="results_coverage"):
        st.dataframe(
            table.reset_index(),
            hide_index=True,
            column_config={
                c: st.column_config.ProgressColumn(c, format="percent", min_value=0, max_value=1)
                for c in table.columns
            },
        )
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
    rows = [
        {
            "metric": c.metric,
            f"{a.run}": c.run_mean,
            f"{b.run}": c.baseline_mean,
            f"{a.run} - {b.run}": c.difference,
            "95 % interval": f"[{c.ci_low:+.3f}, {c.ci_high:+.3f}]",
            "p-value": c.p_value,
            f"{a.run} better": c.wins,
            "ties": c.ties,
            f"{b.run} better": c.losses,
        }
        for c in compare(b, a, metrics, resamples=PAGE_RESAMPLES)
    ]
    if not rows:
        st.info("No question has a relevant label yet: nothing to compare.")
        return None
    with st.container(key="results_pair"):
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            column_config={
                "p-value": st.column_config.NumberColumn(format="%.4f"),
                a.run: st.column_config.NumberColumn(format="%.3f"),
                b.run: st.column_config.NumberColumn(format="%.3f"),
                f"{a.run} - {b.run}": st.column_config.NumberColumn(format="%+.3f"),
            },
        )
    st.caption(
        "Paired over the same questions: the mean difference, its 95 % bootstrap interval,"
        " a randomization test's p-value, and on how many questions each run wins."
    )
    return a, b


def open_question(question_id: str) -> None:
    st.switch_page(GRADING, query_params={"question": question_id})


def per_question(a, b, metrics: list[str], texts: dict[str, str]) -> None:
    st.subheader("Question by question")
    metric = st.selectbox("Metric", metrics, key="results_question_metric")
    rows = question_differences(a, b, metric)
    if not rows:
        return
    frame = pd.DataFrame(
        {
            "question": [r.question for r in rows],
            "order": list(range(len(rows))),
            a.run: [r.a for r in rows],
            b.run: [r.b for r in rows],
            "difference": [r.difference for r in rows],
        }
    )
    frame["better"] = [
        a.run if d > 1e-12 else b.run if d < -1e-12 else "tie" for d in frame["difference"]
    ]
    pick = alt.selection_point(name="pick", fields=["question"])
    chart = (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("order:O", title=f"questions, sorted by {a.run} - {b.run}", axis=None),
            y=alt.Y("difference:Q", title=f"{metric}: {a.run} - {b.run}"),
            color=alt.Color(
                "better:N",
                scale=alt.Scale(
                    domain=[a.run, "tie", b.run], range=["#2b8a3e", "#adb5bd", "#c92a2a"]
                ),
                title="better",
            ),
            tooltip=[
                "question",
                alt.Tooltip("difference:Q", format="+.3f"),
                alt.Tooltip(f"{a.run}:Q", format=".3f"),
                alt.Tooltip(f"{b.run}:Q", format=".3f"),
            ],
        )
        .add_params(pick)
        .properties(height=240)
    )
    event = st.altair_chart(chart, key="results_question_chart", on_select="rerun")
    clicked = (event.selection.get("pick") or [{}])[0].get("question") if event else None
    table = frame.drop(columns=["order", "better"])
    table.insert(1, "text", [texts.get(q, "") for q in table["question"]])
    with st.container(key="results_questions"):
        picked = st.dataframe(
            table,
            hide_index=True,
            key="results_question_table",
            on_select="rerun",
            selection_mode="single-row",
            column_config={
                "difference": st.column_config.NumberColumn(format="%+.3f"),
                a.run: st.column_config.NumberColumn(format="%.3f"),
                b.run: st.column_config.NumberColumn(format="%.3f"),
            },
        )
    st.caption("Click a bar or a row to open that question on the grading page.")
    selected = picked.selection.rows if picked else []
    if selected:
        clicked = table["question"].iloc[selected[0]]
    if clicked:
        open_question(clicked)


def label_next(a, b, metrics: list[str], policy: str | None) -> None:
    """Which pairs settle A vs B (current labels, imported runs only). The decision is the
    grading page's queue's (kept until a label or a run changes): reruns of this page cost
    nothing, and its link opens the grading page on a queue already worked out."""
    from labeler.grading.decide import DEFAULT_POLICY, Comparison

    st.subheader("Label next")
    decidable = {d.name for d in label_next_metrics()}
    choices = [m for m in metrics if m.split("@")[0] in decidable]
    imported = set(store.runs.names())
    if not choices or a.run not in imported or b.run not in imported:
        titles = ", ".join(d.title for d in label_next_metrics())
        st.caption(f"Label next works on imported runs with one of: {titles}.")
        return
    metric = st.selectbox("Decide on", choices, key="results_decide_metric")
    comparison = Comparison(a.run, b.run, metric, policy or DEFAULT_POLICY)
    decision = comparison.queue(store, chunking).decision
    note(decision.sentence(), kind="ok" if decision.status == "proven" else "info")
    st.caption(
        f"{decision.labelled} of the {decision.pool} pairs in the two runs' top"
        f" {metric.partition('@')[2] or 'results'} are labelled. Proven: no grading of the"
        " unjudged chunks can reverse it; likely: the relevance model, learnt from the labels"
        " so far, gives the leader this probability (docs/results.md)."
    )
    if decision.pairs:
        with st.container(key="results_next_pairs"):
            st.dataframe(
                pd.DataFrame([p.as_dict() for p in decision.pairs[:NEXT_PAIRS]]),
                hide_index=True,
                column_config={"weight": st.column_config.NumberColumn(format="%.4f")},
            )
        st.page_link(
            GRADING,
            label=f"Grade them: decide {a.run} vs {b.run} on the grading page",
            icon=":material/checklist:",
            query_params={"decide": f"{a.run},{b.run},{metric}", "policy": comparison.policy},
        )


def versions_side_by_side(runs, metrics: list[str], min_grade: int) -> None:
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
    infos = [i for i in list_versions(OUT, name, store=store) if i.intact]
    numbers = [i.number for i in infos]
    if len(numbers) < 2:
        caption(f"{name} has one version: export another to compare them.")
        return
    older = middle.selectbox(
        "Older", numbers, index=len(numbers) - 2, key="results_older", format_func=lambda n: f"v{n}"
    )
    newer = right.selectbox(
        "Newer", numbers, index=len(numbers) - 1, key="results_newer", format_func=lambda n: f"v{n}"
    )
    path = {i.number: i.path for i in infos}
    before_labels, after_labels = version_labels(path[older]), version_labels(path[newer])
    before = [evaluate(before_labels.qrels, r, metrics, min_grade=min_grade) for r in runs]
    after = [evaluate(after_labels.qrels, r, metrics, min_grade=min_grade) for r in runs]
    summary = diff_versions(path[older], path[newer]).summary()
    st.caption(
        f"From v{older} to v{newer}: {summary['questions_added']} questions added,"
        f" {summary['questions_removed']} removed; {summary['labels_added']} labels added,"
        f" {summary['labels_removed']} removed, {summary['labels_regraded']} regraded."
        " The runs are the same: every change below comes from the labels."
    )
    rows = [
        {
            "run": s.run,
            "metric": s.metric,
            f"v{older}": s.before,
            f"v{newer}": s.after,
            "change": s.change,
            "questions": f"{s.questions_before} → {s.questions_after}",
        }
        for s in version_shift(before, after, metrics)
    ]
    with st.container(key="results_versions"):
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            column_config={
                f"v{older}": st.column_config.NumberColumn(format="%.3f"),
                f"v{newer}": st.column_config.NumberColumn(format="%.3f"),
                "change": st.column_config.NumberColumn(format="%+.3f"),
            },
        )
    left, right = st.columns(2)
    run = left.selectbox(
        "Questions that moved, for run", [r.name for r in runs], key="results_shift_run"
    )
    metric = right.selectbox("on", metrics, key="results_shift_metric")
    i = [r.name for r in runs].index(run)
    moved = question_shifts(before[i], after[i], metric)
    if not moved:
        caption(f"No question's {metric} moved for {run}.")
        return

    def what(m) -> str:
        if m.before is None:
            return f"new in v{newer}"
        if m.after is None:
            return f"not scored in v{newer}"
        return f"{m.change:+.3f}"

    def score(value: float | None) -> str:
        # Scores lie in [0, 1], so the text sorts as the numbers do; a question a version does
        # not score shows a dash, not "None".
        return "\N{EM DASH}" if value is None else f"{value:.3f}"

    with st.container(key="results_shifts"):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "question": m.question,
                        f"v{older}": score(m.before),
                        f"v{newer}": score(m.after),
                        "change": what(m),
                    }
                    for m in moved
                ]
            ),
            hide_index=True,
        )


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
        coverage_notes(results, cutoffs, metrics)
        pair = paired_comparison(results, metrics)
        if pair is not None:
            per_question(*pair, metrics, store.questions.texts(pair[0].per_question(metrics[0])))
            if st.session_state.get("results_labels") == CURRENT:
                label_next(*pair, metrics, st.session_state.get("results_policy"))
        versions_side_by_side(runs, metrics, 1)


try:
    render()
except LabelerError as error:  # a problem the controls could not catch (a changed version)
    note(str(error), kind="error")
