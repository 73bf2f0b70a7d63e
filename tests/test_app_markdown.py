"""labeler.app.markdown: untrusted Markdown rendered to an allow-list of inert tags, with the
question's words marked through the rendering."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from labeler.app.markdown import ALLOWED, markdown_html, markdown_text, with_markers


class Tags(HTMLParser):
    """Every tag and attribute the rendered HTML holds."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def tags(rendered: str) -> list[tuple[str, list]]:
    parser = Tags()
    parser.feed(rendered)
    return parser.tags


def spans_of(text: str, *words: str) -> list[tuple[int, int]]:
    found = [(m.start(), m.end()) for w in words for m in re.finditer(rf"\b{w}\b", text)]
    return sorted(found)


def test_headings_lists_emphasis_code_and_tables_render() -> None:
    text = (
        "## Staff in the showroom\n\n**Test mode** is *on*.\n\n- one\n  - nested\n- two\n\n"
        "```\ncurl -X POST\n```\n\n| a | b |\n|---|---|\n| 1 | `x` |\n"
    )
    assert markdown_html(text) == (
        "<h2>Staff in the showroom</h2><p><strong>Test mode</strong> is <em>on</em>.</p>"
        "<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>"
        "<pre><code>curl -X POST\n</code></pre>"
        "<table><thead><tr><th>a</th><th>b</th></tr></thead>"
        "<tbody><tr><td>1</td><td><code>x</code></td></tr></tbody></table>"
    )


HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<table><tr><td onclick="alert(1)">cell</td></tr></table>',
    "<style>body{display:none}</style>",
    "[click](javascript:alert(1)) and <http://host/x> and [ref][1]\n\n[1]: http://host/y",
    '![pixel](http://host/p.png "t")',
    "| a |\n|---|\n| <iframe src=http://host> |",
    "- a\n  - <b onmouseover=x>b</b>\n    1. ![i](http://h/i.png)",
    '<a href="http://host">x</a>',
    "&lt;script&gt; &#60;img&#62;",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_stays_inert(text: str) -> None:
    rendered = markdown_html(text, spans_of(text, "alert", "host", "cell"))
    for tag, attrs in tags(rendered):
        assert tag in ALLOWED, rendered
        assert attrs == [] or (tag == "ol" and [a for a, _ in attrs] == ["start"]), rendered


def test_links_keep_their_text_and_images_their_alt_text() -> None:
    assert markdown_html("See [the docs](http://h/d) and ![a chart](http://h/c.png).") == (
        "<p>See the docs and a chart.</p>"
    )


def test_raw_html_shows_as_typed() -> None:
    assert markdown_html("<table><tr><td>x</td></tr></table>") == (
        "<p>&lt;table&gt;&lt;tr&gt;&lt;td&gt;x&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</p>"
    )


def test_marks_follow_the_words_through_the_rendering() -> None:
    text = "## Retry policy\n\n- **retry** after `retry-after`\n\n| when | retry |\n|---|---|\n"
    rendered = markdown_html(text, spans_of(text, "retry", "Retry"))
    assert rendered == (
        "<h2><mark>Retry</mark> policy</h2>"
        "<ul><li><strong><mark>retry</mark></strong> after <code><mark>retry</mark>-after</code>"
        "</li></ul><table><thead><tr><th>when</th><th><mark>retry</mark></th></tr></thead>"
        "</table>"
    )


def test_a_mark_across_an_emphasis_closes_and_reopens() -> None:
    text = "re**try** now"
    assert markdown_html(text, [(0, 7)]) == (
        "<p><mark>re</mark><strong><mark>try</mark></strong> now</p>"
    )


def test_marks_never_change_the_structure() -> None:
    # "2" opens an ordered list item, "amp" names an entity: neither is marked.
    text = "2. step two\n\nTom &amp; Jerry"
    rendered = markdown_html(text, spans_of(text, "2", "amp", "step"))
    assert rendered == '<ol start="2"><li><mark>step</mark> two</li></ol><p>Tom &amp; Jerry</p>'


def test_marker_characters_in_the_text_are_dropped_first() -> None:
    assert with_markers("a\ue000b\ue001c", []) == "abc"
    assert markdown_html("a\ue000b") == "<p>ab</p>"


def test_a_span_over_whole_lines_keeps_their_block_syntax() -> None:
    # A context covering a heading and a list (the review page): the marks go round the lines'
    # text, so the heading and the list stay a heading and a list.
    text = "# Delivery\n\n## UK\n\n- Standard: 3 days.\n- Express: 1 day.\n\nDone."
    start, end = text.index("## UK"), text.index("- Express") - 1
    assert markdown_html(text, [(start, end)]) == (
        "<h1>Delivery</h1><h2><mark>UK</mark></h2><ul><li><mark>Standard: 3 days.</mark></li>"
        "<li>Express: 1 day.</li></ul><p>Done.</p>"
    )


def test_markdown_as_plain_text_for_a_table_cell() -> None:
    assert markdown_text("**Relevant (2).** It says *so*:\n\n- a <b>\n- b") == (
        "Relevant (2). It says so: a <b> b"
    )
