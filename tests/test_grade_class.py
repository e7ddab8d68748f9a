"""`python -m autograder grade` on a synthetic class where every kind of submission goes wrong.

The class is graded once in parallel and once serially (module fixtures); the tests read
what those runs wrote. Limits are short (5 s a cell, 1 GiB a process),
so the memory hog is only ever run under the limit the grader enforces. One student, the
burglar, reaches for everything that is not its own (see tests/synthetic_class.py), while a
server of the test's listens on 127.0.0.1.
"""

from __future__ import annotations

import shutil
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from autograder import course_gradebook
from tests import synthetic_class
from tests.grade_runs import (
    Run,
    by_student,
    grade,
    processes_working_in,
    read_csv,
    tree_digest,
    visible_text,
)
from tests.synthetic_class import (
    ASSIGNMENT,
    BURGLAR_ATTEMPTS,
    CLASS,
    DAEMON_MARK,
    HIDDEN_LINES,
    MAX_SCORE,
    REACHED_MARK,
    WRITTEN_MARK,
    Student,
)

# The notebook limit is generous because the machines running the suite may be busy; the
# test of that limit sets its own.
LIMITS = ("--cell-timeout", "5", "--timeout", "180", "--memory-mb", "1024")
EVERYONE = sorted([student.name for student in CLASS] + ["burglar"])


@dataclass
class Server:
    """A TCP server on 127.0.0.1 that counts the connections it accepts."""

    port: int = 0
    connections: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    listener = socket.create_server(("127.0.0.1", 0))
    found = Server(listener.getsockname()[1])

    def serve() -> None:
        while True:
            try:
                connection, address = listener.accept()
            except OSError:
                return
            found.connections.append(str(address))
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield found
    listener.close()


@pytest.fixture(scope="module")
def course(
    tmp_path_factory: pytest.TempPathFactory, server: Server
) -> tuple[Path, Path, Path, str]:
    """(source folder, released notebook, submitted/ tree, digest of the course folder --
    sources, released notebook, submissions -- before grading)."""
    root = tmp_path_factory.mktemp("course")
    released = synthetic_class.write_assignment(root / "solutions")
    students = [*CLASS, synthetic_class.burglar(server.port)]
    synthetic_class.write_class(released, root / "submitted", students)
    return root / "solutions", released, root / "submitted", tree_digest(root)


@pytest.fixture(scope="module")
def parallel(course: tuple[Path, Path, Path, str], tmp_path_factory: pytest.TempPathFactory) -> Run:
    source, _, submitted, _ = course
    work = tmp_path_factory.mktemp("parallel")
    return grade(submitted, work, "--source", str(source), "--workers", "2", *LIMITS)


@pytest.fixture(scope="module")
def serial(course: tuple[Path, Path, Path, str], tmp_path_factory: pytest.TempPathFactory) -> Run:
    source, _, submitted, _ = course
    work = tmp_path_factory.mktemp("serial")
    return grade(submitted, work, "--source", str(source), "--workers", "1", *LIMITS)


@pytest.mark.parametrize("student", CLASS, ids=lambda s: s.name)
def test_each_student_gets_the_expected_status_and_score(student: Student, parallel: Run) -> None:
    row = by_student(parallel)[student.name]
    assert (row["status"], float(row["score"])) == (student.status, student.score), row
    assert float(row["max_score"]) == MAX_SCORE
    assert (parallel.out / "feedback" / student.name / ASSIGNMENT / "exercises.html").is_file()


def test_the_run_finishes_and_its_exit_status_asks_for_attention(parallel: Run) -> None:
    assert parallel.result.returncode == 1, parallel.result.stderr[-3000:]
    summary = parallel.result.stdout
    assert "graded" in summary and "timed out" in summary and "crashed" in summary
    assert f"{ASSIGNMENT}: mean score" in summary
    for student in CLASS:
        flagged = f"needs attention: {student.name} ({ASSIGNMENT})" in parallel.result.stderr
        assert flagged == (student.status != "graded"), student.name
    logged = {path.stem for path in (parallel.out / "logs" / ASSIGNMENT).glob("*.txt")}
    assert logged == {student.name for student in CLASS if student.status != "graded"}


