"""The GPU check's reports committed under ``docs/gpu-runs/``, as the book reads them.

A run is ``docs/gpu-runs/STEM.json``: the ``report.json`` that ``tools/gpu_check.py`` writes
(machine, per notebook every cell's index, status, text output, figure names and the first
lines of its source), with its ``date`` and ``commit``, and optionally a ``note`` saying how
to read it. Beside it may lie ``STEM.md`` (the report for people) and ``STEM.figures.zip``
(the run's plots). ``tools/add_gpu_run.py`` copies a run there under these names.

A cell's GPU output belongs under a lesson cell only when the run saw the same cell: same
index and same first lines of source (``source_head``, as gpu_check stores it). Otherwise
the cell has changed since the run, and the book says so instead of showing a stale output.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from autograder.config import REPO_ROOT

GPU_RUNS_DIR = REPO_ROOT / "docs" / "gpu-runs"
HEAD_LINES = 8  # gpu_check keeps this many first lines of each cell's source (gpu_plan's)
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}\b")


class GpuRunError(ValueError):
    """A run file the book cannot read; the message names the file and what is wrong."""


@dataclass(frozen=True)
class RunCell:
    index: int
    status: str  # ok | error | skipped | expected-error | running
    seconds: float
    stdout: str
    stderr: str
    figures: tuple[str, ...]
    source_head: str
    traceback: str
    note: str


@dataclass(frozen=True)
class LessonRun:
    """One lesson notebook as one GPU run executed it."""

    notebook: str
    result: str  # pass | FAIL | timed out | crashed | not reached
    seconds: float
    failing_cell: int | None
    cells: dict[int, RunCell]


@dataclass(frozen=True)
class GpuRun:
    path: Path
    date: str
    commit: str | None
    note: str
    backend: str
    device_kind: str
    device_count: int
    versions: dict[str, str]
    figures: tuple[dict[str, str], ...]
    lessons: dict[str, LessonRun]  # by lesson folder, e.g. "02_async_timing"
    shared: bool | None = None  # whether another process used the GPU (gpu_check's verdict)
    sharing: str = ""  # the evidence for that verdict

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def day(self) -> str:
        return self.date[:10]

    @property
    def device(self) -> str:
        return f"{self.device_count} × {self.device_kind}"

    @property
    def report_md(self) -> Path | None:
        path = self.path.with_suffix(".md")
        return path if path.is_file() else None

    @property
    def figures_zip(self) -> Path | None:
        path = self.path.with_name(f"{self.stem}.figures.zip")
        return path if path.is_file() else None

    def figure_png(self, name: str) -> bytes | None:
        """The PNG the run saved as ``name``, or None when the run kept no such figure."""
        archive = self.figures_zip
        if archive is None:
            return None
        with zipfile.ZipFile(archive) as figures:
            return figures.read(name) if name in figures.namelist() else None

    def lesson_figures(self, lesson: str) -> list[dict[str, str]]:
        """The run's ``GPU figure:`` rows printed by ``lesson``'s notebook."""
        return [row for row in self.figures if lesson_of(row.get("notebook", "")) == lesson]


def source_head(source: str) -> str:
    """The first lines of a cell's source, exactly as tools/gpu_check.py stores them."""
    return "\n".join(source.splitlines()[:HEAD_LINES])


def lesson_of(notebook: str) -> str | None:
    """``02_async_timing`` for ``lessons/02_async_timing/lesson.ipynb`` (any prefix); else None."""
    parts = Path(notebook).parts
    if len(parts) >= 3 and parts[-1] == "lesson.ipynb" and parts[-3] == "lessons":
        return parts[-2]
    return None


