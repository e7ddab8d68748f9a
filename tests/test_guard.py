"""The grader's guard: what an answer cell does to the tests' tools is undone or flagged.

Each case runs a small notebook under the guard in a real kernel: a locked setup cell, the
tampering answer cell, then graded test cells that rely on numpy, a builtin, a helper from the
setup cell and the quiz package. "undone": the tests run with the course's own tools and their
receipts are intact. "flagged": the guard cannot undo it before the test runs, so the test's
receipt is missing or says disturbed, and the grader gives the cell no points.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager
from nbclient import NotebookClient

from autograder import guard
from autograder.config import CELL_TIMEOUT_S, SOLUTIONS_DIR, kernel_client_config
from autograder.kernel_guard import GUARDED_MODULES

SETUP = (
    "import subprocess\n\nimport numpy as np\nimport quiz\n\n\ndef helper():\n    return 1\n\n\n"
    "class Device:  # a test's fake device\n    def waits(self):\n        return 1\n"
)
TESTS = {
    "test-values": (
        "assert not np.allclose(0.0, 1.0)\n"
        "assert not all([True, False])\n"
        "assert helper() == 1\n"
        "assert quiz.points({}, '00_gpu_detection') == 0\n"
        "import numpy\nassert numpy is np\n"
        "import pathlib\nassert not pathlib.Path('/no/such/file').exists()\n"
        "assert 'is_relative_to' not in vars(pathlib.Path)\n"
        "assert Device().waits() == 1\n"
        "assert subprocess.run(['true']).returncode == 0\n"
    ),
    "test-raises": (
        "try:\n    np.testing.assert_allclose(0.0, 1.0)\nexcept AssertionError:\n    pass\n"
        "else:\n    raise RuntimeError('assert_allclose did not raise')\n"
    ),
    "test-fails": "assert helper() == 2, 'this test fails and must say so'",
}
UNDONE = {
    "patches np.allclose": "np.allclose = lambda *a, **k: True",
    "patches numpy.testing": (
        "import numpy.testing as npt\nnpt.assert_allclose = lambda *a, **k: None"
    ),
    "patches a builtin": "import builtins\nbuiltins.all = lambda x: True",
    "replaces __builtins__": "__builtins__ = {'all': lambda x: True}",
    "rebinds a locked helper": "helper = lambda: 2",
    "swaps a function's code": "quiz.points.__code__ = (lambda answers, lesson: 5).__code__",
    "replaces a module in sys.modules": (
        "import sys, types\nsys.modules['numpy'] = types.SimpleNamespace(allclose=None)"
    ),
    "swallows exceptions": "get_ipython().set_custom_exc((Exception,), lambda *a, **k: None)",
    "silences tracebacks": "get_ipython().showtraceback = lambda *a, **k: None",
    "patches the shell's class": "type(get_ipython()).showtraceback = lambda *a, **k: None",
    "patches a library class": (
        "import pathlib\npathlib.Path.exists = lambda self: True\n"
        "pathlib.Path.is_relative_to = lambda self, other: True  # shadows PurePath's"
    ),
    "adds a class to a library class (as nanobind does), shadowing nothing": (
        "import pathlib\npathlib.Path.Helper = type('Helper', (), {})"
    ),
    "sets a trace hook": "import sys\nsys.settrace(lambda *a: None)",
    "patches a private NumPy helper that a public function calls": (
        "import numpy.testing._private.utils as u\nu.assert_array_compare = lambda *a, **k: None"
    ),
    "replaces IPython's event registry with one that runs code when read": (
        "class Registry(dict):\n"
        "    def __getitem__(self, key):\n"
        "        np.allclose = lambda *a, **k: True\n"
        "        return dict.__getitem__(self, key)\n"
        "    values = lambda self: [np.__setattr__('allclose', lambda *a, **k: True)]\n"
        "get_ipython().events.callbacks = Registry(get_ipython().events.callbacks)"
    ),
    "patches the kernel's session class to drop errors": (
        "import jupyter_client.session as s\n"
        "_send = s.Session.send\n"
        "def send(self, stream, kind, content=None, *a, **k):\n"
        "    if kind == 'error' or getattr(stream, 'name', '') == 'stderr':\n"
        "        return None\n"
        "    if isinstance(content, dict) and content.get('status') == 'error':\n"
        "        content = {**content, 'status': 'ok'}\n"
        "    return _send(self, stream, kind, content, *a, **k)\n"
        "s.Session.send = send"
    ),
    "shadows the kernel session's send on the instance": (
        "session = get_ipython().kernel.session\n"
        "_send = session.send\n"
        "session.send = lambda stream, kind, *a, **k: None if kind == 'error' else _send("
        "stream, kind, *a, **k)"
    ),
    "patches a method of a class a locked cell defined": "Device.waits = lambda self: 2",
    "patches the standard library (subprocess)": (
        "import subprocess\nsubprocess.run = lambda *a, **k: type('R', (), {'returncode': 7})()"
    ),
    "shadows the compiler's parser: every later cell parses as `pass`": (
        "import ast\n"
        "get_ipython().compile.ast_parse = lambda source, filename='<unknown>', symbol='exec': ("
        "ast.parse('pass'))"
    ),
    "replaces the shell's builtin trap, entered before a cell is parsed": (
        "from IPython.core.builtin_trap import BuiltinTrap\n"
        "class Trap(BuiltinTrap):\n"
        "    def __enter__(self):\n"
        "        np.allclose = lambda *a, **k: True\n"
        "        return super().__enter__()\n"
        "get_ipython().builtin_trap = Trap(shell=get_ipython())"
    ),
    "runs the cells in a namespace that lies": (
        "class Namespace(dict):\n"
        "    def __getitem__(self, key):\n"
        "        return (lambda: 2) if key == 'helper' else dict.__getitem__(self, key)\n"
        "get_ipython().user_ns = Namespace(get_ipython().user_ns)"
    ),
    "registers a garbage-collection callback, which runs anywhere": (
        "import gc\n"
        "gc.callbacks.append(lambda phase, info: np.__setattr__('allclose', lambda *a, **k: True))"
    ),
    "sets a timer whose signal handler patches numpy between a test's bytecodes": (
        "import signal\n"
        "signal.signal(signal.SIGALRM, lambda *a: setattr(np, 'allclose', lambda *a, **k: True))\n"
        "signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)"
    ),
    "honest code beside the tests": (
        "import json\nmine = np.arange(3).sum()\nprint('my own output', mine)"
    ),
}
FLAGGED = {
    "blanks later cells": "get_ipython().input_transformers_post.append(lambda lines: [])",
    "re-patches after the guard": (
        "get_ipython().events.register(\n"
        "    'pre_run_cell', lambda info: setattr(np, 'allclose', lambda *a, **k: True)\n)"
    ),
}


def _run(
    answer: str,
    tmp_path: Path,
    setup: str = SETUP,
    tests: dict[str, str] = TESTS,
    locked_after: str | None = None,
) -> tuple[nbformat.NotebookNode, list[str]]:
    """Run setup, answer, (a second locked cell,) the tests: the tests' cells come last."""
    locked = [setup] if locked_after is None else [setup, locked_after]
    cells = [*locked[:1], answer, *locked[1:], *tests.values()]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    for cell, grade_id in zip(notebook.cells[-len(tests) :], tests, strict=True):
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "locked": True}
    graded = {guard.source_hash(source): grade_id for grade_id, source in tests.items()}
    hashes = [guard.source_hash(c) for c in locked]
    before = dict.fromkeys(graded, hashes)  # every locked cell comes before the tests
    with guard.arm_cells(graded, hashes, tmp_path, before) as armed:
        NotebookClient(
            notebook,
            timeout=CELL_TIMEOUT_S,
            kernel_name="python3",
            allow_errors=True,
            config=kernel_client_config(),
        ).execute()
    return notebook, guard.check_receipts(notebook, armed)


