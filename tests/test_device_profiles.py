"""Device profiles: every lesson's GPU configurations run here, on the CPU, and the README says
what each lesson runs on each GPU.

A lesson chooses its sizes from ``TARGET = target_device()`` in its ``device-config`` cell
(course/device.py). ``COURSE_DEVICE_PROFILE=h200`` makes a CPU run the H200's choice, so a
claim that depends on the sizes is checked at the GPU's sizes (tools/device_table.py decides
which profiles add a configuration the CPU run does not cover).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.kernel import STRICT_MODULES
from course.device import PROFILE_VARIABLE, PROFILES, ProfileError, simulated
from tests.course import lesson_notebook

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import device_table  # noqa: E402
import gpu_check  # noqa: E402

# Outside its configuration cell a lesson may ask only whether the target is a GPU, or a
# simulated one: everything else it uses must be in CONFIG, so that two profiles with the
# same CONFIG and SKIPPED run the same lesson (which is how the suite avoids running it twice).
TARGET_USE = re.compile(r"\bTARGET\b(?!\.(?:gpu|simulated)\b)")


def _code_cells(notebook: Path) -> list[tuple[list[str], str]]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [
        (c.get("metadata", {}).get("tags", []), "".join(c["source"]))
        for c in cells
        if c["cell_type"] == "code"
    ]


@pytest.mark.parametrize("notebook", device_table.lessons(), ids=lambda p: p.parent.name)
def test_the_configuration_cell_runs_alone_for_every_profile(notebook: Path) -> None:
    for device in device_table.COLUMNS.values():
        config, skipped = device_table.configuration(notebook, device)
        assert config, f"{notebook.parent.name}: empty CONFIG for {device.kind}"
    for tags, source in _code_cells(notebook):
        if device_table.CONFIG_TAG not in tags:
            assert not TARGET_USE.search(source), (
                f"{notebook.parent.name}: a cell outside the configuration cell uses TARGET "
                f"beyond .gpu and .simulated:\n{source[:400]}"
            )


def test_the_readme_table_is_generated_from_the_lessons() -> None:
    assert device_table.main(["--check"]) == 0, "run `python tools/device_table.py`"


def test_strict_modules_are_the_suites() -> None:
    assert gpu_check.STRICT_MODULES == STRICT_MODULES


def test_an_unknown_profile_is_refused_with_the_choices() -> None:
    with pytest.raises(ProfileError, match="choose one of t4, rtx4090"):
        simulated("h300")


def test_a_profile_is_refused_on_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import jax

    from course import device

    monkeypatch.setenv(PROFILE_VARIABLE, "t4")
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    with pytest.raises(ProfileError, match="simulates a GPU on the CPU"):
        device.target_device()


def test_the_suite_runs_each_new_configuration_once() -> None:
    runs = device_table.profile_runs()
    assert len(runs) == len(set(runs))
    assert {profile for _, profile in runs} <= set(PROFILES)
    assert runs, "no profile changes any lesson's configuration"


def run_lesson_under_profile(folder: str, profile: str, out: Path) -> tuple[int, dict]:
    env = {**os.environ, PROFILE_VARIABLE: profile}
    result = subprocess.run(
        [
            sys.executable,
            ROOT / "tools" / "gpu_check.py",
            "--strict",
            "--out",
            out,
            "--budget-s",
            "600",
            "--notebook-timeout-s",
            "600",
            lesson_notebook(folder),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert (out / "report.json").exists(), result.stdout[-2000:] + result.stderr[-2000:]
    [run] = json.loads((out / "report.json").read_text())["notebooks"]
    return result.returncode, run


def failure_text(run: dict) -> str:
    failing = [c for c in run["cells"] if c["status"] in ("error", "running")]
    if not failing:
        return run.get("log_tail", "")
    cell = failing[0]
    head = f"cell {cell['index']}:\n{cell['source_head']}\n"
    return head + f"{cell['traceback']}\n{cell['stdout'][-1500:]}"


class _TestProfileRun:
    """One lesson under one device profile, on the CPU (one class each: xdist spreads them)."""

    folder: str
    profile: str

    def test_lesson_passes_at_the_profiles_sizes(self, tmp_path: Path) -> None:
        code, run = run_lesson_under_profile(self.folder, self.profile, tmp_path)
        assert code == 0 and run["result"] == "pass", (
            f"{self.folder} under {PROFILE_VARIABLE}={self.profile}: {run['result']}\n"
            + failure_text(run)
        )


for _folder, _profile in device_table.profile_runs():
    _name = f"TestProfileRun_{_folder}_{_profile.replace('-', '_')}"
    globals()[_name] = type(_name, (_TestProfileRun,), {"folder": _folder, "profile": _profile})
