"""Autotuning: measure every candidate configuration of a problem within a budget, keep every timing in a JSON
cache per device, and answer later plans from it.

The cache lives in $CORNERTURN_CACHE_DIR (default: $XDG_CACHE_HOME/cornerturn or ~/.cache/cornerturn), one file
per device name; CORNERTURN_CACHE_DIR=off disables it. Keys hold the canonical problem, the word size, the
device name and the versions of cornerturn, triton and torch, so an upgrade never reuses stale timings. A broken
file is ignored with a warning.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
import warnings
from pathlib import Path

from ..arrays import byte_range
from ..problem import Permutation, Problem
from .configs import (
    CopyConfig,
    GatherConfig,
    InterleaveConfig,
    NarrowConfig,
    PairsConfig,
    SplitConfig,
    TileConfig,
    WordsConfig,
    candidates,
)
from .permute import (
    PermuteConfig,
    PermuteGatherConfig,
    PermuteInterleaveConfig,
    PermuteWordsConfig,
    RunsConfig,
    ShiftedRunsConfig,
)

_KINDS = {"tiles": TileConfig, "copy": CopyConfig, "pairs": PairsConfig, "words": WordsConfig, "narrow": NarrowConfig,
          "interleave": InterleaveConfig, "permute": PermuteConfig, "runs": RunsConfig,
          "shifted-runs": ShiftedRunsConfig, "permute-words": PermuteWordsConfig,
          "permute-interleave": PermuteInterleaveConfig, "gather": GatherConfig,
          "split": SplitConfig, "permute-gather": PermuteGatherConfig}

SCHEMA = 2  # 2: the words kernel took the place of the packed and funnel kernels (2026-11-24)
DEFAULT_BUDGET_S = 30.0


def cache_dir() -> Path | None:
    value = os.environ.get("CORNERTURN_CACHE_DIR")
    if value is not None and value.strip().lower() in ("off", "0", "none", ""):
        return None
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cornerturn"


def cache_file(device_name: str) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", device_name).strip("-") or "gpu"
    return folder / f"tune-{slug}.json"


def _versions() -> str:
    from ..info import versions

    v = versions()
    return f"cornerturn {v.get('cornerturn')}, triton {v.get('triton')}, torch {v.get('torch')}"


def entry_key(problem: Problem, word: int, device_name: str) -> str:
    return json.dumps([SCHEMA, list(map(_plain, problem.key)), word, device_name, _versions()])


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


def load(path: Path | None) -> dict:
    if path is None or not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("entries"), dict):
            raise ValueError(f"not a cornerturn tuning cache of schema {SCHEMA}")
        return data["entries"]
    except (OSError, ValueError) as exc:
        warnings.warn(f"cornerturn: ignoring the tuning cache {path}: {exc}", RuntimeWarning, stacklevel=3)
        return {}


def save(path: Path | None, entries: dict) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"schema": SCHEMA, "entries": entries}, indent=1))
    tmp.replace(path)


def config_from_dict(d: dict):
    fields = {k: v for k, v in d.items() if k != "kind"}
    return _KINDS[d["kind"]](**fields)


def config_to_dict(c) -> dict:
    kind = next(k for k, t in _KINDS.items() if isinstance(c, t))
    return {"kind": kind, **dataclasses.asdict(c)}


def _device_name(device: str) -> str:
    import torch

    return torch.cuda.get_device_name(int(device.split(":")[1]))


def tuned_config(problem: Problem, device: str, word: int, *, measure: bool = False,
                 budget_s: float | None = None):
    """(config, reason) from the cache; measured now when `measure`; (None, None) when neither."""
    if problem.kind == "empty":
        return None, None
    _, config, reason = _cached_or_measured(problem, device, word, measure, budget_s)
    return config, reason


def tuned_permutation(perm: Permutation, device: str, *, measure: bool = False, budget_s: float | None = None):
    """(word, config, reason) of a permutation from the cache, measured now when `measure` (the planner's plan and
    the element tiles, plain and packed, permute.candidates); (None, None, None) when neither."""
    return _cached_or_measured(perm, device, 0, measure, budget_s)


def _parsed(best: dict, problem: Problem | Permutation) -> tuple[int | None, object]:
    """(word, config) of a candidate's dict: a permutation's records the word it moves (KeyError where it does not),
    a transpose's has none."""
    fields = dict(best)
    word = fields.pop("word") if isinstance(problem, Permutation) else None
    return word, config_from_dict(fields)


