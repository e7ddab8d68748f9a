"""The question bank: TOML files under quiz/bank/, loaded and validated."""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

BANK_DIR = Path(__file__).resolve().parent / "bank"
LESSONS_DIR = Path(__file__).resolve().parent.parent / "lessons"
LANGUAGES = ("en", "ru")
LETTERS = string.ascii_lowercase


class BankError(ValueError):
    """A bank file is broken; the message names the file, the question and the problem."""


@dataclass(frozen=True)
class Text:
    """A question in one language."""

    text: str
    options: tuple[str, ...]
    explanation: str


@dataclass(frozen=True)
class Question:
    id: str
    lesson: str
    from_seed: bool
    answer: str  # the letter of the correct option, in bank order
    texts: dict[str, Text]
    source: Path

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(LETTERS[: len(self.texts[LANGUAGES[0]].options)])

    def in_language(self, lang: str) -> Text:
        if lang not in self.texts:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        return self.texts[lang]


def _fail(path: Path, qid: str | None, problem: str) -> BankError:
    where = f"{path}: question {qid}" if qid else str(path)
    return BankError(f"{where}: {problem}")


def _text(path: Path, qid: str, lang: str, raw: object) -> Text:
    if not isinstance(raw, dict):
        raise _fail(path, qid, f"missing the [{lang}] table (text, options, explanation)")
    for key in ("text", "explanation"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise _fail(path, qid, f"[{lang}] needs a non-empty string {key!r}")
    options = raw.get("options")
    if not isinstance(options, list) or not all(isinstance(o, str) and o.strip() for o in options):
        raise _fail(path, qid, f"[{lang}] 'options' must be a list of non-empty strings")
    if len(options) < 2:
        raise _fail(path, qid, f"[{lang}] needs at least two options, has {len(options)}")
    if len(set(options)) != len(options):
        raise _fail(path, qid, f"[{lang}] has the same option twice")
    return Text(raw["text"].strip(), tuple(o.strip() for o in options), raw["explanation"].strip())


def _question(path: Path, raw: object, lessons_dir: Path) -> Question:
    if not isinstance(raw, dict):
        raise _fail(path, None, "every [[questions]] entry must be a table")
    qid = raw.get("id")
    if not isinstance(qid, str) or not qid:
        raise _fail(path, None, "a question has no 'id'")
    lesson = raw.get("lesson")
    if not isinstance(lesson, str) or not (lessons_dir / lesson).is_dir():
        raise _fail(path, qid, f"lesson {lesson!r} is not a folder under {lessons_dir}")
    if not isinstance(raw.get("from_seed"), bool):
        raise _fail(path, qid, "'from_seed' must be true or false")
    texts = {lang: _text(path, qid, lang, raw.get(lang)) for lang in LANGUAGES}
    counts = {lang: len(t.options) for lang, t in texts.items()}
    if len(set(counts.values())) != 1:
        raise _fail(path, qid, f"the languages have different numbers of options: {counts}")
    letters = LETTERS[: counts[LANGUAGES[0]]]
    answer = raw.get("answer")
    if not isinstance(answer, str) or len(answer) != 1 or answer not in letters:
        raise _fail(
            path, qid, f"'answer' must be exactly one correct option, a letter in {letters!r}"
        )
    return Question(qid, lesson, raw["from_seed"], answer, texts, path)


def load_file(path: Path, lessons_dir: Path = LESSONS_DIR) -> list[Question]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise _fail(path, None, f"cannot read it: {error}") from error
    entries = data.get("questions")
    if not isinstance(entries, list) or not entries:
        raise _fail(path, None, "no [[questions]] entries")
    return [_question(path, raw, lessons_dir) for raw in entries]


def load_bank(bank_dir: Path = BANK_DIR, lessons_dir: Path = LESSONS_DIR) -> list[Question]:
    """Every question of every ``*.toml`` file in ``bank_dir``, sorted by lesson then id."""
    files = sorted(bank_dir.glob("*.toml"))
    if not files:
        raise BankError(f"{bank_dir}: no *.toml question files")
    questions: dict[str, Question] = {}
    for path in files:
        for question in load_file(path, lessons_dir):
            if question.id in questions:
                first = questions[question.id].source
                raise _fail(path, question.id, f"duplicate id (first defined in {first})")
            questions[question.id] = question
    return sorted(questions.values(), key=lambda q: (q.lesson, q.id))


def lesson_folder(lesson: int | str, questions: list[Question]) -> str:
    """Resolve ``1``, ``"01"`` or ``"01_jit_compilation"`` to a lesson folder in the bank."""
    folders = sorted({q.lesson for q in questions})
    wanted = f"{lesson:02d}" if isinstance(lesson, int) else str(lesson).strip()
    if wanted.isdigit():
        wanted = f"{int(wanted):02d}"
    matches = [f for f in folders if f == wanted or f.split("_", 1)[0] == wanted]
    if len(matches) != 1:
        raise ValueError(
            f"no quiz for lesson {lesson!r}; lessons with a quiz: {', '.join(folders)}"
        )
    return matches[0]


def select(questions: list[Question], lesson: int | str | None = None) -> list[Question]:
    """All questions, or one lesson's."""
    if lesson is None:
        return list(questions)
    folder = lesson_folder(lesson, questions)
    return [q for q in questions if q.lesson == folder]
