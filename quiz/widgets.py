"""The quiz in JupyterLab: one card per question, a Check button, a running score."""

from __future__ import annotations

import html

import ipywidgets as widgets

from quiz.session import Score, Shown, feedback

LABELS = {
    "en": {"check": "Check", "pick": "Choose an option first.", "right": "Right.",
           "wrong": "Not quite. The answer is: {answer}",
           "score": "Score: {correct} of {total} right ({answered} checked)"},
    "ru": {"check": "Проверить", "pick": "Сначала выберите вариант.", "right": "Верно.",
           "wrong": "Неверно. Правильный ответ: {answer}",
           "score": "Результат: {correct} из {total} ({answered} проверено)"},
}  # fmt: skip


class QuestionCard(widgets.VBox):
    """A question, its shuffled options, a Check button and the verdict."""

    def __init__(self, number: int, item: Shown, lang: str, score: Score, on_check) -> None:
        self.item, self.lang, self.score, self.on_check = item, lang, score, on_check
        self.words = LABELS[lang]
        text = item.question.in_language(lang).text
        title = widgets.HTML(f"<b>{number}.</b> {html.escape(text)}")
        self.choice = widgets.RadioButtons(
            options=[
                (option, letter)
                for option, letter in zip(item.options(lang), item.order, strict=True)
            ],
            value=None,
            layout=widgets.Layout(width="auto"),
        )
        self.check = widgets.Button(description=self.words["check"], button_style="primary")
        self.verdict = widgets.HTML()
        self.check.on_click(self._check)
        super().__init__([title, self.choice, self.check, self.verdict])
        self.add_class("quiz-question")
        self.check.add_class("quiz-check")
        self.verdict.add_class("quiz-verdict")

    def _check(self, _button: widgets.Button | None = None) -> None:
        if self.choice.value is None:
            self.verdict.value = f"<i>{self.words['pick']}</i>"
            return
        result = feedback(self.item.question, self.choice.value, self.lang)
        self.score.record(result)
        color = "green" if result.correct else "firebrick"
        verdict = self.words["right"] if result.correct else self.words["wrong"]
        verdict = html.escape(verdict.format(answer=result.answer_text))
        self.verdict.value = (
            f'<div style="color:{color}"><b>{verdict}</b></div>'
            f"<div>{html.escape(result.explanation)}</div>"
        )
        self.on_check()


class QuizWidget(widgets.VBox):
    def __init__(self, shown: list[Shown], lang: str, title: str) -> None:
        self.score = Score(total=len(shown))
        self.words = LABELS[lang]
        self.tally = widgets.HTML()
        self.tally.add_class("quiz-score")
        self.cards = [
            QuestionCard(number, item, lang, self.score, self._update)
            for number, item in enumerate(shown, start=1)
        ]
        self._update()
        super().__init__([widgets.HTML(f"<h3>{html.escape(title)}</h3>"), *self.cards, self.tally])
        self.add_class("quiz")

    def _update(self) -> None:
        self.tally.value = "<b>{}</b>".format(
            self.words["score"].format(
                correct=self.score.correct, total=self.score.total, answered=self.score.answered
            )
        )
