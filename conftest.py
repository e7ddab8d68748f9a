"""pytest set-up for the whole repository: strict kernels, forked from a pool, one run id, the
book's tests after the lessons' executions, and the grading kernels' compilation cache."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

from autograder.kernel import strict_kernels
from tests.kernel_pool import POOL_VARIABLE
from tests.machine import CpuTimes, cpu_summary, cpu_times, header
from tests.scopes import scheduling_scope

# The id of this test run, shared by its xdist workers (they inherit the environment of the
# process that starts them, after pytest_configure ran there): the lessons' executions carry
# it, so the book's tests can tell this run's executions from an earlier run's.
RUN_VARIABLE = "COURSE_TEST_RUN"
# The modules of the tests marked needs_every_lesson: under --dist loadscope each is one scope,
# handed out right after the last of the lessons' executions (LESSON_SCOPES), which it waits for.
AFTER_LESSON_SCOPES = ("tests/browser/test_book.py",)
LESSON_SCOPES = "tests/test_lessons.py::"
SCOPE_SECONDS = Path(__file__).resolve().parent / "tests" / "scope_seconds.json"
_session = ExitStack()
# The machine's CPU times when the run started (the controller's, not a worker's), and when.
_start: tuple[CpuTimes | None, float] = (None, 0.0)


def pytest_configure(config: pytest.Config) -> None:
    global _start
    if not hasattr(config, "workerinput"):
        _start = (cpu_times(), time.monotonic())
    # Every kernel started by nbclient or nbgrader in this run turns JAX-stack
    # DeprecationWarnings into errors (see autograder/kernel.py).
    _session.enter_context(strict_kernels())
    os.environ.setdefault(RUN_VARIABLE, uuid.uuid4().hex)
    if POOL_VARIABLE not in os.environ:  # the controller (xdist workers inherit its pool)
        _session.callback(_close_kernel_pool, _open_kernel_pool())
    config.addinivalue_line(
        "markers", "needs_every_lesson: runs after the rest; waits for the lessons' executions"
    )


def pytest_report_header(config: pytest.Config) -> list[str]:
    return header()  # the run's time depends on them (tests/machine.py)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    before, started = _start
    after = cpu_times()
    if before is None or after is None:
        return
    terminalreporter.write_sep("-", "CPU time of this run, the whole machine (/proc/stat)")
    for line in cpu_summary(after - before, time.monotonic() - started, os.cpu_count() or 1):
        terminalreporter.write_line(line)


def pytest_unconfigure(config: pytest.Config) -> None:
    _session.close()


# The kernels of this run start from tests/kernel_pool.py's servers, which have the stack
# imported already (about 5 s of CPU saved per kernel): a "python3" kernelspec of the
# suite's own, first on JUPYTER_PATH, runs its launcher. COURSE_KERNEL_POOL=off turns it off.
def _open_kernel_pool() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="kernel-pool-"))
    (folder / "servers").mkdir()
    spec = folder / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    launcher = Path(__file__).resolve().parent / "tests" / "kernel_pool.py"
    kernelspec = {
        "argv": [sys.executable, str(launcher), "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "metadata": {"debugger": True},
    }
    (spec / "kernel.json").write_text(json.dumps(kernelspec, indent=1), encoding="utf-8")
    os.environ[POOL_VARIABLE] = str(folder / "servers")
    paths = [str(folder / "jupyter"), *filter(None, [os.environ.get("JUPYTER_PATH")])]
    os.environ["JUPYTER_PATH"] = os.pathsep.join(paths)
    return folder


def _close_kernel_pool(folder: Path) -> None:
    for pid_file in (folder / "servers").glob("*.pid"):
        try:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        except (ProcessLookupError, ValueError):
            pass
    shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Last when the tests run in order (no xdist, or --dist load).
    items.sort(key=lambda item: item.get_closest_marker("needs_every_lesson") is not None)


def work_order(scopes: list[str], seconds: dict[str, float]) -> list[str]:
    """The order to hand scopes out in: the lessons' executions first, AFTER_LESSON_SCOPES right
    after them (they wait for those executions), then the rest; each part longest first by a
    measured run (a scope the measurement does not know first of all: it may be new and long).
    With the lessons last among the scopes of their length, the book started late and ran
    alone at the end (the last 50 s of the 63c9e8c run); started early, it is one more long scope
    and the short ones fill the end."""

    def longest_first(part: list[str]) -> list[str]:
        return sorted(part, key=lambda s: -seconds.get(s, math.inf))

    lessons = [s for s in scopes if s.startswith(LESSON_SCOPES)]
    after = [s for s in scopes if s.startswith(AFTER_LESSON_SCOPES)]
    rest = [s for s in scopes if s not in lessons and s not in after]
    return longest_first(lessons) + after + longest_first(rest)


def measured_scope_seconds() -> dict[str, float]:
    try:
        return json.loads(SCOPE_SECONDS.read_text(encoding="utf-8"))["seconds"]
    except (OSError, ValueError, KeyError) as error:
        print(f"{SCOPE_SECONDS}: {error}; scopes go out in xdist's order", file=sys.stderr)
        return {}


class LongestFirstBookAfterLessons(LoadScopeScheduling):
    """--dist loadscope, with the lessons' executions handed out first, AFTER_LESSON_SCOPES right
    after them, the rest longest first (``work_order``), and an assignment's autograde tests in
    the scope of its variant tests (tests/scopes.py).

    xdist queues the scopes with the most tests first. That put the book's 24 tests first and
    left a worker waiting for the other to execute every lesson, and it queued the lessons'
    executions (one test each) near the end, just before the book, which waits for them.
    Lessons first and the rest longest first, the lessons, the book and the device-profile
    runs start early and the short scopes fill the end. The order comes from a measured run
    (tests/scope_seconds.json, written by tools/scope_seconds.py). Handed out after them, the
    book finds the lessons' executions done or running (a worker runs its scopes in the order
    it got them).
    """

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self._ordered = False

    def _split_scope(self, nodeid: str) -> str:
        return scheduling_scope(super()._split_scope(nodeid))

    def _assign_work_unit(self, node: WorkerController) -> None:
        if not self._ordered:  # the first call: the queue holds every scope by now
            for scope in work_order(list(self.workqueue), measured_scope_seconds()):
                self.workqueue.move_to_end(scope)
            self._ordered = True
        super()._assign_work_unit(node)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadScopeScheduling | None:
    if config.getvalue("dist") != "loadscope":
        return None
    return LongestFirstBookAfterLessons(config, log)


# JAX's persistent compilation cache for the suite's grading kernels: the solution, the release
# and every variant of an assignment compile the same set-up and test programs, so each program
# is compiled once per worker and loaded from disk afterwards. One folder per xdist worker (jax
# writes cache files in place, so two processes must not share one). Lesson kernels (the lesson
# runs, device profiles) never get it: lessons time first calls and count compiles themselves, and
# lesson 01 demonstrates this cache in folders of its own.
GRADING_COMPILE_CACHE = {
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
}


@pytest.fixture(scope="session")
def _worker_compile_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("jax-compile-cache")


@pytest.fixture
def grading_compile_cache(_worker_compile_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Kernels started during the test share this worker's compilation cache."""
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(_worker_compile_cache))
    for name, value in GRADING_COMPILE_CACHE.items():
        monkeypatch.setenv(name, value)
    return _worker_compile_cache
