"""Hidden tests a submission cannot switch off: the grader's side of the kernel guard.

Before nbgrader starts the student's kernel, ``arm`` writes a one-time configuration (the
hashes of the locked and graded cells, as nbgrader will run them from the gradebook, and a
fresh secret) and puts ``kernel_guard.py`` into the kernel's IPython start-up folder. After
autograding, ``check_receipts`` reads the receipt each graded cell published, removes them
from the notebook, and names the graded cells whose receipt is missing, forged or says the
cell's tools were disturbed: those cells get no points.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook
from nbgrader.preprocessors import OverwriteCells

from autograder.config import COURSE_ID

MIME = "application/vnd.jax-course.guard+json"
ENV = "COURSE_GUARD"
KERNEL_SCRIPT = Path(__file__).with_name("kernel_guard.py")
STARTUP_NAME = "02_course_guard.py"
NOTE = (
    "[grader] This test did not run as written: the notebook changed what it runs with "
    "(library functions, names set by locked cells, how IPython runs a cell, or what of its "
    "outcome reaches the grader). 0 points.\n"
)
# The start-up file only loads the guard, from beside its configuration, as a module of its
# own: IPython runs start-up files in the student's namespace.
LOADER = """\
def _load_course_guard():
    import importlib.util
    import os

    config = os.environ.get("COURSE_GUARD", "")
    if config:
        script = os.path.join(os.path.dirname(config), "kernel_guard.py")
        spec = importlib.util.spec_from_file_location("_course_guard", script)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


_load_course_guard()
del _load_course_guard
"""


@dataclass(frozen=True)
class Armed:
    secret: bytes
    graded: dict[str, str]  # sha256 of a graded cell's source -> grade_id

    def receipt(self, grade_id: str, verdict: str, value: object = None) -> str:
        signed = f"{grade_id}:{verdict}:{json.dumps(value)}"
        return hashlib.sha256(self.secret + signed.encode()).hexdigest()

    def genuine(self, receipt: dict, grade_id: str) -> bool:
        """A receipt the kernel's guard signed for ``grade_id``, with its tools intact."""
        verdict, value = receipt.get("verdict"), receipt.get("value")
        return (
            receipt.get("grade_id") == grade_id
            and verdict in ("intact", "raised")
            and receipt.get("receipt") == self.receipt(grade_id, verdict, value)
        )


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def restored_source(grade_id: str, source: str) -> str:
    """A graded cell the student deleted, as nbgrader puts it back: behind a comment."""
    notice = OverwriteCells().missing_cell_notification.format(cell_id=grade_id)
    return "# " + notice + source


def _cells(db_url: str, assignment: str) -> tuple[dict[str, str], list[str], dict[str, list]]:
    """Hashes of the graded cells (-> grade_id) and of the other locked cells, as nbgrader
    will execute them: it puts every locked cell's source back from the gradebook (a deleted
    graded cell comes back with a notice in front of it); and, per graded cell, the locked
    cells before it in the source, which must have run before it."""
    graded, locked, before = {}, [], {}
    with Gradebook(db_url, COURSE_ID) as gradebook:
        for notebook in gradebook.find_assignment(assignment).notebooks:
            grade_ids = {cell.name for cell in notebook.grade_cells}
            for cell in notebook.source_cells:  # in the source's order
                if cell.cell_type != "code":
                    continue
                if cell.locked and cell.name in grade_ids:
                    for source in (cell.source, restored_source(cell.name, cell.source)):
                        graded[source_hash(source)] = cell.name
                        before[source_hash(source)] = list(locked)
                elif cell.locked:
                    locked.append(source_hash(cell.source))
    return graded, locked, before


@contextmanager
def arm(db_url: str, assignment: str, scratch: Path) -> Iterator[Armed]:
    """Within the block, kernels started from this process run the guard for ``assignment``.

    Their IPYTHONDIR becomes ``scratch/ipython``: the start-up files of the current one (the
    strict deprecation filter, the output cap) plus the guard. The configuration file is
    removed by the kernel as soon as it has read it (the secret then lives only in the
    kernel's guard), and by this function at the end in any case.
    """
    graded, locked, before = _cells(db_url, assignment)
    with arm_cells(graded, locked, scratch, before) as armed:
        yield armed