def test_the_gradebook_holds_exactly_the_csv_grades(parallel: Run) -> None:
    recorded = course_gradebook.scores(parallel.db, ASSIGNMENT)
    rows = by_student(parallel)
    assert sorted(recorded) == sorted(rows) == EVERYONE
    for name, cells in recorded.items():
        assert sum(cells.values()) == float(rows[name]["score"]), name
    tasks = read_csv(parallel.out / "tasks.csv")
    assert len(tasks) == len(EVERYONE) * 4  # one row per graded cell and student
    assert {row["task"] for row in tasks} == {
        "task1-visible", "task1-hidden", "task2-visible", "task2-hidden"
    }  # fmt: skip


def test_serial_and_parallel_runs_give_the_same_grades(parallel: Run, serial: Run) -> None:
    assert serial.result.returncode == parallel.result.returncode
    assert read_csv(serial.out / "grades.csv") == read_csv(parallel.out / "grades.csv")
    assert read_csv(serial.out / "tasks.csv") == read_csv(parallel.out / "tasks.csv")
    assert course_gradebook.scores(serial.db, ASSIGNMENT) == course_gradebook.scores(
        parallel.db, ASSIGNMENT
    )


def test_submissions_and_sources_are_never_modified(
    course: tuple[Path, Path, Path, str], parallel: Run, serial: Run
) -> None:
    _, _, submitted, before = course
    assert tree_digest(submitted.parent) == before


