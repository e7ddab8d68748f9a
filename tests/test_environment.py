"""One pinned environment: pyproject, both locks, environment.yml, Dockerfile and venv agree."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from autograder.config import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tools"))
import render_environment  # noqa: E402

LOCK = REPO_ROOT / "requirements.lock"
GPU_LOCK = REPO_ROOT / "requirements-gpu.lock"
CUDA13_LOCK = REPO_ROOT / "requirements-cuda13.lock"
# Each GPU lock: its pyproject extra and its CUDA major version.
GPU_LOCKS = {GPU_LOCK: ("gpu", 12), CUDA13_LOCK: ("cuda13", 13)}
DOCKERFILE = REPO_ROOT / "Dockerfile"
PYPROJECT = REPO_ROOT / "pyproject.toml"


def pins(lock: Path) -> dict[str, str]:
    return {
        canonicalize_name(pin.split("==")[0]): pin.split("==")[1]
        for pin in render_environment.lock_pins(lock)
    }


def project() -> dict:
    return tomllib.loads(PYPROJECT.read_text())["project"]


def test_direct_dependencies_are_pinned_exactly_and_locked() -> None:
    locked = pins(LOCK)
    for requirement in project()["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", requirement)
        assert match, f"pyproject.toml: {requirement!r} is not an exact pin"
        name, version = canonicalize_name(match[1]), match[2]
        assert locked.get(name) == version, f"requirements.lock has {name}=={locked.get(name)}"


@pytest.mark.parametrize("lock", GPU_LOCKS, ids=lambda lock: lock.name)
def test_gpu_lock_is_the_cpu_lock_plus_cuda_wheels(lock: Path) -> None:
    extra, cuda = GPU_LOCKS[lock]
    cpu, gpu = pins(LOCK), pins(lock)
    differing = {name for name in cpu if gpu.get(name) != cpu[name]}
    assert not differing, f"{lock.name} pins these differently: {sorted(differing)}"
    extra_pins = set(gpu) - set(cpu)
    assert extra_pins, f"{lock.name} adds no CUDA packages"
    assert all(name.startswith((f"jax-cuda{cuda}-", "nvidia-")) for name in extra_pins), sorted(
        extra_pins
    )
    assert gpu[f"jax-cuda{cuda}-plugin"] == gpu["jax"] == gpu["jaxlib"]
    assert project()["optional-dependencies"][extra] == [f"jax[cuda{cuda}]=={gpu['jax']}"]


def test_environment_yml_is_rendered_from_the_lock() -> None:
    expected = render_environment.render(LOCK, PYPROJECT)
    actual = (REPO_ROOT / "environment.yml").read_text()
    assert actual == expected, "environment.yml is out of date: run `make lock`"


def test_dockerfile_installs_the_gpu_lock() -> None:
    text = DOCKERFILE.read_text()
    python = render_environment.python_version(PYPROJECT)
    assert re.search(r"^FROM nvidia/cuda:12\.\S+$", text, re.M), "base image must be CUDA 12"
    assert f"ghcr.io/astral-sh/uv:{pins(LOCK)['uv']} " in text, "uv image differs from the lock"
    assert f"uv venv --python {python} " in text, f"the image must use Python {python}"
    assert re.search(r"uv pip sync .*requirements-gpu\.lock", text), (
        "must install from the GPU lock"
    )
    assert not re.search(r"pip install (?!.*--no-deps)", text), "only the lock may bring packages"
    user = re.findall(r"^USER (\S+)", text, re.M)
    assert user and user[-1] not in ("root", "0"), "the image must run as a non-root user"
    assert re.search(r"^EXPOSE 8888$", text, re.M)
    assert '"jupyter", "lab"' in text and "--port=8888" in text


def test_dockerfile_passes_hadolint() -> None:
    hadolint = Path(sys.executable).with_name("hadolint")
    result = subprocess.run([hadolint, DOCKERFILE], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_this_environment_is_installed_from_the_lock() -> None:
    lock = LOCK
    for gpu_lock, (_, cuda) in GPU_LOCKS.items():
        try:
            importlib.metadata.version(f"jax-cuda{cuda}-plugin")
            lock = gpu_lock
        except importlib.metadata.PackageNotFoundError:
            pass
    wrong = {}
    for name, version in pins(lock).items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong[name] = (version, installed)
    assert not wrong, f"(locked, installed) differ; run `make install`: {wrong}"
