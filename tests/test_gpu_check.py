"""tools/gpu_check.py: the whole-course run for a bare GPU box, exercised here on the CPU."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from tests.course import LESSONS_DIR, solution_notebook

TOOL = Path(__file__).resolve().parent.parent / "tools" / "gpu_check.py"
LESSONS = sorted(LESSONS_DIR.glob("*/lesson.ipynb"))

GOOD = [
    "import matplotlib.pyplot as plt\nvalue = 6 * 7\nprint('measured')",
    "plt.plot([1, 2, 3])\nprint(f'GPU figure: 99_answer = {value} units on cpu')",
    "value",
    "import quiz\nquiz.show(lesson='00_gpu_detection')",
    "%%writefile answer.py\nANSWER = 42\n",  # the one IPython magic the notebooks use
    "%%writefile -a answer.py\nprint(ANSWER)\n",
    "exec(open('answer.py').read())",
    "import atexit, pathlib\natexit.register(pathlib.Path('atexit-ran').write_text, 'yes')",
    "import jax\ndouble = jax.jit(lambda x: 2 * x)\n"
    "for n in (3, 4, 5):\n    double(jax.numpy.ones(n))",
]
FAILING = ["x = 1", "raise ValueError('the claim is false')", "print('never runs')"]
SLOW = ["import time\ntime.sleep(60)"]


def _notebook(folder: Path, name: str, cells: list[str]) -> Path:
    path = folder / name / "lesson.ipynb"
    path.parent.mkdir(parents=True)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbformat.write(notebook, path)
    return path


def _check(out: Path, *args: str | Path, tmp: Path | None = None) -> tuple[int, dict]:
    """Run the tool; with ``tmp``, as its TMPDIR (which must be left empty)."""
    env = None if tmp is None else {**os.environ, "TMPDIR": str(tmp)}
    result = subprocess.run(
        [sys.executable, TOOL, "--out", out, *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    if tmp is not None:
        assert not list(tmp.iterdir()), f"left in TMPDIR: {sorted(tmp.iterdir())}"
    assert (out / "report.md").exists(), result.stdout + result.stderr
    return result.returncode, json.loads((out / "report.json").read_text())


def test_a_report_of_outputs_failures_skips_timeouts_and_figures(tmp_path: Path) -> None:
    good = _notebook(tmp_path, "good", GOOD)
    failing = _notebook(tmp_path, "failing", FAILING)
    slow = _notebook(tmp_path, "slow", SLOW)
    unreached = _notebook(tmp_path, "unreached", ["print(1)"])
    (tmp_path / "tmp").mkdir()
    code, report = _check(
        tmp_path / "out",
        good,
        failing,
        slow,
        unreached,
        "--budget-s",
        "20",  # the slow notebook runs out the budget, the last one is not reached
        "--min-notebook-s",
        "5",
        tmp=tmp_path / "tmp",  # nothing left behind, a timed-out notebook's included
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
    digests = [c["source_digest"] for c in cells]  # tools/gpu_plan.py tells changed cells by it
    assert all(re.fullmatch(r"[0-9a-f]{16}", d) for d in digests)
    assert len(set(digests)) == len(cells)
    assert [c["stdout"].strip() for c in cells[4:7]] == [
        "Writing answer.py",
        "Appending to answer.py",
        "42",
    ]
    # forked from a process with the stack imported, and ended as Python ends: atexit hooks ran
    assert report["machine"]["preload"]["used"] is True
    assert {"jax", "matplotlib.pyplot"} <= set(report["machine"]["preload"]["loaded"])
    assert (good.parent / "atexit-ran").read_text() == "yes"
    # XLA's compiles are counted per cell: three shapes, three programs (and jnp.ones' own)
    assert cells[0]["compiles"] == 0 and cells[0]["compile_seconds"] == 0
    assert cells[8]["compiles"] >= 3 and 0 < cells[8]["compile_seconds"] <= cells[8]["seconds"]
    assert report["figures"] == [
        {
            "notebook": runs["good"]["notebook"],
            "cell": "1",
            "name": "99_answer",
            "value": "42",
            "rest": "units on cpu",
            "device": "cpu",
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
    assert "Measured on cpu:" in markdown
    longest = markdown.split("## Where the time went")[1].split("##")[0]
    assert re.search(r"\| 8 \| [\d.]+ \| [\d.]+ \| [3-9] \| `import jax` \|", longest)
    assert "GPU shared with another process: unknown" in markdown  # no nvidia-smi here


def test_a_broken_notebook_is_named_in_the_report(tmp_path: Path) -> None:
    broken = tmp_path / "broken" / "lesson.ipynb"
    broken.parent.mkdir()
    broken.write_text("{ not json")
    code, report = _check(tmp_path / "out", broken, "--commit", "0123abc", "--no-preload")
    assert code == 1
    assert report["machine"]["preload"] == {"used": False, "why": "--no-preload"}
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


def test_a_course_solution_passes_without_jupyter(tmp_path: Path) -> None:
    """A solution, with its hidden tests, as the GPU machine runs it."""
    path = solution_notebook("01_jit_compilation")
    code, report = _check(tmp_path / "out", path)
    [run] = report["notebooks"]
    assert code == 0, json.dumps(run, indent=1)[-4000:]
    assert report["machine"]["backend"] == "cpu"


def test_a_profile_reaches_the_notebook_and_strict_mode_fails_a_deprecation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook under a GPU's profile, as a contributor checks a lesson by hand (the suite's
    profile runs, tests/test_device_profiles.py, run every lesson that way in its kernels)."""
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "h200")
    sized = _notebook(
        tmp_path, "sized", ["from course.device import target_device", "print(target_device())"]
    )
    dated = _notebook(  # a filter a cell adds lasts for the later cells, as in a kernel
        tmp_path,
        "dated",
        [
            "import warnings\nwarnings.filterwarnings('ignore', message='noisy')\n"
            "warnings.warn('builtin type stats has no __module__ attribute', DeprecationWarning)",
            "warnings.warn('noisy library')\nwarnings.warn('old API', DeprecationWarning)",
        ],
    )
    code, report = _check(tmp_path / "out", sized, dated, "--strict")
    runs = {Path(r["notebook"]).parent.name: r for r in report["notebooks"]}
    assert code == 1
    assert runs["sized"]["result"] == "pass", json.dumps(runs["sized"], indent=1)[-4000:]
    assert "profile 'h200' simulated on the CPU" in runs["sized"]["cells"][1]["stdout"]
    assert runs["dated"]["result"] == "FAIL"
    assert runs["dated"]["cells"][0]["status"] == "ok", runs["dated"]["cells"][0]
    assert "DeprecationWarning: old API" in runs["dated"]["cells"][1]["traceback"]
    assert runs["dated"]["cells"][1]["warnings"] == [], runs["dated"]["cells"][1]


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


