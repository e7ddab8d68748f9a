"""Put a GPU check's output where the book shows it: docs/gpu-runs/DATE-DEVICE.{json,md,...}.

    python tools/add_gpu_run.py DIR [--note "how to read this run"] [--name STEM]

DIR is what ``python3 tools/gpu_check.py --out DIR`` wrote on the GPU machine: report.json,
report.md and figures.zip. The JSON is checked the way the book reads it, so a broken report
is refused here, naming the file. After this, ``make book`` shows the run's outputs under the
lesson cells it executed unchanged; nothing else needs editing.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course.book.gpu_runs import GPU_RUNS_DIR, GpuRunError, load_run  # noqa: E402


def stem_for(report: dict[str, object]) -> str:
    machine = report.get("machine")
    kind = machine.get("device_kind", "device") if isinstance(machine, dict) else "device"
    device = re.sub(r"[^a-z0-9]+", "-", str(kind).lower()).strip("-")
    return f"{str(report.get('date', ''))[:10]}-{device}"


def add(source: Path, note: str = "", name: str = "", runs_dir: Path = GPU_RUNS_DIR) -> Path:
    """Copy the run in ``source`` into ``runs_dir``; the path of the JSON written."""
    report_json = source / "report.json"
    try:
        report = json.loads(report_json.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise GpuRunError(f"{report_json}: not a readable gpu_check report ({error})") from error
    if not isinstance(report, dict):
        raise GpuRunError(f"{report_json}: a gpu_check report is a JSON object")
    if note:
        report["note"] = note
    with tempfile.TemporaryDirectory() as scratch:  # check it as the book will read it
        trial = Path(scratch) / "run.json"
        trial.write_text(json.dumps(report), encoding="utf-8")
        try:
            load_run(trial)
        except GpuRunError as error:
            raise GpuRunError(str(error).replace(str(trial), str(report_json))) from None
    stem = name or stem_for(report)
    runs_dir.mkdir(parents=True, exist_ok=True)
    target = runs_dir / f"{stem}.json"
    if target.exists():
        raise GpuRunError(f"{target} exists already: choose another --name")
    target.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if (source / "report.md").is_file():
        shutil.copy2(source / "report.md", runs_dir / f"{stem}.md")
    if (source / "figures.zip").is_file():
        shutil.copy2(source / "figures.zip", runs_dir / f"{stem}.figures.zip")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the folder gpu_check --out wrote")
    parser.add_argument("--note", default="", help="a sentence on how to read this run")
    parser.add_argument("--name", default="", help="file stem (default: DATE-DEVICE)")
    args = parser.parse_args(argv)
    try:
        target = add(args.source, args.note, args.name)
    except GpuRunError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"wrote {target} (and the .md and .figures.zip found beside report.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
