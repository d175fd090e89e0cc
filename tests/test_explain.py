"""The model against hand-computed cases, occupancy, the picture, and the explain/lab commands."""

from __future__ import annotations

import json
import math

import pytest

from cornerturn.cli import main
from cornerturn.explain.gpus import spec
from cornerturn.explain.model import model, occupancy, rows_apart, tile_of
from cornerturn.explain.speed import predict, traits
from cornerturn.lab import calibrate
from cornerturn.lab.calibrate import DeviceConstants
from cornerturn.lab.profile import describe, limiter_agrees
from cornerturn.lab.registry import REGISTRY, get


def test_naive_store_is_one_sector_per_element():
    m = model("naive-rows", 4)
    assert m.sectors_per_request("load") == 4 and m.ideal_sectors_per_request("load") == 4
    assert m.sectors_per_request("store") == 32 and m.efficiency("store") == pytest.approx(4 / 32)
    assert model("naive-cols", 4).sectors_per_request("load") == 32


def test_unpadded_tile_read_by_columns_is_a_32_way_conflict():
    m = model("tile32-coarse8", 4)
    assert m.ways("load") == 32 and m.extra_wavefronts("load") == 31
    assert m.ways("store") == 1


def test_padding_removes_the_conflict():
    for name in ("tile32-padded", "tile32-coarse8-padded", "diagonal", "inplace-square"):
        m = model(name, 4)
        assert m.ways("load") == 1 and m.ways("store") == 1, name


def test_rectangular_and_sixteen_wide_tiles():
    assert model("rect32x16", 4).ways("load") == 16
    assert model("rect32x16-padded", 4).ways("load") == 2
    m16 = model("tile16-padded", 4)  # a warp spans two 16-wide rows of the 17-wide tile: one pair collides
    assert m16.ways("load") == 2 and m16.ways("store") == 2


def test_element_sizes_change_sectors_and_banks():
    assert model("copy", 8).sectors_per_request("load") == 8  # 32 x 8 B = 256 B
    assert model("copy", 1).sectors_per_request("load") == 1
    assert model("naive-rows", 1).sectors_per_request("store") == 32
    # 8-byte words: a 32x33 tile read by columns is served in two half-warp phases without conflict
    assert model("tile32-coarse8-padded", 8).ways("load") == 1
    assert model("tile32-coarse8", 8).ways("load") == 16


def test_occupancy_limits():
    h100 = spec("H100")
    occ = occupancy("tile32", 4, h100)
    assert occ.threads_per_block == 1024 and occ.blocks_per_sm == 2 and occ.occupancy == 1.0
    assert occupancy("tile32-coarse8-padded", 4, h100).shared_per_block == 4224
    starved = occupancy("tile32", 4, h100, registers=128)
    assert starved.limited_by == "registers" and starved.occupancy < 0.5
    assert spec("NVIDIA H200").name == "H200"
    with pytest.raises(ValueError, match="unknown GPU"):
        spec("TPU")


# round constants, so that the sums below can be done by hand
ROUND = DeviceConstants(device="H200", measured="by hand", sms=100, clock_ghz=2.0, copy_gbps=4000.0, latency_ns=400.0,
                        block_ns=300.0, block_ns_per_warp=10.0, shared_wavefronts_per_ns=2.0, l1_lines_per_ns=2.0,
                        partial_one_block=((4096, 50.0),), partial_several_blocks=((16384, 40.0), (65536, 20.0)),
                        rows_apart_load_cost=0.1, rows_apart_store_cost=0.2,
                        launch_us=0.0)


def test_traits_worked_by_hand():
    h200 = spec("H200")
    t = traits("tile32", 4, h200)  # 32 warps, one element each: a store (1 wavefront) and a 32-way load
    assert (t.threads, t.blocks_per_sm, t.elements_per_block) == (1024, 2, 1024)
    assert t.wavefronts_per_block == 32 * (1 + 32) and t.rounds == 1 and t.barrier
    t = traits("tile32-coarse8-padded", 4, h200)  # 8 warps, 4 elements each, no conflict
    assert t.wavefronts_per_block == 8 * 4 * 2 and t.loads_per_thread == 4 and t.blocks_per_sm == 8
    t = traits("copy", 4, h200)  # out may alias x: 4 loads one after another, no barrier
    assert t.rounds == 4 and t.loads_per_thread == 1 and not t.barrier and t.wavefronts_per_block == 0
    t = traits("naive-rows", 4, h200)  # each 4-byte store its own line and sector
    assert t.partial_sectors_per_element == 1 and t.lines_per_element == 1
    assert traits("naive-rows", 8, h200).partial_sectors_per_element == 1
    assert traits("tile32-padded", 4, h200).partial_sectors_per_element == 0
    assert traits("naive-1d", 4, h200).elements_per_block == 256
    assert traits("inplace-square", 4, h200).loads_per_thread == 8  # a tile and its mirror


