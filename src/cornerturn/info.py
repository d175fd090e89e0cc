"""What this machine has: versions, devices, and which backends can run (and why not)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass

OPTIONAL = ("numba-cuda", "triton", "torch", "cupy-cuda13x", "cupy-cuda12x", "cupy", "jax", "ml_dtypes")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    found = {"cornerturn": _version("cornerturn"), "python": platform.python_version(),
             "numpy": _version("numpy"), "numba": _version("numba")}
    for dist in OPTIONAL:
        v = _version(dist)
        if v is not None or dist in ("numba-cuda", "triton", "torch"):
            found[dist] = v
    return found


def cpu_name() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores"


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), else what the platform module says."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return model


def cuda_devices() -> tuple[list[str], str]:
    """Names of the CUDA devices, and how they were found (or why none)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return [], "NUMBA_ENABLE_CUDASIM=1: the CUDA simulator is on"
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return [], "no NVIDIA driver (nvidia-smi not found)"
    try:
        out = subprocess.run([smi, "--query-gpu=name,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [], f"nvidia-smi failed: {exc}"
    names = [line.strip() for line in out.stdout.splitlines() if line.strip()]
    return names, "nvidia-smi" if names else f"nvidia-smi lists no GPU ({out.stderr.strip()[:100]})"


@dataclass(frozen=True)
class Backend:
    name: str
    available: bool
    detail: str


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def backends() -> list[Backend]:
    gpus, how = cuda_devices()
    gpu_note = f"GPU: {gpus[0]}" if gpus else how
    result = [Backend("cpu engine", _has("numba"), "Numba parallel tile kernels" if _has("numba")
                      else "numba is not installed")]
    if not (_has("triton") and _has("torch")):
        missing = [m for m in ("triton", "torch") if not _has(m)]
        result.append(Backend("gpu engine", False, f"{' and '.join(missing)} not installed"))
    elif not _has("cornerturn.engine.kernels"):
        result.append(Backend("gpu engine", False, "not part of this version of cornerturn"))
    else:
        result.append(Backend("gpu engine", bool(gpus), gpu_note if gpus else f"no GPU: {how}"))
    if not _has("numba.cuda"):
        result.append(Backend("lab", False, "numba-cuda is not installed"))
    elif not _has("cornerturn.lab.kernels"):
        result.append(Backend("lab", False, "not part of this version of cornerturn"))
    else:
        result.append(Backend("lab", True, gpu_note if gpus else f"simulator only ({how})"))
    return result


def report_lines() -> list[str]:
    lines = [f"cornerturn {versions()['cornerturn']} on Python {platform.python_version()} ({sys.platform})",
             f"CPU: {cpu_name()}"]
    gpus, how = cuda_devices()
    lines += [f"GPU {i}: {name}" for i, name in enumerate(gpus)] or [f"GPU: none ({how})"]
    lines.append("versions: " + ", ".join(f"{k} {v or '-'}" for k, v in versions().items()))
    for b in backends():
        lines.append(f"{b.name}: {'available' if b.available else 'unavailable'} ({b.detail})")
    return lines
