"""The CPU vector kernel's tile measured per host (cpu/host_tiles.py): the choice worked by hand from given times,
tiles shared evenly, the cache file, and the plans that take the measured tile."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import assert_bits_equal, random_bits

import cornerturn
from cornerturn.cpu import host_tiles
from cornerturn.cpu.planner import VECTOR_TILE, choose_variant
from cornerturn.problem import canonical


@pytest.fixture
def measuring(tmp_path, monkeypatch):
    """Tiles measured, kept under tmp_path, nothing remembered from before."""
    monkeypatch.delenv("CORNERTURN_CPU_TILES", raising=False)
    monkeypatch.setenv("CORNERTURN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(host_tiles, "_known", {})
    return tmp_path


def test_best_tile_by_hand():
    # three probes; times in ms. Best per probe: 10, 20, 40.
    a, b, c = (256, 256, False), (128, 1024, False), (1024, 1024, True)
    seconds = {a: [10, 25, 40], b: [12, 20, 44], c: [20, 20, 40]}
    tile, score = host_tiles.best_tile(seconds)
    # geometric means of best / time: (1 * 0.8 * 1) ** (1/3) = 0.928; (0.833 * 1 * 0.909) ** (1/3) = 0.912;
    # (0.5 * 1 * 1) ** (1/3) = 0.794
    assert tile == a
    assert score[a] == pytest.approx(0.8 ** (1 / 3))
    assert score[b] == pytest.approx((10 / 12 * 40 / 44) ** (1 / 3))
    assert score[c] == pytest.approx(0.5 ** (1 / 3))
    # a tie goes to the smaller tile
    assert host_tiles.best_tile({(512, 512, False): [1.0], (256, 256, True): [1.0]})[0] == (256, 256, True)
    assert [host_tiles.label(t) for t in (a, c)] == ["256x256", "1024x1024 staged"]


@pytest.mark.parametrize("extent, tile, side, tiles, size", [
    (393, 256, 2, 1, 394),  # one tile takes the 137 rows that would have been a thin second one
    (1186, 1024, 16, 1, 1200),
    (6535, 1024, 2, 6, 1090),  # 6535 / 6 = 1089.2, rounded up to whole blocks of 2
    (2048, 1024, 4, 2, 1024),
    (100, 256, 8, 1, 104),  # smaller than a tile: one tile, whole blocks
    (5, 256, 16, 1, 16),
])
def test_tiles_shared_evenly_by_hand(extent, tile, side, tiles, size):
    assert host_tiles.tiles_along(extent, tile) == tiles
    assert host_tiles.balanced(extent, tile, side) == size
    assert host_tiles.tiles_along(extent, tile) * size >= extent


def test_probe_shapes_are_odd_and_of_the_probe_size():
    from cornerturn.cpu.planner import ALIASED_PITCH, STAGED_MIN_PITCH

    for itemsize in (1, 2, 4, 8):
        shapes = host_tiles.probe_shapes(itemsize)
        assert len(shapes) == 3 and shapes[1] == shapes[2][::-1]
        for rows, cols in shapes:
            assert rows % 2 and cols % 2  # so no row pitch is a multiple of 512 B
            assert 0.7 < rows * cols * itemsize / host_tiles.PROBE_BYTES < 1.3
        aliased = host_tiles.probe_shapes(itemsize, aliased=True)
        assert [cols * itemsize for _, cols in aliased] == [16384, 9216]  # 16 KiB, and 9 KiB: 18 x 512 B
        for rows, cols in aliased:
            assert (cols * itemsize) % ALIASED_PITCH == 0 and cols * itemsize >= STAGED_MIN_PITCH
            assert 0.9 < rows * cols * itemsize / host_tiles.PROBE_BYTES < 1.1


def test_measure_times_each_candidate_on_small_probes():
    candidates = ((16, 16, False), (32, 64, False), (16, 16, True))
    tile, score = host_tiles.measure(4, shapes=[(67, 45), (21, 130)], rounds=1, candidates=candidates)
    assert tile in candidates and set(score) == set(candidates)
    assert max(score.values()) <= 1.0 and all(v > 0 for v in score.values())


def test_measured_once_kept_and_read_back(measuring, monkeypatch):
    calls = []

    def fake_measure(itemsize, *args, **kwargs):
        calls.append(itemsize)
        return (256, 1024, False), {(256, 1024, False): 1.0, (1024, 1024, False): 0.5}

    monkeypatch.setattr(host_tiles, "measure", fake_measure)
    first = host_tiles.vector_tile(4, VECTOR_TILE[4])
    assert first.tile == (256, 1024) and first.source.startswith("measured on this host") and calls == [4]
    assert host_tiles.vector_tile(4, VECTOR_TILE[4]) is first and calls == [4]  # remembered in the process
    data = json.loads(host_tiles.cache_file().read_text())
    assert data["host"] == host_tiles.host_name() and data["tiles"]["4"]["tile"] == [256, 1024]
    assert data["tiles"]["4"]["staged"] is False
    assert data["tiles"]["4"]["score"] == {"256x1024": 1.0, "1024x1024": 0.5}
    monkeypatch.setattr(host_tiles, "_known", {})
    assert host_tiles.vector_tile(4, VECTOR_TILE[4]).tile == (256, 1024) and calls == [4]  # read from the file
    host_tiles.vector_tile(8, VECTOR_TILE[8])
    assert calls == [4, 8] and set(json.loads(host_tiles.cache_file().read_text())["tiles"]) == {"4", "8"}


def test_a_file_of_another_host_or_schema_is_measured_again(measuring, monkeypatch):
    monkeypatch.setattr(host_tiles, "measure", lambda itemsize, *a, **k: ((128, 128, False), {(128, 128, False): 1.0}))
    path = host_tiles.cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema": host_tiles.SCHEMA, "host": "another CPU, 64 threads",
                                "tiles": {"2": {"tile": [512, 512], "measured": "then"}}}))
    assert host_tiles.vector_tile(2, VECTOR_TILE[2]).tile == (128, 128)


def test_shipped_table_when_measuring_is_off(tmp_path, monkeypatch):
    monkeypatch.setattr(host_tiles, "_known", {})
    monkeypatch.setattr(host_tiles, "measure", lambda *a, **k: pytest.fail("measured although off"))
    monkeypatch.setenv("CORNERTURN_CPU_TILES", "shipped")
    monkeypatch.setenv("CORNERTURN_CACHE_DIR", str(tmp_path))
    assert host_tiles.vector_tile(4, 1024) == host_tiles.HostTile((1024, 1024), "the table")
    monkeypatch.setattr(host_tiles, "_known", {})
    monkeypatch.delenv("CORNERTURN_CPU_TILES")
    monkeypatch.setenv("CORNERTURN_CACHE_DIR", "off")
    assert host_tiles.vector_tile(4, 1024).source == "the table"


def test_plans_take_the_measured_tile_shared_evenly(measuring, monkeypatch, rng):
    import numba

    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    def fake_measure(itemsize, shapes, rounds=3, candidates=host_tiles.CANDIDATES):
        best = (256, 256, True) if candidates == host_tiles.ALIASED_CANDIDATES else (256, 1024, False)
        return best, {best: 1.0}

    monkeypatch.setattr(host_tiles, "measure", fake_measure)
    for shape, dtype, tile, staged, measured in [
        # 1 x 3 tiles are too few for two threads: columns halved to 512, 1 x 7 tiles; 4001 / 7 = 571.6, blocks of 2
        ((393, 4001), np.float64, (394, 572), False, True),
        ((2223, 2639), np.float32, (280, 1320), False, True),  # 8 x 2 tiles: 2223 / 8 = 277.9, 2639 / 2; blocks of 4
        # 1 x 1, then 1 x 2 tiles of 512 columns, are too few: 256 x 256, 1 x 5 tiles of 1500 / 5 columns
        ((300, 1500), np.float32, (300, 300), False, True),
        # rows 9 KiB apart: the measured aliased tile, staged; 4000 / 15 = 266.7 rows, 2304 / 9 columns
        ((4000, 2304), np.float32, (268, 256), True, True),
        ((4000, 1536), np.float32, (256, 256), False, False),  # rows 6 KiB apart, under 8 KiB: the aliased table
    ]:
        itemsize = np.dtype(dtype).itemsize
        plan = choose_variant(canonical(shape, np.empty(shape, dtype).strides, itemsize))
        assert (plan.variant.tile, plan.variant.tile_cols or plan.variant.tile) == tile, shape
        assert plan.variant.staged == staged, shape
        assert ("measured on this host" in plan.reason) == measured, plan.reason
    x = random_bits((2, 393, 4001), np.float64, rng)
    assert_bits_equal(cornerturn.transpose(x), np.ascontiguousarray(x.swapaxes(-1, -2)))


def test_a_staged_tile_measured_for_any_pitch_is_taken_from_12_mib(measuring, monkeypatch, rng):
    """Where the host's measurement picks a staged tile among the plain pitches' candidates, it keeps the best plain
    tile too: plans of inputs of STAGED_MIN_BYTES or more take the staged tile, at any pitch, and say so; smaller
    ones the plain tile; batches too; every output bit for bit."""
    import numba

    from cornerturn.cpu.planner import STAGED_MIN_BYTES

    assert any(staged for _, _, staged in host_tiles.CANDIDATES)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    best = (256, 1024, True)
    score = {best: 1.0, (128, 128, False): 0.8, (512, 512, False): 0.9, (1024, 1024, True): 0.95}
    monkeypatch.setattr(host_tiles, "measure", lambda itemsize, shapes, rounds=3, candidates=host_tiles.CANDIDATES:
                        (best, score) if best in candidates else pytest.fail("not the plain candidates"))
    # (2223, 2639): 2223 / 8 rows, 2639 / 2 columns in blocks of 4; (3, 701, 1203): the plain 512 x 512, one tile of
    # 701 rows and two of 1203 / 2 columns, blocks of 16 (a staged 256 x 1024 would make 352 x 1216)
    cases = [((2223, 2639), np.float32, True, (280, 1320)), ((3, 1401, 3203), np.uint8, True, None),
             ((3, 701, 1203), np.uint8, False, (704, 608)), ((517, 333), np.int16, False, None)]
    for shape, dtype, staged, tile in cases:
        x = random_bits(shape, dtype, rng)
        assert (x.nbytes >= STAGED_MIN_BYTES) == staged, shape
        plan = choose_variant(canonical(x.shape, x.strides, x.itemsize))
        assert plan.variant.staged == staged and "a multiple of" not in plan.reason, (shape, plan.reason)
        if staged:
            assert "staged, measured on this host" in plan.reason, plan.reason
        else:
            assert "plain under 12 MiB" in plan.reason, plan.reason
        if tile is not None:
            assert (plan.variant.tile, plan.variant.tile_cols or plan.variant.tile) == tile, shape
        assert_bits_equal(cornerturn.transpose(x), np.ascontiguousarray(x.swapaxes(-1, -2)))
    entry = json.loads(host_tiles.cache_file().read_text())["tiles"]["4"]
    assert entry["staged"] is True and entry["tile"] == [256, 1024] and entry["plain"] == [512, 512]


def test_tune_on_the_cpu_measures_every_element_size_again(measuring, monkeypatch, capsys):
    from cornerturn.cli import main

    sizes = []

    def fake_measure(itemsize, shapes, rounds=3, candidates=host_tiles.CANDIDATES):
        sizes.append(itemsize)
        if candidates == host_tiles.ALIASED_CANDIDATES:
            return (512, 512, True), {(512, 512, True): 1.0, (256, 256, False): 0.5}
        return (256, 1024, False), {(256, 1024, False): 1.0, (128, 128, False): 0.75}

    monkeypatch.setattr(host_tiles, "measure", fake_measure)
    monkeypatch.setenv("CORNERTURN_CPU_TILES", "shipped")  # measuring again is asked for: it measures anyway
    assert main(["tune", "--device", "cpu"]) == 0
    assert main(["tune", "--device", "cpu"]) == 0
    assert sizes == [1, 1, 2, 2, 4, 4, 8, 8] * 2
    out = capsys.readouterr().out
    assert "8-byte elements: tiles of 256 x 1024" in out and "128x128 0.75" in out
    assert "8-byte elements (rows a multiple of 512 B apart): tiles of 512 x 512, staged" in out
    monkeypatch.setenv("CORNERTURN_CACHE_DIR", "off")
    assert main(["tune", "--device", "cpu"]) == 2
    assert "would not be kept" in capsys.readouterr().out


def test_a_folder_that_cannot_be_written_keeps_the_tile_in_the_process(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.delenv("CORNERTURN_CPU_TILES", raising=False)
    monkeypatch.setenv("CORNERTURN_CACHE_DIR", str(blocked / "cache"))
    monkeypatch.setattr(host_tiles, "_known", {})
    best = (128, 1024, False)
    monkeypatch.setattr(host_tiles, "measure", lambda itemsize, *a, **k: (best, {best: 1.0}))
    assert host_tiles.vector_tile(2, VECTOR_TILE[2]).tile == (128, 1024)
    assert not (blocked / "cache").exists() and list(tmp_path.iterdir()) == [blocked]