def _errors(cell: nbformat.NotebookNode) -> list[str]:
    return [o.evalue for o in cell.outputs if o.output_type == "error"]


def _ran_as_written(notebook: nbformat.NotebookNode, flagged: list[str]) -> None:
    """Every test cell the guard did not flag ran with the course's tools."""
    expected_errors = {
        "test-values": [],
        "test-raises": [],
        "test-fails": ["this test fails and must say so"],
    }
    for cell, grade_id in zip(notebook.cells[2:], TESTS, strict=True):
        if grade_id not in flagged:
            assert _errors(cell) == expected_errors[grade_id], (grade_id, _errors(cell))
    assert not any(guard.MIME in o.get("data", {}) for c in notebook.cells for o in c.outputs)


@pytest.mark.parametrize("answer", UNDONE.values(), ids=UNDONE.keys())
def test_the_guard_undoes_it(answer: str, tmp_path: Path) -> None:
    notebook, disturbed = _run(answer, tmp_path)
    assert disturbed == []
    _ran_as_written(notebook, disturbed)


@pytest.mark.parametrize("answer", FLAGGED.values(), ids=FLAGGED.keys())
def test_the_guard_flags_what_it_cannot_undo_in_time(answer: str, tmp_path: Path) -> None:
    # The tampering reaches the first test cell (it acts before the guard's restore, or
    # after it); the guard flags that cell and has undone the tampering for the next ones.
    notebook, disturbed = _run(answer, tmp_path)
    assert disturbed == ["test-values"], disturbed
    _ran_as_written(notebook, disturbed)


