"""How a turn of a conversation is drawn: the conversation before it, the turn itself with its
rewrite beside it, and how its candidates were searched for (the grading page); the same
conversation, read only, above a generated turn on the review page and a judged turn on the
spot-check page.

The conversation is one element of escaped HTML (a ``<details>`` folds the earlier turns, so
folding it costs no rerun); the turn just before is always in view, since a follow-up is read
against it. Earlier turns the project holds as questions list the chunks graded 2 for them, and
those chunks are marked among the turn's own candidates (``card_mark``): a follow-up is often
answered by a passage an earlier turn found.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import streamlit as st

from labeler.app import cards
from labeler.app.state import get_store, safely
from labeler.app.widgets import caption, safe_text_html, show_text, tags_html
from labeler.conversations import SEARCH_CHOICES, search_choice, search_choices, search_text
from labeler.grading.turns import EarlierTurn, conversation_view, earlier_turns, set_search
from labeler.models import Message, Question

ROLE_NAMES = {"user": "User", "assistant": "Assistant", "tool": "Tool"}
# Earlier turns beyond this many are folded away until asked for (the last is always shown).
SHOWN_OPEN = 2
_ANSWERED = "label_convo_answered"


def _message_html(message: Message) -> str:
    role = html.escape(ROLE_NAMES.get(message.role, message.role))
    return (
        f'<div class="lbl-msg lbl-msg-{html.escape(message.role)}"><b>{role}</b>'
        f"{html.escape(message.text, quote=True)}</div>"
    )


def _turn_html(turn: EarlierTurn) -> str:
    parts = []
    if turn.text is not None:
        parts.append(_message_html(Message("user", turn.text)))
    if turn.answers:
        listed = "".join(
            f"<li>{html.escape(chunk.title or chunk.doc_id or 'Untitled')}"
            f" <code>{html.escape(chunk.id)}</code></li>"
            for chunk in turn.answers
        )
        parts.append(
            f'<div class="lbl-answered">graded 2 for turn {turn.number}:<ul>{listed}</ul></div>'
        )
    parts += [_message_html(m) for m in turn.replies]
    label = f"Turn {turn.number}" if turn.number else "Before the first turn"
    return f'<div class="lbl-earlier"><span>{html.escape(label)}</span>{"".join(parts)}</div>'


def history_html(turns: Sequence[EarlierTurn], *, fold_after: int = SHOWN_OPEN) -> str:
    """The earlier turns, oldest first; those before the last ``fold_after`` folded away
    (open when there are no more than that)."""
    if not turns:
        return ""
    folded, shown = turns[:-fold_after] if len(turns) > fold_after else [], turns[-fold_after:]
    body = ""
    if folded:
        inner = "".join(_turn_html(t) for t in folded)
        body += (
            f"<details><summary>{len(folded)} earlier turn{'s' if len(folded) != 1 else ''}"
            f" of the conversation</summary>{inner}</details>"
        )
    body += "".join(_turn_html(t) for t in shown)
    return f'<div class="lbl-convo">{body}</div>'


def turn_html(question: Question) -> str:
    """The turn, highlighted, with its standalone rewrite beside it when it has one."""
    turn = question.turn
    head = f"Turn {turn.number} of conversation {turn.conversation}"
    now = (
        f'<div class="lbl-turn-now"><span>{html.escape(head)}</span>'
        f'<div class="lbl-question">{html.escape(question.text, quote=True)}</div></div>'
    )
    if not turn.rewrite:
        return f'<div class="lbl-turn-row">{now}</div>'
    rewrite = (
        '<div class="lbl-rewrite"><span>Standalone rewrite</span>'
        f"<div>{html.escape(turn.rewrite, quote=True)}</div></div>"
    )
    return f'<div class="lbl-turn-row">{now}{rewrite}</div>'


def read_only_html(question: Question) -> str:
    """The conversation before a turn and the turn (the review and spot-check pages), as
    escaped HTML; the question alone for a question that stands alone."""
    if question.turn is None:
        return safe_text_html(question.text, css_class="lbl-question")
    return history_html(earlier_turns(question.turn)) + turn_html(question)


@safely
def _search_chosen(question_id: str, key: str) -> None:
    set_search(get_store(), question_id, st.session_state.get(key))


def search_line(question: Question) -> None:
    """How the turn's candidates were searched for, and the choice of another way."""
    choices = search_choices(question)
    key = f"label_search_with::{question.id}"
    st.session_state[key] = search_choice(question)
    st.segmented_control(
        "Full-text search of the candidates with",
        choices,
        key=key,
        format_func=lambda name: SEARCH_CHOICES[name].title,
        required=True,
        on_change=_search_chosen,
        args=(question.id, key),
        help="A follow-up says little on its own: the pool's full-text search asks what this"
        " choice gives. Choosing another searches again (grades already given stay).",
    )
    query = " / ".join(search_text(question).splitlines())
    caption(f"Searched: {query}")


def question_text(question: Question, chunking: str) -> None:
    """The grading page's question: for a turn, the conversation above it (earlier turns with
    the chunks graded 2 for them), the turn and its rewrite, and the search line; for a
    question that stands alone, ``cards.question_text``. Keeps, for ``card_mark``, which
    candidates were graded 2 for an earlier turn."""
    if question.turn is None:
        st.session_state[_ANSWERED] = (question.id, {})
        cards.question_text(question)
        return
    view = conversation_view(get_store(), question, chunking)
    st.session_state[_ANSWERED] = (question.id, view.answered)
    st.html(
        history_html(view.earlier)
        + turn_html(question)
        + (tags_html(question.tags) if question.tags else "")
    )
    if question.reference_answer:
        with st.expander("Reference answer", expanded=False):
            show_text(question.reference_answer, question.text)
    search_line(question)


def card_mark(question_id: str, chunk_id: str) -> str:
    """The mark on a candidate graded 2 for an earlier turn of the conversation (escaped)."""
    kept = st.session_state.get(_ANSWERED)
    if not kept or kept[0] != question_id or chunk_id not in kept[1]:
        return ""
    turns = ", ".join(str(n) for n in kept[1][chunk_id])
    tip = html.escape(f"graded 2 (answers it) for turn {turns} of this conversation", quote=True)
    return f'<span class="lbl-answered-mark" title="{tip}">2 for turn {html.escape(turns)}</span>'


__all__ = [
    "card_mark",
    "history_html",
    "question_text",
    "read_only_html",
    "search_line",
    "turn_html",
]
