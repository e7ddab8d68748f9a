"""Run the whole course on one machine without Jupyter and report what it saw.

    python3 tools/gpu_check.py --out DIR [--budget-s 480] [--notebook-timeout-s 240] [NOTEBOOK ...]

Made for a bare GPU box: it needs the standard library and what the lessons import (jax,
flax, optax, orbax-checkpoint, numpy, matplotlib, tqdm), but no Jupyter, nbclient,
nbformat, ipykernel or nbgrader. Every ``lessons/*/lesson.ipynb`` (course order), then every
``solutions/*/exercises.ipynb`` (hidden tests included), runs top to bottom in a process of
its own, cell by cell, in one namespace, like a kernel would. Cells that only show the quiz
widget (``quiz.show(``) are skipped and reported as skipped; nothing else is.

The run keeps to an overall budget, so it always ends and names what it did not reach. It
writes three files into DIR: ``report.md``, ``report.json`` (date, commit, machine, versions,
per notebook: result, seconds, failing cell with traceback, warnings, every cell's text output,
first source lines and XLA compile seconds) and ``figures.zip`` (each matplotlib figure as a
PNG). Lines that lessons print as ``GPU figure: NAME = VALUE ...`` are collected into one
table.
``tools/add_gpu_run.py DIR`` copies the three files into docs/gpu-runs/, where the book
(``make book``) shows them beside the lessons.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import importlib.util
import io
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import traceback
import warnings
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling modules, when imported
import gpu_plan  # noqa: E402
import gpu_sharing  # noqa: E402
import gpu_zygote  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
SKIP_MARKERS = {"quiz.show(": "quiz widget (needs Jupyter)"}
EXPECTED_ERROR_TAG = "raises-exception"
# VALUE is a number when it starts like one ("1.27x" gives 1.27 and the unit "x"), else a word.
FIGURE_LINE = re.compile(
    r"^GPU figure:\s*(?P<name>[\w.\-]+)\s*=\s*"
    r"(?P<value>[-+]?\d[\d.]*(?:e[-+]?\d+)?|\S+)\s*(?P<rest>.*)$"
)
# A lesson whose configuration on this GPU machine puts its work on CPU devices (its
# device-config cell sets CONFIG["devices"] = "cpu": lesson 06 and 10 on one GPU, lesson 15's
# jobs) runs beside the GPU lessons instead of after them: its figures are the CPU's, and it
# leaves the GPU's memory to the lesson that is timing the GPU.
CPU_DEVICES = "cpu"
BESIDE_ENV = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
# Modules the lessons need that jax imports only when used, so a bare box may lack them.
LAZY_MODULES = {"flatbuffers": "jax.export's serialisation: lesson 09 and its solution"}
# The one IPython magic the course's notebooks use: a cell that writes its body to a file.
WRITEFILE = re.compile(r"%%writefile(?P<append>[ \t]+-a)?[ \t]+(?P<path>\S+)[ \t]*(?:\n|$)")
MAX_CELL_TEXT = 20_000
MAX_MD_CELL_TEXT = 2_500
MIN_NOTEBOOK_S = 15.0  # do not start a notebook with less budget than this
# --strict: DeprecationWarnings from these modules (and from notebook code) are errors, as in the
# suite's kernels (autograder/kernel.py, whose list a test keeps equal to this one).
STRICT_MODULES = ("__main__", "jax", "jaxlib", "flax", "optax", "orbax")
# ... but for CPython's warning about jaxlib's C types (autograder/kernel.py says why)
NOT_API_WARNINGS = r"builtin type \S+ has no __module__ attribute"
STRICT_VARIABLE = "GPU_CHECK_STRICT"
# JAX reports every XLA compile (GPU autotuning included) to jax.monitoring under this name.
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
LONGEST_CELLS = 12  # the report's "Where the time went" lists this many cells


# ---------------------------------------------------------------------------
# The child: executes one notebook, writing its results after every cell.
# ---------------------------------------------------------------------------


@dataclass
class CellResult:
    index: int
    status: str  # ok | error | skipped | expected-error | running
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    warnings: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    source_head: str = ""
    source_digest: str = ""  # of the whole source: tools/gpu_plan.py tells a changed cell by it
    traceback: str = ""
    note: str = ""
    compile_seconds: float = 0.0  # of ``seconds``, the time XLA spent compiling
    compiles: int = 0


class _CompileClock:
    """XLA's compile seconds and count in this process so far, from JAX's own monitoring events.

    It listens once jax has been imported (at once in a process forked from the zygote), so a
    notebook that imports jax itself has the compiles of that first cell uncounted."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.count = 0
        self._listening = False

    def listen(self) -> None:
        if self._listening or "jax" not in sys.modules:
            return
        import jax.monitoring

        jax.monitoring.register_event_duration_secs_listener(self._on_duration)
        self._listening = True

    def _on_duration(self, event: str, seconds: float, **_: object) -> None:
        if event == COMPILE_EVENT:
            self.seconds += seconds
            self.count += 1


