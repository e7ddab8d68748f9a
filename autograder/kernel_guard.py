"""Runs inside the student's kernel, before any cell: keeps the tests' tools the course's own.

The grader puts this file beside the guard's configuration and an IPython start-up file that
loads it as a module of its own, outside ``sys.modules`` and the student's namespace
(``autograder/guard.py``); the grader never imports it.

Hidden tests run in the same kernel after the student's code, so an answer cell could replace
what they call (``np.allclose = lambda *a, **k: True``), rebind a helper a locked cell defined,
or change how IPython runs the next cells. Before each locked or graded cell this guard puts
back every function, class, module and constant that the public namespaces of the Python (the
standard library modules tests use), NumPy, JAX, Flax, Optax, Orbax and quiz modules held when
they were imported, the methods of those classes and of JAX's array type, the code and closure
cells of functions, how modules are found, the names the locked cells bound and the methods and
code of the classes and functions they defined, IPython's cell machinery, the settings tests
run with, and no trace hook; it stops the processes answers started. After a graded cell it
checks that all of that is still in place (and was as each statement returned, with no thread
running an answer's code) and publishes a receipt keyed with a secret the grader wrote for this
kernel alone; the grader gives no points to a graded cell without an intact receipt.

What it does not stop: code written against the guard itself (it runs in the same process and
can reach the guard's state), an answer that reads what the test calling it holds (its frame's
globals), a change made and undone within the call a test makes, and hooks planted in a
library's private state. The sandbox keeps such code away from the instructor's files; the
submission's source shows it to anyone who reads it.
"""

import __future__

import ast
import ctypes
import gc
import hashlib
import importlib.machinery
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import types
import warnings

from IPython import get_ipython
from IPython.core.inputtransformer2 import TransformerManager
from IPython.core.interactiveshell import ExecutionResult

# The public namespaces tests call into, and all of NumPy (its public functions look up their
# helpers in private modules at each call: numpy.testing._private.utils). JAX's internals are
# left alone (JAX fills in module attributes of its private modules long after importing them),
# but for jax._src.monitoring, whose listener lists a test reads, and jax._src.dispatch, which
# names the compile event the tests count (a twelfth red-team pass renamed it).
GUARDED_MODULES = re.compile(
    r"builtins|math|cmath|operator|functools|itertools|statistics|json|os|os\.path|pathlib"
    r"|shutil|tempfile|time|subprocess|sys|re|random|warnings|contextlib|io|glob|signal"
    r"|threading|atexit|importlib|collections|copy|inspect|textwrap|base64|zlib|hashlib|pickle"
    r"|importlib\._bootstrap(_external)?|_frozen_importlib(_external)?"
    r"|csv|ctypes|secrets|socket|struct|logging|tracemalloc|numpy(\..+)?"
    r"|IPython\.core\.interactiveshell"
    r"|jax|jax\.(numpy|lax|random|tree|tree_util|nn|export|sharding|stages|monitoring|profiler)"
    r"|jax\.(ad_checkpoint|experimental(\.pallas(\.triton)?)?|_src\.(monitoring|dispatch))"
    r"|optax|flax|flax\.(nnx|linen|serialization|training(\..+)?)|orbax|orbax\.checkpoint"
    r"|quiz(\..+)?"
).fullmatch
# Classes the tests use whose objects reach answers without a public name to guard them by.
PRIVATE_CLASSES = {
    "jax._src.array": ("ArrayImpl",),
    "jaxlib._jax": ("PjitFunction",),  # what jax.jit returns: .lower, .trace, .eval_shape
}
# The processes tests start run as the kernel's user, and lesson 15's run an answer's code (a
# fourteenth red-team pass): a kernel that is not "dumpable" keeps its memory (the secret, a
# test's values) and environment closed to them through /proc. What they exec is dumpable.
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4  # <linux/prctl.h>
_PRCTL = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)  # Linux only
IPYTHON_NAMES = re.compile(r"_+|_i+|_i?\d+|In|Out|_oh|_dh|_ih|exit|quit|get_ipython").fullmatch
SHELL_LISTS = ("input_transformers_cleanup", "input_transformers_post", "ast_transformers")
SYS_HOOKS = ("displayhook", "excepthook", "breakpointhook")
# What the shell runs a cell with, whatever their type: compared by identity (or equality).
SHELL_STATE = (
    "compile", "compiler_class", "builtin_trap", "display_trap", "displayhook", "display_pub",
    "input_transformer_manager", "ast_node_interactivity", "autoawait", "loop_runner",
    "trio_runner", "user_module", "user_ns",
)  # fmt: skip
# The environment variables a test's subprocess or JAX's backends read: the guard leaves the
# others alone, which libraries set as they load (jax's Mosaic GPU sets MOSAIC_GPU_CUDA_ROOT)
WATCHED_VARIABLES = re.compile(
    r"PATH|(PYTHON|LD_|DYLD_|XLA_|JAX_|TF_|CUDA_|NCCL_|TPU_).*"
).fullmatch
STANDARD_MODULES = (
    "atexit", "base64", "cmath", "collections", "contextlib", "copy", "csv", "ctypes", "glob",
    "hashlib", "inspect", "io", "json", "logging", "math", "operator", "pathlib", "pickle",
    "random", "secrets", "shutil", "signal", "socket", "statistics", "struct", "subprocess",
    "tempfile", "textwrap", "tracemalloc", "zlib",
)  # fmt: skip
# Module values kept as its callables are: constants by name, and JAX's monitoring listener lists
KEPT_VALUE_NAMES = re.compile(r"_*[A-Z][A-Z0-9_]*|_\w+_listeners").fullmatch
PLAIN_TYPES = (str, bytes, int, float, complex, bool, type(None))
_EMPTY_CELL = object()
# the signals whose handlers are kept: not SIGINT, whose handler ipykernel switches as it runs
# a cell, nor those no handler can catch
GUARDED_SIGNALS = sorted(
    set(signal.valid_signals()) - {signal.SIGINT, signal.SIGKILL, signal.SIGSTOP}
)
TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
POPEN = subprocess.Popen  # as imported, before any cell ran
IMPORT_OBJECTS = ("meta_path", "path_hooks", "path_importer_cache")
# the loaders the path hook gives a folder's finder
FILE_LOADERS = importlib._bootstrap_external._get_supported_file_loaders()
# module values the plain settings keep as the last locked cell left them, not as imported
VALUES_KEPT_ELSEWHERE = {"tempfile": ("tempdir",)}
FUTURE_FLAGS = sum(getattr(__future__, name).compiler_flag for name in __future__.all_feature_names)


