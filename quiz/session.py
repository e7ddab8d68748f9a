"""One attempt at a quiz: options shuffled from a seed, answers scored with feedback."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from quiz.bank import Question


@dataclass(frozen=True)
class Shown:
    """A question as presented: ``order[i]`` is the bank letter shown in position ``i``."""

    question: Question
    order: tuple[str, ...]

    def options(self, lang: str) -> list[str]:
        text = self.question.in_language(lang)
        return [text.options[self.question.letters.index(letter)] for letter in self.order]


@dataclass(frozen=True)
class Feedback:
    question_id: str
    chosen: str  # bank letter
    correct: bool
    answer_text: str
    explanation: str


def shuffle(questions: list[Question], seed: int) -> list[Shown]:
    """The same seed gives the same option order; question order stays the bank's."""
    rng = random.Random(seed)
    shown = []
    for question in questions:
        order = list(question.letters)
        rng.shuffle(order)
        shown.append(Shown(question, tuple(order)))
    return shown


def feedback(question: Question, chosen: str, lang: str) -> Feedback:
    if chosen not in question.letters:
        raise ValueError(f"{question.id}: {chosen!r} is not one of {', '.join(question.letters)}")
    text = question.in_language(lang)
    answer_text = text.options[question.letters.index(question.answer)]
    return Feedback(question.id, chosen, chosen == question.answer, answer_text, text.explanation)


@dataclass
class Score:
    """Running score of an attempt: the latest answer to each question counts."""

    total: int
    results: dict[str, bool] = field(default_factory=dict)

    def record(self, result: Feedback) -> None:
        self.results[result.question_id] = result.correct

    @property
    def answered(self) -> int:
        return len(self.results)

    @property
    def correct(self) -> int:
        return sum(self.results.values())

    def summary(self) -> str:
        return f"{self.correct}/{self.answered}" + (
            "" if self.answered == self.total else f" ({self.total - self.answered} not answered)"
        )