def test_a_locked_name_rebound_while_a_test_runs_is_flagged(tmp_path: Path) -> None:
    # The answer's function runs inside the graded cell, after the guard's restore, and
    # rebinds the locked cell's helper through its globals: the test then calls the fake.
    answer = "def answer():\n    globals()['helper'] = lambda: 2\n"
    tests = {"test-calls-answer": "answer()\nassert helper() == 2, 'the locked helper says 1'"}
    notebook, disturbed = _run(answer, tmp_path, tests=tests)
    assert disturbed == ["test-calls-answer"], disturbed
    assert _errors(notebook.cells[2]) == []  # the fake answered: only the guard can tell


def test_an_error_hidden_before_post_run_cell_is_flagged(tmp_path: Path) -> None:
    # Called by the test, the answer makes IPython swallow the test's error and registers a
    # post_execute callback that clears the error from the ExecutionResult and puts IPython
    # back, then removes itself: all before post_run_cell, where the guard once looked.
    answer = (
        "def answer():\n"
        "    shell = get_ipython()\n"
        "    saved = shell.custom_exceptions, shell.CustomTB\n"
        "    shell.custom_exceptions, shell.CustomTB = (Exception,), lambda *a, **k: None\n"
        "    def tidy():\n"
        "        shell.last_execution_result.error_in_exec = None\n"
        "        shell.custom_exceptions, shell.CustomTB = saved\n"
        "        shell.events.unregister('post_execute', tidy)\n"
        "    shell.events.register('post_execute', tidy)\n"
    )
    tests = {"test-calls-answer": "answer()\nassert helper() == 2, 'the locked helper says 1'"}
    notebook, disturbed = _run(answer, tmp_path, tests=tests)
    assert _errors(notebook.cells[2]) == []  # swallowed: nbgrader alone would give the points
    assert disturbed == ["test-calls-answer"], disturbed


# Answers that, called by a test, show a result of their own through the shell's displayhook:
# nbgrader scores a cell by its first error or result, so one shown before the test's error
# (a string: full credit), or before the test's own number, would decide the score.
SHOWS_A_RESULT = {
    "before the test's error": (
        "answer()\nassert helper() == 2, 'the locked helper says 1'",
        "def answer():\n    get_ipython().displayhook('see below')\n",
    ),
    "before the test's own number": (
        "answer()\nhelper() / 2",
        "def answer():\n    get_ipython().displayhook(2.0)\n",
    ),
}


@pytest.mark.parametrize("test, answer", SHOWS_A_RESULT.values(), ids=SHOWS_A_RESULT.keys())
def test_a_result_shown_by_the_code_a_test_calls_is_flagged(
    test: str, answer: str, tmp_path: Path
) -> None:
    _, disturbed = _run(answer, tmp_path, tests={"test-calls-answer": test})
    assert disturbed == ["test-calls-answer"], disturbed


def test_a_trace_hook_that_skips_a_tests_assert_is_flagged(tmp_path: Path) -> None:
    # Called inside the test's loop, the answer makes the loop's frame jump over the assert
    # that follows the call, and removes its hook when that frame returns: before the guard
    # looks, as the statement returns.
    answer = (
        "import sys\n"
        "def answer(case):\n"
        "    caller = sys._getframe(1)\n"
        "    skip_to = caller.f_lineno + 2\n"
        "    def jump(frame, event, arg):\n"
        "        if event == 'line' and frame.f_lineno == skip_to - 1:\n"
        "            frame.f_lineno = skip_to\n"
        "        if event == 'return':\n"
        "            sys.settrace(None)\n"
        "        return jump\n"
        "    caller.f_trace = jump\n"
        "    sys.settrace(lambda *a: None)\n"
        "    return -1\n"
    )
    test = (
        "for case in [1, 2]:\n"
        "    got = answer(case)\n"
        "    assert got == case * 10, 'wrong answer'\n"
        "    print('checked', case)\n"
    )
    notebook, disturbed = _run(answer, tmp_path, tests={"test-loop": test})
    assert _errors(notebook.cells[2]) == []  # skipped: nbgrader alone would give the points
    assert disturbed == ["test-loop"], disturbed


# Registered by the answer, a pre_run_cell callback runs after the guard's restore: it plants
# a parser that turns the next cell into other code and removes itself when called, so nothing
# is left to see when the guard looks (a seventh red-team pass).
PARSES_AS = (
    "import ast\n"
    "def plant(info):\n"
    "    compiler = get_ipython().compile\n"
    "    def parse(source, filename='<unknown>', symbol='exec'):\n"
    "        del compiler.ast_parse\n"
    "        return ast.parse({code!r})\n"
    "    compiler.ast_parse = parse\n"
    "get_ipython().events.register('pre_run_cell', plant)\n"
)


