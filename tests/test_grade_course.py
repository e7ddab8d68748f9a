"""End to end on the course's real assignment: lesson 00 graded by the instructor command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat

from tests.course import released_notebook, solution_notebook
from tests.grade_runs import by_student, grade, visible_text

ASSIGNMENT = "00_gpu_detection"

# Issue 20's exploit: every answer cell takes the course root from the course package and
# runs the matching reference cell of solutions/. Without the sandbox it scores full marks.
EXPLOIT = """\
import json, pathlib

try:
    import autograder
except ImportError:
    raise NotImplementedError("no course package to borrow the answer from")
_root = pathlib.Path(autograder.__file__).resolve().parent.parent
_source = _root / "solutions" / "{assignment}" / "exercises.ipynb"
for _cell in json.loads(_source.read_text())["cells"]:
    if _cell["metadata"].get("nbgrader", {{}}).get("grade_id") == "{grade_id}":
        exec("".join(_cell["source"]))
"""


def write_exploit(released: Path, notebook: Path) -> None:
    exploit = nbformat.read(released, as_version=4)
    for cell in exploit.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = EXPLOIT.format(assignment=ASSIGNMENT, grade_id=meta["grade_id"])
    notebook.parent.mkdir(parents=True)
    nbformat.write(exploit, notebook)


def hidden_test_lines(solution: Path, released: Path) -> list[str]:
    """The distinctive lines inside the solution's hidden-test regions that the released
    notebook does not show anyway (a visible test may share a line with a hidden one)."""
    public = released.read_text(encoding="utf-8")
    lines = []
    for cell in json.loads(solution.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if "BEGIN HIDDEN TESTS" in source:
            region = source.split("BEGIN HIDDEN TESTS")[1].split("END HIDDEN TESTS")[0]
            lines += [
                line.strip()
                for line in region.splitlines()
                if len(line.strip()) > 30 and json.dumps(line.strip())[1:-1] not in public
            ]
    return lines


def test_lesson_00_class_is_graded_with_feedback_that_hides_hidden_tests(tmp_path: Path) -> None:
    submitted = tmp_path / "submitted"
    for student, notebook in [
        ("ada", solution_notebook(ASSIGNMENT)),
        ("bob", released_notebook(ASSIGNMENT)),
    ]:
        (submitted / student / ASSIGNMENT).mkdir(parents=True)
        shutil.copyfile(notebook, submitted / student / ASSIGNMENT / "exercises.ipynb")
    write_exploit(released_notebook(ASSIGNMENT), submitted / "eve" / ASSIGNMENT / "exercises.ipynb")

    run = grade(tmp_path, tmp_path / "work", "--assignment", ASSIGNMENT, "--workers", "2")

    assert run.result.returncode == 0, run.result.stderr[-3000:]
    grades = by_student(run)
    assert grades["ada"]["status"] == grades["bob"]["status"] == grades["eve"]["status"]
    assert grades["ada"]["status"] == "graded"
    assert float(grades["ada"]["score"]) == float(grades["ada"]["max_score"]) >= 3
    assert float(grades["bob"]["score"]) == 0
    assert float(grades["eve"]["score"]) == 0, "the sandbox must keep the course package away"
    eve = visible_text(run.out / "feedback" / "eve" / ASSIGNMENT / "exercises.html")
    assert "no course package to borrow the answer from" in eve
    secrets = hidden_test_lines(solution_notebook(ASSIGNMENT), released_notebook(ASSIGNMENT))
    assert secrets
    for student in ("ada", "bob"):
        page = visible_text(run.out / "feedback" / student / ASSIGNMENT / "exercises.html")
        assert "HIDDEN TESTS" not in page
        leaked = [line for line in secrets if line in page]
        assert not leaked, (student, leaked[:3])
