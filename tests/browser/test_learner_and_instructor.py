"""A learner's and an instructor's path through the course in JupyterLab, in chromium.

Learner: open lesson 00, run all cells, check that plots, progress bars and the quiz render,
answer a quiz question; then open the exercises, type one answer in the editor, run its visible
test and press nbgrader's Validate. Instructor: open Formgrader from the Nbgrader menu.
Screenshots of every step go to artifacts/browser/test_learner_and_instructor/.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.jupyterlab import JupyterLab, Screenshots, center
from tests.course import ASSIGNMENTS

LESSON = "lessons/00_gpu_detection/lesson.ipynb"
EXERCISES = "lessons/00_gpu_detection/exercises.ipynb"

# A correct answer to task 1, written differently from the reference solution.
ANSWER = """\
def diagnose(report, packages):
    kind = report.split("device info: ", 1)[1].split(",", 1)[0].rsplit("-", 1)[0]
    if kind != "cpu":
        return "gpu-ok"
    lines = report.split("$ nvidia-smi")[0].splitlines()
    env = dict(line.split("=", 1) for line in lines if line.startswith(("JAX_", "XLA_")))
    wanted = {p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()}
    if wanted and not wanted & {"cuda", "gpu"}:
        return "forced-cpu"
    if not any(f"jax-cuda{v}-plugin" in packages for v in (12, 13)):
        return "no-cuda-plugin"
    if "$ nvidia-smi" not in report:
        return "no-gpu-visible"
    if {"XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_MEM_FRACTION"} <= env.keys():
        return "memory-variables-conflict"
    return "plugin-failed"
"""
# Cell indices in the released exercises notebook.
SETUP_CELL, TASK1_SOLUTION, TASK1_TRY, TASK1_VISIBLE = 1, 3, 4, 5

RENDER_FAILURES = ("Error displaying widget", "No renderer could be found", "Javascript Error")


def outputs_text(lab: JupyterLab) -> str:
    return "\n".join(lab.page.locator(".jp-NotebookPanel:visible .jp-OutputArea").all_inner_texts())


def test_learner_runs_lesson_00_takes_the_quiz_and_does_an_exercise(
    lab: JupyterLab, shots: Screenshots
) -> None:
    page = lab.page
    lab.goto(f"lab/tree/{LESSON}")
    lab.wait_for_notebook(LESSON)
    assert lab.dismiss_dialogs() == []
    shots.take(page, "lesson-opened")

    state = lab.run_all()
    if state.errors:
        lab.scroll_to_cell(state.errors[0]["cell"])
    shots.take(page, "lesson-ran")
    assert not state.errors, f"error outputs in {LESSON}:\n{state.describe_errors()}"
    assert state.executed == state.code_cells

    plots = page.locator(".jp-NotebookPanel:visible .jp-RenderedImage img")
    assert plots.count() >= 1, "the lesson's plot was not rendered as an image"
    for plot in plots.all():
        assert plot.evaluate("(img) => img.complete && img.naturalWidth > 0")
    center(plots.first)
    shots.take(page, "plot")

    bars = page.locator(".jp-NotebookPanel:visible .widget-hprogress .progress-bar")
    assert bars.count() >= 1, "tqdm's progress bar was not rendered as a widget"
    expect(bars.first).to_have_class(re.compile("progress-bar-success"))  # ran to the end
    center(bars.first)
    shots.take(page, "progress-bar")
    assert not [word for word in RENDER_FAILURES if word in outputs_text(lab)]

    quiz = page.locator(".jp-NotebookPanel:visible .quiz")
    quiz.scroll_into_view_if_needed()
    expect(quiz.locator(".quiz-score")).to_contain_text("(0 checked)")
    question = quiz.locator(".quiz-question").first
    question.locator("input[type=radio]").first.check()
    question.locator(".quiz-check").click()
    verdict = question.locator(".quiz-verdict")
    expect(verdict).to_contain_text(re.compile(r"^(Right\.|Not quite\. The answer is: \S)"))
    explanation = verdict.locator(".widget-html-content > div").nth(1)
    assert len(explanation.inner_text().strip()) > 20, "the verdict comes without explanation"
    expect(quiz.locator(".quiz-score")).to_contain_text(re.compile(r"Score: [01] of \d+ right"))
    expect(quiz.locator(".quiz-score")).to_contain_text("(1 checked)")
    center(question)
    shots.take(page, "quiz-checked")

    # The exercises, opened from the file browser next to the lesson.
    page.locator(".jp-DirListing-item", has_text="exercises.ipynb").dblclick()
    lab.wait_for_notebook(EXERCISES)
    shots.take(page, "exercises-opened")

    solution = page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(TASK1_SOLUTION)
    editor = solution.locator(".cm-content")
    expect(editor).to_contain_text("raise NotImplementedError()")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(ANSWER)
    assert lab.cell(TASK1_SOLUTION)["source"] == ANSWER
    shots.take(page, "answer-typed")

    # Run the set-up cell and every cell down to task 1's visible test, as Shift+Enter does.
    page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(SETUP_CELL).locator(
        ".jp-InputPrompt"
    ).click()
    for _ in range(SETUP_CELL, TASK1_VISIBLE + 1):
        page.keyboard.press("Shift+Enter")
    lab.wait_for_cells([SETUP_CELL, TASK1_SOLUTION, TASK1_TRY, TASK1_VISIBLE])
    lab.scroll_to_cell(TASK1_VISIBLE)
    shots.take(page, "visible-test-ran")
    for index in (TASK1_SOLUTION, TASK1_TRY, TASK1_VISIBLE):
        errors = [o for o in lab.cell(index)["outputs"] if o["output_type"] == "error"]
        assert not errors, f"cell {index} failed: {errors}"
    tried = "".join("".join(o.get("text", "")) for o in lab.cell(TASK1_TRY)["outputs"])
    assert "device info: NVIDIA H200-1" in tried

    # nbgrader's Validate runs the saved notebook as the grader would. Tasks 2 and 3 and the
    # quiz are still unanswered, so it must fail on their tests and on nothing of task 1.
    lab.save()
    page.locator(".jp-NotebookPanel:visible .jp-Toolbar").get_by_text("Validate").click()
    dialog = page.locator(".jp-Dialog", has_text="Validation Results")
    dialog.wait_for(timeout=600_000)
    shots.take(page, "validated")
    results = dialog.locator(".jp-Dialog-body").inner_text()
    assert "The following cell failed" in results
    assert "bytes_limit(" in results and "run_launcher(" in results
    assert "diagnose(" not in results, f"task 1 failed validation:\n{results}"
    dialog.locator(".jp-Dialog-button.jp-mod-accept").click()
    assert not lab.page_errors, lab.page_errors


def test_instructor_opens_formgrader_and_sees_the_assignments(
    lab: JupyterLab, shots: Screenshots
) -> None:
    page = lab.page
    lab.goto("lab")
    lab.menu("Nbgrader", "Formgrader")
    formgrader = page.frame_locator("iframe[src*='formgrader']")
    expect(formgrader.get_by_text("Manage Assignments").first).to_be_visible()
    for assignment in ASSIGNMENTS:
        expect(formgrader.get_by_text(assignment, exact=True).first).to_be_visible()
    shots.take(page, "formgrader")
