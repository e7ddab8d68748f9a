"""Benchmark `python -m autograder grade`: serial against parallel on one synthetic class.

    python tools/grade_benchmark.py [--students 20] [--workers 2] [--assignment 00_gpu_detection]

Builds a class from the assignment's released notebook (correct answers from the solution,
blank ones, and the wrong-but-plausible answers of tests/exercise_variants/), then measures
in the same run: the bare execution of the solution notebook (one kernel, nbclient), the
grading command with one worker, and with ``--workers``. Prints the speedup and the time
per submission relative to the bare execution. Both runs must give the same grades.
"""

from __future__ import annotations

import argparse
import filecmp
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from autograder.config import CELL_TIMEOUT_S, LESSONS_DIR, SOLUTIONS_DIR  # noqa: E402


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
    NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3").execute()
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--assignment", default="00_gpu_detection")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="grade-benchmark-") as tmp:
        root = Path(tmp)
        build_class(args.assignment, args.students, root / "submitted")
        load_before = os.getloadavg()[0]
        bare = min(bare_execution_s(args.assignment) for _ in range(2))
        serial, serial_status = grade_s(root / "submitted", root / "serial", 1)
        parallel, parallel_status = grade_s(root / "submitted", root / "parallel", args.workers)
        load_after = os.getloadavg()[0]
        same = filecmp.cmp(root / "serial/out/grades.csv", root / "parallel/out/grades.csv", False)

    per_submission = serial / args.students
    rows = [
        ("assignment", args.assignment),
        ("students", str(args.students)),
        ("cores", str(os.cpu_count())),
        ("load average (1 min) before / after", f"{load_before:.1f} / {load_after:.1f}"),
        ("bare execution of one notebook", f"{bare:.1f} s"),
        ("grading, 1 worker (wall)", f"{serial:.1f} s"),
        (f"grading, {args.workers} workers (wall)", f"{parallel:.1f} s"),
        ("speedup", f"{serial / parallel:.2f}x"),
        ("per submission, serial", f"{per_submission:.1f} s"),
        ("per submission / bare execution", f"{per_submission / bare:.2f}x"),
        ("same grades serial and parallel", "yes" if same else "NO"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0 if same and serial_status == parallel_status else 1


if __name__ == "__main__":
    sys.exit(main())
