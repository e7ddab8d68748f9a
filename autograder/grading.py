"""Autograde one submission with nbgrader in a throw-away course folder and return its score."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI

from autograder import guard
from autograder.config import EXERCISES_NOTEBOOK, course_config
from autograder.kernel_sockets import SocketFileKernelManager
from autograder.release import generate


class GradingError(RuntimeError):
    """nbgrader could not autograde a submission; the message carries its log."""


@dataclass(frozen=True)
class Grade:
    score: float
    max_score: float
    disturbed: tuple[str, ...] = ()  # graded cells whose tools the submission tampered with


def autograde(assignment: str, submission: Path, student: str = "student") -> Grade:
    """Grade ``submission`` (a notebook) as ``student``'s answer to ``assignment``.

    The submission file itself is only read: nbgrader works on a copy. The kernel runs the
    course's guard (``autograder.guard``), as in class grading, but no sandbox.
    """
    with tempfile.TemporaryDirectory(prefix="autograde-") as tmp:
        root = Path(tmp)
        generate(assignment, root)  # records the assignment and its test checksums
        submitted = root / "submitted" / student / assignment / EXERCISES_NOTEBOOK
        submitted.parent.mkdir(parents=True)
        shutil.copyfile(submission, submitted)

        config = course_config(root)
        # Unix sockets, as every other course kernel: TCP ports picked by kernels starting at
        # once can collide, and the kernel then dies before it answers (kernel_sockets.py)
        config.Execute.kernel_manager_class = SocketFileKernelManager
        db_url = config.CourseDirectory.db_url
        with guard.arm(db_url, assignment, root / "guard") as armed:
            result = NbGraderAPI(config=config).autograde(assignment, student)
        if not result["success"]:
            raise GradingError(
                f"{submission}: nbgrader could not autograde it:\n"
                f"{result.get('log', '')}{result.get('error', '')}"
            )
        autograded = root / "autograded" / student / assignment / EXERCISES_NOTEBOOK
        disturbed = guard.settle(db_url, assignment, student, autograded, armed)
        with Gradebook(db_url) as gradebook:
            graded = gradebook.find_submission(assignment, student)
            return Grade(graded.score, graded.max_score, tuple(disturbed))
