"""Notebook hygiene and the release pipeline: clean files, complete lessons, no drift."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import notebooks, release
from autograder.config import SOLUTIONS_DIR
from tests.course import (
    ASSIGNMENTS,
    LESSON_FOLDERS,
    NOTEBOOKS,
    lesson_notebook,
    relative,
    released_notebook,
    solution_notebook,
)

HIDDEN = "### BEGIN HIDDEN TESTS"


def test_the_course_has_lessons() -> None:
    assert LESSON_FOLDERS, "no lesson folders found under lessons/"
    assert ASSIGNMENTS, "no solutions/*/exercises.ipynb found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=relative)
def test_notebook_is_committed_clean(path: Path) -> None:
    assert notebooks.is_clean(path), (
        f"{relative(path)} has outputs or extra metadata: run `python -m autograder clean`"
    )


@pytest.mark.parametrize("folder", LESSON_FOLDERS, ids=lambda p: p.name)
def test_lesson_folder_is_complete(folder: Path) -> None:
    assert re.fullmatch(r"\d\d_[a-z0-9_]+", folder.name), f"{folder.name}: expected NN_topic"
    assert lesson_notebook(folder.name).exists()
    assert solution_notebook(folder.name).exists(), f"solutions/{folder.name}/ is missing"
    assert released_notebook(folder.name).exists(), "run `python -m autograder release`"


def _cells(assignment: str) -> list[nbformat.NotebookNode]:
    return notebooks.read(solution_notebook(assignment)).cells


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_exercises_have_three_tasks_with_visible_and_hidden_tests(assignment: str) -> None:
    cells = _cells(assignment)
    meta = [cell.metadata.get("nbgrader", {}) for cell in cells]
    grade_ids = [m["grade_id"] for m in meta if "grade_id" in m]
    assert len(grade_ids) == len(set(grade_ids)), "grade_ids must be unique"
    answers = [m for m in meta if m.get("solution")]
    tests = [(c, m) for c, m in zip(cells, meta, strict=True) if m.get("grade")]
    hidden = [c for c, _ in tests if HIDDEN in c.source]
    visible = [c for c, _ in tests if HIDDEN not in c.source]
    assert len(answers) >= 3, "at least three tasks"
    assert len(visible) >= 3 and len(hidden) >= 3, "visible and hidden tests for every task"
    assert all(m.get("points", 0) > 0 for _, m in tests)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_code_cell_is_an_answer_or_locked(assignment: str) -> None:
    """A code cell without nbgrader's metadata is graded as the student left it: a test that
    used a name it defines (an example's helper) could be fooled by an edit there."""
    free = [
        cell.id
        for cell in _cells(assignment)
        if cell.cell_type == "code"
        and not (
            cell.metadata.get("nbgrader", {}).get("solution")
            or cell.metadata.get("nbgrader", {}).get("locked")
        )
    ]
    assert not free, f"code cells neither answers nor locked: {free}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_released_notebook_matches_a_fresh_release(assignment: str) -> None:
    assert not release.stale(assignment), (
        f"lessons/{assignment}/exercises.ipynb is out of date: "
        f"run `python -m autograder release {assignment}`"
    )


def test_editing_a_solution_without_releasing_is_caught(tmp_path: Path) -> None:
    assignment = ASSIGNMENTS[0]
    shutil.copytree(SOLUTIONS_DIR / assignment, tmp_path / assignment)
    edited = tmp_path / assignment / "exercises.ipynb"
    notebook = notebooks.read(edited)
    notebook.cells[0].source += "\n\nOne more sentence."
    notebooks.write_clean(notebook, edited)
    assert release.stale(assignment, solutions_dir=tmp_path)


def test_released_notebook_hides_solutions_and_hidden_tests() -> None:
    for assignment in ASSIGNMENTS:
        text = released_notebook(assignment).read_text()
        assert "### BEGIN SOLUTION" not in text and HIDDEN not in text
        assert "raise NotImplementedError()" in text