def test_a_test_parsed_into_other_code_is_flagged(tmp_path: Path) -> None:
    tests = {"test-fails": TESTS["test-fails"]}
    notebook, disturbed = _run(PARSES_AS.format(code="pass"), tmp_path, tests=tests)
    assert _errors(notebook.cells[2]) == []  # it ran `pass`: nbgrader alone would give the points
    assert disturbed == ["test-fails"], disturbed


def test_a_locked_cell_parsed_into_other_code_flags_the_tests_after_it(tmp_path: Path) -> None:
    # the second setup cell defines the fake helper the test then trusts
    tests = {"test-fails": TESTS["test-fails"]}
    notebook, disturbed = _run(
        PARSES_AS.format(code="def helper():\n    return 2"),
        tmp_path,
        tests=tests,
        locked_after="def helper():\n    return 1\n",
    )
    assert _errors(notebook.cells[3]) == []  # the fake helper answered 2
    assert disturbed == ["test-fails"], disturbed


# Settings that are values, not functions, which an answer cell can leave behind for the tests
PLAIN_TESTS = {
    "test-plain": (
        "import os\nimport warnings\n"
        "assert 'PYTHONGUARDPROBE' not in os.environ, 'the environment'\n"
        "assert os.getcwd() != '/', 'the working directory'\n"
        "assert np.geterr()['divide'] == 'warn', 'NumPy error handling'\n"
        "assert warnings.filters[0][:3] != ('ignore', None, Warning), 'the warnings filters'\n"
        "import sys\nassert sys.executable != '/bin/true', 'the interpreter'\n"
        "import tracemalloc\nassert hasattr(tracemalloc, 'get_traced_memory'), 'tracemalloc'\n"
    )
}
CHANGES_A_SETTING = {
    "sets an environment variable a test's subprocess would inherit": (
        "import os\nos.environ['PYTHONGUARDPROBE'] = '1'"
    ),
    "changes the working directory": "import os\nos.chdir('/')",
    "silences NumPy's floating-point warnings": "np.seterr(all='ignore')",
    "ignores every warning (a deprecation among them)": (
        "import warnings\nwarnings.simplefilter('ignore')"
    ),
    "points sys.executable, which a test starts, at another program": (
        "import sys\nsys.executable = '/bin/true'"
    ),
    "puts a fake tracemalloc into sys.modules before a test imports it": (
        "import sys, types\nsys.modules['tracemalloc'] = types.ModuleType('tracemalloc')"
    ),
}


def test_a_process_an_answer_left_running_is_stopped_before_a_test(tmp_path: Path) -> None:
    # it could rewrite the files a test writes and then runs (a tenth red-team pass)
    answer = "import subprocess\n_p = subprocess.Popen(['sleep', '60'])"
    tests = {"test-alone": "assert _p.poll() is not None, 'the process still runs'"}
    notebook, disturbed = _run(answer, tmp_path, tests=tests)
    assert disturbed == [] and _errors(notebook.cells[2]) == []


def test_a_guarded_module_put_into_sys_modules_flags_the_tests(tmp_path: Path) -> None:
    # (a module of the course, which no cell has imported yet)
    tests = {"test-imports": "import quiz.terminal\nassert not vars(quiz.terminal).get('main')"}
    for fake in ("types.ModuleType('quiz.terminal')", "types.SimpleNamespace(main=None)"):
        answer = f"import sys, types\nsys.modules['quiz.terminal'] = {fake}"
        _, disturbed = _run(answer, tmp_path, tests=tests)
        assert disturbed == ["test-imports"], (fake, disturbed)


@pytest.mark.parametrize("answer", CHANGES_A_SETTING.values(), ids=CHANGES_A_SETTING.keys())
def test_the_guard_puts_back_the_settings_the_tests_run_with(answer: str, tmp_path: Path) -> None:
    notebook, disturbed = _run(answer, tmp_path, tests=PLAIN_TESTS)
    assert disturbed == [], disturbed
    assert _errors(notebook.cells[2]) == []


def test_the_guard_puts_back_jax_options_and_flags_a_context_left_open(tmp_path: Path) -> None:
    # jax_disable_jit hides the compiles a test counts (a ninth red-team pass); set through
    # jax.config.update it is put back, entered as a context that never exits it cannot be
    tests = {
        f"test-jit-{i}": f"assert not jax.config.jax_disable_jit, 'jit disabled ({i})'"
        for i in (1, 2)
    }
    notebook, disturbed = _run(
        "jax.config.update('jax_disable_jit', True)", tmp_path, JAX_SETUP, tests
    )
    assert disturbed == [] and [_errors(c) for c in notebook.cells[2:]] == [[], []]
    left_open = "context = jax.disable_jit()\ncontext.__enter__()"
    _, disturbed = _run(left_open, tmp_path / "context", JAX_SETUP, tests)
    assert disturbed == ["test-jit-1", "test-jit-2"], disturbed


