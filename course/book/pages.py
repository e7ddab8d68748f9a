"""Pages of the book: an executed lesson with its GPU outputs, the exercises, Markdown guides.

Everything here works on notebooks and text already in memory; ``build.py`` reads and writes.
A lesson page is the executed notebook with a few cells and outputs added, none removed but
the widgets' live views (drawn from their saved state instead, since the site has no kernel):

- after the title, what the outputs were computed on (this build's CPU; the GPU run, if any,
  with its device, date, JAX version, commit and note, and the lesson's ``GPU figure:`` lines);
- under each code cell that the run executed as it is now, a box with what it printed on the
  GPU and its figures, after the CPU's outputs; a cell that changed since the run says so;
- after the quiz widget's cell, a link to the quiz page; at the end, the exercises and quiz.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

import nbformat

from course.book.gpu_runs import GpuRun, LessonRun, RunCell, match_cell
from course.book.lessons import Execution

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
QUIZ_MARKER = "quiz.show("  # the cell that shows the quiz widget, as tools/gpu_check.py skips it
TRACEBACK_LINES = 30

# A figure's URL relative to the lesson page, or None when the run kept no such figure.
FigureUrl = Callable[[GpuRun, str], str | None]


def title(notebook: nbformat.NotebookNode, fallback: str) -> str:
    """The notebook's first ``# `` heading."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def _title_index(notebook: nbformat.NotebookNode) -> int:
    """Where to insert after the title: after the first cell if it holds the title, else 0."""
    cells = notebook.cells
    if cells and cells[0].cell_type == "markdown" and cells[0].source.lstrip().startswith("# "):
        return 1
    return 0


# --- widgets, drawn from the state nbclient saved --------------------------------------------


def _widget_html(model_id: str, state: dict[str, dict], depth: int = 0) -> str:
    model = state.get(model_id)
    if model is None or depth > 20:
        return ""
    name, values = model.get("model_name", ""), model.get("state", {})
    if name in ("HBoxModel", "VBoxModel", "BoxModel", "GridBoxModel"):
        children = [str(ref).removeprefix("IPY_MODEL_") for ref in values.get("children", [])]
        inner = "".join(_widget_html(child, state, depth + 1) for child in children)
        kind = "hbox" if name == "HBoxModel" else "vbox"
        return f'<div class="static-widget static-{kind}">{inner}</div>'
    if name in ("HTMLModel", "HTMLMathModel"):
        return f'<span class="static-html">{values.get("value", "")}</span>'
    if name == "LabelModel":
        return f'<span class="static-label">{html.escape(str(values.get("value", "")))}</span>'
    if name in ("FloatProgressModel", "IntProgressModel"):
        value, top = values.get("value", 0), values.get("max", 100)
        style = html.escape(str(values.get("bar_style", "")))
        return f'<progress class="static-progress {style}" value="{value}" max="{top}"></progress>'
    if name == "ButtonModel":
        return f"<button disabled>{html.escape(str(values.get('description', '')))}</button>"
    return ""


def draw_widgets(notebook: nbformat.NotebookNode) -> None:
    """Replace each widget's live view by HTML drawn from its saved state; drop the state."""
    saved = notebook.metadata.pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            drawn = _widget_html(str(data[WIDGET_VIEW].get("model_id", "")), saved)
            del data[WIDGET_VIEW]
            if drawn:
                data["text/html"] = drawn


# treescope's HTML defines two custom elements in a script of its own; a <treescope-run-here>
# runs its child script when connected, or, if the child is not parsed yet, when a child is
# added. On a page read over the network the parser can stop between a <script> start tag and
# its text: the element then runs an empty script, treescope's set-up never runs, and the model
# display stays blank ("root.defns.insertContent is not a function"). JupyterLab inserts each
# output whole, so only the book needs this: it defines the elements once the page is parsed,
# when every script is complete; they then run in document order.
TREESCOPE_BOOTSTRAP = re.compile(
    r"<script>\s*\(\(\)=>\{(\s*if \(customElements\.get\('treescope-container'\) === undefined\)"
    r".*?customElements\.define\(\"treescope-run-here\", RunHere\);\s*\})\s*\}\)\(\);\s*</script>",
    re.DOTALL,
)
DEFERRED_BOOTSTRAP = (
    "<script> (()=>{ const define = () => {%s}; "
    'if (document.readyState === "loading") '
    '{ document.addEventListener("DOMContentLoaded", define); } else { define(); } })(); </script>'
)


