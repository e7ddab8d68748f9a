"""The course runner, and the strict-deprecation kernels it and the suite use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import runner
from autograder.config import REPO_ROOT

LESSONS = {
    "01_passes": "import jax.numpy as jnp\nprint(float(jnp.arange(4.0).sum()))",
    "02_raises": "raise ValueError('broken lesson')",
    "03_deprecated_call_in_notebook": (
        "import warnings\nwarnings.warn('old API', DeprecationWarning)"
    ),
    "04_deprecation_inside_jax": (
        "import warnings\n"
        "exec(\"import warnings; warnings.warn('old', DeprecationWarning)\", "
        "{'__name__': 'jax._src.somewhere'})"
    ),
    "05_deprecation_inside_another_library": (
        "import warnings\n"
        "exec(\"import warnings; warnings.warn('old', DeprecationWarning)\", "
        "{'__name__': 'somelib.module'})"
    ),
    # CPython 3.12's warning about a C type, raised from the line that made jaxlib create it
    "07_c_type_without_module": (
        "import warnings\n"
        "warnings.warn('builtin type event_stats has no __module__ attribute', DeprecationWarning)"
    ),
    # as the exercises delete their temporary folders: at the kernel's exit, and slowly
    "06_slow_exit_hook": (
        "import atexit, time\nfrom pathlib import Path\n"
        "atexit.register(lambda: (time.sleep(4), Path('exit-hook-ran').touch()))"
    ),
}


def write_lessons(root: Path) -> None:
    for folder, source in LESSONS.items():
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
        (root / folder).mkdir()
        nbformat.write(notebook, root / folder / "lesson.ipynb")


@pytest.fixture(scope="module")
def lessons_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lessons")


@pytest.fixture(scope="module")
def report(
    lessons_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, runner.LessonRun]:
    write_lessons(lessons_dir)
    out = tmp_path_factory.mktemp("report")
    runs = runner.run_course(runner.find_lessons([], lessons_dir), out)
    assert json.loads((out / "report.json").read_text())[0]["lesson"] == "01_passes"
    assert "| 01_passes | pass |" in (out / "report.md").read_text()
    assert (out / "executed" / "02_raises.ipynb").exists()
    return {run.lesson: run for run in runs}


def test_a_passing_lesson_reports_backend_and_device(report: dict[str, runner.LessonRun]) -> None:
    run = report["01_passes"]
    assert run.passed and not run.error
    assert run.backend in ("cpu", "gpu") and run.device_kind != "?" and run.device_count >= 1
    assert run.seconds > 0


def test_a_failing_lesson_is_reported_with_its_error(report: dict[str, runner.LessonRun]) -> None:
    run = report["02_raises"]
    assert not run.passed
    assert "broken lesson" in run.error
    assert run.backend in ("cpu", "gpu"), "device facts are still probed after a failure"


def test_deprecations_from_notebook_code_and_jax_are_errors(
    report: dict[str, runner.LessonRun],
) -> None:
    assert not report["03_deprecated_call_in_notebook"].passed
    assert not report["04_deprecation_inside_jax"].passed
    assert "DeprecationWarning" in report["04_deprecation_inside_jax"].error


def test_deprecations_from_other_libraries_are_left_alone(
    report: dict[str, runner.LessonRun],
) -> None:
    assert report["05_deprecation_inside_another_library"].passed
    assert report["07_c_type_without_module"].passed, report["07_c_type_without_module"].error


def test_a_kernel_finishes_its_exit_hooks(
    report: dict[str, runner.LessonRun], lessons_dir: Path
) -> None:
    """jupyter_client's default would have sent SIGTERM 2.5 s into a 4 s hook."""
    assert report["06_slow_exit_hook"].passed
    assert (lessons_dir / "06_slow_exit_hook" / "exit-hook-ran").exists()


def test_lessons_are_chosen_by_number_or_name(tmp_path: Path) -> None:
    write_lessons(tmp_path)
    assert [p.parent.name for p in runner.find_lessons(["02", "05_deprecation"], tmp_path)] == [
        "02_raises",
        "05_deprecation_inside_another_library",
    ]
    with pytest.raises(SystemExit, match="no lesson matches 99"):
        runner.find_lessons(["99"], tmp_path)


def test_the_command_rejects_an_unknown_lesson() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "run", "99"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "no lesson matches 99" in result.stderr