def test_a_forged_receipt_is_refused(tmp_path: Path) -> None:
    forge = (
        "from IPython.display import display\n"
        "def _forge(result):\n"
        "    for grade_id in ('test-values', 'test-raises', 'test-fails'):\n"
        "        display({'" + guard.MIME + "': {'grade_id': grade_id, 'verdict': 'intact',"
        " 'receipt': '0' * 64}}, raw=True)\n"
        "get_ipython().input_transformers_post.append(lambda lines: [])\n"
        "get_ipython().events.register('post_run_cell', _forge)"
    )
    notebook, disturbed = _run(forge, tmp_path)
    assert disturbed == ["test-values"], disturbed
    _ran_as_written(notebook, disturbed)


# Answers that leave the tests' tools alone but keep a test's outcome from the grader: nbgrader
# scores a cell by the error and the number (partial credit) it sees.
OUTCOME_TESTS = {**TESTS, "test-partial": "helper() / 2"}
KEEPS_OUTCOME = {
    "drops the display hook's messages": "get_ipython().displayhook.pub_socket = None",
    "says every cell succeeded, and drops its traceback": (
        "import IPython.core.interactiveshell as ish\n"
        "ish.ExecutionResult.success = property(lambda self: True)\n"
        "get_ipython().displayhook.pub_socket = None"
    ),
    "swaps the shell's result class and drops error messages": (
        "import IPython.core.interactiveshell as ish\n"
        "import ipykernel.iostream as io\n"
        "class Result(ish.ExecutionResult):\n"
        "    success = property(lambda self: True)\n"
        "ish.ExecutionResult = Result\n"
        "send = io.IOPubThread.send_multipart\n"
        "def quiet(self, parts, *a, **k):\n"
        "    if any(b'\"msg_type\":\"error\"' in p.replace(b' ', b'') for p in parts\n"
        "           if isinstance(p, bytes)):\n"
        "        return None\n"
        "    return send(self, parts, *a, **k)\n"
        "io.IOPubThread.send_multipart = quiet"
    ),
}


@pytest.mark.parametrize("answer", KEEPS_OUTCOME.values(), ids=KEEPS_OUTCOME.keys())
def test_an_outcome_kept_from_the_grader_costs_the_cell(answer: str, tmp_path: Path) -> None:
    # The guard signs what the shell saw each graded cell do: an error that never reached
    # the grader, or a number it never showed, flags the cell.
    notebook, disturbed = _run(answer, tmp_path, tests=OUTCOME_TESTS)
    cells = dict(zip(OUTCOME_TESTS, notebook.cells[2:], strict=True))
    assert _errors(cells["test-fails"]) or "test-fails" in disturbed, disturbed
    shown = [o for o in cells["test-partial"].outputs if o.output_type == "execute_result"]
    assert shown or "test-partial" in disturbed, disturbed
    # (a result class swapped before the first test cell flags that cell too: run_cell makes
    # the cell's result before the guard's restore)


JAX_SETUP = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"
JAX_TESTS = {
    "test-flops": (
        "compiled = jax.jit(lambda a: a @ a).lower(jnp.ones((8, 8))).compile()\n"
        "assert compiled.cost_analysis()['flops'] == 2 * 8**3\n"
    ),
    "test-array": (
        "assert float(jnp.float32(2.5)) == 2.5\nassert np.asarray(jnp.ones(2)).sum() == 2\n"
        "assert jnp.ones(2).shape == (2,)\n"
    ),
}


def test_the_guard_undoes_patches_to_jax_classes(tmp_path: Path) -> None:
    # Classes the tests reach through objects rather than names: a compiled program, an array.
    answer = (
        "type(jax.jit(abs).lower(1.0).compile()).cost_analysis = lambda self: {'flops': 1024.0}\n"
        "type(jnp.ones(1)).shape = property(lambda self: (7,))  # a property, not a method\n"
        "type(jnp.ones(1)).__float__ = lambda self: 0.0\n"
        "type(jnp.ones(1)).__array__ = lambda self, *a, **k: np.ones(2)\n"
    )
    notebook, disturbed = _run(answer, tmp_path, JAX_SETUP, JAX_TESTS)
    assert disturbed == []
    assert [_errors(cell) for cell in notebook.cells[2:]] == [[], []]


