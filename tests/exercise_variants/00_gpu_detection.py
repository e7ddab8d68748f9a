"""Wrong-but-plausible and alternative-correct answers for solutions/00_gpu_detection."""

_DIAGNOSE = """
def diagnose(report, packages):
    device_line = next(line for line in report.splitlines() if line.startswith("device info:"))
    on_cpu = device_line.removeprefix("device info:").strip().startswith("cpu-")
    if {GPU_CHECK}:
        return "gpu-ok"
    env = dict(
        line.split("=", 1)
        for line in report.split("\\n\\n$ nvidia-smi")[0].splitlines()
        if line.startswith(("JAX_", "XLA_")) and "=" in line
    )
    platforms = {{p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()}}
    if platforms and not platforms & {{"cuda", "gpu"}}:
        return "forced-cpu"
    names = {{line.split()[0].lower() for line in packages.splitlines() if line.strip()}}
    if not names & {PLUGINS}:
        return "no-cuda-plugin"
    if "$ nvidia-smi" not in report:
        return "no-gpu-visible"
    if {CONFLICT}:
        return "memory-variables-conflict"
    return "plugin-failed"
"""


def _diagnose(
    gpu_check="not on_cpu",
    plugins='{"jax-cuda12-plugin", "jax-cuda13-plugin"}',
    conflict='"XLA_CLIENT_MEM_FRACTION" in env and "XLA_PYTHON_CLIENT_MEM_FRACTION" in env',
):
    return _DIAGNOSE.format(GPU_CHECK=gpu_check, PLUGINS=plugins, CONFLICT=conflict)


_LIMIT = """
def bytes_limit(env, gpu_memory_bytes):
    platforms = [p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()]
    if {HIDDEN}:
        return None
    new = env.get("XLA_CLIENT_MEM_FRACTION")
    old = {OLD}
    if new and old:
        {BOTH}
    if {PREALLOCATE}:
        return None
    return float(new or old or 0.75) * gpu_memory_bytes
"""


def _limit(
    hidden='(platforms and platforms[0] not in ("cuda", "gpu"))'
    ' or env.get("CUDA_VISIBLE_DEVICES") in ("", "-1")',
    old='env.get("XLA_PYTHON_CLIENT_MEM_FRACTION")',
    both="return None",
    preallocate="False",
):
    return _LIMIT.format(HIDDEN=hidden, OLD=old, BOTH=both, PREALLOCATE=preallocate)


_LAUNCHER = '''
LAUNCHER = """\\
import os
import sys

{BEFORE}
n_devices, fraction = int(sys.argv[1]), float(sys.argv[2])
{FLAGS}
os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
os.environ["{NAME}"] = str(fraction)
{POP}
{AFTER}
model.report()
"""
'''

_KEEP_FLAGS = (
    'os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + '
    'f" --xla_force_host_platform_device_count={n_devices}").strip()'
)


def _launcher(
    before="",
    flags=_KEEP_FLAGS,
    name="XLA_CLIENT_MEM_FRACTION",
    pop='os.environ.pop("XLA_PYTHON_CLIENT_MEM_FRACTION", None)',
    after="import model",
):
    return _LAUNCHER.format(BEFORE=before, FLAGS=flags, NAME=name, POP=pop, AFTER=after)


