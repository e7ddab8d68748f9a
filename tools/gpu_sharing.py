"""Was another process using the GPU while the course check ran? nvidia-smi, sampled.

A timing taken while another job shares the GPU is not a clean figure. The check reads
nvidia-smi before its first notebook starts (nothing of its own is on the GPU then) and every
few seconds while it runs, and the report says what it saw. Standard library only: this runs
on a bare GPU box next to tools/gpu_check.py.
"""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field

QUERY_GPU = "--query-gpu=utilization.gpu,memory.used,power.draw"
QUERY_APPS = "--query-compute-apps=pid,process_name,used_memory"
BUSY_PERCENT = 5  # utilisation at or above this, with none of our notebooks running: shared
BUSY_MIB = 1024  # device memory in use by others before we start
SETTLE_S = 2.0  # after a notebook ends, its own work may still show this long


@dataclass
class Reading:
    seconds: float  # since the check started
    utilization_percent: int
    memory_used_mib: int
    power_w: float
    processes: list[str]  # "pid name MiB", as nvidia-smi lists them (often empty in a container)
    ours_running: bool  # whether one of the check's notebooks was running


def _smi(query: str) -> list[list[str]] | None:
    try:
        result = subprocess.run(
            ["nvidia-smi", query, "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if result.returncode != 0:
        return None
    return [[part.strip() for part in line.split(",")] for line in result.stdout.splitlines()]


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:  # "[N/A]"
        return 0.0


def read(seconds: float, ours_running: bool) -> Reading | None:
    """One reading of every GPU on the machine (summed memory, largest utilisation)."""
    gpus = _smi(QUERY_GPU)
    if not gpus:
        return None
    apps = _smi(QUERY_APPS) or []
    return Reading(
        seconds=round(seconds, 1),
        utilization_percent=int(max(_number(row[0]) for row in gpus)),
        memory_used_mib=int(sum(_number(row[1]) for row in gpus)),
        power_w=round(sum(_number(row[2]) for row in gpus), 1),
        processes=[" ".join(row) for row in apps if row and row[0]],
        ours_running=ours_running,
    )


@dataclass
class Sampler:
    """Reads nvidia-smi every ``interval_s`` in a background thread."""

    interval_s: float = 5.0
    readings: list[Reading] = field(default_factory=list)
    running: int = 0  # how many of our notebooks run now (the check keeps it up to date)
    last_end: float = float("-inf")  # perf_counter() when the last of them ended

    def __post_init__(self) -> None:
        self._start = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> Sampler:
        self._sample()  # before anything of ours is on the GPU
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _sample(self) -> None:
        now = time.perf_counter()
        # nvidia-smi's utilisation is an average over its last sample period: a notebook that
        # ended a moment ago still shows in it
        ours = self.running > 0 or now - self.last_end < SETTLE_S
        reading = read(now - self._start, ours)
        if reading is not None:
            self.readings.append(reading)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def summary(self) -> dict[str, object]:
        return summarize(self.readings)


def summarize(readings: list[Reading]) -> dict[str, object]:
    """The verdict and its evidence: was the GPU shared while the check ran?"""
    if not readings:
        return {"shared": None, "why": "nvidia-smi gave no readings (no NVIDIA GPU here?)"}
    before = readings[0]
    idle = [r for r in readings if not r.ours_running]
    busiest_idle = max(idle, key=lambda r: r.utilization_percent, default=before)
    reasons = []
    if before.utilization_percent >= BUSY_PERCENT:
        reasons.append(f"{before.utilization_percent} % utilisation before the first notebook")
    if before.memory_used_mib >= BUSY_MIB:
        reasons.append(f"{before.memory_used_mib} MiB in use before the first notebook")
    if before.processes:
        reasons.append(f"processes before the first notebook: {'; '.join(before.processes)}")
    if busiest_idle is not before and busiest_idle.utilization_percent >= BUSY_PERCENT:
        reasons.append(
            f"{busiest_idle.utilization_percent} % utilisation at {busiest_idle.seconds} s, "
            "while none of the check's notebooks ran"
        )
    return {
        "shared": bool(reasons),
        "why": "; ".join(reasons)
        or (
            f"before the first notebook: {before.utilization_percent} % utilisation, "
            f"{before.memory_used_mib} MiB in use, {before.power_w} W, no processes listed"
        ),
        "max_utilization_percent": max(r.utilization_percent for r in readings),
        "readings": [asdict(r) for r in readings],
    }
