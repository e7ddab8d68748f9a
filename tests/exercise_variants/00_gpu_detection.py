"""Wrong-but-plausible and alternative-correct answers for solutions/00_gpu_detection."""

WRONG = {
    "memory total ignores devices without statistics": {
        "task1-solution": """
def device_report(devices):
    devices = list(devices)
    if not devices:
        raise ValueError("empty")
    limits = [(d.memory_stats() or {}).get("bytes_limit") for d in devices]
    known = [limit for limit in limits if limit is not None]
    return {
        "platform": devices[0].platform,
        "device_count": len(devices),
        "device_kinds": sorted({d.device_kind for d in devices}),
        "memory_limit_bytes": sum(known) if known else None,
    }
""",
    },
    "device kinds not deduplicated": {
        "task1-solution": """
def device_report(devices):
    devices = list(devices)
    if not devices:
        raise ValueError("empty")
    stats = [d.memory_stats() for d in devices]
    missing = any(s is None or "bytes_limit" not in s for s in stats)
    return {
        "platform": devices[0].platform,
        "device_count": len(devices),
        "device_kinds": sorted(d.device_kind for d in devices),
        "memory_limit_bytes": None if missing else sum(s["bytes_limit"] for s in stats),
    }
""",
    },
    "empty device list raises IndexError": {
        "task1-solution": """
def device_report(devices):
    devices = list(devices)
    stats = [d.memory_stats() for d in devices]
    missing = any(s is None or "bytes_limit" not in s for s in stats)
    return {
        "platform": devices[0].platform,
        "device_count": len(devices),
        "device_kinds": sorted({d.device_kind for d in devices}),
        "memory_limit_bytes": None if missing else sum(s["bytes_limit"] for s in stats),
    }
""",
    },
    "installation checked before the environment": {
        "task2-solution": """
def diagnose(symptoms):
    if symptoms.backend == "gpu":
        return "gpu-ok"
    if not symptoms.cuda_plugin_installed:
        return "cpu-only-jaxlib"
    platforms = symptoms.env.get("JAX_PLATFORMS", "").replace(" ", "").lower()
    if platforms and not {"cuda", "gpu"} & set(platforms.split(",")):
        return "hidden-by-env"
    if symptoms.env.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return "hidden-by-env"
    if not symptoms.nvidia_smi_works:
        return "no-gpu-access"
    return "driver-mismatch"
""",
    },
    "any JAX_PLATFORMS value hides the GPU": {
        "task2-solution": """
def diagnose(symptoms):
    if symptoms.backend == "gpu":
        return "gpu-ok"
    if symptoms.env.get("JAX_PLATFORMS") or symptoms.env.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return "hidden-by-env"
    if not symptoms.cuda_plugin_installed:
        return "cpu-only-jaxlib"
    if not symptoms.nvidia_smi_works:
        return "no-gpu-access"
    return "driver-mismatch"
""",
    },
    "JAX_PLATFORMS compared without normalising case and spaces": {
        "task2-solution": """
def diagnose(symptoms):
    if symptoms.backend == "gpu":
        return "gpu-ok"
    platforms = symptoms.env.get("JAX_PLATFORMS", "")
    if platforms and not {"cuda", "gpu"} & set(platforms.split(",")):
        return "hidden-by-env"
    if symptoms.env.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return "hidden-by-env"
    if not symptoms.cuda_plugin_installed:
        return "cpu-only-jaxlib"
    if not symptoms.nvidia_smi_works:
        return "no-gpu-access"
    return "driver-mismatch"
""",
    },
    "deprecated fraction variable": {
        "task3-solution": """
def memory_env(preallocate, fraction=None, visible_gpus=None):
    settings = {"XLA_PYTHON_CLIENT_PREALLOCATE": "true" if preallocate else "false"}
    if fraction is not None:
        if not 0 < fraction <= 1:
            raise ValueError(fraction)
        settings["XLA_PYTHON_CLIENT_MEM_FRACTION"] = str(fraction)
        settings["XLA_CLIENT_MEM_FRACTION"] = str(fraction)
    if visible_gpus is not None:
        settings["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, visible_gpus))
    return settings


def apply_before_jax(settings, environ, modules):
    if "jax" in modules or "jaxlib" in modules:
        raise RuntimeError("too late")
    environ.pop("XLA_PYTHON_CLIENT_MEM_FRACTION", None)
    environ.update(settings)
""",
    },
    "environment changed before refusing": {
        "task3-solution": """
def memory_env(preallocate, fraction=None, visible_gpus=None):
    settings = {"XLA_PYTHON_CLIENT_PREALLOCATE": "true" if preallocate else "false"}
    if fraction is not None:
        if not 0 < fraction <= 1:
            raise ValueError(fraction)
        settings["XLA_CLIENT_MEM_FRACTION"] = str(fraction)
    if visible_gpus is not None:
        settings["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, visible_gpus))
    return settings


def apply_before_jax(settings, environ, modules):
    environ.pop("XLA_PYTHON_CLIENT_MEM_FRACTION", None)
    environ.update(settings)
    if "jax" in modules or "jaxlib" in modules:
        raise RuntimeError("too late")
""",
    },
    "only jax, not jaxlib, counts as imported": {
        "task3-solution": """
def memory_env(preallocate, fraction=None, visible_gpus=None):
    settings = {"XLA_PYTHON_CLIENT_PREALLOCATE": "true" if preallocate else "false"}
    if fraction is not None:
        if not 0 < fraction <= 1:
            raise ValueError(fraction)
        settings["XLA_CLIENT_MEM_FRACTION"] = str(fraction)
    if visible_gpus is not None:
        settings["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, visible_gpus))
    return settings


def apply_before_jax(settings, environ, modules):
    if "jax" in modules:
        raise RuntimeError("too late")
    environ.pop("XLA_PYTHON_CLIENT_MEM_FRACTION", None)
    environ.update(settings)
""",
    },
}

