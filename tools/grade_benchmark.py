"""Benchmark `python -m autograder grade`: serial against parallel on one synthetic class.

    python tools/grade_benchmark.py [--students 20] [--workers 2] [--assignment 00_gpu_detection]

Builds a class from the assignment's released notebook (correct answers from the solution,
blank ones, and the wrong-but-plausible answers of tests/exercise_variants/), then measures
in the same run: the bare execution of the solution notebook (one kernel, nbclient), the
grading command with one worker, and with ``--workers``. Prints the speedup and the time
per submission relative to the bare execution. Both runs must give the same grades.

The sandbox's share: kernels started with and without the bubblewrap box, alternately
(``--kernel-starts`` of each), time until they answer; the difference of the medians is
what the box costs a submission (its kernel starts once).

Figures for the guides (docs/instructors.md) come from a quiet machine: the load average
before the run is printed, with a warning when it is 0.5 or more.
"""

from __future__ import annotations

import argparse
import asyncio
import filecmp
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from autograder.config import (  # noqa: E402
    CELL_TIMEOUT_S,
    LESSONS_DIR,
    SOLUTIONS_DIR,
    kernel_client_config,
)

QUIET_LOAD = 0.5


def _answers(notebook: nbformat.NotebookNode) -> dict[str, str]:
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell.source
        for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }


def _wrong_answers(assignment: str) -> list[dict[str, str]]:
    path = REPO_ROOT / "tests" / "exercise_variants" / f"{assignment}.py"
    spec = importlib.util.spec_from_file_location("variants", path)
    if spec is None or spec.loader is None or not path.exists():
        return []
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.WRONG.values())


def build_class(assignment: str, students: int, submitted: Path) -> None:
    released = nbformat.read(LESSONS_DIR / assignment / "exercises.ipynb", as_version=4)
    correct = _answers(nbformat.read(SOLUTIONS_DIR / assignment / "exercises.ipynb", 4))
    kinds: list[dict[str, str]] = [
        correct,
        {},
        *({**correct, **w} for w in _wrong_answers(assignment)),
    ]
    for number in range(students):
        answers = kinds[number % len(kinds)]
        notebook = nbformat.from_dict(released)
        for cell in notebook.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell.source = answers[grade_id].strip()
        folder = submitted / f"student{number:02d}" / assignment
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / "exercises.ipynb")


def bare_execution_s(assignment: str) -> float:
    """Wall time to start a kernel and run the solution notebook once, nothing else."""
    notebook = nbformat.read(SOLUTIONS_DIR / assignment / "exercises.ipynb", as_version=4)
    start = time.perf_counter()
    NotebookClient(
        notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", config=kernel_client_config()
    ).execute()
    return time.perf_counter() - start


def grade_s(submitted: Path, work: Path, workers: int) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(submitted), "--workers", str(workers),
         "--out", str(work / "out"), "--db", f"sqlite:///{work / 'gradebook.db'}"],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    print(result.stdout.strip(), "\n")
    if result.returncode not in (0, 1):
        sys.exit(f"grading failed:\n{result.stderr[-3000:]}")
    return seconds, result.returncode


async def _kernel_ready_s(manager_class: type, box: object, cwd: Path) -> float:
    """Seconds from starting a kernel to its first answer (kernel_info), then shut it down."""
    manager = manager_class(
        kernel_name="python3",
        transport="ipc",
        ip=str(box.sockets / "s"),  # type: ignore[attr-defined]
        connection_file=str(box.sockets / "kernel.json"),  # type: ignore[attr-defined]
    )
    start = time.perf_counter()
    await manager.start_kernel(cwd=str(cwd))
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=300)
        return time.perf_counter() - start
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)


def kernel_starts_s(starts: int) -> tuple[list[float], list[float]]:
    """Seconds to a ready kernel without and with the sandbox, ``starts`` of each, alternated."""
    from jupyter_client.manager import AsyncKernelManager

    from autograder.config import REPO_ROOT as COURSE
    from autograder.sandbox import Box, find_sandbox
    from autograder.worker import boxed_kernel_manager

    sandbox = find_sandbox(COURSE, (COURSE,), tmpfs_mb=1024)
    plain: list[float] = []
    boxed: list[float] = []
    for _ in range(starts):
        for times, sandboxed in ((plain, False), (boxed, True)):
            with tempfile.TemporaryDirectory(prefix="kernel-start-") as tmp:
                box = Box.create(Path(tmp) / "box", Path(tmp) / "box" / "k")
                cwd = Path(tmp) / "cwd"
                cwd.mkdir()
                manager = boxed_kernel_manager(sandbox, box) if sandboxed else AsyncKernelManager
                times.append(asyncio.run(_kernel_ready_s(manager, box, cwd)))
    return plain, boxed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--assignment", default="00_gpu_detection")
    parser.add_argument("--kernel-starts", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="grade-benchmark-") as tmp:
        root = Path(tmp)
        build_class(args.assignment, args.students, root / "submitted")
        load_before = os.getloadavg()[0]
        bare = min(bare_execution_s(args.assignment) for _ in range(2))
        serial, serial_status = grade_s(root / "submitted", root / "serial", 1)
        parallel, parallel_status = grade_s(root / "submitted", root / "parallel", args.workers)
        plain, boxed = kernel_starts_s(args.kernel_starts)
        load_after = os.getloadavg()[0]
        same = filecmp.cmp(root / "serial/out/grades.csv", root / "parallel/out/grades.csv", False)

    per_submission = serial / args.students
    sandbox_s = statistics.median(boxed) - statistics.median(plain)
    rows = [
        ("assignment", args.assignment),
        ("students", str(args.students)),
        ("cores", str(os.cpu_count())),
        ("load average (1 min) before / after", f"{load_before:.2f} / {load_after:.2f}"),
        ("bare execution of one notebook", f"{bare:.1f} s"),
        ("grading, 1 worker (wall)", f"{serial:.1f} s"),
        (f"grading, {args.workers} workers (wall)", f"{parallel:.1f} s"),
        ("speedup", f"{serial / parallel:.2f}x"),
        ("per submission, serial", f"{per_submission:.2f} s"),
        ("per submission / bare execution", f"{per_submission / bare:.2f}x"),
        ("same grades serial and parallel", "yes" if same else "NO"),
        (
            f"kernel ready, median of {args.kernel_starts}: plain / sandboxed",
            f"{statistics.median(plain):.3f} s / {statistics.median(boxed):.3f} s",
        ),
        ("sandbox per submission (one kernel start)", f"{sandbox_s * 1000:+.0f} ms"),
        ("sandbox share of a submission's time", f"{sandbox_s / per_submission:+.1%}"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    if load_before >= QUIET_LOAD:
        print(
            f"warning: load average {load_before:.2f} >= {QUIET_LOAD} before the run: "
            "not a quiet machine, these are not figures for the guides"
        )
    return 0 if same and serial_status == parallel_status else 1


if __name__ == "__main__":
    sys.exit(main())
