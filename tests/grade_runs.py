"""Running `python -m autograder grade` from a test, and reading what it wrote."""

from __future__ import annotations

import csv
import hashlib
import html
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import psutil

from autograder.config import REPO_ROOT


@dataclass(frozen=True)
class Run:
    result: subprocess.CompletedProcess[str]
    out: Path
    db: str
    tmp: Path  # TMPDIR of the run: every scratch folder and kernel working folder is inside


def grade(
    folder: Path, work: Path, *args: str, db: str = "", env: dict[str, str] | None = None
) -> Run:
    """Run the grading command as an instructor would; everything it writes goes under ``work``.
    ``env``: variables to set on top of this process's environment."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "tmp").mkdir(exist_ok=True)
    db = db or f"sqlite:///{work / 'gradebook.db'}"
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(work / "out"),
         "--db", db, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {}), "TMPDIR": str(work / "tmp")},
    )  # fmt: skip
    return Run(result, work / "out", db, work / "tmp")


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def by_student(run: Run) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in read_csv(run.out / "grades.csv")}


def visible_text(page: Path) -> str:
    """A feedback page as the student reads it: tags (syntax highlighting too) removed."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def processes_working_in(folder: Path) -> list[list[str]]:
    """Command lines of processes (graders, kernels) whose working folder is in ``folder``."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.cwd().startswith(str(folder)):
                found.append(process.cmdline())
        except (psutil.Error, OSError):
            continue
    return found
