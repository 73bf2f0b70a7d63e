"""Rendering helpers shared by pages. Untrusted text (chunks, questions, rationales) only ever
goes through ``safe_text_html`` (escaped, then highlighted) or ``st.text``: never markdown."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

import streamlit as st


def safe_text_html(text: str, terms: Iterable[str] = (), *, css_class: str = "lbl-text") -> str:
    """Escape ``text`` completely, then wrap whole-word matches of ``terms`` in <mark>.

    Highlighting runs on the escaped text with escaped terms, so it cannot create markup; the
    words are matched case-insensitively at word boundaries (prefixes too, so "retry" marks
    "retrying").
    """
    escaped = html.escape(text, quote=True)
    words = sorted({html.escape(t, quote=True) for t in terms if len(t) > 1}, key=len, reverse=True)
    if words:
        pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")", re.IGNORECASE)
        escaped = pattern.sub(r"<mark>\1</mark>", escaped)
    return f'<div class="{css_class}">{escaped}</div>'


def show_text(text: str, terms: Iterable[str] = (), *, css_class: str = "lbl-text") -> None:
    st.html(safe_text_html(text, terms, css_class=css_class))


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
div[data-testid="stLayoutWrapper"]:has(> .st-key-label_toolbar) {
    position: sticky; top: 3.75rem; z-index: 50; background: white;
    padding: 6px 0; border-bottom: 1px solid #eee; }
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
