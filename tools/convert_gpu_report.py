"""Convert the 2026-11-30 H200 report (Markdown only) into the run format the book reads.

    python tools/convert_gpu_report.py          write docs/gpu-runs/2026-11-30-nvidia-h200.json
    python tools/convert_gpu_report.py --check  exit 1 if that file is not a fresh conversion

The first GPU run was committed as its report.md alone: no report.json, no figures.zip. The
Markdown keeps, per lesson, every cell's index, status, seconds, figure names and text output
(in a <details> block, each output clipped to 2,500 characters), but not the cells' sources.
The book matches a GPU output to a lesson cell by index and source, so the sources come from
the commit the run was taken at (33072c7, named in the report), read with ``git show``.
Only lessons are converted: the book never shows solutions. Later runs need no conversion:
gpu_check writes report.json, and tools/add_gpu_run.py commits it beside the report.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "gpu-runs" / "2026-11-30-nvidia-h200.md"
COMMIT = "33072c7"
NOTE = (
    "Whether the GPU was shared cannot be told: the report's one nvidia-smi reading (81 % "
    "utilisation, one process) was taken from inside lesson 00's own process, and the run "
    "predates gpu_check's sampling. Taken before the accuracy work: its timings are not clean "
    "evidence, and the lessons have changed since."
)
HEAD_LINES = 8  # as tools/gpu_check.py
SECTION = re.compile(r"^## (?P<notebook>\S+): (?P<result>.+) \((?P<seconds>[\d.]+) s\)$")
CELL = re.compile(
    r"^\*\*cell (?P<index>\d+)\*\* \((?P<status>[\w-]+), (?P<seconds>[\d.]+) s(?P<rest>.*)\)$"
)
FAILED = re.compile(r"^Cell (?P<index>\d+) (failed|was running when the time ran out):$")


class ReportError(ValueError):
    """The Markdown report does not have the shape gpu_check writes; names the line."""


def _fences(lines: list[str], start: int) -> tuple[str, int]:
    """The text of the fenced block opening at ``lines[start]``, and the line after it."""
    if lines[start] != "```":
        raise ReportError(f"{REPORT}:{start + 1}: expected a ``` fence, found {lines[start]!r}")
    end = lines.index("```", start + 1)
    return "\n".join(lines[start + 1 : end]), end + 1


def _next_fence(lines: list[str], start: int) -> int | None:
    """The index of the fence that follows ``start`` after blank lines, if one does."""
    at = start
    while at < len(lines) and not lines[at].strip():
        at += 1
    return at if at < len(lines) and lines[at] == "```" else None


def _machine(lines: list[str]) -> tuple[str, dict[str, object]]:
    """The first report header: its date, and the machine as gpu_check's probe records it."""
    fields = {}
    for line in lines[lines.index("# Course check") :]:
        if line.startswith("| notebook"):
            break
        if line.startswith("- ") and ": " in line:
            key, value = line[2:].split(": ", 1)
            fields[key] = value
    backend, devices = fields["backend"].split(", ", 1)
    count, kind = devices.split(" × ", 1)
    runtime, cudnn = fields["CUDA runtime / cuDNN (as JAX reports)"].split(" / ")
    version_line = next(line[2:] for line in lines if line.startswith("- Python "))
    python, packages = version_line.removeprefix("Python ").split("; ", 1)
    versions = dict(item.rsplit(" ", 1) for item in packages.split(", "))
    machine = {
        "python": python,
        "backend": backend,
        "device_count": int(count),
        "device_kind": kind,
        "versions": versions,
        "cuda_packages": fields["CUDA packages"].split(", "),
        "device_memory_bytes": int(fields["device memory (bytes_limit)"]),
        "cudnn_version": int(cudnn),
        "cuda_runtime_version": int(runtime),
        "nvidia_smi": fields["nvidia-smi"],
    }
    return fields["date"], machine


