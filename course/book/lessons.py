"""Execute a lesson once: the suite's check that it runs, and the executed copy the book shows.

The check is the one ``nbval --nbval-lax`` made: every code cell runs, in order, in one
kernel started in the lesson's folder; a cell that raises fails the lesson unless it is tagged
``raises-exception`` (or ``nbval-raises-exception``, or starts a line ``# NBVAL_RAISES_EXCEPTION``);
a cell tagged ``nbval-skip`` (or with ``# NBVAL_SKIP``) is not run; outputs are not compared.
The kernel is whatever the caller's environment starts: the suite and ``make book`` run it
under ``autograder.kernel.strict_kernels()``, so deprecated JAX-stack API is an error.

The executed notebook is written to ``EXECUTED_DIR/<lesson>/lesson.ipynb`` with
``execution.json`` beside it (pass or fail, the lesson file's hash, who ran it), so that the
book is built from that execution instead of running the lesson a second time.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from autograder import notebooks
from autograder.config import (
    CELL_TIMEOUT_S,
    LESSON_NOTEBOOK,
    LESSONS_DIR,
    REPO_ROOT,
    kernel_client_config,
)

EXECUTED_DIR = REPO_ROOT / "_build" / "executed"
STATUS_FILE = "execution.json"
EXPECTED_ERROR_TAGS = frozenset({"raises-exception", "nbval-raises-exception"})
SKIP_TAGS = frozenset({"nbval-skip"})
EXPECTED_ERROR_COMMENT = "# NBVAL_RAISES_EXCEPTION"
SKIP_COMMENT = "# NBVAL_SKIP"
STARTUP_TIMEOUT_S = 120
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the colours of IPython's tracebacks


class LessonFailed(AssertionError):
    """A lesson cell raised, timed out or killed its kernel; names the file and the cell."""


@dataclass(frozen=True)
class Execution:
    lesson: str
    passed: bool
    error: str  # "" when passed
    seconds: float
    source_sha256: str  # of the lesson file that was executed
    run: str  # who executed it: a test session's id, or "make book"
    date: str
    jax: str
    cores: int


def lessons(lessons_dir: Path = LESSONS_DIR) -> list[Path]:
    """Every lesson notebook, in course order, found by folder."""
    return sorted(lessons_dir.glob(f"*/{LESSON_NOTEBOOK}"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _marked(cell: nbformat.NotebookNode, tags: frozenset[str], comment: str) -> bool:
    if tags & set(cell.metadata.get("tags", [])):
        return True
    return any(line.strip() == comment for line in cell.source.splitlines())


def _failure(path: Path, index: int, cell: nbformat.NotebookNode, why: str) -> str:
    head = "\n".join(cell.source.splitlines()[:8])
    return f"{path}: cell {index} {why}\n--- the cell begins:\n{head}"


def _run_cells(client: NotebookClient, notebook: nbformat.NotebookNode, path: Path) -> str:
    """Run the cells in order; the first failure's description, or "" when all ran."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or _marked(cell, SKIP_TAGS, SKIP_COMMENT):
            continue
        try:
            client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
        except CellExecutionError as error:
            if _marked(cell, EXPECTED_ERROR_TAGS, EXPECTED_ERROR_COMMENT):
                continue
            return _failure(path, index, cell, f"raised:\n{ANSI.sub('', str(error))}")
        except CellTimeoutError:
            return _failure(path, index, cell, f"ran past the {CELL_TIMEOUT_S} s cell timeout")
        except DeadKernelError as error:
            return _failure(path, index, cell, f"killed the kernel ({error})")
    return ""


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def execute(path: Path, out_dir: Path = EXECUTED_DIR, run: str = "") -> Execution:
    """Execute the lesson at ``path``; write the executed copy and its status. A failing cell
    does not raise (see ``Execution.passed``); an unreadable notebook or a kernel that cannot
    start does, after writing a failed status (the book's tests wait for every status)."""
    try:
        return _execute(path, out_dir, run)
    except BaseException as error:  # the status must say so, whatever stopped the run
        failure = f"{path}: could not be executed ({type(error).__name__}: {error})"
        _record(out_dir, Execution(path.parent.name, False, failure, 0.0, "", run, *_facts()))
        raise


def _facts() -> tuple[str, str, int]:
    return time.strftime("%Y-%m-%d", time.gmtime()), metadata.version("jax"), os.cpu_count() or 1


def _record(
    out_dir: Path, execution: Execution, notebook: nbformat.NotebookNode | None = None
) -> None:
    folder = out_dir / execution.lesson
    folder.mkdir(parents=True, exist_ok=True)
    if notebook is not None:
        _write_atomically(folder / LESSON_NOTEBOOK, nbformat.writes(notebook) + "\n")
    _write_atomically(folder / STATUS_FILE, json.dumps(asdict(execution), indent=1) + "\n")


def _execute(path: Path, out_dir: Path, run: str) -> Execution:
    notebook = notebooks.read(path)
    digest = sha256(path)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        startup_timeout=STARTUP_TIMEOUT_S,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
        config=kernel_client_config(),
    )
    start = time.perf_counter()
    with client.setup_kernel():
        error = _run_cells(client, notebook, path)
        client.set_widgets_metadata()  # what the widgets showed, for the book's static copy
    seconds = round(time.perf_counter() - start, 1)
    execution = Execution(path.parent.name, not error, error, seconds, digest, run, *_facts())
    _record(out_dir, execution, notebook)
    return execution


def check(path: Path, out_dir: Path = EXECUTED_DIR, run: str = "") -> Execution:
    """``execute``, raising ``LessonFailed`` when a cell failed."""
    execution = execute(path, out_dir, run)
    if not execution.passed:
        raise LessonFailed(execution.error)
    return execution


def status(lesson: str, out_dir: Path = EXECUTED_DIR) -> Execution | None:
    """What the last execution of ``lesson`` under ``out_dir`` recorded, if any."""
    path = out_dir / lesson / STATUS_FILE
    try:
        return Execution(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def fresh(path: Path, out_dir: Path = EXECUTED_DIR) -> Execution | None:
    """The passing execution of the lesson at ``path`` as it is now, or None."""
    execution = status(path.parent.name, out_dir)
    if execution is None or not execution.passed or execution.source_sha256 != sha256(path):
        return None
    return execution
