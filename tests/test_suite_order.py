"""The order the suite hands its scopes to the xdist workers (conftest.py), and the measurement
it comes from (tools/scope_seconds.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import (
    AFTER_LESSON_SCOPES,
    LongestFirstBookAfterLessons,
    measured_scope_seconds,
    work_order,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import scope_seconds  # noqa: E402

BOOK = AFTER_LESSON_SCOPES[0]


def test_lessons_first_then_the_book_then_the_rest_longest_first_unmeasured_before_them() -> None:
    lessons = ["tests/test_lessons.py::TestLesson_02", "tests/test_lessons.py::TestLesson_12"]
    seconds = {"tests/a.py": 5.0, "tests/b.py::TestB": 90.0, BOOK: 500.0, "tests/c.py": 20.0}
    seconds |= {lessons[0]: 10.0, lessons[1]: 40.0}
    scopes = [BOOK, "tests/a.py", "tests/new.py", *lessons, "tests/c.py", "tests/b.py::TestB"]
    assert work_order(scopes, seconds) == [
        lessons[1], lessons[0], BOOK, "tests/new.py", "tests/b.py::TestB", "tests/c.py",
        "tests/a.py",
    ]  # fmt: skip
    assert work_order(scopes[:3], seconds) == [BOOK, "tests/new.py", "tests/a.py"], (
        "no lesson in the run: nothing to wait for"
    )


def test_junit_classnames_become_xdist_scopes() -> None:
    assert scope_seconds.scope_of("tests.test_lessons.TestLesson_12_memory") == (
        "tests/test_lessons.py::TestLesson_12_memory"
    )
    assert scope_seconds.scope_of("tests.browser.test_book") == "tests/browser/test_book.py"
    with pytest.raises(ValueError, match="no test module"):
        scope_seconds.scope_of("conftest")
    assert scope_seconds.scope_of("tests.test_autograde.TestAutograde_07_nnx") == (
        "tests/test_exercise_variants.py::TestVariants_07_nnx"
    ), "an assignment's autograde tests run in its variants' scope"


def test_the_scheduler_puts_an_assignments_autograde_and_variants_on_one_worker() -> None:
    scheduler = LongestFirstBookAfterLessons.__new__(LongestFirstBookAfterLessons)
    split = scheduler._split_scope
    autograde = "tests/test_autograde.py::TestAutograde_07_nnx::test_solution_scores_full_marks"
    variant = "tests/test_exercise_variants.py::TestVariants_07_nnx::test_wrong[a]"
    assert (
        split(autograde) == split(variant) == "tests/test_exercise_variants.py::TestVariants_07_nnx"
    )
    assert split("tests/test_lessons.py::TestLesson_07_nnx::test_runs") == (
        "tests/test_lessons.py::TestLesson_07_nnx"
    )
    assert split("tests/test_quiz_bank.py::test_a") == "tests/test_quiz_bank.py"


def test_the_measurement_is_summed_per_scope(tmp_path: Path) -> None:
    junit = tmp_path / "run.xml"
    junit.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_x.TestA" name="one" time="2.5"/>'
        '<testcase classname="tests.test_x.TestA" name="two" time="1.5"/>'
        '<testcase classname="tests.test_y" name="three" time="7"/>'
        "</testsuite></testsuites>",
        encoding="utf-8",
    )
    assert scope_seconds.seconds_per_scope(junit) == {
        "tests/test_y.py": 7.0,
        "tests/test_x.py::TestA": 4.0,
    }
    (tmp_path / "bad.xml").write_text("<testsuites>", encoding="utf-8")
    with pytest.raises(SystemExit, match="bad.xml: not a readable JUnit XML"):
        scope_seconds.seconds_per_scope(tmp_path / "bad.xml")


def test_the_committed_measurement_names_test_files_that_exist() -> None:
    seconds = measured_scope_seconds()
    assert seconds, "tests/scope_seconds.json is missing or unreadable"
    root = Path(__file__).resolve().parent.parent
    gone = {scope.split("::")[0] for scope in seconds} - {
        str(path.relative_to(root)) for path in root.glob("tests/**/test_*.py")
    }
    assert not gone, f"measured files that are gone: {gone}; run tools/scope_seconds.py again"
