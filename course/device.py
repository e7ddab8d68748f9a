"""The device a lesson configures itself for: the one it runs on, or a named GPU profile.

Every lesson's first cells choose what they run (problem sizes, dtypes, mesh shapes, optional
sections) from a small description of the target device, printed at the top:

    TARGET = target_device()
    print(TARGET)

Without ``COURSE_DEVICE_PROFILE`` the target is this machine's device, as JAX reports it.
With ``COURSE_DEVICE_PROFILE=h200`` (or another name in ``PROFILES``) on a CPU, the target is
that GPU: the lesson chooses the GPU's configuration and runs it on the CPU backend, so every
claim that depends on the sizes is checked without the GPU. Claims about the hardware itself
(cuDNN ran, TF32 differs from "highest", collectives ran asynchronously) still need the real
GPU: lessons guard them with ``jax.default_backend() == "gpu"``, never with the target.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

PROFILE_VARIABLE = "COURSE_DEVICE_PROFILE"
GiB = 2**30


@dataclass(frozen=True)
class Device:
    """What a lesson's configuration may depend on, and nothing else."""

    backend: str  # "gpu" or "cpu", as jax.default_backend() names it
    kind: str  # device_kind, e.g. "NVIDIA H200"
    count: int  # devices of that backend
    memory: int | None  # bytes_limit of one device: what JAX's allocator may use (None on a CPU)
    capability: tuple[int, int] | None  # CUDA compute capability, e.g. (9, 0); None on a CPU
    profile: str | None = None  # the profile's name when simulated on a CPU, else None

    @property
    def gpu(self) -> bool:
        return self.backend == "gpu"

    @property
    def simulated(self) -> bool:
        """A GPU's configuration run on this machine's CPU (sizes checked, hardware not)."""
        return self.profile is not None

    def __str__(self) -> str:
        memory = "no memory statistics" if self.memory is None else f"{self.memory / GiB:.1f} GiB"
        capability = ""
        if self.capability is not None:
            capability = ", compute capability {}.{}".format(*self.capability)
        text = f"target: {self.backend}, {self.count} × {self.kind}, {memory}{capability}"
        if self.simulated:
            text += (
                f" — profile {self.profile!r} simulated on the CPU: the GPU's sizes run here,"
                " its hardware is not checked"
            )
        return text


def _card(kind: str, memory_mib: int, capability: tuple[int, int], count: int = 1) -> Device:
    # bytes_limit is 75 % of the card's memory by default (JAX's documented fraction); the
    # H200's figure below was read on one, the others are that fraction of the datasheet size.
    return Device("gpu", kind, count, int(0.75 * memory_mib * 2**20), capability)


# The GPUs the course names. "memory" is bytes_limit, what a lesson may plan with.
PROFILES: dict[str, Device] = {
    "t4": _card("Tesla T4", 15_360, (7, 5)),  # Colab's free GPU: no bf16 tensor cores
    "rtx4090": _card("NVIDIA GeForce RTX 4090", 24_564, (8, 9)),  # a 24 GB card
    "a100-80gb": _card("NVIDIA A100-SXM4-80GB", 81_920, (8, 0)),
    "h100": _card("NVIDIA H100 80GB HBM3", 81_559, (9, 0)),
    # measured: bytes_limit on the H200 of docs/gpu-runs/2026-11-30-nvidia-h200.md
    "h200": Device("gpu", "NVIDIA H200", 1, 112_583_507_968, (9, 0)),
    "8xh100": _card("NVIDIA H100 80GB HBM3", 81_559, (9, 0), count=8),
}


class ProfileError(ValueError):
    """COURSE_DEVICE_PROFILE names no profile, or asks to simulate a GPU on a GPU."""


def this_machine() -> Device:
    """The default backend's device, as JAX reports it."""
    import jax

    device = jax.devices()[0]
    stats = device.memory_stats() if device.platform == "gpu" else None
    capability = getattr(device, "compute_capability", None)  # a string such as "9.0"
    return Device(
        backend=device.platform,
        kind=device.device_kind,
        count=jax.device_count(),
        memory=(stats or {}).get("bytes_limit"),
        capability=tuple(int(p) for p in capability.split(".")) if capability else None,
    )


def simulated(name: str) -> Device:
    """The named profile, marked as simulated on the CPU."""
    if name not in PROFILES:
        raise ProfileError(
            f"{PROFILE_VARIABLE}={name!r} is not a device profile; choose one of "
            f"{', '.join(PROFILES)}, or unset it to use this machine's device"
        )
    profile = PROFILES[name]
    return Device(**{**profile.__dict__, "profile": name})


def target_device() -> Device:
    """The device this lesson configures itself for (see the module's docstring)."""
    name = os.environ.get(PROFILE_VARIABLE, "").strip()
    if not name:
        return this_machine()
    import jax

    if jax.default_backend() != "cpu":
        raise ProfileError(
            f"{PROFILE_VARIABLE}={name!r} simulates a GPU on the CPU, but this machine's "
            f"backend is {jax.default_backend()!r}: unset it to run on the real device"
        )
    return simulated(name)
