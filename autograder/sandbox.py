"""Limits for running one untrusted submission, and stopping it when it overruns.

This is the light local sandbox: per-process memory and CPU limits (inherited by the
student's kernel), a cap on what the kernel may print, and a wall clock enforced by the
caller. It does not isolate the network or the file system: for that, grade inside the
course's container image (README, "Grading untrusted code").
"""

from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path

import psutil  # a dependency of ipykernel, so always installed with the course

from autograder.kernel import make_strict_ipython_dir

# Runs in the student's kernel before any cell: a cell that prints hundreds of MB would
# otherwise be held in the grader's memory before nbgrader's LimitOutput trims it.
OUTPUT_CAP_SCRIPT = """\
import sys


class _CappedStream:
    def __init__(self, stream, limit):
        self._stream, self._left = stream, limit

    def write(self, text):
        if self._left > 0:
            self._left -= len(text)
            self._stream.write(text if self._left >= 0 else text[: len(text) + self._left])
            if self._left <= 0:
                self._stream.write("\\n[output truncated by the grader]\\n")
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


sys.stdout = _CappedStream(sys.stdout, {limit})
sys.stderr = _CappedStream(sys.stderr, {limit})
"""


@dataclass(frozen=True)
class Limits:
    cell_timeout_s: int
    notebook_timeout_s: int
    memory_mb: int
    output_bytes: int


def apply_process_limits(limits: Limits) -> None:
    """Limit this process and every process it starts (the kernel) from now on.

    RLIMIT_DATA rather than RLIMIT_AS: it counts memory a process can actually write,
    so a GPU runtime's large address-space reservations do not trip it.
    """
    memory = limits.memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    cpu = limits.notebook_timeout_s
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))


def make_grading_ipython_dir(directory: Path, limits: Limits, strict: bool) -> Path:
    """An IPYTHONDIR whose startup files cap kernel output (and, if ``strict``, deprecations)."""
    if strict:
        make_strict_ipython_dir(directory)
    startup = directory / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    script = OUTPUT_CAP_SCRIPT.format(limit=limits.output_bytes)
    (startup / "01_cap_output.py").write_text(script, encoding="utf-8")
    return directory


def kill_tree(pid: int) -> None:
    """Kill ``pid`` and all its descendants, children first found so none escapes."""
    try:
        parent = psutil.Process(pid)
        family = [*parent.children(recursive=True), parent]
    except psutil.NoSuchProcess:
        return
    for process in family:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(family, timeout=5)
