"""The model against hand-computed cases, occupancy, the picture, and the explain/lab commands."""

from __future__ import annotations

import json

import pytest

from cornerturn.cli import main
from cornerturn.explain.gpus import spec
from cornerturn.explain.model import model, occupancy, predicted_gbps
from cornerturn.lab.registry import REGISTRY


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


def test_predictions_order_the_lesson():
    g = spec("H200")
    p = {k.name: predicted_gbps(k, 4, g, 4000) for k in REGISTRY}
    assert p["copy"] == pytest.approx(4000)
    assert p["tile32-coarse8-padded"] == pytest.approx(4000)
    assert p["naive-rows"] < p["tile32-coarse8-padded"] and p["tile32-coarse8"] < p["tile32-coarse8-padded"]
    assert p["naive-rows"] == pytest.approx(4000 * 2 * 4 / (4 + 32) * 2.5)  # L2-bound: 36 sectors for 8 ideal


def test_explain_command_and_picture(tmp_path, capsys):
    png = tmp_path / "warp.png"
    assert main(["explain", "tile32-coarse8-padded", "--gpu", "H200", "--png", str(png)]) == 0
    text = capsys.readouterr().out
    assert "32-way" not in text and "1-way" in text and "4224 B of shared memory" in text
    assert "buf[tx, ty]" in text  # brackets survive the table markup
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["explain", "nope"]) == 2


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
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["lab", "--kernels", "bogus", "--size", "8"]) == 2