# A twelfth red-team pass changed what the tests' unchanged code finds, not the code itself:
# where modules come from, a closure's cell, a module's constant, a global named as a builtin.
FAKE_TESTING = (
    "class Fake:\n    def __getattr__(self, name):\n        return lambda *a, **k: None\n"
)
FINDS_ANOTHER_MODULE = {
    "sets np.testing before NumPy loads it on first use": FAKE_TESTING + "np.testing = Fake()",
    "serves numpy.testing from a finder after the guard's own": (
        FAKE_TESTING + "import importlib.util, sys, types\n"
        "class Finder:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'numpy.testing':\n"
        "            return importlib.util.spec_from_loader(name, self)\n"
        "    def create_module(self, spec):\n"
        "        module = types.ModuleType(spec.name)\n"
        "        module.__getattr__ = Fake().__getattr__\n"
        "        return module\n"
        "    def exec_module(self, module):\n"
        "        pass\n"
        "sys.meta_path.insert(1, Finder())"
    ),
    "puts a folder with a fake numpy.testing first in numpy's __path__": (
        "import pathlib, tempfile\n"
        "folder = pathlib.Path(tempfile.mkdtemp())\n"
        "(folder / 'testing').mkdir()\n"
        "(folder / 'testing' / '__init__.py').write_text("
        "'def assert_allclose(*a, **k):\\n    pass\\n')\n"
        "np.__path__.insert(0, str(folder))"
    ),
}


@pytest.mark.parametrize("answer", FINDS_ANOTHER_MODULE.values(), ids=FINDS_ANOTHER_MODULE.keys())
def test_the_guard_keeps_where_modules_come_from(answer: str, tmp_path: Path) -> None:
    notebook, disturbed = _run(answer, tmp_path)
    assert disturbed == [], disturbed
    _ran_as_written(notebook, disturbed)


def test_the_guard_undoes_a_closure_and_a_constant_of_jax(tmp_path: Path) -> None:
    # jax.grad is a wrapper whose cell holds the function that differentiates; the tests'
    # compile listeners filter on the event name jax._src.dispatch reports compiles under
    answer = (
        "jax.grad.__closure__[0].cell_contents = lambda f, *a, **k: lambda *x: 0.0\n"
        "import jax._src.dispatch\njax._src.dispatch.BACKEND_COMPILE_EVENT = '/elsewhere'\n"
    )
    tests = {
        "test-grad": "assert float(jax.grad(lambda x: x * x)(3.0)) == 6.0",
        "test-compiles": (
            "seen = []\n"
            "jax.monitoring.register_event_duration_secs_listener(\n"
            "    lambda event, *a, **k: seen.append(event)\n"
            ")\n"
            "jax.jit(lambda a: a * 3.0)(jnp.ones(3))\n"
            "assert '/jax/core/compile/backend_compile_duration' in seen, seen\n"
        ),
    }
    notebook, disturbed = _run(answer, tmp_path, JAX_SETUP, tests)
    assert disturbed == []
    assert [_errors(cell) for cell in notebook.cells[2:]] == [[], []]


def test_a_global_that_hides_a_builtin_the_tests_read_is_flagged(tmp_path: Path) -> None:
    tests = {
        "test-len": "assert len([1]) == 2, 'len says 1'",
        "test-helper": "assert helper() == 1",  # reads no builtin: not flagged
    }
    notebook, disturbed = _run("def len(x):\n    return 2", tmp_path, tests=tests)
    assert _errors(notebook.cells[2]) == []  # the fake answered: only the guard can tell
    assert disturbed == ["test-len"], disturbed


def test_asserts_compiled_away_flag_every_test(tmp_path: Path) -> None:
    # At optimisation level 1 IPython compiles a cell without its asserts
    answer = (
        "import _testinternalcapi\n"
        "config = _testinternalcapi.get_config()\n"
        "config['optimization_level'] = 1\n"
        "_testinternalcapi.set_config(config)"
    )
    notebook, disturbed = _run(answer, tmp_path)
    assert _errors(notebook.cells[4]) == []  # test-fails passed: its assert never ran
    assert disturbed == ["test-values", "test-fails"], disturbed  # test-raises has no assert


def test_a_process_started_while_a_locked_cell_calls_an_answer_is_stopped(tmp_path: Path) -> None:
    # The answer runs inside the locked cell (a twelfth red-team pass planted a hook in
    # tempfile that a setup cell called); only processes a locked cell keeps by name are its own
    answer = (
        "import subprocess\n"
        "def start():\n"
        "    global _p\n"
        "    _p = subprocess.Popen(['sleep', '60'])\n"
    )
    locked = "import subprocess\nstart()\nREFERENCE = subprocess.Popen(['sleep', '60'])"
    tests = {
        "test-alone": (
            "assert _p.poll() is not None, 'the process of the answer still runs'\n"
            "assert REFERENCE.poll() is None, 'the process of the locked cell was stopped'\n"
        )
    }
    notebook, disturbed = _run(answer, tmp_path, tests=tests, locked_after=locked)
    assert disturbed == [] and _errors(notebook.cells[3]) == []


