"""Every lesson runs top to bottom in a strict kernel, once: the check, and the book's copy.

This replaces nbval's lax mode (course/book/lessons.py keeps its rules: a cell that raises fails
the lesson unless tagged ``raises-exception``; ``nbval-skip`` cells do not run; outputs are not
compared). Each lesson is a class of its own, so ``--dist loadscope`` spreads them over the
workers; the executed notebook lands in ``_build/executed/<lesson>/``, where
tests/browser/test_book.py builds the book from it instead of executing the lesson again.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from pathlib import Path

import nbformat
import pytest

from autograder import notebooks
from autograder.config import REPO_ROOT
from conftest import AFTER_LESSON_SCOPES, LongestFirstBookAfterLessons
from course.book import lessons
from course.book.lessons import EXECUTED_DIR, LessonFailed

RUN = os.environ.get("COURSE_TEST_RUN", "")


class _Lesson:
    notebook: Path

    def test_runs_top_to_bottom(self) -> None:
        execution = lessons.check(self.notebook, EXECUTED_DIR, run=RUN)
        assert lessons.fresh(self.notebook, EXECUTED_DIR) == execution, "the book's copy"


for _notebook in lessons.lessons():
    _name = f"TestLesson_{_notebook.parent.name}"
    globals()[_name] = type(_name, (_Lesson,), {"notebook": _notebook})


# The rules themselves, on small notebooks (each test starts one kernel).


def _write(folder: Path, *cells: nbformat.NotebookNode) -> Path:
    notebook = nbformat.v4.new_notebook(cells=list(cells))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path = folder / "99_example" / "lesson.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(notebook, path)
    return path


def _code(source: str, *tags: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)} if tags else {})


class TestTheRules:
    def test_expected_errors_and_skips_pass_and_the_copy_keeps_the_outputs(
        self, tmp_path: Path
    ) -> None:
        path = _write(
            tmp_path,
            nbformat.v4.new_markdown_cell("# 99 · Example"),
            _code("import os\nprint('cwd', os.getcwd())"),
            _code("raise ValueError('tagged')", "raises-exception"),
            _code("raise ValueError('nbval tag')", "nbval-raises-exception"),
            _code("# NBVAL_RAISES_EXCEPTION\nraise ValueError('comment')"),
            _code("raise SystemExit('never runs')", "nbval-skip"),
            _code("# NBVAL_SKIP\nraise SystemExit('never runs either')"),
            _code("6 * 7"),
        )
        execution = lessons.check(path, tmp_path / "executed", run="unit")
        assert execution.passed and execution.run == "unit" and execution.lesson == "99_example"
        copy = notebooks.read(tmp_path / "executed" / "99_example" / "lesson.ipynb")
        first = copy.cells[1].outputs[0]
        assert first.text.strip() == f"cwd {path.parent}", "the kernel runs in the lesson folder"
        assert copy.cells[2].outputs[0].ename == "ValueError"
        assert copy.cells[5].outputs == [] and copy.cells[5].execution_count is None
        assert copy.cells[7].outputs[0].data["text/plain"] == "42"
        assert lessons.fresh(path, tmp_path / "executed") == execution
        path.write_text(path.read_text().replace("6 * 7", "6 * 8"))
        assert lessons.fresh(path, tmp_path / "executed") is None, "an edited lesson is stale"

    def test_an_untagged_error_fails_naming_the_file_and_cell(self, tmp_path: Path) -> None:
        path = _write(
            tmp_path,
            _code("x = 1"),
            _code("assert x == 2, 'the claim is false'"),
            _code("print('not reached')"),
        )
        with pytest.raises(LessonFailed) as failure:
            lessons.check(path, tmp_path / "executed")
        message = str(failure.value)
        assert f"{path}: cell 1 raised" in message
        assert "AssertionError: the claim is false" in message
        assert "\x1b[" not in message, "no terminal colours in the message"
        status = lessons.status("99_example", tmp_path / "executed")
        assert status is not None and not status.passed
        assert lessons.fresh(path, tmp_path / "executed") is None

    @pytest.mark.parametrize(
        ("source", "passes"),
        [("print(weight.value)", False), ("print(weight[...])", True)],  # flax 0.12: .value
        ids=["deprecated", "current"],
    )
    def test_deprecated_jax_stack_api_fails_in_the_suites_kernels(
        self, source: str, passes: bool, tmp_path: Path
    ) -> None:
        setup = "import jax.numpy as jnp\nfrom flax import nnx\n\nweight = nnx.Param(jnp.ones(2))"
        path = _write(tmp_path, _code(setup), _code(source))
        execution = lessons.execute(path, tmp_path / "executed")
        assert execution.passed is passes, execution.error
        if not passes:
            assert "DeprecationWarning" in execution.error

    def test_a_malformed_notebook_is_named(self, tmp_path: Path) -> None:
        path = tmp_path / "99_broken" / "lesson.ipynb"
        path.parent.mkdir()
        path.write_text("{ not json")
        with pytest.raises(notebooks.NotebookError, match=str(path)):
            lessons.execute(path, tmp_path / "executed")


# The book is built from these executions: its tests are handed out right after them.


class _Worker:
    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)


def test_the_books_tests_are_handed_out_after_the_lessons_executions() -> None:
    # the queue alone, without a pytest run
    scheduler = LongestFirstBookAfterLessons.__new__(LongestFirstBookAfterLessons)
    scheduler._ordered = False
    book = [f"tests/browser/test_book.py::test_{i}" for i in range(24)]
    lesson = ["tests/test_lessons.py::TestLesson_00_x::test_runs_top_to_bottom"]
    other = ["tests/test_quiz_bank.py::test_a", "tests/test_quiz_bank.py::test_b"]
    worker = _Worker()
    scheduler.registered_collections = {worker: [*book, *lesson, *other]}
    scheduler.assigned_work = {}
    # xdist's queue, largest scope first: the book's 24 tests would go first.
    scheduler.workqueue = OrderedDict(
        [
            ("tests/browser/test_book.py", dict.fromkeys(book, False)),
            ("tests/test_quiz_bank.py", dict.fromkeys(other, False)),
            ("tests/test_lessons.py::TestLesson_00_x", dict.fromkeys(lesson, False)),
        ]
    )
    for _ in range(3):
        scheduler._assign_work_unit(worker)
    assert worker.sent == [[24], list(range(24)), [25, 26]], "lesson, book, the short rest"


def test_every_module_that_needs_every_lesson_is_scheduled_last() -> None:
    marked = {
        str(path.relative_to(REPO_ROOT))
        for path in (REPO_ROOT / "tests").rglob("test_*.py")
        if re.search(r"^pytestmark = pytest\.mark\.needs_every_lesson", path.read_text(), re.M)
    }
    assert marked == set(AFTER_LESSON_SCOPES), "conftest.AFTER_LESSON_SCOPES lists these modules"
