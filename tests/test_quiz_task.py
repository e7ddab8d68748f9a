"""Every lesson ends with its quiz; every exercises notebook ends with the graded quiz task.

The quiz task's cells only need the ``quiz`` package, so they are graded here in a small
notebook of their own, with nbgrader's partial-credit rule, for every assignment.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader.utils import determine_grade

from autograder import notebooks
from autograder.config import kernel_client_config
from quiz import MAX_QUIZ_SHARE
from quiz.bank import load_bank, select
from tests.course import (
    ASSIGNMENTS,
    LESSON_FOLDERS,
    grade_id,
    lesson_notebook,
    released_notebook,
    solution_notebook,
)

QUIZ_CELLS = ["quiz-text", "quiz-questions", "quiz-solution", "quiz-check", "quiz-hidden"]


def quiz_cells(path: Path) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebooks.read(path).cells if grade_id(cell) in QUIZ_CELLS]


@pytest.mark.parametrize("folder", [f.name for f in LESSON_FOLDERS])
def test_every_lesson_ends_with_its_quiz(folder: str) -> None:
    last = notebooks.read(lesson_notebook(folder)).cells[-1]
    assert re.search(rf'quiz\.show\(lesson="{folder}"', last.source), last.source


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_quiz_is_the_last_task(assignment: str) -> None:
    cells = notebooks.read(solution_notebook(assignment)).cells
    ids = [grade_id(cell) for cell in cells]
    assert [i for i in ids if i in QUIZ_CELLS] == QUIZ_CELLS
    tasks_after = [i for i in ids[ids.index("quiz-hidden") :] if i and i.startswith("task")]
    assert not tasks_after, f"tasks after the quiz: {tasks_after}"
    points = {
        grade_id(c): c.metadata["nbgrader"]["points"]
        for c in cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }
    total = sum(points.values())
    assert 0 < points["quiz-hidden"] <= MAX_QUIZ_SHARE * total, (
        f"the quiz is {points['quiz-hidden']} of {total} points: its key is public, so at most "
        f"{MAX_QUIZ_SHARE:.0%}"
    )
    hidden = cells[ids.index("quiz-hidden")]
    assert f"out_of={points['quiz-hidden']})" in hidden.source  # the score it gives is its points
    intro = cells[0].source
    stated = f"({total - points['quiz-hidden']} points) and the lesson's quiz ("
    assert stated in intro and f"): {total} points" in intro, "the intro's points are out of date"
    text = cells[ids.index("quiz-text")].source
    quiz_points, questions = points["quiz-hidden"], len(select(load_bank(), assignment))
    worth = f"worth {quiz_points} point{'s' if quiz_points > 1 else ''} of the assignment's {total}"
    assert worth in text, f"the quiz text's points are out of date (expected {worth!r})"
    assert f"among its {questions} questions" in text, f"the bank has {questions} questions"
    naming_the_lesson = ("quiz-questions", "quiz-check", "quiz-hidden")
    assert all(f'"{assignment}"' in c.source for c in cells if grade_id(c) in naming_the_lesson)


def quiz_scores(scenarios: list[tuple[list[dict], str | None]], tmp_path: Path) -> list[float]:
    """Run each scenario's quiz cells (``answers`` in the answer cell) one after another in one
    kernel and grade each scenario's hidden cell as nbgrader does. Every scenario's answer
    cell assigns ``QUIZ_ANSWERS`` afresh, so one scenario cannot leak into the next."""
    notebook = nbformat.v4.new_notebook()
    hidden_cells = []
    for cells, answers in scenarios:
        for raw in cells:
            cell = nbformat.from_dict(raw)
            if cell.cell_type != "code":
                continue
            cell.outputs = []
            if answers is not None and grade_id(cell) == "quiz-solution":
                cell.source = answers
            notebook.cells.append(cell)
            if grade_id(cell) == "quiz-hidden":
                hidden_cells.append(cell)
    NotebookClient(
        notebook, kernel_name="python3", allow_errors=True, timeout=120,
        resources={"metadata": {"path": str(tmp_path)}}, config=kernel_client_config(),
    ).execute()  # fmt: skip
    return [determine_grade(cell)[0] for cell in hidden_cells]


Scenario = tuple[list[dict], str | None, float]  # the quiz cells, the answers, the points due


def scenarios_for(assignment: str) -> dict[str, Scenario]:
    """Five ways to answer an assignment's quiz, each with the score nbgrader must give."""
    questions = select(load_bank(), assignment)
    solution = quiz_cells(solution_notebook(assignment))
    out_of = next(c for c in solution if grade_id(c) == "quiz-hidden").metadata["nbgrader"][
        "points"
    ]
    share = out_of / len(questions)
    hidden_source = next(c.source for c in solution if grade_id(c) == "quiz-hidden")
    released = [
        cell if grade_id(cell) != "quiz-hidden" else {**cell, "source": hidden_source}
        for cell in quiz_cells(released_notebook(assignment))
    ]
    first = questions[0]
    wrong = next(letter for letter in first.letters if letter != first.answer)
    one_wrong = {q.id: q.answer for q in questions} | {first.id: wrong}
    other_form = "\n".join(f"QUIZ_ANSWERS[{q.id!r}] = {q.answer.upper()!r}" for q in questions)
    return {
        "the reference answers": (solution, None, out_of),
        "the released notebook": (released, None, 0),
        "one wrong answer": (
            solution, f"QUIZ_ANSWERS = {one_wrong!r}", round(out_of - share, 4)
        ),
        "upper-case letters, set one by one": (
            solution, "QUIZ_ANSWERS = {}\n" + other_form, out_of
        ),
        "an unknown question id": (solution, 'QUIZ_ANSWERS = {"q99": "a"}', 0),
    }  # fmt: skip


@pytest.fixture(scope="module")
def graded_quizzes(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    """Every assignment's scenarios graded in one kernel: {assignment: (scores, points due)},
    each by scenario. One kernel for all of them instead of one each saves a kernel start per
    assignment."""
    scenarios = {assignment: scenarios_for(assignment) for assignment in ASSIGNMENTS}
    runs = [(cells, answers) for each in scenarios.values() for cells, answers, _ in each.values()]
    scores = iter(quiz_scores(runs, tmp_path_factory.mktemp("quizzes")))
    return {
        assignment: (
            {name: next(scores) for name in each},
            {name: due for name, (_, _, due) in each.items()},
        )
        for assignment, each in scenarios.items()
    }


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_quiz_task_gives_a_share_per_right_answer(
    assignment: str, graded_quizzes: dict[str, tuple[dict[str, float], dict[str, float]]]
) -> None:
    scores, due = graded_quizzes[assignment]
    assert scores == due
