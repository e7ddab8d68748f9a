"""`make lab` serves JupyterLab on the course with nbgrader's extension, the course config and the
course's own lab settings (.jupyter/lab/settings/overrides.json): the lesson list as the landing
view, and no "get notified about official Jupyter news?" prompt."""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect, sync_playwright

from autograder.config import REPO_ROOT
from tests.browser.jupyterlab import ARTIFACTS, launch
from tests.course import ASSIGNMENTS, LESSON_FOLDERS

NEWS_PROMPT = "official Jupyter news"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    # 60 s: formgrader's first page (it opens the gradebook) took over 10 s on 2 busy cores
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
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


def test_lab_lands_on_the_lesson_list(lab: str) -> None:
    address = urllib.parse.urlsplit(lab.format(path=""))
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.request("GET", f"/?{address.query}")
    response = connection.getresponse()
    assert response.status == 302
    assert response.getheader("Location", "").startswith("/lab/tree/lessons")


def test_lab_uses_the_course_settings(lab: str) -> None:
    path = "lab/api/settings/@jupyterlab/apputils-extension:notification"
    status, body = get(lab.format(path=path))
    assert status == 200
    defaults = {k: v.get("default") for k, v in json.loads(body)["schema"]["properties"].items()}
    assert defaults["fetchNews"] == "false", "overrides.json: no Jupyter news prompt"
    assert defaults["checkForUpdates"] is False


def test_a_learner_sees_the_lessons_and_no_news_prompt(lab: str) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(lab.format(path=""))
            listing = page.locator(".jp-DirListing-content")
            for folder in LESSON_FOLDERS:
                expect(listing).to_contain_text(folder.name, timeout=120_000)
            expect(page.locator(".jp-BreadCrumbs")).to_contain_text("lessons")
            page.wait_for_timeout(3000)  # the prompt, when it comes, comes just after the page
            (ARTIFACTS / "test_lab").mkdir(parents=True, exist_ok=True)
            page.screenshot(path=ARTIFACTS / "test_lab" / "landing.png")
            assert page.get_by_text(NEWS_PROMPT).count() == 0
        finally:
            browser.close()


def test_the_docker_image_opens_the_course_the_same_way() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text()
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    landing = re.search(r"^LAB_LANDING\s*:=\s*(\S+)$", makefile, re.M)
    settings = re.search(r"^LAB_SETTINGS\s*:=\s*\$\(CURDIR\)/(\S+)$", makefile, re.M)
    assert landing and settings
    assert f'"--LabApp.default_url={landing[1]}"' in dockerfile
    assert f'"--LabApp.app_settings_dir=/home/learner/course/{settings[1]}"' in dockerfile
    assert (REPO_ROOT / settings[1] / "overrides.json").is_file()
