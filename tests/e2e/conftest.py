"""A real server and a real browser: `streamlit run` on a free port, Debian's chromium through
Playwright (never `playwright install`). Skipped where chromium is missing, except in CI."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.server import CHROMIUM, CHROMIUM_ARGS, Server

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (the README's `-n auto --dist loadgroup`), every browser test runs on
    one worker, one after another, while the other workers take the rest: two browsers and two
    app servers at once on a 2-core machine would time each other out."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"chromium not found at {CHROMIUM}: .ci/run must install Debian's chromium")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture
def serve() -> Iterator:
    servers: list[Server] = []

    def start(db: Path) -> Server:
        server = Server(db)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def page(chromium_path: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        tab = context.new_page()
        tab.set_default_timeout(20_000)
        yield tab
        context.close()
        browser.close()


def wait_for_app(page) -> None:
    """Streamlit's own wait: connected, and the script no longer running."""
    page.wait_for_timeout(200)
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")


def ready_for_keys(page) -> None:
    """Once a page has settled, wait a moment more and focus it: Streamlit drops a key pressed
    in the first few hundred ms after a page settles (its key listeners attach late)."""
    wait_for_app(page)
    page.wait_for_timeout(700)
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


__all__ = ["ready_for_keys", "screenshot", "sys", "wait_for_app"]


@pytest.fixture
def demo_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the bundled demo, its test-set versions written beside it."""
    from labeler.demo import load_demo
    from labeler.store import Store

    monkeypatch.setenv("LABELER_EXPORTS", str(tmp_path / "exports"))
    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
        return store.path
