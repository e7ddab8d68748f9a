"""The suite's forked kernels (tests/kernel_pool.py) behave as kernels started afresh."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from autograder.kernel_sockets import fresh_socket_prefix
from tests.kernel_pool import IPYTHON_AT_IMPORT, POOL_VARIABLE, import_key

pytestmark = pytest.mark.skipif(
    not Path(os.environ.get(POOL_VARIABLE, "off")).is_dir(), reason="the kernel pool is off"
)


@contextmanager
def kernel(cwd: Path) -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    manager = KernelManager(kernel_name="python3", transport="ipc", ip=fresh_socket_prefix())
    manager.start_kernel(cwd=str(cwd))
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def run(client: BlockingKernelClient, code: str, timeout: float = 60) -> tuple[str, list[dict]]:
    """stdout of ``code``, and its other outputs (errors, displays)."""
    text, others = [], []

    def output(message: dict) -> None:
        kind, content = message["msg_type"], message["content"]
        if kind == "stream" and content["name"] == "stdout":
            text.append(content["text"])
        elif kind in ("error", "display_data"):
            others.append({"type": kind, **content})

    client.execute_interactive(code, timeout=timeout, output_hook=output)
    return "".join(text), others


def test_a_pool_kernel_is_forked_and_has_the_callers_folder_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COURSE_POOL_PROBE", "seen")
    with kernel(tmp_path) as (manager, client):
        launcher = manager.provisioner.process.pid
        out, _ = run(
            client,
            "import os, sys, numpy as np\n"
            "print(os.getppid(), os.getcwd(), os.environ['COURSE_POOL_PROBE'],"
            " 'jax' in sys.modules, np.random.rand())",
        )
        parent, cwd, probe, preloaded, draw = out.split()
        assert int(parent) != launcher  # forked by the server, not started by the launcher
        assert (cwd, probe, preloaded) == (str(tmp_path), "seen", "True")
        with kernel(tmp_path) as (_, other):
            other_out, _ = run(other, "import numpy as np; print(np.random.rand())")
        assert other_out.strip() != draw  # each kernel's global generator is seeded afresh


def test_a_pool_kernel_plots_inline_keeps_the_strict_filter_and_can_be_interrupted(
    tmp_path: Path,
) -> None:
    with kernel(tmp_path) as (manager, client):
        _, shown = run(client, "import matplotlib.pyplot as plt\nplt.plot([1, 2]); plt.show()")
        assert any("image/png" in o.get("data", {}) for o in shown), shown
        warn = "import warnings\nwarnings.warn_explicit('old', DeprecationWarning, 'f.py', 1, "
        _, errors = run(client, warn + "module='some_package')")
        assert not errors  # the filter is for the JAX stack's modules (and the notebook's) ...
        _, errors = run(client, warn + "module='jax._src.api')")  # ... and makes those errors
        assert errors and errors[0]["ename"] == "DeprecationWarning", errors
        client.execute("import time; time.sleep(60)")
        time.sleep(1)
        started = time.monotonic()
        manager.interrupt_kernel()
        reply = client.get_shell_msg(timeout=30)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert time.monotonic() - started < 30


def test_what_modules_read_from_ipython_at_import_is_as_in_a_fresh_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = "import sys\n" + "".join(
        f"print(repr(sys.modules[{module!r}].{name}))\n" for module, name, _ in IPYTHON_AT_IMPORT
    )
    with kernel(tmp_path) as (_, client):
        forked, _ = run(client, "import flax.nnx, jax\n" + probe)
    monkeypatch.delenv(POOL_VARIABLE)  # the launcher starts an ordinary kernel
    with kernel(tmp_path) as (_, client):
        fresh, _ = run(client, "import flax.nnx, jax\n" + probe)
    assert forked == fresh, (forked, fresh)


def test_a_kernel_whose_launcher_is_killed_goes_too(tmp_path: Path) -> None:
    with kernel(tmp_path) as (manager, client):
        out, _ = run(client, "import os; print(os.getpid())")
        forked = psutil.Process(int(out))
        os.kill(manager.provisioner.process.pid, signal.SIGKILL)
        forked.wait(timeout=30)  # psutil.TimeoutExpired if it lived on


def test_servers_are_per_import_time_environment() -> None:
    base = {"PATH": "/usr/bin", "HOME": "/root"}
    assert import_key(base) == import_key({**base, "PYTEST_CURRENT_TEST": "x", "PWD": "/tmp"})
    assert import_key(base) != import_key({**base, "JAX_ENABLE_X64": "1"})
    assert import_key(base) != import_key({**base, "XLA_FLAGS": "--xla_dump_to=/tmp"})
