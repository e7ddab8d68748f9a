"""What the grading command writes for the instructor: CSVs, logs and the summary table.

``grades.csv`` and ``tasks.csv`` in the output folder accumulate: grading more students
later adds rows, and grading a student again replaces theirs.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from autograder.worker import STATUSES, Outcome

GRADES_CSV = "grades.csv"
TASKS_CSV = "tasks.csv"


@dataclass(frozen=True)
class Row:
    student: str
    assignment: str
    score: float
    max_score: float
    status: str
    tasks: dict[str, float]

    @classmethod
    def from_outcome(cls, outcome: Outcome, max_score: float) -> Row:
        return cls(
            outcome.student,
            outcome.assignment,
            outcome.score,
            max_score,
            outcome.status,
            outcome.tasks,
        )


def feedback_path(out_dir: Path, student: str, assignment: str) -> Path:
    return out_dir / "feedback" / student / assignment / "exercises.html"


def write_log(out_dir: Path, outcome: Outcome) -> None:
    path = out_dir / "logs" / outcome.assignment / f"{outcome.student}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = f"status: {outcome.status}\n{outcome.for_student}\n\n{outcome.for_instructor}"
    path.write_text(text, encoding="utf-8")


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as a formula


def spreadsheet_safe(value: object) -> object:
    """``value``, with a leading ``'`` where a spreadsheet would run it as a formula (a
    student name comes from a file name the student chose)."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_START) else value


def _merge_csv(path: Path, header: list[str], new: list[dict[str, object]], key: int) -> None:
    """Rewrite ``path`` with ``new`` rows replacing earlier rows that share their first ``key``
    columns."""
    rows: dict[tuple[str, ...], dict[str, object]] = {}
    if path.exists():
        with path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                rows[tuple(row[h] for h in header[:key])] = row
    for row in ({k: spreadsheet_safe(v) for k, v in row.items()} for row in new):
        rows[tuple(str(row[h]) for h in header[:key])] = row
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, header)
        writer.writeheader()
        writer.writerows(rows[k] for k in sorted(rows))


def write_tables(out_dir: Path, rows: list[Row], grade_cells: dict[str, dict[str, float]]) -> None:
    """Write (merge into) ``grades.csv`` and the per-task ``tasks.csv`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    header = [f.name for f in fields(Row) if f.name != "tasks"]
    grades = [{k: v for k, v in asdict(row).items() if k != "tasks"} for row in rows]
    _merge_csv(out_dir / GRADES_CSV, header, grades, key=2)
    tasks = [
        {
            "student": row.student,
            "assignment": row.assignment,
            "task": cell,
            "score": row.tasks.get(cell, 0.0),
            "max_score": points,
        }
        for row in rows
        for cell, points in grade_cells[row.assignment].items()
    ]
    _merge_csv(
        out_dir / TASKS_CSV, ["student", "assignment", "task", "score", "max_score"], tasks, 3
    )


def summary(rows: list[Row]) -> str:
    """The table printed at the end of a run."""
    counts = Counter(row.status for row in rows)
    lines = ["status       submissions"]
    lines += [f"{status:<12} {counts.get(status, 0):>11}" for status in STATUSES]
    for assignment in sorted({row.assignment for row in rows}):
        mine = [row for row in rows if row.assignment == assignment]
        mean = sum(row.score for row in mine) / len(mine)
        lines.append(f"{assignment}: mean score {mean:.2f} / {mine[0].max_score:g}")
    return "\n".join(lines)


def needs_attention(rows: list[Row]) -> list[Row]:
    return [row for row in rows if row.status != STATUSES[0]]
