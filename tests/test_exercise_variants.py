"""Hidden tests are tested too: plausible wrong answers lose points, other correct ones don't.

See tests/exercise_variants/README.md for the format of the variant files.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader.utils import determine_grade

from autograder import notebooks
from autograder.config import CELL_TIMEOUT_S
from tests.course import ASSIGNMENTS, solution_notebook

VARIANTS_DIR = Path(__file__).parent / "exercise_variants"
QUIZ_ANSWER = "quiz-solution"


def load_variants(assignment: str) -> ModuleType:
    path = VARIANTS_DIR / f"{assignment}.py"
    spec = importlib.util.spec_from_file_location(f"variants_{assignment}", path)
    assert spec and spec.loader, f"{path} is missing: every assignment needs variants"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def variant_cases(kind: str) -> list[tuple[str, str]]:
    return [
        (assignment, name)
        for assignment in ASSIGNMENTS
        if (VARIANTS_DIR / f"{assignment}.py").exists()
        for name in getattr(load_variants(assignment), kind)
    ]


def failing_grade_cells(assignment: str, replacements: dict[str, str], workdir: Path) -> set[str]:
    """Run the solution notebook with answer cells replaced; return the graded cells that failed."""
    notebook = notebooks.read(solution_notebook(assignment))
    answer_ids = set()
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            answer_ids.add(meta["grade_id"])
        if meta.get("grade_id") in replacements:
            cell.source = replacements[meta["grade_id"]].strip()
    unknown = set(replacements) - answer_ids
    assert not unknown, f"variants name cells that are not answer cells: {unknown}"
    NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(workdir)}},
    ).execute()
    return {
        cell.metadata["nbgrader"]["grade_id"]
        for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("grade") and lost_points(cell)
    }


def lost_points(cell: nbformat.NotebookNode) -> bool:
    """nbgrader's own verdict: an error, output on stderr, or partial credit."""
    score, max_score = determine_grade(cell)
    return score is None or score < max_score


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_answer_cell_has_wrong_and_correct_variants(assignment: str) -> None:
    variants = load_variants(assignment)
    answer_ids = {
        cell.metadata["nbgrader"]["grade_id"]
        for cell in nbformat.read(solution_notebook(assignment), as_version=4).cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }
    answer_ids.discard(QUIZ_ANSWER)  # the quiz task has its own tests: tests/test_quiz_task.py
    for kind in ("WRONG", "CORRECT"):
        covered = {grade_id for variant in getattr(variants, kind).values() for grade_id in variant}
        assert answer_ids <= covered, f"{kind} has no variant for {sorted(answer_ids - covered)}"


@pytest.mark.parametrize(("assignment", "name"), variant_cases("WRONG"))
def test_wrong_answer_loses_points(assignment: str, name: str, tmp_path: Path) -> None:
    replacements = load_variants(assignment).WRONG[name]
    assert failing_grade_cells(assignment, replacements, tmp_path), f"{name!r} got full marks"


@pytest.mark.parametrize(("assignment", "name"), variant_cases("CORRECT"))
def test_other_correct_answer_gets_full_marks(assignment: str, name: str, tmp_path: Path) -> None:
    replacements = load_variants(assignment).CORRECT[name]
    failed = failing_grade_cells(assignment, replacements, tmp_path)
    assert not failed, f"{name!r} lost points in {sorted(failed)}"
