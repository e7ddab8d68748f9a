"""What the machine running the suite does with memory, printed at the top of every run
(conftest.py's report header), so that a run's time can be read against the machine it ran on.

On the virtual machines the course's CI and development run on, the guest kernel reports free
memory to its host (virtio-balloon's free page reporting), and a DAMON daemon pages out memory
left unused for a minute. A page the host took back costs a fault on the host when it is used
again: touching 3 GiB of new memory took up to 10.3 s there (4.7 s in another run), and 1.5 s
with the reporting off (docs/contributors.md, "The host's memory, and the same code at 1460 s").
"""

from __future__ import annotations

import os
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
