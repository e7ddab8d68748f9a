"""Hidden tests are tested too: plausible wrong answers lose points, other correct ones don't.

See tests/exercise_variants/README.md for the format of the variant files.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader.utils import determine_grade

from autograder import notebooks
from autograder.config import CELL_TIMEOUT_S
from tests.course import solution_notebook
from tests.per_assignment import classes_per_assignment

VARIANTS_DIR = Path(__file__).parent / "exercise_variants"
QUIZ_ANSWER = "quiz-solution"


def load_variants(assignment: str) -> ModuleType:
    path = VARIANTS_DIR / f"{assignment}.py"
    spec = importlib.util.spec_from_file_location(f"variants_{assignment}", path)
    assert spec and spec.loader, f"{path} is missing: every assignment needs variants"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def task_of(grade_id: str | None) -> str | None:
    match = re.match(r"(task\d+|quiz)-", grade_id or "")
    return match[1] if match else None


def only_cells_for(notebook: nbformat.NotebookNode, replacements: dict[str, str]) -> None:
    """Keep the cells a wrong answer's own tests need: the setup, every earlier task's
    answers and helpers (later cells may use them), and the tests of the replaced tasks.

    A wrong answer must fail its own task's tests; running only those saves the other
    tasks' compiles, which is most of the suite's time.
    """
    touched = {task_of(grade_id) for grade_id in replacements}
    order = [t for t in dict.fromkeys(task_of(grade_id(c)) for c in notebook.cells) if t]
    last = max(order.index(t) for t in touched)
    kept, task = [], None
    for cell in notebook.cells:
        task = task_of(grade_id(cell)) or task
        meta = cell.metadata.get("nbgrader", {})
        if task is None or task in touched:
            kept.append(cell)
        elif order.index(task) < last and not meta.get("grade"):
            kept.append(cell)
    notebook.cells = kept


def grade_id(cell: nbformat.NotebookNode) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def failing_grade_cells(
    assignment: str, replacements: dict[str, str], workdir: Path, *, whole: bool = True
) -> set[str]:
    """Run the solution notebook with answer cells replaced; return the graded cells that failed.

    ``whole=False`` runs only what the replaced tasks need (see ``only_cells_for``).
    """
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
    if not whole:
        only_cells_for(notebook, replacements)
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


# Which variants each test runs: filled in per class by pytest_generate_tests below.
KIND_OF_TEST = {
    "test_wrong_answer_loses_points": "WRONG",
    "test_other_correct_answer_gets_full_marks": "CORRECT",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    kind = KIND_OF_TEST.get(metafunc.definition.originalname)
    if kind and metafunc.cls is not None:
        names = list(getattr(load_variants(metafunc.cls.assignment), kind))
        metafunc.parametrize("variant", names)


class _TestVariants:
    assignment: str

    def test_every_answer_cell_has_wrong_and_correct_variants(self) -> None:
        variants = load_variants(self.assignment)
        answer_ids = {
            cell.metadata["nbgrader"]["grade_id"]
            for cell in nbformat.read(solution_notebook(self.assignment), as_version=4).cells
            if cell.metadata.get("nbgrader", {}).get("solution")
        }
        answer_ids.discard(QUIZ_ANSWER)  # the quiz task has its own tests: tests/test_quiz_task.py
        for kind in ("WRONG", "CORRECT"):
            covered = {grade_id for v in getattr(variants, kind).values() for grade_id in v}
            assert answer_ids <= covered, (
                f"{kind} has no variant for {sorted(answer_ids - covered)}"
            )

    def test_wrong_answer_loses_points(self, variant: str, tmp_path: Path) -> None:
        replacements = load_variants(self.assignment).WRONG[variant]
        failed = failing_grade_cells(self.assignment, replacements, tmp_path, whole=False)
        assert failed, f"{variant!r} got full marks"

    def test_other_correct_answer_gets_full_marks(self, variant: str, tmp_path: Path) -> None:
        replacements = load_variants(self.assignment).CORRECT[variant]
        failed = failing_grade_cells(self.assignment, replacements, tmp_path)
        assert not failed, f"{variant!r} lost points in {sorted(failed)}"


classes_per_assignment(_TestVariants, globals())
