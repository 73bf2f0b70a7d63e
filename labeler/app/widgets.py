"""Rendering helpers shared by pages: safe text, messages, and the keyboard toolbar.

Untrusted text (chunks, questions, rationales) only ever goes through ``safe_text_html``
(escaped piece by piece, then marked; chunks and judges' reasons rendered from Markdown to an
allow-list of inert tags by ``labeler.app.markdown``) or ``st.text``: never ``st.markdown``.
The keyboard pages (grading, review, remap queue, spot-check, adjudication) draw their keys
with ``toolbar`` and list them with ``keys_legend``; the style of everything lives in
``style.css``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import streamlit as st

from labeler.app.markdown import markdown_html
from labeler.grading.consensus import POLICIES
from labeler.grading.policy import STOP, describe_policy, project_policy, resolve_policy
from labeler.store import Span, match_spans


def _query(terms: Iterable[str] | str) -> str:
    return terms if isinstance(terms, str) else " ".join(terms)


def marked_html(text: str, spans: Sequence[Span]) -> str:
    """``text`` escaped, with each span wrapped in <mark>.

    The raw text is cut at the spans first and every piece is escaped on its own, so a mark can
    never split an entity or match inside one: "Tom & Jerry > GT" with "GT" marked becomes
    ``Tom &amp; Jerry &gt; <mark>GT</mark>``.
    """
    pieces = []
    position = 0
    for start, end in spans:
        pieces.append(html.escape(text[position:start], quote=True))
        pieces.append("<mark>" + html.escape(text[start:end], quote=True) + "</mark>")
        position = end
    pieces.append(html.escape(text[position:], quote=True))
    return "".join(pieces)


def safe_text_html(
    text: str,
    terms: Iterable[str] | str = (),
    *,
    css_class: str = "lbl-text",
    spans: Sequence[Span] | None = None,
    markdown: bool = False,
) -> str:
    """A <div> holding ``text`` escaped, with the words of ``terms`` (a question, or its words)
    marked where they occur as whole words, compared as the full-text search compares them
    (stemmed: "retry" marks "retrying", "per" does not mark "performance").

    Pass ``spans`` (from ``match_spans``) instead when they were worked out for many texts at
    once. With ``markdown`` (chunks, judges' reasons) the text is rendered from Markdown to an
    allow-list of inert tags (``labeler.app.markdown``: no link, image, raw HTML or style from
    the text), the marks carried through the rendering.
    """
    if spans is None:
        query = _query(terms)
        spans = match_spans([text], query)[0] if query.strip() else []
    if markdown:
        return f'<div class="{css_class} lbl-md">{markdown_html(text, spans)}</div>'
    return f'<div class="{css_class}">{marked_html(text, spans)}</div>'


def show_text(
    text: str,
    terms: Iterable[str] | str = (),
    *,
    css_class: str = "lbl-text",
    spans: Sequence[Span] | None = None,
    markdown: bool = False,
) -> None:
    st.html(safe_text_html(text, terms, css_class=css_class, spans=spans, markdown=markdown))


# The app's one style sheet (pages hold no CSS of their own), read once.
STYLE = "<style>" + (Path(__file__).with_name("style.css")).read_text(encoding="utf-8") + "</style>"


def inject_style() -> None:
    st.html(STYLE)


def tags_html(tags: Iterable[str]) -> str:
    return (
        '<div class="lbl-tags">'
        + "".join(f"<span>{html.escape(t)}</span>" for t in tags)
        + "</div>"
    )


def diff_html(pieces: Iterable[tuple[str, bool]], *, changed: str) -> str:
    """Text cut into (stretch, shared) pieces, escaped; the stretches not shared wrapped in a
    ``<span class="{changed}">`` so the reader sees what differs (the remap queue)."""
    body = "".join(
        html.escape(text, quote=True)
        if same
        else f'<span class="{changed}">{html.escape(text, quote=True)}</span>'
        for text, same in pieces
    )
    return f'<div class="lbl-text">{body}</div>'


def spans_html(text: str, spans: Iterable[tuple[int, int]], *, css_class: str = "lbl-text") -> str:
    """``text`` escaped, with the character ``spans`` (start, end) wrapped in <mark>: the part
    of a chunk that a question's context covers. Escaping is done piece by piece, so a span
    boundary can never split an entity or create markup."""
    out, at = [], 0
    for start, end in sorted(spans):
        start, end = max(start, at), min(end, len(text))
        if start >= end:
            continue
        out.append(html.escape(text[at:start], quote=True))
        out.append("<mark>" + html.escape(text[start:end], quote=True) + "</mark>")
        at = end
    out.append(html.escape(text[at:], quote=True))
    return f'<div class="{css_class}">{"".join(out)}</div>'


def word_diff_html(segments: Iterable[tuple[str, str]], *, css_class: str = "lbl-text") -> str:
    """A word diff, ("=" | "-" | "+", text) segments, as escaped HTML with <del> and <ins>."""
    tags = {"-": "del", "+": "ins"}
    parts = [
        f"<{tags[op]}>{html.escape(text, quote=True)}</{tags[op]}>"
        if op in tags
        else html.escape(text, quote=True)
        for op, text in segments
    ]
    return f'<div class="{css_class} lbl-diff">{"".join(parts)}</div>'


def note_html(text: str, *, kind: str = "info") -> str:
    """A message box for text that may hold untrusted parts (ids, names): escaped, unlike
    st.error and st.info, which read Markdown."""
    return f'<div class="lbl-note lbl-note-{kind}">{html.escape(text, quote=True)}</div>'


def note(text: str, *, kind: str = "info") -> None:
    """``st.error``/``st.info``/``st.success`` for text holding untrusted parts (ids, names,
    file names, error messages quoting a file): escaped, never read as Markdown, so an id like
    ``![x](http://host/p.png)`` shows as typed and fetches nothing."""
    st.html(note_html(text, kind=kind))


def caption(text: str) -> None:
    """``st.caption`` for text holding untrusted parts: escaped, never read as Markdown."""
    st.html(f'<div class="lbl-caption">{html.escape(text, quote=True)}</div>')


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$])")


