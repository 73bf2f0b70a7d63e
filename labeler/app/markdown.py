"""Untrusted Markdown (chunks, judges' reasons) as inert HTML, with the question's words marked.

RAG corpora are mostly Markdown: reviewers read "## Staff in the showroom" and "**Test mode**"
faster rendered than raw (issue #23). But a chunk is text from anywhere, so what it can put on
the page is an allow-list, by construction:

- markdown-it-py (CommonMark, already installed with rich and Streamlit) parses with raw HTML
  off: ``<table>``, ``<script>``, ``<img onerror=...>`` in the text stay text;
- this module walks the token stream and writes only the tags of ``ALLOWED`` (headings,
  paragraphs, lists, quotes, emphasis, strikethrough, code, tables, rules, line breaks), each
  without any attribute but a list's start number (an integer); every piece of text is escaped;
- links keep their text and lose their target, images become their alt text: nothing fetches
  or navigates. No style, class or id comes from the text.

Why not render with markdown-it and clean the HTML after (nh3, bleach)? The walk writes nothing
it did not choose, so there is nothing to clean; it needs no second parser or native wheel; and
it can carry the highlight through. Measured on the demo's 336 chunks (352 characters on
average, machine at load 12): 0.60 ms a chunk for this walk, 0.46 ms for markdown-it's own
renderer, 1.14 ms for that renderer followed by nh3's clean (an allow-list of the same tags).

Highlighting: the spans of the question's words are worked out on the raw text (as the search
sees it). Two private-use characters are put round each span before parsing; Markdown treats
them as letters, so they ride inside the text tokens, and the walk turns them into <mark> and
</mark>, closing and reopening a mark at every tag it meets so the HTML always nests. A span
whose marks would change the structure (the digits of "1." opening a list item, an entity's
name) is not marked, and a span that starts or ends inside a line's block syntax (a bullet, a
heading's "#", a quote's ">") is moved to the line's text: a passage covering a whole list
stays a list.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

Span = tuple[int, int]

# Tags the rendered text may hold, and nothing else (tests/test_app_markdown.py checks every
# tag of hostile input against it).
ALLOWED = frozenset(
    (
        "p h1 h2 h3 h4 h5 h6 ul ol li blockquote em strong s code pre hr br"
        " table thead tbody tr th td mark"
    ).split()
)

_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_PARSER.enable(["table", "strikethrough"])

OPEN, CLOSE = "\ue000", "\ue001"  # the span markers; removed from the text first
_MARKERS = re.compile(f"[{OPEN}{CLOSE}]")
_PAIRED = {  # token types whose tag is written as is (attributes dropped)
    "paragraph",
    "heading",
    "bullet_list",
    "ordered_list",
    "list_item",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "em",
    "strong",
    "s",
}
_LIST_START = re.compile(r"^[ \t]{0,3}$")


# A line's block syntax: indentation, quote marks, list bullets and numbers, heading marks, a
# table's leading pipe. A mark that opened inside it would turn the line into plain text.
_PREFIX = re.compile(r"[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)]|#{1,6})[ \t]+)*\|?[ \t]*")


def _after_prefix(text: str, position: int) -> int:
    """``position`` moved past its line's block syntax when it falls inside it."""
    line_start = text.rfind("\n", 0, position) + 1
    end = _PREFIX.match(text, line_start).end()
    return end if line_start <= position < end else position


def _before_prefix(text: str, position: int) -> int:
    """``position`` (a span's end) moved back before its line's block syntax, to the end of
    the line before, when it falls inside it."""
    line_start = text.rfind("\n", 0, position) + 1
    end = _PREFIX.match(text, line_start).end()
    return max(line_start - 1, 0) if line_start < position <= end else position


def _structural(text: str, start: int, end: int) -> bool:
    """Would marks round ``text[start:end]`` change how it parses? The digits that open an
    ordered list item ("12." at a line's start) and the name of a character reference ("&amp;")."""
    if text[start:end].isdigit() and end < len(text) and text[end] in ".)":
        line_start = text.rfind("\n", 0, start) + 1
        if _LIST_START.match(text[line_start:start]):
            return True
    return start > 0 and text[start - 1] in "&#" and text[end : end + 1] == ";"


