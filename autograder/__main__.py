"""``python -m autograder``: the course's commands for authors and instructors."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder import notebooks, release, runner
from autograder.config import (
    CELL_TIMEOUT_S,
    MEMORY_LIMIT_MB,
    NOTEBOOK_TIMEOUT_S,
    OUTPUT_LIMIT_BYTES,
    REPO_ROOT,
    SOLUTIONS_DIR,
    assignments,
    course_config,
)


def _release(args: argparse.Namespace) -> int:
    chosen = args.assignment or assignments()
    unknown = sorted(set(chosen) - set(assignments()))
    if unknown:
        print(
            f"unknown assignment(s): {', '.join(unknown)}; known: {', '.join(assignments())}",
            file=sys.stderr,
        )
        return 2
    if args.check:
        stale = [a for a in chosen if release.stale(a)]
        for assignment in stale:
            print(
                f"lessons/{assignment}/exercises.ipynb is out of date: "
                f"run `python -m autograder release {assignment}`",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for assignment in chosen:
        print(f"wrote {release.release(assignment).relative_to(REPO_ROOT)}")
    return 0


def _clean(args: argparse.Namespace) -> int:
    paths = args.notebook or sorted(
        p for folder in ("lessons", "solutions") for p in (REPO_ROOT / folder).glob("*/*.ipynb")
    )
    dirty = []
    for path in paths:
        try:
            if notebooks.is_clean(path):
                continue
            if not args.check:
                notebooks.write_clean(notebooks.read(path), path)
        except notebooks.NotebookError as error:
            print(error, file=sys.stderr)
            return 2
        dirty.append(path)
        print(f"{'not clean' if args.check else 'cleaned'}: {path}")
    return 1 if args.check and dirty else 0


def _run(args: argparse.Namespace) -> int:
    lessons = runner.find_lessons(args.lesson)
    runs = runner.run_course(lessons, args.out, strict=not args.allow_deprecations)
    print(f"report: {args.out / 'report.md'}")
    return 0 if all(run.passed for run in runs) else 1


def _grade(args: argparse.Namespace) -> int:
    from autograder.submissions import LayoutError, find_submissions

    known = sorted(p.parent.name for p in args.source.glob("*/exercises.ipynb"))
    try:
        found = find_submissions(args.submissions, args.assignment, known)
    except LayoutError as error:
        print(error, file=sys.stderr)
        return 2
    # Imported only now: nbgrader takes seconds to import, and a usage error needs none of it.
    from autograder import report
    from autograder.grade_class import Settings, grade_class
    from autograder.sandbox import NO_SANDBOX_NOTE, Limits, SandboxUnavailable, find_sandbox

    db_url = args.db or course_config(REPO_ROOT).CourseDirectory.db_url
    db_folder = None
    if db_url.startswith("sqlite:///"):  # SQLite creates the file but not its folder
        db_folder = Path(db_url.removeprefix("sqlite:///")).resolve().parent
        db_folder.mkdir(parents=True, exist_ok=True)
    sandbox = None
    if not args.no_sandbox:
        # Everything of the instructor's that the kernel must not even see named.
        hidden = (REPO_ROOT, args.source, args.submissions, args.out, *filter(None, [db_folder]))
        try:
            sandbox = find_sandbox(
                REPO_ROOT, tuple(p.resolve() for p in hidden), tmpfs_mb=args.memory_mb
            )
        except SandboxUnavailable as error:
            print(f"not grading: {error}", file=sys.stderr)
            return 2
    else:
        print(f"warning: {NO_SANDBOX_NOTE}", file=sys.stderr)
    settings = Settings(
        out_dir=args.out.resolve(),
        db_url=db_url,
        solutions_dir=args.source.resolve(),
        limits=Limits(
            cell_timeout_s=args.cell_timeout,
            notebook_timeout_s=args.timeout,
            memory_mb=args.memory_mb,
            output_bytes=OUTPUT_LIMIT_BYTES,
        ),
        workers=args.workers,
        strict=args.strict,
        sandbox=sandbox,
    )
    rows = grade_class(found, settings)
    print(report.summary(rows))
    if sandbox is None:
        print(f"{NO_SANDBOX_NOTE}; logs: {settings.out_dir / 'logs'}")
    print(f"grades: {settings.out_dir / report.GRADES_CSV}; feedback: {settings.out_dir}/feedback")
    attention = report.needs_attention(rows)
    for row in attention:
        print(f"needs attention: {row.student} ({row.assignment}): {row.status}", file=sys.stderr)
    if attention:
        print(f"logs: {settings.out_dir / 'logs'}", file=sys.stderr)
    return 1 if attention else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="The course's commands for authors and instructors.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("release", help="generate lessons/NN/exercises.ipynb from solutions/")
    p.add_argument("assignment", nargs="*", help="assignment folder names (default: all)")
    p.add_argument("--check", action="store_true", help="only report out-of-date notebooks")
    p.set_defaults(handler=_release)

    p = commands.add_parser("clean", help="strip outputs and machine metadata from notebooks")
    p.add_argument(
        "notebook", nargs="*", type=Path, help="notebooks (default: lessons/ and solutions/)"
    )
    p.add_argument("--check", action="store_true", help="only report notebooks that are not clean")
    p.set_defaults(handler=_clean)

    p = commands.add_parser("run", help="execute lessons headless and write a report")
    p.add_argument("lesson", nargs="*", help="lesson folders or NN prefixes (default: all)")
    p.add_argument(
        "--out",
        type=Path,
        default=REPO_ROOT / "artifacts" / "course-run",
        help="report folder (default: artifacts/course-run)",
    )
    p.add_argument(
        "--allow-deprecations",
        action="store_true",
        help="do not turn JAX-stack DeprecationWarnings into errors",
    )
    p.set_defaults(handler=_run)

    p = commands.add_parser(
        "grade", help="autograde a class's submissions: grades CSV, gradebook, feedback"
    )
    p.add_argument(
        "submissions",
        type=Path,
        help="nbgrader's submitted/<student>/<assignment>/ tree, or a flat folder of "
        "<student>.ipynb files for one --assignment",
    )
    p.add_argument(
        "--assignment", action="append", default=[], help="grade only this one (repeatable)"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="submissions graded at once (default: the number of cores)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=REPO_ROOT / "artifacts" / "grades",
        help="where grades.csv, tasks.csv, feedback/ and logs/ go (default: artifacts/grades)",
    )
    p.add_argument(
        "--db", help="gradebook, any SQLAlchemy URL nbgrader supports (default: gradebook.db)"
    )
    p.add_argument(
        "--cell-timeout",
        type=int,
        default=CELL_TIMEOUT_S,
        help=f"seconds per cell (default: {CELL_TIMEOUT_S})",
    )
    p.add_argument(
        "--timeout",
        type=int,
        default=NOTEBOOK_TIMEOUT_S,
        help=f"seconds per submission, whole notebook (default: {NOTEBOOK_TIMEOUT_S})",
    )
    p.add_argument(
        "--memory-mb",
        type=int,
        default=MEMORY_LIMIT_MB,
        help=f"memory limit per process in MiB (default: {MEMORY_LIMIT_MB})",
    )
    p.add_argument(
        "--source",
        type=Path,
        default=SOLUTIONS_DIR,
        help="nbgrader source folder with the assignments (default: solutions/)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="turn JAX-stack DeprecationWarnings into errors, as the course's own checks do",
    )
    p.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the submissions' kernels without bubblewrap: only for code you trust "
        "(they could read the solutions and the gradebook, and reach the network)",
    )
    p.set_defaults(handler=_grade)

    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
