"""The plan tools/gpu_check.py prints before it runs: how long each notebook should take, from
earlier reports, and whether the whole check fits its budget. Standard library only.

Lessons run one after another; solutions run ``jobs`` at a time, so their part of the plan is
the longest of ``jobs`` queues filled longest-first. A notebook no report has timed gets the
median of the timed notebooks of its kind (lesson or solution), marked as a guess.

Lessons change between GPU runs, so a lesson's old total says little about its new form.
``scaled_lessons`` estimates a lesson cell by cell instead: a cell whose source is unchanged
since the GPU run keeps the seconds it took there (the whole source: the report's digest of
it, or for reports without one the cell at the report's commit, read with git; the first lines
alone where neither is there); a changed or new cell gets its seconds on
the CPU (the suite's executed copy, in the CPU configuration) times the lesson's GPU/CPU ratio
over its unchanged cells (the whole course's ratio when the lesson has too few of them). From
the command line (the course's environment, after the suite has executed the lessons):

    python tools/gpu_plan.py docs/gpu-runs/RUN.json [RUN2.json ...] [--executed _build/executed]

A lesson in several runs is estimated from the last run given that has it (a GPU session that
ran the course in two commands leaves two reports).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

# A row of report.md's results table: | notebook | result | seconds | ...
MD_ROW = re.compile(r"^\| (\S+\.ipynb) \| (pass|FAIL|timed out|crashed) \| ([\d.]+) \|", re.M)
PROBE_S = 10.0  # the machine probe: one Python process that imports jax and asks nvidia-smi
DEFAULT_S = 30.0  # when no report times anything of a kind
HEAD_LINES = 8  # a report keeps this many first lines of each cell's source (source_head)
MIN_MATCHED_CPU_S = 2.0  # below this the lesson's own GPU/CPU ratio is noise


class ReportError(ValueError):
    """An earlier report that cannot be read; the message names the file."""


@dataclass(frozen=True)
class Timing:
    seconds: float
    source: str  # "measured", "lower bound" (it failed there), "scaled" or "guess"


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
    lessons_s: float  # the longer of the two lanes: GPU lessons, and lessons on CPU devices
    solutions_s: float
    jobs: int
    beside_s: float = 0.0  # the lessons on CPU devices, run beside the others

    @property
    def total_s(self) -> float:
        return PROBE_S + self.lessons_s + self.solutions_s


def _queues(seconds: list[float], jobs: int) -> float:
    """How long ``jobs`` parallel queues take, longest job first into the shortest queue."""
    queues = [0.0] * jobs
    for value in sorted(seconds, reverse=True):
        queues[queues.index(min(queues))] += value
    return max(queues, default=0.0)


def plan(
    notebooks: list[str], known: dict[str, Timing], jobs: int, beside: frozenset[str] = frozenset()
) -> Plan:
    """The notebooks' times and the run's length; ``beside``: lessons that run next to the
    others, one at a time (tools/gpu_check.py: on CPU devices)."""
    medians = {}
    for kind in ("lesson", "solution"):
        timed = [t.seconds for name, t in known.items() if _kind(name) == kind]
        medians[kind] = statistics.median(timed) if timed else DEFAULT_S
    timings = {name: known.get(name, Timing(medians[_kind(name)], "guess")) for name in notebooks}
    lessons = [t.seconds for n, t in timings.items() if _kind(n) == "lesson" and n not in beside]
    side = [t.seconds for n, t in timings.items() if _kind(n) == "lesson" and n in beside]
    solutions = [t.seconds for name, t in timings.items() if _kind(name) == "solution"]
    lanes = max(sum(lessons), sum(side))
    return Plan(timings, lanes, _queues(solutions, jobs), jobs, sum(side))


def describe(plan: Plan, budget_s: float) -> str:
    lines = ["plan (from earlier GPU runs):"]
    for name, timing in plan.timings.items():
        lines.append(f"  {name}: {timing.seconds:.0f} s ({timing.source})")
    verdict = "fits" if plan.total_s <= budget_s else f"is {plan.total_s - budget_s:.0f} s over"
    if plan.beside_s:
        lines.append(
            f"  (lessons on CPU devices: {plan.beside_s:.0f} s, one at a time beside the others)"
        )
    lines.append(
        f"  = probe {PROBE_S:.0f} s + lessons {plan.lessons_s:.0f} s one at a time + solutions "
        f"{plan.solutions_s:.0f} s on {plan.jobs} jobs = {plan.total_s:.0f} s: {verdict} the "
        f"budget of {budget_s:.0f} s"
    )
    return "\n".join(lines)


def source_head(source: str) -> str:
    """The first lines of a cell's source: how reports (and so the plan) name a cell."""
    return "\n".join(source.splitlines()[:HEAD_LINES])