class _Tee(io.TextIOBase):
    """Writes to the real stream and keeps a copy of what one cell printed."""

    def __init__(self, real: io.TextIOBase) -> None:
        self.real = real
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.real.write(text)
        self.copy.write(text)
        return len(text)

    def flush(self) -> None:
        self.real.flush()

    def isatty(self) -> bool:
        return False


def _clip(text: str, limit: int = MAX_CELL_TEXT) -> str:
    # tqdm redraws with carriage returns; keep what a terminal would finally show.
    lines = [line.rsplit("\r", 1)[-1] for line in text.replace("\r\n", "\n").split("\n")]
    text = "\n".join(lines)
    return text if len(text) <= limit else "[…]\n" + text[-limit:]


def _code_cells(notebook_path: Path) -> list[tuple[int, str, list[str]]]:
    """(index among all cells, source, tags) for every code cell."""
    try:
        cells = json.loads(notebook_path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"{notebook_path}: not a readable notebook ({error})") from error
    found = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        source = gpu_plan.cell_source(cell.get("source", ""))
        found.append((index, source, list(cell.get("metadata", {}).get("tags", []))))
    return found


def _compile_cell(source: str, filename: str) -> tuple[object, object | None]:
    """The cell's statements, and its last expression (shown like Jupyter does) if any."""
    tree = ast.parse(source, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec")
    return body, (compile(last, filename, "eval") if last is not None else None)


def _run_code(source: str, filename: str, namespace: dict[str, object]) -> None:
    body, last = _compile_cell(source, filename)
    exec(body, namespace)  # noqa: S102 - executing the course's own notebooks
    if last is not None:
        value = eval(last, namespace)  # noqa: S307
        if value is not None:
            print(repr(value))


def _write_file(match: re.Match[str], body: str) -> None:
    """``%%writefile [-a] PATH`` as IPython runs it: the rest of the cell goes into PATH."""
    path = Path(match["path"])
    if match["append"]:
        print(f"Appending to {path}")
        with path.open("a", encoding="utf-8") as file:
            file.write(body)
        return
    print(f"{'Overwriting' if path.exists() else 'Writing'} {path}")
    path.write_text(body, encoding="utf-8")


def _save_figures(figure_dir: Path, stem: str) -> list[str]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    saved = []
    for number in pyplot.get_fignums():
        path = figure_dir / f"{stem}-{len(saved) + 1}.png"
        pyplot.figure(number).savefig(path, dpi=80)
        saved.append(path.name)
    pyplot.close("all")
    return saved


def _add_filters(filters: list[tuple]) -> None:
    """Put warning filters back in front, first ones first: in a kernel, a filter a cell adds
    (``warnings.filterwarnings("ignore", ...)``) lasts for the cells after it."""
    for action, message, category, module, lineno in reversed(filters):
        message = message.pattern if message else ""
        warnings.filterwarnings(action, message, category, module.pattern if module else "", lineno)


def run_notebook(notebook_path: Path, result_path: Path, figure_dir: Path) -> int:
    """Execute the notebook's code cells in one namespace; stop at the first failing cell."""
    cells = _code_cells(notebook_path)
    figure_dir.mkdir(parents=True, exist_ok=True)
    tag = f"{notebook_path.parent.parent.name}-{notebook_path.parent.name}"
    sources_dir = result_path.with_suffix("")  # next to the result: the run's scratch folder
    sources_dir.mkdir(parents=True, exist_ok=True)
    os.chdir(notebook_path.parent)
    sys.path.insert(0, str(REPO_ROOT))
    sys.argv = [str(notebook_path)]
    namespace: dict[str, object] = {"__name__": "__main__", "__builtins__": builtins}
    results: list[CellResult] = []

    def save() -> None:
        result_path.write_text(json.dumps([asdict(r) for r in results]))

    failed = False
    clock = _CompileClock()
    cell_filters: list[tuple] = []  # warning filters the cells added, newest first
    for index, source, tags in cells:
        digest = gpu_plan.source_digest(source)
        cell = CellResult(
            index, "running", source_head=gpu_plan.source_head(source), source_digest=digest
        )
        results.append(cell)
        skip = next((why for marker, why in SKIP_MARKERS.items() if marker in source), None)
        if failed or skip or not source.strip():
            cell.status, cell.note = "skipped", skip or ("after a failure" if failed else "empty")
            continue
        save()
        cell_file = sources_dir / f"cell_{index:02d}.py"  # real files: tracebacks and inspect work
        cell_file.write_text(source, encoding="utf-8")
        out, err = _Tee(sys.stdout), _Tee(sys.stderr)
        clock.listen()
        compiled_before = (clock.seconds, clock.count)
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            if os.environ.get(STRICT_VARIABLE) == "1":
                warnings.filterwarnings(
                    "error",
                    category=DeprecationWarning,
                    module=rf"({'|'.join(STRICT_MODULES)})(\.|$)",
                )
                warnings.filterwarnings(
                    "default", message=NOT_API_WARNINGS, category=DeprecationWarning
                )
            _add_filters(cell_filters)
            filters_before = list(warnings.filters)
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    magic = WRITEFILE.match(source)
                    if magic:
                        _write_file(magic, source[magic.end() :])
                    else:
                        _run_code(source, str(cell_file), namespace)
                cell.status = "ok"
            except BaseException as error:  # noqa: BLE001 - a notebook may raise anything
                if isinstance(error, KeyboardInterrupt):
                    raise
                expected = EXPECTED_ERROR_TAG in tags
                cell.status = "expected-error" if expected else "error"
                cell.traceback = "".join(traceback.format_exception(error))[-6000:]
                failed = not expected
            cell_filters[:0] = [f for f in warnings.filters if f not in filters_before]
        cell.seconds = round(time.perf_counter() - start, 2)
        cell.compile_seconds = round(clock.seconds - compiled_before[0], 2)
        cell.compiles = clock.count - compiled_before[1]
        cell.stdout, cell.stderr = _clip(out.copy.getvalue()), _clip(err.copy.getvalue(), 4000)
        cell.warnings = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
        cell.figures = _save_figures(figure_dir, f"{tag}-cell{index:02d}")
    save()
    return 1 if failed else 0


def lessons_on_cpu_devices(lessons: list[Path]) -> list[str]:
    """The lessons whose configuration for this machine's device puts their work on CPU devices
    (each lesson's device-config cell evaluated as tools/device_table.py does)."""
    import device_table

    from course.device import this_machine

    device, found = this_machine(), []
    for path in lessons:
        try:
            config, _ = device_table.configuration(path, device)
        except device_table.ConfigCellError as error:
            print(f"{path}: {error}; it runs with the GPU lessons", file=sys.stderr)
            continue
        if config.get("devices") == CPU_DEVICES:
            found.append(display_name(path))
    return found


def probe_machine(lessons: list[Path]) -> dict[str, object]:
    """Facts about the machine, as JAX and nvidia-smi report them (run in a child process)."""
    from importlib import metadata

    import jax

    facts: dict[str, object] = {
        "python": platform.python_version(),
        "backend": jax.default_backend(),
        "device_count": jax.device_count(),
        "device_kind": jax.devices()[0].device_kind,
        "versions": {},
    }
    for package in ("jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "numpy"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            facts["versions"][package] = metadata.version(package)  # type: ignore[index]
    plugins = [d.metadata["Name"] for d in metadata.distributions() if "cuda" in d.metadata["Name"]]
    facts["cuda_packages"] = sorted(set(plugins))
    stats = jax.devices()[0].memory_stats()
    facts["device_memory_bytes"] = stats.get("bytes_limit") if stats else None
    with contextlib.suppress(Exception):  # private module; only informative
        from jax._src.lib import cuda_versions

        if cuda_versions is not None:
            facts["cudnn_version"] = cuda_versions.cudnn_get_version()
            facts["cuda_runtime_version"] = cuda_versions.cuda_runtime_get_version()
    try:
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        facts["nvidia_smi"] = smi.stdout.strip() or smi.stderr.strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        facts["nvidia_smi"] = f"not available ({error.__class__.__name__})"
    facts["environment_info"] = jax.print_environment_info(return_string=True)
    facts["lessons_on_cpu_devices"] = lessons_on_cpu_devices(lessons)
    facts["missing_modules"] = [
        f"{name} ({purpose}; pinned as {pin_of(name)})"
        for name, purpose in LAZY_MODULES.items()
        if importlib.util.find_spec(name) is None
    ]
    return facts


def source_commit() -> str | None:
    """The commit of the course checkout this runs from (``+dirty`` if its files differ)."""

    def git(*args: str) -> str:
        command = ["git", "-C", str(REPO_ROOT), *args]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None  # not a git checkout (e.g. a copy of the files on a GPU box)
    return f"{head}+dirty" if changed else head or None


def pin_of(package: str) -> str:
    """The course's pin for a package, from pyproject.toml."""
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    for requirement in pyproject["project"]["dependencies"]:
        if requirement.split("==")[0] == package:
            return requirement
    return package


# ---------------------------------------------------------------------------
# The parent: budget, one process per notebook, the report.
# ---------------------------------------------------------------------------


@dataclass
class NotebookRun:
    notebook: str
    result: str  # pass | FAIL | timed out | crashed | not reached
    seconds: float
    cells: list[dict[str, object]]
    failing_cell: int | None = None
    log_tail: str = ""


def _child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if extra and "XLA_CLIENT_MEM_FRACTION" in extra:
        # with both names set the CUDA plugin refuses its options and JAX runs on the CPU
        env.pop("XLA_PYTHON_CLIENT_MEM_FRACTION", None)
    env.update(extra or {})
    env["MPLBACKEND"] = "Agg"
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


# The process children are forked from, once main() has started it (tools/gpu_zygote.py).
ZYGOTE: gpu_zygote.Zygote | None = None


def start_zygote(work: Path) -> dict[str, object]:
    """Start the process that forks the children, with the stack imported; what it preloaded,
    or why the children start afresh instead."""
    global ZYGOTE
    command = [sys.executable, __file__, "--zygote"]
    try:
        ZYGOTE = gpu_zygote.Zygote(command, _child_env(), work / "zygote.log")
    except gpu_zygote.ZygoteError as error:
        return {"used": False, "why": str(error)}
    return {"used": True, **{k: ZYGOTE.facts[k] for k in ("loaded", "failed", "warnings")}}


def stop_zygote() -> None:
    global ZYGOTE
    if ZYGOTE is not None:
        ZYGOTE.close()
        ZYGOTE = None


def _run_child(
    args: list[str], timeout_s: float, log_path: Path, env: dict[str, str] | None = None
) -> tuple[int | None, float]:
    """Run this script as a child in its own process group; kill the group on timeout."""
    if ZYGOTE is not None:
        return ZYGOTE.run(args, _child_env(env), log_path, timeout_s)
    start = time.perf_counter()
    with log_path.open("w") as log:
        child = subprocess.Popen(
            [sys.executable, __file__, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=_child_env(env),
            start_new_session=True,
        )
        try:
            code: int | None = child.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            code = None
    return code, time.perf_counter() - start


def _tail(path: Path, chars: int = 3000) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return _clip(text, chars)


def display_name(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def check_notebook(
    path: Path, timeout_s: float, work: Path, figure_dir: Path, env: dict[str, str] | None = None
) -> NotebookRun:
    name = display_name(path)
    result_file = work / (re.sub(r"\W", "_", name) + ".json")
    log_file = result_file.with_suffix(".log")
    code, seconds = _run_child(
        ["--child", str(path), "--result", str(result_file), "--figures", str(figure_dir)],
        timeout_s,
        log_file,
        env,
    )
    cells = json.loads(result_file.read_text()) if result_file.exists() else []
    failing = next((c["index"] for c in cells if c["status"] in ("error", "running")), None)
    if code is None:
        verdict = "timed out"
    elif code == 0:
        verdict = "pass"
    elif failing is not None and any(c["status"] == "error" for c in cells):
        verdict = "FAIL"
    else:
        verdict = "crashed"
    log_tail = "" if verdict == "pass" else _tail(log_file)
    return NotebookRun(name, verdict, round(seconds, 1), cells, failing, log_tail)


def default_notebooks() -> list[Path]:
    return sorted(REPO_ROOT.glob("lessons/*/lesson.ipynb")) + sorted(
        REPO_ROOT.glob("solutions/*/exercises.ipynb")
    )


def measured_on(rest: str) -> str:
    """The device a figure line names ("... x on NVIDIA H200" -> "NVIDIA H200")."""
    _, on, device = f" {rest}".rpartition(" on ")
    return device.strip() if on and device.strip() else "unlabelled"


def collect_figures(runs: list[NotebookRun]) -> list[dict[str, str]]:
    rows = []
    for run in runs:
        for cell in run.cells:
            for line in str(cell.get("stdout", "")).splitlines():
                match = FIGURE_LINE.match(line.strip())
                if match:
                    figure = {"notebook": run.notebook, "cell": str(cell["index"])}
                    figure.update(match.groupdict(), device=measured_on(match["rest"]))
                    rows.append(figure)
    return rows


def _fence(text: str) -> str:
    return "```\n" + text.replace("```", "'''").rstrip() + "\n```"


def preload_line(preload: dict[str, object]) -> str:
    if not preload.get("used"):
        return f"- each notebook in a fresh process ({preload.get('why', 'no preload')})"
    line = "- each notebook in a process forked from one that had imported " + ", ".join(
        preload.get("loaded", [])  # type: ignore[arg-type]
    )
    failed = preload.get("failed") or {}
    if failed:
        line += f" (not preloaded: {'; '.join(f'{k}: {v}' for k, v in failed.items())})"  # type: ignore[union-attr]
    return line


def sharing_line(sharing: dict[str, object]) -> str:
    if sharing.get("shared") is None:
        return f"- GPU shared with another process: unknown ({sharing.get('why')})"
    if sharing["shared"]:
        return (
            f"- **GPU shared with another process: yes** ({sharing['why']}): the timings are not "
            "clean"
        )
    return f"- GPU shared with another process: no ({sharing['why']})"


def longest_cells_section(runs: list[NotebookRun]) -> list[str]:
    """The run's longest cells, each split into XLA compiling (GPU autotuning included) and the
    rest: where a GPU configuration would have to shrink for the check to fit its budget."""
    cells = [(run.notebook, cell) for run in runs for cell in run.cells if cell["seconds"]]
    cells.sort(key=lambda pair: float(pair[1]["seconds"]), reverse=True)  # type: ignore[arg-type]
    if not cells:
        return []
    lines = [
        "## Where the time went",
        "",
        f"The {min(LONGEST_CELLS, len(cells))} longest cells; compiling is what JAX reported as "
        "XLA's compile time (`/jax/core/compile/backend_compile_duration`), the rest is running "
        "and everything else.",
        "",
        "| notebook | cell | seconds | compiling | programs compiled | first line |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for notebook, cell in cells[:LONGEST_CELLS]:
        first = gpu_plan.first_line(str(cell["source_head"])).strip().replace("|", "\\|")[:80]
        lines.append(
            f"| {notebook} | {cell['index']} | {float(cell['seconds']):.1f} | "  # type: ignore[arg-type]
            f"{float(cell.get('compile_seconds', 0.0)):.1f} | {cell.get('compiles', 0)} | "  # type: ignore[arg-type]
            f"`{first}` |"
        )
    return [*lines, ""]


def markdown_report(
    machine: dict[str, object],
    runs: list[NotebookRun],
    budget_s: float,
    total_s: float,
    sharing: dict[str, object],
    jobs: int,
    date: str,
    commit: str | None,
    beside: list[str] | None = None,
) -> str:
    versions = machine.get("versions", {})
    lines = [
        "# Course check",
        "",
        f"- date: {date}",
        f"- commit: {commit or 'not recorded (not a git checkout; see --commit)'}",
        f"- backend: {machine.get('backend')}, {machine.get('device_count')} × "
        f"{machine.get('device_kind')}",
        f"- device memory (bytes_limit): {machine.get('device_memory_bytes')}",
        f"- nvidia-smi: {machine.get('nvidia_smi')}",
        f"- CUDA runtime / cuDNN (as JAX reports): {machine.get('cuda_runtime_version')} / "
        f"{machine.get('cudnn_version')}",
        f"- Python {machine.get('python')}; "
        + ", ".join(f"{k} {v}" for k, v in dict(versions).items()),  # type: ignore[call-overload]
        f"- CUDA packages: {', '.join(machine.get('cuda_packages', [])) or 'none'}",  # type: ignore[arg-type]
        "- modules the lessons need that this Python lacks (install them before running): "
        f"{'; '.join(machine.get('missing_modules', [])) or 'none'}",  # type: ignore[arg-type]
        preload_line(machine.get("preload", {})),  # type: ignore[arg-type]
        sharing_line(sharing),
        f"- budget {budget_s:.0f} s, used {total_s:.0f} s; lessons one at a time"
        + (f" (beside them, one at a time, on CPU devices: {', '.join(beside)})" if beside else "")
        + f", then solutions {jobs} at a time",
        "",
        "| notebook | result | seconds | compiling (s) | cells run | skipped | failing cell |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        ran = sum(c["status"] in ("ok", "expected-error") for c in run.cells)
        skipped = [
            c for c in run.cells if c["status"] == "skipped" and c["note"] != "after a failure"
        ]
        failing = "" if run.failing_cell is None else str(run.failing_cell)
        compiling = sum(float(c.get("compile_seconds", 0.0)) for c in run.cells)  # type: ignore[arg-type]
        lines.append(
            f"| {run.notebook} | {run.result} | {run.seconds:.1f} | {compiling:.1f} | {ran}/"
            f"{len(run.cells)} | {len(skipped)} | {failing} |"
        )
    passed = sum(r.result == "pass" for r in runs)
    lines += ["", f"{passed}/{len(runs)} notebooks passed.", ""]
    lines += longest_cells_section(runs)
    figures = collect_figures(runs)
    lines += ["## GPU figures", ""]
    if not figures:
        lines.append("No `GPU figure:` lines were printed.")
    # each figure under the device it says it was measured on: a lesson that runs on simulated
    # CPU devices prints "on cpu" even on a GPU machine
    for device in dict.fromkeys(f["device"] for f in figures):
        lines += [
            f"Measured on {device}:",
            "",
            "| notebook | cell | figure | value | |",
            "|---|---:|---|---:|---|",
        ]
        lines += [
            f"| {f['notebook']} | {f['cell']} | {f['name']} | {f['value']} | {f['rest']} |"
            for f in figures
            if f["device"] == device
        ]
        lines.append("")
    for run in runs:
        lines += ["", f"## {run.notebook}: {run.result} ({run.seconds:.1f} s)", ""]
        if run.result == "not reached":
            lines.append("Not run: the budget was spent.")
            continue
        for cell in run.cells:
            if cell["status"] in ("error", "running"):
                what = (
                    "failed" if cell["status"] == "error" else "was running when the time ran out"
                )
                lines += [f"Cell {cell['index']} {what}:", "", _fence(str(cell["source_head"])), ""]
                if cell["traceback"]:
                    lines += [_fence(str(cell["traceback"])[-3000:]), ""]
        if run.log_tail:
            lines += ["Process output (tail):", "", _fence(run.log_tail), ""]
        warned = sorted({w for c in run.cells for w in c["warnings"]})  # type: ignore[attr-defined]
        if warned:
            lines += ["Warnings:", ""] + [f"- {w[:300]}" for w in warned] + [""]
        lines += ["<details><summary>cell outputs</summary>", ""]
        for cell in run.cells:
            text = str(cell["stdout"]).strip()
            status = f"{cell['status']}, {cell['seconds']} s" + (
                f", {cell['note']}" if cell["note"] else ""
            )
            if cell.get("compiles"):
                status += f", {cell['compiles']} compiles in {cell['compile_seconds']} s"
            if cell["figures"]:
                status += f", figures: {', '.join(cell['figures'])}"  # type: ignore[arg-type]
            lines.append(f"**cell {cell['index']}** ({status})")
            if text:
                lines += ["", _fence(_clip(text, MAX_MD_CELL_TEXT))]
            lines.append("")
        lines += ["</details>"]
    return "\n".join(lines) + "\n"


def is_lesson(path: Path) -> bool:
    return path.name == "lesson.ipynb"


class Schedule:
    """Runs notebooks within the overall budget: lessons one at a time (their figures are
    timings), then solutions (correctness only) ``jobs`` at a time, each with a share of the
    GPU's memory."""

    def __init__(self, args: argparse.Namespace, work: Path, sampler: gpu_sharing.Sampler) -> None:
        self.args, self.work, self.sampler = args, work, sampler
        self.start = time.perf_counter()
        self.lock = threading.Lock()

    def left(self) -> float:
        return self.args.budget_s - (time.perf_counter() - self.start)

    def run(self, path: Path, env: dict[str, str] | None = None) -> NotebookRun:
        left = self.left()
        if left < self.args.min_notebook_s:
            return NotebookRun(display_name(path), "not reached", 0.0, [])
        with self.lock:
            self.sampler.running += 1
        try:
            run = check_notebook(
                path, min(self.args.notebook_timeout_s, left), self.work, self.work / "figures", env
            )
        finally:
            with self.lock:
                self.sampler.running -= 1
                self.sampler.last_end = time.perf_counter()
        print(f"{run.notebook}: {run.result} in {run.seconds:.1f} s", flush=True)
        return run

    def run_all(
        self, notebooks: list[Path], jobs: int, beside: frozenset[Path] = frozenset()
    ) -> list[NotebookRun]:
        """Lessons one at a time, the lessons in ``beside`` (on CPU devices) one at a time next to
        them, then the solutions ``jobs`` at a time."""
        lessons = [p for p in notebooks if is_lesson(p) and p not in beside]
        side = [p for p in notebooks if is_lesson(p) and p in beside]
        others = [p for p in notebooks if not is_lesson(p)]
        with ThreadPoolExecutor(max_workers=1) as lane:
            side_runs = lane.submit(lambda: {p: self.run(p, BESIDE_ENV) for p in side})
            runs = {p: self.run(p) for p in lessons}
            runs.update(side_runs.result())
        env = {"XLA_CLIENT_MEM_FRACTION": f"{0.9 / jobs:.3f}"} if jobs > 1 else None
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            runs.update(zip(others, pool.map(lambda p: self.run(p, env), others), strict=True))
        return [runs[p] for p in notebooks]


def run_checks(
    args: argparse.Namespace, notebooks: list[Path], work: Path, known: dict[str, gpu_plan.Timing]
) -> tuple[list[NotebookRun], dict[str, object], int, frozenset[Path], dict[str, object]]:
    """Probe the machine, print the plan, run the notebooks: (runs, machine, jobs, the lessons
    run beside the others, whether the GPU was shared)."""
    probe_file = work / "machine.json"
    lessons = [str(p) for p in notebooks if is_lesson(p)]
    code, _ = _run_child(["--probe", str(probe_file), *lessons], 120, work / "probe.log")
    machine = (
        json.loads(probe_file.read_text())
        if code == 0
        else {"probe_error": _tail(work / "probe.log")}
    )
    on_gpu = machine.get("backend") == "gpu"
    jobs = args.jobs or (4 if on_gpu else 1)
    if args.beside is not None:
        beside = frozenset(p.resolve() for p in args.beside) & set(notebooks)
    else:
        on_cpu = set(machine.get("lessons_on_cpu_devices", [])) if on_gpu else set()
        beside = frozenset(p for p in notebooks if display_name(p) in on_cpu)
    print(
        f"machine: {machine.get('backend')} × {machine.get('device_count')} "
        f"{machine.get('device_kind')}; solutions {jobs} at a time; beside the lessons: "
        f"{', '.join(sorted(display_name(p) for p in beside)) or 'none'}",
        flush=True,
    )
    if known:
        names = [display_name(p) for p in notebooks]
        plan = gpu_plan.plan(names, known, jobs, frozenset(display_name(p) for p in beside))
        print(gpu_plan.describe(plan, args.budget_s), flush=True)
    sampler = gpu_sharing.Sampler().start()
    try:
        runs = Schedule(args, work, sampler).run_all(notebooks, jobs, beside)
    finally:
        sampler.stop()
    return runs, machine, jobs, beside, sampler.summary()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "notebooks",
        nargs="*",
        type=Path,
        help="notebooks to run (default: every lesson, then every solution)",
    )
    parser.add_argument("--out", type=Path, help="folder for report.md, report.json, figures.zip")
    parser.add_argument("--budget-s", type=float, default=480.0, help="overall budget (480)")
    parser.add_argument(
        "--notebook-timeout-s", type=float, default=240.0, help="limit for one notebook (240)"
    )
    parser.add_argument(
        "--min-notebook-s",
        type=float,
        default=MIN_NOTEBOOK_S,
        help=f"do not start a notebook with less budget left than this ({MIN_NOTEBOOK_S:.0f})",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        help="solutions run this many at a time (default: 4 on a GPU, 1 on a CPU); lessons "
        "always run one at a time",
    )
    parser.add_argument(
        "--beside",
        type=Path,
        action="append",
        default=None,
        help="a lesson to run beside the others instead of after them (repeatable; default on a "
        "GPU: the lessons whose configuration there runs on CPU devices)",
    )
    parser.add_argument(
        "--estimate-from",
        type=Path,
        action="append",
        default=[],
        help="an earlier report (.json or .md) whose times give the plan printed before the run",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="DeprecationWarnings from the JAX stack and notebooks are errors (as in the suite)",
    )
    parser.add_argument(
        "--commit",
        help="the course commit these files are at, when the folder is not a git checkout",
    )
    parser.add_argument(
        "--no-preload",
        action="store_true",
        help="start every notebook's process afresh (default: fork it from one process that "
        "has imported jax, flax, optax, orbax and matplotlib once)",
    )
    parser.add_argument("--zygote", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--figures", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.zygote:
        strict = STRICT_MODULES if os.environ.get(STRICT_VARIABLE) == "1" else None
        return gpu_zygote.serve(main, strict)
    if args.child:
        return run_notebook(args.child.resolve(), args.result, args.figures)
    if args.probe:
        args.probe.write_text(json.dumps(probe_machine(args.notebooks)))
        return 0
    if args.out is None:
        parser.error("--out DIR is required")
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.strict:
        os.environ[STRICT_VARIABLE] = "1"  # the children inherit it
    notebooks = [p.resolve() for p in args.notebooks] or default_notebooks()
    missing = [str(p) for p in notebooks if not p.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    try:
        known = gpu_plan.known_seconds(args.estimate_from)
    except gpu_plan.ReportError as error:
        parser.error(str(error))

    start = time.perf_counter()
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    commit = args.commit or source_commit()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        work = Path(scratch)
        preload: dict[str, object] = {"used": False, "why": "--no-preload"}
        if not args.no_preload:
            preload = start_zygote(work)
        try:
            runs, machine, jobs, beside, sharing = run_checks(args, notebooks, work, known)
        finally:
            stop_zygote()
        machine["preload"] = preload
        with zipfile.ZipFile(args.out / "figures.zip", "w", zipfile.ZIP_DEFLATED) as archive:
            for png in sorted((work / "figures").glob("*.png")):
                archive.write(png, png.name)
    total = time.perf_counter() - start
    side = sorted(display_name(p) for p in beside)
    report = {
        "date": date,  # the book (course/book/gpu_runs.py) shows these with the outputs
        "commit": commit,
        "machine": machine,
        "budget_s": args.budget_s,
        "jobs": jobs,
        "beside": side,
        "seconds": round(total, 1),
        "gpu_sharing": sharing,
        "figures": collect_figures(runs),
        "notebooks": [asdict(r) for r in runs],
    }
    (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    markdown = markdown_report(
        machine, runs, args.budget_s, total, sharing, jobs, date, commit, side
    )
    (args.out / "report.md").write_text(markdown)
    passed = sum(r.result == "pass" for r in runs)
    print(
        f"{passed}/{len(runs)} notebooks passed in {total:.0f} s; report: {args.out / 'report.md'}"
    )
    return 0 if passed == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
