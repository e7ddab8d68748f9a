"""JupyterLab on a scratch copy of the course, and a chromium page that uses it like a person.

The server runs from the course's environment on a free localhost port with a random token,
on a copy of ``lessons/``, ``solutions/`` and ``nbgrader_config.py``, so filling in an answer
never touches a file in the repository. The page helpers click menus and type into editors;
they read the notebook's state from ``window.jupyterapp`` (``--expose-app-in-browser``) only to
wait for the kernel and to tell error outputs from harmless stderr, which the DOM renders alike.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Locator, Page, Playwright

from autograder.config import LESSONS_DIR, REPO_ROOT, SOLUTIONS_DIR
from tests.kernel_pool import POOL_VARIABLE

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"
STARTUP_TIMEOUT_S = 180
RUN_TIMEOUT_S = 900  # one whole notebook on a busy 2-core machine

# User settings for the scratch JupyterLab: no "get Jupyter news?" prompt and no update
# check (no network here), and every cell kept in the DOM so that outputs can be inspected.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def slug(name: str) -> str:
    """``name`` as a file name: runs of anything but letters, digits, dots and dashes become -."""
    return re.sub(r"[^\w.-]+", "-", name).strip("-")


def copy_course(destination: Path) -> Path:
    """A course folder for nbgrader and JupyterLab: lessons, solutions and the course config."""
    destination.mkdir(parents=True, exist_ok=True)
    for folder in (LESSONS_DIR, SOLUTIONS_DIR):
        shutil.copytree(folder, destination / folder.name, ignore=shutil.ignore_patterns(".*"))
    shutil.copy2(REPO_ROOT / "nbgrader_config.py", destination)
    return destination


@dataclass(frozen=True)
class Server:
    base: str
    token: str
    root: Path

    def url(self, path: str) -> str:
        return f"{self.base}/{path}?token={self.token}"

    def api(self, path: str) -> Any:
        with urllib.request.urlopen(self.url(f"api/{path}"), timeout=30) as response:
            return json.load(response)


def _write_user_settings(directory: Path) -> None:
    for name, values in USER_SETTINGS.items():
        path = directory / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


@contextmanager
def serve(root: Path, state: Path, log: Path) -> Iterator[Server]:
    """Run JupyterLab on ``root`` (also its working directory, for nbgrader's config).

    The environment is inherited: kernels get the suite's strict-deprecation IPYTHONDIR.
    The server and its kernels are stopped on the way out, whatever happened.
    """
    port, token = free_port(), secrets.token_hex(16)
    _write_user_settings(state / "settings")
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={state / 'settings'}",
        f"--LabApp.workspaces_dir={state / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True",
        # Kernels on socket files, as the suite's own (autograder/kernel_sockets.py): a TCP
        # port picked for a kernel can be taken by another test worker before it binds it.
        "--KernelManager.transport=ipc",
        *(["--allow-root"] if os.geteuid() == 0 else []),
    ]  # fmt: skip
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop(POOL_VARIABLE, None)  # a learner's kernels: started afresh, not forked (conftest.py)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as output:
        process = subprocess.Popen(
            command, cwd=root, env=env, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,  # so that the server and its kernels stop together
        )  # fmt: skip
    server = Server(f"http://127.0.0.1:{port}", token, root)
    try:
        _wait_until_up(server, process, log)
        yield server
    finally:
        _stop(process)


def _wait_until_up(server: Server, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            server.api("status")
            return
        except (OSError, urllib.error.HTTPError):
            time.sleep(0.5)
    raise RuntimeError(f"JupyterLab did not start:\n{log.read_text(encoding='utf-8')[-5000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server's process group: the server first (it shuts its kernels down), then all."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except ProcessLookupError:
        pass  # the group is already gone
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # whatever is left, e.g. an orphaned kernel
    except ProcessLookupError:
        pass
    process.wait()


def launch(playwright: Playwright) -> Browser:
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is missing: run `make browser` (Debian's chromium)")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


@dataclass
class Screenshots:
    """Numbered screenshots of one test's steps, under artifacts/browser/<module>/<test>/."""

    folder: Path
    taken: int = 0

    def __post_init__(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)

    def take(self, page: Page, step: str) -> Path:
        self.taken += 1
        path = self.folder / f"{self.taken:02d}-{slug(step)}.png"
        page.screenshot(path=path)
        return path


# The open notebook as a dictionary (see NotebookState). Errors are outputs of type "error"
# in the model; a cell tagged `raises-exception` is expected to raise, as in tests/test_lessons.py.
_STATE_JS = """() => {
  const app = window.jupyterapp;
  const panel = app && app.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.model || !panel.sessionContext) return null;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = panel.content.widgets.filter((cell) => cell.model.type === 'code');
  const errors = [];
  cells.forEach((cell) => {
    const tags = cell.model.getMetadata('tags') || [];
    for (const output of cell.model.outputs.toJSON()) {
      if (output.output_type === 'error' && !tags.includes('raises-exception')) {
        errors.push({
          cell: panel.content.widgets.indexOf(cell),
          ename: output.ename,
          evalue: output.evalue,
          source: cell.model.sharedModel.getSource().slice(0, 300),
        });
      }
    }
  });
  const prompts = [...panel.content.node.querySelectorAll('.jp-InputPrompt')];
  return {
    path: panel.context.path,
    kernel: kernel ? kernel.status : null,
    dirty: panel.context.model.dirty,
    code_cells: cells.length,
    executed: cells.filter((cell) => cell.model.executionCount !== null).length,
    running: prompts.filter((prompt) => prompt.textContent.includes('[*]')).length,
    errors: errors,
  };
}"""

_DONE_JS = f"""() => {{
  const state = ({_STATE_JS})();
  return state !== null && state.kernel === 'idle' && state.running === 0
    && (state.executed === state.code_cells || state.errors.length > 0);
}}"""


@dataclass
class NotebookState:
    path: str
    kernel: str | None
    dirty: bool
    code_cells: int
    executed: int
    running: int
    errors: list[dict[str, Any]] = field(default_factory=list)

    def describe_errors(self) -> str:
        return "\n".join(
            f"cell {error['cell']}: {error['ename']}: {error['evalue']}\n{error['source']}"
            for error in self.errors
        )


def center(locator: Locator) -> None:
    """Scroll ``locator`` to the middle of its scrolling panel, for a readable screenshot."""
    locator.evaluate("(node) => node.scrollIntoView({block: 'center'})")


class JupyterLab:
    """A chromium page showing JupyterLab, with the steps a learner takes."""

    def __init__(self, page: Page, server: Server) -> None:
        self.page, self.server = page, server
        self.page_errors: list[str] = []
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.set_default_timeout(120_000)

    def goto(self, path: str = "lab") -> None:
        self.page.goto(self.server.url(path))
        self.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell.currentWidget !== undefined"
        )
        self.page.locator("#jp-main-dock-panel").wait_for()

    def open(self, path: str) -> None:
        """Open a notebook (as the file browser's double-click does) and wait for its kernel."""
        self.page.evaluate(
            "async (path) => {"
            " await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
            path,
        )
        self.wait_for_notebook(path)

    def wait_for_notebook(self, path: str) -> None:
        self.page.wait_for_function(
            f"() => {{ const s = ({_STATE_JS})(); return s !== null && s.path === {path!r}"
            " && s.kernel === 'idle'; }"
        )
        self.page.locator(".jp-NotebookPanel:visible .jp-Cell").first.wait_for()

    def menu(self, *labels: str) -> None:
        """Click through the menu bar, e.g. ``menu("Run", "Run All Cells")``."""
        top, *items = labels
        self.page.locator(".lm-MenuBar-item", has_text=re.compile(f"^{top}$")).click()
        for label in items:
            item = self.page.locator(".lm-Menu-item:visible", has=self.page.locator(
                ".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(label)}$")
            ))  # fmt: skip
            item.click()

    def state(self) -> NotebookState:
        return NotebookState(**self.page.evaluate(_STATE_JS))

    def wait_until_done(self, timeout_s: float = RUN_TIMEOUT_S) -> NotebookState:
        """Wait for the kernel to go idle with every cell run, or for an error to stop the run."""
        self.page.wait_for_function(_DONE_JS, timeout=timeout_s * 1000, polling=500)
        return self.state()

    def run_all(self, timeout_s: float = RUN_TIMEOUT_S) -> NotebookState:
        self.menu("Run", "Run All Cells")
        return self.wait_until_done(timeout_s)

    def wait_for_cells(self, indices: list[int], timeout_s: float = RUN_TIMEOUT_S) -> None:
        """Wait for the kernel to go idle after the cells at ``indices`` have run."""
        self.page.wait_for_function(
            """(indices) => {
              const panel = window.jupyterapp.shell.currentWidget;
              const kernel = panel.sessionContext.session.kernel;
              const prompts = [...panel.content.node.querySelectorAll('.jp-InputPrompt')];
              return kernel.status === 'idle'
                && !prompts.some((prompt) => prompt.textContent.includes('[*]'))
                && indices.every((i) => panel.content.widgets[i].model.executionCount !== null);
            }""",
            arg=indices,
            timeout=timeout_s * 1000,
            polling=500,
        )

    def cell(self, index: int) -> dict[str, Any]:
        """The nbformat JSON of the current notebook's cell at ``index``, outputs included."""
        return self.page.evaluate(
            "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.toJSON()",
            index,
        )

    def scroll_to_cell(self, index: int) -> None:
        center(self.page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(index))

    def save(self) -> None:
        self.page.keyboard.press("Control+s")
        self.page.wait_for_function(
            f"() => {{ const s = ({_STATE_JS})(); return s !== null && !s.dirty; }}"
        )

    def close_and_shut_down(self) -> None:
        """Close the current notebook without saving, and shut its kernel down."""
        self.page.evaluate(
            """async () => {
              const panel = window.jupyterapp.shell.currentWidget;
              if (!panel || !panel.sessionContext) return;
              await panel.sessionContext.shutdown();
              panel.dispose();
            }"""
        )

    def dismiss_dialogs(self) -> list[str]:
        """Close any dialog (kernel choice, build notice) with its default button; their titles."""
        titles = []
        dialogs = self.page.locator(".jp-Dialog")
        while dialogs.count() and len(titles) < 5:
            titles.append(dialogs.first.locator(".jp-Dialog-header").inner_text())
            dialogs.first.locator(".jp-Dialog-button.jp-mod-accept").click()
        return titles
