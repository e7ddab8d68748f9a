"""`python -m autograder` on bad input: clear messages, non-zero exits, nothing harmed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat

from autograder import notebooks
from autograder.config import REPO_ROOT


def autograder(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )


def test_release_rejects_an_unknown_assignment() -> None:
    result = autograder("release", "99_nothing")
    assert result.returncode == 2
    assert "unknown assignment(s): 99_nothing" in result.stderr


def test_clean_names_a_malformed_notebook_and_leaves_it_alone(tmp_path: Path) -> None:
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [', encoding="utf-8")
    result = autograder("clean", broken)
    assert result.returncode == 2
    assert str(broken) in result.stderr and "not a valid notebook" in result.stderr
    assert broken.read_text() == '{"cells": ['


def test_clean_strips_outputs_and_check_reports_without_writing(tmp_path: Path) -> None:
    dirty = tmp_path / "dirty.ipynb"
    cell = nbformat.v4.new_code_cell("print(1)", execution_count=3)
    cell.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    cell.metadata["collapsed"] = True
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), dirty)
    before = dirty.read_bytes()

    checked = autograder("clean", "--check", dirty)
    assert checked.returncode == 1 and "not clean" in checked.stdout
    assert dirty.read_bytes() == before

    assert autograder("clean", dirty).returncode == 0
    assert notebooks.is_clean(dirty)
    cleaned = nbformat.read(dirty, as_version=4).cells[0]
    assert cleaned.outputs == [] and cleaned.execution_count is None and not cleaned.metadata
    assert autograder("clean", "--check", dirty).returncode == 0
