"""Tampering with the tests gains nothing, through the real grading command.

Eight students answer a real assignment: a wrong answer from tests/exercise_variants/; the same
wrong answer that also replaces numpy's and JAX's comparison functions and numpy.testing; all
right answers but a quiz of wrong letters with `quiz.score` replaced; and a blank notebook
whose first answer cell makes IPython run every later cell as an empty one; and the wrong answer
again, with locked cells deleted, or the setup emptied and stripped of nbgrader's metadata (which
makes it the student's cell), or the setup copied and pasted. Each must score what its honest
answers earn.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from autograder import notebooks
from tests.course import grade_id, released_notebook, solution_notebook
from tests.grade_runs import by_student, grade, read_csv
from tests.test_exercise_variants import load_variants

ASSIGNMENT = "01_jit_compilation"
PATCHES = """\
import numpy as np, numpy.testing, jax.numpy as jnp
np.allclose = np.isclose = np.array_equal = lambda *a, **k: True
jnp.allclose = jnp.array_equal = lambda *a, **k: True
numpy.testing.assert_allclose = numpy.testing.assert_array_equal = lambda *a, **k: None
"""
BLANK_LATER_CELLS = "get_ipython().input_transformers_post.append(lambda lines: [])\n"
# the setup and another locked cell, and a test whose previous cell is locked but not graded
DELETED = {"setup", "task4-setup", "quiz-hidden"}


def _with_answers(base: Path, answers: dict[str, str]) -> nbformat.NotebookNode:
    notebook = notebooks.read(base)
    for cell in notebook.cells:
        if grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
    return notebook


def _answer_cells(notebook: nbformat.NotebookNode) -> dict[str, str]:
    return {
        grade_id(c): c.source
        for c in notebook.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


def test_tampering_scores_what_the_honest_answers_earn(tmp_path: Path) -> None:
    wrong = next(iter(load_variants(ASSIGNMENT).WRONG.values()))
    first_task = next(iter(wrong))
    solution = notebooks.read(solution_notebook(ASSIGNMENT))
    quiz_cell = next(c for c in solution.cells if grade_id(c) == "quiz-solution")
    namespace: dict[str, dict[str, str]] = {}
    exec(quiz_cell.source, namespace)  # the reference answers, whatever their layout
    answers = namespace["QUIZ_ANSWERS"]
    wrong_letters = {q: "a" if letter != "a" else "b" for q, letter in answers.items()}
    wrong_quiz = f"QUIZ_ANSWERS = {json.dumps(wrong_letters)}\n"
    blank_answers = _answer_cells(notebooks.read(released_notebook(ASSIGNMENT)))
    first_blank = next(iter(blank_answers))
    students = {
        "honest-wrong": _with_answers(solution_notebook(ASSIGNMENT), wrong),
        "patched-wrong": _with_answers(
            solution_notebook(ASSIGNMENT), {first_task: PATCHES + wrong[first_task]}
        ),
        "honest-quiz": _with_answers(solution_notebook(ASSIGNMENT), {"quiz-solution": wrong_quiz}),
        "patched-quiz": _with_answers(
            solution_notebook(ASSIGNMENT),
            {"quiz-solution": "import quiz\nquiz.score = lambda *a, **k: 99\n" + wrong_quiz},
        ),
        "blanker": _with_answers(
            released_notebook(ASSIGNMENT),
            {first_blank: BLANK_LATER_CELLS + blank_answers[first_blank]},
        ),
    }
    # locked cells a student deleted, or made their own by removing nbgrader's metadata: put back
    deleted = students["deleted-cells"] = _with_answers(solution_notebook(ASSIGNMENT), wrong)
    deleted.cells = [c for c in deleted.cells if grade_id(c) not in DELETED]
    stripped = students["stripped-setup"] = _with_answers(solution_notebook(ASSIGNMENT), wrong)
    for cell in stripped.cells:
        if grade_id(cell) == "setup":
            del cell.metadata["nbgrader"]
            cell.source = "# the setup, emptied: the tests' helpers are gone\n"
    # a locked cell copied and pasted in JupyterLab: the copy keeps the original's metadata
    pasted = students["pasted-copy"] = _with_answers(solution_notebook(ASSIGNMENT), wrong)
    setup = next(i for i, c in enumerate(pasted.cells) if grade_id(c) == "setup")
    copy = nbformat.from_dict(pasted.cells[setup])
    copy["id"] = "pasted-setup"  # JupyterLab gives the copy an id of its own, not its metadata
    pasted.cells.insert(setup + 1, copy)
    patched = students["patched-wrong"]
    for cell in patched.cells:  # the rest of the wrong variant, untouched
        if grade_id(cell) in wrong and grade_id(cell) != first_task:
            cell.source = wrong[grade_id(cell)]
    folder = tmp_path / "submitted"
    for student, notebook in students.items():
        path = folder / student / ASSIGNMENT / "exercises.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, path)

    run = grade(folder, tmp_path / "work", "--workers", "2")
    rows = by_student(run)
    scores = {s: float(r["score"]) for s, r in rows.items()}
    assert (
        scores["patched-wrong"] == scores["honest-wrong"] < float(rows["honest-wrong"]["max_score"])
    )
    assert scores["patched-quiz"] == scores["honest-quiz"]
    assert scores["deleted-cells"] == scores["stripped-setup"] == scores["honest-wrong"], scores
    assert scores["pasted-copy"] == scores["honest-wrong"], rows["pasted-copy"]
    assert rows["pasted-copy"]["status"] == "graded", rows["pasted-copy"]
    assert scores["blanker"] == 0.0, rows["blanker"]
    assert rows["blanker"]["status"] == "tampered"
    assert rows["honest-wrong"]["status"] == "graded"
    tasks = read_csv(run.out / "tasks.csv")
    quiz = {r["student"]: float(r["score"]) for r in tasks if r["task"] == "quiz-hidden"}
    assert quiz["patched-quiz"] == quiz["honest-quiz"] == 0.0
    log = (run.out / "logs" / ASSIGNMENT / "blanker.txt").read_text()
    assert "did not run as written" in log