def _cell_rest(rest: str) -> tuple[str, list[str]]:
    """A cell line's note and figure names, from what follows its seconds."""
    note, _, figures = rest.partition("figures: ")
    return note.strip(", "), [name for name in figures.split(", ") if name]


def parse_sections(lines: list[str]) -> dict[str, dict[str, object]]:
    """Per lesson notebook, its run as report.json stores it (without cell sources)."""
    runs: dict[str, dict[str, object]] = {}
    at = 0
    while at < len(lines):
        section = SECTION.match(lines[at])
        at += 1
        if not section or not section["notebook"].startswith("lessons/"):
            continue
        run: dict[str, object] = {
            "notebook": section["notebook"],
            "result": section["result"],
            "seconds": float(section["seconds"]),
            "cells": [],
            "failing_cell": None,
            "log_tail": "",
        }
        cells: list[dict[str, object]] = []
        failure: dict[str, str] = {}
        while at < len(lines) and not lines[at].startswith(("## ", "# ")):
            line = lines[at]
            failed, cell = FAILED.match(line), CELL.match(line)
            if failed:
                fence = _next_fence(lines, at + 1)
                if fence is None:
                    raise ReportError(f"{REPORT}:{at + 1}: no cell source after {line!r}")
                failure["source_head"], after = _fences(lines, fence)
                fence = _next_fence(lines, after)
                if fence is not None:
                    failure["traceback"], after = _fences(lines, fence)
                run["failing_cell"] = int(failed["index"])
                at = after
                continue
            if line == "Process output (tail):":
                run["log_tail"], at = _fences(lines, _next_fence(lines, at + 1) or at + 1)
                continue
            if cell:
                note, figures = _cell_rest(cell["rest"])
                stdout = ""
                fence = _next_fence(lines, at + 1)
                if fence is not None:
                    stdout, at = _fences(lines, fence)
                else:
                    at += 1
                cells.append(
                    {
                        "index": int(cell["index"]),
                        "status": cell["status"],
                        "seconds": float(cell["seconds"]),
                        "stdout": stdout,
                        "stderr": "",
                        "warnings": [],
                        "figures": figures,
                        "source_head": "",
                        "traceback": "",
                        "note": note,
                    }
                )
                continue
            at += 1
        for entry in cells:
            if entry["index"] == run["failing_cell"]:
                entry["traceback"] = failure.get("traceback", "")
                entry["source_head"] = failure.get("source_head", "")
        run["cells"] = cells
        if run["result"] != "not reached" or section["notebook"] not in runs:
            runs[section["notebook"]] = run
    return runs


def _sources_at(commit: str, notebook: str) -> list[str]:
    shown = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{notebook}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if shown.returncode != 0:
        raise ReportError(f"git show {commit}:{notebook} failed: {shown.stderr.strip()}")
    cells = json.loads(shown.stdout)["cells"]
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]


def convert(report: Path = REPORT, commit: str = COMMIT) -> dict[str, object]:
    lines = report.read_text(encoding="utf-8").splitlines()
    date, machine = _machine(lines)
    runs = parse_sections(lines)
    for notebook, run in runs.items():
        sources = _sources_at(commit, notebook)
        for cell in run["cells"]:  # type: ignore[attr-defined]
            head = "\n".join(sources[cell["index"]].splitlines()[:HEAD_LINES])
            if cell["source_head"] and cell["source_head"] != head:
                raise ReportError(f"{report}: {notebook} cell {cell['index']} is not {commit}'s")
            cell["source_head"] = head
    return {
        "date": date,
        "commit": commit,
        "note": NOTE,
        "converted_from": f"{report.relative_to(ROOT)} by tools/convert_gpu_report.py",
        "machine": machine,
        "figures": [],  # the report says: no `GPU figure:` lines were printed
        "notebooks": list(runs.values()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the JSON is out of date")
    args = parser.parse_args(argv)
    target = REPORT.with_suffix(".json")
    text = json.dumps(convert(), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            print(f"{target} is out of date: run python tools/convert_gpu_report.py")
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