def _kept(namespace: dict) -> dict:
    """The entries worth guarding: functions, classes, modules, any callable."""
    return {k: v for k, v in namespace.items() if callable(v) or isinstance(v, types.ModuleType)}


def _kept_in_module(namespace: dict) -> dict:
    """A module's callables and submodules, and the values its code reads as constants: a
    twelfth red-team pass renamed the compile event JAX reports (``BACKEND_COMPILE_EVENT``),
    so that the tests' listeners counted no compile."""
    return {
        k: v
        for k, v in namespace.items()
        if callable(v)
        or isinstance(v, types.ModuleType)
        or KEPT_VALUE_NAMES(k)
        or (not k.startswith("_") and type(v) in PLAIN_TYPES)
    }


def _is_attribute_code(value: object) -> bool:
    """Callables and descriptors: a property runs code when a test reads an attribute (an
    eleventh red-team pass faked a JAX array's ``sharding`` and ``addressable_shards``)."""
    return callable(value) or hasattr(type(value), "__get__")


def _kept_in_class(namespace: dict) -> dict:
    return {k: v for k, v in namespace.items() if _is_attribute_code(v)}


def _names_bound_by(source: str) -> set:
    """The names a cell's own code binds: assigned, deleted, defined or imported."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _names_read_as_it_runs(source: str) -> set:
    """The names a cell's code reads as it runs: not in the bodies of the functions it
    defines (they run later), nor their parameters."""
    try:
        todo = list(ast.parse(source).body)
    except SyntaxError:
        return set()
    read = set()
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.add(node.id)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            todo += [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
            todo += getattr(node, "decorator_list", [])
            continue
        todo += ast.iter_child_nodes(node)
    return read


def _builtins_read_by(source: str, builtin_names: set) -> set:
    """The builtins a cell's code reads by name (``len``, ``abs``), its functions' included."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return {name for name in read & builtin_names if not IPYTHON_NAMES(name)}


def _importer_state(finder: object) -> tuple:
    """What a path entry's finder looks in, and with which loaders."""
    return getattr(finder, "path", None), list(getattr(finder, "_loaders", ()))


def _among(item: object, items: list) -> bool:
    return any(item is other for other in items)


def _same_items(items: list, kept: list) -> bool:
    return len(items) == len(kept) and all(a is b for a, b in zip(items, kept, strict=False))


def _code_shape(code: types.CodeType) -> tuple:
    """What a code object runs, without where it says it came from (file, lines)."""
    consts = tuple(
        _code_shape(c) if isinstance(c, types.CodeType) else (type(c), c) for c in code.co_consts
    )
    return (code.co_code, code.co_exceptiontable, code.co_names, code.co_varnames, consts)


def _expected_code(source: str, flags: int) -> list | None:
    """The code objects IPython makes of a cell, as ``run_ast_nodes`` compiles them: each
    top-level statement on its own, the last one as "single" when it is an expression."""
    try:
        nodes = ast.parse(source).body
        modes = ["exec"] * len(nodes)
        if nodes and isinstance(nodes[-1], ast.Expr):
            modes[-1] = "single"
        return [
            _code_shape(
                compile(
                    ast.Module([node], []) if mode == "exec" else ast.Interactive([node]),
                    "<cell>",
                    mode,
                    flags=flags,
                    dont_inherit=True,
                    # asserts included, whatever the interpreter's level: a twelfth red-team
                    # pass set it to 1 (``_testinternalcapi.set_config``), so that IPython and
                    # this guard compiled the tests without their asserts alike
                    optimize=0,
                )
            )
            for node, mode in zip(nodes, modes, strict=True)
        ]
    except (SyntaxError, ValueError):
        return None  # IPython cannot run it either: the cell fails before it runs


def _jax_config() -> dict:
    jax = sys.modules.get("jax")
    try:
        return dict(jax.config.values) if jax is not None else {}
    except Exception:  # a JAX still being imported, or one without .config.values
        return {}


def _working_directory() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # removed under the kernel's feet
        return None


def _dumpable() -> int | None:
    return _PRCTL(PR_GET_DUMPABLE, 0, 0, 0, 0) if _PRCTL else None


def _plain_state() -> dict:
    """Settings the tests run with that are values, not functions (a ninth red-team pass: an
    answer set jax_disable_jit to hide a test's compiles, and PYTHONPATH to reach the process a
    test started): the environment, the working directory, JAX's configuration, NumPy's
    floating-point error handling and the warnings filters."""
    numpy = sys.modules.get("numpy")
    return {
        "the environment": {k: v for k, v in os.environ.items() if WATCHED_VARIABLES(k)},
        "the working directory": _working_directory(),
        "JAX's configuration": _jax_config(),
        "NumPy's error handling": numpy.geterr() if hasattr(numpy, "geterr") else {},
        "the warnings filters": list(warnings.filters),
        # a test starts sys.executable: a tenth red-team pass pointed it at a fake launcher
        "the interpreter": (sys.executable, list(sys.path), tempfile.tempdir),
        "the kernel's dumpability": _dumpable(),
    }


