"""Data: what the project holds, and uploads through the same importers as the CLI.

The upload form is built from the importer registry (``labeler.importers.registry``): the kinds
a file can be uploaded for, the extensions each accepts, and a field for each of its options
that the registry offers to the app; the import runs through ``run_import``, as the CLI's does.
"""

from __future__ import annotations

import streamlit as st

from labeler.app.state import get_store, reviewer, uploaded
from labeler.app.widgets import caption, note
from labeler.grading.counts import LABELS, ProjectCounts, project_status
from labeler.grading.policy import describe_policy
from labeler.importers.registry import IMPORT_KINDS, ImportKind, ImportOption, run_import

store = get_store()

UPLOADABLE = {name: kind for name, kind in IMPORT_KINDS.items() if not kind.folder}


def status_panel() -> None:
    status = project_status(store)
    counts = status["counts"]
    st.subheader("In this project")
    current = status["current_chunking"]
    a, b, c, d, e = st.columns(5)
    a.metric("Chunks", status["chunkings"].get(current, 0))
    b.metric(LABELS["questions"].capitalize(), counts["questions"])
    c.metric(LABELS["graded"].capitalize(), counts["graded"])
    d.metric("Runs", len(status["runs"]))
    e.metric("Labels", sum(status["labels"]["by_reviewer"].values()))
    caption(ProjectCounts(**counts).sentence().capitalize())
    caption(f"When reviewers disagree: {describe_policy(counts['policy'])}")
    others = {n: k for n, k in status["chunkings"].items() if n != current}
    also = "".join(
        f" · chunking {name}: {count} chunks, {status['labels']['by_chunking'].get(name, 0)} labels"
        for name, count in others.items()
    )
    caption(f"Chunks and labels of the chunking being graded, {current}{also}")
    caption(f"Database: {status['database']}")
    if status["runs"]:
        st.dataframe(
            [{"run": name, **run} for name, run in status["runs"].items()],
            hide_index=True,
            width="content",
        )
    if status["labels"]["by_reviewer"]:
        st.dataframe(
            [{"reviewer": r, "labels": n} for r, n in status["labels"]["by_reviewer"].items()],
            hide_index=True,
            width="content",
        )


def option_field(kind: ImportKind, option: ImportOption) -> object:
    """The form field of one importer option (only those the registry labels for the app)."""
    key = f"data_{kind.name}_{option.name}"
    if option.kind == "flag":
        return st.checkbox(option.label, value=bool(option.default), key=key, help=option.help)
    if option.kind == "int":
        return st.number_input(
            option.label,
            min_value=option.minimum,
            value=option.default,
            step=1,
            key=key,
            help=option.help,
        )
    value = st.text_input(option.label, value=option.default or "", key=key, help=option.help)
    if option.kind == "tags":
        return tuple(t.strip() for t in value.split(",") if t.strip())
    return value.strip()


def show_outcome(outcome) -> None:
    note("\n".join(outcome.lines), kind="ok")
    if outcome.unmatched:
        st.caption("Contexts that matched no chunk (find them with the grading page's search):")
        st.dataframe(
            [
                {"line": u.line, "question": u.question_id, "context": u.preview(200)}
                for u in outcome.unmatched
            ],
            hide_index=True,
        )


def upload_panel() -> None:
    st.subheader("Import a file")
    name = st.selectbox(
        "What is in the file?",
        list(UPLOADABLE),
        format_func=lambda k: f"{k}: {UPLOADABLE[k].summary} ({UPLOADABLE[k].formats})",
        key="data_kind",
    )
    kind = UPLOADABLE[name]
    values = {o.name: option_field(kind, o) for o in kind.options if o.label}
    upload = st.file_uploader("File", type=list(kind.extensions), key=f"data_file_{kind.name}")
    if upload is None or not st.button("Import", type="primary", key="data_import"):
        return
    with uploaded(upload) as path, st.spinner("Importing…"):
        show_outcome(run_import(kind, store, path, values, actor=reviewer()))


st.title("Data")
status_panel()
upload_panel()
st.caption(
    "Every import is one transaction: a bad line writes nothing and the error names the line. "
    "The same file imported twice changes nothing."
)
