"""tools/gpu_check.py: the whole-course run for a bare GPU box, exercised here on the CPU."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from tests.course import lesson_notebook, solution_notebook

TOOL = Path(__file__).resolve().parent.parent / "tools" / "gpu_check.py"

GOOD = [
    "import matplotlib.pyplot as plt\nvalue = 6 * 7\nprint('measured')",
    "plt.plot([1, 2, 3])\nprint(f'GPU figure: 99_answer = {value} units on cpu')",
    "value",
    "import quiz\nquiz.show(lesson='00_gpu_detection')",
]
FAILING = ["x = 1", "raise ValueError('the claim is false')", "print('never runs')"]
SLOW = ["import time\ntime.sleep(60)"]


def _notebook(folder: Path, name: str, cells: list[str]) -> Path:
    path = folder / name / "lesson.ipynb"
    path.parent.mkdir(parents=True)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbformat.write(notebook, path)
    return path


def _check(out: Path, *args: str | Path) -> tuple[int, dict]:
    result = subprocess.run(
        [sys.executable, TOOL, "--out", out, *args], capture_output=True, text=True, timeout=600
    )
    assert (out / "report.md").exists(), result.stdout + result.stderr
    return result.returncode, json.loads((out / "report.json").read_text())


def test_a_report_of_outputs_failures_skips_timeouts_and_figures(tmp_path: Path) -> None:
    good = _notebook(tmp_path, "good", GOOD)
    failing = _notebook(tmp_path, "failing", FAILING)
    slow = _notebook(tmp_path, "slow", SLOW)
    unreached = _notebook(tmp_path, "unreached", ["print(1)"])
    code, report = _check(
        tmp_path / "out",
        good,
        failing,
        slow,
        unreached,
        "--budget-s",
        "45",  # the slow notebook runs out the budget, the last one is not reached
    )
    assert code == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", report["date"]), "the book shows it"
    assert re.fullmatch(r"[0-9a-f]{7,}(\+dirty)?", report["commit"]), "this checkout's commit"
    runs = {Path(r["notebook"]).parent.name: r for r in report["notebooks"]}
    assert [runs[n]["result"] for n in ("good", "failing", "slow", "unreached")] == [
        "pass",
        "FAIL",
        "timed out",
        "not reached",
    ]
    cells = runs["good"]["cells"]
    assert cells[0]["stdout"].strip() == "measured"
    assert cells[2]["stdout"].strip() == "42"  # the last expression is shown, as in Jupyter
    assert cells[3]["status"] == "skipped" and "quiz" in cells[3]["note"]
    assert report["figures"] == [
        {
            "notebook": runs["good"]["notebook"],
            "cell": "1",
            "name": "99_answer",
            "value": "42",
            "rest": "units on cpu",
        }
    ]
    failed = runs["failing"]
    assert failed["failing_cell"] == 1
    assert "ValueError: the claim is false" in failed["cells"][1]["traceback"]
    assert failed["cells"][2]["note"] == "after a failure"
    assert runs["slow"]["failing_cell"] == 0  # the cell that was running when time ran out
    with zipfile.ZipFile(tmp_path / "out" / "figures.zip") as archive:
        assert [n for n in archive.namelist() if n.endswith(".png")] == [
            f"{tmp_path.name}-good-cell01-1.png"
        ]
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "| 99_answer | 42 |" in markdown and "ValueError: the claim is false" in markdown


def test_a_broken_notebook_is_named_in_the_report(tmp_path: Path) -> None:
    broken = tmp_path / "broken" / "lesson.ipynb"
    broken.parent.mkdir()
    broken.write_text("{ not json")
    code, report = _check(tmp_path / "out", broken, "--commit", "0123abc")
    assert code == 1
    assert report["commit"] == "0123abc", "--commit names it where there is no git"
    assert "- commit: 0123abc" in (tmp_path / "out" / "report.md").read_text()
    [run] = report["notebooks"]
    assert run["result"] == "crashed"
    assert f"{broken}: not a readable notebook" in run["log_tail"]


def test_unknown_notebooks_are_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, TOOL, "--out", tmp_path, tmp_path / "nope.ipynb"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "no such notebook" in result.stderr


@pytest.mark.parametrize(
    "path",
    [lesson_notebook("00_gpu_detection"), solution_notebook("01_jit_compilation")],
    ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}",
)
def test_course_notebooks_pass_without_jupyter(path: Path, tmp_path: Path) -> None:
    code, report = _check(tmp_path / "out", path)
    [run] = report["notebooks"]
    assert code == 0, json.dumps(run, indent=1)[-4000:]
    assert report["machine"]["backend"] == "cpu"


@pytest.mark.parametrize(
    ("line", "value", "unit"),
    [
        ("GPU figure: 02_slowdown = 1.27x on cpu", "1.27", "x on cpu"),
        ("GPU figure: 01_speedup = 133 x on NVIDIA H200", "133", "x on NVIDIA H200"),
        ("GPU figure: 05_exponent = n/a (no cuDNN) on cpu", "n/a", "(no cuDNN) on cpu"),
        ("GPU figure: 11_time = 1.5e-3 s on cpu", "1.5e-3", "s on cpu"),
    ],
)
def test_a_figure_value_is_split_from_its_unit(
    line: str, value: str, unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("gpu_check", TOOL)
    assert spec and spec.loader
    gpu_check = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "gpu_check", gpu_check)  # its dataclasses look it up
    spec.loader.exec_module(gpu_check)
    match = gpu_check.FIGURE_LINE.match(line)
    assert match and (match["value"], match["rest"]) == (value, unit)
