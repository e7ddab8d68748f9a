"""The two commands: what `make lab` / `make test` would run, and that CI runs only `make test`.

tests/test_install.py runs the install rule for real; here `make --dry-run`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from autograder.config import REPO_ROOT

UV_VERSION = next(
    line.split("==")[1].strip()
    for line in (REPO_ROOT / "requirements.lock").read_text().splitlines()
    if line.startswith("uv==")
)


def dry_run(*args: str, venv: Path) -> str:
    result = subprocess.run(
        ["make", "--dry-run", "--no-print-directory", *args, f"VENV={venv}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.replace("\\\n", " ")  # join continued lines


@pytest.mark.parametrize(
    ("flag", "lock"), [("GPU=0", "requirements.lock"), ("GPU=1", "requirements-gpu.lock")]
)
def test_lab_installs_from_the_right_lock_then_starts_jupyterlab(
    flag: str, lock: str, tmp_path: Path
) -> None:
    commands = dry_run("lab", flag, venv=tmp_path / "venv")
    assert f'"$uv" pip sync --python {tmp_path}/venv/bin/python {lock};' in commands
    assert f"tools/bootstrap_uv.py {UV_VERSION} " in commands, "uv must be the lock's pin"
    assert f'"$uv" venv --python 3.11 {tmp_path}/venv' in commands
    lab = commands.strip().splitlines()[-1]
    assert "jupyter lab" in lab
    assert ("--allow-root" in lab) == (os.geteuid() == 0)


def test_test_installs_then_runs_pytest(tmp_path: Path) -> None:
    commands = dry_run("test", venv=tmp_path / "venv").strip().splitlines()
    assert any('"$uv" pip sync' in line for line in commands)
    assert "-m pytest" in commands[-1]


def test_ci_runs_make_test_and_nothing_else() -> None:
    lines = [
        line.strip()
        for line in (REPO_ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    commands = [line for line in lines if not line.startswith(("set ", "cd "))]
    assert commands == ["make test"]