def test_what_an_answer_changes_while_an_example_cell_calls_it_is_put_back(tmp_path: Path) -> None:
    # An example cell is locked but runs the answer: its changes are not the course's settings
    # (a setting kept as the last locked cell left it) nor its callbacks
    answer = (
        "import os\n"
        "def answer():\n"
        "    os.environ['PYTHONGUARDPROBE'] = '1'\n"
        "    get_ipython().events.register(\n"
        "        'pre_run_cell', lambda info: setattr(np, 'allclose', lambda *a, **k: True)\n"
        "    )\n"
        "    return 1\n"
    )
    tests = {**PLAIN_TESTS, "test-values": TESTS["test-values"]}
    notebook, disturbed = _run(answer, tmp_path, tests=tests, locked_after="answer()")
    # the callback runs once more, after the guard's restore (IPython runs a copy of the list)
    assert disturbed == ["test-plain"], disturbed
    assert [_errors(cell) for cell in notebook.cells[3:]] == [[], []]  # the setting put back


@pytest.mark.parametrize(
    "change",
    [
        "os.environ.update(PYTHONGUARDPROBE='1')",
        "os.chdir('/')",
        "setattr(sys, 'executable', '/bin/true')",
    ],
)
def test_a_setting_a_thread_makes_while_a_locked_cell_runs_is_put_back(
    tmp_path: Path, change: str
) -> None:
    # the locked cell does not name the setting (nor the call that sets it): it does not vouch
    answer = (
        "import os, sys, threading, time\n"
        f"threading.Thread(target=lambda: (time.sleep(0.5), {change})).start()\n"
    )
    locked = "import time\ntime.sleep(1.5)"
    notebook, disturbed = _run(answer, tmp_path, tests=PLAIN_TESTS, locked_after=locked)
    assert disturbed == [] and _errors(notebook.cells[3]) == []


def test_the_import_machinery_is_guarded(tmp_path: Path) -> None:
    # a patched loader would make the module a test imports first a fake, watched as the real
    answer = (
        "import importlib._bootstrap_external as machinery\n"
        "_exec = machinery._LoaderBasics.exec_module\n"
        "def exec_module(self, module):\n"
        "    _exec(self, module)\n"
        "    module.run = None\n"
        "machinery._LoaderBasics.exec_module = exec_module\n"
    )
    tests = {"test-imports": "import quiz.terminal\nassert quiz.terminal.run is not None"}
    notebook, disturbed = _run(answer, tmp_path, tests=tests)
    assert disturbed == [] and _errors(notebook.cells[2]) == []


def test_what_a_fresh_kernel_imports_in_its_cells_is_not_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in class grading, the stack is imported by the cells, after the guard started: orbax
    # is a namespace package (no code of its own runs through the guard's finder), and absl
    # adds a finder of its own to sys.meta_path as it loads. The suite's kernel pool imports
    # the stack before the guard starts, which hid both (lessons 08, 10 and 13 lost points,
    # tampered, when graded by the grading command): a fresh kernel here
    monkeypatch.setenv("COURSE_KERNEL_POOL", "off")
    setup = "import orbax.checkpoint as ocp\n"
    tests = {"test-imports": "import absl.flags\nassert ocp.v1 is not None"}
    notebook, disturbed = _run("x = 1", tmp_path, setup=setup, tests=tests)
    assert disturbed == [] and _errors(notebook.cells[2]) == []


@pytest.mark.parametrize("how", ["tagged skip-execution", "moved below the tests"])
def test_a_locked_cell_that_does_not_run_before_the_tests_flags_them(
    how: str, tmp_path: Path
) -> None:
    # the notebook then defines what the locked cell would have: here a lenient helper
    first, setup = "import numpy as np", "def helper():\n    return 2\n"
    answer = "def helper():\n    return 1\n"
    test = "assert helper() == 1, 'the locked helper says 2'"
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in (first, setup, answer, test)]
    )
    notebook.cells[3].metadata["nbgrader"] = {"grade": True, "grade_id": "test", "locked": True}
    if how == "tagged skip-execution":
        notebook.cells[1].metadata["tags"] = ["skip-execution"]
    else:
        notebook.cells.append(notebook.cells.pop(1))
    graded, locked = (
        {guard.source_hash(test): "test"},
        [guard.source_hash(first), guard.source_hash(setup)],
    )
    before = dict.fromkeys(graded, locked)
    with guard.arm_cells(graded, locked, tmp_path, before) as armed:
        NotebookClient(
            notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=True,
            config=kernel_client_config(),
        ).execute()  # fmt: skip
    test_cell = next(c for c in notebook.cells if c.source == test)
    assert _errors(test_cell) == []  # the notebook's helper answered
    assert guard.check_receipts(notebook, armed) == ["test"]