class TreescopeFormatError(ValueError):
    """A treescope output whose set-up script the book does not recognise."""


def defer_treescope(notebook: nbformat.NotebookNode, name: str) -> int:
    """Define treescope's elements after the page is parsed; return the outputs changed."""
    changed = 0
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            markup = output.get("data", {}).get("text/html", "")  # nbformat joins its lines
            if "customElements.get('treescope-container')" not in markup:
                continue
            deferred, count = TREESCOPE_BOOTSTRAP.subn(
                lambda m: DEFERRED_BOOTSTRAP % m[1], markup, count=1
            )
            if count != 1:
                raise TreescopeFormatError(
                    f"{name}, cell {index}: a treescope output whose set-up script the book does "
                    "not recognise (course/book/pages.py, TREESCOPE_BOOTSTRAP)"
                )
            output["data"]["text/html"] = deferred
            changed += 1
    return changed


# --- GPU outputs beside the CPU ones ---------------------------------------------------------


def _html_output(markup: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data={"text/html": markup})


def run_label(run: GpuRun) -> str:
    jax = run.versions.get("jax", "?")
    commit = f", commit {run.commit}" if run.commit else ""
    return f"{run.device}, {run.day}, jax {jax}{commit}"


def cpu_label(execution: Execution) -> str:
    return f"CPU ({execution.cores} cores), {execution.date}, jax {execution.jax}: this build"


def _gpu_box(run: GpuRun, cell: RunCell, figure_url: FigureUrl) -> str | None:
    """The box under a cell that the run executed as it is now, or None if it shows nothing."""
    parts: list[str] = []
    if cell.stdout.strip():
        parts.append(f"<pre>{html.escape(cell.stdout.rstrip())}</pre>")
    for name in cell.figures:
        url = figure_url(run, name)
        if url is None:
            parts.append(
                '<p class="gpu-note">The plot this cell drew on the GPU was not kept with this '
                f"run ({html.escape(name)}).</p>"
            )
        else:
            parts.append(
                f'<img class="gpu-figure" src="{html.escape(url)}" alt="{html.escape(name)}, '
                'as drawn on the GPU">'
            )
    kind = "gpu-output"
    if cell.status == "error":
        kind += " gpu-failed"
        tail = "\n".join(cell.traceback.rstrip().splitlines()[-TRACEBACK_LINES:])
        parts.append(
            f'<p class="gpu-note">This cell failed on the GPU:</p><pre>{html.escape(tail)}</pre>'
        )
    elif cell.status == "running":
        kind += " gpu-failed"
        parts.append(
            '<p class="gpu-note">This cell was still running when the run ran out of time.</p>'
        )
    elif cell.status == "skipped" and cell.note == "after a failure":
        parts.append('<p class="gpu-note">Not run on the GPU: an earlier cell failed there.</p>')
    if not parts:
        return None
    label = f'<div class="output-label gpu-label">On the GPU: {html.escape(run_label(run))}</div>'
    return f'<div class="{kind}">{label}{"".join(parts)}</div>'


def _stale_box(run: GpuRun) -> str:
    return (
        '<div class="gpu-output gpu-stale"><div class="output-label gpu-label">On the GPU: '
        f"{html.escape(run_label(run))}</div>"
        '<p class="gpu-note">This cell has changed since that run, so what it printed there is '
        "not shown.</p></div>"
    )


@dataclass(frozen=True)
class GpuCounts:
    shown: int  # cells with a GPU output under them
    changed: int  # cells the run saw in another version


