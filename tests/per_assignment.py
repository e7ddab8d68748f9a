"""One test class per assignment, so that pytest-xdist can spread the heavy tests.

The suite runs with ``--dist loadscope``: each test class is a unit of work (the lessons'
executions in tests/test_lessons.py are one class per lesson the same way). A module that
defines a base class with an ``assignment`` attribute calls ``classes_per_assignment`` to get
``TestX_00_gpu_detection``-style subclasses, one per assignment, that pytest collects.
"""

from __future__ import annotations

from tests.course import ASSIGNMENTS


def classes_per_assignment(base: type, namespace: dict[str, object]) -> None:
    for assignment in ASSIGNMENTS:
        name = f"{base.__name__.removeprefix('_')}_{assignment}"
        namespace[name] = type(name, (base,), {"assignment": assignment})
