"""Grade a whole class: N submissions at a time, each in its own limited process.

nbgrader grades one submission at a time against one database. Here every submission
is autograded by nbgrader in a forked child with a private scratch course (see
``autograder.worker``); this parent process starts the children, kills any that overrun
the notebook time limit together with its kernel, and is the only writer of the course
gradebook. One bad submission therefore cannot harm another or the gradebook.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from tqdm import tqdm

from autograder import course_gradebook, report, worker
from autograder.feedback import unavailable_page
from autograder.sandbox import Limits, Sandbox, kill_tree, socket_folder
from autograder.submissions import Submission
from autograder.worker import CRASHED, GRADED, INVALID, TIMED_OUT, Job, Outcome, read_outcome


@dataclass(frozen=True)
class Settings:
    out_dir: Path
    db_url: str
    solutions_dir: Path
    limits: Limits
    workers: int
    strict: bool = False
    sandbox: Sandbox | None = None  # None: the kernels run unsandboxed (--no-sandbox)


@dataclass
class _Running:
    process: BaseProcess
    job: Job
    deadline: float


LOG_TAIL = 20_000  # characters of a log kept for the instructor: its end, where errors are

KERNEL_OUTPUT_HEADER = (
    "\n--- printed by the submission's kernel outside its cells "
    "(the submission wrote this, not the grader) ---\n"
)


def _kernel_output(path: Path) -> str:
    """The end of what the sandboxed kernel printed outside its cells, labelled as the
    submission's; "" when it printed nothing."""
    try:
        with open(path, "rb") as output:
            output.seek(max(output.seek(0, os.SEEK_END) - LOG_TAIL, 0))
            text = output.read().decode(errors="replace")
    except OSError:
        return ""
    return KERNEL_OUTPUT_HEADER + text if text.strip() else ""


def _finish(running: _Running, timed_out: bool) -> Outcome:
    job = running.job
    if timed_out:
        kill_tree(running.process.pid)  # type: ignore[arg-type]
    running.process.join()
    outcome = None if timed_out else read_outcome(job.scratch)
    log_file = job.scratch / worker.LOG_FILE
    log = log_file.read_text(errors="replace")[-LOG_TAIL:] if log_file.exists() else ""
    log += _kernel_output(job.box.kernel_output)
    if outcome is not None:
        outcome.for_instructor += log
        return outcome
    # RLIMIT_CPU (see sandbox.py) ends a process that computed for the whole time limit.
    if timed_out or running.process.exitcode == -signal.SIGXCPU:
        seconds = job.limits.notebook_timeout_s
        return Outcome(
            job.student,
            job.assignment,
            TIMED_OUT,
            for_student=f"grading took longer than the limit of {seconds} s for the notebook",
            for_instructor=f"stopped at the limit of {seconds} s\n{log}",
        )
    return Outcome(
        job.student,
        job.assignment,
        CRASHED,
        for_student="grading stopped unexpectedly (for example, out of memory)",
        for_instructor=f"grading process exit code {running.process.exitcode}\n{log}",
    )


def _record(outcome: Outcome, settings: Settings) -> None:
    course_gradebook.record(settings.db_url, outcome.assignment, outcome.student, outcome.tasks)
    if outcome.status != GRADED or settings.sandbox is None:
        report.write_log(settings.out_dir, outcome)
    feedback = report.feedback_path(settings.out_dir, outcome.student, outcome.assignment)
    if not feedback.exists():  # removed before grading, so it is from this run
        feedback.parent.mkdir(parents=True, exist_ok=True)
        page = unavailable_page(
            outcome.student, outcome.assignment, outcome.status, outcome.for_student
        )
        feedback.write_text(page, encoding="utf-8")