def _need(where: object, data: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise GpuRunError(f"{where}: {key!r} must be a {names}, found {value!r:.80}")
    return value


def _cell(path: Path, notebook: str, raw: object) -> RunCell:
    if not isinstance(raw, dict):
        raise GpuRunError(f"{path}: {notebook}: every cell must be an object")
    where = f"{path}: {notebook}, cell {raw.get('index')!r}"
    figures = _need(where, raw, "figures", list)
    return RunCell(
        index=_need(where, raw, "index", int),
        status=_need(where, raw, "status", str),
        seconds=float(_need(where, raw, "seconds", (int, float))),
        stdout=_need(where, raw, "stdout", str),
        stderr=str(raw.get("stderr", "")),
        figures=tuple(str(name) for name in figures),
        source_head=_need(where, raw, "source_head", str),
        traceback=str(raw.get("traceback", "")),
        note=str(raw.get("note", "")),
    )


def _lesson_run(path: Path, raw: object) -> LessonRun | None:
    if not isinstance(raw, dict):
        raise GpuRunError(f"{path}: every entry of 'notebooks' must be an object")
    notebook = _need(path, raw, "notebook", str)
    if lesson_of(notebook) is None:
        return None  # a solution notebook: never part of the book
    cells = [_cell(path, notebook, cell) for cell in _need(path, raw, "cells", list)]
    failing = raw.get("failing_cell")
    return LessonRun(
        notebook=notebook,
        result=_need(path, raw, "result", str),
        seconds=float(raw.get("seconds", 0.0)),
        failing_cell=failing if isinstance(failing, int) else None,
        cells={cell.index: cell for cell in cells},
    )


def load_run(path: Path) -> GpuRun:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise GpuRunError(f"{path}: not a readable GPU run report ({error})") from error
    if not isinstance(data, dict):
        raise GpuRunError(f"{path}: a GPU run report must be a JSON object")
    date = _need(path, data, "date", str)
    if not DATE.match(date):
        raise GpuRunError(f"{path}: 'date' must start YYYY-MM-DD, found {date!r}")
    machine = _need(path, data, "machine", dict)
    commit = data.get("commit")
    lessons: dict[str, LessonRun] = {}
    for raw in _need(path, data, "notebooks", list):
        run = _lesson_run(path, raw)
        if run is not None:
            lessons[str(lesson_of(run.notebook))] = run
    figures = data.get("figures", [])
    if not isinstance(figures, list) or not all(isinstance(row, dict) for row in figures):
        raise GpuRunError(f"{path}: 'figures' must be a list of objects")
    sharing = data.get("gpu_sharing") if isinstance(data.get("gpu_sharing"), dict) else {}
    shared = sharing.get("shared")
    return GpuRun(
        path=path,
        date=date,
        commit=commit if isinstance(commit, str) and commit else None,
        note=str(data.get("note", "")),
        backend=str(machine.get("backend", "?")),
        device_kind=_need(path, machine, "device_kind", str),
        device_count=int(machine.get("device_count", 1)),
        versions={str(k): str(v) for k, v in dict(machine.get("versions", {})).items()},
        figures=tuple({str(k): str(v) for k, v in row.items()} for row in figures),
        lessons=lessons,
        shared=shared if isinstance(shared, bool) else None,
        sharing=str(sharing.get("why", "")),
    )


def load_runs(folder: Path = GPU_RUNS_DIR) -> list[GpuRun]:
    """Every run under ``folder``, oldest first."""
    return sorted((load_run(path) for path in folder.glob("*.json")), key=lambda r: r.date)


def run_for_lesson(runs: list[GpuRun], lesson: str) -> tuple[GpuRun, LessonRun] | None:
    """The newest run that executed ``lesson`` (a run that did not reach it does not count)."""
    for run in reversed(runs):
        lesson_run = run.lessons.get(lesson)
        if lesson_run is not None and lesson_run.result != "not reached":
            return run, lesson_run
    return None


@dataclass(frozen=True)
class CellMatch:
    kind: Literal["same", "changed", "absent"]
    cell: RunCell | None


def match_cell(lesson_run: LessonRun, index: int, source: str) -> CellMatch:
    """Whether the run executed the lesson's cell ``index`` as it is now."""
    cell = lesson_run.cells.get(index)
    if cell is None:
        return CellMatch("absent", None)
    if cell.source_head == source_head(source):
        return CellMatch("same", cell)
    return CellMatch("changed", cell)
