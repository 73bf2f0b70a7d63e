"""Nothing leaves the machine: every request the browser makes, on every page of the app, goes
to the app's own server (or is data the page carries itself). Teams label confidential
documents on machines without internet access."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from labeler.app.pages import PAGES
from tests.e2e.conftest import wait_for_app

pytestmark = pytest.mark.e2e

# Every URL the page itself points at (icons, stylesheets, scripts, images, frames).
DOM_URLS = """() => [...document.querySelectorAll(
    'link[href], script[src], img[src], iframe[src], source[src], video[src], audio[src]')]
    .map(e => e.href || e.src)"""


def outside(url: str, server: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return False
    return parsed.netloc != urlparse(server).netloc


def test_no_request_to_another_host_on_any_page(demo_db, serve, page) -> None:
    server = serve(demo_db)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on("websocket", lambda socket: requested.append(socket.url))
    pointed: list[str] = []
    for number, (file, title, _icon, _section, _right) in enumerate(PAGES):
        path = "" if number == 0 else file.removesuffix(".py")
        page.goto(f"{server.url}/{path}?reviewer=maria")
        wait_for_app(page)
        page.wait_for_selector("[data-testid='stMainBlockContainer']")
        page.wait_for_timeout(500)
        assert page.locator("[data-testid='stException']").count() == 0, title
        pointed += page.evaluate(DOM_URLS)
    # Grade once: a rerun must not fetch anything from outside either.
    page.goto(f"{server.url}/?reviewer=maria")
    wait_for_app(page)
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    page.keyboard.press("2")
    wait_for_app(page)
    assert requested, "no request was recorded: the recorder is not working"
    assert any(url.startswith(server.url) for url in requested)
    assert [u for u in requested if outside(u, server.url)] == []
    assert [u for u in pointed if outside(u, server.url)] == []


# A chunk that tries everything: raw HTML (a table, a script, an image that would fetch, an
# event handler, a style), Markdown links and images to another host, a Markdown table and
# nested lists, which are drawn, and a code block.
HOSTILE_CHUNK = """## Returns *at a glance*

| what | days |
|---|---|
| unopened | 30 |
| opened **unused** | 14 |

- refunds
  - to the card
    1. within 5 days
- exchanges

<table><tr><td onclick="window.__pwned = 1">HTML cell</td></tr></table>
<script>window.__pwned = 1</script>
<img src="http://example.invalid/p.png" onerror="window.__pwned = 1">
<style>body { display: none }</style>
[a link](http://example.invalid/l) and ![a picture](http://example.invalid/i.png)

```
curl http://example.invalid/x
```
"""


def test_a_hostile_chunk_is_drawn_as_markdown_and_stays_inert(demo_db, serve, page) -> None:
    from labeler.store import Store
    from tests.e2e.conftest import screenshot

    with Store(demo_db) as store:
        chunking = store.corpus.current_chunking()
        store.corpus.upsert_chunks(
            chunking, [{"id": "hostile", "text": HOSTILE_CHUNK, "title": "<b>Returns</b>"}]
        )
        store.pools.add("q010", chunking, ["hostile"], source="search", added_by="maria")
    server = serve(demo_db)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{server.url}/?reviewer=newcomer&question=q010")
    wait_for_app(page)
    card = page.locator("[class*='st-key-label_card_']").filter(has_text="HTML cell")
    card.wait_for()
    card.scroll_into_view_if_needed()
    screenshot(page, "grading-hostile-markdown")
    text = card.locator(".lbl-md")
    assert text.locator("table").count() == 1  # the Markdown table, drawn
    assert text.locator("th").all_inner_texts() == ["what", "days"]
    assert text.locator("ul ul ol li").all_inner_texts() == ["within 5 days"]
    assert text.locator("h2 em").inner_text() == "at a glance"
    shown = text.inner_text()
    assert '<table><tr><td onclick="window.__pwned = 1">HTML cell</td></tr></table>' in shown
    assert "<script>window.__pwned = 1</script>" in shown
    assert "a link and a picture" in shown
    assert text.locator("a, img, script, style, iframe, [onclick], [style]").count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    assert page.locator("[data-testid='stApp']").is_visible()  # the <style> stayed text
    assert not [u for u in requested if "example.invalid" in u]
