"""The interactive quiz in a terminal: one question at a time, feedback after each."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from quiz.session import Score, Shown, feedback

MESSAGES = {
    "en": {
        "title": "Quiz: {n} questions. Answer with the option number; Ctrl-D or Ctrl-C stops.",
        "prompt": "Your answer (1-{k}): ",
        "invalid": "Please type a number from 1 to {k}.",
        "right": "Right.",
        "wrong": "Not quite. The answer is: {answer}",
        "done": "Score: {score}",
        "stopped": "Quiz stopped. Score so far: {score}",
    },
    "ru": {
        "title": "Тест: {n} вопросов. Отвечайте номером варианта; Ctrl-D или Ctrl-C завершает.",
        "prompt": "Ваш ответ (1-{k}): ",
        "invalid": "Введите число от 1 до {k}.",
        "right": "Верно.",
        "wrong": "Неверно. Правильный ответ: {answer}",
        "done": "Результат: {score}",
        "stopped": "Тест прерван. Результат на этот момент: {score}",
    },
}


def _wrap(text: str, indent: str = "") -> str:
    return textwrap.fill(text, width=88, initial_indent=indent, subsequent_indent=indent)


def run(
    shown: list[Shown],
    lang: str,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> Score:
    """Ask every question; EOFError / KeyboardInterrupt from ``ask`` end the quiz early."""
    words = MESSAGES[lang]
    score = Score(total=len(shown))
    say(words["title"].format(n=len(shown)))
    try:
        for number, item in enumerate(shown, start=1):
            text = item.question.in_language(lang)
            say("")
            say(_wrap(f"{number}. [{item.question.id}] {text.text}"))
            for position, option in enumerate(item.options(lang), start=1):
                say(_wrap(f"{position}) {option}", indent="   "))
            position = _read_choice(len(item.order), words, ask, say)
            result = feedback(item.question, item.order[position - 1], lang)
            score.record(result)
            verdict = words["right"] if result.correct else words["wrong"]
            say(verdict.format(answer=result.answer_text))
            say(_wrap(result.explanation, indent="   "))
    except (EOFError, KeyboardInterrupt):
        say("")
        say(words["stopped"].format(score=score.summary()))
        raise
    say("")
    say(words["done"].format(score=score.summary()))
    return score


def _read_choice(
    count: int, words: dict[str, str], ask: Callable[[str], str], say: Callable[[str], None]
) -> int:
    while True:
        reply = ask(words["prompt"].format(k=count)).strip()
        if reply.isdigit() and 1 <= int(reply) <= count:
            return int(reply)
        say(words["invalid"].format(k=count))
