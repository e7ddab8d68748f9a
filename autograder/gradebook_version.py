"""The revision nbgrader stamps a new gradebook with, read in this process.

nbgrader asks a new ``alembic heads`` process for it every time it creates a gradebook
(``nbgrader.api.get_alembic_version``): a fresh Python importing alembic and SQLAlchemy, about
3 s of CPU. Grading a class creates one gradebook, but autograding one submission
(``autograder.grading``), releasing an assignment and every test of the suite that does either
create one each. Importing this module points nbgrader at the same revision, read once per
process from nbgrader's own migration scripts with alembic's Python API.
"""

from __future__ import annotations

import functools

import nbgrader.api


@functools.cache
def alembic_head() -> str:
    """The head revision of nbgrader's database migrations (what ``alembic heads`` prints)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = Config()
    config.set_main_option("script_location", ALEMBIC_DIR)
    (head,) = ScriptDirectory.from_config(config).get_heads()
    return head


nbgrader.api.get_alembic_version = alembic_head