def with_markers(text: str, spans: Sequence[Span]) -> str:
    """``text`` (without marker characters) with OPEN and CLOSE round each span."""
    text = _MARKERS.sub("", text) if _MARKERS.search(text) else text
    pieces, at = [], 0
    for first, last in spans:
        start, end = _after_prefix(text, first), _before_prefix(text, last)
        if start < at or end <= start or _structural(text, start, end):
            continue
        pieces += [text[at:start], OPEN, text[start:end], CLOSE]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


class _Writer:
    """Writes the allowed HTML of a token stream, carrying an open <mark> across tags."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.marking = False

    def text(self, value: str) -> None:
        """Escaped text; the markers in it become <mark> and </mark>."""
        if OPEN not in value and CLOSE not in value:
            if value:
                self.out.append(
                    f"<mark>{html.escape(value)}</mark>" if self.marking else html.escape(value)
                )
            return
        for piece in re.split(f"([{OPEN}{CLOSE}])", value):
            if piece == OPEN:
                self.marking = True
            elif piece == CLOSE:
                self.marking = False
            elif piece:
                self.out.append(
                    f"<mark>{html.escape(piece)}</mark>" if self.marking else html.escape(piece)
                )

    def tag(self, token: Token) -> None:
        name = token.tag
        if name not in ALLOWED or token.hidden:  # a tight list's paragraphs draw nothing
            return
        if token.nesting == -1:
            self.out.append(f"</{name}>")
            return
        start = token.attrGet("start") if token.type == "ordered_list_open" else None
        shown = f' start="{int(start)}"' if isinstance(start, int | str) and start else ""
        self.out.append(f"<{name}{shown}>" if token.nesting == 1 else f"<{name}>")

    def inline(self, children: Sequence[Token]) -> None:
        for child in children:
            kind = child.type
            if kind == "text":
                self.text(child.content)
            elif kind == "code_inline":
                self.out.append("<code>")
                self.text(child.content)
                self.out.append("</code>")
            elif kind == "softbreak":
                self.out.append("\n")
            elif kind == "hardbreak":
                self.out.append("<br>")
            elif kind == "image":  # its alt text, never the picture
                self.text(child.content)
            elif kind.removesuffix("_open").removesuffix("_close") in _PAIRED:
                self.tag(child)
            elif kind not in ("link_open", "link_close"):  # a link keeps its text only
                self.text(child.content)

    def block(self, tokens: Sequence[Token]) -> None:
        for token in tokens:
            kind = token.type
            if kind == "inline":
                self.inline(token.children or ())
            elif kind in ("fence", "code_block"):
                self.out.append("<pre><code>")
                self.text(token.content)
                self.out.append("</code></pre>")
            elif kind == "hr":
                self.out.append("<hr>")
            elif kind.removesuffix("_open").removesuffix("_close") in _PAIRED:
                self.tag(token)
            else:  # html_block cannot occur with html off; anything new shows as text
                self.text(token.content)


def markdown_html(text: str, spans: Sequence[Span] = ()) -> str:
    """``text`` rendered from Markdown to the tags of ``ALLOWED`` only, every text escaped, the
    character ``spans`` of the raw text (the question's words) wrapped in <mark>.

    Kept per (text, spans): the grading page redraws its thirty cards on every key, and a
    render costs about 0.5 ms a chunk (markdown-it's parse), a lookup nothing."""
    return _rendered(text, tuple(sorted((int(a), int(b)) for a, b in spans)))


@functools.lru_cache(maxsize=8192)
def _rendered(text: str, spans: tuple[Span, ...]) -> str:
    writer = _Writer()
    writer.block(_PARSER.parse(with_markers(text, spans)))
    return "".join(writer.out).replace("<mark></mark>", "")


_TAG = re.compile(r"<[^>]+>")
_BLOCK_END = re.compile(r"</(?:p|h[1-6]|li|tr|pre)>")


def markdown_text(text: str) -> str:
    """``text`` read as Markdown and given back as plain text (for a table cell, which cannot
    draw it): "**Relevant (2).** It says so." becomes "Relevant (2). It says so."."""
    rendered = _BLOCK_END.sub(" ", markdown_html(text))
    return " ".join(html.unescape(_TAG.sub("", rendered)).split())


__all__ = ["ALLOWED", "markdown_html", "markdown_text", "with_markers"]
