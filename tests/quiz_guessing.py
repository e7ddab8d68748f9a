"""Rules of thumb a guesser uses on a multiple-choice quiz, and how much each would score.

    python -m tests.quiz_guessing [LESSON ...]

prints, per lesson and over the whole bank, the share of the course's own questions
(``from_seed = false``) that each rule answers right, in each language. A tie counts as the
expected score of picking at random among the tied options.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence

from quiz.bank import LANGUAGES, Question, load_bank

# What reads as "an API name" in an option: `code`, dotted.names, call(), snake_case words,
# CONSTANTS, and flags such as --xla_foo.
API_NAME = re.compile(r"`[^`]+`|\b\w+(?:\.\w+)+\b|\b\w+\(\)?|\b[a-z]+_[a-z0-9_]+\b|--\w+")
CALL = re.compile(r"\b\w+\(")


def _api_names(option: str) -> int:
    return len(set(API_NAME.findall(option))) + len(CALL.findall(option))


Rule = Callable[[Sequence[str]], list[float]]


def _pick_max(score: Callable[[str], float]) -> Rule:
    def rule(options: Sequence[str]) -> list[float]:
        values = [score(o) for o in options]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        return [1 / len(winners) if i in winners else 0.0 for i in range(len(options))]

    return rule


RULES: dict[str, Rule] = {
    "longest option": _pick_max(len),
    "most API names": _pick_max(_api_names),
}


def rule_scores(questions: Sequence[Question], lang: str) -> dict[str, float]:
    """The share of ``questions`` each rule answers right (0..1), plus the best fixed letter."""
    scores = {}
    for name, rule in RULES.items():
        hits = 0.0
        for question in questions:
            options = question.in_language(lang).options
            hits += rule(options)[question.letters.index(question.answer)]
        scores[name] = hits / len(questions)
    letters = [q.answer for q in questions]
    scores["always the same letter"] = max(letters.count(x) for x in set(letters)) / len(letters)
    return scores


def course_questions(lessons: Sequence[str] = ()) -> list[Question]:
    return [
        q
        for q in load_bank()
        if not q.from_seed and (not lessons or any(q.lesson.startswith(x) for x in lessons))
    ]


def main(argv: Sequence[str]) -> None:
    questions = course_questions(argv)
    groups = sorted({q.lesson for q in questions})
    for group in [*groups, "all"]:
        chosen = [q for q in questions if group in ("all", q.lesson)]
        for lang in LANGUAGES:
            parts = ", ".join(f"{k} {v:.0%}" for k, v in rule_scores(chosen, lang).items())
            print(f"{group} [{lang}] {len(chosen)} questions: {parts}")


if __name__ == "__main__":
    main(sys.argv[1:])
