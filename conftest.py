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


# JAX's persistent compilation cache for the suite's grading kernels: the solution, the release
# and every variant of an assignment compile the same set-up and test programs, so each program
# is compiled once per worker and loaded from disk afterwards. One folder per xdist worker (jax
# writes cache files in place, so two processes must not share one). Lesson kernels (nbval,
# device profiles) never get it: lessons time first calls and count compiles themselves, and
# lesson 01 demonstrates this cache in folders of its own.
GRADING_COMPILE_CACHE = {
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
}


@pytest.fixture(scope="session")
def _worker_compile_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("jax-compile-cache")


@pytest.fixture
def grading_compile_cache(_worker_compile_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Kernels started during the test share this worker's compilation cache."""
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(_worker_compile_cache))
    for name, value in GRADING_COMPILE_CACHE.items():
        monkeypatch.setenv(name, value)
    return _worker_compile_cache


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
