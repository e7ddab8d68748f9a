"""The kernel environment that the course's checks run lessons and exercises in.

Lessons must use today's API: inside these kernels a DeprecationWarning raised from
jax, jaxlib, flax, optax or orbax code, or triggered directly by notebook code, is an
error. The filter is installed by an IPython startup file in a throw-away IPYTHONDIR,
so it reaches every kernel that nbval, nbclient or nbgrader starts.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STRICT_MODULES = ("__main__", "jax", "jaxlib", "flax", "optax", "orbax")

STARTUP_SCRIPT = f"""\
import warnings

warnings.filterwarnings(
    "error",
    category=DeprecationWarning,
    module=r"({"|".join(STRICT_MODULES)})(\\.|$)",
)
"""


def make_strict_ipython_dir(directory: Path) -> Path:
    """Create an IPYTHONDIR under ``directory`` whose startup file installs the strict filter."""
    startup = directory / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00_strict_deprecations.py").write_text(STARTUP_SCRIPT, encoding="utf-8")
    return directory


@contextmanager
def strict_kernels() -> Iterator[Path]:
    """Within the block, every kernel started from this process uses the strict filter."""
    previous = os.environ.get("IPYTHONDIR")
    with tempfile.TemporaryDirectory(prefix="ipython-") as scratch:
        os.environ["IPYTHONDIR"] = str(make_strict_ipython_dir(Path(scratch)))
        try:
            yield Path(scratch)
        finally:
            if previous is None:
                os.environ.pop("IPYTHONDIR", None)
            else:
                os.environ["IPYTHONDIR"] = previous
