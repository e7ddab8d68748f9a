"""Kernels that start with the stack already imported: the suite's kernels, forked.

Importing jax, flax, optax, orbax and matplotlib takes a kernel about 5 s of CPU, and the
suite starts over a hundred kernels. Here one *server* per environment imports them once and
forks a kernel for each request, which then starts in a fraction of a second.

    python tests/kernel_pool.py -f CONNECTION_FILE   the kernelspec's command (the launcher)
    python tests/kernel_pool.py --serve SOCKET       the server (started by a launcher)

The launcher is the process jupyter_client starts and watches: it hands its standard streams,
environment, folder and arguments to the server, which forks the kernel; the launcher then
forwards signals to the kernel (interrupts, terminate) and exits with the kernel's exit code.
If the launcher dies, the server kills its kernel. Where no pool is set up (``POOL_VARIABLE``
unset), the launcher runs under resource limits (class grading), the server cannot start, or
anything else fails, the launcher becomes an ordinary ipykernel (``exec``), so a kernel always
starts, as it would without the pool.

What a forked kernel shares with the server is fixed at import: a server serves only kernels
whose environment has the same import-time variables (``import_key``), and it imports under
the suite's strict filter, so a DeprecationWarning at import fails the server (and the
launcher falls back to a fresh kernel, where the warning is the cell's error, as before).
The server holds no thread and no JAX backend when it forks (checked before it listens).
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import select
import selectors
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

POOL_VARIABLE = "COURSE_KERNEL_POOL"  # the pool's folder: sockets, locks, server logs
PRELOAD = (
    "numpy",
    "jax",
    "jax.numpy",
    "flax.nnx",
    "optax",
    "orbax.checkpoint",
    "matplotlib.pyplot",
    "ipykernel.kernelapp",
)
# Read at import by the preloaded modules (jax's flags, matplotlib's config folder, ...):
# kernels whose values differ get different servers.
IMPORT_TIME_PREFIXES = ("JAX_", "XLA_", "TF_", "MPL", "PYTHON", "LD_", "CUDA", "OMP_", "XDG_")
IMPORT_TIME_NAMES = ("HOME", "TMPDIR")
# Set at import from whether IPython is running, which in the server it is not: in the kernel
# they get the values a kernel's own import gives them (treescope displays, coloured jaxprs).
IPYTHON_AT_IMPORT = (
    ("flax.nnx.visualization", "in_ipython", True),
    ("flax.nnx.summary", "in_ipython", True),
    ("jax._src.pretty_printer", "CAN_USE_COLOR", True),
)
SERVER_START_TIMEOUT_S = 120
IDLE_EXIT_S = 900  # a server nobody has asked for a kernel this long exits


def import_key(env: dict[str, str]) -> str:
    relevant = sorted(
        (name, value)
        for name, value in env.items()
        if name.startswith(IMPORT_TIME_PREFIXES) or name in IMPORT_TIME_NAMES
    )
    text = json.dumps([sys.executable, relevant])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _send(conn: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    payload = struct.pack("!I", len(data)) + data
    if fds:
        socket.send_fds(conn, [payload], fds)
    else:
        conn.sendall(payload)


def _receive(conn: socket.socket, with_fds: int = 0) -> tuple[dict | None, list[int]]:
    if with_fds:
        head, fds, _, _ = socket.recv_fds(conn, 4, with_fds)
    else:
        head, fds = conn.recv(4, socket.MSG_WAITALL), []
    if len(head) < 4:
        return None, fds
    (size,) = struct.unpack("!I", head)
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return None, fds
        data += chunk
    return json.loads(data), fds


# --- the launcher -----------------------------------------------------------------------


def _fresh_kernel(args: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *args])


def _start_server(pool: Path, key: str, env: dict[str, str]) -> None:
    log = (pool / f"{key}.log").open("ab")
    subprocess.Popen(
        [sys.executable, __file__, "--serve", str(pool / f"{key}.sock")],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )


def _connect(pool: Path, key: str, env: dict[str, str]) -> socket.socket | None:
    path = pool / f"{key}.sock"
    with (pool / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one launcher starts the server, the rest wait
        if (pool / f"{key}.failed").exists():
            return None
        if not path.exists():
            _start_server(pool, key, env)
            deadline = time.monotonic() + SERVER_START_TIMEOUT_S
            while not path.exists():
                if (pool / f"{key}.failed").exists() or time.monotonic() > deadline:
                    (pool / f"{key}.failed").touch()
                    return None
                time.sleep(0.05)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    return conn


def _limited() -> bool:
    """Is this process under a resource limit (class grading's worker sets them)? A forked
    kernel would have the server's limits instead, so such a kernel starts afresh."""
    import resource

    limits = (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_DATA, resource.RLIMIT_FSIZE)
    return any(resource.getrlimit(limit) != (resource.RLIM_INFINITY,) * 2 for limit in limits)


def launch(args: list[str]) -> None:
    pool_folder = os.environ.get(POOL_VARIABLE)
    if not pool_folder or not Path(pool_folder).is_dir() or _limited():
        _fresh_kernel(args)
    parent = os.getppid()
    env = dict(os.environ)
    try:
        conn = _connect(Path(pool_folder), import_key(env), env)
        if conn is None:
            _fresh_kernel(args)
        request = {"args": args, "env": env, "cwd": os.getcwd()}
        _send(conn, request, [0, 1, 2])
        reply, _ = _receive(conn)
    except (OSError, ValueError, struct.error):  # no server, or a garbled reply
        reply = None
    if not reply or "pid" not in reply:
        _fresh_kernel(args)  # nothing was started: an ordinary kernel instead
    kernel = reply["pid"]

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(kernel, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
        signal.signal(signum, forward)
    # A kernel exits when the process that started it is gone (ipykernel polls for that);
    # the launcher stands in for the kernel there, and the server kills the kernel when the
    # launcher's connection closes.
    while True:
        ready, _, _ = select.select([conn], [], [], 0.5)
        if ready:
            break
        if os.getppid() != parent:
            sys.exit(1)
    ended, _ = _receive(conn)
    code = ended["exit_code"] if ended else 1
    if code < 0:  # killed by a signal: end the same way
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


# --- the server -------------------------------------------------------------------------


def _preload() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from autograder.kernel import STARTUP_SCRIPT

    exec(STARTUP_SCRIPT, {})  # noqa: S102 - the kernels' own strict filter, before importing
    # What ipykernel sets before any cell runs (matplotlib reads it at import): inline plots.
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    import importlib
    import threading

    for name in PRELOAD:
        importlib.import_module(name)
    from jax._src import xla_bridge

    assert threading.active_count() == 1, f"threads at fork: {threading.enumerate()}"
    assert not xla_bridge._backends, "a JAX backend was initialised before forking"


def _become_kernel(request: dict, fds: list[int], closing: list[socket.socket]) -> None:
    """In the forked child: the launcher's streams, environment and folder, then ipykernel."""
    code = 1
    try:
        for sock in closing:
            sock.close()
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        import numpy as np

        np.random.seed()  # the legacy global generator would repeat the server's otherwise
        for module, name, value in IPYTHON_AT_IMPORT:
            setattr(sys.modules[module], name, value)
        sys.argv = ["ipykernel_launcher", *request["args"]]
        from ipykernel import kernelapp

        try:
            kernelapp.launch_new_instance()
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - anything: report it on the kernel's stderr
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve(path: Path) -> None:
    pool = path.parent
    key = path.stem
    try:
        _preload()
    except BaseException:
        (pool / f"{key}.failed").touch()
        raise
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path.with_suffix(".binding")))
    listener.listen(16)
    os.replace(path.with_suffix(".binding"), path)  # launchers wait for this name
    (pool / f"{key}.pid").write_text(str(os.getpid()))
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    kernels: dict[int, socket.socket] = {}  # kernel pid -> its launcher's connection
    last_request = time.monotonic()
    while kernels or time.monotonic() - last_request < IDLE_EXIT_S:
        for selected, _ in selector.select(timeout=0.2):
            sock = selected.fileobj
            if sock is listener:
                conn, _ = listener.accept()
                request, fds = _receive(conn, with_fds=3)
                last_request = time.monotonic()
                if request is None or len(fds) != 3:
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    _become_kernel(request, fds, [listener, conn, *kernels.values()])
                for fd in fds:
                    os.close(fd)
                kernels[pid] = conn
                selector.register(conn, selectors.EVENT_READ, pid)
                _send(conn, {"pid": pid})
            else:  # a launcher closed its connection: it is gone, so is its kernel
                pid = selected.data
                if not sock.recv(1):
                    selector.unregister(sock)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        while kernels:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = kernels.pop(pid, None)
            if conn is not None:
                try:
                    _send(conn, {"exit_code": os.waitstatus_to_exitcode(status)})
                except OSError:
                    pass  # its launcher is gone already
                try:
                    selector.unregister(conn)
                except (KeyError, ValueError):
                    pass
                conn.close()
    path.unlink(missing_ok=True)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--serve"]:
        serve(Path(argv[1]))
    else:
        launch(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
