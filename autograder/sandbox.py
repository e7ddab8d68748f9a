"""Where a submission runs: limits, and a bubblewrap box that holds nothing worth taking.

Every submission is graded in a forked process (``autograder.worker``) whose limits the
student's kernel inherits: memory, CPU time, output, and a wall clock enforced by the
parent. The kernel itself, the only process that runs student code, is started inside
bubblewrap (``bwrap``): its own mount, PID, network, IPC, UTS and user namespaces, no
capabilities, killed with its parent. It sees

* read-only: the system (``/usr``, a few files of ``/etc``, ``/sys``), the Python
  installation and the virtual environment, and the course's ``quiz`` package (public,
  with its answer key) under ``/course``;
* read-write: the submission's box (``Box``) and, at the folder nbgrader runs the kernel in,
  the box's ``work`` folder; a private ``/tmp`` and ``/dev/shm`` in memory, sized (the box's
  own root, also in memory, is read-only);
* nothing else: not the course folder (``solutions/``, ``autograder/``), gradebooks, the
  submissions, the output folder, the other submissions' scratch folders, home folders.

nbgrader itself runs outside, and talks to the kernel over Unix sockets in the box.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from autograder.kernel import install_tf32_switch, make_strict_ipython_dir

# Runs in the student's kernel before any cell: a cell that prints hundreds of MB would
# otherwise be held in the grader's memory before nbgrader's LimitOutput trims it.
OUTPUT_CAP_SCRIPT = """\
import sys


class _CappedStream:
    def __init__(self, stream, limit):
        self._stream, self._left = stream, limit

    def write(self, text):
        if self._left > 0:
            self._left -= len(text)
            self._stream.write(text if self._left >= 0 else text[: len(text) + self._left])
            if self._left <= 0:
                self._stream.write("\\n[output truncated by the grader]\\n")
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


sys.stdout = _CappedStream(sys.stdout, {limit})
sys.stderr = _CappedStream(sys.stderr, {limit})
"""

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap; it needs unprivileged user namespaces or root), or pass --no-sandbox to "
    "grade without it, only for submissions you trust (README: Grading untrusted code)"
)
NO_SANDBOX_NOTE = (
    "graded WITHOUT the sandbox (--no-sandbox): the submission's code could read the "
    "solutions, the gradebook and the other submissions, and reach the network"
)

USR = Path("/usr")
# Where the kernel finds the course's public quiz package (PYTHONPATH inside the box).
COURSE_IN_BOX = Path("/course")
# Files of /etc that Python, JAX, matplotlib and nvidia-smi read; the rest (shadow, ssh
# keys, package-manager credentials) stays out.
ETC_FILES = (
    "alternatives", "fonts", "group", "host.conf", "hosts", "gai.conf", "ld.so.cache",
    "ld.so.conf", "ld.so.conf.d", "locale.alias", "localtime", "mime.types", "nsswitch.conf",
    "os-release", "passwd", "protocols", "services", "timezone",
)  # fmt: skip
# Variables the kernel never inherits: they would hand it the instructor's credentials.
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|ACCESS_KEY|^AWS_|^SSH_AUTH")
# The longest Unix socket path Linux takes is 107 bytes; jupyter_client appends "-<port>".
SOCKET_PATH_MAX = 100


@dataclass(frozen=True)
class Limits:
    cell_timeout_s: int
    notebook_timeout_s: int
    memory_mb: int
    output_bytes: int


@dataclass(frozen=True)
class Box:
    """The folders of one submission's box: everything here is the kernel's to read and write.

    The grader puts here what the kernel must read (its IPython start-up folder, any
    configuration of its own) and reads nothing back from it but the sockets.
    """

    root: Path
    sockets: Path  # the kernel's connection file and Unix sockets (short: see SOCKET_PATH_MAX)

    @property
    def work(self) -> Path:
        """Shown to the kernel as the folder nbgrader starts it in (nbgrader's own copy of
        the notebook, with the hidden tests, stays out of sight)."""
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def ipython(self) -> Path:
        return self.root / "ipython"

    @property
    def kernel_output(self) -> Path:
        """Where the kernel's (and bwrap's) own stdout and stderr go: written by the
        submission, so never the grader's log, which the kernel could otherwise reopen."""
        return self.root / "kernel-output.txt"

    @classmethod
    def create(cls, root: Path, sockets: Path) -> Box:
        box = cls(root, sockets)
        for folder in (box.root, box.sockets, box.home):
            folder.mkdir(parents=True, exist_ok=True)
        return box


