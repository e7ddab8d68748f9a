"""Hidden tests are tested too: plausible wrong answers lose points, other correct ones don't.

See tests/exercise_variants/README.md for the format of the variant files.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbgrader.utils import determine_grade

from autograder import notebooks
from autograder.config import CELL_TIMEOUT_S, kernel_client_config
from autograder.kernel import EMULATE_TF32_VARIABLE
from tests.course import grade_id, solution_notebook
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


def cells_with_tasks(
    notebook: nbformat.NotebookNode,
) -> Iterator[tuple[str | None, nbformat.NotebookNode]]:
    """Each cell with the task it belongs to (None before the first task)."""
    task = None
    for cell in notebook.cells:
        task = task_of(grade_id(cell)) or task
        yield task, cell


def only_cells_for(notebook: nbformat.NotebookNode, replacements: dict[str, str]) -> None:
    """Keep the cells a wrong answer's own tests need: the setup, every earlier task's
    answers and helpers (later cells may use them), and the tests of the replaced tasks.

    A wrong answer must fail its own task's tests; running only those saves the other
    tasks' compiles, which is most of the suite's time.
    """
    touched = {task_of(grade_id) for grade_id in replacements}
    order = [t for t in dict.fromkeys(task_of(grade_id(c)) for c in notebook.cells) if t]
    last = max(order.index(t) for t in touched)
    kept = []
    for task, cell in cells_with_tasks(notebook):
        meta = cell.metadata.get("nbgrader", {})
        if task is None or task in touched:
            kept.append(cell)
        elif order.index(task) < last and not meta.get("grade"):
            kept.append(cell)
    notebook.cells = kept


def with_variant(assignment: str, replacements: dict[str, str]) -> nbformat.NotebookNode:
    """The solution notebook with answer cells replaced."""
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
    return notebook


def without_outputs(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    cell = nbformat.from_dict(cell)
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def failing_grade_cells(notebook: nbformat.NotebookNode) -> set[str]:
    """The graded cells of an executed notebook that lost points."""
    return {
        cell.metadata["nbgrader"]["grade_id"]
        for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("grade") and lost_points(cell)
    }


def client(notebook: nbformat.NotebookNode, workdir: Path) -> NotebookClient:
    return NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(workdir)}},
        config=kernel_client_config(),
    )


RESET = """\
%reset -f
import sys
if "jax" in sys.modules:
    sys.modules["jax"].clear_caches()
del sys
"""


class SharedKernel:
    """One kernel for all the wrong answers of an assignment.

    Before each answer, ``%reset -f`` empties the kernel's namespace, so every name the
    notebook uses is defined again by its own cells, and JAX's caches are cleared, so a test
    that counts compiles is not fooled by an earlier answer's; imported modules stay loaded,
    which saves a kernel start and ``import jax`` per wrong answer. The run stops at the first
    graded cell that loses points (a task's visible tests run before its hidden ones, which
    are the slow ones in most lessons). If the kernel dies, every
    graded cell counts as failed (as in nbgrader) and the next answer gets a new kernel; if a
    cell the answer cannot reach fails, the answer is judged again in a fresh kernel.
    """

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.session = ExitStack()
        self.client: NotebookClient | None = None

    def run(self, notebook: nbformat.NotebookNode, replaced: set[str]) -> set[str]:
        if self.client is None:
            self.client = client(nbformat.v4.new_notebook(), self.workdir)
            self.session.enter_context(self.client.setup_kernel())
        reset = nbformat.v4.new_code_cell(RESET)
        self.client.nb = nbformat.v4.new_notebook(cells=[reset, *notebook.cells])
        try:
            for index, cell in enumerate(self.client.nb.cells):
                self.client.execute_cell(cell, index)
                if cell.metadata.get("nbgrader", {}).get("grade") and lost_points(cell):
                    break  # the answer has lost points: its later tests cannot undo that
        except DeadKernelError:
            self.close()
            return {
                grade_id(c) for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")
            }
        if self.kept_state(notebook, replaced):
            # A cell the variant cannot reach failed: the kernel kept state it should not
            # have. Throw it away and judge this answer in a fresh kernel instead.
            self.close()
            fresh = nbformat.v4.new_notebook(cells=[without_outputs(c) for c in notebook.cells])
            client(fresh, self.workdir).execute()
            return failing_grade_cells(fresh)
        return failing_grade_cells(notebook)

    @staticmethod
    def kept_state(notebook: nbformat.NotebookNode, replaced: set[str]) -> bool:
        """Did a cell outside the replaced answers' tasks (setup, earlier tasks) fail?"""
        touched = {task_of(answer) for answer in replaced}
        for task, cell in cells_with_tasks(notebook):
            if task in touched or cell.cell_type != "code":
                continue
            if any(output.output_type == "error" for output in cell.outputs):
                return True
        return False

    def close(self) -> None:
        self.session.close()
        self.client = None


@pytest.fixture(scope="class")
def shared_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedKernel]:
    kernel = SharedKernel(tmp_path_factory.mktemp("variants"))
    yield kernel
    kernel.close()


def lost_points(cell: nbformat.NotebookNode) -> bool:
    """nbgrader's own verdict: an error, output on stderr, or partial credit."""
    score, max_score = determine_grade(cell)
    return score is None or score < max_score


def correct_rounds(assignment: str) -> list[list[str]]:
    """The CORRECT variants packed into as few whole-notebook runs as possible: a run takes
    at most one variant per answer cell (correct answers to different tasks compose)."""
    rounds: list[tuple[set[str], list[str]]] = []
    for name, replacements in load_variants(assignment).CORRECT.items():
        for cells, names in rounds:
            if not cells & set(replacements):
                cells.update(replacements)
                names.append(name)
                break
        else:
            rounds.append((set(replacements), [name]))
    return [names for _, names in rounds]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Which variants each test runs, per class: every WRONG one alone, the CORRECT ones in
    rounds."""
    if metafunc.cls is None:
        return
    if metafunc.definition.originalname == "test_wrong_answer_loses_points":
        metafunc.parametrize("variant", list(load_variants(metafunc.cls.assignment).WRONG))
    if metafunc.definition.originalname == "test_other_correct_answers_get_full_marks":
        rounds = correct_rounds(metafunc.cls.assignment)
        metafunc.parametrize("variants", rounds, ids=["+".join(r) for r in rounds])


@pytest.mark.usefixtures("grading_compile_cache")
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

    def test_wrong_answer_loses_points(self, variant: str, shared_kernel: SharedKernel) -> None:
        replacements = load_variants(self.assignment).WRONG[variant]
        notebook = with_variant(self.assignment, replacements)
        only_cells_for(notebook, replacements)
        failed = shared_kernel.run(notebook, set(replacements))
        assert failed, f"{variant!r} got full marks"

    def test_other_correct_answers_get_full_marks(
        self, variants: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The whole notebook in a fresh kernel, as graded, with float32 matmuls in TF32 as
        on a GPU: a correct answer must not depend on the CPU's extra precision."""
        correct = load_variants(self.assignment).CORRECT
        replacements = {cell: src for name in variants for cell, src in correct[name].items()}
        notebook = with_variant(self.assignment, replacements)
        monkeypatch.setenv(EMULATE_TF32_VARIABLE, "1")  # the kernel inherits it
        client(notebook, tmp_path).execute()
        failed = failing_grade_cells(notebook)
        assert not failed, f"{variants} lost points in {sorted(failed)}"


classes_per_assignment(_TestVariants, globals())