def grade_class(submissions: list[Submission], settings: Settings) -> list[report.Row]:
    """Grade ``submissions``, record them in the gradebook, write ``settings.out_dir``."""
    tqdm.monitor_interval = 0  # no monitor thread: children are forked from this process
    fork = multiprocessing.get_context("fork")
    worker.preload()
    rows: list[report.Row] = []
    with tempfile.TemporaryDirectory(prefix="grade-class-") as tmp:
        run_dir = Path(tmp)
        infos = {}
        for assignment in sorted({s.assignment for s in submissions}):
            template = run_dir / "templates" / assignment
            template_db = f"sqlite:///{template / 'gradebook.db'}"
            course_gradebook.generate(assignment, template, settings.solutions_dir, template_db)
            infos[assignment] = course_gradebook.describe(template_db, assignment)
        in_course_gradebook: set[str] = set()

        def done(outcome: Outcome) -> None:
            if outcome.assignment not in in_course_gradebook:  # once, while workers run
                course_gradebook.generate(
                    outcome.assignment,
                    run_dir / "course" / outcome.assignment,
                    settings.solutions_dir,
                    settings.db_url,
                )
                in_course_gradebook.add(outcome.assignment)
            _record(outcome, settings)
            rows.append(report.Row.from_outcome(outcome, infos[outcome.assignment].max_score))

        finished: list[Outcome] = []  # to record in the gradebook
        pending: list[Job] = []
        for submission in submissions:
            report.feedback_path(
                settings.out_dir, submission.student, submission.assignment
            ).unlink(missing_ok=True)
            if submission.notebook is None:
                finished.append(Outcome(submission.student, submission.assignment, INVALID,
                                        for_student=submission.problem))  # fmt: skip
                continue
            # Short: the kernel's sockets are files in it (see sandbox.SOCKET_PATH_MAX).
            scratch = run_dir / str(len(pending))
            pending.append(
                Job(
                    student=submission.student,
                    assignment=submission.assignment,
                    notebook=submission.notebook.resolve(),
                    template=run_dir / "templates" / submission.assignment,
                    solutions_dir=settings.solutions_dir,
                    scratch=scratch,
                    shared=run_dir / "shared",
                    sockets=scratch / "box" / "k",
                    feedback_html=report.feedback_path(
                        settings.out_dir, submission.student, submission.assignment
                    ),
                    limits=settings.limits,
                    strict=settings.strict,
                    sandbox=settings.sandbox,
                )
            )
        pending.reverse()  # pop() takes them in the order given

        running: dict[int, _Running] = {}
        bar = tqdm(total=len(submissions), unit="notebook", file=sys.stderr)
        try:
            while pending or running or finished:
                # Start the next submissions first: the gradebook is written while they run.
                while pending and len(running) < settings.workers:
                    job = pending.pop()
                    job = replace(job, sockets=socket_folder(job.sockets))
                    job.scratch.mkdir(parents=True)
                    process = fork.Process(target=worker.run, args=(job,))
                    process.start()
                    deadline = time.monotonic() + job.limits.notebook_timeout_s
                    running[process.sentinel] = _Running(process, job, deadline)
                for outcome in finished:
                    done(outcome)
                    bar.update()
                finished.clear()
                if not running:
                    continue
                next_deadline = min(r.deadline for r in running.values())
                ready = wait(list(running), timeout=max(0.0, next_deadline - time.monotonic()))
                now = time.monotonic()
                for sentinel, run in list(running.items()):
                    if sentinel in ready or run.deadline <= now:
                        del running[sentinel]
                        finished.append(_finish(run, timed_out=sentinel not in ready))
                        _remove_scratch(run.job)
        finally:
            for run in running.values():  # interrupted: leave no kernel behind
                kill_tree(run.process.pid)  # type: ignore[arg-type]
                _remove_scratch(run.job)
            bar.close()
    report.write_tables(settings.out_dir, rows, {a: i.grade_cells for a, i in infos.items()})
    return rows


def _remove_scratch(job: Job) -> None:
    shutil.rmtree(job.scratch, ignore_errors=True)
    shutil.rmtree(job.sockets, ignore_errors=True)  # outside the scratch folder when too long