WRONG = {
    "only the CUDA 12 plugin flavour counts": {
        "task1-solution": _diagnose(plugins='{"jax-cuda12-plugin"}'),
    },
    "an answering nvidia-smi taken as proof that JAX uses the GPU": {
        "task1-solution": _diagnose(gpu_check='"$ nvidia-smi" in report'),
    },
    "any memory-fraction variable blamed for the conflict": {
        "task1-solution": _diagnose(
            conflict='"XLA_CLIENT_MEM_FRACTION" in env or "XLA_PYTHON_CLIENT_MEM_FRACTION" in env'
        ).replace(
            # and checked before the installation, as a learner who blames memory first would
            "names = {line",
            'if "XLA_CLIENT_MEM_FRACTION" in env or "XLA_PYTHON_CLIENT_MEM_FRACTION" in env:\n'
            '        return "memory-variables-conflict"\n    names = {line',
        ),
    },
    "two memory variables of any kind blamed, preallocation included": {
        "task1-solution": _diagnose(
            conflict='len([n for n in env if "MEM_FRACTION" in n or "PREALLOCATE" in n]) >= 2'
        ),
    },
    "the old fraction name ignored": {
        "task2-solution": _limit(old="None"),
    },
    "with both names set, the new one wins": {
        "task2-solution": _limit(both="old = None"),
    },
    "preallocation off read as no limit": {
        "task2-solution": _limit(
            preallocate='env.get("XLA_PYTHON_CLIENT_PREALLOCATE", "true") == "false"'
        ),
    },
    "a GPU hidden by JAX_PLATFORMS or CUDA_VISIBLE_DEVICES still counted": {
        "task2-solution": _limit(hidden="False"),
    },
    "a GPU anywhere in JAX_PLATFORMS counted (cpu,cuda: jax.devices()[0] is a CPU)": {
        "task2-solution": _limit(
            hidden='(platforms and not set(platforms) & {"cuda", "gpu"})'
            ' or env.get("CUDA_VISIBLE_DEVICES") in ("", "-1")'
        ),
    },
    "variables set after importing the model": {
        "task3-solution": _launcher(before="import model"),
    },
    "XLA_FLAGS overwritten: the inherited flags are lost": {
        "task3-solution": _launcher(
            flags='os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={n_devices}"'
        ),
    },
    "the inherited old memory variable left in place": {
        "task3-solution": _launcher(pop=""),
    },
    "the fraction set under the old name": {
        "task3-solution": _launcher(name="XLA_PYTHON_CLIENT_MEM_FRACTION", pop=""),
    },
    "the CPU split through jax.config instead of the flag the task names": {
        "task3-solution": _launcher(
            flags="",
            after='import jax\n\njax.config.update("jax_num_cpu_devices", n_devices)\nimport model',
        ),
    },
    "gpu-ok read from the word NVIDIA in the device name": {
        "task1-solution": _diagnose(gpu_check='"NVIDIA" in device_line'),
    },
    "the memory conflict checked before the plugin": {
        "task1-solution": """
def diagnose(report, packages):
    device_line = next(line for line in report.splitlines() if line.startswith("device info:"))
    if not device_line.removeprefix("device info:").strip().startswith("cpu-"):
        return "gpu-ok"
    head = report.split("$ nvidia-smi")[0]
    env = dict(l.split("=", 1) for l in head.splitlines() if l.startswith(("JAX_", "XLA_")))
    platforms = {p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()}
    if platforms and not platforms & {"cuda", "gpu"}:
        return "forced-cpu"
    # both fraction names: JAX refuses to start the GPU, whatever else is installed
    if "XLA_CLIENT_MEM_FRACTION" in env and "XLA_PYTHON_CLIENT_MEM_FRACTION" in env:
        return "memory-variables-conflict"
    names = {line.split()[0].lower() for line in packages.splitlines() if line.strip()}
    if not names & {"jax-cuda12-plugin", "jax-cuda13-plugin"}:
        return "no-cuda-plugin"
    if "$ nvidia-smi" not in report:
        return "no-gpu-visible"
    return "plugin-failed"
""",
    },
    "any JAX_PLATFORMS but exactly cuda read as off the GPU": {
        "task2-solution": """
def bytes_limit(env, gpu_memory_bytes):
    # JAX_PLATFORMS set to anything but cuda keeps JAX off the GPU
    if env.get("JAX_PLATFORMS", "cuda") != "cuda":
        return None
    if env.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return None
    new, old = env.get("XLA_CLIENT_MEM_FRACTION"), env.get("XLA_PYTHON_CLIENT_MEM_FRACTION")
    if new and old:
        return None
    return float(new or old or 0.75) * gpu_memory_bytes
""",
    },
    "inherited XLA_FLAGS parsed as name=value pairs": {
        "task3-solution": _launcher(
            flags='flags = dict(f.split("=", 1) for f in os.environ.get("XLA_FLAGS", "").split())\n'
            'flags["--xla_force_host_platform_device_count"] = str(n_devices)\n'
            'os.environ["XLA_FLAGS"] = " ".join(f"{k}={v}" for k, v in flags.items())'
        ),
    },
    "the platform allocator: memory on demand, but not the allocator the fraction caps": {
        "task3-solution": _launcher(
            before='os.environ["XLA_PYTHON_CLIENT_ALLOCATOR"] = "platform"'
        ),
    },
    "a CPU fallback recognised only as one CPU device (cpu-1)": {
        "task1-solution": _diagnose(gpu_check='"device info: cpu-1" not in report'),
    },
    "preallocation turned off only where the environment did not choose": {
        "task3-solution": _launcher(
            before='os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")'
        ).replace('os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"\n', ""),
    },
    "the fraction written with three decimals (0.0625 becomes 0.062)": {
        "task3-solution": _launcher().replace("str(fraction)", 'f"{fraction:.3f}"'),
    },
    "env rewritten in place (the old fraction name moved, the default filled in)": {
        "task2-solution": """
def bytes_limit(env, gpu_memory_bytes):
    # normalise the environment the way jaxlib reads it: the old name moves to the new one
    if "XLA_PYTHON_CLIENT_MEM_FRACTION" in env and "XLA_CLIENT_MEM_FRACTION" in env:
        return None  # both names: the CUDA plugin refuses to start
    if "XLA_PYTHON_CLIENT_MEM_FRACTION" in env:
        env["XLA_CLIENT_MEM_FRACTION"] = env.pop("XLA_PYTHON_CLIENT_MEM_FRACTION")
    env.setdefault("XLA_CLIENT_MEM_FRACTION", "0.75")
    platforms = {p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()}
    if platforms and not platforms & {"cuda", "gpu"}:
        return None
    if env.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return None
    return float(env["XLA_CLIENT_MEM_FRACTION"]) * gpu_memory_bytes
""",
    },
    "JAX_PLATFORMS=cpu set, so that the CPU is split (a GPU job runs on the CPU)": {
        "task3-solution": _launcher(before='os.environ["JAX_PLATFORMS"] = "cpu"'),
    },
    "task 2: an empty JAX_PLATFORMS read as a platform list that excludes the GPU": {
        "task2-solution": """
def bytes_limit(env, gpu_memory_bytes):
    if "JAX_PLATFORMS" in env:  # the first platform listed is the default one
        first = env["JAX_PLATFORMS"].split(",")[0].strip().lower()
        if first not in ("cuda", "gpu"):
            return None
    if env.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return None
    new, old = env.get("XLA_CLIENT_MEM_FRACTION"), env.get("XLA_PYTHON_CLIENT_MEM_FRACTION")
    if new and old:
        return None
    return float(new or old or 0.75) * gpu_memory_bytes
""",
    },
    "task 1: an empty JAX_PLATFORMS read as forcing the CPU": {
        "task1-solution": r"""
def diagnose(report, packages):
    device_line = next(line for line in report.splitlines() if line.startswith("device info:"))
    if not device_line.removeprefix("device info:").strip().startswith("cpu-"):
        return "gpu-ok"
    env = dict(
        line.split("=", 1)
        for line in report.split("\n\n$ nvidia-smi")[0].splitlines()
        if line.startswith(("JAX_", "XLA_")) and "=" in line
    )
    # any JAX_PLATFORMS without a GPU platform in it restricts JAX to the CPU
    listed = set(env.get("JAX_PLATFORMS", "").lower().split(","))
    if "JAX_PLATFORMS" in env and not {"cuda", "gpu"} & listed:
        return "forced-cpu"
    names = {line.split()[0].lower() for line in packages.splitlines() if line.strip()}
    if not names & {"jax-cuda12-plugin", "jax-cuda13-plugin"}:
        return "no-cuda-plugin"
    if "$ nvidia-smi" not in report:
        return "no-gpu-visible"
    if "XLA_CLIENT_MEM_FRACTION" in env and "XLA_PYTHON_CLIENT_MEM_FRACTION" in env:
        return "memory-variables-conflict"
    return "plugin-failed"
""",
    },
}