def _figure_strings(source: str) -> list[str]:
    """The "GPU figure:" strings a cell's code prints, each as written ({expression} for a
    formatted value); f-strings split over lines count as one, as Python joins them."""
    tree = ast.parse(source)
    parts = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
             for value in node.values for inner in ast.walk(value)}  # fmt: skip
    found = []
    for node in ast.walk(tree):
        if id(node) in parts:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                for v in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if text.startswith("GPU figure:"):
            found.append(text)
    return found


def test_every_figure_a_lesson_prints_names_its_device_last() -> None:
    """The report files a figure under what follows its last " on ": a note after the device
    ("on NVIDIA H200 (peak 989 TFLOP/s)") made a table of its own in the 2026-12-04 report."""
    figures, misfiled = 0, []
    for path in LESSONS:
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "code" and "GPU figure:" in cell.source:
                for text in _figure_strings(cell.source):
                    figures += 1
                    if not re.search(r" on (\{[^{}]+\}|\w+)$", text):
                        misfiled.append(f"{path.parent.name} cell {index}: {text}")
    assert figures > 90  # the lessons print about a hundred
    assert misfiled == []


def _tool_module(name: str, monkeypatch: pytest.MonkeyPatch):
    path = TOOL.parent / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


# Each notebook records when it ran and the memory variables it saw.
TIMED = [
    "import json, os, time, pathlib\n"
    "start = time.time(); time.sleep(2.5)\n"
    "seen = {k: os.environ.get(k) for k in ('XLA_CLIENT_MEM_FRACTION', "
    "'XLA_PYTHON_CLIENT_MEM_FRACTION', 'XLA_PYTHON_CLIENT_PREALLOCATE')}\n"
    "pathlib.Path(os.environ['RUN_LOG'], pathlib.Path.cwd().name + '.json').write_text("
    "json.dumps([start, time.time(), seen]))"
]


