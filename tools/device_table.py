"""What each lesson runs on each device profile, from the lessons' own configuration cells.

    python tools/device_table.py           rewrite the table in README.md
    python tools/device_table.py --check   exit 1 if README.md's table is out of date

Every lesson has one code cell tagged ``device-config``: it sets ``TARGET = target_device()``
(course/device.py) and chooses from it a ``CONFIG`` dict (sizes, dtypes, mesh shapes: all that
changes what runs) and a ``SKIPPED`` dict (section -> the hardware feature it needs that the
device lacks). This script runs that cell alone for each profile, with ``target_device``
answering the profile, and tabulates the result.
The suite uses the same evaluation to decide which profiles to run each lesson under
(tests/test_device_profiles.py): a profile whose choice equals the CPU's, or another profile's,
adds nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course.device import PROFILES, Device  # noqa: E402

CONFIG_TAG = "device-config"
README = ROOT / "README.md"
START, END = "<!-- device-table:start -->", "<!-- device-table:end -->"
CPU = Device("cpu", "cpu", 1, None, None)
COLUMNS = {  # column title -> device; the README's order
    "CPU": CPU,
    "T4 (16 GB)": PROFILES["t4"],
    "24 GB card": PROFILES["rtx4090"],
    "A100 80 GB": PROFILES["a100-80gb"],
    "H100": PROFILES["h100"],
    "H200": PROFILES["h200"],
    "8 × H100": PROFILES["8xh100"],
}
SUITE_PROFILES = ("h200", "8xh100", "t4")  # run by the suite, on the CPU, where they differ


class ConfigCellError(Exception):
    """A lesson's configuration cell is missing, doubled or does not run on its own."""


def lessons() -> list[Path]:
    return sorted(ROOT.glob("lessons/*/lesson.ipynb"))


def config_source(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    tagged = [c for c in cells if CONFIG_TAG in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise ConfigCellError(f"{notebook}: {len(tagged)} cells tagged {CONFIG_TAG!r}, not 1")
    source = tagged[0]["source"]
    return "".join(source) if isinstance(source, list) else source


def configuration(notebook: Path, device: Device) -> tuple[dict, dict]:
    """(CONFIG, SKIPPED) as the lesson's configuration cell chooses them for ``device``."""
    import jax.numpy as jnp
    import numpy as np

    namespace = {"target_device": lambda: device, "jnp": jnp, "np": np, "math": math}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(config_source(notebook), f"{notebook}:{CONFIG_TAG}", "exec"), namespace)  # noqa: S102
    except ConfigCellError:
        raise
    except Exception as error:
        raise ConfigCellError(
            f"{notebook}: the {CONFIG_TAG!r} cell fails on its own for {device.kind} "
            f"({type(error).__name__}: {error}); it may use only TARGET, jnp, np and math"
        ) from error
    config, skipped = namespace.get("CONFIG"), namespace.get("SKIPPED")
    if not isinstance(config, dict) or not isinstance(skipped, dict):
        raise ConfigCellError(f"{notebook}: the {CONFIG_TAG!r} cell must set CONFIG and SKIPPED")
    return config, skipped


def shown(value: object) -> str:
    import numpy as np

    if isinstance(value, type) and issubclass(value, np.generic) or isinstance(value, np.dtype):
        return np.dtype(value).name
    if isinstance(value, tuple):  # a shape
        return "×".join(shown(v) for v in value) if value else "()"
    if isinstance(value, list):  # several values
        return "/".join(shown(v) for v in value) if value else "none"
    return str(value)


def summary(config: dict, skipped: dict) -> str:
    text = ", ".join(f"{key} {shown(value)}" for key, value in config.items())
    if skipped:
        text += "; **not run:** " + "; ".join(f"{k} ({why})" for k, why in skipped.items())
    return text.replace("|", "\\|")


def reads_target_gpu(notebook: Path) -> bool:
    """Whether a cell outside the configuration cell asks ``TARGET.gpu``."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return any(
        "TARGET.gpu" in "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code" and CONFIG_TAG not in c.get("metadata", {}).get("tags", [])
    )


def key(notebook: Path, device: Device) -> str:
    """What a run of the lesson on the CPU depends on: CONFIG, and whether the target is a GPU
    where the lesson asks that outside its configuration cell. SKIPPED only names what the
    hardware lacks (cuDNN, bf16 tensor cores, ...), which a CPU never has: two profiles that
    differ only there run the same lesson here."""
    config, _ = configuration(notebook, device)
    return json.dumps([reads_target_gpu(notebook) and device.gpu, summary(config, {})])


def profile_runs() -> list[tuple[str, str]]:
    """(lesson folder, profile) pairs the suite runs: each configuration the suite's profiles
    choose that the CPU's run (tests/test_lessons.py) and the earlier profiles have not covered."""
    runs = []
    for notebook in lessons():
        seen = {key(notebook, CPU)}
        for name in SUITE_PROFILES:
            choice = key(notebook, PROFILES[name])
            if choice not in seen:
                seen.add(choice)
                runs.append((notebook.parent.name, name))
    return runs


def cell_text(config: dict, skipped: dict, left: tuple[dict, dict] | None) -> str:
    """A table cell: the whole choice, or (next to a similar one) only what differs from it."""
    if left is None:
        return summary(config, skipped)
    left_config, left_skipped = left
    if (config, skipped) == (left_config, left_skipped):
        return "same"
    changed = {k: v for k, v in config.items() if left_config.get(k) != v}
    if set(config) != set(left_config) or len(changed) > len(config) / 2:
        return summary(config, skipped)
    text = "as ←, but " + summary(changed, {}) if changed else "as ←"
    if skipped != left_skipped:
        text += "; **not run:** " + (
            "; ".join(f"{k} ({why})" for k, why in skipped.items()).replace("|", "\\|") or "nothing"
        )
    return text


def table() -> str:
    lines = [
        "| lesson | " + " | ".join(COLUMNS) + " |",
        "|---|" + "---|" * len(COLUMNS),
    ]
    for notebook in lessons():
        cells, left = [], None
        for device in COLUMNS.values():
            choice = configuration(notebook, device)
            cells.append(cell_text(*choice, left))
            left = choice
        lines.append(f"| {notebook.parent.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rendered_readme(readme: str) -> str:
    head, start, rest = readme.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ConfigCellError(f"{README}: the markers {START} and {END} are missing")
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if README.md is out of date")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    try:
        expected = rendered_readme(current)
    except ConfigCellError as error:
        print(error, file=sys.stderr)
        return 2
    if args.check:
        if current != expected:
            print("README.md's device table is out of date: run python tools/device_table.py")
            return 1
        return 0
    README.write_text(expected, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
