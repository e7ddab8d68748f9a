"""The JupyterLab quiz: choose, check, see the verdict and the running score."""

from __future__ import annotations

import ipywidgets as widgets

import quiz
from quiz.bank import load_bank, select

LESSON = select(load_bank(), 0)


def test_choosing_and_checking_updates_verdict_and_score() -> None:
    widget = quiz.show(lesson=0, lang="en", seed=11)
    assert isinstance(widget, widgets.VBox) and len(widget.cards) == len(LESSON)
    first, second = widget.cards[0], widget.cards[1]
    question = first.item.question

    first.check.click()
    assert "Choose an option first." in first.verdict.value
    assert "0 of" in widget.tally.value

    first.choice.value = question.answer
    first.check.click()
    assert "Right." in first.verdict.value
    assert question.in_language("en").explanation.split("”")[0] in first.verdict.value

    wrong = next(x for x in second.item.question.letters if x != second.item.question.answer)
    second.choice.value = wrong
    second.check.click()
    assert "Not quite. The answer is:" in second.verdict.value
    assert widget.tally.value == f"<b>Score: 1 of {len(LESSON)} right (2 checked)</b>"


def test_options_are_shown_shuffled_and_in_the_chosen_language() -> None:
    widget = quiz.show(lesson="00_gpu_detection", lang="ru", seed=3)
    card = widget.cards[0]
    labels = [label for label, _ in card.choice.options]
    assert labels == card.item.options("ru")
    assert sorted(labels) == sorted(card.item.question.in_language("ru").options)
    assert card.check.description == "Проверить"


def test_the_same_seed_shows_the_same_order() -> None:
    orders = [[c.item.order for c in quiz.show(0, seed=4).cards] for _ in range(2)]
    assert orders[0] == orders[1]
