"""Which code paths a test run reaches, for comparing the fast tier with the full one (not a test).

With CORNERTURN_RECORD_PATHS=FILE set, conftest wraps, for the session, every engine launch (kernel name and its
compile-time flags, tile sizes and warps left out) and every module-level Python function of the CPU engine, the
in-place planners and the canonical form, and writes the set of paths reached to FILE at the end:

    CORNERTURN_RECORD_PATHS=/tmp/fast.json scripts/test.sh
    CORNERTURN_RECORD_PATHS=/tmp/full.json scripts/test.sh --full     # with workers: /tmp/full.json.gw0, .gw1, ...
    python3 tests/paths.py /tmp/fast.json /tmp/full.json     # paths the full tier reaches and the fast one misses
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
from pathlib import Path

SIZES = ("BLOCK", "GROUP", "H", "K")  # tile and grouping sizes: tuning, not paths
HINTS = ("IN_ALIGN", "OUT_ALIGN")  # what the compiler is told of the strides: data, not paths
MODULES = ("cornerturn.cpu.planner", "cornerturn.cpu.rectangular", "cornerturn.cpu.inplace", "cornerturn.cpu.kernels",
           "cornerturn.blocks", "cornerturn.cycles", "cornerturn.ckg", "cornerturn.problem", "cornerturn.api",
           "cornerturn.arrays", "cornerturn.engine.plan", "cornerturn.engine.rectangular",
           "cornerturn.engine.inplace", "cornerturn.engine.configs")


def _flags(constexprs: dict) -> tuple:
    return tuple(sorted((k, v) for k, v in constexprs.items() if not k.startswith(SIZES) and k not in HINTS))


def install(monkeypatch_setattr, seen: set) -> None:
    """Wrap the launches and the listed modules' functions so that each call adds its path to `seen`."""
    from cornerturn.engine import launch

    for name in ("run_tensors", "run_pointers"):
        original = getattr(launch.Launch, name)

        def wrapped(self, *args, _original=original, **kwargs):
            seen.add(f"kernel {self.kernel.fn.__name__} {_flags(self.constexprs)}")
            return _original(self, *args, **kwargs)

        monkeypatch_setattr(launch.Launch, name, wrapped)
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for attr, value in list(vars(module).items()):
            if inspect.isfunction(value) and value.__module__ == module_name:
                monkeypatch_setattr(module, attr, _recording(value, f"{module_name}.{attr}", seen))


def _recording(fn, label: str, seen: set):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        seen.add(f"call {label}")
        return fn(*args, **kwargs)

    return wrapper


def read(path: str) -> set:
    """The paths in FILE and in the FILE.gwN that pytest-xdist's workers wrote."""
    files = [Path(path)] if Path(path).exists() else []
    files += sorted(Path(path).parent.glob(Path(path).name + ".gw*"))
    if not files:
        raise SystemExit(f"{path}: no such file, nor {path}.gwN")
    return set().union(*(json.loads(f.read_text()) for f in files))


def write(path: str, seen: set) -> None:
    with open(path, "w") as f:
        json.dump(sorted(seen), f, indent=0)


if __name__ == "__main__":
    fast, full = (read(p) for p in sys.argv[1:3])
    missing = sorted(full - fast)
    print(f"fast tier: {len(fast)} paths, full tier: {len(full)}, reached only in the full tier: {len(missing)}")
    for path in missing:
        print("  " + path)
    sys.exit(1 if missing else 0)