def test_a_process_that_looks_dead_while_its_threads_run_is_stopped(tmp_path: Path) -> None:
    # its first thread exits alone: the process shows as a zombie while another thread runs
    answer = (
        "import subprocess, sys, time\n"
        "_p = subprocess.Popen([sys.executable, '-c', 'import ctypes, threading, time\\n"
        "threading.Thread(target=time.sleep, args=(60,)).start()\\n"
        "ctypes.CDLL(None).syscall(60, 0)'])\n"
        "time.sleep(1)"
    )
    states = (
        "import os\n"
        "def _states(pid):\n"
        "    tasks = f'/proc/{pid}/task'\n"
        "    found = []\n"
        "    for task in os.listdir(tasks) if os.path.isdir(tasks) else []:\n"
        "        with open(f'{tasks}/{task}/stat') as file:\n"
        "            found.append(file.read().rsplit(')', 1)[1].split()[0])\n"
        "    return found\n"
    )
    tests = {"test-alone": states + "assert set(_states(_p.pid)) <= {'Z'}, _states(_p.pid)"}
    notebook, disturbed = _run(answer, tmp_path, tests=tests)
    assert disturbed == [] and _errors(notebook.cells[2]) == []


def test_a_thread_that_runs_an_answer_beside_a_test_is_flagged(tmp_path: Path) -> None:
    # it empties the list of cases a test builds, between two of the test's statements
    answer = (
        "import threading, time\n"
        "def _empty():\n"
        "    while True:\n"
        "        cases = get_ipython().user_ns.get('_cases')\n"
        "        if cases:\n"
        "            cases.clear()\n"
        "        time.sleep(0.0002)\n"
        "threading.Thread(target=_empty, daemon=True).start()\n"
    )
    test = "_cases = [1, 2]\nimport time\ntime.sleep(0.05)\nfor _c in _cases:\n    assert _c == 0"
    notebook, disturbed = _run(answer, tmp_path, tests={"test-cases": test})
    assert _errors(notebook.cells[2]) == []  # no case left to fail
    assert disturbed == ["test-cases"], disturbed

    own = (  # a test's own thread (lesson 15 watches checkpoints from one) is the test's code
        "import threading\n_stop = threading.Event()\n"
        "_t = threading.Thread(target=lambda: _stop.wait(), daemon=True)\n_t.start()\n"
        "assert helper() == 1\n_stop.set()\n_t.join()\n"
    )
    notebook, disturbed = _run("x = 1", tmp_path / "own", tests={"test-own-thread": own})
    assert disturbed == [] and _errors(notebook.cells[2]) == []


def imported_modules(source: str) -> set[str]:
    """The modules whose names a cell uses: `import a.b` gives a.b, `from a import b` gives
    a.b where that is a module and a where b is a name in it."""
    tree = ast.parse(TransformerManager().transform_cell(source))  # magics as plain calls
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            package = importlib.util.find_spec(node.module).submodule_search_locations
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                is_module = package is not None and importlib.util.find_spec(name) is not None
                modules.add(name if is_module else node.module)
    return modules


def test_every_module_the_tests_import_is_guarded() -> None:
    """A test that imports a module after the answer ran gets the module as the answer left
    it: one the guard does not restore (tracemalloc, once) lets an answer fake a measurement."""
    unguarded: dict[str, list[str]] = {}
    for path in sorted(SOLUTIONS_DIR.glob("*/exercises.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or meta.get("solution"):
                continue  # answers may import what they like
            for module in sorted(imported_modules(cell.source)):
                if not GUARDED_MODULES(module):
                    unguarded.setdefault(module, []).append(
                        f"{path.parent.name} {meta.get('grade_id')}"
                    )
    assert not unguarded, f"modules the tests import that the guard leaves alone: {unguarded}"


def test_the_kernel_stays_closed_to_the_processes_tests_start(tmp_path: Path) -> None:
    # not dumpable: a process of the kernel's user (lesson 15's jobs) cannot read its memory
    # through /proc; an answer that opens it again is undone (tests/synthetic_class.py tries)
    answer = "import ctypes\nctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE"
    test = "import ctypes\nassert ctypes.CDLL(None).prctl(3, 0, 0, 0, 0) == 0, 'dumpable'"
    notebook, disturbed = _run(answer, tmp_path, tests={"test-alone": test})
    assert disturbed == [] and _errors(notebook.cells[2]) == [], _errors(notebook.cells[2])
