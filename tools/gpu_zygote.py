"""One process that imports the lessons' stack once, and forks each notebook's process from it.

tools/gpu_check.py runs every notebook in a process of its own. Started afresh, each would import
jax, flax, optax, orbax and matplotlib again (2-4 s each, on a GPU machine's short session);
forked from this process (a "zygote": it has imported them, and has started no thread and no
JAX backend), a notebook's process starts at once. Standard library only: a module of PRELOAD
that cannot be imported here is left for the notebook to import, as before.

The two sides talk in JSON lines over the zygote's standard input and output. The parent writes
``{"id", "argv", "env", "log"}``; the zygote forks, and answers ``{"id", "pid"}``, then
``{"id", "exit"}`` when the child has ended (its exit code; minus the signal that killed it).
The child runs ``entry(argv)`` in a session of its own (the parent kills the session on a
timeout), with ``env`` as its environment and its output in ``log``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

PRELOAD = (
    "numpy",
    "jax",
    "jax.numpy",
    "flax.nnx",
    "optax",
    "orbax.checkpoint",
    "matplotlib.pyplot",
    "tqdm.auto",
)
READY_TIMEOUT_S = 180.0


class ZygoteError(RuntimeError):
    """The zygote could not start, or ended while a notebook waited on it."""


# ---------------------------------------------------------------------------
# The zygote's side.
# ---------------------------------------------------------------------------


def _send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def preload(strict_modules: tuple[str, ...] | None) -> dict[str, object]:
    """Import PRELOAD; with ``strict_modules``, a DeprecationWarning from them fails the import
    here, and the notebook that imports the module meets it as it would have."""
    loaded, failed = [], {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        if strict_modules:
            warnings.filterwarnings(
                "error", category=DeprecationWarning, module=rf"({'|'.join(strict_modules)})(\.|$)"
            )
        for name in PRELOAD:
            try:
                __import__(name)
                loaded.append(name)
            except Exception as error:  # noqa: BLE001 - any failure leaves it to the notebook
                failed[name] = f"{type(error).__name__}: {error}"
    return {
        "loaded": loaded,
        "failed": failed,
        "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught}),
        "threads": threading.active_count(),
    }


def _exit_code(error: SystemExit) -> int:
    if error.code is None:
        return 0
    return error.code if isinstance(error.code, int) else 1


def _child(entry: Callable[[list[str]], int], request: dict) -> None:
    """In the forked process: become the notebook's process, run it, exit as Python would."""
    code = 1
    try:
        os.setsid()
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
        sys.stderr.reconfigure(line_buffering=True)  # type: ignore[union-attr]
        os.environ.clear()
        os.environ.update(request["env"])
        try:
            code = entry(request["argv"])
        except SystemExit as error:
            code = _exit_code(error)
        # what the interpreter does at exit: wait for non-daemon threads, then the atexit hooks
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _reap(children: dict[int, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send({"id": children.pop(pid), "exit": os.waitstatus_to_exitcode(status)})


def serve(entry: Callable[[list[str]], int], strict_modules: tuple[str, ...] | None) -> int:
    """The zygote: preload, say whether it can fork safely, then fork a child per request."""
    facts = preload(strict_modules)
    facts["ready"] = facts["threads"] == 1  # forking a process with threads risks deadlocks
    _send(facts)
    if not facts["ready"]:
        return 1
    children: dict[int, int] = {}
    pending = b""
    while True:
        readable, _, _ = select.select([0], [], [], 0.05)
        if readable:
            chunk = os.read(0, 1 << 16)
            if not chunk:  # the parent has gone
                return 0
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    _child(entry, request)
                children[pid] = request["id"]
                _send({"id": request["id"], "pid": pid})
        _reap(children)


# ---------------------------------------------------------------------------
# The parent's side.
# ---------------------------------------------------------------------------


class Zygote:
    """The parent's handle: ``run`` one child at a time from each of its threads."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self._log = log.open("w")
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
            start_new_session=True,
        )
        self._lock = threading.Lock()
        self._inboxes: dict[int, queue.Queue[dict]] = {}
        self._next_id = 0
        self.facts = self._first_line()
        if not self.facts.get("ready"):
            self.close()
            raise ZygoteError(f"not forking: {self.facts.get('threads')} threads after preload")
        threading.Thread(target=self._read, daemon=True).start()

    def _first_line(self) -> dict:
        assert self._process.stdout is not None
        ready, _, _ = select.select([self._process.stdout], [], [], READY_TIMEOUT_S)
        line = self._process.stdout.readline() if ready else b""
        if not line:
            self.close()
            raise ZygoteError(f"it did not start (see {self._log.name})")
        return json.loads(line)

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            message = json.loads(line)
            with self._lock:
                inbox = self._inboxes.get(message["id"])
            if inbox is not None:
                inbox.put(message)
        with self._lock:  # the zygote ended: nobody waits for ever
            for inbox in self._inboxes.values():
                inbox.put({"exit": None, "ended": True})

    def run(
        self, argv: list[str], env: dict[str, str], log: Path, timeout_s: float
    ) -> tuple[int | None, float]:
        """Fork a child that runs ``argv``; its exit code (None when killed for the timeout)."""
        inbox: queue.Queue[dict] = queue.Queue()
        with self._lock:
            request_id, self._next_id = self._next_id, self._next_id + 1
            self._inboxes[request_id] = inbox
            request = {"id": request_id, "argv": argv, "env": env, "log": str(log)}
            assert self._process.stdin is not None
            self._process.stdin.write((json.dumps(request) + "\n").encode())
            self._process.stdin.flush()
        start = time.perf_counter()
        forked = inbox.get(timeout=60)
        if forked.get("ended"):
            raise ZygoteError("the zygote ended before it forked")
        try:
            ended = inbox.get(timeout=timeout_s)
            code = ended["exit"]
        except queue.Empty:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(forked["pid"], signal.SIGKILL)
            inbox.get(timeout=60)
            code = None
        with self._lock:
            del self._inboxes[request_id]
        return code, time.perf_counter() - start

    def close(self) -> None:
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._log.close()