def test_which_accesses_land_rows_apart():
    # block (4, 6) follows block (4, 5): the next tile along the input's rows
    assert rows_apart("copy") == {"load": 0.0, "store": 0.0}
    assert rows_apart("tile32-padded") == {"load": 0.0, "store": 1.0}  # writes 32 rows further down the output
    assert rows_apart("naive-cols") == {"load": 1.0, "store": 0.0}  # its grid covers the output
    assert rows_apart("diagonal") == {"load": 1.0, "store": 1.0}  # the next block is one tile row down too
    assert rows_apart("inplace-square") == {"load": 0.5, "store": 0.5}  # the mirror tile goes down a column
    assert tile_of(get("diagonal"), 0, 2) == (2, 2) and tile_of(get("tile32"), 0, 1) == (0, 1)
    m = model("inplace-square", 4)  # a tile and its mirror: two loads and two stores a pass
    assert len(m.of("global", "load")) == 2 and len(m.of("shared", "load")) == 2


def test_speed_worked_by_hand():
    # tile32-padded, 1000 x 1024 float32: 1000 blocks, one 32 x 32 tile each
    p = predict("tile32-padded", 1000, 1024, 4, ROUND)
    nbytes = 2 * 1000 * 1024 * 4
    dram = nbytes / 4000.0 * (1 + 0.2 / 2)  # ns: 4000 GB/s is 4000 bytes a ns; every write rows apart (+20%)
    waves = 5  # 1000 blocks / (100 SMs x 2 blocks)
    block = 400 + (300 + 10 * 32) + 64 / 2.0  # one latency, barrier of 32 warps, 32 warps x 2 wavefronts
    shared = 1000 * 64 / (100 * 2.0)
    memory = math.sqrt(dram**2 + (waves * block) ** 2 + shared**2)
    assert p.waves == waves and p.block_ns == pytest.approx(block)
    assert p.seconds == pytest.approx(memory * 1e-9) and p.gbps == pytest.approx(nbytes / memory)
    # naive-rows: 1,024,000 partial stores at 50 a ns = 20,480 ns, more than its memory time
    p = predict("naive-rows", 1000, 1024, 4, ROUND)
    assert p.seconds == pytest.approx(1000 * 1024 / 50.0 * 1e-9) and p.limiter.startswith("partial-sector stores: 32")
    # naive-1d, 8192 x 1024: a sector's 8 parts from 8 input rows, each in its own block; rows of 32 KiB, halfway
    # between the measured 16 and 64 KiB in log2: 30 a ns
    p = predict("naive-1d", 8192, 1024, 4, ROUND)
    assert p.seconds == pytest.approx(8192 * 1024 / 30.0 * 1e-9)
    assert p.limiter == "partial-sector stores: 32 a request, each sector from several blocks"
    assert ROUND.partial_rate(1024, False) == 40.0 and ROUND.partial_rate(1 << 20, False) == 20.0  # the ends
    assert traits("naive-rows", 4, spec("H200")).sector_in_one_block  # 32 input rows a block
    assert not traits("naive-1d", 4, spec("H200")).sector_in_one_block
    # naive-cols: 32 lines a request, 1,024,000 lines over 100 SMs at 2 a ns = 5,120 ns, less than memory here
    p = predict("naive-cols", 1000, 1024, 4, ROUND)
    assert p.terms["l1"] == pytest.approx(1000 * 1024 / (100 * 2.0) * 1e-9)
    # diagonal: reads and writes rows apart, (0.1 + 0.2) / 2 = 15% on the copy's time
    p = predict("diagonal", 1024, 1024, 4, ROUND)
    assert p.terms["dram"] == pytest.approx(2 * 1024 * 1024 * 4 / 4000.0 * 1.15 * 1e-9)
    assert p.terms["pages"] == pytest.approx(2 * 1024 * 1024 * 4 / 4000.0 * 0.15 * 1e-9)


def test_nsight_view_and_the_limiters_it_confirms():
    def counters(dram, l2, l1, **stalls):
        return {"dram_pct": dram, "l2_pct": l2, "l1_pct": l1, "stalls": {"selected": 1.0, **stalls}}

    streaming = counters(82, 77, 22, long_scoreboard=25.0, barrier=10.0, wait=2.0)
    assert describe(streaming) == "busiest DRAM 82%; stalls: long scoreboard 68%, barrier 27%"
    assert limiter_agrees("DRAM", streaming) and limiter_agrees("DRAM pages: the next block's writes", streaming)
    assert not limiter_agrees("bank conflicts: 32-way", streaming)
    assert not limiter_agrees("bytes in flight: 8 KiB per SM of 11 needed", streaming)  # a unit at 80% or more
    waiting = counters(34, 43, 16, long_scoreboard=14.0, barrier=10.0)
    assert limiter_agrees("barrier stalls: 32 warps", waiting) and not limiter_agrees("DRAM", waiting)
    partial = counters(12, 83, 51, long_scoreboard=200.0)
    assert limiter_agrees("partial-sector stores: 32 a request", partial)
    assert not limiter_agrees("partial-sector stores: 32 a request", counters(50, 83, 51, drain=3.0))
    assert limiter_agrees("L1 lines: 32 a request", counters(38, 50, 99, long_scoreboard=75.0))
    assert limiter_agrees("launch: 4 us for the whole matrix", streaming) is None


