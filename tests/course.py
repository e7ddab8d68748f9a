"""What the tests parametrize over: lessons, assignments and notebooks, found by folder."""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.config import (
    EXERCISES_NOTEBOOK,
    LESSON_NOTEBOOK,
    LESSONS_DIR,
    SOLUTIONS_DIR,
    assignments,
)

LESSON_FOLDERS = sorted(path for path in LESSONS_DIR.iterdir() if path.is_dir())
ASSIGNMENTS = assignments()
NOTEBOOKS = sorted([*LESSONS_DIR.glob("*/*.ipynb"), *SOLUTIONS_DIR.glob("*/*.ipynb")])


def solution_notebook(assignment: str) -> Path:
    return SOLUTIONS_DIR / assignment / EXERCISES_NOTEBOOK


def released_notebook(assignment: str) -> Path:
    return LESSONS_DIR / assignment / EXERCISES_NOTEBOOK


def lesson_notebook(folder: str) -> Path:
    return LESSONS_DIR / folder / LESSON_NOTEBOOK


def relative(path: Path) -> str:
    return str(path.relative_to(LESSONS_DIR.parent))


def grade_id(cell: nbformat.NotebookNode) -> str | None:
    """The cell's nbgrader grade_id, if it has one."""
    return cell.metadata.get("nbgrader", {}).get("grade_id")