def test_solutions_run_jobs_at_a_time_and_lessons_alone_but_one_on_cpu_devices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log"
    log.mkdir()
    monkeypatch.setenv("RUN_LOG", str(log))
    monkeypatch.setenv("XLA_PYTHON_CLIENT_MEM_FRACTION", ".5")  # the old name: dropped for jobs
    lessons = [_notebook(tmp_path, f"lesson{i}", TIMED) for i in range(3)]
    solutions = []
    for i in range(3):
        path = tmp_path / f"solution{i}" / "exercises.ipynb"
        path.parent.mkdir()
        _notebook(tmp_path, f"solution{i}-src", TIMED).rename(path)
        solutions.append(path)
    code, report = _check(
        tmp_path / "out", *lessons, *solutions, "--jobs", "3", "--beside", lessons[2]
    )  # on a GPU, the lessons whose configuration there runs on CPU devices are the default
    assert code == 0, json.dumps(report["notebooks"], indent=1)[-3000:]
    assert report["jobs"] == 3
    assert report["beside"] == [str(lessons[2])]
    spans = {p.stem: json.loads(p.read_text()) for p in log.glob("*.json")}
    l0, l1, beside = spans["lesson0"], spans["lesson1"], spans["lesson2"]
    sol = [spans[f"solution{i}"] for i in range(3)]
    assert l0[1] <= l1[0] or l1[1] <= l0[0], "two lessons ran at the same time"
    assert beside[0] < min(l0[1], l1[1]), "the lesson on CPU devices waited for a GPU lesson"
    assert max(s[0] for s in sol) < min(s[1] for s in sol), "the solutions did not overlap"
    ended = max(l0[1], l1[1], beside[1])
    assert min(s[0] for s in sol) >= ended, "solutions started before the lessons ended"
    for *_, seen in sol:
        assert seen == {
            "XLA_CLIENT_MEM_FRACTION": "0.300",
            "XLA_PYTHON_CLIENT_MEM_FRACTION": None,
            "XLA_PYTHON_CLIENT_PREALLOCATE": None,
        }
    assert l0[2]["XLA_CLIENT_MEM_FRACTION"] is None  # lessons keep the defaults
    assert l0[2]["XLA_PYTHON_CLIENT_PREALLOCATE"] is None
    assert beside[2]["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"  # the GPU lane has the memory


def test_a_cell_changed_below_its_first_lines_is_scaled_not_taken_as_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gpu_plan = _tool_module("gpu_plan", monkeypatch)
    head_b, head_c = ("\n".join(f"{c}{i}()" for i in range(gpu_plan.HEAD_LINES)) for c in "bc")
    old_b, old_c = f"{head_b}\nslow()", f"{head_c}\nslow()"
    # The old sources, committed where the report says it ran: the report of cell 2 has only
    # their first lines, as reports made before the digest do.
    repo = tmp_path / "course"
    _executed_lesson(repo / "lessons/00_a/lesson.ipynb", [("setup()", 0), (old_b, 0), (old_c, 0)])
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "run"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    cells = [
        {"index": 0, "source_head": "setup()", "seconds": 4.0},
        {"index": 1, "source_head": head_b, "seconds": 20.0},
        {"index": 2, "source_head": head_c, "seconds": 30.0},
    ]
    cells[1]["source_digest"] = gpu_plan.source_digest(old_b)
    row = {"notebook": "lessons/00_a/lesson.ipynb", "result": "pass", "seconds": 55.0}
    (tmp_path / "run.json").write_text(
        json.dumps({"commit": commit, "notebooks": [row | {"cells": cells}]})
    )
    # Now: both long cells changed in their last line; setup ran 2 CPU s against 4 GPU s.
    executed = tmp_path / "executed"
    now = [("setup()", 2), (f"{head_b}\nfast()", 3), (f"{head_c}\nfast()", 1)]
    _executed_lesson(executed / "00_a/lesson.ipynb", now)
    names = ["lessons/00_a/lesson.ipynb"]
    run = [tmp_path / "run.json"]
    # start-up 55 - (4 + 20 + 30) = 1 s; both changed cells scaled by the ratio 4 / 2
    assert gpu_plan.scaled_lessons(run, executed, names, repo)[names[0]].seconds == 4 + 6 + 2 + 1
    # Without the history, cell 2's first lines are all there is to go by: its old 30 s stand,
    # and set the ratio with setup's: (4 + 30) / (2 + 1).
    without = 4 + 3 * 34 / 3 + 30 + 1
    assert gpu_plan.scaled_lessons(run, executed, names)[names[0]].seconds == without
    # and a commit the checkout does not have is the same as no history
    (tmp_path / "run.json").write_text(
        json.dumps({"commit": "0" * 40, "notebooks": [row | {"cells": cells}]})
    )
    assert gpu_plan.scaled_lessons(run, executed, names, repo)[names[0]].seconds == without


def test_the_plan_reads_earlier_reports_and_guesses_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gpu_plan = _tool_module("gpu_plan", monkeypatch)
    md = tmp_path / "report.md"
    md.write_text(
        "| notebook | result | seconds | cells run | skipped | failing cell |\n|---|\n"
        "| lessons/00_a/lesson.ipynb | pass | 20.0 | 3/3 | 0 |  |\n"
        "| lessons/01_b/lesson.ipynb | FAIL | 40.0 | 1/3 | 0 | 2 |\n"
        "| solutions/00_a/exercises.ipynb | pass | 10.0 | 3/3 | 0 |  |\n"
        "| solutions/01_b/exercises.ipynb | not reached | 0.0 | 0/0 | 0 |  |\n"
    )
    known = gpu_plan.known_seconds([md])
    assert known["lessons/01_b/lesson.ipynb"].source == "lower bound"
    assert "solutions/01_b/exercises.ipynb" not in known  # not reached: no time
    names = [
        "lessons/00_a/lesson.ipynb",
        "lessons/01_b/lesson.ipynb",
        "lessons/02_c/lesson.ipynb",  # new: the median of the lessons, 30 s
        "solutions/00_a/exercises.ipynb",
        "solutions/01_b/exercises.ipynb",  # the median of the solutions, 10 s
        "solutions/02_c/exercises.ipynb",
    ]
    plan = gpu_plan.plan(names, known, jobs=2)
    assert plan.timings["lessons/02_c/lesson.ipynb"] == gpu_plan.Timing(30.0, "guess")
    assert plan.lessons_s == 90.0 and plan.solutions_s == 20.0  # 3 x 10 s on 2 queues
    assert plan.total_s == gpu_plan.PROBE_S + 110.0
    assert "fits the budget of 480 s" in gpu_plan.describe(plan, 480)
    assert "s over the budget of 60 s" in gpu_plan.describe(plan, 60)
    # a lesson on CPU devices runs beside the others: the lessons take the longer lane
    beside = gpu_plan.plan(names, known, jobs=2, beside=frozenset({"lessons/01_b/lesson.ipynb"}))
    assert beside.lessons_s == 50.0 and beside.beside_s == 40.0  # 20 + 30 next to 40
    assert "lessons on CPU devices: 40 s" in gpu_plan.describe(beside, 480)
    with pytest.raises(gpu_plan.ReportError, match="report.json: not a gpu_check report"):
        (tmp_path / "report.json").write_text("{}")
        gpu_plan.known_seconds([tmp_path / "report.json"])


def _executed_lesson(path: Path, cells: list[tuple[str, float]]) -> None:
    """An executed notebook as nbclient writes it: each cell's execution timestamps."""
    notebook = nbformat.v4.new_notebook()
    for source, seconds in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["execution"] = {
            "iopub.execute_input": "2026-12-02T10:00:00.000000Z",
            "shell.execute_reply": f"2026-12-02T10:00:{seconds:09.6f}Z",
        }
        notebook.cells.append(cell)
    path.parent.mkdir(parents=True)
    nbformat.write(notebook, path)


def test_a_changed_lesson_is_estimated_cell_by_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gpu_plan = _tool_module("gpu_plan", monkeypatch)
    run = {
        "notebooks": [
            {
                "notebook": "lessons/00_a/lesson.ipynb",
                "result": "pass",
                "seconds": 14.0,  # 4 s of start-up beyond its cells
                "cells": [
                    {"source_head": "setup()", "seconds": 2.0},
                    {"source_head": "time_it(1)", "seconds": 8.0, "compile_seconds": 5.0},
                ],
            }
        ]
    }
    (tmp_path / "run.json").write_text(json.dumps(run))
    executed = tmp_path / "executed"
    # Unchanged cells ran 1 + 3 s on the CPU against 2 + 8 s on the GPU: ratio 2.5.
    _executed_lesson(
        executed / "00_a/lesson.ipynb", [("setup()", 1), ("time_it(1)", 3), ("new()", 4)]
    )
    _executed_lesson(executed / "01_b/lesson.ipynb", [("other()", 2)])  # no GPU run: course ratio
    names = ["lessons/00_a/lesson.ipynb", "lessons/01_b/lesson.ipynb"]
    timings = gpu_plan.scaled_lessons([tmp_path / "run.json"], executed, names)
    assert timings["lessons/00_a/lesson.ipynb"] == gpu_plan.Timing(2 + 8 + 4 * 2.5 + 4, "scaled")
    assert timings["lessons/01_b/lesson.ipynb"] == gpu_plan.Timing(2 * 2.5 + 4, "scaled")
    # where the time goes, cell by cell: the new cell's scaled seconds lead
    rows, _, _ = gpu_plan.estimate_cells([tmp_path / "run.json"], executed, names)[names[0]]
    assert gpu_plan.describe_longest(rows, 2).splitlines()[1:] == [
        "  00_a cell 2:  10.0 s (scaled from the CPU)  new()",
        "  00_a cell 1:   8.0 s (measured, 5.0 s of it compiling)  time_it(1)",
    ]
    # A second run (the course in two commands) that has lesson 01 ran it in 6 s, 1 of them
    # start-up: its own ratio (5 / 2) and overhead replace the course's.
    later = {"notebook": "lessons/01_b/lesson.ipynb", "result": "pass", "seconds": 6.0}
    later["cells"] = [{"source_head": "other()", "seconds": 5.0}]
    (tmp_path / "run2.json").write_text(json.dumps({"notebooks": [later]}))
    both = gpu_plan.scaled_lessons([tmp_path / "run.json", tmp_path / "run2.json"], executed, names)
    assert both["lessons/00_a/lesson.ipynb"] == timings["lessons/00_a/lesson.ipynb"]
    assert both["lessons/01_b/lesson.ipynb"] == gpu_plan.Timing(5 + 1, "scaled")
    # A run in which lesson 00 failed in its first cell and skipped the next: the skipped cell
    # is scaled like a new one (3 CPU s), not taken as 0 s. Lesson 00 matches too little CPU
    # time for a ratio of its own, so the course's counts: (2 + 5) GPU s / (1 + 2) CPU s; its
    # start-up is the typical one, lesson 01's 1 s.
    failed = {"notebook": "lessons/00_a/lesson.ipynb", "result": "FAIL", "seconds": 2.0}
    failed["cells"] = [
        {"source_head": "setup()", "seconds": 2.0, "status": "error"},
        {"source_head": "time_it(1)", "seconds": 0.0, "status": "skipped"},
    ]
    (tmp_path / "run3.json").write_text(json.dumps({"notebooks": [failed, later]}))
    partial = gpu_plan.scaled_lessons([tmp_path / "run3.json"], executed, names)
    expected = round(2 + (3 + 4) * (2 + 5) / (1 + 2) + 1, 1)
    assert partial["lessons/00_a/lesson.ipynb"] == gpu_plan.Timing(expected, "scaled")
    _executed_lesson(executed / "02_c/lesson.ipynb", [("never_run()", 0)])
    (executed / "02_c/lesson.ipynb").write_text(
        (executed / "02_c/lesson.ipynb").read_text().replace("execute_input", "x")
    )
    with pytest.raises(gpu_plan.ReportError, match="02_c/lesson.ipynb: no code cell has an"):
        gpu_plan.scaled_lessons([tmp_path / "run.json"], executed, ["lessons/02_c/lesson.ipynb"])


def test_a_shared_gpu_is_named_in_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    sharing = _tool_module("gpu_sharing", monkeypatch)

    def reading(seconds, util, mib, ours, processes=()):
        return sharing.Reading(seconds, util, mib, 100.0, list(processes), ours)

    quiet = sharing.summarize([reading(0, 0, 400, False), reading(5, 95, 30000, True)])
    assert quiet["shared"] is False and quiet["max_utilization_percent"] == 95
    busy = sharing.summarize([reading(0, 81, 8821, False), reading(5, 99, 40000, True)])
    assert busy["shared"] is True and "81 % utilisation before the first notebook" in busy["why"]
    between = sharing.summarize(
        [reading(0, 0, 400, False), reading(5, 90, 9000, True), reading(10, 60, 400, False)]
    )
    assert between["shared"] is True and "while none of the check's notebooks ran" in between["why"]
    assert sharing.summarize([])["shared"] is None


@pytest.mark.parametrize(
    ("rest", "device"),
    [
        ("x on NVIDIA H200", "NVIDIA H200"),
        ("ms on cpu", "cpu"),
        ("(interpreted on cpu) on cpu", "cpu"),
        ("on NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"),
        ("examples", "unlabelled"),
    ],
)
def test_a_figure_is_filed_under_the_device_it_names(
    rest: str, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _tool_module("gpu_check", monkeypatch).measured_on(rest) == device
