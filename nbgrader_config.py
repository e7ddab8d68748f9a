# nbgrader reads this file when it runs from the repository root (the `nbgrader`
# command line, and JupyterLab's Formgrader started by `make lab`).
# The settings themselves live in autograder/config.py.
from pathlib import Path

from autograder.config import apply_course_config

course_root = Path(__file__).resolve().parent
apply_course_config(get_config(), course_root, solutions_dir=course_root / "solutions")  # noqa: F821
