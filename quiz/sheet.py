"""Answer sheets: ``{"q01": "b", ...}`` with letters in bank order, validated before scoring."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from quiz.bank import Question
from quiz.session import Feedback, feedback


class SheetError(ValueError):
    """An answer sheet is malformed; nothing was scored."""


@dataclass(frozen=True)
class SheetResult:
    results: list[Feedback]

    @property
    def score(self) -> int:
        return sum(r.correct for r in self.results)

    @property
    def wrong(self) -> list[Feedback]:
        return [r for r in self.results if not r.correct]


def validate(answers: object, questions: list[Question], source: str) -> dict[str, str]:
    """Check every entry, report every problem at once, return the answers lower-cased."""
    # exact types: a submission could hand over a str whose == is always true (a red-team pass)
    if type(answers) is not dict:
        raise SheetError(
            f'{source}: expected an object mapping question ids to letters, like {{"q01": "b"}}. '
            "Nothing was scored."
        )
    by_id = {q.id: q for q in questions}
    problems = []
    clean = {}
    for qid, letter in answers.items():
        question = by_id.get(qid)
        if question is None:
            problems.append(f"unknown question id {qid!r}")
        elif type(letter) is not str or letter.strip().lower() not in question.letters:
            choices = ", ".join(question.letters)
            problems.append(f"{qid}: {letter!r} is not an option letter ({choices})")
        else:
            clean[qid] = letter.strip().lower()
    if not answers:
        problems.append("the sheet answers no question")
    if problems:
        raise SheetError(f"{source}: " + "; ".join(problems) + ". Nothing was scored.")
    return clean


def read_sheet(path: Path, questions: list[Question]) -> dict[str, str]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SheetError(f"{path}: cannot read it: {error.strerror}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SheetError(f"{path}: not valid JSON: {error}") from error
    return validate(raw, questions, str(path))


def grade(answers: dict[str, str], questions: list[Question], lang: str) -> SheetResult:
    by_id = {q.id: q for q in questions}
    return SheetResult([feedback(by_id[qid], letter, lang) for qid, letter in answers.items()])


def points(answers: object, questions: list[Question]) -> int:
    """Correct answers among ``questions``: a missing answer scores nothing."""
    clean = validate(answers, questions, "QUIZ_ANSWERS") if answers else {}
    return sum(clean.get(q.id) == q.answer for q in questions)
