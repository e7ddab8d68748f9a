"""pytest set-up for the whole repository: strict kernels, and which notebooks nbval runs."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest

from autograder.config import LESSON_NOTEBOOK, LESSONS_DIR
from autograder.kernel import strict_kernels

_session = ExitStack()


def pytest_configure(config: pytest.Config) -> None:
    # Every kernel started by nbval, nbclient or nbgrader in this run turns JAX-stack
    # DeprecationWarnings into errors (see autograder/kernel.py).
    _session.enter_context(strict_kernels())


def pytest_unconfigure(config: pytest.Config) -> None:
    _session.close()


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