def socket_folder(preferred: Path) -> Path:
    """``preferred`` when a socket path in it fits Linux's limit, else a short folder in /tmp
    (created here; the caller removes it)."""
    if len(str(preferred / "s-99")) <= SOCKET_PATH_MAX:
        return preferred
    import tempfile

    return Path(tempfile.mkdtemp(prefix="grade-", dir="/tmp"))


@dataclass(frozen=True)
class Sandbox:
    """How to start a kernel in bubblewrap. ``hidden``: the instructor's folders (course,
    solutions, submissions, output, gradebook); a variable naming a path inside one of them
    is not passed to the kernel."""

    bwrap: str
    course_root: Path
    hidden: tuple[Path, ...] = ()
    tmpfs_mb: int = 1024

    def _python_binds(self) -> dict[Path, Path]:
        """Inside path -> host path of the interpreter, its standard library and the venv
        (a venv reached through a symlink is shown at the path the kernel command uses)."""
        prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
        binds = {Path(prefix): Path(prefix).resolve() for prefix in prefixes}
        installation = Path(sys.executable).resolve().parent.parent
        binds.setdefault(installation, installation)
        return {inside: host for inside, host in binds.items() if not _under(host, [USR])}

    def visible(self, box: Box, cwd: Path, ipython_dir: Path | None = None) -> list[Path]:
        """Host paths the kernel can reach (for the environment filter)."""
        python = self._python_binds()
        shown = [USR, *python, *python.values(), box.root, box.sockets, cwd]
        return shown + ([ipython_dir] if ipython_dir else [])

    def command(self, box: Box, cwd: Path, ipython_dir: Path | None = None) -> list[str]:
        """The bwrap command line that runs a kernel command (appended) in ``box``, with
        ``box.work`` at ``cwd``. ``ipython_dir`` outside the box is shown read-only."""
        args = [
            self.bwrap,
            "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--disable-userns",
            # a host name that every /etc/hosts resolves: gloo (JAX's CPU collectives between
            # processes, lesson 15) looks it up, and the box has no name server
            "--cap-drop", "ALL", "--die-with-parent", "--hostname", "localhost",
            "--ro-bind", str(USR), str(USR),
            "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/sys", "/sys",
            "--perms", "1777", "--size", str(self.tmpfs_mb * 2**20), "--tmpfs", "/tmp",
            "--perms", "1777", "--size", str(self.tmpfs_mb * 2**20), "--tmpfs", "/dev/shm",
        ]  # fmt: skip
        for name in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
            path = Path("/") / name
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        for name in ETC_FILES:
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        for device in sorted(Path("/dev").glob("nvidia*")):  # a GPU, when there is one
            args += ["--dev-bind", str(device), str(device)]
        for inside, host in sorted(self._python_binds().items()):
            args += ["--ro-bind", str(host), str(inside)]
        quiz = COURSE_IN_BOX / "quiz"
        args += ["--ro-bind", str(self.course_root / "quiz"), str(quiz)]
        # quiz checks that each question's lesson folder exists: show the names, not the files.
        for lesson in sorted((self.course_root / "lessons").glob("[0-9][0-9]_*")):
            args += ["--dir", str(COURSE_IN_BOX / "lessons" / lesson.name)]
        if ipython_dir is not None and not _under(ipython_dir, [box.root]):
            args += ["--ro-bind", str(ipython_dir), str(ipython_dir)]
        args += ["--bind", str(box.root), str(box.root)]
        if box.sockets != box.root and not _under(box.sockets, [box.root]):
            args += ["--bind", str(box.sockets), str(box.sockets)]
        args += ["--bind", str(box.work), str(cwd), "--chdir", str(cwd)]
        # ipykernel exits when its parent is PID 1, which bwrap's reaper is in the box;
        # --die-with-parent does that job instead.
        args += ["--unsetenv", "JPY_PARENT_PID"]
        # the box's root is a tmpfs of bwrap's, in memory and unsized: read-only once every
        # mount point exists (the writable folders above are mounts of their own)
        args += ["--remount-ro", "/"]
        return args

    def environment(
        self, env: Mapping[str, str], box: Box, cwd: Path, ipython_dir: Path | None = None
    ) -> dict[str, str]:
        """The kernel's environment: the grader's (JAX_*, XLA_FLAGS, CUDA_VISIBLE_DEVICES and
        the course's switches still apply) without credentials or paths to the instructor's
        files, with a home, a temporary folder and an import path of the box's own."""
        visible = self.visible(box, cwd, ipython_dir)
        hidden = [*self.hidden, self.course_root]
        kept: dict[str, str] = {}
        for name, value in env.items():
            if SECRET_NAME.search(name.upper()):
                continue
            entries = value.split(os.pathsep)
            allowed = [e for e in entries if not _names_hidden(e, hidden, visible)]
            if allowed == entries:
                kept[name] = value
            elif any(allowed):
                kept[name] = os.pathsep.join(allowed)
        for name in ("PYTHONHOME", "PYTHONSTARTUP", "OLDPWD") + tuple(
            n for n in kept if n.startswith("JUPYTER_")
        ):
            kept.pop(name, None)
        kept.update(
            HOME=str(box.home),
            TMPDIR="/tmp",
            PWD=str(cwd),
            PYTHONPATH=str(COURSE_IN_BOX),
        )
        return kept