@contextmanager
def arm_cells(
    graded: dict[str, str],
    locked: list[str],
    scratch: Path,
    before: dict[str, list[str]] | None = None,
) -> Iterator[Armed]:
    """``arm`` for cells given by their source hashes (see ``source_hash``); ``before``: per
    graded cell, the locked cells that must have run before it (a cell skipped by a tag or
    moved below the tests would let the notebook define what the tests use: a thirteenth
    red-team pass)."""
    armed = Armed(secrets.token_bytes(32), graded)
    startup = scratch / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    current = os.environ.get("IPYTHONDIR")
    if current:
        for script in sorted((Path(current) / "profile_default" / "startup").glob("*.py")):
            shutil.copyfile(script, startup / script.name)
    (startup / STARTUP_NAME).write_text(LOADER, encoding="utf-8")
    shutil.copyfile(KERNEL_SCRIPT, scratch / KERNEL_SCRIPT.name)
    config = scratch / f"guard-{secrets.token_hex(8)}.json"
    payload = {
        "secret": armed.secret.hex(),
        "graded": graded,
        "locked": locked,
        "before": before or {},
        "mime": MIME,
    }
    config.touch(mode=0o600)
    config.write_text(json.dumps(payload), encoding="utf-8")
    previous = {name: os.environ.get(name) for name in ("IPYTHONDIR", ENV)}
    os.environ.update({"IPYTHONDIR": str(scratch / "ipython"), ENV: str(config)})
    try:
        yield armed
    finally:
        config.unlink(missing_ok=True)
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _outcome_shown(receipt: dict, outputs: list) -> bool:
    """Whether the outputs nbgrader scores show what the guard saw the cell do, and nothing else:
    its error, if it raised, and the number it ended with (nbgrader's partial credit), if any.

    The shell shows at most one result for a cell, after its last statement, and none for a
    cell that raised. nbgrader scores a cell by the first error or result among its outputs, so
    code a test calls could put a result of its own in front of the test's error (by calling
    the displayhook itself, from the answer or from a thread: a sixth red-team pass).
    """
    results = [o for o in outputs if o.get("output_type") == "execute_result"]
    if receipt.get("verdict") == "raised":
        return not results and any(o.get("output_type") == "error" for o in outputs)
    if len(results) > 1:
        return False
    value = receipt.get("value")
    if value is None:
        return True
    return bool(results) and _number(results[0].get("data", {}).get("text/plain", "")) == value


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def check_receipts(notebook: nbformat.NotebookNode, armed: Armed) -> list[str]:
    """Remove the guard's receipts from ``notebook``; return the graded cells without an
    intact one (in notebook order), each of which gets a note saying so."""
    disturbed = []
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        receipts = [o for o in cell.get("outputs", []) if MIME in o.get("data", {})]
        cell_outputs = [o for o in cell.get("outputs", []) if MIME not in o.get("data", {})]
        if cell.cell_type == "code":
            cell.outputs = cell_outputs
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        grade_id = meta.get("grade_id", "")
        found = [r["data"][MIME] for r in receipts]
        if not (
            len(found) == 1
            and armed.genuine(found[0], grade_id)
            and _outcome_shown(found[0], cell_outputs)
        ):
            disturbed.append(grade_id)
            cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=NOTE))
    return disturbed


def settle(db_url: str, assignment: str, student: str, autograded: Path, armed: Armed) -> list[str]:
    """Check the receipts in nbgrader's autograded notebook (and remove them from it); give no
    points to the graded cells without an intact receipt. Returns their grade_ids."""
    notebook = nbformat.read(autograded, as_version=4)
    disturbed = check_receipts(notebook, armed)
    nbformat.write(notebook, autograded)
    if disturbed:
        with Gradebook(db_url, COURSE_ID) as gradebook:
            submission = gradebook.find_submission(assignment, student)
            for notebook_grades in submission.notebooks:
                for grade in notebook_grades.grades:
                    if grade.name in disturbed:
                        grade.auto_score, grade.manual_score = 0.0, None
            gradebook.db.commit()
    return disturbed
