"""pytest set-up for the whole repository: strict kernels, one run id, the book's tests last."""

from __future__ import annotations

import os
import uuid
from contextlib import ExitStack

import pytest

from autograder.kernel import strict_kernels

# The id of this test run, shared by its xdist workers (they inherit the environment of the
# process that starts them, after pytest_configure ran there): the lessons' executions carry
# it, so the book's tests can tell this run's executions from an earlier run's.
RUN_VARIABLE = "COURSE_TEST_RUN"
_session = ExitStack()


def pytest_configure(config: pytest.Config) -> None:
    # Every kernel started by nbclient or nbgrader in this run turns JAX-stack
    # DeprecationWarnings into errors (see autograder/kernel.py).
    _session.enter_context(strict_kernels())
    os.environ.setdefault(RUN_VARIABLE, uuid.uuid4().hex)
    config.addinivalue_line(
        "markers", "needs_every_lesson: runs after the rest; waits for the lessons' executions"
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    _session.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Last in the queue, so with --dist loadscope every other scope (every lesson's execution
    # among them) is already done or running on a worker when a worker reaches these tests.
    items.sort(key=lambda item: item.get_closest_marker("needs_every_lesson") is not None)
