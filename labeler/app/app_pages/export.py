"""Export: create a test-set version (preview first), see the history, compare two versions,
download one as a zip. Every action calls the same core functions as the CLI.

Versions are written where the CLI writes them for this database (``labeler.config``:
``$LABELER_EXPORTS``, else ``exports/`` next to the database).

A version never changes once written, so what is read from one (its check against the hash,
its content, a diff of two) is cached across reruns and sessions, keyed by the stamps (size,
modification time) of its files: a hand edit changes a stamp and is read and reported afresh.
The history, the comparison and the download are fragments: changing a version in one of their
selectboxes reruns that part only.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import streamlit as st

from labeler.app.pages import PAGES_DIR
from labeler.app.state import exports_path, get_store, reviewer, store_fragment, user_errors
from labeler.app.widgets import note, policy_select
from labeler.export import Selection, export_testset, partial_rows, plan_export
from labeler.grading.consensus import DisagreementError
from labeler.versions.diff import VersionDiff, describe_changes, diff_contents
from labeler.versions.format import Content, version_dirs
from labeler.versions.history import (
    VersionInfo,
    check_version,
    missing_versions,
    names_under,
    version_trust,
    witnessed,
    zip_version,
)
from labeler.versions.reading import read_version
from labeler.versions.signing import Trust

store = get_store()
me = reviewer()
OUT = Path(exports_path())
LAST = "export_last"


# cached reads of immutable versions ---------------------------------------------------------


def stamp(path: Path) -> tuple:
    """What identifies a version folder's files as they are now: name, size, mtime of each
    (every file in it: an extra file is a change too)."""
    found = []
    for child in sorted(path.iterdir()) if path.is_dir() else ():
        try:
            info = child.stat()
        except OSError:
            found.append((child.name, None, None))
        else:
            found.append((child.name, info.st_size, info.st_mtime_ns))
    return tuple(found)


@st.cache_resource(max_entries=256, show_spinner=False)
def checked(name: str, number: int, path: str, files: tuple, trust: Trust) -> VersionInfo:
    return check_version(name, number, Path(path), trust)


@st.cache_resource(max_entries=16, show_spinner="Reading the version…")
def content(path: str, files: tuple) -> Content:
    return read_version(path).content


@st.cache_resource(max_entries=32, show_spinner="Comparing…")
def compared(old: str, old_stamp: tuple, new: str, new_stamp: tuple) -> tuple[VersionDiff, list]:
    diff = diff_contents(content(old, old_stamp), content(new, new_stamp))
    return diff, diff.rows()


def versions(name: str) -> list[VersionInfo]:
    """The versions of ``name``, oldest first, each checked (cached) and witnessed by the
    database's record of its export (read fresh: it is one small query)."""
    recorded = store.versions.recorded(name)
    found = [
        witnessed(
            checked(
                name,
                number,
                str(path),
                stamp(path),
                version_trust(store, recorded.get(number), path),
            ),
            recorded.get(number),
        )
        for number, path in version_dirs(OUT, name)
    ]
    return sorted(found + missing_versions(store, OUT, name), key=lambda i: i.number)


def selection_form() -> tuple[str, Selection, str | None]:
    """The name and selection, and which button was pressed ("preview", "create" or None)."""
    tags = [tag for tag, _ in store.questions.all_tags()]
    known = names_under(OUT)
    with st.form("export_form"):
        name = st.text_input(
            "Test-set name",
            value=known[0] if known else "",
            key="export_name",
            placeholder="e.g. orders-faq",
            help="Letters, digits, '.', '_' and '-'. Each export of a name is its next version.",
        )
        left, right = st.columns(2)
        chosen_tags = left.multiselect(
            "Only questions tagged (any of)", tags, key="export_tags", placeholder="all questions"
        )
        min_reviewers = left.number_input(
            "Judged by at least this many reviewers", 1, 100, 1, key="export_min_reviewers"
        )
        include_pending = left.checkbox(
            "Include generated questions still awaiting review", key="export_include_pending"
        )
        min_grade = right.selectbox(
            "Relevant from grade (recorded for evaluators)", [1, 2], key="export_min_grade"
        )
        with right:
            policy = policy_select(store, "When reviewers disagree", "export_policy", stop=True)
        left, right, _ = st.columns([1, 1, 4])
        preview = left.form_submit_button("Preview", key="export_preview", width="stretch")
        create = right.form_submit_button(
            "Create version", type="primary", key="export_create", width="stretch"
        )
    selection = Selection(
        tags=tuple(chosen_tags),
        min_reviewers=int(min_reviewers),
        include_pending=include_pending,
        min_grade=int(min_grade),
        policy=policy,
    )
    action = "create" if create else "preview" if preview else None
    return name.strip(), selection, action


