"""Spot-check the judge, blind: one item of a sample plan at a time; the reviewer's verdict by
key first, then the judge's verdict and rationale, then the next item.

Keys (native button shortcuts): the scale's digits give a verdict (2/1/0 for relevance, 1 pass
and 0 fail for a pass/fail metric), N the next item to review, P the one before. Judge
rationales are untrusted text (DeepEval's hold Markdown): rendered to inert HTML by the widgets
(``labeler.app.markdown``: no link, image, raw HTML or style reaches the page).
"""

from __future__ import annotations

import streamlit as st

from labeler.app import widgets
from labeler.app.conversation import read_only_html
from labeler.app.state import Trail, flash, get_store, reviewer, safely, user_errors
from labeler.app.widgets import Key, caption, keys_legend, question_keys, safe_text_html, show_text
from labeler.judge import review
from labeler.judge.scales import RELEVANCE, Scale
from labeler.models import GRADE_LABELS, Grade, Question

store = get_store()
me = reviewer()
chunking = store.corpus.current_chunking()
trail = Trail("judge", param="item")


def verdict_name(scale: Scale, code: int, metric: str) -> str:
    if metric == RELEVANCE:
        return GRADE_LABELS[Grade(code)]
    if scale.kind == "ordinal":
        return str(scale.low + code)
    return "pass" if code else "fail"


SHORT_GRADES = {2: "answers it", 1: "partly", 0: "not relevant"}


def choices(scale: Scale, metric: str) -> list[tuple[int, str, str | None]]:
    """(code, button label, shortcut) for each verdict, best first."""
    found = []
    for code in reversed(range(scale.categories)):
        if scale.kind == "ordinal":
            value = scale.low + code
            key = str(value) if 0 <= value <= 9 else None
            label = SHORT_GRADES[code] if metric == RELEVANCE else str(value)
        else:
            key, label = str(code), ("pass" if code else "fail")
        found.append((code, label, key))
    return found


# state and callbacks --------------------------------------------------------------------------


def current_plan() -> str | None:
    plans = [p["name"] for p in store.plans.all()]
    wanted = st.query_params.get("plan")
    if wanted in plans:
        st.session_state["judge_plan"] = wanted
    if st.session_state.get("judge_plan") not in plans:
        st.session_state["judge_plan"] = plans[0] if plans else None
    return st.session_state["judge_plan"]


def on_plan_change() -> None:
    st.query_params["plan"] = st.session_state["judge_plan"]
    st.query_params.pop("item", None)
    st.session_state["judge_unlocked"] = None


def go(key: str | None, *, remember: bool = True) -> None:
    if trail.go(key, remember=remember):
        st.session_state["judge_unlocked"] = None


@safely
def give(item: review.ReviewItem, code: int) -> None:
    review.give_verdict(
        store,
        item.plan,
        item.key,
        me,
        code,
        metric=item.metric,
        chunking=chunking,
        judge=item.judge.rater if item.judge else None,
    )
    st.session_state["judge_unlocked"] = None


@safely
def save_note(item: review.ReviewItem) -> None:
    note = st.session_state.get("judge_note", "")
    review.save_note(store, item.plan, item.key, me, note, metric=item.metric, chunking=chunking)
    flash("Note saved.")


def go_next(plan: str) -> None:
    current = st.query_params.get("item")
    go(review.next_item(store, plan, me, after=current, chunking=chunking))


def go_previous(plan: str) -> None:
    if trail.back():
        st.session_state["judge_unlocked"] = None
        return
    keys = review.plan_keys(store, plan)
    if trail.current in keys:
        go(keys[keys.index(trail.current) - 1], remember=False)


def unlock(key: str) -> None:
    st.session_state["judge_unlocked"] = key


# page -----------------------------------------------------------------------------------------


def legend(scale: Scale | None, metric: str | None) -> list[str]:
    """The legend's line for the verdict keys (none before a metric is chosen)."""
    if scale is None:
        return []
    keys = " ".join(f"`{k}`" for _, _, k in choices(scale, metric or "") if k)
    meaning = (
        "your grade"
        if metric == RELEVANCE
        else ("pass / fail" if scale.kind != "ordinal" else "your verdict")
    )
    return [f"{keys} {meaning}"]


def sidebar(
    progress: review.Progress | None, scale: Scale | None = None, metric: str | None = None
) -> None:
    with st.sidebar:
        plans = [p["name"] for p in store.plans.all()]
        if plans:
            st.selectbox("Sample plan", plans, key="judge_plan", on_change=on_plan_change)
        if progress is not None:
            st.progress(
                progress.done / max(progress.total, 1),
                text=f"You: {progress.done} of {progress.total} reviewed",
            )
        keys_legend(
            *legend(scale, metric),
            "`N` next item to review · `P` previous",
            "The judge's verdict shows once you have given yours.",
        )


def metric_box(item: review.ReviewItem) -> None:
    with st.container(border=True):
        st.html(
            safe_text_html(f"{item.metric} · {item.scale.describe()}", css_class="lbl-card-head")
        )
        if item.definition:
            show_text(item.definition)
        else:
            st.caption(
                "No definition written for this metric yet (labeler judge define NAME"
                " --definition ...)."
            )


