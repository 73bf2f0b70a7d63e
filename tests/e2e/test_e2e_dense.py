"""The grading page's search box by meaning in a real browser, with the shipped model: a query
that shares no word with the chunk finds nothing by words and finds it by meaning."""

from __future__ import annotations

import pytest

from labeler.dense import project
from labeler.dense.model import DEFAULT_MODEL
from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app
from tests.test_dense_model import need_extra

pytestmark = [pytest.mark.e2e, pytest.mark.embed]

QUERY = "fetch following"  # no chunk has either word


def _search(page, how: str) -> None:
    page.get_by_text(how, exact=True).click()
    wait_for_app(page)
    box = page.get_by_placeholder("words to find")
    box.fill(QUERY)
    box.press("Enter")
    wait_for_app(page)


def test_the_search_box_finds_by_meaning(loaded: Store, serve, page) -> None:
    need_extra(DEFAULT_MODEL)
    project.forget()
    project.embed_chunking(loaded, "default", depth=0)
    server = serve(loaded.path)
    page.goto(f"{server.url}/?question=q2&reviewer=maria")
    wait_for_app(page)
    page.get_by_text("Search the corpus for a chunk the retrievers missed").click()
    wait_for_app(page)
    _search(page, "Words (BM25)")
    screenshot(page, "search-by-words")
    page.get_by_text("No chunk matches.").wait_for()
    _search(page, "Meaning (dense)")
    # Each hit is headed "title  ·  chunk id"; the best is the pagination chunk.
    first = page.locator("[data-testid='stExpander'] [data-testid='stText']").first
    first.wait_for()
    assert first.inner_text().split("·")[-1].strip() == "pagination"
    first.scroll_into_view_if_needed()
    screenshot(page, "search-by-meaning")
    project.forget()
