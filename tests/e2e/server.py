"""The app's real server for browser tests and benchmarks: ``streamlit run`` on a free port, as
``labeler serve`` starts it, serving the checkout these files belong to."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from labeler.cli.serve import streamlit_command

REPO = Path(__file__).resolve().parents[2]
# Debian's chromium (never `playwright install`), with the flags this machine needs.
CHROMIUM = os.environ.get("LABELER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
START_SECONDS = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``streamlit run`` on ``db`` (``extra``: more ``streamlit run`` options), ready when its
    health check answers; ``stop()`` ends it."""

    def __init__(self, db: Path, extra: tuple[str, ...] = ()) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, LABELER_DB=str(db), PYTHONPATH=str(REPO))
        self.process = subprocess.Popen(
            [*streamlit_command(self.port, address="127.0.0.1"), *extra],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.read() == b"ok":
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        msg = f"streamlit did not start within {START_SECONDS} s"
        raise RuntimeError(msg)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "REPO", "Server", "free_port"]
