"""Device profiles: every lesson's GPU configurations run here, on the CPU, and the README says
what each lesson runs on each GPU.

A lesson chooses its sizes from ``TARGET = target_device()`` in its ``device-config`` cell
(course/device.py). ``COURSE_DEVICE_PROFILE=h200`` makes a CPU run the H200's choice, so a
claim that depends on the sizes is checked at the GPU's sizes (tools/device_table.py decides
which profiles add a configuration the CPU run does not cover).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from autograder.kernel import NOT_API_WARNINGS, STRICT_MODULES
from course.book import lessons
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
    assert gpu_check.NOT_API_WARNINGS == NOT_API_WARNINGS


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


class _TestProfileRun:
    """One lesson under one device profile, on the CPU (one class each: xdist spreads them).

    The lesson runs as tests/test_lessons.py runs every lesson: top to bottom in one of the
    suite's strict kernels (forked from its pool, with the stack imported), which inherits
    ``COURSE_DEVICE_PROFILE``. By hand, without Jupyter: ``COURSE_DEVICE_PROFILE=h200 python
    tools/gpu_check.py --strict --out DIR lessons/NN_topic/lesson.ipynb`` (tests/test_gpu_check.py
    runs a lesson that way).
    """

    folder: str
    profile: str

    def test_lesson_passes_at_the_profiles_sizes(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv(PROFILE_VARIABLE, self.profile)
        execution = lessons.execute(lesson_notebook(self.folder), tmp_path, run=self.profile)
        assert execution.passed, (
            f"{self.folder} under {PROFILE_VARIABLE}={self.profile}:\n{execution.error}"
        )


for _folder, _profile in device_table.profile_runs():
    _name = f"TestProfileRun_{_folder}_{_profile.replace('-', '_')}"
    globals()[_name] = type(_name, (_TestProfileRun,), {"folder": _folder, "profile": _profile})