def markdown_escaped(text: str) -> str:
    """``text`` with every Markdown punctuation mark backslash-escaped, for the few places that
    only take Markdown (``st.toast``): links, images, emphasis and math all show as typed."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


# the project's disagreement policy ----------------------------------------------------------


def policy_select(store, label: str, key: str, *, stop: bool = False) -> str | None:
    """A choice of how reviewers' disagreements are settled, starting on the project's policy
    (``labeler.grading.policy``), named short so the box never cuts it; the chosen one's
    meaning is the caption below. ``stop`` adds the export's "list them and stop" (None)."""
    ours = project_policy(store)
    choices = [*POLICIES, STOP] if stop else list(POLICIES)
    chosen = st.selectbox(
        label,
        choices,
        index=choices.index(ours),
        key=key,
        format_func=lambda p: f"{p} (the project's)" if p == ours else p,
        help="Reviewers' different grades of one chunk, when no lead adjudicated it: "
        + "; ".join(f"{p}: {POLICIES[p].summary}" for p in POLICIES)
        + ". The project's policy is set with `labeler policy NAME`.",
    )
    policy = resolve_policy(store, chosen)
    caption(describe_policy(policy).capitalize())
    return policy


# the keyboard pages --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Key:
    """One key of a keyboard page: a button that shows what it does and answers its
    ``shortcut`` (Streamlit's native shortcut, inactive while typing in a box).

    Its widget is ``<page>_key_<name>``; the name defaults to the shortcut (``Shift+A`` is
    ``shift_a``), so tests and benchmarks find every page's keys the same way. ``kind``
    ``primary`` fills the button (the current grade, the action a key press usually means).
    """

    shortcut: str
    label: str
    on_click: Callable[..., Any]
    args: tuple = ()
    help: str | None = None
    icon: str | None = None
    icon_right: bool = False
    kind: Literal["primary", "secondary", "tertiary"] = "secondary"
    disabled: bool = False
    name: str | None = None

    @property
    def widget_name(self) -> str:
        return self.name or self.shortcut.lower().replace("+", "_")


