"""tools/cpu_per_test.py counts a test's CPU, its orphaned processes' too, and not its waiting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "cpu_per_test.py"

# An orphan that burns about a second of CPU, as a pool-forked kernel does: the test's child
# exits at once, and the grandchild (reparented away from pytest's worker) writes to the same
# standard output until it is done.
TESTS = '''
import os, subprocess, sys, time
from pathlib import Path

ORPHAN = """
import os, sys, time
if os.fork() == 0:
    end = time.process_time() + 1.0
    while time.process_time() < end:
        pass
    print("burnt", flush=True)
    open(sys.argv[1], "w").close()
os._exit(0)
"""


def test_burns_in_an_orphan(tmp_path):
    done = tmp_path / "done"
    subprocess.run([sys.executable, "-c", ORPHAN, str(done)], check=True)
    while not done.exists():
        time.sleep(0.05)


def test_waits():
    time.sleep(1.0)
'''


def run_plugin(tmp_path: Path) -> dict[str, dict]:
    (tmp_path / "test_work.py").write_text(TESTS, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    log = tmp_path / "cpu.jsonl"
    env = {**os.environ, "PYTHONPATH": str(TOOL.parent), "COURSE_CPU_LOG": str(log)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "cpu_per_test", "-p", "no:cacheprovider",
         str(tmp_path / "test_work.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return {r["test"].split("::")[-1]: r for r in records}


def test_an_orphans_cpu_counts_and_waiting_does_not(tmp_path: Path) -> None:
    records = run_plugin(tmp_path)
    assert set(records) == {"test_burns_in_an_orphan", "test_waits"}
    assert records["test_burns_in_an_orphan"]["cpu_s"] >= 0.7, records
    assert records["test_waits"]["cpu_s"] < 0.3, records
    assert records["test_waits"]["wall_s"] >= 1.0, records


def test_the_summary_adds_up_and_names_a_bad_log(tmp_path: Path) -> None:
    log = tmp_path / "cpu.jsonl"
    lines = [
        {"test": "tests/test_a.py::TestX::test_1", "cpu_s": 2.0, "wall_s": 3.0},
        {"test": "tests/test_a.py::TestX::test_2", "cpu_s": 1.0, "wall_s": 1.0},
        {"test": "tests/test_b.py::test_3", "cpu_s": 4.0, "wall_s": 4.5},
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = subprocess.run([sys.executable, str(TOOL), str(log)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("3 tests, 7 CPU s")
    assert "     3.0       4.0  tests/test_a.py\n" in run.stdout
    assert "     3.0       4.0  tests/test_a.py::TestX\n" in run.stdout
    assert run.stdout.count("tests/test_b.py") == 2  # once as a file, once among the costliest

    log.write_text('{"id": "old format"}\n', encoding="utf-8")
    run = subprocess.run([sys.executable, str(TOOL), str(log)], capture_output=True, text=True)
    assert run.returncode == 1 and str(log) in run.stderr and "'test'" in run.stderr
