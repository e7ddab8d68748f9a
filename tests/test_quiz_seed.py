"""The seed's 17 questions are all in the bank, each in the lesson the design assigns it."""

from __future__ import annotations

from quiz.bank import load_bank

SEED_LESSONS = {
    "q01": "00", "q02": "00", "q03": "01", "q04": "01", "q05": "01", "q06": "02", "q07": "02",
    "q08": "03", "q09": "04", "q10": "05", "q11": "05", "q12": "06", "q13": "06", "q14": "07",
    "q15": "08", "q16": "09", "q17": "09",
}  # fmt: skip


def test_the_seed_questions_map_to_the_lessons_in_the_design() -> None:
    seeded = {q.id: q.lesson[:2] for q in load_bank() if q.from_seed}
    assert seeded == SEED_LESSONS


def test_every_seed_question_keeps_its_four_options() -> None:
    for question in load_bank():
        if question.from_seed:
            assert len(question.letters) == 4, question.id
