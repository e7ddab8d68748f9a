"""Fetch the pinned uv from the package index into a folder, with nothing but Python's stdlib.

    python3 tools/bootstrap_uv.py VERSION DIR      # prints DIR/uv

The Makefile runs this only when no uv is at hand, with whatever ``python3`` the machine has:
it must run on Python 3.9 or newer and needs neither pip nor the ``venv`` module (Ubuntu and
Debian ship python3 without both). It reads the index's simple page for ``uv``, picks the wheel
of VERSION for this platform, checks its sha256 when the index gives one, and unpacks the
``uv`` binary. The index is $UV_DEFAULT_INDEX, $UV_INDEX_URL or $PIP_INDEX_URL, else PyPI.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import ssl
import stat
import sys
import tempfile
import urllib.request
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin

PYPI = "https://pypi.org/simple"
TIMEOUT_S = 120


class _Links(HTMLParser):
    """The ``href`` of every ``<a>`` on a PEP 503 simple page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(value for name, value in attrs if name == "href" and value)


def index_url() -> str:
    for name in ("UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL"):
        if os.environ.get(name):
            return os.environ[name].rstrip("/")
    return PYPI


def _context() -> ssl.SSLContext:
    # OpenSSL reads $SSL_CERT_FILE itself; honour pip's own setting as well.
    cafile = None if os.environ.get("SSL_CERT_FILE") else os.environ.get("PIP_CERT")
    return ssl.create_default_context(cafile=cafile)


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": "text/html"})
    with urllib.request.urlopen(request, timeout=TIMEOUT_S, context=_context()) as response:
        return response.read()


def compatible(filename: str, version: str, machine: str, libc: tuple[str, str]) -> bool:
    """Whether ``filename`` is a uv VERSION wheel that runs on this Linux machine."""
    prefix = f"uv-{version}-py3-none-"
    if not (filename.startswith(prefix) and filename.endswith(".whl")):
        return False
    kind, libc_version = libc
    for tag in filename[len(prefix) : -len(".whl")].split("."):
        if kind == "glibc":
            legacy = {"manylinux2014": (2, 17), "manylinux2010": (2, 12), "manylinux1": (2, 5)}
            match = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", tag)
            if match:
                needs, arch = (int(match[1]), int(match[2])), match[3]
            else:
                name, _, arch = tag.partition("_")
                needs = legacy.get(name, (99, 0))
            have = tuple(int(part) for part in libc_version.split(".")[:2])
            if arch == machine and needs <= have:
                return True
        elif re.fullmatch(rf"musllinux_\d+_\d+_{machine}", tag):
            return True
    return False


def wheel_url(version: str, machine: str, libc: tuple[str, str]) -> str:
    page_url = f"{index_url()}/uv/"
    parser = _Links()
    parser.feed(_get(page_url).decode("utf-8", "replace"))
    for href in parser.hrefs:
        url = urljoin(page_url, href)
        filename = urldefrag(url)[0].rsplit("/", 1)[-1]
        if compatible(filename, version, machine, libc):
            return url
    raise SystemExit(
        f"{page_url} has no uv {version} wheel for Linux {machine} ({libc[0]}): "
        "install uv yourself (https://docs.astral.sh/uv/) and run make again"
    )


def fetch(version: str, dest: Path) -> Path:
    if sys.platform != "linux":
        raise SystemExit("this bootstrap knows Linux only: install uv yourself and run make again")
    libc = platform.libc_ver()
    libc = ("glibc", libc[1]) if libc[0] == "glibc" else ("musl", "")
    url = wheel_url(version, platform.machine(), libc)
    print(f"Fetching uv {version} from {urldefrag(url)[0]}", file=sys.stderr)
    data = _get(urldefrag(url)[0])
    fragment = urldefrag(url)[1]
    if fragment.startswith("sha256="):
        digest = hashlib.sha256(data).hexdigest()
        if digest != fragment[len("sha256=") :]:
            raise SystemExit(f"{url}: sha256 is {digest}; the index says otherwise")
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as wheel:
        wheel.write(data)
        with zipfile.ZipFile(wheel) as archive:
            binary = dest / "uv"
            binary.write_bytes(archive.read(f"uv-{version}.data/scripts/uv"))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__)
    print(fetch(argv[0], Path(argv[1])))


if __name__ == "__main__":
    main(sys.argv[1:])
