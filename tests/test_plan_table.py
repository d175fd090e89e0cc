"""The planner's table (cornerturn.engine.table): classes of problems, the shipped tables, lookups and their
fallbacks, and the representative shapes the measuring script draws."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from cornerturn.engine import table
from cornerturn.engine.configs import PairsConfig, TileConfig, WordsConfig
from cornerturn.engine.tune import config_from_dict
from cornerturn.problem import canonical

ROOT = Path(__file__).resolve().parent.parent


def problem(rows, cols, size, batch=None, pad=0):
    strides = ((cols + pad) * size, size)
    shape = (rows, cols)
    if batch:
        shape, strides = (batch, *shape), (rows * (cols + pad) * size, *strides)
    return canonical(shape, strides, size)


def test_classes_name_element_size_alignments_and_shape():
    assert table.class_of(problem(8192, 6000, 2)) == "2/16/16/square"  # rows of 12000 bytes: whole 16-byte runs
    assert table.class_of(problem(27460, 12358, 2)) == "2/4/4/square"  # under 4 times taller than wide
    assert table.class_of(problem(4869, 29081, 1)) == "1/odd/odd/wide"
    assert table.class_of(problem(5044, 28681, 4)) == "4/other/other/wide"  # 5044 words: not what Triton sees
    assert table.class_of(problem(16384, 4096, 4)) == "4/16/16/tall"
    assert table.class_of(problem(100, 100, 16)) == "16/other/other/square"
    # a batch's matrices must all start as its rows do: the worse of the row and batch pitch decides
    assert table.class_of(problem(26578, 648, 2, batch=22, pad=0)) == "2/16/4/tall"
    assert table.class_of(problem(26578, 646, 2, batch=22, pad=2)) == "2/16/4/tall"
    assert table.class_of(problem(26579, 646, 2, batch=22, pad=0)) == "2/4/odd/tall"
    assert table.class_of(problem(4096, 4096, 1), out_row_stride=4097) == "1/16/odd/square"
    assert table.class_of(canonical((64, 64), (4, 256), 4)) is None  # columns not contiguous: no class
    # x or out starting past a whole word: their rows start there too
    assert table.class_of(problem(4096, 4096, 1), offsets=(1, 0)) == "1/odd/16/square"
    assert table.class_of(problem(4096, 4096, 2), offsets=(0, 2)) == "2/16/odd/square"
    assert len(table.every_class()) == 3 * (9 + 9 + 4 + 4 + 4) == 90


def test_every_shipped_table_holds_every_class_with_a_valid_choice():
    shipped = sorted(table.TABLES.glob("*.json"))
    assert any(p.stem == "NVIDIA-H200" for p in shipped)
    for path in shipped:
        data = table.load(path.stem.replace("-", " "))
        assert set(data["classes"]) == set(table.every_class()), path
        for key, entry in data["classes"].items():
            size = int(key.split("/")[0])
            word, config = entry["word"], config_from_dict(entry["config"])
            assert (word, config) in table.candidates(size, key.split("/")[2]), (path, key)
            assert 0 < entry["pct"] < 150 and len(entry["shapes"]) >= 2


def test_lookup_applies_the_class_entry_or_declines():
    found = table.lookup(problem(8192, 6000, 2), "NVIDIA H200")
    assert found is not None and "table 2/16/16/square" in found[2]
    word, config, _ = found
    assert word in (2, 4) and isinstance(config, WordsConfig | TileConfig)
    assert table.lookup(problem(8192, 6000, 2), "NVIDIA H200", word=1) is None  # a word fixed by alignment
    assert table.lookup(canonical((64, 64), (4, 256), 4), "NVIDIA H200") is None
    # a GPU with no table of its own takes the nearest one shipped, else the H200's
    assert table.load("Some Future GPU")["device"] == "NVIDIA H200"
    pairs = table.lookup(problem(8192, 8192, 16), "NVIDIA H200")
    assert isinstance(pairs[1], PairsConfig | TileConfig)


def test_addresses_past_a_word_plan_from_their_class(monkeypatch):
    """engine.choose_offsets: the table's entry for the class the offsets make; a words tile is told the offsets,
    a tile of elements is used as it is; matrices the table does not cover take the heuristic's words tile."""
    import cornerturn.engine as engine

    monkeypatch.setattr(engine, "_require", lambda: None)
    monkeypatch.setattr(engine, "device_name", lambda device: "NVIDIA H200")
    engine.choose_offsets.cache_clear()
    entries = table.load("NVIDIA H200")["classes"]
    for size, offsets in ((1, (1, 0)), (1, (3, 2)), (2, (2, 0)), (2, (0, 2))):
        p = problem(4100, 4099, size)
        plan = engine.choose_offsets(p, "cuda:0", offsets)
        entry = entries[table.class_of(p, offsets=offsets)]
        assert plan.config == config_from_dict(entry["config"]) and plan.word == entry["word"]
        assert plan.offsets == (offsets if plan.word == 4 else (0, 0))
    small = engine.choose_offsets(problem(40, 41, 1), "cuda:0", (1, 1))
    assert isinstance(small.config, WordsConfig) and small.offsets == (1, 1) and "heuristic" in small.reason
    engine.choose_offsets.cache_clear()


def test_candidates_fit_the_problems_of_their_size():
    for size in table.SIZES:
        for word, config in table.candidates(size):
            assert table.fits(problem(4096, 4096, size), word, config) or word != 4
    assert not table.fits(problem(4096, 4096, 1), 1, WordsConfig(64, 16))


def test_the_measuring_script_draws_shapes_of_each_class():
    spec = importlib.util.spec_from_file_location("plan_table", ROOT / "scripts" / "plan_table.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for key in ("1/odd/4/tall", "2/16/odd/wide", "8/other/16/square", "16/16/16/tall"):
        shapes = script.shapes_of(key, 3, 7)
        assert shapes == script.shapes_of(key, 3, 7) and len(shapes) == 3
        size = int(key.split("/")[0])
        assert shapes[0][0] * shapes[0][1] < shapes[2][0] * shapes[2][1]  # small to large
        for rows, cols in shapes:
            assert table.class_of(problem(rows, cols, size)) == key
            assert 60 << 20 <= rows * cols * size <= 1 << 30 and min(rows, cols) >= 300


def test_the_measuring_script_keeps_the_candidate_whose_worst_shape_is_fastest():
    spec = importlib.util.spec_from_file_location("plan_table", ROOT / "scripts" / "plan_table.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    # "fast" has the best mean but one slow shape; "even" and "even2" tie on their worst within a point,
    # and "even2" has the better geometric mean
    assert script.choose({"fast": [99, 98, 43], "even": [80, 81, 79], "even2": [85, 84, 78.5]}) == "even2"
    assert script.choose({"a": [70, 70], "b": [90, 60]}) == "a"


@pytest.mark.parametrize("size", table.SIZES)
def test_alignment_classes_cover_every_pitch(size):
    classes = {table.alignment_class(p * size, size) for p in range(1, 64)}
    assert classes == set(table.alignment_classes(size))
