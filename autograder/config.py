"""The course's nbgrader settings: one place for the course id, folders and limits."""

from __future__ import annotations

from pathlib import Path

from nbgrader.converters import Autograde
from nbgrader.preprocessors import OverwriteCells
from traitlets.config import Config

from autograder.kernel_sockets import SocketFileKernelManager
from autograder.locked_cells import OverwriteAllCells

COURSE_ID = "jax-on-nvidia-gpus"
REPO_ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR = REPO_ROOT / "solutions"
LESSONS_DIR = REPO_ROOT / "lessons"
EXERCISES_NOTEBOOK = "exercises.ipynb"
LESSON_NOTEBOOK = "lesson.ipynb"

# nbgrader's default of 30 s per cell is shorter than a first JAX compile on a
# busy 2-core machine; a cell that needs longer than this is a bug in the task.
CELL_TIMEOUT_S = 300

# After a shutdown request a kernel still runs the notebook's exit hooks (the exercises delete
# their temporary folders, checkpoints and all, with atexit). jupyter_client's default of 5 s
# sends SIGTERM after 2.5 s, which cut that off on a busy machine and left the folders in /tmp.
KERNEL_EXIT_S = 30


def kernel_client_config() -> Config:
    """nbclient settings for the course's kernels: Unix sockets, time to run their exit hooks."""
    return Config(
        NotebookClient={"kernel_manager_class": SocketFileKernelManager},
        KernelManager={"shutdown_wait_time": KERNEL_EXIT_S},
    )


# Limits for grading one untrusted submission (`python -m autograder grade`); each
# can be changed on the command line.
NOTEBOOK_TIMEOUT_S = 1800  # wall clock for the whole submission, feedback included
MEMORY_LIMIT_MB = 4096  # per process (the grader and the student's kernel), RLIMIT_DATA
OUTPUT_LIMIT_BYTES = 1_000_000  # per stream (stdout, stderr) of the student's kernel


def apply_course_config(c: Config, root: Path, solutions_dir: Path = SOLUTIONS_DIR) -> Config:
    """Fill ``c`` with the course's nbgrader settings for a course folder at ``root``.

    ``solutions/`` is nbgrader's source folder. nbgrader's own release folder stays
    ``release/`` (git-ignored): its generate step empties that folder first, so it
    must never point at ``lessons/``, which also holds the lesson notebooks.
    """
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.source_directory = str(solutions_dir)
    c.CourseDirectory.release_directory = "release"
    c.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
    c.Execute.timeout = CELL_TIMEOUT_S
    # a deleted test, setup or example cell is put back and runs anyway (locked_cells.py)
    c.OverwriteCells.add_missing_cells = True
    steps = Autograde.class_traits()["sanitize_preprocessors"].default()
    c.Autograde.sanitize_preprocessors = [
        OverwriteAllCells if step is OverwriteCells else step for step in steps
    ]
    return c


def course_config(root: Path, solutions_dir: Path = SOLUTIONS_DIR) -> Config:
    """A fresh nbgrader config for a course folder at ``root``."""
    return apply_course_config(Config(), root, solutions_dir)


def assignments() -> list[str]:
    """Assignment ids: the ``solutions/`` subfolders that hold an exercises notebook."""
    return sorted(path.parent.name for path in SOLUTIONS_DIR.glob(f"*/{EXERCISES_NOTEBOOK}"))
