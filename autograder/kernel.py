"""The kernel environment that the course's checks run lessons and exercises in.

Lessons must use today's API: inside these kernels a DeprecationWarning raised from
jax, jaxlib, flax, optax or orbax code, or triggered directly by notebook code, is an
error. The filter is installed by an IPython startup file in a throw-away IPYTHONDIR,
so it reaches every kernel that nbclient or nbgrader starts.

A second startup file makes a kernel compute float32 matmuls the way an Ampere or Hopper
GPU does by default (TF32), when the kernel's environment has ``COURSE_EMULATE_TF32=1``:
XLA:CPU ignores ``jax.default_matmul_precision``, so without it a CPU cannot tell whether
a tolerance holds on a GPU.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STRICT_MODULES = ("__main__", "jax", "jaxlib", "flax", "optax", "orbax")

# CPython 3.12+ warns when a C extension creates a type whose name has no module part, and the
# warning is raised from the Python line that made the extension create it: jaxlib's profiler
# types do so when a notebook first reads a trace's events (jax.profiler.ProfileData). It is
# about jaxlib's build, not an API a lesson could stop using; as an error it aborts the process
# (nanobind's type construction fails).
NOT_API_WARNINGS = r"builtin type \S+ has no __module__ attribute"

STARTUP_SCRIPT = f"""\
__import__("warnings").filterwarnings(  # no name left in the learner's namespace
    "error",
    category=DeprecationWarning,
    module=r"({"|".join(STRICT_MODULES)})(\\.|$)",
)
__import__("warnings").filterwarnings(
    "default", message=r"{NOT_API_WARNINGS}", category=DeprecationWarning
)
"""


EMULATE_TF32_VARIABLE = "COURSE_EMULATE_TF32"

# TF32 keeps float32's 8 exponent bits and 10 of its 23 mantissa bits; a GPU rounds both
# matmul operands to it and accumulates in float32. On the CPU the same is done by
# rounding the operands of every float32 dot whose precision is not HIGHEST (GPUs also
# run "high" as TF32) before XLA:CPU's own dot. Measured: a 512×512 matmul of normal
# values differs from float64 by 3.0e-4 of its largest entry here and by 3.0e-4 on an H200.
TF32_SCRIPT = f"""\
def _course_emulate_tf32():
    # Everything lives in this function, so no name of the learner's namespace is taken.
    import os

    if os.environ.get("{EMULATE_TF32_VARIABLE}") != "1":
        return
    import numpy as np
    from jax._src.interpreters import mlir
    from jax._src.lax import lax
    from jax._src.lib.mlir.dialects import hlo

    cpu_dot = mlir._platform_specific_lowerings["cpu"][lax.dot_general_p].rule

    def keeps_float32(precision):
        values = precision if isinstance(precision, tuple) else (precision,)
        return precision is not None and all(v == lax.Precision.HIGHEST for v in values)

    def to_tf32(aval, operand):
        if aval.dtype != np.float32:
            return operand
        return hlo.reduce_precision(operand, mlir.i32_attr(8), mlir.i32_attr(10))

    def tf32_dot(ctx, lhs, rhs, *, precision, **params):
        if not keeps_float32(precision):
            lhs, rhs = to_tf32(ctx.avals_in[0], lhs), to_tf32(ctx.avals_in[1], rhs)
        return cpu_dot(ctx, lhs, rhs, precision=precision, **params)

    mlir.register_lowering(lax.dot_general_p, tf32_dot, platform="cpu")


_course_emulate_tf32()
del _course_emulate_tf32
"""


TF32_STARTUP_FILE = "01_emulate_tf32.py"


def install_tf32_switch(directory: Path) -> Path:
    """Put the TF32 switch in IPYTHONDIR ``directory``: a no-op unless COURSE_EMULATE_TF32=1."""
    startup = directory / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / TF32_STARTUP_FILE).write_text(TF32_SCRIPT, encoding="utf-8")
    return directory


def make_strict_ipython_dir(directory: Path) -> Path:
    """Create an IPYTHONDIR under ``directory`` with the strict filter and the TF32 switch."""
    install_tf32_switch(directory)
    startup = directory / "profile_default" / "startup"
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
