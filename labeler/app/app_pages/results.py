"""Results: how the runs compare on the current labels or a test-set version, with their
uncertainty; question by question, a click away from the grading page; how much of each run
the labels cover; which pairs to grade to settle a comparison; one run on two versions.

Everything is computed by the core (``labeler.sources``, ``labeler.metrics``); this page picks,
calls and draws. Untrusted text (questions) only appears in table cells.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeler.app import breakdown, charts, decide
from labeler.app.pages import PAGES_DIR
from labeler.app.state import db_path, get_store, uploaded, user_errors
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
from labeler.numbers import rounded, signed
from labeler.sources import checked_run, compare_versions, version_labels
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
        shown = "—" if m.mean is None else f"{m.mean:.3f}  [{m.low:.3f}, {m.high:.3f}]"
        rows.setdefault(m.run, {"run": m.run})[m.metric] = shown
    with st.container(key="results_runs_table"):
        st.dataframe(pd.DataFrame(list(rows.values())), hide_index=True)
    first = results[0]
    st.caption(
        f"Means over the {first.num_scored} {LABELS['answerable']} questions (a chunk graded 1"
        f" or more; left out: {first.unanswerable} marked unanswerable,"
        f" {first.no_relevant_label} without a relevant label yet); in brackets a 95 % bootstrap"
        f" interval (the questions resampled {PAGE_RESAMPLES:,} times)."
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
    st.vega_lite_chart(frame, charts.means_with_intervals(metrics), key="results_chart")


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
    comparisons = compare(b, a, metrics, resamples=PAGE_RESAMPLES)
    rows = [
        {
            "metric": c.metric,
            f"{a.run}": c.run_mean,
            f"{b.run}": c.baseline_mean,
            f"{a.run} - {b.run}": rounded(c.difference, 3),
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
    for sentence in filter(None, (c.mixed_verdict() for c in comparisons)):
        note(sentence, kind="warning")
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
            "difference": [rounded(r.difference, 3) for r in rows],
        }
    )
    frame["better"] = [
        a.run if d > 1e-12 else b.run if d < -1e-12 else "tie" for d in frame["difference"]
    ]
    spec = charts.differences(a.run, b.run, metric)
    event = st.vega_lite_chart(frame, spec, key="results_question_chart", on_select="rerun")
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
    figure = st.column_config.NumberColumn(format="%.3f")
    with st.container(key="results_versions"):
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            column_config={
                old: figure,
                new: figure,
                "change": st.column_config.NumberColumn(format="%+.3f"),
            },
        )
    left, right = st.columns(2)
    run = left.selectbox(
        "Questions that moved, for run", [r.name for r in runs], key="results_shift_run"
    )
    metric = right.selectbox("on", metrics, key="results_shift_metric")
    moved = shown.questions(run, metric)
    if not moved:
        caption(f"No question's {metric} moved for {run}.")
        return
    # Scores lie in [0, 1], so the text sorts as the numbers do; a question a version does not
    # score shows a dash, not "None"; the change says when one version alone scores it.
    dash = "\N{EM DASH}"
    with st.container(key="results_shifts"):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "question": m.question,
                        old: dash if m.before is None else f"{m.before:.3f}",
                        new: dash if m.after is None else f"{m.after:.3f}",
                        "change": f"new in {new}"
                        if m.before is None
                        else f"not scored in {new}"
                        if m.after is None
                        else signed(m.change, 3),
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
