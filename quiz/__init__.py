"""The course quiz: a bilingual question bank and three ways to take it.

In a notebook: ``quiz.show(lesson=1, lang="en")``. In a terminal: ``python -m quiz``.
An answer sheet: ``python -m quiz grade SHEET.json``.
"""

from __future__ import annotations

import random

from quiz.bank import BankError, Question, load_bank, select
from quiz.sheet import SheetError

__all__ = [
    "BankError",
    "Question",
    "SheetError",
    "check_answers",
    "load_bank",
    "points",
    "print_sheet",
    "score",
    "show",
]

# The quiz's key ships with the course (quiz/bank/), so the graded quiz task is practice that
# counts a little: at most this share of an assignment's points (tests/test_quiz_task.py).
MAX_QUIZ_SHARE = 0.15

TITLES = {"en": "Quiz", "ru": "Тест"}


def show(lesson: int | str | None = None, lang: str = "en", seed: int | None = None):
    """Return the quiz widget for one lesson (or all of them); Jupyter displays it."""
    from quiz.session import shuffle
    from quiz.widgets import QuizWidget

    questions = select(load_bank(), lesson)
    seed = random.randrange(2**32) if seed is None else seed
    title = TITLES[lang] + (f" · {questions[0].lesson}" if lesson is not None else "")
    return QuizWidget(shuffle(questions, seed), lang, title)


def print_sheet(lesson: int | str, lang: str = "en") -> None:
    """Print a lesson's questions with their options in bank order, lettered a, b, c, ..."""
    for question in select(load_bank(), lesson):
        text = question.in_language(lang)
        print(f"{question.id}: {text.text}")
        for letter, option in zip(question.letters, text.options, strict=True):
            print(f"    {letter}) {option}")
        print()


def points(answers: object, lesson: int | str) -> int:
    """How many of a lesson's questions ``answers`` gets right (for the graded quiz task)."""
    from quiz.sheet import points as sheet_points

    return sheet_points(answers, select(load_bank(), lesson))


def score(answers: object, lesson: int | str, out_of: float) -> float:
    """The quiz task's partial credit: ``out_of`` points shared equally among the lesson's
    questions, for the ones ``answers`` gets right (nbgrader reads the number as the score)."""
    questions = select(load_bank(), lesson)
    return round(out_of * points(answers, lesson) / len(questions), 4)


def check_answers(answers: object, lesson: int | str) -> None:
    """Check that ``answers`` is a complete, well-formed sheet (not whether it is right)."""
    from quiz.sheet import validate

    questions = select(load_bank(), lesson)
    clean = validate(answers, questions, "QUIZ_ANSWERS")
    missing = [q.id for q in questions if q.id not in clean]
    if missing:
        raise SheetError(f"QUIZ_ANSWERS: no answer yet for {', '.join(missing)}")
    print(
        f"All {len(questions)} questions have an answer. They are scored when your work is graded."
    )