def _under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _names_hidden(entry: str, hidden: list[Path], visible: list[Path]) -> bool:
    if not entry.startswith("/"):
        return False
    path = Path(os.path.normpath(entry))
    return _under(path, hidden) and not _under(path, visible)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces; the message says what to do."""


def find_sandbox(course_root: Path, hidden: tuple[Path, ...], tmpfs_mb: int) -> Sandbox:
    """A Sandbox that has just run Python in an empty box, or SandboxUnavailable."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}")
    sandbox = Sandbox(bwrap, course_root, hidden, tmpfs_mb)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="grade-probe-") as tmp:
        box = Box.create(Path(tmp) / "box", Path(tmp) / "box")
        box.work.mkdir()
        probe = "import quiz, sys; sys.exit(0 if quiz.__file__.startswith('/course/') else 3)"
        command = [*sandbox.command(box, box.work), sys.executable, "-c", probe]
        env = sandbox.environment(os.environ, box, box.work)
        try:
            result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            why = f"bubblewrap does not start: {error}"
            raise SandboxUnavailable(f"{why}; {INSTALL_HINT}") from None
    if result.returncode != 0:
        why = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
        raise SandboxUnavailable(f"bubblewrap cannot start a kernel here ({why}): {INSTALL_HINT}")
    return sandbox


def apply_process_limits(limits: Limits) -> None:
    """Limit this process and every process it starts (the kernel) from now on.

    RLIMIT_DATA rather than RLIMIT_AS: it counts memory a process can actually write,
    so a GPU runtime's large address-space reservations do not trip it.
    """
    memory = limits.memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    cpu = limits.notebook_timeout_s
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))


def make_grading_ipython_dir(directory: Path, limits: Limits, strict: bool) -> Path:
    """An IPYTHONDIR whose startup files cap kernel output (and, if ``strict``, deprecations).

    The TF32 switch is installed either way: it does nothing unless the grader's environment
    sets ``COURSE_EMULATE_TF32=1``, and then it must not depend on ``--strict``.
    """
    if strict:
        make_strict_ipython_dir(directory)
    else:
        install_tf32_switch(directory)
    startup = directory / "profile_default" / "startup"
    script = OUTPUT_CAP_SCRIPT.format(limit=limits.output_bytes)
    (startup / "01_cap_output.py").write_text(script, encoding="utf-8")
    return directory


def kill_tree(pid: int) -> None:
    """Kill ``pid`` and all its descendants, children first found so none escapes."""
    import psutil  # a dependency of ipykernel, so always installed with the course

    try:
        parent = psutil.Process(pid)
        family = [*parent.children(recursive=True), parent]
    except psutil.NoSuchProcess:
        return
    for process in family:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(family, timeout=5)
