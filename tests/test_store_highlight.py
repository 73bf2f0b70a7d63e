"""Highlighting: the question's words found in raw text as the full-text index sees words, and
the text escaped piece by piece around them (never marked after escaping)."""

import pytest

from labeler.app.widgets import marked_html, safe_text_html
from labeler.store import Store, match_spans
from labeler.store.highlight import TOKENIZE


def marked(text: str, question: str) -> list[str]:
    """The pieces of ``text`` that ``question`` marks."""
    return [text[start:end] for start, end in match_spans([text], question)[0]]


def test_the_tokenizer_is_the_one_of_the_index(store: Store) -> None:
    sql = store.scalar("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'")
    assert f"tokenize='{TOKENIZE}'" in sql


def test_whole_words_only_and_stemmed_as_the_index_stems() -> None:
    text = "Each key may send 100 requests per minute; performance drops when retrying."
    assert marked(text, "requests per minute") == ["requests", "per", "minute"]
    assert marked(text, "performance") == ["performance"]
    assert marked(text, "per second") == ["per"]  # not inside "performance"
    assert marked(text, "How do I retry a request?") == ["requests", "retrying"]


def test_stop_words_are_not_marked_and_case_and_accents_do_not_matter() -> None:
    assert marked("The Café is open", "where is the cafe") == ["Café"]


def test_a_word_the_tokenizer_splits_marks_the_whole_run() -> None:
    assert marked("Use the next_cursor field.", "next_cursor") == ["next_cursor"]


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        (
            "Tom & Jerry > GT",
            "amp gt lt quot",
            "Tom &amp; Jerry &gt; <mark>GT</mark>",
        ),
        ("Tom & Jerry > GT", "tom", "<mark>Tom</mark> &amp; Jerry &gt; GT"),
        ("a < b and b > c", "lt gt", "a &lt; b and b &gt; c"),
        ('say "quot" & mean it', "quot", "say &quot;<mark>quot</mark>&quot; &amp; mean it"),
        # An entity already in the raw text is text: shown as typed, its letters a word.
        ("AT&amp;T &lt;tag&gt;", "amp", "AT&amp;<mark>amp</mark>;T &amp;lt;tag&amp;gt;"),
        (
            "AT&amp;T &lt;tag&gt;",
            "lt gt quot",
            "AT&amp;amp;T &amp;<mark>lt</mark>;tag&amp;<mark>gt</mark>;",
        ),
        (
            "<script>alert(1)</script>",
            "script",
            "&lt;<mark>script</mark>&gt;alert(1)&lt;/<mark>script</mark>&gt;",
        ),
    ],
)
def test_pieces_are_escaped_then_marked(text: str, question: str, expected: str) -> None:
    html = safe_text_html(text, question)
    assert html == f'<div class="lbl-text">{expected}</div>'


def test_marks_never_split_an_escape() -> None:
    text = "x < y & z > w"
    assert (
        marked_html(text, [(0, 1), (4, 5)]) == "<mark>x</mark> &lt; <mark>y</mark> &amp; z &gt; w"
    )


def test_many_texts_at_once_and_texts_without_a_match() -> None:
    spans = match_spans(["429 means wait", "nothing here", ""], "what does 429 mean")
    assert spans == [[(0, 3), (4, 9)], [], []]
    assert match_spans(["anything"], "the and of") == [[]]
    assert match_spans([], "429") == []


def test_text_holding_private_use_characters_is_still_split_right() -> None:
    text = "\ue000 retry \ue001 now"
    assert marked(text, "retry") == ["retry"]