def test_a_submission_gets_nothing_it_reaches_for(
    parallel: Run, serial: Run, server: Server, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The burglar: its own (wrong) answers' grade, and nothing else -- not the reference
    answers through the course package, no solution, gradebook, hidden test, other student's
    notebook, grader's folder, network connection, surviving process or file written."""
    for run in (parallel, serial):
        row = by_student(run)["burglar"]
        assert (row["status"], float(row["score"])) == ("graded", 2.0), row
        page = visible_text(run.out / "feedback" / "burglar" / ASSIGNMENT / "exercises.html")
        assert f"burglar tried {BURGLAR_ATTEMPTS} ways, reached 0" in page, page[-3000:]
        assert REACHED_MARK not in page
        raw = (run.out / "feedback" / "burglar" / ASSIGNMENT / "exercises.html").read_text()
        assert "<script>window.burgled" not in raw, "the submission's script runs on its page"
        assert "&lt;script&gt;window.burgled" in raw, "shown as text, escaped"
    assert server.connections == [], "the sandboxed kernel reached the host's 127.0.0.1"
    left = [p.info["cmdline"] for p in psutil.process_iter(["cmdline"])
            if DAEMON_MARK in " ".join(p.info["cmdline"] or [])]  # fmt: skip
    assert not left, left
    written = list(tmp_path_factory.getbasetemp().rglob(WRITTEN_MARK))
    assert not written, written


def test_no_process_is_left_running(parallel: Run, serial: Run) -> None:
    for run in (parallel, serial):
        assert not processes_working_in(run.tmp)
        assert not any(run.tmp.iterdir()), "scratch folders must be removed"


def test_feedback_never_shows_hidden_tests(parallel: Run) -> None:
    pages = sorted((parallel.out / "feedback").rglob("*.html"))
    assert len(pages) == len(EVERYONE)
    for page in pages:
        text = visible_text(page)
        assert "BEGIN HIDDEN TESTS" not in text and "END HIDDEN TESTS" not in text, page
        assert "SECRET" not in text, page
        for line in HIDDEN_LINES:
            assert line.split("  #")[0] not in text, (page, line)
    wrong = visible_text(parallel.out / "feedback" / "wrong" / ASSIGNMENT / "exercises.html")
    assert "AssertionError" in wrong, "students still see that a hidden test failed"
    hog = visible_text(parallel.out / "feedback" / "hog" / ASSIGNMENT / "exercises.html")
    assert "MemoryError" in hog, "the memory limit is what stopped the allocation"


def test_regrading_replaces_and_new_students_add(
    course: tuple[Path, Path, Path, str], parallel: Run, tmp_path: Path
) -> None:
    """Grade a flat LMS download into the same gradebook and output folder."""
    source, released, _, _ = course
    flat = tmp_path / "download"
    correct, wrong = CLASS[0], CLASS[2]
    correct.write(released, flat / "latecomer")  # <student>/exercises.ipynb
    wrong.write(released, tmp_path / "w")
    (tmp_path / "w" / "exercises.ipynb").rename(flat / "wrong.ipynb")  # <student>.ipynb
    before = by_student(parallel)
    work = tmp_path / "work"
    shutil.copytree(parallel.out, work / "out")
    shutil.copyfile(parallel.db.removeprefix("sqlite:///"), tmp_path / "gradebook.db")
    db = f"sqlite:///{tmp_path / 'gradebook.db'}"

    again = grade(flat, work, "--source", str(source), "--assignment", ASSIGNMENT, *LIMITS, db=db)
    assert again.result.returncode == 0, again.result.stderr[-3000:]

    after = by_student(again)
    assert after.pop("latecomer")["score"] == "6.0"
    assert after == before
    recorded = course_gradebook.scores(db, ASSIGNMENT)
    assert len(recorded) == len(EVERYONE) + 1
    assert sum(recorded["wrong"].values()) == float(before["wrong"]["score"])


def test_the_notebook_time_limit_kills_the_grading_and_its_kernel(
    course: tuple[Path, Path, Path, str], tmp_path: Path
) -> None:
    source, released, _, _ = course
    loops = next(student for student in CLASS if student.name == "loops")
    loops.write(released, tmp_path / "class" / "loops" / ASSIGNMENT)
    limits = ("--cell-timeout", "60", "--timeout", "4", "--memory-mb", "1024")
    run = grade(tmp_path / "class", tmp_path / "work", "--source", str(source), *limits)
    assert run.result.returncode == 1
    assert by_student(run)["loops"]["status"] == "timed out"
    assert float(by_student(run)["loops"]["score"]) == 0
    assert (
        "longer than the limit of 4 s"
        in (run.out / "feedback" / "loops" / ASSIGNMENT / "exercises.html").read_text()
    )
    assert not processes_working_in(run.tmp)


def test_a_folder_that_is_not_submissions_gets_a_clear_message(tmp_path: Path) -> None:
    """The command's side; tests/test_grade_units.py checks each kind of wrong folder."""
    (tmp_path / "empty").mkdir()
    run = grade(tmp_path / "empty", tmp_path / "work")
    assert run.result.returncode == 2
    assert "expected either nbgrader's tree" in run.result.stderr
    assert not (tmp_path / "work" / "out").exists()


def test_without_bubblewrap_grading_refuses_unless_told_to_run_unsandboxed(
    course: tuple[Path, Path, Path, str], tmp_path: Path
) -> None:
    source, released, _, _ = course
    CLASS[0].write(released, tmp_path / "class" / "correct" / ASSIGNMENT)
    no_bwrap = {"PATH": str(Path(sys.executable).parent)}  # this Python's scripts, no bwrap
    args = ("--source", str(source), *LIMITS)

    refused = grade(tmp_path / "class", tmp_path / "refused", *args, env=no_bwrap)
    assert refused.result.returncode == 2, refused.result.stderr[-3000:]
    assert "apt-get install bubblewrap" in refused.result.stderr
    assert "--no-sandbox" in refused.result.stderr
    assert not refused.out.exists()

    run = grade(tmp_path / "class", tmp_path / "work", *args, "--no-sandbox", env=no_bwrap)
    assert run.result.returncode == 0, run.result.stderr[-3000:]
    assert by_student(run)["correct"]["score"] == "6.0"
    assert "WITHOUT the sandbox" in run.result.stdout  # the summary says so
    log = (run.out / "logs" / ASSIGNMENT / "correct.txt").read_text()  # and each grade's log
    assert log.startswith("status: graded") and "WITHOUT the sandbox" in log
