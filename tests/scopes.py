"""The units of work the suite hands its xdist workers (``--dist loadscope``, conftest.py).

A scope is a test class (``file::Class``) or a module's functions (``file``), as in xdist, with
one change: an assignment's autograde class joins its variants class. Both compile the same
set-up and test programs, and on one worker the second finds them in that worker's compilation
cache (conftest.py). Measured on 2026-12-04 (2 workers): the autograde and variant tests of
04, 07 and 12 took 335 worker seconds as six scopes and 291 as three.
"""

from __future__ import annotations

import re

AUTOGRADE_CLASS = re.compile(r"tests/test_autograde\.py::TestAutograde_(?P<assignment>\w+)")


def scheduling_scope(scope: str) -> str:
    """The scope xdist would use, with ``TestAutograde_X`` moved into ``TestVariants_X``'s."""
    match = AUTOGRADE_CLASS.fullmatch(scope)
    if match is None:
        return scope
    return f"tests/test_exercise_variants.py::TestVariants_{match['assignment']}"
