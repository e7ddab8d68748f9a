"""What the machine running the suite does with memory, printed at the top of every run
(conftest.py's report header), and the CPU time the run used, printed at its end, so that a
run's time can be read against the machine it ran on and the work it did.

On the virtual machines the course's CI and development run on, the guest kernel reports free
memory to its host (virtio-balloon's free page reporting), and a DAMON daemon pages out memory
left unused for a minute. A page the host took back costs a fault on the host when it is used
again: touching 3 GiB of new memory took up to 10.3 s there (4.7 s in another run), and 1.5 s
with the reporting off (docs/contributors.md, "The host's memory, and the same code at 1460 s").
"""

from __future__ import annotations

import os
from dataclasses import astuple, dataclass
from pathlib import Path

SYSFS = Path("/sys")
PAGE_REPORTING_ORDER = Path("module/page_reporting/parameters/page_reporting_order")
KDAMONDS = Path("kernel/mm/damon/admin/kdamonds")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def memory_gib(meminfo: Path = Path("/proc/meminfo")) -> float | None:
    for line in (_read(meminfo) or "").splitlines():
        name, _, value = line.partition(":")
        if name == "MemTotal":
            return int(value.split()[0]) / 2**20  # kB
    return None


def free_page_reporting(sysfs: Path = SYSFS) -> str:
    order = _read(sysfs / PAGE_REPORTING_ORDER)
    if order is None:
        return "off (no page_reporting module)"
    return f"on, free blocks of order {order} and up go back to the host"


def damon_pageout(sysfs: Path = SYSFS) -> str:
    """Whether a running DAMON daemon has a scheme that pages memory out."""
    for kdamond in sorted((sysfs / KDAMONDS).glob("[0-9]*")):
        if _read(kdamond / "state") != "on":
            continue
        actions = {_read(a) for a in kdamond.glob("contexts/*/schemes/*/action")}
        if "pageout" in actions:
            return f"on ({kdamond.name}: pages out memory it finds unused)"
    return "off"


def header() -> list[str]:
    memory = memory_gib()
    size = f"{memory:.0f} GiB" if memory is not None else "memory unknown"
    return [
        f"machine: {os.cpu_count()} cores, {size}",
        f"free page reporting: {free_page_reporting()}",
        f"DAMON pageout: {damon_pageout()}",
    ]


@dataclass(frozen=True)
class CpuTimes:
    """The whole machine's CPU seconds since boot, summed over its cores (/proc/stat)."""

    user: float  # user and nice
    kernel: float  # system, irq and softirq
    idle: float
    iowait: float
    steal: float  # taken by the host for other guests

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(*(a - b for a, b in zip(astuple(self), astuple(other), strict=True)))


def cpu_times(stat: Path = Path("/proc/stat")) -> CpuTimes | None:
    for line in (_read(stat) or "").splitlines():
        name, *fields = line.split() or [""]
        if name == "cpu" and len(fields) >= 8:
            user, nice, system, idle, iowait, irq, softirq, steal = (
                int(f) / os.sysconf("SC_CLK_TCK") for f in fields[:8]
            )
            return CpuTimes(user + nice, system + irq + softirq, idle, iowait, steal)
    return None


def cpu_summary(used: CpuTimes, wall_s: float, cores: int) -> list[str]:
    """The run's CPU time: busy seconds are the work, idle seconds the cores it left unused."""
    busy = used.user + used.kernel
    return [
        f"wall {wall_s:.0f} s on {cores} cores: busy {busy:.0f} CPU s "
        f"(user {used.user:.0f}, kernel {used.kernel:.0f}), idle {used.idle:.0f}, "
        f"iowait {used.iowait:.0f}, steal {used.steal:.0f}",
        f"busy {100 * busy / max(wall_s * cores, 1e-9):.1f} % of the cores; with none idle, "
        f"this work takes {busy / cores:.0f} s",
    ]
