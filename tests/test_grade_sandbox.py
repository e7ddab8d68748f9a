"""The box a submission's kernel runs in (autograder/sandbox.py), without nbgrader.

A Python process started with the sandbox's own command line checks from the inside what it
can see, write and reach; a few checks of the environment and the socket paths need no box.
The whole grading command with a submission that reaches for everything is in
tests/test_grade_class.py (the burglar).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from autograder.config import REPO_ROOT
from autograder.sandbox import (
    COURSE_IN_BOX,
    SOCKET_PATH_MAX,
    Box,
    Sandbox,
    find_sandbox,
    socket_folder,
)

INSIDE = textwrap.dedent(
    """
    import json, os, socket, subprocess, sys
    from pathlib import Path

    def can(action):
        try:
            action()
            return True
        except Exception:
            return False

    report = {
        "cwd": os.getcwd(),
        "cwd_files": sorted(os.listdir(".")),
        "root": sorted(os.listdir("/")),
        "course_root": os.listdir(sys.argv[1]) if os.path.isdir(sys.argv[1]) else [],
        "solutions": can(lambda: os.listdir(Path(sys.argv[1]) / "solutions")),
        "secret": can(lambda: open(sys.argv[2]).read()),
        "import_autograder": can(lambda: __import__("autograder")),
        "quiz": __import__("quiz").__file__,
        "write_cwd": can(lambda: Path("mine.txt").write_text("x")),
        "write_usr": can(lambda: Path(sys.prefix, "owned").write_text("x")),
        "write_tmp": can(lambda: Path("/tmp/scratch").write_text("x")),
        "network": can(lambda: socket.create_connection(("127.0.0.1", int(sys.argv[3])), 2)),
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "caps": [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")],
        "env": dict(os.environ),
    }
    subprocess.Popen(["sleep", "600", "left-behind-by-the-box"], start_new_session=True)
    print(json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return find_sandbox(REPO_ROOT, (REPO_ROOT,), tmpfs_mb=64)


def test_a_kernel_in_the_box_sees_and_reaches_only_the_box(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    box = Box.create(tmp_path / "box", tmp_path / "box" / "k")
    box.work.mkdir()
    (box.work / "data.csv").write_text("1,2\n")
    cwd = tmp_path / "course" / "autograded" / "ada" / "00"  # nbgrader's folder
    cwd.mkdir(parents=True)
    (cwd / "exercises.ipynb").write_text("hidden tests")
    secret = tmp_path / "course" / "gradebook.db"
    secret.write_text("hidden tests")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    env = sandbox.environment({**os.environ, "API_TOKEN": "x", "XLA_FLAGS": "--foo"}, box, cwd)
    command = [*sandbox.command(box, cwd), sys.executable, "-c", INSIDE]
    args = [str(REPO_ROOT), str(secret), str(listener.getsockname()[1])]

    result = subprocess.run([*command, *args], env=env, capture_output=True, text=True)

    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout)
    assert seen["cwd"] == str(cwd) and seen["cwd_files"] == ["data.csv"]
    assert (box.work / "mine.txt").exists() and not (cwd / "mine.txt").exists()
    assert seen["write_cwd"] and seen["write_tmp"] and not seen["write_usr"]
    # The course folder shows at most the virtual environment, when it lives there.
    assert set(seen["course_root"]) <= {Path(sys.prefix).name}, seen["course_root"]
    assert not seen["solutions"] and not seen["secret"]
    assert not seen["import_autograder"]
    assert seen["quiz"] == str(COURSE_IN_BOX / "quiz" / "__init__.py")
    assert not seen["network"]
    with pytest.raises(TimeoutError):
        listener.accept()
    assert seen["caps"] == ["0000000000000000"]
    assert max(seen["pids"]) < 10, "its own PID namespace"
    assert "API_TOKEN" not in seen["env"] and seen["env"]["XLA_FLAGS"] == "--foo"
    assert seen["env"]["HOME"] == str(box.home) and seen["env"]["TMPDIR"] == "/tmp"
    assert not _running("left-behind-by-the-box"), "the box's processes end with it"


def _running(mark: str) -> list[psutil.Process]:
    """Processes whose command line has ``mark``, after they had a moment to be killed."""
    for _ in range(50):
        found = [
            p
            for p in psutil.process_iter(["cmdline", "status"])
            if mark in " ".join(p.info["cmdline"] or []) and p.info["status"] != "zombie"
        ]
        if not found:
            return []
        time.sleep(0.1)
    return found


def test_the_environment_drops_paths_to_the_instructors_files(tmp_path: Path) -> None:
    course = tmp_path / "course"
    sandbox = Sandbox("bwrap", course, hidden=(tmp_path / "submitted",))
    box = Box(tmp_path / "scratch" / "box", tmp_path / "scratch" / "box" / "k")
    cwd = tmp_path / "scratch" / "course" / "autograded"
    venv_bin = str(Path(sys.prefix) / "bin")
    env = {
        "PATH": os.pathsep.join([str(course / "bin"), venv_bin, "/usr/bin"]),
        "NOTES": str(tmp_path / "submitted" / "ada.ipynb"),
        "IPYTHONDIR": str(box.root / "ipython"),
        "COURSE_EMULATE_TF32": "1",
        "GITHUB_TOKEN": "ghp_x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "PYTHONPATH": str(course),
        "JUPYTER_CONFIG_DIR": "/root/.jupyter",
    }

    kernel = sandbox.environment(env, box, cwd)

    assert kernel["PATH"] == os.pathsep.join([venv_bin, "/usr/bin"])
    assert kernel["IPYTHONDIR"] == env["IPYTHONDIR"] and kernel["COURSE_EMULATE_TF32"] == "1"
    assert kernel["PYTHONPATH"] == str(COURSE_IN_BOX)
    for gone in ("NOTES", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "JUPYTER_CONFIG_DIR"):
        assert gone not in kernel, gone


def test_socket_paths_stay_under_the_unix_limit(tmp_path: Path) -> None:
    short = tmp_path / "k"
    assert socket_folder(short) == short
    long = tmp_path / ("x" * 120) / "k"
    fallback = socket_folder(long)
    try:
        assert len(str(fallback / "s-99")) <= SOCKET_PATH_MAX and fallback.is_dir()
    finally:
        fallback.rmdir()


def test_make_test_installs_bubblewrap_when_it_is_missing(tmp_path: Path) -> None:
    for target in ("sandbox", "test"):
        commands = subprocess.run(
            ["make", "--dry-run", "--no-print-directory", target, f"VENV={tmp_path}/venv",
             f"BWRAP={tmp_path}/no/bwrap", f"CHROMIUM={sys.executable}"],
            cwd=REPO_ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        assert "apt-get install -y -qq --no-install-recommends bubblewrap" in commands, target
