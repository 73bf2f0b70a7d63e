"""In the real server: opening a question has the server's worker compute the next ones."""

import time

import pytest

from labeler.grading import search_pools
from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _computed_by(store: Store, question_id: str) -> str | None:
    state = store.pools.fts_pool_state(question_id, "default")
    return state and state["computed_by"]


def test_following_the_queue_opens_pools_the_server_computed_ahead(
    loaded: Store, serve, page
) -> None:
    server = serve(loaded.path)
    page.goto(f"{server.url}/?question=q1&reviewer=maria")
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_0")
    assert _computed_by(loaded, "q1").startswith("open:")  # a jump: searched on the page
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not all(
        search_pools.pool_ready(loaded, loaded.questions.get(q), "default") for q in ("q2", "q3")
    ):
        time.sleep(0.2)
    # The next two questions of maria's queue were computed by the server's worker thread.
    assert _computed_by(loaded, "q2").startswith("worker:")
    assert _computed_by(loaded, "q3").startswith("worker:")
    page.locator(".st-key-label_key_n button").first.click()
    wait_for_app(page)
    page.wait_for_function("() => location.search.includes('question=q2')", timeout=60_000)
    page.wait_for_selector(".st-key-label_card_0")
    screenshot(page, "pooling-next-question-computed-ahead")
    assert _computed_by(loaded, "q2").startswith("worker:")  # opened, not searched again
