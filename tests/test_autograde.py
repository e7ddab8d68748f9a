"""Every exercise notebook, graded by nbgrader: the solution scores full marks (with TF32
emulated, as a GPU computes), the release 0."""

from __future__ import annotations

import pytest

from autograder.grading import autograde
from autograder.kernel import EMULATE_TF32_VARIABLE
from tests.course import released_notebook, solution_notebook
from tests.per_assignment import classes_per_assignment


@pytest.mark.usefixtures("grading_compile_cache")
class _TestAutograde:
    assignment: str

    def test_solution_scores_full_marks(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Graded as on a GPU, where float32 matmuls run in TF32 (tests/test_tf32.py)."""
        monkeypatch.setenv(EMULATE_TF32_VARIABLE, "1")  # the kernel inherits it
        submission = solution_notebook(self.assignment)
        before = submission.read_bytes()
        grade = autograde(self.assignment, submission)
        assert grade.max_score >= 3
        assert grade.score == grade.max_score, grade
        assert submission.read_bytes() == before, "grading must not touch the submission"

    def test_released_notebook_scores_zero(self) -> None:
        grade = autograde(self.assignment, released_notebook(self.assignment))
        assert grade.score == 0, grade
        assert grade.max_score >= 3


classes_per_assignment(_TestAutograde, globals())
