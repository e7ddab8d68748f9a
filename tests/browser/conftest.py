"""Fixtures for the browser tests: one JupyterLab and one chromium page per test file."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.jupyterlab import (
    ARTIFACTS,
    JupyterLab,
    Screenshots,
    Server,
    copy_course,
    launch,
    serve,
    slug,
)

# Everything is slow on a busy 2-core machine: wait up to two minutes for what a person sees.
expect.set_options(timeout=120_000)


def _module_folder(request: pytest.FixtureRequest) -> Path:
    return ARTIFACTS / Path(request.module.__file__).stem


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    artifacts = _module_folder(request)
    shutil.rmtree(artifacts, ignore_errors=True)  # no screenshots left from an earlier run
    scratch = tmp_path_factory.mktemp("jupyterlab")
    root = copy_course(scratch / "course")
    with serve(root, state=scratch / "state", log=artifacts / "jupyterlab.log") as lab:
        yield lab


@pytest.fixture(scope="module")
def lab(server: Server) -> Iterator[JupyterLab]:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            yield JupyterLab(page, server)
        finally:
            browser.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Screenshots:
    return Screenshots(_module_folder(request) / slug(request.node.name))
