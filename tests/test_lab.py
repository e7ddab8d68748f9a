"""`make lab` serves JupyterLab on the course with nbgrader's extension and course config."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from autograder.config import REPO_ROOT
from tests.course import ASSIGNMENTS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""


@pytest.fixture(scope="module")
def lab() -> Iterator[str]:
    port, token = free_port(), secrets.token_hex(16)
    args = f"--no-browser --ip=127.0.0.1 --ServerApp.token={token}"
    server = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"PORT={port}", f"LAB_ARGS={args}"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # so the whole group (make and jupyter) can be stopped
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if get(f"{base}/api/status?token={token}")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            output = server.stdout.read() if server.poll() is not None else ""
            pytest.fail(f"`make lab` did not start JupyterLab:\n{output}")
        yield f"{base}/{{path}}?token={token}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_lab_answers_200_with_the_nbgrader_extension(lab: str) -> None:
    status, page = get(lab.format(path="lab"))
    assert status == 200
    assert "@jupyter/nbgrader" in page, "nbgrader's JupyterLab extension is not enabled"


def test_lab_opens_the_first_lesson(lab: str) -> None:
    status, body = get(lab.format(path="api/contents/lessons/00_gpu_detection/lesson.ipynb"))
    assert status == 200
    assert json.loads(body)["type"] == "notebook"


def test_formgrader_lists_the_course_assignments(lab: str) -> None:
    assert get(lab.format(path="formgrader"))[0] == 200
    status, body = get(lab.format(path="formgrader/api/assignments"))
    assert status == 200
    listed = {assignment["name"] for assignment in json.loads(body)}
    assert set(ASSIGNMENTS) <= listed
