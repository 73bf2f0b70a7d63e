"""The rule set in pyproject.toml holds for the whole tree (ruff is a test dependency)."""

import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=" ".join)
def test_ruff_is_clean(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