def add_gpu_outputs(
    notebook: nbformat.NotebookNode,
    run: GpuRun,
    lesson_run: LessonRun,
    execution: Execution,
    figure_url: FigureUrl,
) -> GpuCounts:
    shown = changed = 0
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or QUIZ_MARKER in cell.source:
            continue
        match = match_cell(lesson_run, index, cell.source)
        if match.kind == "same" and match.cell is not None:
            box = _gpu_box(run, match.cell, figure_url)
            if box is None:
                continue
            shown += 1
        else:
            had_output = match.cell is not None and bool(
                match.cell.stdout.strip() or match.cell.figures or match.cell.status == "error"
            )
            if not (had_output or cell.outputs):
                continue
            changed += 1
            box = _stale_box(run)
        label = f'<div class="output-label cpu-label">{html.escape(cpu_label(execution))}</div>'
        cell.outputs = [_html_output(label), *cell.outputs, _html_output(box)]
    return GpuCounts(shown, changed)


def _figure_table(rows: list[dict[str, str]]) -> list[str]:
    lines = ["| cell | figure | value | |", "|---:|---|---:|---|"]
    for row in rows:
        cells = [row.get(key, "") for key in ("cell", "name", "value", "rest")]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def header_cell(
    execution: Execution,
    run: GpuRun | None,
    lesson_run: LessonRun | None,
    counts: GpuCounts | None,
    report_link: str | None,
) -> nbformat.NotebookNode:
    """The note after the title: what the outputs were computed on."""
    lines = [
        "```{admonition} What the outputs on this page ran on",
        ":class: outputs-note",
        "",
        f"The outputs under the cells were computed when this book was built, on the "
        f"{cpu_label(execution).removesuffix(': this build')}, as the suite runs the lesson.",
    ]
    if run is None or lesson_run is None or counts is None:
        lines += ["", "No GPU run of this lesson is in `docs/gpu-runs/` yet.", "```"]
        return nbformat.v4.new_markdown_cell("\n".join(lines))
    result = lesson_run.result
    if lesson_run.failing_cell is not None:
        result += f" at cell {lesson_run.failing_cell}"
    report = f" ([the run's report]({report_link}))" if report_link else ""
    lines += [
        "",
        f"Boxes marked *On the GPU* show what the same cells printed on **{run.device}** on "
        f"{run.day} (jax {run.versions.get('jax', '?')}"
        + (f", commit `{run.commit}`" if run.commit else "")
        + f"){report}: this lesson's result there was {result} in {lesson_run.seconds:.1f} s. "
        f"Cells showing their GPU output: {counts.shown}; cells changed since that run, which "
        f"say so instead: {counts.changed}.",
    ]
    if run.shared is not None:
        verdict = "another process used the GPU" if run.shared else "the GPU was not shared"
        lines += ["", f"The check's own record: {verdict} ({run.sharing})."]
    if run.note:
        lines += ["", f"*{run.note}*"]
    figures = run.lesson_figures(lesson_run.notebook.split("/")[-2])
    lines += [""]
    if figures:
        lines += [f"The lesson's `GPU figure:` lines in that run ({run.device_kind}):", ""]
        lines += _figure_table(figures)
    else:
        lines.append("The lesson printed no `GPU figure:` line in that run.")
    lines.append("```")
    return nbformat.v4.new_markdown_cell("\n".join(lines))


def lesson_page(
    executed: nbformat.NotebookNode,
    execution: Execution,
    gpu: tuple[GpuRun, LessonRun] | None,
    figure_url: FigureUrl,
    report_link: str | None,
    has_exercises: bool,
    has_quiz: bool,
) -> nbformat.NotebookNode:
    """The executed lesson as the book shows it (a new notebook; ``executed`` is untouched)."""
    notebook = nbformat.from_dict(executed)
    draw_widgets(notebook)
    defer_treescope(notebook, f"{execution.lesson} (executed)")
    counts = None
    if gpu is not None:
        counts = add_gpu_outputs(notebook, gpu[0], gpu[1], execution, figure_url)
    for index in reversed(range(len(notebook.cells))):
        cell = notebook.cells[index]
        if cell.cell_type == "code" and QUIZ_MARKER in cell.source:
            cell.outputs = []
            if has_quiz:
                note = "The quiz is a widget that needs a running kernel: here it is, answers "
                note += "included, [on its own page](quiz.md)."
                notebook.cells.insert(index + 1, nbformat.v4.new_markdown_cell(note))
    run, lesson_run = gpu if gpu is not None else (None, None)
    header = header_cell(execution, run, lesson_run, counts, report_link)
    notebook.cells.insert(_title_index(notebook), header)
    pages = [("exercises.ipynb", "the exercises", has_exercises), ("quiz.md", "the quiz", has_quiz)]
    present = [(target, name) for target, name, there in pages if there]
    if present:
        links = " and ".join(f"[{name}]({target})" for target, name in present)
        toctree = "\n".join(["```{toctree}", ":hidden:", ""] + [t for t, _ in present] + ["```"])
        notebook.cells.append(
            nbformat.v4.new_markdown_cell(f"## Next\n\nNow {links} of this lesson.\n\n{toctree}")
        )
    return notebook


