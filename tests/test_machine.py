"""The machine facts printed at the top of every run read the kernel's files correctly."""

from __future__ import annotations

import os
from pathlib import Path

from tests import machine


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_free_page_reporting_names_its_order_or_its_absence(tmp_path: Path) -> None:
    assert machine.free_page_reporting(tmp_path).startswith("off")
    _write(tmp_path / machine.PAGE_REPORTING_ORDER, "9\n")
    assert machine.free_page_reporting(tmp_path).startswith("on, free blocks of order 9 ")


def test_damon_pageout_needs_a_running_daemon_with_a_pageout_scheme(tmp_path: Path) -> None:
    daemon = tmp_path / machine.KDAMONDS / "0"
    _write(daemon / "state", "on\n")
    _write(daemon / "contexts/0/schemes/0/action", "stat\n")
    assert machine.damon_pageout(tmp_path) == "off"
    _write(daemon / "contexts/0/schemes/1/action", "pageout\n")
    assert machine.damon_pageout(tmp_path).startswith("on (0:")
    _write(daemon / "state", "off\n")
    assert machine.damon_pageout(tmp_path) == "off"


def test_memory_is_read_from_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    _write(meminfo, "MemTotal:       25165824 kB\nMemFree:        1 kB\n")
    assert machine.memory_gib(meminfo) == 24
    assert machine.memory_gib(tmp_path / "missing") is None


def test_the_header_has_a_line_per_fact() -> None:
    lines = machine.header()
    assert [line.split(":")[0] for line in lines] == [
        "machine",
        "free page reporting",
        "DAMON pageout",
    ]


def test_cpu_times_sum_the_first_line_of_proc_stat_in_seconds(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    hz = os.sysconf("SC_CLK_TCK")
    fields = [f * hz for f in (10, 1, 4, 50, 2, 1, 1, 3, 0, 0)]
    _write(stat, "cpu  " + " ".join(map(str, fields)) + "\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
    assert machine.cpu_times(stat) == machine.CpuTimes(11, 6, 50, 2, 3)
    assert machine.cpu_times(tmp_path / "missing") is None


def test_the_cpu_summary_says_the_work_and_what_it_would_take_on_busy_cores() -> None:
    used = machine.CpuTimes(1800, 200, 100, 10, 5) - machine.CpuTimes(0, 0, 0, 0, 0)
    first, second = machine.cpu_summary(used, wall_s=1100, cores=2)
    assert first == (
        "wall 1100 s on 2 cores: busy 2000 CPU s (user 1800, kernel 200), idle 100, "
        "iowait 10, steal 5"
    )
    assert second == "busy 90.9 % of the cores; with none idle, this work takes 1000 s"
