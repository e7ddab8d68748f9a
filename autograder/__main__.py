"""``python -m autograder``: the course's commands for authors and instructors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder import notebooks, release, runner
from autograder.config import REPO_ROOT, assignments


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

    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
