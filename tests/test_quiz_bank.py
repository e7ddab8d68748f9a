"""The question bank loads, and every kind of broken bank file is refused with a clear message."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from quiz.bank import (
    BANK_DIR,
    LANGUAGES,
    LESSONS_DIR,
    BankError,
    lesson_folder,
    load_bank,
    select,
)
from tests.quiz_guessing import RULES, course_questions, rule_scores

VALID = """
[[questions]]
id = "t01"
lesson = "00_a"
from_seed = false
answer = "b"

[questions.en]
text = "Which one?"
options = ["this", "that", "those"]
explanation = "Lesson 00, section 1."

[questions.ru]
text = "Какой?"
options = ["этот", "тот", "те"]
explanation = "Урок 00, раздел 1."
"""


@pytest.fixture
def lessons(tmp_path: Path) -> Path:
    (tmp_path / "lessons" / "00_a").mkdir(parents=True)
    return tmp_path / "lessons"


def write_bank(tmp_path: Path, **files: str) -> Path:
    bank = tmp_path / "bank"
    bank.mkdir(exist_ok=True)
    for name, text in files.items():
        (bank / f"{name}.toml").write_text(text, encoding="utf-8")
    return bank


def test_a_valid_file_loads(tmp_path: Path, lessons: Path) -> None:
    [question] = load_bank(write_bank(tmp_path, a=VALID), lessons)
    assert (question.id, question.lesson, question.answer) == ("t01", "00_a", "b")
    assert question.letters == ("a", "b", "c")
    assert question.in_language("ru").options[1] == "тот"


BROKEN = {
    "not TOML": (VALID.replace('id = "t01"', "id = t01"), "cannot read it"),
    "no questions": ("title = 'empty'\n", "no [[questions]] entries"),
    "no id": (VALID.replace('id = "t01"\n', ""), "a question has no 'id'"),
    "unknown lesson": (VALID.replace('"00_a"', '"07_b"'), "question t01: lesson '07_b'"),
    "one option": (
        VALID.replace('["this", "that", "those"]', '["this"]'),
        "question t01: [en] needs at least two options",
    ),
    "answer outside options": (VALID.replace('answer = "b"', 'answer = "d"'), "question t01"),
    "two answers": (VALID.replace('answer = "b"', 'answer = ["a", "b"]'), "exactly one correct"),
    "no answer": (VALID.replace('answer = "b"\n', ""), "exactly one correct"),
    "missing language": (VALID.split("[questions.ru]")[0], "missing the [ru] table"),
    "empty explanation": (
        VALID.replace('explanation = "Урок 00, раздел 1."', 'explanation = ""'),
        "[ru] needs a non-empty string 'explanation'",
    ),
    "languages disagree": (
        VALID.replace('["этот", "тот", "те"]', '["этот", "тот"]'),
        "different numbers of options",
    ),
    "from_seed missing": (VALID.replace("from_seed = false\n", ""), "'from_seed'"),
    "repeated option": (VALID.replace('"those"', '"this"'), "the same option twice"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_file_names_the_file_the_question_and_the_problem(
    case: str, tmp_path: Path, lessons: Path
) -> None:
    text, problem = BROKEN[case]
    bank = write_bank(tmp_path, good=VALID.replace("t01", "t00"), broken=text)
    with pytest.raises(BankError, match=re.escape(problem)) as error:
        load_bank(bank, lessons)
    assert str(bank / "broken.toml") in str(error.value)


def test_duplicate_ids_across_files_are_refused(tmp_path: Path, lessons: Path) -> None:
    bank = write_bank(tmp_path, a=VALID, b=VALID)
    with pytest.raises(BankError, match=r"b\.toml: question t01: duplicate id .*a\.toml"):
        load_bank(bank, lessons)


def test_an_empty_bank_folder_is_refused(tmp_path: Path, lessons: Path) -> None:
    with pytest.raises(BankError, match="no \\*.toml question files"):
        load_bank(write_bank(tmp_path), lessons)


def test_lessons_are_found_by_number_or_folder(tmp_path: Path, lessons: Path) -> None:
    questions = load_bank(write_bank(tmp_path, a=VALID), lessons)
    assert lesson_folder(0, questions) == lesson_folder("00", questions) == "00_a"
    assert select(questions, "00_a") == questions
    with pytest.raises(ValueError, match="no quiz for lesson 3; lessons with a quiz: 00_a"):
        select(questions, 3)


# The course's own bank.

COURSE_BANK = load_bank()
SEED_IDS = [f"q{n:02d}" for n in range(1, 18)]


def test_every_bank_file_loads() -> None:
    files = sorted(BANK_DIR.glob("*.toml"))
    assert files
    assert {q.source for q in COURSE_BANK} == set(files)


@pytest.mark.parametrize("folder", sorted(p.name for p in LESSONS_DIR.iterdir() if p.is_dir()))
def test_every_lesson_has_at_least_three_questions(folder: str) -> None:
    assert len([q for q in COURSE_BANK if q.lesson == folder]) >= 3
    assert (BANK_DIR / f"{folder}.toml").exists(), "one bank file per lesson, named after it"


def test_questions_live_in_their_lesson_file() -> None:
    misplaced = [q.id for q in COURSE_BANK if q.source.stem != q.lesson]
    assert not misplaced


def test_new_questions_are_marked_and_named_after_their_lesson() -> None:
    for question in COURSE_BANK:
        if question.from_seed:
            assert question.id in SEED_IDS
        else:
            assert re.fullmatch(rf"x{question.lesson[:2]}_\d+", question.id), question.id


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_course_questions_cannot_be_passed_by_a_rule_of_thumb(lang: str) -> None:
    scores = rule_scores(course_questions(), lang)
    assert all(share <= 0.35 for share in scores.values()), scores


def test_every_lesson_has_five_course_questions_besides_the_seed() -> None:
    counts = Counter(q.lesson for q in course_questions())
    short = {f.name: counts[f.name] for f in LESSONS_DIR.iterdir() if counts[f.name] < 5}
    assert not short, f"lessons with fewer than 5 course questions: {short}"


def test_the_rules_share_ties_and_count_letters() -> None:
    assert RULES["longest option"](["aa", "bb", "c"]) == [0.5, 0.5, 0.0]
    assert RULES["most API names"](["use `jax.jit`", "a plain answer"]) == [1.0, 0.0]
