"""ruff over the Python code and the notebooks (rules in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from autograder.config import REPO_ROOT


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=REPO_ROOT, capture_output=True, text=True
    )


def test_ruff_check() -> None:
    result = ruff("check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = ruff("format", "--no-cache", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
