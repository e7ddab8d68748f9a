"""The install rule for real, on machines whose python3 is not 3.11 (issue 18).

`make lab` / `make test` fetch the lock's uv with whatever python3 is there (3.9 or newer) and
create the venv with `uv venv --python 3.11`. These tests run that rule (`make install` into a
temporary VENV) with a python3 of another version first on the PATH, and on a PATH where no
3.11 can be had. They reuse the uv cache the suite's own install filled, so the venv costs
seconds, not the 1.2 GB download.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.config import REPO_ROOT
from tests.make_env import make_env

sys.path.insert(0, str(REPO_ROOT / "tools"))
import bootstrap_uv  # noqa: E402

UV_VERSION = next(
    line.split("==")[1].strip()
    for line in (REPO_ROOT / "requirements.lock").read_text().splitlines()
    if line.startswith("uv==")
)
# The uv of the environment running the suite (the lock's pin), for tests that are not about
# fetching it.
COURSE_UV = Path(sys.executable).with_name("uv")
INTERPRETER = re.compile(r"(python|pypy|graalpy)[0-9.]*$")

NO_311 = (
    "No Python 3.11 here and uv could not download one: put a python3.11 on the PATH (apt, "
    "deadsnakes, pyenv, conda) or let uv reach github.com (or set UV_PYTHON_INSTALL_MIRROR), "
    "then run make install again"
)

CHECK_VENV = """
import importlib.metadata, sys
from pathlib import Path
sys.path.insert(0, "tools")
import render_environment
wrong = {}
for pin in render_environment.lock_pins(Path("requirements.lock")):
    name, version = pin.split("==")
    try:
        installed = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed != version:
        wrong[name] = (version, installed)
import numpy, autograder  # compiled wheels and the course's editable package load
print("%d.%d" % sys.version_info[:2], importlib.metadata.version("jax"), wrong)
"""


def version_of(python: str) -> tuple[int, int] | None:
    try:
        result = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except OSError:
        return None
    if result.returncode != 0:  # e.g. a pyenv shim of a version pyenv has not selected
        return None
    major, minor = map(int, result.stdout.split())
    return major, minor


def another_python() -> tuple[str, tuple[int, int]] | None:
    """A Python 3.9+ that is not 3.11: on the PATH, under pyenv, uv-managed or in /usr."""
    candidates = [shutil.which(f"python3.{minor}") for minor in (13, 12, 14, 10, 9)]
    roots = {os.environ.get("PYENV_ROOT"), str(Path.home() / ".pyenv")}
    for root in filter(None, roots):
        found = glob.glob(f"{root}/versions/3.*/bin/python3")
        candidates += sorted(
            found, key=lambda path: [int(part) for part in re.findall(r"\d+", path)], reverse=True
        )
    candidates += sorted(glob.glob(str(Path.home() / ".local/share/uv/python/*/bin/python3")))
    candidates += sorted(glob.glob("/usr/bin/python3.*") + glob.glob("/usr/local/bin/python3.*"))
    for candidate in filter(None, candidates):
        if not re.search(r"python3\.?\d*$", candidate):
            continue
        version = version_of(candidate)
        if version and version >= (3, 9) and version != (3, 11):
            return str(Path(candidate).resolve()), version
    return None


def learner_env(path: str, **extra: str) -> dict[str, str]:
    return make_env(PATH=path, **extra)


def make_install(venv: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "install", f"VENV={venv}", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


@pytest.fixture(scope="module")
def no_python_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH with this machine's commands but no Python interpreter, no uv, no nvidia-smi."""
    farm = tmp_path_factory.mktemp("no-python-bin")
    for folder in os.environ["PATH"].split(os.pathsep) + ["/usr/bin", "/bin"]:
        if not os.path.isdir(folder):
            continue
        for entry in os.scandir(folder):
            name = entry.name
            if INTERPRETER.match(name) or name in ("uv", "uvx", "nvidia-smi", "pyenv"):
                continue
            if not (farm / name).exists() and os.access(entry.path, os.X_OK):
                (farm / name).symlink_to(entry.path)
    return str(farm)