def show_summary(data: dict) -> None:
    counts = data["counts"]
    a, b, c, d = st.columns(4)
    a.metric("Questions", counts["questions"])
    b.metric("Unanswerable", counts["unanswerable"])
    c.metric("Qrels", counts["qrels"])
    d.metric("Reviewers", counts["reviewers"])
    per = counts["labels_per_grade"]
    st.caption(
        f"Grades 0 / 1 / 2: {per['0']} / {per['1']} / {per['2']} · chunks {counts['chunks']}"
        f" · adjudicated {counts['adjudicated']} · settled by policy"
        f" {counts['settled_by_policy']} · {data['content_hash']}"
    )
    if data.get("stale"):
        st.warning(
            f"{data['stale']} stale label(s) left out: their chunk's text changed since they"
            " were given, and no reviewer has confirmed them yet (see the grading page).",
            icon=":material/history:",
        )
    if data.get("partial"):
        st.warning(
            f"{len(data['partial'])} question(s) partially graded: their ungraded candidates"
            " count as not relevant in an evaluation (a minimum depth leaves them out:"
            " `labeler export NAME --require-depth K`).",
            icon=":material/rule:",
        )
        with st.container(key="export_partial"):
            st.dataframe(data["partial"], hide_index=True)
    if data.get("changes_rows") is not None:
        st.caption(describe_changes(data["changes"], data["parent"]).capitalize())
        if data["changes_rows"]:
            with st.container(key="export_changes"):
                st.dataframe(data["changes_rows"], hide_index=True)


def shown(kind: str, name: str, selection: Selection, plan, **more: object) -> dict:
    """What the page keeps of a preview or an export, to show until the selection changes."""
    return {
        "kind": kind,
        "name": name,
        "selection": selection.as_dict(),
        "parent": plan.parent,
        "counts": dict(plan.counts),
        "content_hash": plan.content_hash,
        "changes": None if plan.diff is None else plan.diff.summary(),
        "changes_rows": None if plan.diff is None else plan.diff.rows(),
        "stale": plan.stale_labels,
        "partial": partial_rows(plan.partial),
        "disagreements": [
            {
                "question": d.question_id,
                "chunk": d.chunk_id,
                "grades": ", ".join(
                    f"{r}: {'unanswerable' if how == 'unanswerable' else g}"
                    for r, g, how in d.grades
                ),
            }
            for d in plan.disagreements
        ],
        **more,
    }


def remember_plan(name: str, selection: Selection) -> None:
    plan = plan_export(store, name, out=OUT, selection=selection)
    st.session_state[LAST] = shown(
        "preview", name, selection, plan, version=plan.version, existing=plan.existing
    )


def create(name: str, selection: Selection) -> None:
    result = export_testset(store, name, out=OUT, selection=selection, actor=me)
    st.session_state[LAST] = shown(
        result.status,
        name,
        selection,
        result.plan,
        version=result.version,
        path=str(result.path),
        disagreements=[],
    )
    st.session_state["export_history_name"] = name


def show_last(name: str, selection: Selection) -> None:
    last = st.session_state.get(LAST)
    if not last:
        return
    if last["kind"] == "preview" and (
        last["name"] != name or last["selection"] != selection.as_dict()
    ):
        st.caption("The selection changed since the preview: preview again.")
        return
    if last["kind"] == "created":
        note(f"Created version v{last['version']} of {last['name']}.", kind="ok")
        st.text(last["path"])
    elif last["kind"] == "unchanged":
        note(f"Nothing written: v{last['version']} already holds this content.")
    elif last["disagreements"]:
        st.error(
            f"{len(last['disagreements'])} disagreement(s) between reviewers. Settle them on the"
            " Adjudicate page, or choose a policy above to settle them."
        )
        st.page_link(
            str(PAGES_DIR / "adjudicate.py"),
            label="Adjudicate the disagreements",
            icon=":material/gavel:",
        )
        with st.container(key="export_disagreements"):
            st.dataframe(last["disagreements"], hide_index=True)
        return
    elif last["existing"] is not None:
        note(f"Nothing to write: v{last['existing']} already holds this content.")
    else:
        note(f"Would create v{last['version']} of {last['name']}.")
    show_summary(last)