def show_item(item: review.ReviewItem) -> None:
    if item.plan is None:
        caption(f"One item of {item.metric}, opened from the judge report")
    else:
        caption(f"Item {item.position} of {item.total} · {item.plan}")
    if item.question:  # a turn of a conversation with the conversation before it
        question = Question(id=item.question_id or "", text=item.question, turn=item.turn)
        st.html(read_only_html(question))
    if item.chunk_text is not None:
        with st.container(border=True, key="judge_chunk"):
            head = f"{item.chunk_title or ''}  ·  {item.chunk_id}".strip(" ·")
            st.html(safe_text_html(head, css_class="lbl-card-head"))
            show_text(item.chunk_text, markdown=True)
    if item.answer is not None:
        st.markdown("**Answer**")
        with st.container(border=True, key="judge_answer"):
            show_text(item.answer, markdown=True)
    if item.contexts:
        st.markdown(f"**Contexts the answer was given** ({len(item.contexts)})")
        for number, context in enumerate(item.contexts, start=1):
            with st.container(border=True):
                st.html(safe_text_html(f"{number}.", css_class="lbl-card-head"))
                show_text(context, css_class="lbl-context", markdown=True)


def verdict_buttons(item: review.ReviewItem) -> None:
    locked = item.revealed and st.session_state.get("judge_unlocked") != item.key
    mine = item.mine.code if item.mine is not None else None
    verdicts = [
        Key(
            key,
            label,
            give,
            (item, code),
            kind="primary" if code == mine else "secondary",
            disabled=locked,
            name=str(code),
        )
        for code, label, key in choices(item.scale, item.metric)
    ]
    widgets.toolbar("judge", verdicts)
    with st.container(horizontal=True, vertical_alignment="center", key="judge_navigation"):
        if item.plan is None:
            st.page_link(
                "app_pages/judge_report.py",
                label="Back to the judge report",
                icon=":material/arrow_back:",
                query_params={"metric": item.metric},
            )
        else:
            for key in question_keys(
                go_previous,
                go_next,
                args=(item.plan,),
                next_help="The next item you have not reviewed",
                next_kind="primary" if item.revealed else "secondary",
            ):
                widgets.key_button("judge", key)
        if locked:
            st.button(
                "Change my verdict",
                key="judge_unlock",
                type="tertiary",
                on_click=unlock,
                args=(item.key,),
                help="You have seen the judge's verdict; a change is kept in the history",
            )


def reveal(item: review.ReviewItem) -> None:
    if not item.revealed:
        st.caption("The judge's verdict and reasoning appear once you have given yours.")
        return
    mine = verdict_name(item.scale, item.mine.code, item.metric)
    with st.container(border=True, key="judge_reveal"):
        if item.judge is None:
            st.info(f"You: {mine}. The plan's judge has no verdict on this item.")
        else:
            theirs = verdict_name(item.scale, item.judge.code, item.metric)
            score = f" (score {item.judge.value:g})" if item.scale.kind == "score" else ""
            line = f"You: {mine} · judge {item.judge.rater}: {theirs}{score}"
            if item.judge.code == item.mine.code:
                st.html(safe_text_html("✓ Same verdict. " + line, css_class="lbl-agree"))
            else:
                st.html(safe_text_html("✗ Different verdict. " + line, css_class="lbl-disagree"))
            st.caption("The judge's reasoning:")
            show_text(item.judge.rationale or "(no rationale given)", markdown=True)
        people = [o for o in item.others if o.kind == "human"]
        if people:
            caption(
                "Other reviewers: "
                + ", ".join(
                    f"{o.rater} {verdict_name(item.scale, o.code, item.metric)}" for o in people
                )
            )
        st.session_state.setdefault("judge_note", item.mine.rationale or "")
        st.text_area("Why your verdict? (optional)", key="judge_note", height=70)
        st.button("Save note", key="judge_note_save", on_click=save_note, args=(item,))


def render_single(metric: str, key: str) -> None:
    """One item opened from the judge report, outside any sample plan: still blind."""
    with user_errors():
        item = review.open_item(
            store,
            None,
            key,
            me,
            metric=metric,
            judge=st.query_params.get("judge"),
            chunking=chunking,
        )
        left, right = st.columns([5, 4], gap="large")
        with left:
            show_item(item)
        with right, st.container(key="judge_panel"):
            metric_box(item)
            verdict_buttons(item)
            reveal(item)
        sidebar(None, item.scale, item.metric)


def render() -> None:
    single = st.query_params.get("metric")
    if single and st.query_params.get("item") and not st.query_params.get("plan"):
        render_single(single, st.query_params["item"])
        return
    plan = current_plan()
    if plan is None:
        sidebar(None)
        st.title("Spot-check the judge")
        st.write(
            "No sample plan yet. Import a judge's verdicts (`labeler judge import FILE`), then"
            " draw a sample to review: `labeler judge sample --metric NAME --per-stratum 30`."
        )
        return
    progress = review.progress(store, plan, me, chunking=chunking)
    keys = review.plan_keys(store, plan)
    key = st.query_params.get("item")
    if key not in keys:
        key = review.next_item(store, plan, me, chunking=chunking) or (keys[0] if keys else None)
        if key is None:
            st.info("This plan has no items.")
            return
        st.query_params["item"] = key
    if st.session_state.get("judge_item") != key:
        st.session_state.pop("judge_note", None)
    st.session_state["judge_item"] = key
    if progress.done == progress.total:
        st.success(
            f"You have reviewed all {progress.total} items of this plan. The judge report"
            " (Evaluate section) now counts your verdicts."
        )
    with user_errors():
        item = review.open_item(store, plan, key, me, chunking=chunking)
        left, right = st.columns([5, 4], gap="large")
        with left:
            show_item(item)
        with right, st.container(key="judge_panel"):
            metric_box(item)
            verdict_buttons(item)
            reveal(item)
        sidebar(progress, item.scale, item.metric)


render()
