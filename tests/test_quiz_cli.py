"""``python -m quiz``: the terminal quiz through stdin and a pseudo-terminal; ``grade``."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from quiz.bank import load_bank, select
from quiz.session import shuffle

LESSON = select(load_bank(), 0)
SEED = 5


def quiz(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quiz", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def positions(correct: bool) -> list[str]:
    """What to type to answer every question of lesson 00 right (or wrong) with seed SEED."""
    typed = []
    for shown in shuffle(LESSON, SEED):
        answer = shown.order.index(shown.question.answer)
        typed.append(str(answer + 1 if correct else (answer + 1) % len(shown.order) + 1))
    return typed


def test_a_whole_quiz_answered_right() -> None:
    result = quiz("--lesson", "0", "--seed", str(SEED), stdin="\n".join(positions(True)) + "\n")
    assert result.returncode == 0, result.stderr
    assert f"Score: {len(LESSON)}/{len(LESSON)}" in result.stdout
    assert result.stdout.count("Right.") == len(LESSON)


def test_wrong_answers_show_the_right_one_and_the_explanation_in_russian() -> None:
    typed = "\n".join(positions(False)) + "\n"
    result = quiz("--lesson", "00", "--lang", "ru", "--seed", str(SEED), stdin=typed)
    assert result.returncode == 0
    assert f"Результат: 0/{len(LESSON)}" in result.stdout
    first = LESSON[0].in_language("ru")
    assert first.options[LESSON[0].letters.index(LESSON[0].answer)] in result.stdout
    assert first.explanation.split()[0] in result.stdout


def test_bad_input_is_asked_again() -> None:
    typed = ["", "x", "0", "9", *positions(True)]
    result = quiz("--lesson", "0", "--seed", str(SEED), stdin="\n".join(typed) + "\n")
    assert result.returncode == 0
    assert result.stdout.count("Please type a number from 1 to 4.") == 4
    assert f"Score: {len(LESSON)}/{len(LESSON)}" in result.stdout


def test_end_of_input_stops_with_the_partial_score() -> None:
    result = quiz("--lesson", "0", "--seed", str(SEED), stdin=positions(True)[0] + "\n")
    assert result.returncode == 0
    assert f"Quiz stopped. Score so far: 1/1 ({len(LESSON) - 1} not answered)" in result.stdout
    assert "Traceback" not in result.stderr


def test_an_unknown_lesson_is_a_clear_error() -> None:
    result = quiz("--lesson", "42")
    assert result.returncode == 2
    assert "no quiz for lesson '42'" in result.stderr


class Terminal:
    """The leader side of a pseudo-terminal: ``expect`` waits for text after the last match."""

    def __init__(self, fd: int) -> None:
        self.fd, self.output, self.position = fd, "", 0
        os.set_blocking(fd, False)

    def expect(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while (found := self.output.find(text, self.position)) < 0:
            assert time.monotonic() < deadline, f"never saw {text!r} in {self.output!r}"
            try:
                self.output += os.read(self.fd, 4096).decode(errors="replace")
            except BlockingIOError:
                time.sleep(0.05)
        self.position = found + len(text)

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())


def test_ctrl_c_in_a_real_terminal_ends_cleanly() -> None:
    """Type one answer, then Ctrl-C: the terminal turns it into SIGINT for the quiz."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "quiz", "--lesson", "0", "--seed", str(SEED)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    )
    os.close(follower)
    terminal = Terminal(leader)
    try:
        terminal.expect("Your answer")
        terminal.type(positions(True)[0] + "\n")
        terminal.expect("Right.")
        terminal.expect("Your answer")
        terminal.type("\x03")
        terminal.expect(f"Score so far: 1/1 ({len(LESSON) - 1} not answered)")
        assert process.wait(timeout=30) == 128 + signal.SIGINT
    finally:
        process.kill()
        os.close(leader)
    assert "Traceback" not in terminal.output


@pytest.fixture
def sheet(tmp_path: Path):
    def write(content: str) -> Path:
        path = tmp_path / "answers.json"
        path.write_text(content, encoding="utf-8")
        return path

    return write


def test_grade_prints_the_score_and_explains_the_wrong_answers(sheet) -> None:
    key = {q.id: q.answer for q in LESSON}
    wrong = next(letter for letter in LESSON[0].letters if letter != LESSON[0].answer)
    result = quiz("grade", str(sheet(json.dumps({**key, LESSON[0].id: wrong}))))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{len(LESSON) - 1}/{len(LESSON)}"
    assert lines[1].startswith(f"{LESSON[0].id}: answered {wrong}; the answer is: ")
    assert LESSON[0].in_language("en").explanation in result.stdout
    ru = quiz("grade", str(sheet(json.dumps({LESSON[0].id: wrong}))), "--lang", "ru")
    assert LESSON[0].in_language("ru").explanation in ru.stdout


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ('["q01"]', "expected an object"),
        ('{"q99": "a"}', "unknown question id 'q99'"),
        ('{"q01": "f"}', "q01: 'f' is not an option letter"),
        ("{}", "answers no question"),
    ],
)
def test_a_malformed_sheet_fails_and_scores_nothing(sheet, content: str, problem: str) -> None:
    path = sheet(content)
    result = quiz("grade", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert str(path) in result.stderr and problem in result.stderr
    assert path.read_text(encoding="utf-8") == content


def test_a_missing_sheet_is_named(tmp_path: Path) -> None:
    result = quiz("grade", str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert "nope.json: cannot read it: No such file or directory" in result.stderr
