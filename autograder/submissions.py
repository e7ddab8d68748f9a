"""Find a class's submissions in one of the two layouts instructors have.

* nbgrader's tree: ``submitted/<student>/<assignment>/exercises.ipynb`` (the folder given
  may be ``submitted/`` itself or the course folder that holds it);
* a flat download from a learning-management system, for one assignment:
  ``<student>.ipynb`` files and/or ``<student>/exercises.ipynb`` folders.

A student whose notebook is missing or misnamed is still listed, with the problem, so
they get a grade of 0 and a message instead of silently disappearing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.config import EXERCISES_NOTEBOOK

EXPECTED_LAYOUTS = (
    "expected either nbgrader's tree, submitted/<student>/<assignment>/"
    f"{EXERCISES_NOTEBOOK}, or (with exactly one --assignment) a flat folder of "
    f"<student>.ipynb files or <student>/{EXERCISES_NOTEBOOK} folders"
)


class LayoutError(ValueError):
    """The folder given is not a submissions folder; the message says what was expected."""


@dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    notebook: Path | None  # None when there is nothing to grade; ``problem`` says why
    problem: str = ""


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "__")))


def _notebook_in(folder: Path, student: str, assignment: str) -> Submission:
    expected = folder / EXERCISES_NOTEBOOK
    if expected.is_file():
        return Submission(student, assignment, expected)
    found = [p.name for p in _visible(folder)] if folder.is_dir() else []
    problem = f"no {EXERCISES_NOTEBOOK} in {folder}" + (
        f" (found: {', '.join(found)})" if found else " (the folder is empty)"
    )
    return Submission(student, assignment, None, problem)


def _from_nbgrader_tree(submitted: Path, chosen: set[str]) -> list[Submission]:
    found = []
    for student in _visible(submitted):
        if not student.is_dir():
            continue
        for folder in _visible(student):
            if folder.is_dir() and folder.name in chosen:
                found.append(_notebook_in(folder, student.name, folder.name))
    return found


def _from_flat_folder(folder: Path, assignment: str) -> list[Submission]:
    found = []
    for entry in _visible(folder):
        if entry.is_dir():
            found.append(_notebook_in(entry, entry.name, assignment))
        elif entry.suffix == ".ipynb":
            found.append(Submission(entry.stem, assignment, entry))
    return found


def find_submissions(folder: Path, assignments: list[str], known: list[str]) -> list[Submission]:
    """Every submission under ``folder`` for ``assignments`` (all ``known`` ones when empty)."""
    if not folder.is_dir():
        raise LayoutError(f"{folder}: not a folder; {EXPECTED_LAYOUTS}")
    unknown = sorted(set(assignments) - set(known))
    if unknown:
        raise LayoutError(
            f"unknown assignment(s): {', '.join(unknown)}; known: {', '.join(known) or 'none'}"
        )
    submitted = folder / "submitted" if (folder / "submitted").is_dir() else folder
    looks_like_tree = any(
        (student / assignment).is_dir()
        for student in _visible(submitted)
        if student.is_dir()
        for assignment in known
    )
    if looks_like_tree:
        found = _from_nbgrader_tree(submitted, set(assignments or known))
    elif len(assignments) == 1:
        found = _from_flat_folder(folder, assignments[0])
    else:
        raise LayoutError(
            f"{folder}: no submitted/<student>/<assignment>/ folders for a known assignment "
            f"({', '.join(known)}), and a flat folder needs exactly one --assignment; "
            f"{EXPECTED_LAYOUTS}"
        )
    if not found:
        raise LayoutError(f"{folder}: no submissions found; {EXPECTED_LAYOUTS}")
    seen: dict[tuple[str, str], Submission] = {}
    for submission in found:
        first = seen.setdefault((submission.student, submission.assignment), submission)
        if first is not submission:
            raise LayoutError(
                f"{submission.student} has two submissions for {submission.assignment}: "
                f"{first.notebook or 'a folder'} and {submission.notebook or 'a folder'}"
            )
    return found