def _processes() -> dict:
    """Every process this one can see: pid -> (parent pid, state), from /proc."""
    found = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as file:
                    fields = file.read().rsplit(")", 1)[1].split()
                found[int(entry)] = (int(fields[1]), fields[0])
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
            if found[int(entry)][1] == "Z" and _has_live_threads(entry):
                found[int(entry)] = (found[int(entry)][0], "R")
    return found


def _has_live_threads(pid: str) -> bool:
    """A process whose first thread has exited shows as a zombie while its other threads run
    (a twelfth red-team pass hid a file rewriter so from the guard's process killer)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", encoding="utf-8") as file:
                if file.read().rsplit(")", 1)[1].split()[0] != "Z":
                    return True
        except (OSError, IndexError):
            continue
    return False


def _ancestors(pid: int, processes: dict) -> set:
    found = set()
    while pid in processes and pid not in found:
        found.add(pid)
        pid = processes[pid][0]
    return found


def _started_by_this_kernel(processes: dict) -> list:
    """Live processes the kernel started, however deep; in the grader's sandbox (its own PID
    namespace, bubblewrap as process 1) also those that left the kernel's tree (a daemon)."""
    ancestors = _ancestors(os.getpid(), processes)
    roots = [os.getpid()]
    try:
        with open("/proc/1/comm", encoding="utf-8") as file:
            if file.read().strip() == "bwrap":
                roots.append(1)
    except OSError:
        pass
    found, todo = set(), list(roots)
    while todo:
        parent = todo.pop()
        for pid, (ppid, _state) in processes.items():
            if ppid == parent and pid not in ancestors and pid not in found:
                found.add(pid)
                todo.append(pid)
    return sorted(pid for pid in found if processes[pid][1] != "Z")


def _is_builtin_or_frozen(name: str) -> bool:
    finders = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter)
    return any(finder.find_spec(name) is not None for finder in finders)


def _same(value: object, kept: object) -> bool:
    return value is kept or (type(kept) in (str, bool) and value == kept)


def _cell_contents(cell: types.CellType) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # not bound (deleted)
        return _EMPTY_CELL


def _function_state(function: types.FunctionType) -> tuple:
    return function.__code__, function.__defaults__, function.__kwdefaults__


