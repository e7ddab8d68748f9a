"""Datasheet peaks of the NVIDIA GPUs the course names: the one table every lesson divides by.

A lesson that prints a fraction of peak (achieved matmul throughput, MFU, bandwidth) looks the
device up here by its exact ``device_kind``: "NVIDIA H100 NVL" and "NVIDIA H100 80GB HBM3" are
different parts with different peaks, so a substring match would be wrong. A device that is not
listed, or a figure the datasheet does not give, is ``None``, and the lesson says so instead of
guessing.

Compute figures are dense TFLOP/s: half of the datasheets' "with sparsity" tensor-core figures.
``tf32`` is what a float32 matmul runs at by default on Ampere and Hopper (lesson 00);
``float32`` is the CUDA cores' rate without tensor cores (what ``precision="highest"`` gets);
``bandwidth`` is the memory's, in TB/s; ``fp64`` and ``fp64_tc`` are float64 without and with
tensor cores (float64 matmuls run on the latter where a part has them), ``None`` where the sheet
gives none.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Peak:
    bf16: float | None  # dense bfloat16 tensor-core TFLOP/s
    tf32: float | None  # dense TF32 tensor-core TFLOP/s (float32 matmuls by default)
    float32: float | None  # float32 without tensor cores, TFLOP/s
    bandwidth: float | None  # memory bandwidth, TB/s
    source: str  # the datasheet the figures come from
    fp64: float | None = None  # float64 without tensor cores, TFLOP/s
    fp64_tc: float | None = None  # float64 on tensor cores, TFLOP/s (Ampere and Hopper)

    def flops(self, kind: str) -> float | None:
        """FLOP/s for "bfloat16", "tf32", "float32", "float64" or "float64_tc" (None where the sheet
        gives none)."""
        value = {"bfloat16": self.bf16, "tf32": self.tf32, "float32": self.float32,
                 "float64": self.fp64, "float64_tc": self.fp64_tc}[kind]  # fmt: skip
        return None if value is None else value * 1e12

    @property
    def bytes_per_s(self) -> float | None:
        return None if self.bandwidth is None else self.bandwidth * 1e12


PEAKS: dict[str, Peak] = {  # device_kind, exactly as JAX reports it -> datasheet figures
    "NVIDIA H200": Peak(
        989, 494, 67, 4.8, "H200 SXM datasheet: 1,979* / 989* / 67 / 4.8 TB/s", fp64=34, fp64_tc=67
    ),
    "NVIDIA H200 NVL": Peak(
        835, 417, 60, 4.8, "H200 NVL datasheet: 1,671* / 835* / 60", fp64=30, fp64_tc=60
    ),
    "NVIDIA H100 80GB HBM3": Peak(
        989, 494, 67, 3.35, "H100 SXM datasheet: 1,979* / 989* / 67", fp64=34, fp64_tc=67
    ),
    "NVIDIA H100 NVL": Peak(
        835, 417, 60, 3.9, "H100 NVL datasheet: 1,671* / 835* / 60", fp64=30, fp64_tc=60
    ),
    "NVIDIA H100 PCIe": Peak(
        756, 378, 51, 2.0, "H100 PCIe datasheet: 1,513* / 756* / 51", fp64=26, fp64_tc=51
    ),
    "NVIDIA H800 80GB HBM3": Peak(989, 494, 67, 3.35, "H800 SXM5 datasheet: 1,979* / 989*"),
    "NVIDIA GH200 480GB": Peak(
        989, 494, 67, None, "GH200 datasheet: 1,979* / 989* / 67", fp64=34, fp64_tc=67
    ),
    "NVIDIA B200": Peak(2250, 1100, None, 8.0, "HGX B200, per GPU: 4,500* / 2,200*, 8 TB/s"),
    "NVIDIA A100-SXM4-80GB": Peak(
        312, 156, 19.5, 2.039, "A100 datasheet: 624* / 312* / 19.5", fp64=9.7, fp64_tc=19.5
    ),
    "NVIDIA A100-SXM4-40GB": Peak(
        312, 156, 19.5, 1.555, "A100 datasheet (40GB SXM)", fp64=9.7, fp64_tc=19.5
    ),
    "NVIDIA A100 80GB PCIe": Peak(
        312, 156, 19.5, 1.935, "A100 datasheet (80GB PCIe)", fp64=9.7, fp64_tc=19.5
    ),
    "NVIDIA A100-PCIE-40GB": Peak(
        312, 156, 19.5, 1.555, "A100 datasheet (40GB PCIe)", fp64=9.7, fp64_tc=19.5
    ),
    "NVIDIA L40S": Peak(362, 183, 91.6, 0.864, "L40S datasheet: 733* / 366* / 91.6"),
    "NVIDIA L40": Peak(181, 90.5, 90.5, 0.864, "L40 datasheet: 362.1* / 181* / 90.5"),
    "NVIDIA L4": Peak(121, 60, 30.3, 0.3, "L4 datasheet: 242* / 120* / 30.3"),
    "NVIDIA A10": Peak(125, 62.5, 31.2, 0.6, "A10 datasheet: 250* / 125* / 31.2"),
    "NVIDIA RTX 6000 Ada Generation": Peak(364, 182, 91.1, 0.96, "Ada whitepaper: 728.5* / 364.2*"),
    "NVIDIA GeForce RTX 4090": Peak(165, 82.6, 82.6, 1.008, "Ada whitepaper: 330.4* / 165.2*"),
    "Tesla T4": Peak(None, None, 8.1, 0.32, "T4 datasheet: FP32 8.1, no bf16 or TF32 cores"),
}
# * with sparsity, as the datasheets print them; the table keeps half of each (dense).


def peak_of(device_kind: str) -> Peak | None:
    """The datasheet peaks of exactly this device kind, or None if the course does not list it."""
    return PEAKS.get(device_kind)