def test_install_with_another_python3_builds_a_311_venv_from_the_lock(tmp_path: Path) -> None:
    found = another_python()
    if found is None:
        pytest.skip(
            "no Python 3.9+ other than 3.11 on this machine (looked on the PATH, under pyenv, "
            "among uv-managed ones and in /usr/bin, /usr/local/bin)"
        )
    other, version = found
    # python3 on the PATH is `other`; no uv on the PATH, so the rule must fetch it.
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "python3").write_text(f'#!/bin/sh\nexec "{other}" "$@"\n')
    (shims / "python3").chmod(0o755)
    folders = [shims] + [
        Path(folder)
        for folder in os.environ["PATH"].split(os.pathsep)
        if folder and not (Path(folder) / "uv").exists()
    ]
    path = os.pathsep.join(map(str, folders))
    if shutil.which("python3.11", path=path) is None:  # uv needs an installed 3.11 to find
        (shims / "python3.11").symlink_to(Path(sys._base_executable).resolve())
    assert version_of(str(shims / "python3")) == version
    env = learner_env(path, UV_PYTHON_DOWNLOADS="never")

    venv = tmp_path / "venv"
    result = make_install(venv, env, "BYTECODE=")  # a throwaway venv: no bytecode to compile
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert f"Fetching uv {UV_VERSION} from " in output, "the rule did not fetch uv with python3"
    assert "Using CPython 3.11" in output
    assert (venv / ".installed-from-requirements.lock").exists()

    check = subprocess.run(
        [venv / "bin/python", "-c", CHECK_VENV], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr[-4000:]
    assert check.stdout.split(maxsplit=2) == ["3.11", "0.10.2", "{}\n"], check.stdout

    # Run again: nothing to do, and the venv's own uv (the lock's) is the one used from now on.
    again = make_install(venv, env)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout, again.stdout


def test_without_python_311_one_line_says_what_to_do(no_python_path: str, tmp_path: Path) -> None:
    empty = tmp_path / "no-managed-pythons"
    empty.mkdir()
    env = learner_env(no_python_path, UV_PYTHON_DOWNLOADS="never", UV_PYTHON_INSTALL_DIR=str(empty))
    venv = tmp_path / "venv"
    result = make_install(venv, env, f"UV={COURSE_UV}")
    assert result.returncode != 0
    assert result.stdout.splitlines()[-1] == NO_311, result.stdout + result.stderr
    assert "No interpreter found for Python 3.11" in result.stderr  # uv's own reason, above
    assert not (venv / "bin/python").exists()


def test_without_uv_or_python3_one_line_says_what_to_do(
    no_python_path: str, tmp_path: Path
) -> None:
    result = make_install(tmp_path / "venv", learner_env(no_python_path))
    assert result.returncode != 0
    assert result.stdout.splitlines() == [
        "No uv here, and python3 is missing: install uv (https://docs.astral.sh/uv/) or Python "
        "3.9 or newer (PYTHON=/path/to/python3), then run make install again"
    ]


def test_a_python3_older_than_39_is_named(no_python_path: str, tmp_path: Path) -> None:
    old = tmp_path / "python3"  # answers like a Python 3.8
    old.write_text('#!/bin/sh\ncase "$2" in *print*) echo 3.8 ;; *) exit 1 ;; esac\n')
    old.chmod(0o755)
    result = make_install(tmp_path / "venv", learner_env(no_python_path), f"PYTHON={old}")
    assert result.returncode != 0
    assert f"No uv here, and {old} is 3.8, older than 3.9: install uv" in result.stdout


def test_a_venv_of_another_python_is_refused_not_overwritten(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin/python").write_text(
        "#!/bin/sh\ncase \"$1\" in --version) echo 'Python 3.12.1' ;; *) exit 1 ;; esac\n"
    )
    (venv / "bin/python").chmod(0o755)
    result = make_install(venv, learner_env(os.environ["PATH"]), f"UV={COURSE_UV}")
    assert result.returncode != 0
    assert result.stdout.splitlines()[-1] == (
        f"{venv} is Python 3.12.1, not Python 3.11: remove it (rm -rf {venv}), "
        "then run make install again"
    )


def test_bootstrap_fetches_the_pinned_uv_with_this_python(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, REPO_ROOT / "tools/bootstrap_uv.py", UV_VERSION, tmp_path],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    uv = Path(result.stdout.strip())
    assert uv == tmp_path / "uv"
    version = subprocess.run([uv, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith(f"uv {UV_VERSION} ")


@pytest.mark.parametrize(
    ("filename", "machine", "libc", "fits"),
    [
        (
            "uv-0.13.8-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "x86_64",
            ("glibc", "2.36"),
            True,
        ),
        (
            "uv-0.13.8-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "aarch64",
            ("glibc", "2.36"),
            False,
        ),
        ("uv-0.13.8-py3-none-manylinux_2_28_aarch64.whl", "aarch64", ("glibc", "2.27"), False),
        ("uv-0.13.8-py3-none-manylinux_2_28_aarch64.whl", "aarch64", ("glibc", "2.28"), True),
        ("uv-0.13.8-py3-none-musllinux_1_1_x86_64.whl", "x86_64", ("musl", ""), True),
        ("uv-0.13.8-py3-none-musllinux_1_1_x86_64.whl", "x86_64", ("glibc", "2.36"), False),
        ("uv-0.13.8-py3-none-macosx_11_0_arm64.whl", "arm64", ("glibc", "2.36"), False),
        ("uv-0.13.7-py3-none-manylinux_2_17_x86_64.whl", "x86_64", ("glibc", "2.36"), False),
        ("uv-0.13.8.tar.gz", "x86_64", ("glibc", "2.36"), False),
    ],
)
def test_bootstrap_picks_the_wheel_for_this_platform(
    filename: str, machine: str, libc: tuple[str, str], fits: bool
) -> None:
    assert bootstrap_uv.compatible(filename, "0.13.8", machine, libc) == fits
