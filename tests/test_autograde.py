"""Every exercise notebook, graded by nbgrader: the solution scores full marks, the release 0."""

from __future__ import annotations

import pytest

from autograder.grading import autograde
from tests.course import ASSIGNMENTS, released_notebook, solution_notebook


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_scores_full_marks(assignment: str) -> None:
    submission = solution_notebook(assignment)
    before = submission.read_bytes()
    grade = autograde(assignment, submission)
    assert grade.max_score >= 3
    assert grade.score == grade.max_score, grade
    assert submission.read_bytes() == before, "grading must not touch the submission"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_released_notebook_scores_zero(assignment: str) -> None:
    grade = autograde(assignment, released_notebook(assignment))
    assert grade.score == 0, grade
    assert grade.max_score >= 3
