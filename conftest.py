"""pytest set-up for the whole repository: strict kernels, and which notebooks nbval runs."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from autograder.config import LESSON_NOTEBOOK, LESSONS_DIR
from autograder.kernel import make_strict_ipython_dir

_scratch: Path | None = None


def pytest_configure(config: pytest.Config) -> None:
    # Every kernel started by nbval, nbclient or nbgrader in this run turns JAX-stack
    # DeprecationWarnings into errors (see autograder/kernel.py).
    global _scratch
    _scratch = Path(tempfile.mkdtemp(prefix="ipython-strict-"))
    os.environ["IPYTHONDIR"] = str(make_strict_ipython_dir(_scratch))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # nbval collects every notebook it is shown. Of lessons/ it must run only the
    # lesson notebooks: the released exercises are graded by nbgrader instead.
    if collection_path.suffix != ".ipynb":
        return None
    is_lesson = (
        collection_path.name == LESSON_NOTEBOOK
        and collection_path.parent.parent.resolve() == LESSONS_DIR
    )
    return None if is_lesson else True
