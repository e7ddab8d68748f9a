"""The course's own kernels are reached through socket files of their own, never TCP ports."""

from __future__ import annotations

import ast
import glob
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.config import REPO_ROOT, kernel_client_config
from autograder.grading import autograde
from autograder.kernel_sockets import SocketFileKernelManager
from tests.course import released_notebook

COURSE_CODE = ("autograder", "course", "quiz", "tests", "tools")


def test_a_course_kernel_talks_over_socket_files_and_removes_them(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    where = {"metadata": {"path": str(tmp_path)}}
    client = NotebookClient(
        notebook, kernel_name="python3", resources=where, config=kernel_client_config()
    )
    with client.setup_kernel():
        manager = client.km
        assert isinstance(manager, SocketFileKernelManager)
        assert manager.get_connection_info()["transport"] == "ipc"
        client.execute_cell(notebook.cells[0], 0)
        sockets = glob.glob(f"{manager.ip}-*")
        assert len(sockets) == 5, sockets  # shell, iopub, stdin, control, heartbeat
    assert notebook.cells[0].outputs[0]["text"] == "42\n"
    assert glob.glob(f"{manager.ip}-*") == []


def test_two_managers_never_share_socket_files() -> None:
    first, second = SocketFileKernelManager(), SocketFileKernelManager()
    assert first.ip != second.ip
    assert len(f"{first.ip}-5".encode()) < 108  # what a Unix socket's path may hold


def _starts_a_client_without_the_course_config(call: ast.Call) -> bool:
    named = getattr(call.func, "id", getattr(call.func, "attr", ""))
    return named == "NotebookClient" and "config" not in {k.arg for k in call.keywords}


def test_every_notebook_client_of_the_course_uses_the_course_kernels() -> None:
    """A NotebookClient left on jupyter_client's TCP default can lose its ports at start."""
    offenders = []
    for folder in COURSE_CODE:
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            offenders += [
                f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Call) and _starts_a_client_without_the_course_config(node)
            ]
    assert offenders == [], offenders


def test_nbgrader_autograde_starts_its_kernel_on_socket_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """nbgrader builds its own client (its Execute preprocessor), out of the scan's sight."""
    made: list[SocketFileKernelManager] = []
    original = SocketFileKernelManager.__init__

    def recording(self: SocketFileKernelManager, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(SocketFileKernelManager, "__init__", recording)
    grade = autograde("02_async_timing", released_notebook("02_async_timing"))
    assert grade.score == 0, grade
    assert made and all(manager.transport == "ipc" for manager in made), made
