"""Grade one submission with nbgrader, alone, in a scratch course folder of its own.

Runs inside a limited child process (see ``autograder.grade_class``). The scratch folder
holds a copy of the assignment's gradebook (from nbgrader's generate step), so nbgrader
stays serial here and no two submissions ever share a database. The outcome is written
to ``result.json`` in the scratch folder; the parent merges it into the course gradebook.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import signal
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute

from autograder import guard
from autograder.config import EXERCISES_NOTEBOOK, course_config
from autograder.feedback import hide_hidden_tests
from autograder.sandbox import (
    NO_SANDBOX_NOTE,
    Box,
    Limits,
    Sandbox,
    apply_process_limits,
    make_grading_ipython_dir,
)

GRADED, TAMPERED = "graded", "tampered"
TIMED_OUT, CRASHED, INVALID = "timed out", "crashed", "invalid"
STATUSES = (GRADED, TAMPERED, TIMED_OUT, CRASHED, INVALID)
RESULT_FILE = "result.json"
LOG_FILE = "worker.log"  # everything the child and the kernel print outside nbgrader's log
TIMEOUT_ERRORS = ("CellTimeoutError", "TimeoutError")


@dataclass
class Outcome:
    student: str
    assignment: str
    status: str
    score: float = 0.0
    tasks: dict[str, float] = field(default_factory=dict)  # grade_id -> score
    for_student: str = ""  # why it could not be graded, safe to show the student
    for_instructor: str = ""  # nbgrader's log when something went wrong


@dataclass(frozen=True)
class Job:
    student: str
    assignment: str
    notebook: Path
    template: Path  # a course folder where the assignment was generated
    solutions_dir: Path
    scratch: Path
    shared: Path  # what the grading processes of one run share (compiled page templates)
    sockets: Path  # the kernel's connection file and sockets (see sandbox.socket_folder)
    feedback_html: Path
    limits: Limits
    strict: bool
    sandbox: Sandbox | None  # None: --no-sandbox

    @property
    def box(self) -> Box:
        return Box(self.scratch / "box", self.sockets)


def _timed_out_cells(notebook: nbformat.NotebookNode) -> bool:
    return any(
        output.get("output_type") == "error" and output.get("ename") in TIMEOUT_ERRORS
        for cell in notebook.cells
        for output in cell.get("outputs", [])
    )


def _check_notebook(path: Path) -> str:
    """Why ``path`` cannot be graded, or "" when it is a readable notebook."""
    try:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:  # nbformat raises several unrelated types
        return f"{path.name} is not a valid notebook ({type(error).__name__})"
    return ""


def boxed_kernel_manager(sandbox: Sandbox, box: Box) -> type[AsyncKernelManager]:
    """jupyter_client's kernel manager, starting its kernel (and only that) inside ``box``."""

    class BoxedKernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            # nbgrader starts the kernel in the folder of its autograded copy of the
            # notebook, which holds the hidden tests: the kernel sees box.work there instead,
            # with the assignment's other files (data the notebook reads).
            cwd = Path(kw.get("cwd") or os.getcwd())
            if not box.work.exists():
                shutil.copytree(cwd, box.work, ignore=shutil.ignore_patterns("*.ipynb"))
            env = kw.get("env") or dict(os.environ)
            ipython_dir = Path(env["IPYTHONDIR"]) if env.get("IPYTHONDIR") else None
            kw["env"] = sandbox.environment(env, box, cwd, ipython_dir)
            # The venv's own ipykernel, whatever kernelspec is installed: a kernelspec's
            # command may name files the box does not hold.
            kernel = [sys.executable, "-m", "ipykernel_launcher", "-f", self.connection_file]
            command = [*sandbox.command(box, cwd, ipython_dir), *kernel]
            with open(box.kernel_output, "ab") as output:  # Popen keeps its own copy
                kw["stdout"] = kw["stderr"] = output
                await super()._async_launch_kernel(command, **kw)

    return BoxedKernelManager


def _boxed_execute(sandbox: Sandbox, box: Box) -> type[Execute]:
    """nbgrader's Execute, whose kernel starts inside ``box``."""
    manager = boxed_kernel_manager(sandbox, box)

    class BoxedExecute(Execute):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("kernel_manager_class", manager)
            super().__init__(*args, **kwargs)

    return BoxedExecute