def test_limiters_name_the_lesson():
    c = calibrate.reference("H200")
    assert predict("tile32", 16384, 16384, 4, c).limiter == "bank conflicts: 32-way"
    assert predict("rect32x16", 16384, 16384, 4, c).limiter == "bank conflicts: 16-way"
    assert predict("naive-cols", 16384, 16384, 4, c).limiter == "L1 lines: 32 a request"
    assert predict("tile32-padded", 16384, 16384, 4, c).limiter.startswith("barrier stalls: 32 warps")
    assert predict("copy", 16384, 16384, 4, c).limiter.startswith("bytes in flight: 8 KiB per SM")
    assert predict("copy-shared", 16384, 16384, 4, c).limiter == "DRAM"
    assert predict("tile32-coarse8-padded", 16384, 16384, 4, c).limiter == \
        "DRAM pages: the next block's writes start rows apart"
    assert predict("diagonal", 16384, 16384, 4, c).limiter.startswith("DRAM pages: the next block's reads and")
    assert predict("copy", 64, 64, 4, c).limiter.startswith("launch")
    fast = {k.name: predict(k, 8192, 8192, 4, c).gbps for k in REGISTRY}
    assert fast["tile32-coarse8-padded"] > fast["tile32-padded"] > fast["tile32"] > fast["naive-rows"]


def test_constants_files_and_cache(tmp_path, monkeypatch):
    for name in ("H100", "NVIDIA H200"):
        c = calibrate.reference(name)
        assert c.reference and c.sms == 132 and 2000 < c.copy_gbps < 5000 and 200 < c.latency_ns < 800
    with pytest.raises(ValueError, match="no reference constants"):
        calibrate.reference("TPU")
    with pytest.raises(ValueError, match="must be a number"):
        DeviceConstants(**{k: v for k, v in ROUND.as_dict().items() if k != "schema"} | {"latency_ns": -1.0})
    for bad in ((), ((4096, 50.0), (2048, 40.0)), ((4096, -1.0),), ((4096,),), 5):
        with pytest.raises(ValueError, match="partial_one_block"):
            DeviceConstants(**{k: v for k, v in ROUND.as_dict().items() if k != "schema"} | {"partial_one_block": bad})
    with pytest.raises(ValueError, match="schema"):
        DeviceConstants.from_dict({**ROUND.as_dict(), "schema": 99})
    monkeypatch.setenv("CORNERTURN_CACHE_DIR", str(tmp_path))
    path = calibrate.cache_path("My GPU")
    path.write_text(json.dumps(ROUND.as_dict()))
    assert calibrate.for_device("My GPU") == ROUND  # read from the cache, nothing measured


def test_explain_command_and_picture(tmp_path, capsys):
    png = tmp_path / "warp.png"
    assert main(["explain", "tile32-coarse8-padded", "--gpu", "H200", "--png", str(png)]) == 0
    text = capsys.readouterr().out
    assert "32-way" not in text and "1-way" in text and "4224 B of shared memory" in text
    assert "buf[tx, ty]" in text  # brackets survive the table markup
    assert "limited by" in text and "waves" in text and "reference file" in text
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["explain", "nope"]) == 2
    assert main(["explain", "copy", "--gpu", "A100"]) == 2  # no constants shipped for it


@pytest.mark.slow
def test_lab_command_in_the_simulator(tmp_path, capsys):
    js, png = tmp_path / "lab.json", tmp_path / "lab.png"
    code = main(["lab", "--size", "33", "--kernels", "copy,naive-rows,tile32-coarse8-padded", "--no-progress",
                 "--json", str(js), "--plot", str(png)])
    assert code == 0
    text = capsys.readouterr().out
    assert "simulator" in text and "tile32-coarse8-padded" in text
    data = json.loads(js.read_text())
    assert data["simulated"] and [r["verified"] for r in data["results"]] == [True, True, True]
    assert data["table"][1]["model_store_sectors"] == 32
    assert data["constants"]["reference"] and data["table"][1]["limiter"]
    assert data["table"][1]["model_gbps"] > 0 and data["table"][1]["pct_of_device_copy"] is None
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["lab", "--kernels", "bogus", "--size", "8"]) == 2
