"""CPU seconds per test: where the suite's CPU goes, forked kernels included.

    make test PYTEST_ARGS="-n 3 --dist loadscope -p cpu_per_test" PYTHONPATH=tools \
        COURSE_CPU_LOG=/tmp/cpu.jsonl
    python tools/cpu_per_test.py /tmp/cpu.jsonl          the CPU seconds by file and by class

The suite is CPU-bound on two cores, so its time is its CPU seconds over two; worker seconds
(pytest's durations) are not, since three workers on two cores each run slower and a test that
waits counts its waiting. As a pytest plugin this module samples, every 0.3 s, the CPU time of
every process that belongs to the worker and adds what they used to the test that is running.
A process belongs to the worker when it descends from it, or when it writes to the same
standard output as one that does: the kernel pool (tests/kernel_pool.py) forks kernels from
its server, not from the worker, and hands them the launcher's streams, which pytest's capture
makes a file of the worker's own. CPU a process uses in its last 0.3 s is not seen.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

LOG_VARIABLE = "COURSE_CPU_LOG"
SAMPLE_S = 0.3


def _stdout_of(pid: int) -> str | None:
    try:
        target = os.readlink(f"/proc/{pid}/fd/1")
    except OSError:
        return None
    # a pipe, or a deleted temporary file (pytest's capture): shared only by related processes
    return target if target.startswith("pipe:") or target.endswith("(deleted)") else None


class CpuMeter:
    """The CPU seconds used by a process's family since it started, sampled in a thread."""

    def __init__(self, pid: int) -> None:
        import psutil  # the suite's environment has it; the summary below does not need it

        self._psutil = psutil
        self._root = psutil.Process(pid)
        self._seen: dict[tuple[int, float], float] = {}
        self._total = 0.0
        self._lock = threading.Lock()
        threading.Thread(target=self._run, daemon=True).start()

    def total(self) -> float:
        with self._lock:
            return self._total

    def _family(self) -> Iterator[object]:
        psutil = self._psutil
        try:
            tree = [self._root, *self._root.children(recursive=True)]
        except psutil.Error:
            tree = [self._root]
        yield from tree
        streams = {_stdout_of(p.pid) for p in tree} - {None}
        if not streams:
            return
        ours = {p.pid for p in tree}
        for process in psutil.process_iter():
            if process.pid not in ours and _stdout_of(process.pid) in streams:
                yield process
                try:
                    yield from process.children(recursive=True)
                except psutil.Error:
                    pass

    def _sample(self) -> None:
        now: dict[tuple[int, float], float] = {}
        used = 0.0
        for process in self._family():
            try:
                times = process.cpu_times()
                key = (process.pid, process.create_time())
            except self._psutil.Error:
                continue
            if key in now:
                continue
            now[key] = times.user + times.system
            used += max(now[key] - self._seen.get(key, 0.0), 0.0)
        self._seen = now
        with self._lock:
            self._total += used

    def _run(self) -> None:
        while True:
            self._sample()
            time.sleep(SAMPLE_S)


_meters: list[CpuMeter] = []  # started with the process's first test: xdist's controller runs none


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if not os.environ.get(LOG_VARIABLE):
        yield
        return
    if not _meters:
        _meters.append(CpuMeter(os.getpid()))
    meter = _meters[0]
    before, start = meter.total(), time.perf_counter()
    yield
    time.sleep(SAMPLE_S + 0.05)  # one more sample: what the test's processes used at its end
    record = {
        "test": item.nodeid,
        "cpu_s": round(meter.total() - before, 2),
        "wall_s": round(time.perf_counter() - start, 2),
    }
    with open(os.environ[LOG_VARIABLE], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")


def file_of(test: str) -> str:
    return test.split("::")[0]


def scope(test: str) -> str:
    """The test's file, and its class where it has one."""
    parts = test.split("::")
    return "::".join(parts[:2]) if len(parts) > 2 else parts[0]


def summary(records: list[dict], top: int) -> str:
    cpu, wall = Counter[str](), Counter[str]()
    for record in records:
        for key in {file_of(record["test"]), scope(record["test"])}:
            cpu[key] += record["cpu_s"]
            wall[key] += record["wall_s"]
    files = sorted({file_of(r["test"]) for r in records}, key=lambda f: -cpu[f])
    total = sum(r["cpu_s"] for r in records)
    lines = [f"{len(records)} tests, {total:.0f} CPU s ({total / 2:.0f} s on two cores, none idle)"]
    lines.append(f"{'CPU s':>8} {'worker s':>9}  file")
    lines += [f"{cpu[f]:8.1f} {wall[f]:9.1f}  {f}" for f in files]
    scopes = sorted({scope(r["test"]) for r in records}, key=lambda s: -cpu[s])[:top]
    lines.append(f"\n{'CPU s':>8} {'worker s':>9}  the {top} costliest classes and files")
    lines += [f"{cpu[s]:8.1f} {wall[s]:9.1f}  {s}" for s in scopes]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", type=Path, help=f"the file {LOG_VARIABLE} named")
    parser.add_argument("--top", type=int, default=25, help="classes to list (25)")
    args = parser.parse_args()
    try:
        lines = args.log.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        text = summary(records, args.top)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(
            f"{args.log}: not a CPU log of this plugin ({type(error).__name__}: {error})",
            file=sys.stderr,
        )
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