CORRECT = {
    "report built with a generator and dict.get": {
        "task1-solution": """
def device_report(devices):
    devices = tuple(devices)
    if len(devices) == 0:
        raise ValueError("device_report needs at least one device")
    total = 0
    for device in devices:
        limit = (device.memory_stats() or {}).get("bytes_limit")
        if limit is None:
            total = None
            break
        total += limit
    return dict(
        platform=devices[0].platform,
        device_count=len(devices),
        device_kinds=sorted(set(d.device_kind for d in devices)),
        memory_limit_bytes=total,
    )
""",
    },
    "diagnosis as a table of rules": {
        "task2-solution": """
def diagnose(symptoms):
    env = symptoms.env
    names = [p.strip().lower() for p in env.get("JAX_PLATFORMS", "").split(",") if p.strip()]
    rules = [
        ("gpu-ok", symptoms.backend == "gpu"),
        ("hidden-by-env", bool(names) and "cuda" not in names and "gpu" not in names),
        ("hidden-by-env", env.get("CUDA_VISIBLE_DEVICES", "0") in {"", "-1"}),
        ("cpu-only-jaxlib", not symptoms.cuda_plugin_installed),
        ("no-gpu-access", not symptoms.nvidia_smi_works),
    ]
    return next((label for label, matches in rules if matches), "driver-mismatch")
""",
    },
    "fraction written with repr, variables set one by one": {
        "task3-solution": """
def memory_env(preallocate, fraction=None, visible_gpus=None):
    env = {"XLA_PYTHON_CLIENT_PREALLOCATE": str(bool(preallocate)).lower()}
    if fraction is not None:
        if fraction <= 0 or fraction > 1:
            raise ValueError("fraction must be in (0, 1]")
        env["XLA_CLIENT_MEM_FRACTION"] = repr(float(fraction))
    if visible_gpus is not None:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(f"{gpu}" for gpu in visible_gpus)
    return env


def apply_before_jax(settings, environ, modules):
    if any(name in modules for name in ("jax", "jaxlib")):
        raise RuntimeError("set these before importing JAX")
    if "XLA_PYTHON_CLIENT_MEM_FRACTION" in environ:
        del environ["XLA_PYTHON_CLIENT_MEM_FRACTION"]
    for name, value in settings.items():
        environ[name] = value
""",
    },
}
