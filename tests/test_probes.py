"""The speed model's probe kernels move the right bytes (numba-cuda's simulator, small matrices): what they time
on a GPU is only worth its figure if every element lands where the probe says."""

from __future__ import annotations

import os

import numpy as np
import pytest

if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
    pytest.skip("the simulator tests need NUMBA_ENABLE_CUDASIM=1 (conftest sets it without a GPU)",
                allow_module_level=True)
pytest.importorskip("numba.cuda")

from numba import cuda  # noqa: E402

from cornerturn.lab import probes  # noqa: E402

SIDE = 64


def _run(kernel, grid, block, host, *args):
    x = cuda.to_device(host)
    y = cuda.to_device(np.full_like(host, -1.0))
    kernel[grid, block](y, x, *args)
    return y.copy_to_host()


def _host(shape):
    return np.random.default_rng(5).random(shape, dtype=np.float32) + 1  # never zero, never -1


@pytest.mark.parametrize("loads, barrier", [(1, False), (2, True)])
def test_tiles_copy_every_element(loads, barrier):
    host = _host((SIDE, SIDE))
    got = _run(probes.make_tiles(loads, barrier), 3, (32, 8), host)  # fewer blocks than tiles: grid-stride
    assert np.array_equal(got, host)


def test_sectors_move_a_permutation():
    host = _host(SIDE * SIDE)
    got = _run(probes.make_sectors(1, SIDE), 4, 256, host, np.uint32(host.size // 32))
    assert np.array_equal(np.sort(got), np.sort(host))  # each element once, none left unwritten
    # warp 0 moves column 0 of rows 0 to 31 to 32 consecutive elements
    assert np.array_equal(host.reshape(-1, SIDE)[:32, 0], got[:32])


@pytest.mark.parametrize("spread", [1, 2])
def test_rows_fill_each_sector_from_one_block_or_several(spread):
    host = _host(SIDE * SIDE)
    x, y = cuda.to_device(host), cuda.to_device(np.full((SIDE, SIDE), -1.0, np.float32))
    warps = host.size // 32
    probes.make_rows(spread, SIDE // 32)[warps // 8, 256](y, x, np.uint32(warps))
    got = y.copy_to_host()
    assert np.array_equal(np.sort(got.ravel()), np.sort(host))  # each element once, none left unwritten
    warp = host.reshape(-1, 32)
    # warp 0 writes column 0 of rows 0-31; the warp after it the next 32 rows (spread 2) or column 1 (spread 1)
    assert np.array_equal(got[:32, 0], warp[0])
    assert np.array_equal(got[32:64, 0] if spread == 2 else got[:32, 1], warp[1])
    assert np.array_equal(got[:32, 1], warp[spread])  # a sector's next part: `spread` warps on


@pytest.mark.parametrize("width, height, order", [(32, 32, "copy"), (32, 32, "transpose"), (32, 32, "diagonal"),
                                                  (64, 16, "copy"), (64, 16, "transpose"), (16, 16, "diagonal")])
def test_segments_put_each_tile_where_the_order_says(width, height, order):
    host = _host((SIDE, SIDE))
    got = _run(probes.make_segments(width, height, order), (SIDE // width) * (SIDE // height),
               probes.SEGMENT_THREADS, host)
    if order == "copy":
        want = host
    else:  # tile (r, c)'s bytes, in their order, fill tile (c, r) of the transposed grid in rows of `height`
        want = np.empty_like(host)
        for r in range(SIDE // height):
            for c in range(SIDE // width):
                want[c * width:(c + 1) * width, r * height:(r + 1) * height] = \
                    host[r * height:(r + 1) * height, c * width:(c + 1) * width].reshape(width, height)
    assert np.array_equal(got, want)


def test_shared_probe_reads_what_it_wrote():
    out = cuda.device_array(64, np.float32)
    probes.make_shared(32, 2)[1, 64](out)
    # thread t reads words lane * 32 + r + 128 j (mod 1024) for r < 2, j < 8, each holding its own index
    lane = np.arange(64) % 32
    want = sum(((lane * 32 + r + 128 * j) % 1024).astype(np.float32) for r in range(2) for j in range(8))
    assert np.array_equal(out.copy_to_host(), want)


def test_segments_reject_tiles_that_do_not_fill_the_threads():
    with pytest.raises(ValueError, match="segments"):
        probes.make_segments(16, 8, "copy")
    with pytest.raises(ValueError, match="segments"):
        probes.make_segments(32, 32, "sideways")