def _autograde(job: Job, root: Path) -> Outcome:
    problem = _check_notebook(job.notebook)
    if problem:
        return Outcome(job.student, job.assignment, INVALID, for_student=problem)
    submitted = root / "submitted" / job.student / job.assignment / EXERCISES_NOTEBOOK
    submitted.parent.mkdir(parents=True)
    shutil.copyfile(job.notebook, submitted)

    config = course_config(root, job.solutions_dir)
    config.Execute.timeout = job.limits.cell_timeout_s
    # The feedback page shows a submission's outputs: its HTML and JavaScript must not run
    # there (a page that hides the real score behind a forged one).
    config.HTMLExporter.sanitize_html = True
    # Unix sockets: TCP ports picked by concurrent kernels can collide, and then a kernel
    # never starts; and the sandboxed kernel has a network of its own. Socket files in
    # the box (not Linux's abstract "@" names: those belong to the network namespace).
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = str(job.box.sockets / "s")
    config.KernelManager.connection_file = str(job.box.sockets / "kernel.json")
    if job.sandbox is not None:
        execute = _boxed_execute(job.sandbox, job.box)
        default = Autograde.class_traits()["autograde_preprocessors"].default()
        config.Autograde.autograde_preprocessors = [execute if p is Execute else p for p in default]
    api = NbGraderAPI(config=config)
    db_url = config.CourseDirectory.db_url
    # Inside the box: the kernel reads (and removes) the guard's configuration.
    with guard.arm(db_url, job.assignment, job.box.root / "guard") as armed:
        result = api.autograde(job.assignment, job.student)
    log = f"{result.get('log', '')}{result.get('error', '')}"
    if not result["success"]:
        timed_out = any(name in log for name in TIMEOUT_ERRORS) or "timed out" in log
        status = TIMED_OUT if timed_out else CRASHED
        reason = (
            f"a cell ran longer than {job.limits.cell_timeout_s} s and could not be stopped"
            if timed_out
            else "the notebook's kernel stopped (it exited, crashed or ran out of memory)"
        )
        return Outcome(job.student, job.assignment, status, for_student=reason, for_instructor=log)

    autograded = root / "autograded" / job.student / job.assignment / EXERCISES_NOTEBOOK
    disturbed = guard.settle(db_url, job.assignment, job.student, autograded, armed)
    tampered = (
        f"These tests did not run as written, because the notebook changed what they run with "
        f"(library functions, names set by locked cells, or how IPython runs a cell), so they "
        f"score 0: {', '.join(disturbed)}."
        if disturbed
        else ""
    )
    notebook = nbformat.read(autograded, as_version=4)
    nbformat.write(hide_hidden_tests(notebook), autograded)
    feedback = api.generate_feedback(job.assignment, job.student)
    if not feedback["success"]:
        log += f"{feedback.get('log', '')}{feedback.get('error', '')}"
        return Outcome(job.student, job.assignment, CRASHED, for_instructor=log)
    html = root / "feedback" / job.student / job.assignment / "exercises.html"
    job.feedback_html.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(html, job.feedback_html)

    with Gradebook(db_url) as gradebook:
        graded = gradebook.find_submission(job.assignment, job.student)
        tasks = {grade.name: grade.score for nb in graded.notebooks for grade in nb.grades}
        score = graded.score
    status = TIMED_OUT if _timed_out_cells(notebook) else TAMPERED if disturbed else GRADED
    return Outcome(job.student, job.assignment, status, score, tasks, tampered, log)


def _share_compiled_templates(folder: Path) -> None:
    """Let nbconvert keep the feedback page's compiled Jinja templates in ``folder``.

    Every grading process would otherwise compile them again (about half of the CPU time
    that rendering one feedback page takes); Jinja checks each file's checksum, and writes
    a compiled file atomically, so the processes of a run can share them.
    """
    from jinja2 import FileSystemBytecodeCache
    from nbconvert.exporters.templateexporter import TemplateExporter

    folder.mkdir(parents=True, exist_ok=True)
    cache = FileSystemBytecodeCache(str(folder))
    create = TemplateExporter._create_environment

    def create_with_cache(self: TemplateExporter) -> Any:
        environment = create(self)
        environment.bytecode_cache = cache
        return environment

    TemplateExporter._create_environment = create_with_cache  # type: ignore[method-assign]


def _check_each_schema_once() -> None:
    """nbgrader validates the nbgrader metadata of every cell, twice per submission, with
    ``jsonschema.validate``, which checks the schema itself again on every call (a tenth of
    the grader's CPU time for a submission): check it once, then reuse the validator."""
    import jsonschema
    from nbgrader.nbgraderformat import common

    validators: dict[int, tuple[Any, Any]] = {}  # id(schema) -> (schema, its validator)

    def validate(instance: Any, schema: Any) -> None:
        if id(schema) not in validators:
            kind = jsonschema.validators.validator_for(schema)
            kind.check_schema(schema)
            validators[id(schema)] = (schema, kind(schema))
        error = jsonschema.exceptions.best_match(validators[id(schema)][1].iter_errors(instance))
        if error is not None:
            raise error

    common.jsonschema = SimpleNamespace(validate=validate)  # type: ignore[attr-defined]


def run(job: Job) -> None:
    """The child process's whole life: limits, grading, ``result.json``."""
    os.setsid()  # the instructor's Ctrl-C reaches the parent, which stops us cleanly
    # jupyter_client interrupts a cell that overran by sending SIGINT to the kernel's process
    # group; with the sandbox, bwrap leads that group and must survive it (the kernel's own
    # handler is set by ipykernel itself, whatever it inherits).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    log = os.open(job.scratch / LOG_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    if job.sandbox is None:
        print(NO_SANDBOX_NOTE, flush=True)
    apply_process_limits(job.limits)
    _share_compiled_templates(job.shared / "templates")
    _check_each_schema_once()
    root = job.scratch / "course"
    shutil.copytree(job.template, root)
    box = Box.create(job.box.root, job.box.sockets)
    ipython_dir = make_grading_ipython_dir(box.ipython, job.limits, job.strict)
    os.environ["IPYTHONDIR"] = str(ipython_dir)
    outcome = _autograde(job, root)
    (job.scratch / RESULT_FILE).write_text(json.dumps(asdict(outcome)), encoding="utf-8")


# What every grading process imports on first use: IPython and ipykernel (jupyter_client's
# python3 kernel spec), the feedback page's lexers and Markdown plugins. Imported once in the
# parent, before it forks, they cost no submission anything.
PRELOAD = (
    "ipykernel.kernelspec",
    "IPython.lib.lexers",
    "pygments.lexers.markup",
    "pygments.lexers.shell",
    "jinja2.ext",
    "mistune.plugins.def_list",
    "mistune.plugins.task_lists",
    "mistune.plugins.url",
)


def preload() -> None:
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def read_outcome(scratch: Path) -> Outcome | None:
    """The outcome a child wrote, or None when it died before writing one."""
    try:
        return Outcome(**json.loads((scratch / RESULT_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
