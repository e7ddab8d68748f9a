"""How long each of the suite's scheduling scopes took, from a run's JUnit XML.

    make test PYTEST_ARGS="-n auto --dist loadscope --junitxml=/tmp/run.xml"
    python tools/scope_seconds.py /tmp/run.xml     rewrite tests/scope_seconds.json

Under ``--dist loadscope`` a scope (a test class, or a module's functions) is what one xdist
worker runs in one go. conftest.py hands out the longest scopes first, by these measured
seconds, so that no long lesson run or device-profile run is left for the end while the other
worker waits. The figures are worker seconds of one run on one machine: only their order
matters, and a scope the file does not know is handed out first.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.scopes import scheduling_scope  # noqa: E402

SCOPE_SECONDS = ROOT / "tests" / "scope_seconds.json"


def scope_of(classname: str) -> str:
    """JUnit's ``tests.test_x.TestY`` -> the suite's scope ``tests/test_x.py::TestY`` (with an
    assignment's autograde class in its variants class's scope, as conftest.py hands them out)."""
    parts = classname.split(".")
    modules = [i for i, part in enumerate(parts) if part.startswith("test_")]
    if not modules:
        raise ValueError(f"no test module in JUnit classname {classname!r}")
    last = modules[-1]
    scope = "/".join(parts[: last + 1]) + ".py"
    return scheduling_scope("::".join([scope, *parts[last + 1 :]]))


def seconds_per_scope(junit_xml: Path) -> dict[str, float]:
    try:
        tree = ET.parse(junit_xml)
    except (OSError, ET.ParseError) as error:
        raise SystemExit(f"{junit_xml}: not a readable JUnit XML file ({error})") from error
    seconds: Counter[str] = Counter()
    for case in tree.iter("testcase"):
        seconds[scope_of(case.get("classname", ""))] += float(case.get("time", 0))
    if not seconds:
        raise SystemExit(f"{junit_xml}: no test cases")
    return {scope: round(s, 1) for scope, s in sorted(seconds.items(), key=lambda kv: -kv[1])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("junit_xml", type=Path)
    parser.add_argument("--out", type=Path, default=SCOPE_SECONDS)
    parser.add_argument("--commit", help="the commit the run measured (default: HEAD here)")
    args = parser.parse_args(argv)
    commit = (
        args.commit
        or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    )
    record = {
        "measured": f"{date.today().isoformat()}, commit {commit or 'unknown'}",
        "seconds": seconds_per_scope(args.junit_xml),
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(record['seconds'])} scopes, {sum(record['seconds'].values()):.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
