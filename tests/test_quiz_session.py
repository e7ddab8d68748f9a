"""Shuffling, feedback, scoring and answer sheets."""

from __future__ import annotations

import pytest

import quiz
from quiz.bank import load_bank, select
from quiz.session import Score, feedback, shuffle
from quiz.sheet import SheetError, grade, points, validate

QUESTIONS = load_bank()
FIRST = QUESTIONS[0]


def test_the_same_seed_gives_the_same_order() -> None:
    assert shuffle(QUESTIONS, seed=7) == shuffle(QUESTIONS, seed=7)
    orders = {tuple(s.order for s in shuffle(QUESTIONS, seed=seed)) for seed in range(20)}
    assert len(orders) > 1, "different seeds should give different orders"


def test_over_many_seeds_the_answer_lands_in_every_position() -> None:
    for question in QUESTIONS:
        positions = {
            shuffle([question], seed)[0].order.index(question.answer) for seed in range(200)
        }
        assert positions == set(range(len(question.letters))), question.id


def test_shown_options_follow_the_shuffled_letters() -> None:
    [shown] = shuffle([FIRST], seed=3)
    en = FIRST.in_language("en")
    assert shown.options("en") == [en.options[FIRST.letters.index(x)] for x in shown.order]
    assert sorted(shown.order) == list(FIRST.letters)


def test_feedback_says_right_or_wrong_and_explains() -> None:
    wrong = next(letter for letter in FIRST.letters if letter != FIRST.answer)
    right = feedback(FIRST, FIRST.answer, "ru")
    assert right.correct and right.explanation == FIRST.in_language("ru").explanation
    missed = feedback(FIRST, wrong, "en")
    assert not missed.correct
    assert missed.answer_text == FIRST.in_language("en").options[FIRST.letters.index(FIRST.answer)]
    with pytest.raises(ValueError, match="'z' is not one of"):
        feedback(FIRST, "z", "en")


def test_the_score_counts_the_latest_answer_to_each_question() -> None:
    wrong = next(letter for letter in FIRST.letters if letter != FIRST.answer)
    score = Score(total=3)
    score.record(feedback(FIRST, wrong, "en"))
    assert (score.correct, score.answered) == (0, 1)
    score.record(feedback(FIRST, FIRST.answer, "en"))
    assert (score.correct, score.answered) == (1, 1)
    assert score.summary() == "1/1 (2 not answered)"


def test_a_sheet_is_graded_in_bank_letters() -> None:
    answers = {q.id: q.answer for q in QUESTIONS}
    answers[FIRST.id] = next(x for x in FIRST.letters if x != FIRST.answer).upper()
    result = grade(validate(answers, QUESTIONS, "sheet"), QUESTIONS, "en")
    assert result.score == len(QUESTIONS) - 1
    assert [r.question_id for r in result.wrong] == [FIRST.id]


class _AnyLetter(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__

    def strip(self, chars: str | None = None) -> _AnyLetter:
        return self

    def lower(self) -> _AnyLetter:
        return self


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        (["q01", "b"], "expected an object"),
        ({}, "answers no question"),
        ({"q99": "a"}, "unknown question id 'q99'"),
        ({"q01": "e"}, "q01: 'e' is not an option letter (a, b, c, d)"),
        ({"q01": 2}, "q01: 2 is not an option letter"),
        ({"q01": "b", "q02": "bb", "zz": "a"}, "q02: 'bb' is not an option letter"),
        ({"q01": _AnyLetter("b")}, "q01: 'b' is not an option letter"),  # equal to every letter
    ],
)
def test_a_malformed_sheet_is_refused_whole(answers: object, problem: str) -> None:
    with pytest.raises(SheetError, match=problem.replace("(", r"\(").replace(")", r"\)")) as err:
        validate(answers, QUESTIONS, "sheet.json")
    assert str(err.value).startswith("sheet.json: ")
    assert "Nothing was scored" in str(err.value)


def test_points_for_the_graded_quiz_task() -> None:
    lesson = select(QUESTIONS, 0)
    key = {q.id: q.answer for q in lesson}
    assert quiz.points(key, lesson=0) == len(lesson)
    assert quiz.points({}, lesson=0) == 0
    one_wrong = dict(key, **{lesson[0].id: "a" if lesson[0].answer != "a" else "b"})
    assert points(one_wrong, lesson) == len(lesson) - 1
    with pytest.raises(SheetError, match="unknown question id"):
        quiz.points({"q99": "a"}, lesson=0)
