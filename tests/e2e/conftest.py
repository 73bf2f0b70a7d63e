"""A real server and a real browser: `streamlit run` on a free port, Debian's chromium through
Playwright (never `playwright install`). Skipped where chromium is missing, except in CI."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeler.cli.serve import streamlit_command

CHROMIUM = os.environ.get("LABELER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"chromium not found at {CHROMIUM}: .ci/run must install Debian's chromium")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    return CHROMIUM


class Server:
    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, LABELER_DB=str(db))
        self.process = subprocess.Popen(
            streamlit_command(self.port, address="127.0.0.1"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.read() == b"ok":
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("streamlit did not start within 60 s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


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


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


__all__ = ["screenshot", "sys", "wait_for_app"]


@pytest.fixture
def demo_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the bundled demo, its test-set versions written beside it."""
    from labeler.demo import load_demo
    from labeler.store import Store

    monkeypatch.setenv("LABELER_EXPORTS", str(tmp_path / "exports"))
    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
        return store.path
