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
