"""Generate the student notebooks, ``lessons/NN/exercises.ipynb``, from ``solutions/``.

nbgrader's generate step does the work (solutions replaced by stubs, hidden tests
removed, cells locked and checksummed). It runs in a throw-away course folder, and
only the resulting notebook is copied, cleaned, into ``lessons/``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from nbgrader.apps import NbGraderAPI

import autograder.gradebook_version  # noqa: F401 - no `alembic` process per new gradebook
from autograder import notebooks
from autograder.config import EXERCISES_NOTEBOOK, LESSONS_DIR, SOLUTIONS_DIR, course_config


class ReleaseError(RuntimeError):
    """nbgrader could not generate an assignment; the message carries its log."""


def generate(assignment: str, course_root: Path, solutions_dir: Path = SOLUTIONS_DIR) -> Path:
    """Run nbgrader's generate step in ``course_root``; return the student notebook's path."""
    api = NbGraderAPI(config=course_config(course_root, solutions_dir))
    result = api.generate_assignment(assignment, force=True, create=True)
    if not result["success"]:
        raise ReleaseError(
            f"solutions/{assignment}/{EXERCISES_NOTEBOOK}: nbgrader could not generate "
            f"the student version:\n{result.get('log', '')}{result.get('error', '')}"
        )
    return course_root / "release" / assignment / EXERCISES_NOTEBOOK


def release(
    assignment: str, lessons_dir: Path = LESSONS_DIR, solutions_dir: Path = SOLUTIONS_DIR
) -> Path:
    """Write the clean student version of ``assignment`` to ``lessons_dir/assignment/``."""
    with tempfile.TemporaryDirectory(prefix="release-") as course_root:
        generated = generate(assignment, Path(course_root), solutions_dir)
        target = lessons_dir / assignment / EXERCISES_NOTEBOOK
        notebooks.write_clean(notebooks.read(generated), target)
    return target


def stale(
    assignment: str, lessons_dir: Path = LESSONS_DIR, solutions_dir: Path = SOLUTIONS_DIR
) -> bool:
    """Whether ``lessons_dir``'s student notebook differs from a fresh generation."""
    committed = lessons_dir / assignment / EXERCISES_NOTEBOOK
    with tempfile.TemporaryDirectory(prefix="release-check-") as scratch:
        fresh = release(assignment, lessons_dir=Path(scratch), solutions_dir=solutions_dir)
        return not committed.exists() or committed.read_bytes() != fresh.read_bytes()