def exercises_page(released: nbformat.NotebookNode, lesson: str) -> nbformat.NotebookNode:
    """The student version of the exercises, with a note on where to do them."""
    notebook = nbformat.from_dict(released)
    note = (
        "```{note}\nThis is the student version of the exercises, to read. To do them, open "
        f"`lessons/{lesson}/exercises.ipynb` in JupyterLab (`make lab`): each task's visible "
        "tests check your answer there, and nbgrader's *Validate* runs them all "
        "([for learners](../../docs/learners.md)).\n```"
    )
    notebook.cells.insert(_title_index(notebook), nbformat.v4.new_markdown_cell(note))
    return notebook


# --- Markdown sources: links that still work once the files are pages ------------------------

LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]+)\]\((?P<target>[^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:.*?)\1")
HEADING = re.compile(r"#{1,2} ")  # a report's sections: "# Course check", "## notebook"


def report_page(report: str) -> str:
    """A gpu_check report.md as the book shows it: each solution's section cut to its heading.

    The book never shows solutions, and a failing solution's section quotes the cell that
    failed, hidden tests and reference answers included. A section runs from its
    ``## solutions/...`` heading to the next heading of level one or two outside a code fence
    (a report file can hold two reports, each under ``# Course check``). The results table keeps
    every row.
    """
    kept, in_fence, in_solution = [], False, False
    for line in report.splitlines(keepends=True):
        if not in_fence and HEADING.match(line):
            in_solution = line.startswith("## solutions/")
            if in_solution:
                kept += [line, "\nA solution notebook: the book does not show its cells.\n\n"]
                continue
        if FENCE.match(line):
            in_fence = not in_fence
        if not in_solution:
            kept.append(line)
    return "".join(kept)


def _rewrite_link(text: str, target: str, source: str, staged: str, pages: dict[str, str]) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
        return f"[{text}]({target})"  # an address elsewhere, or a place on this page
    path, _, fragment = target.partition("#")
    repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    page = pages.get(repo_path)
    if page is None:
        if text.strip("`").rstrip("/") == repo_path:
            return f"`{repo_path}`"
        return f"{text} (`{repo_path}`)"
    relative = posixpath.relpath(page, posixpath.dirname(staged) or ".")
    return f"[{text}]({relative}{'#' + fragment if fragment else ''})"


def rewrite_links(markdown: str, source: str, staged: str, pages: dict[str, str]) -> str:
    """``markdown`` of the repository file ``source`` as the book page ``staged``: a link to a
    file that is a page points at that page; a link to any other file (solutions, tools, the
    Dockerfile) becomes its path in code, since the book has no copy of it. ``pages`` maps
    repository paths to staged ones."""
    out, fenced = [], False
    for line in markdown.splitlines(keepends=True):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        if fenced or "](" not in line:
            out.append(line)
            continue
        code = [m.span() for m in INLINE_CODE.finditer(line)]

        def replace(link: re.Match[str], code: list[tuple[int, int]] = code) -> str:
            if any(start <= link.start() < end for start, end in code):
                return link.group(0)  # a link inside `code` is not a link
            return _rewrite_link(link["text"], link["target"], source, staged, pages)

        out.append(LINK.sub(replace, line))
    return "".join(out)