def _cached_or_measured(problem: Problem | Permutation, device: str, word: int, measure: bool,
                        budget_s: float | None) -> tuple[int | None, object | None, str | None]:
    """(word, config, reason) of the best candidate from the cache, or measured now and written there when
    `measure`; (None, None, None) when neither."""
    name = _device_name(device)
    path = cache_file(name)
    entries = load(path)
    key = entry_key(problem, word, name)
    hit = entries.get(key)
    if hit is not None and not measure:
        try:
            return *_parsed(hit["best"], problem), f"autotuned on {hit['date']} ({len(hit['timings'])} candidates)"
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            warnings.warn(f"cornerturn: ignoring a broken tuning entry in {path}: {exc}", RuntimeWarning,
                          stacklevel=3)
    if not measure:
        return None, None, None
    timings = measure_candidates(problem, device, word, budget_s=budget_s or DEFAULT_BUDGET_S)
    ok = [t for t in timings if t["median_s"] is not None]
    if not ok:
        return None, None, None
    best = min(ok, key=lambda t: t["median_s"])
    entries = load(path)  # re-read: another process may have added entries
    entries[key] = {"best": best["config"], "timings": timings,
                    "date": time.strftime("%Y-%m-%d", time.gmtime()), "problem": problem.describe()}
    try:
        save(path, entries)
    except OSError as exc:
        warnings.warn(f"cornerturn: could not write the tuning cache {path}: {exc}", RuntimeWarning, stacklevel=3)
    return *_parsed(best["config"], problem), f"autotuned now ({len(ok)} candidates measured)"


def _plans(problem: Problem | Permutation, word: int) -> list[tuple[dict, object]]:
    """(config dict, its plan builder) of each candidate: a transpose's in `word`, a permutation's in the word each
    candidate moves (recorded in the dict)."""
    if isinstance(problem, Permutation):
        from . import permute

        return [({**config_to_dict(c), "word": w}, lambda w=w, c=c: permute.build(problem, w, c))
                for w, c in permute.candidates(problem)]
    from .plan import build

    return [(config_to_dict(c), lambda c=c: build(problem, word, c)) for c in candidates(problem, word)]


def measure_candidates(problem: Problem | Permutation, device: str, word: int, *, budget_s: float) -> list[dict]:
    """Time each candidate on random data (checked against the first candidate's output) until the budget."""
    import torch

    from .timing import time_cuda

    index = int(device.split(":")[1])
    lo, hi = _extent(problem)
    nbytes = hi - lo
    with torch.cuda.device(index):
        base = torch.randint(-128, 127, (nbytes,), dtype=torch.int8, device=device)
        out = torch.empty(problem.elements * problem.itemsize, dtype=torch.int8, device=device)
        x_ptr, out_ptr = base.data_ptr() - lo, out.data_ptr()
        stream = torch._C._cuda_getCurrentRawStream(index)
        reference = None
        timings = []
        deadline = time.perf_counter() + budget_s
        for config, make in _plans(problem, word):
            if time.perf_counter() > deadline:
                timings.append({"config": config, "median_s": None, "note": "over budget"})
                continue
            try:
                plan = make()
            except ValueError as exc:  # a candidate this permutation cannot take
                timings.append({"config": config, "median_s": None, "note": str(exc)[:200]})
                continue

            def call(plan=plan):
                for xo, oo, launch in plan.pieces:
                    launch.run_pointers(x_ptr + xo, out_ptr + oo, stream, index)

            try:
                out.fill_(-91)
                call()
                torch.cuda.synchronize(index)
            except Exception as exc:  # a configuration the compiler or the device refuses
                timings.append({"config": config, "median_s": None, "note": str(exc)[:200]})
                continue
            if reference is None:
                reference = out.clone()
            elif not torch.equal(out, reference):
                timings.append({"config": config, "median_s": None, "note": "wrong result"})
                continue
            t = time_cuda(call, device=index, warmup=1, repeats=5)
            timings.append({"config": config, "median_s": t.median, "min_s": t.min, "max_s": t.max})
        del base, out, reference
    return timings


def _extent(problem: Problem | Permutation) -> tuple[int, int]:
    """Byte offsets [lo, hi) of the input's elements relative to its first element."""
    if isinstance(problem, Permutation):
        return byte_range(problem.extents, problem.in_strides, problem.itemsize)
    return byte_range((*problem.batch, problem.rows, problem.cols),
                      (*problem.batch_strides, problem.row_stride, problem.col_stride), problem.itemsize)
