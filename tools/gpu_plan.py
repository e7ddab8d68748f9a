"""The plan tools/gpu_check.py prints before it runs: how long each notebook should take, from
earlier reports, and whether the whole check fits its budget. Standard library only.

Lessons run one after another; solutions run ``jobs`` at a time, so their part of the plan is
the longest of ``jobs`` queues filled longest-first. A notebook no report has timed gets the
median of the timed notebooks of its kind (lesson or solution), marked as a guess.
"""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

# A row of report.md's results table: | notebook | result | seconds | ...
MD_ROW = re.compile(r"^\| (\S+\.ipynb) \| (pass|FAIL|timed out|crashed) \| ([\d.]+) \|", re.M)
PROBE_S = 10.0  # the machine probe: one Python process that imports jax and asks nvidia-smi
DEFAULT_S = 30.0  # when no report times anything of a kind


class ReportError(ValueError):
    """An earlier report that cannot be read; the message names the file."""


@dataclass(frozen=True)
class Timing:
    seconds: float
    source: str  # "measured", "lower bound" (it failed there) or "guess"


def _rows(path: Path) -> list[tuple[str, str, float]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ReportError(f"{path}: cannot read it ({error.strerror})") from None
    if path.suffix == ".json":
        try:
            runs = json.loads(text)["notebooks"]
            return [(r["notebook"], r["result"], float(r["seconds"])) for r in runs]
        except (ValueError, KeyError, TypeError) as error:
            raise ReportError(f"{path}: not a gpu_check report.json ({error})") from None
    rows = [(m[1], m[2], float(m[3])) for m in MD_ROW.finditer(text)]
    if not rows:
        raise ReportError(f"{path}: no results table of a gpu_check report.md in it")
    return rows


def known_seconds(reports: list[Path]) -> dict[str, Timing]:
    """Each notebook's time in the reports (a later report wins)."""
    known: dict[str, Timing] = {}
    for path in reports:
        for notebook, result, seconds in _rows(path):
            if seconds > 0:
                source = "measured" if result == "pass" else "lower bound"
                known[notebook] = Timing(seconds, source)
    return known


def _kind(notebook: str) -> str:
    return "lesson" if notebook.endswith("lesson.ipynb") else "solution"


@dataclass(frozen=True)
class Plan:
    timings: dict[str, Timing]
    lessons_s: float
    solutions_s: float
    jobs: int

    @property
    def total_s(self) -> float:
        return PROBE_S + self.lessons_s + self.solutions_s


def _queues(seconds: list[float], jobs: int) -> float:
    """How long ``jobs`` parallel queues take, longest job first into the shortest queue."""
    queues = [0.0] * jobs
    for value in sorted(seconds, reverse=True):
        queues[queues.index(min(queues))] += value
    return max(queues, default=0.0)


def plan(notebooks: list[str], known: dict[str, Timing], jobs: int) -> Plan:
    medians = {}
    for kind in ("lesson", "solution"):
        timed = [t.seconds for name, t in known.items() if _kind(name) == kind]
        medians[kind] = statistics.median(timed) if timed else DEFAULT_S
    timings = {name: known.get(name, Timing(medians[_kind(name)], "guess")) for name in notebooks}
    lessons = [t.seconds for name, t in timings.items() if _kind(name) == "lesson"]
    solutions = [t.seconds for name, t in timings.items() if _kind(name) == "solution"]
    return Plan(timings, sum(lessons), _queues(solutions, jobs), jobs)


def describe(plan: Plan, budget_s: float) -> str:
    lines = ["plan (from earlier reports):"]
    for name, timing in plan.timings.items():
        lines.append(f"  {name}: {timing.seconds:.0f} s ({timing.source})")
    verdict = "fits" if plan.total_s <= budget_s else f"is {plan.total_s - budget_s:.0f} s over"
    lines.append(
        f"  = probe {PROBE_S:.0f} s + lessons {plan.lessons_s:.0f} s one at a time + solutions "
        f"{plan.solutions_s:.0f} s on {plan.jobs} jobs = {plan.total_s:.0f} s: {verdict} the "
        f"budget of {budget_s:.0f} s"
    )
    return "\n".join(lines)
