"""Lesson 15's SLURM cluster: `make cluster` starts and stops it, and the lesson's own cluster
goes down with its kernel, however the kernel ends; no slurmctld or slurmd is left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import notebooks
from autograder.config import kernel_client_config
from tests.course import lesson_notebook

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import cluster  # noqa: E402

SLURM = ("slurmctld", "slurmd", "sbatch", "srun", "scontrol", "sinfo", "setpriv")
needs_slurm = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(p) for p in SLURM),
    reason="needs root and Debian's slurm-wlm (make slurm)",
)


def gone(folder: Path, timeout_s: float = 30) -> list[int]:
    """Wait until no process names folder's slurm.conf; return those still there."""
    deadline = time.monotonic() + timeout_s
    while cluster.processes_naming(folder) and time.monotonic() < deadline:
        time.sleep(0.1)
    return cluster.processes_naming(folder)


def test_the_tool_runs_the_lessons_cluster_cell() -> None:
    code = cluster.cluster_code()
    conf = code["slurm_conf"](Path("/x"), 2)
    assert "NodeName=node2 " in conf and "AuthType=auth/none" in conf
    assert code["MAKE_CLUSTER"].name == "jax-course-cluster"


@needs_slurm
def test_make_cluster_starts_a_cluster_that_runs_jobs_and_stops_it(tmp_path: Path) -> None:
    folder = tmp_path / "cluster"
    assert cluster.main(["start", "--dir", str(folder)]) == 0
    try:
        env = {**os.environ, "SLURM_CONF": str(folder / "slurm.conf")}
        nodes = subprocess.run(
            ["srun", "--nodes=2", "printenv", "SLURMD_NODENAME"],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert sorted(nodes.stdout.split()) == ["node1", "node2"], nodes.stderr
        assert cluster.main(["status", "--dir", str(folder)]) == 0
    finally:
        assert cluster.main(["stop", "--dir", str(folder)]) == 0
    assert gone(folder) == [] and not folder.exists()


@needs_slurm
def test_the_lessons_cluster_dies_with_a_killed_kernel(tmp_path: Path) -> None:
    """Run the lesson up to its cluster's start, SIGKILL the kernel: the daemons follow it."""
    lesson = notebooks.read(lesson_notebook("15_multi_host"))
    upto = next(i for i, c in enumerate(lesson.cells) if "start_cluster(WORK" in c.source)
    cells = [c for c in lesson.cells[: upto + 1] if c.cell_type == "code"]
    probe = nbformat.v4.new_code_cell("print(os.getpid(), WORK, LAUNCHER)")
    notebook = nbformat.v4.new_notebook(cells=[*cells, probe])
    where = {"metadata": {"path": str(tmp_path)}}
    client = NotebookClient(
        notebook, kernel_name="python3", timeout=120, resources=where, config=kernel_client_config()
    )
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
        pid, work, launcher = probe.outputs[0]["text"].split()
        assert launcher == "slurm", probe.outputs
        folder = Path(work) / "cluster"
        assert len(cluster.processes_naming(folder)) == 1 + 4  # slurmctld and 4 slurmd
        os.kill(int(pid), signal.SIGKILL)
        left = gone(folder)
    shutil.rmtree(work, ignore_errors=True)
    assert left == [], f"daemons left after the kernel died: {left}"


@needs_slurm
def test_stop_cluster_ends_daemons_that_ignore_the_shutdown(tmp_path: Path) -> None:
    """A slurmd the controller's shutdown never reaches (here: stopped, so it cannot act on
    it) gets SIGTERM, then SIGKILL, each after the grace time; the suite once waited 120 s."""
    code = cluster.cluster_code()
    env, daemons = code["start_cluster"](tmp_path / "cluster")
    slurmds = daemons[1:]
    for daemon in slurmds:
        os.kill(daemon.pid, signal.SIGSTOP)
    began = time.monotonic()
    code["stop_cluster"](env, daemons, grace_s=1)
    took = time.monotonic() - began
    assert all(d.poll() is not None for d in daemons), [d.pid for d in daemons]
    assert [d.returncode for d in slurmds] == [-signal.SIGKILL] * len(slurmds)
    assert took < 10, f"stop_cluster took {took:.1f} s"
