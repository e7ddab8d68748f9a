"""Every lesson runs top to bottom in JupyterLab, in chromium, without an error output.

nbval already executes each lesson; this catches what it cannot see: the front end rendering
widgets, plots and rich reprs (progress bars, sharding visualisations, NNX module displays).
The lessons are found when the tests are collected, so a new lesson is tested as it lands.
Screenshots go to artifacts/browser/test_every_lesson/<lesson>/.
"""

from __future__ import annotations

import pytest

from autograder.config import LESSON_NOTEBOOK, LESSONS_DIR
from tests.browser.jupyterlab import JupyterLab, Screenshots, center

# Lesson 00 runs in test_learner_and_instructor.py, with the same checks and more.
LEARNER_LESSON = "00_gpu_detection"
LESSONS = sorted(
    path.parent.name
    for path in LESSONS_DIR.glob(f"*/{LESSON_NOTEBOOK}")
    if path.parent.name != LEARNER_LESSON
)

# Outputs worth a screenshot: the first of each kind in a lesson.
RICH_OUTPUTS = {
    "html": '.jp-OutputArea-output[data-mime-type="text/html"]',
    "image": ".jp-OutputArea-output.jp-RenderedImage",
    "widget": ".jp-OutputArea-output:has(.jupyter-widgets)",
}
# What JupyterLab shows in place of an output it failed to render.
RENDER_FAILURES = ("Error displaying widget", "No renderer could be found", "Javascript Error")


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_runs_in_jupyterlab_without_errors(
    lesson: str, lab: JupyterLab, shots: Screenshots
) -> None:
    path = f"lessons/{lesson}/{LESSON_NOTEBOOK}"
    if lab.page.url == "about:blank":
        lab.goto("lab")
    lab.page_errors.clear()
    lab.open(path)
    try:
        shots.take(lab.page, "opened")
        state = lab.run_all()
        if state.errors:
            lab.scroll_to_cell(state.errors[0]["cell"])
        shots.take(lab.page, "ran")
        for kind, selector in RICH_OUTPUTS.items():
            rich = lab.page.locator(f".jp-NotebookPanel:visible {selector}")
            if rich.count():
                center(rich.first)
                shots.take(lab.page, f"first-{kind}")

        assert not state.errors, f"error outputs in {path}:\n{state.describe_errors()}"
        assert state.executed == state.code_cells
        outputs = lab.page.locator(".jp-NotebookPanel:visible .jp-OutputArea")
        shown = "\n".join(outputs.all_inner_texts())
        assert not [text for text in RENDER_FAILURES if text in shown], shown[-3000:]
        for image in lab.page.locator(".jp-NotebookPanel:visible .jp-RenderedImage img").all():
            assert image.evaluate("(img) => img.complete && img.naturalWidth > 0")
        assert not lab.page_errors, lab.page_errors
    finally:
        lab.close_and_shut_down()
