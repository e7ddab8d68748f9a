"""The two commands: what `make lab` / `make test` would run, and that CI runs only `make test`.

tests/test_install.py runs the install rule for real; here `make --dry-run` and the driver check.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from autograder.config import REPO_ROOT
from tests.make_env import make_env

UV_VERSION = next(
    line.split("==")[1].strip()
    for line in (REPO_ROOT / "requirements.lock").read_text().splitlines()
    if line.startswith("uv==")
)

# The first lines nvidia-smi prints, as on the H200 the course is checked on
# (docs/gpu-runs/2026-11-30-nvidia-h200.md), with the driver and CUDA version filled in.
NVIDIA_SMI_HEADER = """\
Mon Nov 30 17:03:30 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI {driver}             Driver Version: {driver}     CUDA Version: {cuda}     |
+-----------------------------------------+------------------------+----------------------+
"""


def dry_run(*args: str, venv: Path) -> str:
    result = subprocess.run(
        ["make", "--dry-run", "--no-print-directory", *args, f"VENV={venv}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=make_env(),
    )
    return result.stdout.replace("\\\n", " ")  # join continued lines


@pytest.mark.parametrize(
    ("flag", "lock", "cuda"),
    [
        ("GPU=0", "requirements.lock", None),
        ("GPU=1", "requirements-gpu.lock", "12"),
        ("GPU=cuda12", "requirements-gpu.lock", "12"),
        ("GPU=cuda13", "requirements-cuda13.lock", "13"),
    ],
)
def test_lab_installs_from_the_right_lock_then_starts_jupyterlab(
    flag: str, lock: str, cuda: str | None, tmp_path: Path
) -> None:
    commands = dry_run("lab", flag, venv=tmp_path / "venv")
    python = f"{tmp_path}/venv/bin/python"
    assert f'"$uv" pip sync --compile-bytecode --python {python} {lock};' in commands
    assert f"tools/bootstrap_uv.py {UV_VERSION} " in commands, "uv must be the lock's pin"
    assert f'"$uv" venv --python 3.11 {tmp_path}/venv' in commands
    assert ("tools/check_driver.sh" in commands) == (cuda is not None)
    if cuda:
        assert f"sh tools/check_driver.sh {cuda}\n" in commands
    lab = commands.strip().splitlines()[-1]
    assert "jupyter lab" in lab
    assert ("--allow-root" in lab) == (os.geteuid() == 0)


def test_an_unknown_gpu_flavour_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        ["make", "--dry-run", "lab", "GPU=cuda11", f"VENV={tmp_path}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env=make_env(),
    )
    assert result.returncode != 0
    assert "GPU=cuda11: use GPU=0 (CPU), GPU=1 or GPU=cuda12" in result.stderr


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


def fake_nvidia_smi(folder: Path, driver: str, cuda: str, compute_cap: str = "9.0") -> Path:
    """A folder whose nvidia-smi prints the real header, and a compute capability when asked."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "nvidia-smi"
    header = NVIDIA_SMI_HEADER.format(driver=driver, cuda=cuda)
    script.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *compute_cap*) echo {compute_cap} ;; *) cat <<"EOF"\n{header}EOF\n;; esac\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def check_driver(cuda: str, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "tools/check_driver.sh", cuda],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
    )


@pytest.mark.parametrize(
    ("cuda_wanted", "driver", "cuda", "compute_cap", "ok", "says"),
    [
        # The course's H200: both flavours run; GPU=1 points at GPU=cuda13.
        (
            "12",
            "580.159.04",
            "13.0",
            "9.0",
            True,
            "the CUDA 12 wheels (GPU=1) run on it; GPU=cuda13",
        ),
        ("13", "580.159.04", "13.0", "9.0", True, "the CUDA 13 wheels run on it"),
        # A CUDA 12 driver: only the CUDA 12 wheels.
        ("12", "550.54.14", "12.4", "8.0", True, "the CUDA 12 wheels run on it"),
        ("13", "550.54.14", "12.4", "8.0", False, "need driver >= 580: use GPU=1"),
        # Too old for either.
        ("12", "520.61.05", "11.8", "8.0", False, "CUDA 12 wheels need driver >= 525"),
        # A V100 on a CUDA 13 driver: CUDA 13 dropped it, so GPU=1 is the flavour.
        ("13", "580.159.04", "13.0", "7.0", False, "compute capability 7.0"),
        ("12", "580.159.04", "13.0", "7.0", True, "the CUDA 12 wheels run on it"),
    ],
)
def test_the_driver_check_says_which_flavour_fits(
    cuda_wanted: str,
    driver: str,
    cuda: str,
    compute_cap: str,
    ok: bool,
    says: str,
    tmp_path: Path,
) -> None:
    fake = fake_nvidia_smi(tmp_path, driver, cuda, compute_cap)
    result = check_driver(cuda_wanted, f"{fake}:/usr/bin:/bin")
    assert (result.returncode == 0) == ok, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and says in lines[0], result.stdout
    assert f"driver {driver} runs CUDA {cuda}" in lines[0] or "compute capability" in lines[0]


def test_the_driver_check_without_nvidia_smi_says_so_and_goes_on(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    for tool in ("sh", "grep", "sed", "sort", "head", "awk"):
        (tmp_path / "bin" / tool).symlink_to(f"/usr/bin/{tool}")
    result = check_driver("13", str(tmp_path / "bin"))
    assert result.returncode == 0
    assert result.stdout == (
        "No nvidia-smi here, so the driver is not checked: "
        "the CUDA 13 wheels need NVIDIA driver >= 580.\n"
    )


def test_make_lab_gpu_cuda13_stops_on_a_cuda12_driver_before_installing(tmp_path: Path) -> None:
    fake = fake_nvidia_smi(tmp_path / "bin", "550.54.14", "12.4")
    result = subprocess.run(
        ["make", "--no-print-directory", "lab", "GPU=cuda13", f"VENV={tmp_path / 'venv'}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env=make_env(PATH=f"{fake}:{os.environ['PATH']}", UV="/nonexistent/uv"),
    )
    assert result.returncode != 0
    assert result.stdout.splitlines() == [
        "NVIDIA driver 550.54.14 runs CUDA 12.4 at most; the CUDA 13 wheels need driver >= 580: "
        "use GPU=1 (the CUDA 12 wheels) or update the driver."
    ]
    assert not (tmp_path / "venv").exists()


def test_readme_states_the_driver_floors_the_check_uses() -> None:
    script = (REPO_ROOT / "tools/check_driver.sh").read_text()
    readme = (REPO_ROOT / "README.md").read_text()
    floors = re.findall(r"^(\d+)\) driver=(\d+) ;;$", script, re.M)
    assert floors == [("12", "525"), ("13", "580")]
    for cuda, driver in floors:
        assert f">= {driver} for CUDA {cuda}" in readme, f"README: CUDA {cuda} needs {driver}"
        assert f"{driver} or newer" in readme
    assert "jax-ml/jax/blob/jax-v0.10.2/docs/installation.md" in readme, "cite the source"
