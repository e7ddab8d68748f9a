"""The environment for a `make` the tests start, as in a learner's fresh shell.

Under `make test` pytest inherits MAKEFLAGS/MAKELEVEL and every variable given on that command
line (`make test GPU=1 PYTHON=...` exports GPU and PYTHON): a `make` started by a test would take
them, install another lock or print "Entering directory". Drop them, and what steers uv.
"""

from __future__ import annotations

import os

# The Makefile's own variables, make's bookkeeping, and what points uv at an environment.
DROPPED = {
    *("PYTHON", "UV", "VENV", "GPU", "PORT", "LAB_ARGS", "PYTEST_ARGS", "WORKERS", "CHROMIUM"),
    *("GPU_CHECK_ARGS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"),
    *("VIRTUAL_ENV", "CONDA_PREFIX", "UV_PYTHON"),
}


def make_env(**overrides: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in DROPPED}
    return {**env, **overrides}
