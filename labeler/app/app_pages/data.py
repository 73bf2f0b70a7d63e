"""Data: what the project holds, and uploads through the same importers as the CLI."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from labeler.app.state import get_store, user_errors
from labeler.importers import (
    IMPORT_KINDS,
    import_chunks,
    import_deepeval,
    import_documents,
    import_qrels,
    import_questions,
    import_ragas,
    import_run,
    parse_grade_map,
)

store = get_store()

UPLOADABLE = {
    "chunks": ["jsonl", "csv", "parquet"],
    "documents": ["jsonl"],
    "questions": ["jsonl", "csv"],
    "run": ["trec", "txt", "run", "tsv", "jsonl"],
    "qrels": ["qrels", "txt", "tsv"],
    "ragas": ["csv", "json", "jsonl"],
    "deepeval": ["json", "jsonl", "csv"],
}


def status_panel() -> None:
    status = store.status()
    st.subheader("In this project")
    a, b, c, d = st.columns(4)
    a.metric("Chunks", sum(status["chunkings"].values()))
    b.metric("Questions", status["questions"])
    c.metric("Runs", len(status["runs"]))
    d.metric("Labels", sum(status["labels"]["by_reviewer"].values()))
    st.caption(f"Database: {status['database']} · current chunking: {status['current_chunking']}")
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


def run_import(kind: str, path: Path, options: dict) -> None:
    if kind == "chunks":
        report = import_chunks(store, path, chunking=options["chunking"])
    elif kind == "documents":
        report = import_documents(store, path)
    elif kind == "questions":
        report = import_questions(store, path)
    elif kind == "run":
        report = import_run(store, path, name=options["name"] or None, pool_depth=options["depth"])
    elif kind == "qrels":
        report = import_qrels(
            store, path, reviewer=options["reviewer"], grade_map=parse_grade_map(options["map"])
        )
    else:
        generated = (import_ragas if kind == "ragas" else import_deepeval)(store, path)
        st.success(generated.summary())
        if generated.unmatched:
            st.caption("Contexts that matched no chunk (find them with the grading page's search):")
            st.dataframe(
                [
                    {"line": u.line, "question": u.question_id, "context": u.preview(200)}
                    for u in generated.unmatched
                ],
                hide_index=True,
            )
        return
    st.success(report.summary())


def upload_panel() -> None:
    st.subheader("Import a file")
    kind = st.selectbox(
        "What is in the file?",
        list(UPLOADABLE),
        format_func=lambda k: f"{k}: {IMPORT_KINDS[k].summary} ({IMPORT_KINDS[k].formats})",
        key="data_kind",
    )
    options: dict = {}
    if kind == "chunks":
        options["chunking"] = st.text_input("Chunking name", "default", key="data_chunking")
    elif kind == "run":
        options["name"] = st.text_input(
            "Run name (empty: the TREC tag or the file name)", key="data_run"
        )
        options["depth"] = st.number_input("Pool depth", 1, 1000, 10, key="data_depth")
    elif kind == "qrels":
        options["reviewer"] = st.text_input("Reviewer", "imported", key="data_reviewer")
        options["map"] = st.text_input(
            "Grade map (optional), e.g. 4:2,3:2,2:1,1:1,0:0", key="data_map"
        )
    upload = st.file_uploader("File", type=UPLOADABLE[kind], key=f"data_file_{kind}")
    if upload is None or not st.button("Import", type="primary", key="data_import"):
        return
    with tempfile.TemporaryDirectory() as folder:
        # Keep the user's file name: error messages name it, and runs default to it.
        path = Path(folder) / Path(upload.name).name
        path.write_bytes(upload.getvalue())
        with user_errors(shown_path=(str(path), upload.name)), st.spinner("Importing…"):
            run_import(kind, path, options)


st.title("Data")
status_panel()
upload_panel()
st.caption(
    "Every import is one transaction: a bad line writes nothing and the error names the line. "
    "The same file imported twice changes nothing."
)
