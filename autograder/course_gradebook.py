"""The course gradebook (nbgrader's database): assignments in, grades merged in.

Only the grading command's single parent process writes here, one finished submission at
a time, so parallel grading never meets "database is locked". Recording a student again
replaces their grades (nbgrader's update-or-create), so re-running is idempotent.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from sqlalchemy.exc import SAWarning

import autograder.gradebook_version  # noqa: F401 - no `alembic` process per new gradebook
from autograder.config import COURSE_ID, course_config
from autograder.release import ReleaseError


@dataclass(frozen=True)
class AssignmentInfo:
    max_score: float
    grade_cells: dict[str, float]  # grade_id -> points


def generate(assignment: str, course_root: Path, solutions_dir: Path, db_url: str) -> None:
    """nbgrader's generate step, recording ``assignment`` and its test checksums in ``db_url``."""
    config = course_config(course_root, solutions_dir)
    config.CourseDirectory.db_url = db_url
    course_root.mkdir(parents=True, exist_ok=True)
    cwd = Path.cwd()  # nbgrader changes into the course folder
    try:
        result = NbGraderAPI(config=config).generate_assignment(assignment, force=True, create=True)
    finally:
        os.chdir(cwd)
    if not result["success"]:
        raise ReleaseError(
            f"{solutions_dir / assignment}: nbgrader could not generate the assignment:\n"
            f"{result.get('log', '')}{result.get('error', '')}"
        )


def describe(db_url: str, assignment: str) -> AssignmentInfo:
    with Gradebook(db_url, COURSE_ID) as gradebook:
        found = gradebook.find_assignment(assignment)
        cells = {cell.name: cell.max_score for nb in found.notebooks for cell in nb.grade_cells}
        return AssignmentInfo(max_score=found.max_score, grade_cells=cells)


def record(db_url: str, assignment: str, student: str, scores: dict[str, float]) -> None:
    """Set ``student``'s automatic scores for ``assignment`` (0 for a cell not in ``scores``)."""
    with Gradebook(db_url, COURSE_ID) as gradebook, warnings.catch_warnings():
        # nbgrader's own add_submission trips this SQLAlchemy warning; it is harmless.
        warnings.simplefilter("ignore", SAWarning)
        gradebook.update_or_create_student(student)
        submission = gradebook.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = scores.get(grade.name, 0.0)
                grade.needs_manual_grade = False
        gradebook.db.commit()


def scores(db_url: str, assignment: str) -> dict[str, dict[str, float]]:
    """Every recorded student's per-cell scores for ``assignment`` (for checks and tests)."""
    with Gradebook(db_url, COURSE_ID) as gradebook:
        return {
            submission.student.id: {
                grade.name: grade.score for nb in submission.notebooks for grade in nb.grades
            }
            for submission in gradebook.find_assignment(assignment).submissions
        }
