"""Correct answers must pass on a GPU, where float32 matmuls run in TF32 by default.

XLA:CPU ignores ``jax.default_matmul_precision``; the suite's kernels emulate TF32 when
``COURSE_EMULATE_TF32=1`` (autograder/kernel.py). These tests check the emulation against
the figure measured on an H200; tests/test_autograde.py grades every solution under it and
tests/test_exercise_variants.py runs every other correct answer under it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autograder.kernel import EMULATE_TF32_VARIABLE, TF32_SCRIPT, TF32_STARTUP_FILE
from autograder.sandbox import Limits, make_grading_ipython_dir

# The relative error of a 512×512 float32 matmul of standard normal values, against float64,
# as a fraction of the largest entry: 2.96e-4 on an H200 (default precision, jax 0.11.2).
MATMUL_PROBE = """\
import jax, jax.numpy as jnp, numpy as np
ka, kb = jax.random.split(jax.random.key(0))
a, b = jax.random.normal(ka, (512, 512)), jax.random.normal(kb, (512, 512))
exact = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
def error(**kw):
    return float(np.abs(np.asarray(jnp.matmul(a, b, **kw)) - exact).max() / np.abs(exact).max())
with jax.default_matmul_precision("highest"):
    highest_by_context = error()
print(error(), error(precision="highest"), highest_by_context)
"""


def _matmul_errors(emulate: bool) -> list[float]:
    env = {**os.environ, EMULATE_TF32_VARIABLE: "1" if emulate else "0"}
    result = subprocess.run(
        [sys.executable, "-c", TF32_SCRIPT + MATMUL_PROBE],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(x) for x in result.stdout.split()]


def test_emulation_matches_a_gpus_tf32_error() -> None:
    default, highest, highest_by_context = _matmul_errors(emulate=True)
    assert 1.5e-4 < default < 6e-4, default  # the H200 measured 2.96e-4
    assert highest < 1e-5 and highest_by_context < 1e-5, (highest, highest_by_context)


def test_without_the_switch_the_cpu_keeps_float32() -> None:
    assert max(_matmul_errors(emulate=False)) < 1e-5


def test_grading_honours_the_switch_with_or_without_strict(tmp_path: Path) -> None:
    # an instructor who sets COURSE_EMULATE_TF32=1 grades in TF32, whatever --strict says
    limits = Limits(cell_timeout_s=60, notebook_timeout_s=600, memory_mb=1024, output_bytes=2**20)
    for strict in (False, True):
        ipython = make_grading_ipython_dir(tmp_path / f"strict-{strict}", limits, strict)
        startup = ipython / "profile_default" / "startup" / TF32_STARTUP_FILE
        assert startup.read_text(encoding="utf-8") == TF32_SCRIPT, strict
