"""``python -m quiz``: take the quiz in a terminal, or grade an answer sheet."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from quiz import terminal
from quiz.bank import LANGUAGES, BankError, load_bank, select
from quiz.session import shuffle
from quiz.sheet import SheetError, grade, read_sheet

INTERRUPTED = 130  # the shell's convention for Ctrl-C


def _take(args: argparse.Namespace) -> int:
    questions = select(load_bank(), args.lesson)
    seed = random.randrange(2**32) if args.seed is None else args.seed
    try:
        terminal.run(shuffle(questions, seed), args.lang)
    except EOFError:
        return 0
    except KeyboardInterrupt:
        return INTERRUPTED
    return 0


def _grade(args: argparse.Namespace) -> int:
    questions = load_bank()
    answers = read_sheet(args.sheet, questions)
    result = grade(answers, questions, args.lang)
    print(f"{result.score}/{len(result.results)}")
    for wrong in result.wrong:
        print(f"{wrong.question_id}: answered {wrong.chosen}; the answer is: {wrong.answer_text}")
        print(f"    {wrong.explanation}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m quiz", description=__doc__)
    parser.add_argument("--lesson", help="one lesson's questions: 1, 01 or 01_jit_compilation")
    parser.add_argument("--lang", choices=LANGUAGES, default="en")
    parser.add_argument("--seed", type=int, help="fixes the order of the options")
    parser.set_defaults(run=_take)
    commands = parser.add_subparsers(title="commands")
    grader = commands.add_parser("grade", help='score an answer sheet {"q01": "b", ...}')
    grader.add_argument("sheet", type=Path, help="JSON file; letters are in bank order")
    grader.add_argument("--lang", choices=LANGUAGES, default="en")
    grader.set_defaults(run=_grade)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except (BankError, SheetError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
