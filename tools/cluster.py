"""Lesson 15's SLURM cluster, kept running for your terminal (`make cluster`).

    python tools/cluster.py start [--dir DIR]   start it (as root), print how to use it
    python tools/cluster.py status [--dir DIR]  is it up?
    python tools/cluster.py stop [--dir DIR]    stop it and remove DIR (`make cluster-stop`)

The cluster is the lesson's own: this script runs the code of the lesson's cells tagged
``cluster`` (slurm.conf, start, stop), in order, with only ``os``, ``socket``, ``subprocess``,
``tempfile``, ``time`` and ``Path`` defined. DIR defaults to the cells' ``MAKE_CLUSTER``, where
the lesson looks for a running cluster before it starts one of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "lessons" / "15_multi_host" / "lesson.ipynb"
TAG = "cluster"
NAMES = {"os": os, "socket": socket, "subprocess": subprocess, "tempfile": tempfile}
NAMES |= {"time": time, "Path": Path}


def cluster_code(lesson: Path = LESSON) -> dict[str, Any]:
    """The names the lesson's cluster cells define (slurm_conf, start_cluster, ...)."""
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    tagged = [c for c in cells if TAG in c.get("metadata", {}).get("tags", [])]
    if not tagged or any(c["cell_type"] != "code" for c in tagged):
        raise SystemExit(f"{lesson}: the cells tagged {TAG!r} must be code cells, at least one")
    source = "\n\n\n".join("".join(c["source"]) for c in tagged)  # the cells, in order
    namespace: dict[str, Any] = dict(NAMES)
    exec(compile(source, f"{lesson}:{TAG}", "exec"), namespace)  # noqa: S102
    return namespace


def processes_naming(folder: Path) -> list[int]:
    """Pids of the processes started with ``folder``'s slurm.conf (the cluster's daemons)."""
    conf, found = str(folder / "slurm.conf").encode(), []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and conf in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:  # it ended while we looked
            pass
    return found


def start(code: dict[str, Any], folder: Path) -> int:
    missing = [p for p in code["SLURM_PROGRAMS"] if shutil.which(p) is None]
    if missing:
        print(f"missing: {', '.join(missing)}; install Debian's slurm-wlm (make cluster does)")
        return 1
    env = code["slurm_env"](folder / "slurm.conf")
    if (folder / "slurm.conf").exists() and code["cluster_is_up"](env):
        print(f"the cluster in {folder} is already up")
    else:
        if os.geteuid() != 0:
            print("the cluster's daemons run as root: run this as root (make cluster uses sudo)")
            return 1
        began = time.perf_counter()
        code["start_cluster"](folder, die_with_parent=False)
        took = time.perf_counter() - began
        print(f"started a {code['NODES']}-node cluster in {folder} in {took:.2f} s")
    print(subprocess.run(["sinfo"], env=env, capture_output=True, text=True).stdout, end="")
    print(f"\nuse it from a shell:  export SLURM_CONF={folder / 'slurm.conf'}")
    print("                      srun --nodes=2 hostname; sbatch ...; squeue")
    print("lesson 15 uses it while it is up; stop it with: make cluster-stop")
    return 0


def stop(code: dict[str, Any], folder: Path, grace_s: float = 10) -> int:
    if (folder / "slurm.conf").exists():
        code["stop_cluster"](code["slurm_env"](folder / "slurm.conf"))
    for escalation in (signal.SIGTERM, signal.SIGKILL):  # as the lesson's stop_cluster does
        deadline = time.monotonic() + grace_s
        while processes_naming(folder) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in processes_naming(folder):  # did not stop in time
            _signal(pid, escalation)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"stopped the cluster in {folder}" if not processes_naming(folder) else "left over!")
    return 0 if not processes_naming(folder) else 1


def _signal(pid: int, number: signal.Signals) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:  # it ended since we looked
        pass


def status(code: dict[str, Any], folder: Path) -> int:
    env = code["slurm_env"](folder / "slurm.conf")
    up = (folder / "slurm.conf").exists() and code["cluster_is_up"](env)
    print(f"the cluster in {folder} is {'up' if up else 'not running'}")
    return 0 if up else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["start", "stop", "status"])
    parser.add_argument("--dir", type=Path, help="the cluster's folder (default: the lesson's)")
    args = parser.parse_args(argv)
    code = cluster_code()
    folder = (args.dir or code["MAKE_CLUSTER"]).absolute()
    return {"start": start, "stop": stop, "status": status}[args.command](code, folder)


if __name__ == "__main__":
    sys.exit(main())