def when(created: object) -> str:
    """A manifest's UTC timestamp to the minute, as a person reads it ("2026-12-01 09:30 UTC")."""
    try:
        return datetime.fromisoformat(str(created)).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return str(created or "")


def history_row(info) -> dict:
    manifest = info.manifest or {}
    counts = manifest.get("counts") or {}
    parent = manifest.get("parent")
    return {
        "version": f"v{info.number}",
        "status": info.status(),
        "created": when(manifest.get("created")),
        "by": info.exported_by or "\N{EM DASH}",
        "parent": "\N{EM DASH}" if parent is None else f"v{parent}",
        "questions": counts.get("questions"),
        "unanswerable": counts.get("unanswerable"),
        "qrels": counts.get("qrels"),
        "policy": manifest.get("policy"),
        "content hash": manifest.get("content_hash"),
    }


@store_fragment
def history() -> None:
    st.subheader("History")
    names = names_under(OUT)
    if not names:
        st.caption(f"No test sets in `{OUT}` yet.")
        return
    name = st.selectbox("Test set", names, key="export_history_name")
    infos = versions(name)
    broken = [i for i in infos if not i.intact]
    if broken:
        st.error(
            "Changed after export (a version must never change; restore from version control): "
            + ", ".join(f"v{i.number}" for i in broken)
        )
    with st.container(key="export_history"):
        st.dataframe(
            [history_row(i) for i in reversed(infos)],
            hide_index=True,
        )
    numbers = [i.number for i in reversed(infos) if not i.missing]
    paths = {i.number: i.path for i in infos if not i.missing}
    compare(numbers, paths)
    download(name, numbers, paths)


@st.fragment
def compare(numbers: list[int], paths: dict[int, Path]) -> None:
    st.subheader("Compare two versions")
    if len(numbers) < 2:
        st.caption("Only one version so far.")
        return
    left, right = st.columns(2)
    old = left.selectbox("From", numbers, index=1, key="export_diff_old", format_func="v{}".format)
    new = right.selectbox("To", numbers, index=0, key="export_diff_new", format_func="v{}".format)
    with user_errors():
        diff, rows = compared(
            str(paths[old]), stamp(paths[old]), str(paths[new]), stamp(paths[new])
        )
        summary = diff.summary()
        a, b, c = st.columns(3)
        a.metric(
            "Questions added / removed",
            f"{summary['questions_added']} / {summary['questions_removed']}",
        )
        b.metric("Questions edited", summary["questions_edited"])
        c.metric(
            "Labels added / removed / regraded",
            f"{summary['labels_added']} / {summary['labels_removed']} /"
            f" {summary['labels_regraded']}",
        )
        if diff.empty:
            st.caption("No differences.")
        else:
            with st.container(key="export_diff"):
                st.dataframe(rows, hide_index=True)
        if diff.chunks_changed:
            st.caption("Chunks whose text, title or document changed:")
            st.text(", ".join(diff.chunks_changed))


@st.fragment
def download(name: str, numbers: list[int], paths: dict[int, Path]) -> None:
    st.subheader("Download")
    number = st.selectbox(
        "Version", numbers, key="export_download_version", format_func="v{}".format
    )
    path = paths[number]
    st.download_button(
        f"Download {name} v{number} (zip)",
        data=lambda: zip_version(path),
        file_name=f"{name}-v{number}.zip",
        mime="application/zip",
        key="export_download",
        on_click="ignore",
        icon=":material/download:",
    )


st.title("Export test sets")
st.caption(
    f"Versions are written to `{OUT}`; each is immutable, and the same content is never written"
    " twice. Disagreements a lead did not adjudicate are settled by the policy chosen below"
    ' (the project\'s to start with); "stop" lists them and writes nothing.'
)
name, selection, action = selection_form()
if action is not None:
    with user_errors():
        if not name:
            st.warning("Type a name for the test set.")
        elif action == "preview":
            remember_plan(name, selection)
        else:
            st.session_state.pop(LAST, None)
            try:
                create(name, selection)
            except DisagreementError:
                remember_plan(name, selection)  # shows every disagreement, not just the first
show_last(name, selection)
history()
