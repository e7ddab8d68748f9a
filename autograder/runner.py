"""Execute lesson notebooks headless; report pass/fail, wall time and device for each.

This is the one command for a whole-course run on a new machine (a GPU box, a
laptop, CI): ``python -m autograder run [LESSON ...]``.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from autograder import notebooks
from autograder.config import CELL_TIMEOUT_S, LESSON_NOTEBOOK, LESSONS_DIR, kernel_client_config
from autograder.kernel import strict_kernels

# Appended after the lesson's own cells, so it cannot change what the lesson sets up
# before importing jax.
PROBE_SOURCE = """\
import json as _json, jax as _jax
print("COURSE-PROBE", _json.dumps({
    "backend": _jax.default_backend(),
    "device_kind": _jax.devices()[0].device_kind,
    "device_count": _jax.device_count(),
}))"""
PROBE_MARK = "COURSE-PROBE "


@dataclass(frozen=True)
class LessonRun:
    lesson: str
    passed: bool
    seconds: float
    backend: str
    device_kind: str
    device_count: int
    error: str


def _probe_result(cell: nbformat.NotebookNode) -> dict[str, object]:
    for output in cell.get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith(PROBE_MARK):
                return json.loads(line[len(PROBE_MARK) :])
    return {}


def run_lesson(path: Path, executed_dir: Path | None = None) -> LessonRun:
    """Execute the notebook at ``path`` in its own folder; never raises for a failing lesson."""
    notebook = notebooks.read(path)
    probe = nbformat.v4.new_code_cell(PROBE_SOURCE)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        config=kernel_client_config(),
    )
    error = ""
    start = time.perf_counter()
    with client.setup_kernel():
        try:
            for index, cell in enumerate(notebook.cells):
                client.execute_cell(cell, index)
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as failure:
            message = str(failure).strip()
            error = message.splitlines()[-1] if message else repr(failure)
        seconds = time.perf_counter() - start
        notebook.cells.append(probe)  # nbclient writes outputs back by cell index
        try:
            client.execute_cell(probe, len(notebook.cells) - 1)
        except (CellExecutionError, CellTimeoutError, DeadKernelError):
            pass
        notebook.cells.pop()
    facts = _probe_result(probe)
    if executed_dir is not None:
        executed_dir.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, executed_dir / f"{path.parent.name}.ipynb")
    return LessonRun(
        lesson=path.parent.name,
        passed=not error,
        seconds=round(seconds, 1),
        backend=str(facts.get("backend", "?")),
        device_kind=str(facts.get("device_kind", "?")),
        device_count=int(facts.get("device_count", 0)),  # type: ignore[call-overload]
        error=error,
    )


def find_lessons(selection: list[str], lessons_dir: Path = LESSONS_DIR) -> list[Path]:
    """Lessons whose folder name starts with an entry of ``selection``; all when it is empty."""
    every = sorted(lessons_dir.glob(f"*/{LESSON_NOTEBOOK}"))
    if not selection:
        return every
    chosen = [p for p in every if any(p.parent.name.startswith(s) for s in selection)]
    unknown = [s for s in selection if not any(p.parent.name.startswith(s) for p in every)]
    if unknown:
        known = ", ".join(p.parent.name for p in every)
        raise SystemExit(f"no lesson matches {', '.join(unknown)}; lessons are: {known}")
    return chosen


def markdown_report(runs: list[LessonRun]) -> str:
    lines = [
        "| lesson | result | seconds | backend | device kind | devices | error |",
        "|---|---|---:|---|---|---:|---|",
    ]
    for run in runs:
        result = "pass" if run.passed else "FAIL"
        lines.append(
            f"| {run.lesson} | {result} | {run.seconds:.1f} | {run.backend} | "
            f"{run.device_kind} | {run.device_count} | {run.error.replace('|', '/')} |"
        )
    total = sum(run.seconds for run in runs)
    lines.append(f"\n{sum(r.passed for r in runs)}/{len(runs)} lessons passed in {total:.1f} s.")
    return "\n".join(lines) + "\n"


def run_course(lessons: list[Path], out_dir: Path, strict: bool = True) -> list[LessonRun]:
    """Run ``lessons`` one after another, writing report.md, report.json and executed notebooks."""
    with strict_kernels() if strict else contextlib.nullcontext():
        runs = []
        for lesson in lessons:
            run = run_lesson(lesson, executed_dir=out_dir / "executed")
            print(
                f"{run.lesson}: {'pass' if run.passed else 'FAIL'} in {run.seconds:.1f} s",
                flush=True,
            )
            runs.append(run)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "report.json").write_text(json.dumps([asdict(r) for r in runs], indent=2) + "\n")
    (out_dir / "report.md").write_text(markdown_report(runs))
    return runs