def source_digest(source: str) -> str:
    """What a report keeps of a cell's whole source, to tell later whether it changed."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def sources_at(commit: str | None, notebook: str, root: Path) -> dict[int, str]:
    """A notebook's cell sources at ``commit`` by cell index, read with git; empty where git or
    the commit is not there (a report of a copy without history)."""
    if not commit:
        return {}
    try:
        shown = subprocess.run(
            ["git", "-C", str(root), "show", f"{commit}:{notebook}"],
            capture_output=True,
            check=True,
            timeout=30,
        )
        cells = json.loads(shown.stdout)["cells"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return {}
    return {index: cell_source(cell["source"]) for index, cell in enumerate(cells)}


def cell_source(source: str | list[str]) -> str:
    """A notebook cell's source as one string (nbformat allows a list of lines)."""
    return "".join(source) if isinstance(source, list) else source


def _unchanged(then: dict, source: str, then_sources: dict[int, str]) -> bool:
    """Whether a run's cell (matched by its first lines) has the same whole source now."""
    if then.get("source_digest"):
        return then["source_digest"] == source_digest(source)
    old = then_sources.get(then.get("index", -1))
    if old is not None and source_head(old) == then.get("source_head"):
        return old == source
    return True  # only the first lines are known, and they match


def _cpu_seconds(cell: dict) -> float | None:
    """The seconds nbclient recorded for an executed cell (its execution timestamps)."""
    timing = cell.get("metadata", {}).get("execution", {})
    try:
        start = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    except (KeyError, TypeError, ValueError):
        return None
    return max((end - start).total_seconds(), 0.0)


@dataclass(frozen=True)
class CodeCell:
    """One code cell of a lesson now: its CPU seconds, and its GPU seconds (with the XLA
    compile seconds among them, where the run recorded them) if unchanged since the run."""

    index: int  # among all the notebook's cells, as tools/gpu_check.py counts them
    first_line: str
    cpu: float
    gpu: float | None
    gpu_compile: float | None


@dataclass(frozen=True)
class LessonCells:
    """One lesson's code cells, and the run's per-lesson overhead (start-up and imports)."""

    cells: list[CodeCell]
    overhead_s: float | None
    not_run: int  # cells the CPU execution did not reach or skipped: counted as 0 s


@dataclass(frozen=True)
class CellEstimate:
    """One lesson cell's part of the plan."""

    notebook: str
    cell: int  # its index among all the notebook's cells, as tools/gpu_check.py reports it
    seconds: float
    measured: bool  # its seconds from the GPU run; else its CPU seconds scaled
    compile_seconds: float | None  # of a measured cell: XLA compiling, where the run recorded it
    first_line: str


def first_line(source: str) -> str:
    """A cell's first line that is not blank: how the plan and the report name a cell."""
    return next((line for line in source.splitlines() if line.strip()), "")


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportError(f"{path}: cannot read it ({error.strerror})") from None
    except ValueError as error:
        raise ReportError(f"{path}: not JSON ({error})") from None


def _lesson_cells(
    run: dict | None, executed: Path, then_sources: dict[int, str] | None = None
) -> LessonCells:
    """``then_sources``: the lesson's cells at the run's commit, where git has them."""
    notebook = _read_json(executed)
    old: dict[str, dict] = {}
    overhead = None
    if run is not None:
        # a cell skipped after a failure has no GPU time: it is scaled like a changed one
        ran = [cell for cell in run["cells"] if cell.get("status") != "skipped"]
        old = {cell["source_head"]: cell for cell in ran}
        if run["result"] == "pass":
            overhead = max(float(run["seconds"]) - sum(float(c["seconds"]) for c in ran), 0.0)
    cells = []
    not_run = 0
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = cell_source(cell["source"])
        then = old.get(source_head(source), {})
        if then and not _unchanged(then, source, then_sources or {}):
            then = {}
        seconds = _cpu_seconds(cell)
        not_run += seconds is None
        gpu, compiling = then.get("seconds"), then.get("compile_seconds")
        cells.append(
            CodeCell(
                index,
                first_line(source),
                seconds or 0.0,
                None if gpu is None else float(gpu),
                None if compiling is None else float(compiling),
            )
        )
    if not_run == len(cells):
        raise ReportError(f"{executed}: no code cell has an execution timing (not executed?)")
    return LessonCells(cells, overhead, not_run)


def _ratio(lessons: list[LessonCells]) -> float | None:
    matched = [cell for lesson in lessons for cell in lesson.cells if cell.gpu is not None]
    cpu = sum(cell.cpu for cell in matched)
    return sum(cell.gpu for cell in matched) / cpu if cpu >= MIN_MATCHED_CPU_S else None  # type: ignore[misc]


