"""Kernels reached through Unix socket files, not TCP ports.

jupyter_client picks a TCP kernel's five ports by binding port 0 and letting each port go
again; until the kernel binds it, any process on the machine may take it, and the kernel then
dies at start ("Address already in use"). With the suite's workers starting kernels at once
this failed a CI run (a lesson's kernel lost its stdin port). ZeroMQ's ipc transport uses
socket files instead, and files named after their kernel manager cannot collide.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import default


def fresh_socket_prefix() -> str:
    """A path no other kernel uses; the kernel's sockets are this path plus ``-1`` … ``-5``."""
    # /tmp, not the Jupyter runtime folder: a socket path must fit in 107 bytes.
    return str(Path(tempfile.gettempdir()) / f"kernel-{uuid.uuid4().hex}")


class SocketFileKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager, with the ipc transport and a socket prefix of its own."""

    @default("transport")
    def _transport_default(self) -> str:
        return "ipc"

    @default("ip")
    def _ip_default(self) -> str:  # also what jupyter_client calls by this name
        return fresh_socket_prefix()
