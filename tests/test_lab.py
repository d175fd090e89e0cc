"""The lab's kernels: bit-exact in numba-cuda's simulator on ragged shapes, and compiled for sm_90 with the
properties that matter (barriers, shared bytes, no local memory, no signed-index selects)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import grid

if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
    pytest.skip("the simulator tests need NUMBA_ENABLE_CUDASIM=1 (conftest sets it without a GPU)",
                allow_module_level=True)
pytest.importorskip("numba.cuda")

from cornerturn.lab import registry  # noqa: E402
from cornerturn.lab.runner import run_lab  # noqa: E402

pytestmark = pytest.mark.slow


def failures(report):
    return [(r.kernel, r.note) for r in report.results if r.verified is not True and "square" not in r.note]


@pytest.mark.parametrize("shape", grid([(1, 1), (33, 31), (70, 45)], fast=[((1, 1),), ((33, 31),)]))
def test_every_kernel_float32_ragged(shape):
    report = run_lab(*shape, "float32")
    assert report.simulated and len(report.results) == len(registry.REGISTRY)
    assert failures(report) == []


@pytest.mark.parametrize("dtype, shape", grid(["uint8", "float16", "float64"], [(17, 40), (31, 45)],
                                             fast=[("uint8", (17, 40))]))  # the kernels are generic in the dtype
def test_every_kernel_other_element_sizes(dtype, shape):
    assert failures(run_lab(*shape, dtype)) == []


def test_in_place_square_ragged_and_refusal():
    for n in (1, 37, 64):
        report = run_lab(n, n, "float32", ["inplace-square"])
        assert report.results[0].verified is True
    report = run_lab(8, 9, "float32", ["inplace-square"])
    assert report.results[0].verified is None and "square" in report.results[0].note


@pytest.mark.parametrize("shape", grid([(33, 20), (40, 33), (70, 45)], fast=[((33, 20),)]))
def test_tile_rows_beyond_the_grid_limit_are_looped(shape, monkeypatch):
    monkeypatch.setattr(registry, "GRID_Y_MAX", 1)
    names = [k.name for k in registry.REGISTRY if not k.in_place and k.name != "naive-1d"]
    report = run_lab(*shape, "float32", names)
    assert all(registry.launch_shape(registry.get(n), *shape)[0][1] == 1 for n in names)
    assert failures(report) == []


@pytest.fixture(scope="module")
def ptx_stats():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-m", "cornerturn.lab.ptx", "float32"], capture_output=True, text=True,
                         env=env, timeout=900)
    if out.returncode != 0 and "nvvm" in out.stderr.lower():
        pytest.skip(f"no NVVM to compile PTX: {out.stderr.strip().splitlines()[-1]}")
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_every_kernel_compiles_for_sm90(ptx_stats):
    assert set(ptx_stats) == {k.name for k in registry.REGISTRY}


def test_tiled_kernels_have_barriers_and_designed_shared_memory(ptx_stats):
    for k in registry.REGISTRY:
        s = ptx_stats[k.name]
        assert s["shared_bytes"] == k.shared_bytes(4), k.name
        assert (s["barriers"] > 0) == k.uses_shared, k.name
    assert ptx_stats["tile32-coarse8-padded"]["shared_bytes"] == 4224  # 32 x 33 x 4 bytes
    assert ptx_stats["tile32-coarse8"]["shared_bytes"] == 4096


def test_no_local_memory_and_no_signed_index_selects(ptx_stats):
    for name, s in ptx_stats.items():
        assert not s["local_memory"], name
        assert s["selects"] == 0, f"{name}: {s['selects']} selp (signed-index wraparound?)"
