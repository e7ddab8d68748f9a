"""The suite's kernels reject deprecated JAX-stack API: a lesson that uses it fails under nbval."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

SETUP = "import jax.numpy as jnp\nfrom flax import nnx\n\nweight = nnx.Param(jnp.ones(2))"
CASES = {
    "deprecated": ("print(weight.value)", 1),  # flax 0.12 deprecates `.value`
    "current": ("print(weight[...])", 0),
}


@pytest.mark.parametrize("case", CASES)
def test_nbval_run_fails_only_on_deprecated_api(case: str, tmp_path: Path) -> None:
    source, expected_status = CASES[case]
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(source)]
    )
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path = tmp_path / "lesson.ipynb"
    nbformat.write(notebook, path)
    # A separate pytest run in tmp_path: it inherits this run's IPYTHONDIR (conftest.py).
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-q", path],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == expected_status, result.stdout[-3000:]
    if expected_status:
        assert "DeprecationWarning" in result.stdout
