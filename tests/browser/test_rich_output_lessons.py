"""The lessons that display something the learner path does not, run in JupyterLab.

tests/test_lessons.py executes every lesson; a browser sees what it cannot: the front end
rendering the outputs. Every lesson shows matplotlib plots, tqdm progress bars and the quiz
widget, which the learner path (test_learner_and_instructor.py, lesson 00) checks. A lesson
runs here too when its code displays anything else (rich HTML such as sharding
visualisations, treescope, IPython.display objects, ipywidgets of its own); the lessons are
found when the tests are collected, so a new one is tested as it lands. Running every lesson
here cost 372 s of worker time in a 25-minute suite (fresh clone, 2026-12-01); the only
failures it found were load-timing flakes in lessons' own asserts (lesson 08's thread check,
lesson 11's trace window), which the lesson runs can hit as well.
Screenshots go to artifacts/browser/test_rich_output_lessons/<lesson>/.
"""

from __future__ import annotations

import os
import re

import pytest

from autograder import notebooks
from autograder.config import LESSON_NOTEBOOK, LESSONS_DIR
from tests.browser.jupyterlab import JupyterLab, Screenshots, center

# Lesson 00 runs in test_learner_and_instructor.py, with the same checks and more.
LEARNER_LESSON = "00_gpu_detection"
RICH_DISPLAY = re.compile(
    r"visualize_array_sharding|treescope|nnx\.display|IPython\.display|\bdisplay\(|HTML\("
    r"|ipywidgets|_repr_html_"
)


def displays_rich_output(lesson: str) -> bool:
    notebook = notebooks.read(LESSONS_DIR / lesson / LESSON_NOTEBOOK)
    code = (cell.source for cell in notebook.cells if cell.cell_type == "code")
    return any(RICH_DISPLAY.search(source) for source in code)


# COURSE_BROWSER_ALL=1 runs every lesson here (about 30 s each on 2 cores).
EVERY_LESSON = os.environ.get("COURSE_BROWSER_ALL") == "1"
LESSONS = sorted(
    path.parent.name
    for path in LESSONS_DIR.glob(f"*/{LESSON_NOTEBOOK}")
    if path.parent.name != LEARNER_LESSON
    and (EVERY_LESSON or displays_rich_output(path.parent.name))
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
