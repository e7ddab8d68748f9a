"""Stage the book's pages and build the site with Sphinx: ``make book`` / ``python -m course.book``.

The pages are staged under ``OUT/src`` with the repository's own layout (``index.md`` is
README.md, ``docs/`` the guides and GPU runs, ``lessons/NN_topic/`` each lesson, its exercises
and its quiz), so links between the Markdown files keep working; the site goes to
``OUT/html``. Lessons come executed from ``_build/executed/`` (the suite writes them there):
a lesson with no passing execution of its current file is executed first, unless
``--no-execute`` says to fail instead. Nothing from ``solutions/`` is read.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import nbformat

from autograder import notebooks
from autograder.config import EXERCISES_NOTEBOOK, LESSON_NOTEBOOK, LESSONS_DIR, REPO_ROOT
from autograder.kernel import strict_kernels
from course.book import gpu_runs, lessons, pages
from course.book.quiz_pages import quiz_page
from quiz.bank import Question, load_bank

BOOK_DIR = REPO_ROOT / "_build" / "book"
DOCS_DIR = REPO_ROOT / "docs"
GUIDES = ("learners", "instructors", "contributors")  # docs/NAME.md, in this order
# MathJax 3 as one file (TeX in, SVG out, no web fonts), from the pinned sphinx-mathjax-offline.
MATHJAX_PACKAGE, MATHJAX_FILE = "sphinx-mathjax-offline", "tex-svg.js"


class BookError(RuntimeError):
    """The book cannot be built; the message says which file or lesson and why."""


@dataclass(frozen=True)
class Lesson:
    folder: str
    notebook: Path
    exercises: Path | None
    questions: list[Question]


@dataclass(frozen=True)
class Book:
    html: Path
    seconds: float  # staging and Sphinx, not the lessons' execution
    executed: list[str]  # lessons this build executed itself
    pages: int
    size_bytes: int


def course_lessons(lessons_dir: Path = LESSONS_DIR) -> list[Lesson]:
    bank = load_bank()
    found = []
    for notebook in lessons.lessons(lessons_dir):
        folder = notebook.parent.name
        exercises = notebook.with_name(EXERCISES_NOTEBOOK)
        found.append(
            Lesson(
                folder=folder,
                notebook=notebook,
                exercises=exercises if exercises.is_file() else None,
                questions=[q for q in bank if q.lesson == folder],
            )
        )
    return found


def page_map(course: list[Lesson], runs: list[gpu_runs.GpuRun]) -> dict[str, str]:
    """Repository path -> staged page, for every file that becomes a page."""
    mapping = {"README.md": "index.md", "quiz/README.md": "quiz/README.md"}
    mapping |= {f"docs/{name}.md": f"docs/{name}.md" for name in GUIDES}
    mapping["docs/gpu-runs"] = "docs/gpu-runs/index.md"
    for run in runs:
        if run.report_md is not None:
            mapping[f"docs/gpu-runs/{run.report_md.name}"] = f"docs/gpu-runs/{run.report_md.name}"
    for lesson in course:
        base = f"lessons/{lesson.folder}"
        mapping[base] = mapping[f"{base}/{LESSON_NOTEBOOK}"] = f"{base}/{LESSON_NOTEBOOK}"
        if lesson.exercises is not None:
            mapping[f"{base}/{EXERCISES_NOTEBOOK}"] = f"{base}/{EXERCISES_NOTEBOOK}"
        if lesson.questions:
            mapping[f"quiz/bank/{lesson.folder}.toml"] = f"{base}/quiz.md"
    return mapping


def _executions(
    course: list[Lesson], executed_dir: Path, execute: bool
) -> tuple[dict[str, lessons.Execution], list[str]]:
    """A passing execution of each lesson as it is now, running the missing ones if allowed."""
    found, ran, failed, missing = {}, [], [], []
    for lesson in course:
        execution = lessons.fresh(lesson.notebook, executed_dir)
        if execution is None and execute:
            print(f"executing {lesson.folder} ...", flush=True)
            with strict_kernels():
                execution = lessons.execute(lesson.notebook, executed_dir, run="make book")
            ran.append(lesson.folder)
            if not execution.passed:
                failed.append(execution.error)
                continue
        if execution is None:
            missing.append(lesson.folder)
        else:
            found[lesson.folder] = execution
    if failed:
        raise BookError("the book shows only lessons that run; these failed:\n" + "\n".join(failed))
    if missing:
        raise BookError(
            f"no passing execution of the current {', '.join(missing)} under {executed_dir} "
            "(run the lessons' tests, or build without --no-execute)"
        )
    return found, ran


def _copy_mathjax(static: Path) -> None:
    files = metadata.files(MATHJAX_PACKAGE) or []
    found = [path for path in files if path.name == MATHJAX_FILE]
    if not found:
        raise BookError(f"{MATHJAX_PACKAGE} has no {MATHJAX_FILE}: run `make install`")
    (static / "mathjax").mkdir(parents=True, exist_ok=True)
    shutil.copy2(Path(str(found[0].locate())), static / "mathjax" / MATHJAX_FILE)


def _markdown_page(
    src: Path,
    repo_path: str,
    mapping: dict[str, str],
    extra: str = "",
    transform: Callable[[str], str] = str,
) -> None:
    staged = mapping[repo_path]
    text = transform((REPO_ROOT / repo_path).read_text(encoding="utf-8"))
    target = src / staged
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(pages.rewrite_links(text, repo_path, staged, mapping) + extra, "utf-8")


def _toctree(caption: str, entries: list[str]) -> str:
    names = [entry.rsplit(".", 1)[0] for entry in entries]
    lines = ["", "```{toctree}", ":hidden:", f":caption: {caption}", "", *names, "```", ""]
    return "\n".join(lines)


def _runs_index(runs: list[gpu_runs.GpuRun]) -> str:
    lines = [
        "# GPU runs",
        "",
        "What `tools/gpu_check.py` saw on GPU machines, newest first. Each lesson page shows, "
        "under every cell that is unchanged since the newest run of that lesson, what the cell "
        "printed there and its figures ([for contributors](../contributors.md) says how a run "
        "gets here).",
        "",
    ]
    if not runs:
        return "\n".join([*lines, "No GPU run has been committed yet.", ""])
    lines += ["| date | device | jax | commit | lessons | report |", "|---|---|---|---|---|---|"]
    for run in reversed(runs):
        report = f"[{run.report_md.name}]({run.report_md.name})" if run.report_md else "—"
        lessons_run = ", ".join(sorted(f.split("_")[0] for f in run.lessons)) or "—"
        lines.append(
            f"| {run.date} | {run.device} | {run.versions.get('jax', '?')} | "
            f"{run.commit or 'not recorded'} | {lessons_run} | {report} |"
        )
    for run in reversed(runs):
        lines += ["", f"## {run.day}, {run.device}", ""]
        if run.note:
            lines += [run.note, ""]
        if run.figures:
            lines += ["| notebook | cell | figure | value | |", "|---|---:|---|---:|---|"]
            lines += [
                f"| {r.get('notebook', '')} | {r.get('cell', '')} | {r.get('name', '')} | "
                f"{r.get('value', '')} | {r.get('rest', '')} |"
                for r in run.figures
            ]
        else:
            lines.append("This run printed no `GPU figure:` lines.")
    reports = [run.report_md.name for run in reversed(runs) if run.report_md is not None]
    return "\n".join(lines) + "\n" + (_toctree("Reports", reports) if reports else "")


def _write_notebook(notebook: nbformat.NotebookNode, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")


def stage(
    src: Path,
    course: list[Lesson],
    executions: dict[str, lessons.Execution],
    executed_dir: Path,
    runs: list[gpu_runs.GpuRun],
) -> int:
    """Write every page under ``src``; the number of pages."""
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    shutil.copy2(DOCS_DIR / "conf.py", src / "conf.py")
    shutil.copytree(DOCS_DIR / "_static", src / "_static")
    _copy_mathjax(src / "_static")
    mapping = page_map(course, runs)

    def figure_url(run: gpu_runs.GpuRun, name: str) -> str | None:
        png = run.figure_png(name)
        if png is None:
            return None
        target = src / "_static" / "gpu-runs" / run.stem / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)
        return f"../../_static/gpu-runs/{run.stem}/{name}"

    for lesson in course:
        base = src / "lessons" / lesson.folder
        executed = notebooks.read(executed_dir / lesson.folder / LESSON_NOTEBOOK)
        gpu = gpu_runs.run_for_lesson(runs, lesson.folder)
        report = mapping.get(f"docs/gpu-runs/{gpu[0].stem}.md") if gpu else None
        page = pages.lesson_page(
            executed,
            executions[lesson.folder],
            gpu,
            figure_url,
            report_link=f"../../{report}" if report else None,
            has_exercises=lesson.exercises is not None,
            has_quiz=bool(lesson.questions),
        )
        _write_notebook(page, base / LESSON_NOTEBOOK)
        title = pages.title(executed, lesson.folder)
        if lesson.exercises is not None:
            released = pages.exercises_page(notebooks.read(lesson.exercises), lesson.folder)
            _write_notebook(released, base / EXERCISES_NOTEBOOK)
        if lesson.questions:
            quiz = quiz_page(title, lesson.folder, lesson.questions)
            (base / "quiz.md").write_text(quiz, encoding="utf-8")
    guides = [f"docs/{name}.md" for name in GUIDES if (REPO_ROOT / "docs" / f"{name}.md").is_file()]
    for guide in guides:
        _markdown_page(src, guide, mapping)
    for run in runs:
        if run.report_md is not None:
            report = f"docs/gpu-runs/{run.report_md.name}"
            _markdown_page(src, report, mapping, transform=pages.report_page)
    (src / "docs" / "gpu-runs").mkdir(parents=True, exist_ok=True)
    (src / "docs" / "gpu-runs" / "index.md").write_text(_runs_index(runs), encoding="utf-8")
    _markdown_page(src, "quiz/README.md", mapping)
    toctrees = (
        _toctree("Guides", guides)
        + _toctree("Lessons", [f"lessons/{lesson.folder}/{LESSON_NOTEBOOK}" for lesson in course])
        + _toctree("Reference", ["docs/gpu-runs/index.md", "quiz/README.md"])
    )
    _markdown_page(src, "README.md", mapping, extra=toctrees)
    return sum(1 for _ in src.rglob("*.md")) + sum(1 for _ in src.rglob("*.ipynb"))


def _sphinx(src: Path, html: Path, doctrees: Path, jobs: int) -> None:
    command = [
        sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going",
        "-j", str(jobs), "-d", str(doctrees), str(src), str(html),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BookError(f"Sphinx failed on {src}:\n{(result.stdout + result.stderr)[-6000:]}")


def build(
    out: Path = BOOK_DIR,
    executed_dir: Path = lessons.EXECUTED_DIR,
    execute: bool = True,
    jobs: int = 1,
    lessons_dir: Path = LESSONS_DIR,
) -> Book:
    course = course_lessons(lessons_dir)
    executions, ran = _executions(course, executed_dir, execute)
    start = time.perf_counter()
    runs = gpu_runs.load_runs()
    html, doctrees = out / "html", out / "doctrees"
    shutil.rmtree(html, ignore_errors=True)
    shutil.rmtree(doctrees, ignore_errors=True)
    count = stage(out / "src", course, executions, executed_dir, runs)
    _sphinx(out / "src", html, doctrees, jobs)
    size = sum(path.stat().st_size for path in html.rglob("*") if path.is_file())
    return Book(html, round(time.perf_counter() - start, 1), ran, count, size)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=BOOK_DIR, help="build folder (site: OUT/html)")
    parser.add_argument(
        "--executed",
        type=Path,
        default=lessons.EXECUTED_DIR,
        help="where executed lessons are kept (default: _build/executed)",
    )
    parser.add_argument(
        "--no-execute",
        action="store_true",
        help="fail instead of executing a lesson that has no fresh execution",
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, help="Sphinx processes (1)")
    args = parser.parse_args(argv)
    try:
        book = build(args.out, args.executed, execute=not args.no_execute, jobs=args.jobs)
    except (BookError, gpu_runs.GpuRunError, notebooks.NotebookError) as error:
        print(f"make book: {error}", file=sys.stderr)
        return 1
    summary = {
        "site": str(book.html / "index.html"),
        "pages": book.pages,
        "size_mb": round(book.size_bytes / 1e6, 1),
        "build_s": book.seconds,
        "executed_here": book.executed,
    }
    print(json.dumps(summary))
    return 0
