"""A lesson's quiz as a page of the book: questions, options, and the answer behind a toggle.

The bank's texts are plain text (the JupyterLab widget escapes them too), so the questions are
written as HTML with every text escaped; only `backticks` become code. Letters are the bank's
order, the one ``python -m quiz grade`` answer sheets use; the widget shuffles the options.
"""

from __future__ import annotations

import html
import re

from quiz.bank import LANGUAGES, Question

LANGUAGE_NAMES = {"en": "English", "ru": "Русский"}
ANSWER_LABEL = {"en": "Answer", "ru": "Ответ"}
CODE = re.compile(r"`([^`]+)`")


def _text(value: str) -> str:
    """Escaped text with `code` spans, on one line (an HTML block in Markdown ends at a blank)."""
    escaped = html.escape(value)
    return CODE.sub(r"<code>\1</code>", escaped).replace("\n", "<br>")


def question_html(question: Question, number: int, lang: str) -> str:
    text = question.in_language(lang)
    options = "".join(
        f'<li data-letter="{letter}">{_text(option)}</li>'
        for letter, option in zip(question.letters, text.options, strict=True)
    )
    answer = text.options[question.letters.index(question.answer)]
    seed = " (seed question)" if question.from_seed else ""
    return "\n".join(
        [
            f'<section class="quiz-question" id="{question.id}-{lang}">',
            f'<p class="quiz-text"><span class="quiz-number">{number}.</span> {_text(text.text)}'
            f' <span class="quiz-id">{question.id}{seed}</span></p>',
            f'<ol class="quiz-options" type="a">{options}</ol>',
            f'<details class="quiz-answer"><summary>{ANSWER_LABEL[lang]}</summary>',
            f'<p class="quiz-key"><b>{question.answer}.</b> {_text(answer)}</p>',
            f'<p class="quiz-explanation">{_text(text.explanation)}</p>',
            "</details>",
            "</section>",
        ]
    )


def quiz_page(title: str, lesson: str, questions: list[Question]) -> str:
    """The MyST Markdown of the quiz page of ``lesson`` (titled after the lesson)."""
    number = lesson.split("_", 1)[0]
    prefix, dot, topic = title.partition(" · ")
    heading = f"{prefix} · Quiz: {topic}" if dot else f"Quiz: {title}"
    lines = [
        f"# {heading}",
        "",
        f"The {len(questions)} questions of [the lesson](lesson.ipynb), in English and in "
        "Russian. Each answer and its explanation is behind a toggle. In JupyterLab the same "
        "questions are the lesson's last cell, a widget that checks your pick; "
        f"`python -m quiz --lesson {int(number) if number.isdigit() else number}` asks them in "
        "a terminal. Letters follow the bank's order, which answer sheets for "
        "`python -m quiz grade` use; the widget and the terminal shuffle the options.",
        "",
    ]
    for lang in LANGUAGES:
        lines += [f"## {LANGUAGE_NAMES.get(lang, lang)}", ""]
        for position, question in enumerate(questions, start=1):
            lines += [question_html(question, position, lang), ""]
    return "\n".join(lines)