class _CourseGuard:
    def __init__(self, shell, config: dict) -> None:
        self.shell = shell
        self.secret = bytes.fromhex(config["secret"])
        self.graded: dict = config["graded"]  # sha256 of a graded cell's source -> grade_id
        self.locked = set(config["locked"])  # sha256 of the other locked cells' sources
        self.locked_before: dict = config.get("before", {})  # graded cell -> locked cells
        self.locked_ran: set = set()  # the locked cells that have run
        self.mime = config["mime"]
        self.publish = shell.display_pub.publish
        self.modules: dict = {}  # name -> (module, guarded entries)
        self.module_names: dict = {}  # name -> the names a guarded module had when watched
        self.package_paths: dict = {}  # name -> (package, its __path__ list, the list's items)
        self.modules_with_classes_watched: set = set()
        self.classes: dict = {}  # id -> (class, guarded entries)
        self.functions: dict = {}  # id -> (function, (code, defaults, kwdefaults))
        self.closure_cells: list = []  # (function, cell, contents) of the functions above
        self.trusted_names: dict = {}  # bound by locked cells: name -> value
        self.trusted_callbacks: list = []
        self.cell, self.grade_id, self.transformed_as_written = "", None, False
        self.names_before: dict = {}
        self.names_bound: set = set()  # by the running locked or graded cell's own code
        self.calls_answers = False  # the running locked cell reads a name an answer bound
        self.source = ""  # the running locked or graded cell's text, as IPython transformed it
        self.callbacks_before: list = []
        self.raised, self.found_while_running = False, []
        # the code objects a locked or graded cell's text compiles to, and how many ran
        self.expected_code: list | None = None
        self.statements_run, self.code_changed = 0, False
        self.locked_cell_changed = ""  # once a locked cell ran other code, no test is vouched for
        if _PRCTL:
            _PRCTL(PR_SET_DUMPABLE, 0, 0, 0, 0)
        self.plain = _plain_state()  # as the last locked cell left it
        self.trusted_processes: set = set()  # held by locked cells' names (a reference job)
        self.trusted_files: set = set()  # the code files of locked and graded cells
        # the interpreter's garbage-collection callbacks run anywhere, like a thread
        self.gc_callbacks = (gc.callbacks, list(gc.callbacks))
        # signal handlers run the answer's code between any two of a test's bytecodes, on the
        # main thread, from a timer the answer set (a thirteenth red-team pass used SIGALRM)
        self.signal_handlers = {s: signal.getsignal(s) for s in GUARDED_SIGNALS}
        # builtins that locked cells and the running graded cell read: a name of the notebook
        # that hides one changes what the tests do (a twelfth red-team pass defined ``len``)
        self.builtins_read: set = set()
        self.builtins_read_by_cell: set = set()
        self.shell_names = dict(shell.user_ns)  # what IPython put there
        # A trace hook set and removed within one statement can make a test's frame jump over
        # its asserts (frame.f_lineno): the guard's own setters, kept in sys from here on, note
        # a hook that code run by a graded cell sets (a sixth red-team pass).
        for name in ("settrace", "_settraceallthreads"):
            if hasattr(sys, name):
                setattr(sys, name, self.noting_trace_hooks(getattr(sys, name)))
        # the standard library the tests use, imported before any cell: a module a test imports
        # first could otherwise be a fake an answer put into sys.modules (a tenth red-team pass)
        for name in STANDARD_MODULES:
            importlib.import_module(name)
        self.unimported: list = []  # guarded names that reached sys.modules without an import
        self.namespace_packages: dict = {}  # name -> search path, as the finder found them
        # How modules are found, as the kernel started: a twelfth red-team pass served a fake
        # numpy.testing from a finder after the guard's own, and from a folder put first in
        # numpy's __path__ (kept per package by watch_module)
        self.import_objects = (sys.meta_path, sys.path_hooks, sys.path_importer_cache)
        self.finders = [finder for finder in sys.meta_path if finder is not self]
        self.path_hooks = list(sys.path_hooks)
        self.importers = {k: (v, _importer_state(v)) for k, v in sys.path_importer_cache.items()}
        for name, module in list(sys.modules.items()):
            self.watch_module(name, module)
        for obj in (shell, shell.events, shell.display_pub, shell.displayhook):
            self.watch_class(type(obj))
        # how a cell is parsed and run (the shell's compiler and traps, which an answer can
        # shadow a method of: a seventh red-team pass) and how its outputs and its status leave
        # the kernel (ipykernel's kernel and session)
        kernel = getattr(shell, "kernel", None)
        self.shell_state = {name: getattr(shell, name, None) for name in SHELL_STATE}
        runners = (shell.compile, shell.builtin_trap, shell.display_trap)
        messengers = (kernel, getattr(kernel, "session", None))
        self.messengers = [m for m in (*runners, *messengers) if m is not None]
        for messenger in self.messengers:
            self.watch_class(type(messenger))
        self.messenger_entries = [
            {k: v for k, v in vars(m).items() if callable(v)} for m in self.messengers
        ]
        # IPython's event registry, kept by reference: the guard never calls into the live one
        self.events = shell.events
        self.callback_registry = shell.events.callbacks
        self.callback_lists = dict(dict.items(self.callback_registry))
        self.watch_class(TransformerManager)
        # A graded cell's outcome and the changes made while it ran, taken as each of its
        # statements returns: before post_execute, whose callbacks an answer can register to
        # clear an error or undo a patch before post_run_cell's check (a fifth red-team pass)
        shell.run_code = self.run_code_checked(shell.run_code)
        self.shell_entries = {k: v for k, v in vars(shell).items() if callable(v)}
        self.shell_lists = {name: list(getattr(shell, name)) for name in SHELL_LISTS}
        self.custom_exceptions = (shell.custom_exceptions, shell.CustomTB)
        self.sys_hooks = {name: getattr(sys, name) for name in SYS_HOOKS}

    # -- what is guarded -------------------------------------------------------------------

    def watch_function(self, value: object) -> None:
        if isinstance(value, types.FunctionType) and id(value) not in self.functions:
            self.functions[id(value)] = (value, _function_state(value))
            # a closure's cells are writable: JAX's public transforms are wrappers whose cell
            # holds the function that does the work (a twelfth red-team pass swapped jax.grad's)
            for cell in value.__closure__ or ():
                contents = _cell_contents(cell)
                if contents is not _EMPTY_CELL:
                    self.closure_cells.append((value, cell, contents))

    def watch_module(self, name: str, module: object) -> None:
        if name in self.modules or not GUARDED_MODULES(name):
            return
        if not isinstance(module, types.ModuleType):
            return
        # sys's values are the interpreter's state: the plain settings keep what matters of it
        keep = _kept if name == "sys" else _kept_in_module
        try:
            kept = keep(dict(vars(module)))
        except TypeError:
            return
        for k in VALUES_KEPT_ELSEWHERE.get(name, ()):
            kept.pop(k, None)
        self.modules[name] = (module, kept)
        self.module_names[name] = set(vars(module))
        path = getattr(module, "__path__", None)
        if type(path) is list:  # a package's search path: where its submodules are found
            self.package_paths[name] = (module, path, list(path))
        for value in kept.values():
            self.watch_function(value)

    def watch_class(self, cls: type) -> None:
        for klass in cls.__mro__[:-1]:  # not object
            if id(klass) not in self.classes:
                kept = _kept_in_class(dict(vars(klass)))
                self.classes[id(klass)] = (klass, kept)
                for value in kept.values():
                    self.watch_function(value)

    def watch_library_classes(self) -> None:
        """Watch the classes the guarded modules hold (``jax.stages.Compiled``, ...).

        Done before a cell rather than when a module's code has run: a library may still add
        methods to its classes from modules imported after it (JAX does), and those belong to
        the guarded state.
        """
        for name, (_, kept) in list(self.modules.items()):
            if name not in self.modules_with_classes_watched:
                self.modules_with_classes_watched.add(name)
                for value in kept.values():
                    if isinstance(value, type):
                        self.watch_class(value)
        for module_name, class_names in PRIVATE_CLASSES.items():
            module = sys.modules.get(module_name)
            for class_name in class_names:
                value = getattr(module, class_name, None)
                if isinstance(value, type):
                    self.watch_class(value)

    def find_spec(self, name, path=None, target=None):
        """A meta-path finder that records each module as soon as its code has run."""
        for finder in self.finders:
            if not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is None:
                continue
            if spec.loader is None and spec.submodule_search_locations is not None:
                # a namespace package (orbax): no code of its own runs, nothing to wrap
                self.namespace_packages[name] = list(spec.submodule_search_locations)
            execute = getattr(spec.loader, "exec_module", None)
            if execute is not None and not isinstance(spec.loader, type):

                def exec_module(module, _execute=execute):
                    _execute(module)
                    self.watch_module(module.__name__, module)

                try:
                    spec.loader.exec_module = exec_module
                except (AttributeError, TypeError):
                    pass
            return spec
        return None

    # -- comparing and restoring -----------------------------------------------------------

    def callbacks(self) -> list:
        return [c for callbacks in self.callback_lists.values() for c in list.copy(callbacks)]

    def registry_changes(self) -> list:
        """IPython's event registry replaced, or its lists: the guard's own calls go through it."""
        shell, registry = self.shell, self.callback_registry
        found = [] if shell.events is self.events else ["the shell's events"]
        if self.events.callbacks is not registry or type(registry) is not dict:
            found.append("the event registry")
        found += [
            f"the {name} callbacks"
            for name in set(dict.keys(registry)) | set(self.callback_lists)
            if dict.get(registry, name) is not self.callback_lists.get(name)
            or type(self.callback_lists.get(name)) is not list
        ]
        return found

    def shadowed(self, obj: object, entries: dict) -> list:
        """Instance attributes of ``obj`` that hide one of its class's methods."""
        cls = type(obj)
        return [k for k in vars(obj) if k not in entries and callable(getattr(cls, k, None))]

    def added_to_module(self, name: str, module: object, kept: dict) -> list:
        """Entries set on a guarded module since it was watched, as it would have kept them,
        or public: a twelfth red-team pass set ``np.testing`` to a fake before NumPy loaded the
        real one on first use. A submodule the import system put there is adopted instead."""
        if name == "sys":  # the interpreter's state (sys.last_value), not a library's
            return []
        added = []
        namespace = vars(module)
        known = self.module_names[name]
        for k in namespace.keys() - known:
            value = namespace.get(k)
            if k.startswith("__") or not (
                callable(value)
                or issubclass(type(value), types.ModuleType)
                or KEPT_VALUE_NAMES(k)
                or not k.startswith("_")
            ):
                continue
            submodule = f"{name}.{k}"
            watched = self.modules.get(submodule, (None,))[0]
            if value is (watched if GUARDED_MODULES(submodule) else sys.modules.get(submodule)):
                kept[k] = value  # imported: numpy.testing, as NumPy loads it on first use
                known.add(k)
            else:
                added.append(k)
        return added

    def added_methods(self, klass: type, kept: dict) -> list:
        """Callables and descriptors added to ``klass`` since it was watched.

        A class that shadows nothing is left alone: nanobind adds its iterator types to a
        class the first time one is used (``ProfilePlane.planes``), and such an attribute
        cannot change what a test calls.
        """
        inherited = {name for base in klass.__mro__[1:] for name in vars(base)}
        return [
            k
            for k, v in vars(klass).items()
            if k not in kept
            and _is_attribute_code(v)
            and (k in inherited or not isinstance(v, type))
        ]

    def changes(self, running: bool = False) -> list:
        """What differs from the guarded state; restores nothing. While a cell's code runs,
        IPython's display trap has made the shell's displayhook ``sys.displayhook``."""
        expected = dict(self.sys_hooks)
        if running:
            expected["displayhook"] = self.shell_entries.get("displayhook", sys.displayhook)
        found = []
        for name, (module, kept) in self.modules.items():
            namespace = vars(module)
            if name == "sys":
                kept = {**kept, **{k: v for k, v in expected.items() if k in kept}}
            found += [f"{name}.{k}" for k, v in kept.items() if namespace.get(k) is not v]
            found += [f"{name}.{k}, added" for k in self.added_to_module(name, module, kept)]
        for klass, kept in self.classes.values():
            namespace = vars(klass)
            found += [f"{klass.__name__}.{k}" for k, v in kept.items() if namespace.get(k) is not v]
            found += [f"{klass.__name__}.{k}" for k in self.added_methods(klass, kept)]
        for function, state in self.functions.values():
            if _function_state(function) != state:
                found.append(f"{function.__qualname__}.__code__")
        found += [
            f"{f.__qualname__}'s closure"
            for f, c, v in self.closure_cells
            if _cell_contents(c) is not v
        ]
        shell = self.shell
        found += [
            f"the shell's {k}"
            for k, v in self.shell_state.items()
            if not _same(getattr(shell, k, None), v)
        ]
        found += [k for k, v in self.shell_entries.items() if vars(shell).get(k) is not v]
        found += self.shadowed(shell, self.shell_entries)
        for messenger, entries in zip(self.messengers, self.messenger_entries, strict=True):
            namespace = vars(messenger)
            found += [f"{type(messenger).__name__}.{k}" for k in self.shadowed(messenger, entries)]
            found += [k for k, v in entries.items() if namespace.get(k) is not v]
        found += self.registry_changes()
        found += [k for k, v in self.shell_lists.items() if getattr(shell, k) != v]
        found += [k for k, v in expected.items() if getattr(sys, k) is not v]
        if (shell.custom_exceptions, shell.CustomTB) != self.custom_exceptions:
            found.append("custom exception handler")
        found += self.plain_state_changes(running)
        found += [f"{name} put into sys.modules, not imported" for name in self.unimported]
        if sys.gettrace() is not None or sys.getprofile() is not None:
            found.append("trace or profile hook")
        found += self.import_system_changes()
        if gc.callbacks is not self.gc_callbacks[0] or gc.callbacks != self.gc_callbacks[1]:
            found.append("gc.callbacks")
        found += [f"the handler of signal {s}" for s in self.changed_signal_handlers()]
        found += [f"timer {t}" for t in TIMERS if signal.getitimer(t) != (0.0, 0.0)]
        namespace = shell.user_ns
        found += [
            f"the builtin {k}, hidden by a name of the notebook"
            for k in self.builtins_read_by_cell
            if k in namespace
            and k not in self.trusted_names
            and namespace[k] is not self.shell_names.get(k, _EMPTY_CELL)  # IPython's open
        ]
        found += [f"callback {c!r}" for c in self.callbacks() if c not in self.trusted_callbacks]
        return found

    def imported_namespace(self, name: str, module: object) -> bool:
        """A namespace package the finder found, as the import system makes one."""
        found = self.namespace_packages.get(name)
        return (
            found is not None
            and type(module) is types.ModuleType
            and list(getattr(module, "__path__", ())) == found
        )

    def changed_signal_handlers(self) -> list:
        return [s for s, kept in self.signal_handlers.items() if signal.getsignal(s) is not kept]

    def changed_importers(self) -> list:
        """Path entries whose finder is not the one kept, or not one the path hooks make."""
        changed = []
        for k, finder in dict.items(self.import_objects[2]):
            kept = self.importers.get(k)
            if kept is not None:
                if finder is not kept[0] or _importer_state(finder) != kept[1]:
                    changed.append(k)
            elif finder is not None and (
                type(finder) is not importlib.machinery.FileFinder
                or _importer_state(finder)
                != _importer_state(importlib.machinery.FileFinder(k, *FILE_LOADERS))
            ):
                changed.append(k)
        return changed

    def import_system_changes(self) -> list:
        found = [
            f"sys.{name}"
            for name, kept in zip(IMPORT_OBJECTS, self.import_objects, strict=True)
            if getattr(sys, name) is not kept
        ]
        # The guard, first, asks only the finders it kept: one added after it (absl inserts a
        # ReloadDetector as it loads) is asked only for names none of them found, none a test
        # imports. A path hook added in front of the kept ones would make the finders of
        # folders not yet searched (a package's first submodule).
        if not sys.meta_path or sys.meta_path[0] is not self:
            found.append("sys.meta_path's first finder")
        if not _same_items(sys.path_hooks[: len(self.path_hooks)], self.path_hooks):
            found.append("sys.path_hooks's hooks")
        found += [f"the finder of {k}" for k in self.changed_importers()]
        found += [
            f"{name}.__path__"
            for name, (package, path, items) in self.package_paths.items()
            if vars(package).get("__path__") is not path or path != items
        ]
        return found

    def restore_import_system(self) -> None:
        for name, kept in zip(IMPORT_OBJECTS, self.import_objects, strict=True):
            setattr(sys, name, kept)
        meta_path, path_hooks, cache = self.import_objects
        kept_finders = [self, *self.finders]
        meta_path[:] = kept_finders + [f for f in meta_path if not _among(f, kept_finders)]
        path_hooks[:] = self.path_hooks + [h for h in path_hooks if not _among(h, self.path_hooks)]
        for k in self.changed_importers():
            if k in self.importers:
                finder, (path, loaders) = self.importers[k]
                cache[k] = finder
                if type(finder) is importlib.machinery.FileFinder:
                    finder.path, finder._loaders = path, list(loaders)
            else:
                del cache[k]
        for package, path, items in self.package_paths.values():
            package.__path__ = path
            path[:] = items

    def plain_state_changes(self, running: bool) -> list:
        """Plain settings that differ from the trusted ones; JAX's options that were there when
        they were taken. A test may change the working directory and put it back by its end."""
        now, kept = _plain_state(), self.plain
        now["JAX's configuration"] = {
            k: now["JAX's configuration"].get(k, kept) for k in kept["JAX's configuration"]
        }
        if running:
            now["the working directory"] = kept["the working directory"]
        return [name for name, value in kept.items() if now[name] != value]

    def settings_left_by_locked_cell(self) -> dict:
        """The plain settings as a locked cell left them, but for those its text does not name:
        a thread an answer started can set them while the cell runs (a thirteenth red-team
        pass set PYTHONPATH so). Environment variables and JAX options are named by their
        names; the working directory, the interpreter and its import path by the calls that set
        them. NumPy's error handling is the thread's own. The warnings filters and tempfile's
        folder stay as the cell left them: libraries add filters as they load, and tempfile
        picks its folder on first use."""
        now, kept = _plain_state(), self.plain
        for category in ("the environment", "JAX's configuration"):
            settings = dict(kept[category])
            for k in now[category].keys() | kept[category].keys():
                if re.search(rf"\b{re.escape(k)}\b", self.source):
                    if k in now[category]:
                        settings[k] = now[category][k]
                    else:
                        settings.pop(k, None)
            now[category] = settings
        if not re.search(r"\bchdir\b|%cd\b", self.source):
            now["the working directory"] = kept["the working directory"]
        executable, path, tempdir = now["the interpreter"]
        if not re.search(r"\bexecutable\b", self.source):
            executable = kept["the interpreter"][0]
        if not re.search(r"\bsys\.path\b", self.source):
            path = kept["the interpreter"][1]
        now["the interpreter"] = (executable, path, tempdir)
        now["the kernel's dumpability"] = kept["the kernel's dumpability"]
        return now

    def restore_plain_state(self) -> None:
        kept = self.plain
        sys.executable, path, tempfile.tempdir = kept["the interpreter"]
        if sys.path != path:
            sys.path[:] = path
        environment = kept["the environment"]
        for k in {k for k in os.environ if WATCHED_VARIABLES(k)} - set(environment):
            del os.environ[k]
        for k, v in environment.items():
            if os.environ.get(k) != v:
                os.environ[k] = v
        directory = kept["the working directory"]
        if directory is not None and _working_directory() != directory:
            try:
                os.chdir(directory)
            except OSError:
                pass  # gone: the check after the cell says so
        jax, config = sys.modules.get("jax"), _jax_config()
        for k, v in kept["JAX's configuration"].items():
            if config.get(k, kept) != v:
                try:
                    jax.config.update(k, v)
                except Exception:
                    pass  # some options are fixed once a backend started: the check says so
        if _PRCTL and _dumpable() != kept["the kernel's dumpability"]:
            _PRCTL(PR_SET_DUMPABLE, kept["the kernel's dumpability"], 0, 0, 0)
        numpy = sys.modules.get("numpy")
        if kept["NumPy's error handling"] and hasattr(numpy, "seterr"):
            numpy.seterr(**kept["NumPy's error handling"])
        if warnings.filters != kept["the warnings filters"]:
            warnings.filters[:] = kept["the warnings filters"]
            getattr(warnings, "_filters_mutated", lambda: None)()  # the C module's cached copy

    def restore(self) -> None:
        # first what runs the answer's code between any two bytecodes of what follows
        for timer in TIMERS:
            signal.setitimer(timer, 0)
        for number in self.changed_signal_handlers():
            signal.signal(number, self.signal_handlers[number])
        gc.callbacks = self.gc_callbacks[0]
        gc.callbacks[:] = self.gc_callbacks[1]
        self.restore_plain_state()
        for name, (module, kept) in self.modules.items():
            namespace = vars(module)
            for k, v in kept.items():
                if namespace.get(k) is not v:
                    namespace[k] = v
            for k in self.added_to_module(name, module, kept):
                del namespace[k]
            if sys.modules.get(name, module) is not module:
                sys.modules[name] = module
        for klass, kept in self.classes.values():
            for k, v in kept.items():
                if vars(klass).get(k) is not v:
                    setattr(klass, k, v)
            for k in self.added_methods(klass, kept):
                delattr(klass, k)
        for function, state in self.functions.values():
            if _function_state(function) != state:
                function.__code__, function.__defaults__, function.__kwdefaults__ = state
        for _, cell, contents in self.closure_cells:
            if _cell_contents(cell) is not contents:
                cell.cell_contents = contents
        shell = self.shell
        for k, v in self.shell_state.items():
            if not _same(getattr(shell, k, None), v):
                setattr(shell, k, v)
        for k in self.shadowed(shell, self.shell_entries):
            delattr(shell, k)
        vars(shell).update(self.shell_entries)
        for name, saved in self.shell_lists.items():
            getattr(shell, name)[:] = saved
        for name, hook in self.sys_hooks.items():
            setattr(sys, name, hook)
        shell.custom_exceptions, shell.CustomTB = self.custom_exceptions
        for messenger, entries in zip(self.messengers, self.messenger_entries, strict=True):
            for k in self.shadowed(messenger, entries):
                delattr(messenger, k)
            vars(messenger).update(entries)
        shell.events = self.events
        self.events.callbacks = self.callback_registry
        dict.clear(self.callback_registry)
        dict.update(self.callback_registry, self.callback_lists)
        for callbacks in self.callback_lists.values():
            callbacks[:] = [c for c in list.copy(callbacks) if c in self.trusted_callbacks]
        sys.settrace(None)
        sys.setprofile(None)
        threading.settrace(None)
        threading.setprofile(None)
        # processes an answer left running can rewrite the files a test writes, then runs
        self.stop_processes()
        self.restore_import_system()
        namespace = shell.user_ns
        namespace["__builtins__"] = self.modules["builtins"][0]
        for k, v in self.trusted_names.items():
            if namespace.get(k) is not v:
                namespace[k] = v

    def stop_processes(self) -> None:
        """Kill what answers left running (a locked cell's processes and theirs are the
        tests'), and wait (a second at most) until it is dead."""
        for attempt in range(100):
            processes = _processes()
            running = [
                pid
                for pid in _started_by_this_kernel(processes)
                if not _ancestors(pid, processes) & self.trusted_processes
            ]
            if not running:
                return
            for pid in running:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            if attempt:
                threading.Event().wait(0.01)

    def run_code_checked(self, run_code):
        async def run_code_checked(code_obj, result=None, *, async_=False):
            if self.grade_id is not None or self.cell in self.locked:
                self.check_code(code_obj)
                self.trusted_files.add(getattr(code_obj, "co_filename", None))
            failed = await run_code(code_obj, result, async_=async_)
            if self.grade_id is not None:
                self.raised = self.raised or bool(failed)
                self.found_while_running += (
                    self.changes(running=True)
                    + self.rebound_names()
                    + self.threads_running_answers()
                )
            return failed

        return run_code_checked

    def check_code(self, code_obj: object) -> None:
        """Each statement IPython runs must be the next one the cell's text compiles to: an
        answer can replace how the shell parses or compiles a cell, not only how it reads it."""
        expected, n = self.expected_code, self.statements_run
        self.statements_run += 1
        if (
            expected is None
            or n >= len(expected)
            or type(code_obj) is not types.CodeType
            or _code_shape(code_obj) != expected[n]
        ):
            self.code_changed = True

    def noting_trace_hooks(self, set_hook):
        def set_trace_hook(function, *args):
            if function is not None and self.grade_id is not None:
                self.found_while_running.append("a trace hook set while a test ran")
            return set_hook(function, *args)

        return set_trace_hook

    def processes_held_by_locked_names(self) -> set:
        """The processes a locked cell keeps by name, a ``subprocess.Popen`` or an object that
        holds some (lesson 15's ``REFERENCE_JOB.procs``): the ones the tests will use. Any other
        process alive after a locked cell may have been started by an answer that cell called
        (a twelfth red-team pass started one from a hook planted in ``tempfile``)."""
        held: set = set()
        names = self.trusted_names.values()
        locked_classes = {id(v) for v in names if issubclass(type(v), type)}
        for value in names:
            inside = []
            if id(type(value)) in locked_classes:  # never code an answer defined
                inside = list(object.__getattribute__(value, "__dict__").values())
            for item in [value, *inside]:
                for popen in item if type(item) in (list, tuple) else [item]:
                    if type(popen) is POPEN and popen.returncode is None:
                        held.add(popen.pid)
        return held

    def threads_running_answers(self) -> list:
        """Threads that run code of a cell that is neither locked nor graded: an answer's
        thread can empty a list between a test's statements or rewrite a file a test has
        just written (a twelfth red-team pass did both); the tests' own threads are fine."""
        cells = getattr(self.shell_state["compile"], "_filename_map", {})
        found = []
        for ident, frame in sys._current_frames().items():
            if ident == threading.get_ident():
                continue
            while frame is not None:
                name = frame.f_code.co_filename
                if name in cells and name not in self.trusted_files:
                    found.append("a thread that runs the notebook's own code")
                    break
                frame = frame.f_back
        return found[:1]

    def rebound_names(self) -> list:
        """Names of locked cells that this cell's code does not bind, bound to something else
        while it ran: the answer it called did that (``globals()["close"] = ...``)."""
        namespace = self.shell.user_ns
        return [
            f"the name {k}"
            for k, v in self.trusted_names.items()
            if k not in self.names_bound and namespace.get(k, namespace) is not v
        ]

    # -- IPython's events ------------------------------------------------------------------

    def receipt(self, grade_id: str, verdict: str, value: object = None) -> str:
        signed = f"{grade_id}:{verdict}:{json.dumps(value)}"
        return hashlib.sha256(self.secret + signed.encode()).hexdigest()

    def before_cell(self, info) -> None:
        self.cell = hashlib.sha256(info.raw_cell.encode()).hexdigest()
        self.grade_id = self.graded.get(self.cell)
        for name, module in list(sys.modules.items()):
            if name not in self.modules and GUARDED_MODULES(name):
                if not (
                    self.imported_namespace(name, module)
                    or (type(module) is types.ModuleType and _is_builtin_or_frozen(name))
                ):
                    self.unimported.append(name)  # its code never ran through the finder
            self.watch_module(name, module)
        self.watch_library_classes()
        if self.grade_id is None and self.cell not in self.locked:
            return
        self.restore()
        self.raised, self.found_while_running = False, []
        self.names_before = dict(self.shell.user_ns)
        self.callbacks_before = self.callbacks()
        # IPython transforms a cell before this event: compare with a clean transformation.
        clean = TransformerManager().transform_cell(info.raw_cell)
        self.transformed_as_written = info.transformed_cell == clean
        self.names_bound = _names_bound_by(clean)
        self.source = clean
        # a locked cell that calls an answer (an example cell) runs the answer's code: what
        # changes while it runs is not the course's (processes are trusted by name instead)
        namespace = self.shell.user_ns
        self.calls_answers = any(
            k in namespace
            and k not in self.trusted_names
            and namespace[k] is not self.shell_names.get(k, _EMPTY_CELL)
            for k in _names_read_as_it_runs(clean) - self.names_bound
        )
        read = _builtins_read_by(clean, set(vars(self.modules["builtins"][0])))
        if self.grade_id is None:
            self.builtins_read |= read  # the functions a locked cell defines read them later
        self.builtins_read_by_cell = self.builtins_read | read
        shell = self.shell
        flags = shell.compile.flags & FUTURE_FLAGS  # the cells' own __future__ imports
        if shell.autoawait:
            flags |= ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        self.expected_code = _expected_code(clean, flags)
        self.statements_run, self.code_changed = 0, False

    def after_cell(self, result) -> None:
        if self.grade_id is None and self.cell not in self.locked:
            return
        # callbacks a locked cell registered are the course's, unless it called an answer; a
        # test's never are: an answer ran there
        if self.grade_id is None and not self.calls_answers:
            self.trusted_callbacks += [
                c for c in self.callbacks() if c not in self.callbacks_before
            ]
        rebound = self.rebound_names()
        namespace = self.shell.user_ns
        for k, v in namespace.items():
            if k not in self.names_bound:
                continue  # trusted only what the cell's own code bound
            if not IPYTHON_NAMES(k) and self.names_before.get(k, self.names_before) is not v:
                self.trusted_names[k] = v
                # what a locked cell defined is guarded as a library's is: a class's methods
                # (FakeArray._wait) and a function's code, not only the name bound to them
                if isinstance(v, type):
                    self.watch_class(v)
                else:
                    self.watch_function(v)
        # the cell's outcome as the shell recorded it, signed: an error or a number (nbgrader's
        # partial credit) that never reaches the grader is then seen there
        outcome = vars(result) if type(result) is ExecutionResult else {}
        raised = self.raised or any(
            outcome.get(k) is not None for k in ("error_before_exec", "error_in_exec")
        )
        expected = self.expected_code or []
        ran_as_written = (
            self.transformed_as_written
            and not self.code_changed
            and (raised or self.statements_run == len(expected))
        )
        if self.grade_id is None:
            self.locked_ran.add(self.cell)
            if not ran_as_written:
                self.locked_cell_changed = "a locked cell did not run as written"
            if not self.calls_answers:
                self.plain = self.settings_left_by_locked_cell()
            self.trusted_processes |= self.processes_held_by_locked_names()
            return
        found = self.changes() if ran_as_written else ["the cell did not run as written"]
        found = list(dict.fromkeys(found + rebound + self.found_while_running))
        if self.locked_cell_changed:
            found.append(self.locked_cell_changed)
        if set(self.locked_before.get(self.cell, ())) - self.locked_ran:
            found.append("a locked cell before it did not run before it (skipped or moved)")
        if not outcome:
            found.append("IPython's ExecutionResult")
        value = outcome.get("result")
        value = value if type(value) in (int, float) else None
        verdict = "disturbed" if found else "raised" if raised else "intact"
        receipt = {
            "grade_id": self.grade_id,
            "verdict": verdict,
            "value": value,
            "receipt": self.receipt(self.grade_id, verdict, value),
            "changed": found[:10],
        }
        self.publish(data={self.mime: receipt}, metadata={})

    def start(self) -> None:
        sys.meta_path.insert(0, self)
        self.shell.events.register("pre_run_cell", self.before_cell)
        self.shell.events.register("post_run_cell", self.after_cell)
        self.trusted_callbacks = self.callbacks()


def _start_course_guard() -> None:
    config_path = os.environ.pop("COURSE_GUARD", "")
    if not config_path:
        return
    with open(config_path, encoding="utf-8") as file:
        config = json.load(file)
    try:
        os.unlink(config_path)  # the secret now lives only in the guard
    except OSError:
        pass
    _CourseGuard(get_ipython(), config).start()


_start_course_guard()
