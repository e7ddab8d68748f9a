"""Instructor tooling for the course, built on nbgrader.

Run ``python -m autograder --help`` for the commands.
"""

import os
import sys
from pathlib import Path

# nbgrader runs `alembic` (and Jupyter runs kernels) by name from PATH. Put this
# interpreter's own scripts first, so `.venv/bin/python -m autograder` works
# without activating the virtual environment.
_scripts = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _scripts:
    os.environ["PATH"] = _scripts + os.pathsep + os.environ.get("PATH", "")