def toolbar(page: str, keys: Iterable[Key]) -> None:
    """The page's keys as one row of buttons (``<page>_toolbar``)."""
    with st.container(horizontal=True, vertical_alignment="center", key=f"{page}_toolbar"):
        for key in keys:
            key_button(page, key)


def key_button(page: str, key: Key) -> None:
    """One key's button (``<page>_key_<name>``), where the page puts it."""
    st.button(
        key.label,
        key=f"{page}_key_{key.widget_name}",
        shortcut=key.shortcut,
        on_click=key.on_click,
        args=key.args,
        help=key.help,
        icon=key.icon,
        icon_position="right" if key.icon_right else "left",
        type=key.kind,
        disabled=key.disabled,
    )


def chunk_keys(on_move: Callable[[int], Any]) -> list[Key]:
    """K and J: the previous and the next chunk, ``on_move(-1)`` and ``on_move(1)``."""
    return [
        Key("k", "", on_move, (-1,), "Previous chunk", ":material/arrow_upward:", kind="tertiary"),
        Key("j", "", on_move, (1,), "Next chunk", ":material/arrow_downward:", kind="tertiary"),
    ]


def question_keys(
    on_previous: Callable[..., Any],
    on_next: Callable[..., Any],
    *,
    args: tuple = (),
    previous_help: str | None = None,
    next_help: str | None = None,
    next_kind: Literal["primary", "secondary", "tertiary"] = "secondary",
) -> list[Key]:
    """P and N: the previous and the next question (or proposal, or item)."""
    return [
        Key("p", "Previous", on_previous, args, previous_help, ":material/chevron_left:"),
        Key(
            "n",
            "Next",
            on_next,
            args,
            next_help,
            ":material/chevron_right:",
            icon_right=True,
            kind=next_kind,
        ),
    ]


_KEY_MARK = re.compile(r"`([^`]+)`")


def keys_legend(*lines: str) -> None:
    """The sidebar's list of a page's keys, one line per sentence, a key written in backticks
    (``"`N`/`P` next / previous question"``): escaped, the keys drawn as keys."""
    body = "<br>".join(
        _KEY_MARK.sub(r"<kbd>\1</kbd>", html.escape(line, quote=True)) for line in lines
    )
    st.html(f'<div class="lbl-keys"><b>Keys</b><br>{body}</div>')


def ring_card(key: str, *, scroll_nonce: int | None = None) -> None:
    """The cursor of a keyboard page: a ring round the card whose container key is ``key``, a
    ▶ before its title, a marker naming it (``.lbl-cursor``, for tests and benchmarks) and,
    with ``scroll_nonce`` (new for each move), a script that scrolls it into view, since
    Streamlit has no call for it. Trusted code only: it holds a widget key, never card text."""
    html_ = (
        f"<style>.st-key-{key} {{ border: 2px solid #e8590c !important;"
        " box-shadow: 0 0 0 3px #ffe8cc; }"
        f" .st-key-{key} .lbl-card-head b::before {{ content: '\\25B6  '; }}</style>"
        f"<span class='lbl-cursor' data-card='{key}'></span>"
    )
    if scroll_nonce is None:
        st.html(html_)
        return
    selector = json.dumps(f".st-key-{key}")
    st.html(
        html_ + f"<script data-nonce='{scroll_nonce}'>setTimeout(() => document.querySelector("
        f"{selector})?.scrollIntoView({{block: 'center', behavior: 'smooth'}}), 50);</script>",
        unsafe_allow_javascript=True,
    )