def estimate_cells(
    run_paths: list[Path], executed_dir: Path, lessons: list[str], root: Path | None = None
) -> dict[str, tuple[list[CellEstimate], float, int]]:
    """Per lesson: each code cell's estimated GPU seconds (see the module docstring), the
    lesson's start-up seconds, and how many of its cells the CPU execution did not reach.
    ``lessons`` are ``lessons/<name>/lesson.ipynb`` paths, ``executed_dir`` holds
    ``<name>/lesson.ipynb``; a lesson in several runs is taken from the last of them. ``root``:
    the course's git checkout, to read a report's cells at its commit (none: first lines only)."""
    runs: dict[str, tuple[dict, str | None]] = {}
    for path in run_paths:
        report = _read_json(path)
        for row in report.get("notebooks", []):
            runs[row["notebook"]] = (row, report.get("commit"))
    cells = {}
    for name in lessons:
        executed = executed_dir / Path(name).parent.name / "lesson.ipynb"
        run, commit = runs.get(name, (None, None))
        then_sources = sources_at(commit, name, root) if root and run else {}
        cells[name] = _lesson_cells(run, executed, then_sources)
    course_ratio = _ratio(list(cells.values()))
    if course_ratio is None:
        names = ", ".join(str(path) for path in run_paths)
        raise ReportError(f"{names}: no unchanged cell in any lesson to scale from")
    overheads = [c.overhead_s for c in cells.values() if c.overhead_s is not None]
    typical_overhead = statistics.median(overheads) if overheads else 0.0
    estimates = {}
    for name, lesson in cells.items():
        ratio = _ratio([lesson]) or course_ratio
        rows = [
            CellEstimate(
                name,
                cell.index,
                cell.gpu if cell.gpu is not None else cell.cpu * ratio,
                cell.gpu is not None,
                cell.gpu_compile,
                cell.first_line,
            )
            for cell in lesson.cells
        ]
        overhead = lesson.overhead_s if lesson.overhead_s is not None else typical_overhead
        estimates[name] = (rows, overhead, lesson.not_run)
    return estimates


def lesson_timings(
    estimates: dict[str, tuple[list[CellEstimate], float, int]],
) -> dict[str, Timing]:
    """Each lesson's estimated GPU seconds: its cells' and its start-up."""
    timings = {}
    for name, (rows, overhead, not_run) in estimates.items():
        missing = f", {not_run} cells not run on the CPU" if not_run else ""
        seconds = sum(row.seconds for row in rows)
        timings[name] = Timing(round(seconds + overhead, 1), f"scaled{missing}")
    return timings


def scaled_lessons(
    run_paths: list[Path], executed_dir: Path, lessons: list[str], root: Path | None = None
) -> dict[str, Timing]:
    """Each lesson's estimated GPU seconds (``estimate_cells``, summed)."""
    return lesson_timings(estimate_cells(run_paths, executed_dir, lessons, root))


def describe_longest(rows: list[CellEstimate], count: int) -> str:
    """The ``count`` longest lesson cells of the plan: where shrinking a configuration pays."""
    lines = [f"the {count} longest lesson cells of the plan (GPU seconds):"]
    for row in sorted(rows, key=lambda r: r.seconds, reverse=True)[:count]:
        if not row.measured:
            how = "scaled from the CPU"
        elif row.compile_seconds is None:
            how = "measured"
        else:
            how = f"measured, {row.compile_seconds:.1f} s of it compiling"
        lesson = Path(row.notebook).parent.name
        lines.append(f"  {lesson} cell {row.cell}: {row.seconds:5.1f} s ({how})  {row.first_line}")
    return "\n".join(lines)


def lessons_on_cpu_devices(root: Path, lessons: list[str], profile: str) -> frozenset[str]:
    """The lessons the GPU check runs beside the others on that GPU (needs the course's
    environment: each lesson's device-config cell is evaluated for the profile)."""
    import device_table

    from course.device import simulated

    device = simulated(profile)
    return frozenset(
        name
        for name in lessons
        if device_table.configuration(root / name, device)[0].get("devices") == "cpu"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The GPU check's plan, lessons scaled per cell")
    parser.add_argument(
        "runs",
        type=Path,
        nargs="+",
        help="GPU runs' report.json (docs/gpu-runs/*.json); a lesson's last run counts",
    )
    parser.add_argument("--executed", type=Path, default=Path("_build/executed"))
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--budget-s", type=float, default=480.0)
    parser.add_argument("--reports", type=Path, nargs="*", default=[], help="for the solutions")
    parser.add_argument(
        "--longest",
        type=int,
        default=0,
        metavar="N",
        help="also list the N lesson cells with the most estimated GPU seconds",
    )
    parser.add_argument(
        "--profile",
        default="h200",
        help="the GPU whose configurations decide which lessons "
        "run on CPU devices beside the others (course/device.py's PROFILES; default h200)",
    )
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parent.parent
    lessons = [
        f"lessons/{p.parent.name}/lesson.ipynb" for p in sorted(root.glob("lessons/*/lesson.ipynb"))
    ]
    solutions = [
        f"solutions/{p.parent.name}/exercises.ipynb"
        for p in sorted(root.glob("solutions/*/exercises.ipynb"))
    ]
    try:
        known = known_seconds(args.reports or args.runs)
        cells = estimate_cells(args.runs, args.executed, lessons, root)
        known.update(lesson_timings(cells))
    except ReportError as error:
        parser.error(str(error))
    beside = lessons_on_cpu_devices(root, lessons, args.profile)
    print(describe(plan(lessons + solutions, known, args.jobs, beside), args.budget_s))
    if args.longest:
        rows = [row for name, (estimates, _, _) in cells.items() if name not in beside
                for row in estimates]  # fmt: skip
        print(describe_longest(rows, args.longest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
