"""Write environment.yml (a conda environment) from requirements.lock, so both carry the same pins.

Run by `make lock`; tests/test_environment.py fails when the two disagree.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+)")

HEADER = """\
# Generated from requirements.lock by `make lock` (tools/render_environment.py): do not edit.
#   conda env create -f environment.yml && conda activate jax-on-nvidia-gpus
# On an NVIDIA GPU, then: pip install -r requirements-gpu.lock   (same pins plus jax[cuda12])
#   or, with an NVIDIA driver >= 580: pip install -r requirements-cuda13.lock   (jax[cuda13])
name: jax-on-nvidia-gpus
channels:
  - conda-forge
dependencies:
  - python={python}
  - pip
  - pip:
"""


def lock_pins(lock: Path) -> list[str]:
    """The ``name==version`` lines of a lock file, in file order."""
    pins = []
    for line in lock.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            pins.append(f"{match[1]}=={match[2]}")
    return pins


def python_version(pyproject: Path) -> str:
    """The ``X.Y`` Python version that pyproject.toml's ``requires-python`` fixes."""
    match = re.search(r'^requires-python = "==(\d+\.\d+)\.\*"', pyproject.read_text(), re.M)
    if match is None:
        raise SystemExit(f"{pyproject}: requires-python must read '==X.Y.*'")
    return match[1]


def render(lock: Path, pyproject: Path) -> str:
    body = "".join(f"      - {pin}\n" for pin in lock_pins(lock))
    return HEADER.format(python=python_version(pyproject)) + body + "      - --editable .\n"


def main() -> None:
    text = render(ROOT / "requirements.lock", ROOT / "pyproject.toml")
    (ROOT / "environment.yml").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