CORRECT = {
    "report parsed with regular expressions, rules as a table": {
        "task1-solution": r"""
import re


def diagnose(report, packages):
    kind = re.search(r"^device info: (.*)-\d+, \d+ local devices", report, re.M).group(1)
    head = report.split("$ nvidia-smi")[0]
    env = dict(re.findall(r"^((?:JAX|XLA)_\w+)=(.*)$", head, re.M))
    wanted = [p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()]
    plugin = re.search(r"^jax[-_]cuda1[23][-_]plugin\b", packages, re.M | re.I)
    rules = [
        ("gpu-ok", kind != "cpu"),
        ("forced-cpu", bool(wanted) and not {"cuda", "gpu"} & set(wanted)),
        ("no-cuda-plugin", plugin is None),
        ("no-gpu-visible", "$ nvidia-smi" not in report),
        ("memory-variables-conflict", {"XLA_CLIENT_MEM_FRACTION",
                                       "XLA_PYTHON_CLIENT_MEM_FRACTION"} <= env.keys()),
    ]
    return next((label for label, hit in rules if hit), "plugin-failed")
""",
    },
    "fraction looked up step by step, limit as an int": {
        "task2-solution": """
def bytes_limit(env, gpu_memory_bytes):
    if env.get("CUDA_VISIBLE_DEVICES", "0").strip() in {"", "-1"}:
        return None
    requested = env.get("JAX_PLATFORMS")
    if requested and requested.lower().split(",")[0].strip() not in ("cuda", "gpu"):
        return None
    names = [n for n in ("XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_MEM_FRACTION") if env.get(n)]
    if len(names) == 2:
        return None
    fraction = float(env[names[0]]) if names else 0.75
    return round(fraction * gpu_memory_bytes)
""",
    },
    "jax imported first (no operation yet), flags joined with filter": {
        "task3-solution": '''
LAUNCHER = """\\
import os
import sys

import jax  # importing alone starts no backend; model.py's first operation does

n, fraction = sys.argv[1:3]
flags = [os.environ.get("XLA_FLAGS"), "--xla_force_host_platform_device_count=" + n]
os.environ["XLA_FLAGS"] = " ".join(filter(None, flags))
os.environ.update(XLA_PYTHON_CLIENT_PREALLOCATE="false", XLA_CLIENT_MEM_FRACTION=fraction)
if "XLA_PYTHON_CLIENT_MEM_FRACTION" in os.environ:
    del os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"]

import model

model.report()
"""
''',
    },
    "preallocation switched off with 0, which jaxlib also reads as off": {
        "task3-solution": _launcher().replace('PREALLOCATE"] = "false"', 'PREALLOCATE"] = "0"'),
    },
    "labels as members of a StrEnum": {
        "task1-solution": """
from enum import StrEnum


class Label(StrEnum):
    GPU_OK = "gpu-ok"
    NO_CUDA_PLUGIN = "no-cuda-plugin"
    FORCED_CPU = "forced-cpu"
    NO_GPU_VISIBLE = "no-gpu-visible"
    MEMORY_CONFLICT = "memory-variables-conflict"
    PLUGIN_FAILED = "plugin-failed"


def diagnose(report, packages):
    device_line = next(line for line in report.splitlines() if line.startswith("device info:"))
    if not device_line.removeprefix("device info:").strip().startswith("cpu-"):
        return Label.GPU_OK
    head = report.split("$ nvidia-smi")[0]
    env = dict(l.split("=", 1) for l in head.splitlines() if l.startswith(("JAX_", "XLA_")))
    platforms = {p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()}
    if platforms and not platforms & {"cuda", "gpu"}:
        return Label.FORCED_CPU
    names = {line.split()[0].lower() for line in packages.splitlines() if line.strip()}
    if not names & {"jax-cuda12-plugin", "jax-cuda13-plugin"}:
        return Label.NO_CUDA_PLUGIN
    if "$ nvidia-smi" not in report:
        return Label.NO_GPU_VISIBLE
    if "XLA_CLIENT_MEM_FRACTION" in env and "XLA_PYTHON_CLIENT_MEM_FRACTION" in env:
        return Label.MEMORY_CONFLICT
    return Label.PLUGIN_FAILED
""",
    },
    "regular expressions; a plugin newer than the driver's CUDA taken as a failed plugin first": {
        "task1-solution": r"""
def diagnose(report, packages):
    import re

    head, _, smi = report.partition("$ nvidia-smi")
    device = re.search(r"^device info: (.+)-\d+, \d+ local devices", report, re.M).group(1)
    if device.strip().lower() != "cpu":
        return "gpu-ok"
    env = {}
    for line in head.splitlines():
        name, eq, value = line.partition("=")
        if eq and re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
            env[name] = value
    platforms = [p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()]
    if platforms and "cuda" not in platforms and "gpu" not in platforms:
        return "forced-cpu"
    flavours = {int(m) for m in re.findall(r"^jax[-_]cuda(\d+)[-_]plugin\b", packages, re.M | re.I)}
    if not flavours:
        return "no-cuda-plugin"
    if not smi.strip():
        return "no-gpu-visible"
    # lesson section 7: a driver whose "CUDA Version" is older than the plugin's flavour
    driver_cuda = re.search(r"CUDA Version:\s*(\d+)", smi)
    if driver_cuda and int(driver_cuda.group(1)) < min(flavours):
        return "plugin-failed"
    if "XLA_CLIENT_MEM_FRACTION" in env and "XLA_PYTHON_CLIENT_MEM_FRACTION" in env:
        return "memory-variables-conflict"
    return "plugin-failed"
""",
    },
}
