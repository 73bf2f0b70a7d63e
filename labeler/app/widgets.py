"""Rendering helpers shared by pages. Untrusted text (chunks, questions, rationales) only ever
goes through ``safe_text_html`` (escaped piece by piece, then marked) or ``st.text``: never
markdown."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

import streamlit as st

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
) -> str:
    """A <div> holding ``text`` escaped, with the words of ``terms`` (a question, or its words)
    marked where they occur as whole words, compared as the full-text search compares them
    (stemmed: "retry" marks "retrying", "per" does not mark "performance").

    Pass ``spans`` (from ``match_spans``) instead when they were worked out for many texts at
    once.
    """
    if spans is None:
        query = _query(terms)
        spans = match_spans([text], query)[0] if query.strip() else []
    return f'<div class="{css_class}">{marked_html(text, spans)}</div>'


def show_text(
    text: str,
    terms: Iterable[str] | str = (),
    *,
    css_class: str = "lbl-text",
    spans: Sequence[Span] | None = None,
) -> None:
    st.html(safe_text_html(text, terms, css_class=css_class, spans=spans))


STYLE = """
<style>
.lbl-text { white-space: pre-wrap; font-size: 0.98rem; line-height: 1.55; }
.lbl-question { white-space: pre-wrap; font-size: 1.35rem; font-weight: 600; line-height: 1.4; }
.lbl-context { white-space: pre-wrap; font-size: 0.9rem; color: #555; line-height: 1.5; }
.lbl-text mark, .lbl-question mark { background: #fff3b0; padding: 0 1px; border-radius: 2px; }
.lbl-tags span { display: inline-block; background: #eef2f7; border-radius: 10px;
                 padding: 1px 9px; margin-right: 4px; font-size: 0.8rem; color: #334; }
.lbl-keys kbd { border: 1px solid #bbb; border-bottom-width: 2px; border-radius: 4px;
                padding: 0 5px; font-size: 0.8rem; background: #fafafa; }
.lbl-keys { font-size: 0.85rem; color: #444; line-height: 2; }
.lbl-card-head { display: flex; justify-content: space-between; font-size: 0.85rem; color: #555; }
.lbl-diff del { background: #ffd7d5; text-decoration: line-through; color: #82071e; }
.lbl-diff ins { background: #ccffd8; text-decoration: none; color: #055d20; }
.lbl-note { border-radius: 6px; padding: 8px 12px; margin: 4px 0; font-size: 0.92rem;
            white-space: pre-wrap; }
.lbl-note-error { background: #fdecea; color: #7a1b12; border: 1px solid #f5c2bc; }
.lbl-note-warning { background: #fff6e0; color: #6b4a00; border: 1px solid #f3dca0; }
.lbl-note-info { background: #eaf3fc; color: #14426b; border: 1px solid #c4dcf3; }
.lbl-note-ok { background: #e9f7ee; color: #17532f; border: 1px solid #bfe5cc; }
.lbl-card-head { margin-bottom: 0.45rem; }
.lbl-caption { font-size: 0.875rem; color: rgba(49, 51, 63, 0.6); white-space: pre-wrap; }
/* The grading page's head (progress and toolbar, a fragment of its own) and the queue's status
   line stay in view. */
div[data-testid="stLayoutWrapper"]:has(> .st-key-label_top) {
    position: sticky; top: 3.75rem; z-index: 50; background: white;
    padding: 6px 0; border-bottom: 1px solid #eee; }
/* "decide A vs B": where the comparison stands, and the mark on a chunk that decides it. */
.lbl-decide-status { font-size: 0.88rem; color: #444; display: flex; flex-wrap: wrap;
                     column-gap: 0.8rem; align-items: baseline; }
.lbl-decide-status b { color: #364fc7; font-weight: 600; }
/* Indigo, apart from the question's words (yellow) and the cursor (orange). */
.lbl-decides { background: #edf2ff; color: #364fc7; border-radius: 8px; padding: 0 8px;
               margin-right: 8px; font-weight: 600; }
/* An opaque header band, so what scrolls up past the sticky head is hidden, not seen through. */
header[data-testid="stHeader"] { background: white; }
</style>
"""


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
