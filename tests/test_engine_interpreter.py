"""The GPU engine's Triton kernels under TRITON_INTERPRET=1 on small shapes: every path, bit-exact."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_bits_equal, grid, poisoned, random_bits, together

from cornerturn.problem import canonical

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from cornerturn.engine import plan as engine_plan  # noqa: E402
from cornerturn.engine.configs import (  # noqa: E402
    HALF_TILES_MIN_ROWS,
    INTERLEAVE_MAX_HALF_ROWS,
    JOINED_MAX_ROWS,
    JOINED_MIN_ROWS,
    NARROW_MAX_ROW_BYTES,
    SHIFTED_LONG_FROM_ROWS,
    InterleaveConfig,
    NarrowConfig,
    SplitConfig,
    TileConfig,
    WordsConfig,
    candidates,
    heuristic,
    interleave_ok,
    narrow_ok,
    natural_word,
    outputs_shifted,
    skinny,
    split_ok,
    split_rule,
    unaligned_tiles,
    words_ok,
)

WORD_TORCH = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
WORD_NUMPY = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def run_engine(base: np.ndarray, x: np.ndarray, config=None, word: int | None = None) -> np.ndarray:
    """Transpose `x` (a view into the C-contiguous `base`) with the engine's kernels in the interpreter, through word
    views of copies padded to whole words (the words kernel reads whole words, a few bytes past a row's end)."""
    problem = canonical(x.shape, x.strides, x.itemsize)
    word = word or natural_word(problem)
    plan = engine_plan.build(problem, word, config)
    out = poisoned(x.shape[:-2] + (x.shape[-1], x.shape[-2]), x.dtype)
    raw = base.reshape(-1).view(np.uint8)
    padded = np.zeros(raw.size + 2 * word - raw.size % word, np.uint8)
    padded[:raw.size] = raw
    out_raw = poisoned((out.nbytes + 2 * word - out.nbytes % word,), np.uint8)
    base_t = torch.from_numpy(padded.view(WORD_NUMPY[word]))
    out_t = torch.from_numpy(out_raw.view(WORD_NUMPY[word]))
    first = (x.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // word
    for x_offset, out_offset, launch in plan.pieces:
        launch.run_tensors(base_t[first + x_offset // word:], out_t[out_offset // word:])
    assert (out_raw[out.nbytes:] == poisoned((1,), np.uint8)[0]).all()  # nothing past the output
    return out_raw[:out.nbytes].view(x.dtype).reshape(out.shape)


def reference(x):
    return np.ascontiguousarray(x.swapaxes(-1, -2))


def make(shape, dtype, rng, steps=None, move=False):
    steps = steps or (1,) * len(shape)
    base = random_bits(tuple(s * abs(k) for s, k in zip(shape, steps)), dtype, rng)
    x = base[tuple(slice(None, None, k) for k in steps)]
    return base, (np.moveaxis(x, 0, -1) if move else x)


DTYPES = [np.uint8, np.float16, np.float32, np.float64, np.complex128]
SHAPES = [(1, 1), (31, 33), (33, 31), (70, 45), (300, 3), (3, 300), (4, 17, 40)]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_heuristic_plans(dtype, shape, rng):
    base, x = make(shape, dtype, rng)
    assert_bits_equal(run_engine(base, x), reference(x))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_strided_negative_and_permuted(dtype, rng):
    for steps, move in [((2, -1), False), ((-1, 3), False), ((1, -2, 2), True), ((-1, 1, -1), False)]:
        shape = (5, 23, 19)[-len(steps):]
        base, x = make(shape, dtype, rng, steps, move)
        assert_bits_equal(run_engine(base, x), reference(x))


def test_disguised_copies_use_the_copy_kernel(rng):
    cases = [make((1, 77), np.float32, rng), make((77, 1), np.float32, rng, (2, 1)),
             make((6, 1, 9), np.complex128, rng, (1, 1, -1))]
    base, c = make((20, 30), np.float16, rng)
    cases.append((base, c.T))  # already column-major: one contiguous copy
    for base, x in cases:
        assert canonical(x.shape, x.strides, x.itemsize).kind == "copy"
        assert_bits_equal(run_engine(base, x), reference(x))


def test_non_fusable_batches_launch_per_outer_index(rng):
    base = random_bits((3, 8, 21, 13), np.float32, rng)
    x = base[:, :5]
    assert len(canonical(x.shape, x.strides, 4).batch) == 2
    assert_bits_equal(run_engine(base, x), reference(x))


@pytest.mark.parametrize("config", [TileConfig(8, 64), TileConfig(64, 8), TileConfig(16, 16, 2),
                                    TileConfig(128, 32, 8)], ids=lambda c: c.name)
def test_explicit_tile_shapes(config, rng):
    base, x = make((2, 45, 70), np.float32, rng)
    assert_bits_equal(run_engine(base, x, config), reference(x))


@pytest.mark.parametrize("case, band_tiles", grid(
    [(np.float32, TileConfig(8, 16)), (np.uint8, WordsConfig(8, 4)), (np.float16, WordsConfig(8, 4, out="items"))],
    [1, 2, 3]), ids=str)
def test_tiles_taken_in_bands(monkeypatch, case, band_tiles, rng):
    """Bands of 1, 2 and 3 tile rows (7 tile rows: the last band shorter) cover every tile once, batched too."""
    dtype, config = case
    word = 4 if isinstance(config, WordsConfig) else np.dtype(dtype).itemsize
    piece = 4 * config.block_cw if isinstance(config, WordsConfig) else config.block_c * np.dtype(dtype).itemsize
    monkeypatch.setattr(engine_plan, "BAND_FROM", 0)
    monkeypatch.setattr(engine_plan, "BAND_BYTES", band_tiles * config.block_r * piece)
    for shape in [(53, 45), (2, 53, 45)]:
        base, x = make(shape, dtype, rng)
        problem = canonical(x.shape, x.strides, x.itemsize)
        launch = engine_plan.build(problem, word, config).pieces[0][2]
        assert launch.ints[-1] == band_tiles
        assert_bits_equal(run_engine(base, x, config, word), reference(x))


def test_bands_only_for_tall_columns_of_rows_off_the_sectors():
    """Whole columns of tiles unless a column reads more than BAND_FROM and rows start inside sectors; then bands of
    BAND_BYTES a column (worked by hand for the shipped constants: 16 MiB and 2 MiB)."""
    assert (engine_plan.BAND_FROM, engine_plan.BAND_BYTES) == (16 << 20, 2 << 20)
    band_of = engine_plan.band_of
    assert band_of(3226, 256, 64, 545) == 128  # int8 825737x545, 256 x 16-word tiles: 52 MiB a column; 2 MiB / 16 KiB
    assert band_of(3226, 256, 64, 544) == 3226  # rows at whole sectors: nothing read twice
    assert band_of(64, 256, 256, 16385) == 64  # int8 16383x16385: 4 MiB a column
    assert band_of(271, 128, 256, 22992) == 271  # float32 34610x5748: 8.5 MiB a column
    assert band_of(10**6, 1, 2**23, 33) == 1  # a tile row larger than a band: bands of one
    problem = canonical((300000, 1500), (1500, 1), 1)
    launch = engine_plan.build(problem, 4, WordsConfig(256, 64)).pieces[0][2]
    assert launch.ints[-1] == (2 << 20) // (256 * 256)
    launch = engine_plan.build(problem, 4, WordsConfig(256, 64), offsets=(1, 0)).pieces[0][2]
    assert launch.ints[-1] == (2 << 20) // (256 * 256)


@pytest.mark.parametrize("word", [1, 2, 4])
def test_elements_moved_as_several_narrow_words(word, rng):
    base, x = make((37, 29), np.float64, rng)
    assert_bits_equal(run_engine(base, x, word=word), reference(x))


def test_sixty_four_bit_offsets(monkeypatch, rng):
    monkeypatch.setattr(engine_plan, "WIDE_FROM", 0)
    for dtype, shape in [(np.float32, (3, 33, 31)), (np.complex128, (9, 7))]:
        base, x = make(shape, dtype, rng)
        problem = canonical(x.shape, x.strides, x.itemsize)
        launch = engine_plan.build(problem, natural_word(problem)).pieces[0][2]
        assert launch.constexprs["WIDE"] is True
        assert_bits_equal(run_engine(base, x), reference(x))
    base, x = make((1, 50), np.int8, rng)
    assert_bits_equal(run_engine(base, x), reference(x))


def test_heuristic_fits_skinny_matrices():
    tall = heuristic(canonical((16777216, 8), (32, 4), 4))
    wide = heuristic(canonical((8, 16777216), (4 * 16777216, 4), 4))
    assert tall.block_c == 8 and tall.block_r * tall.block_c * 4 == 16 * 1024
    assert wide.block_r == 8 and wide.block_c * 8 * 4 == 16 * 1024
    square = heuristic(canonical((4096, 4096), (4 * 4096, 4), 4))
    assert (square.block_r, square.block_c) == (64, 64)


def test_small_matrices_take_small_tiles():
    """At most SMALL_BYTES: 32x32 tiles, 4 warps (more, shorter programs); larger ones the usual 16 KiB tiles."""
    from cornerturn.engine.configs import SMALL_BYTES

    small = heuristic(canonical((128, 128), (4 * 128, 4), 4))
    assert small == TileConfig(32, 32, 4) and SMALL_BYTES >= 128 * 128 * 4
    assert heuristic(canonical((2, 512, 512), (4 * 512 * 512, 4 * 512, 4), 4)) == TileConfig(64, 64, 8)
    assert heuristic(canonical((16, 1000), (8 * 1000, 8), 8)).block_r == 16  # fewer rows than 32: fitted as before


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
def test_odd_sides_take_long_runs_on_the_unaligned_side(itemsize):
    """Element tiles (the fallback where no table entry applies) for output rows not whole 16-byte runs: tall tiles
    (1-byte: both sides odd only); input rows: wide ones. 1- and 2-byte elements take the words kernel by default."""

    def chosen(rows, cols):
        problem = canonical((rows, cols), (cols * itemsize, itemsize), itemsize)
        assert isinstance(heuristic(problem), WordsConfig) == (itemsize <= 2)
        return heuristic(problem, itemsize), unaligned_tiles(problem, itemsize)

    both, both_direct = chosen(16383, 16385)
    assert both == both_direct and (both.block_r > both.block_c) == (itemsize > 1)
    wide, _ = chosen(16384, 16383)  # input rows odd only
    assert wide.block_c > wide.block_r
    tall, tall_direct = chosen(16385, 16384)  # output rows odd only
    assert (tall_direct is None) == (itemsize == 1) and (itemsize == 1 or tall.block_r > tall.block_c)
    assert chosen(16384, 16384)[1] is None  # aligned: the usual tiles (or packed words)
    assert chosen(9, 16385)[1] is None  # fewer rows than any of these tiles: the usual, skinny-fitted ones


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(300, 301), (301, 272), (272, 301)], ids=str)
def test_unaligned_tiles_in_the_interpreter(dtype, shape, rng):
    base, x = make(shape, dtype, rng)
    problem = canonical(x.shape, x.strides, x.itemsize)
    config = unaligned_tiles(problem, x.itemsize)  # element tiles (1- and 2-byte elements too, in words of one)
    assert config is not None or (x.itemsize == 1 and shape == (301, 272))
    assert_bits_equal(run_engine(base, x, word=x.itemsize), reference(x))
    assert_bits_equal(run_engine(base, x), reference(x))


def test_grid_is_one_dimensional_for_launch_limits():
    # the classic layout (tile rows on blockIdx.y <= 65535) cannot launch 16777216x8; ours has one axis
    problem = canonical((16777216, 8), (32, 4), 4)
    launch = engine_plan.build(problem, 4, TileConfig(32, 8)).pieces[0][2]
    assert launch.programs == 16777216 // 32 > 65535


def test_candidates_are_valid_and_include_the_heuristic():
    problem = canonical((4097, 4095), (4095 * 4, 4), 4)
    cands = candidates(problem)
    assert heuristic(problem) in cands and len(cands) > 10
    assert all(4096 <= c.block_r * c.block_c * 4 <= 32 * 1024 for c in cands if c != heuristic(problem))


def test_element_tiles_tell_the_stores_their_alignment():
    """OUT_ALIGN, written into transpose_tiles' store arithmetic, is the power of two (up to 16 words) dividing the
    output's row stride and, for one-word elements, the rows: by hand for a few plans, the promise held on each."""
    def out_align(shape, itemsize, word, out_row_stride=None):
        problem = canonical(shape, (shape[-1] * itemsize, itemsize), itemsize)
        launch = engine_plan.build(problem, word, TileConfig(32, 32), out_row_stride=out_row_stride).pieces[0][2]
        return launch.constexprs["OUT_ALIGN"]

    assert out_align((5044, 28681), 4, 4) == 4  # rows of 5044 words
    assert out_align((6000, 6000), 4, 4) == 16
    assert out_align((301997, 401), 4, 4) == 1
    assert out_align((6, 9001), 16, 8) == 4  # 16-byte elements, 12 words an output row; the rows are not asked
    assert out_align((36, 43), 4, 4, out_row_stride=64) == 4  # 16 words apart, 36 rows


def test_tile_config_validates():
    with pytest.raises(ValueError, match="block_r: must be a power of two"):
        TileConfig(48, 64)
    with pytest.raises(ValueError, match="num_warps: must be one of"):
        TileConfig(64, 64, 3)
    from cornerturn.engine.permute import RunsConfig, ShiftedRunsConfig

    cases = ((lambda: NarrowConfig(8192), r"NarrowConfig.block_ow: must be a power of two in 64\.\.4096"),
             (lambda: NarrowConfig(1024, 3), "NarrowConfig.num_warps: must be one of"),
             (lambda: InterleaveConfig(48), "InterleaveConfig.block_cw: must be a power of two"),
             (lambda: RunsConfig(8), r"^RunsConfig.block: must be a power of two in 16\.\.8192"),
             (lambda: ShiftedRunsConfig(2), r"ShiftedRunsConfig.block: must be a power of two in 4\.\.8192"))
    for make_config, match in cases:
        with pytest.raises(ValueError, match=match):
            make_config()


@pytest.mark.parametrize("dtype, shape, pad", grid(
    [np.uint8, np.float16],
    [(4, 4), (32, 36), (68, 44), (3, 20, 132), (256, 8), (8, 256), (37, 29), (36, 29), (37, 28), (2, 3, 13, 11),
     (9, 70), (70, 9)],
    [0, 1, 2, 3],  # elements past each row: input row pitches of every residue
    # the fast tier: every shape, bytes at every residue, on cheaper interpreter runs that reach the same paths
    fast=[(np.uint8, (4, 4), 0), (np.uint8, (32, 36), 2), (np.float16, (68, 44), 2), (np.float16, (3, 20, 132), 3),
          (np.uint8, (256, 8), 0), (np.float16, (8, 256), 0), (np.uint8, (37, 29), 1), (np.uint8, (36, 29), 3),
          (np.uint8, (37, 28), 0), (np.float16, (2, 3, 13, 11), 1), (np.float16, (9, 70), 0),
          (np.float16, (70, 9), 3)]))
def test_words_kernel_on_any_sides(dtype, shape, pad, rng):
    """1- and 2-byte elements moved as words whatever the sides: rows read as words where they start at whole words,
    else funnel-shifted; output rows written as words where they start at whole words, else as words shifted into
    place (the loose elements one by one) or element by element; tiles of several sizes; batches."""
    base = random_bits(shape[:-1] + (shape[-1] + pad,), dtype, rng)
    x = base[..., :shape[-1]]
    problem = canonical(x.shape, x.strides, x.itemsize)
    assert words_ok(problem) and natural_word(problem) == 4 and isinstance(heuristic(problem), WordsConfig)
    # tiles of 4 rows (groups of rows shifted without the next group from the tile) of one word on small matrices, of
    # 8 words on larger ones (one-word tiles took the interpreter 15-19 seconds on matrices of about 1,000 elements);
    # tiles of four words on small ones only: many programs are slow in the interpreter
    tiles = (WordsConfig(4, 1, 1),) if x.size <= 700 else (WordsConfig(4, 8, 2),)
    tiles += (WordsConfig(8, 4, 4),) if x.size <= 1200 else ()
    for config in (None, *tiles, WordsConfig(16, 2, 2, "items"), WordsConfig(32, 8, 4, "shifted"),
                   WordsConfig(16, 4, 4, "joined")):
        got = _run_words(x, base, config)
        assert_bits_equal(got[:x.nbytes].view(dtype).reshape(reference(x).shape), reference(x))
        assert (got[x.nbytes:] == poisoned((1,), np.uint8)[0]).all()  # nothing past the output


def test_words_kernel_modes_follow_the_output_rows():
    """Output rows of whole words: OUT 0 (words) whatever the config says, no loose elements unless the rows hold a
    part of a word; otherwise the config's way."""
    def flags(rows, cols, itemsize, config):
        problem = canonical((rows, cols), (cols * itemsize, itemsize), itemsize)
        c = engine_plan.build(problem, 4, config).pieces[0][2].constexprs
        return c["OUT"], c["EDGES"], c["IN_WORDS"], c["IN_ALIGN"], c["OUT_ALIGN"]

    assert flags(64, 64, 1, WordsConfig(8, 4, 4, "items")) == (0, False, True, 16, 16)
    # pitches of 3000 words (rows of 6000 halves), which Triton alone would take as unaligned
    assert flags(6000, 8192, 2, WordsConfig(8, 4)) == (0, False, True, 16, 8)
    assert flags(8192, 6000, 2, WordsConfig(8, 4)) == (0, False, True, 8, 16)
    assert flags(65, 64, 1, WordsConfig(8, 4)) == (1, True, True, 16, 1)
    assert flags(65, 64, 1, WordsConfig(8, 4, 4, "items")) == (2, False, True, 16, 1)
    # joined: shifted, the word where one output row ends and the next begins built whole (rows end to end only)
    def join(rows, cols, itemsize, config, **kw):
        problem = canonical((rows, cols), (cols * itemsize, itemsize), itemsize)
        c = engine_plan.build(problem, 4, config, **kw).pieces[0][2].constexprs
        return c["OUT"], c["EDGES"], c["JOIN"]

    assert join(65, 64, 1, WordsConfig(8, 4, 4, "joined")) == (1, True, True)
    assert join(65, 64, 1, WordsConfig(8, 4, 4, "shifted")) == (1, True, False)
    assert join(65, 64, 1, WordsConfig(8, 4, 4, "joined"), out_row_stride=66) == (1, True, False)  # a gap after rows
    assert join(7, 64, 1, WordsConfig(8, 4, 4, "joined")) == (1, True, False)  # under two words a row
    assert join(64, 64, 1, WordsConfig(8, 4, 4, "joined")) == (0, False, False)  # whole words
    assert flags(64, 63, 1, WordsConfig(8, 4)) == (0, False, False, 1, 16)  # input rows funnel-shifted
    # 2-byte rows an odd number of words apart, output rows inside words: element by element, whatever the config
    assert flags(301, 302, 2, WordsConfig(8, 4)) == (2, False, True, 1, 1)
    assert flags(301, 304, 2, WordsConfig(8, 4)) == (1, True, True, 8, 1)  # rows 608 B apart: shifted
    # shifted bytes take each group's successor from the tile (gathered) where the tile holds two groups or more
    gathered = engine_plan.build(canonical((65, 64), (64, 1), 1), 4, WordsConfig(8, 4)).pieces[0][2].constexprs
    alone = engine_plan.build(canonical((65, 64), (64, 1), 1), 4, WordsConfig(4, 1, 1)).pieces[0][2].constexprs
    halves = engine_plan.build(canonical((301, 304), (608, 2), 2), 4, WordsConfig(8, 4)).pieces[0][2].constexprs
    assert (gathered["NEXT_BY_GATHER"], alone["NEXT_BY_GATHER"], halves["NEXT_BY_GATHER"]) == (True, False, False)
    # OUT_ALIGN divides the whole words of an output row too: the stores' mask bound is written as its multiple
    assert flags(40, 64, 1, WordsConfig(8, 4)) == (0, False, True, 16, 2)
    problem = canonical((36, 43), (43, 1), 1)
    assert engine_plan.build(problem, 4, WordsConfig(8, 4), out_row_stride=64).pieces[0][2].constexprs["OUT_ALIGN"] == 1
    with pytest.raises(ValueError, match="WordsConfig.out: one of shifted, items, joined"):
        WordsConfig(8, 4, 4, "words")


def test_words_kernel_needs_positive_strides_and_contiguous_columns(rng):
    for shape, steps in [((33, 32), (1, -1)), ((32, 34), (-1, 1)), ((32, 32), (1, 2))]:
        base, x = make(shape, np.uint8, rng, steps)
        problem = canonical(x.shape, x.strides, x.itemsize)
        assert not words_ok(problem) and natural_word(problem) == 1
        assert_bits_equal(run_engine(base, x), reference(x))
    base, x = make((32, 32), np.uint8, rng)
    assert_bits_equal(run_engine(base, x, word=1), reference(x))  # misaligned address: the byte path


@pytest.mark.parametrize("shape", [(2, 3), (31, 33), (3, 20, 70)], ids=str)
def test_sixteen_byte_pairs_kernel(shape, rng):
    from cornerturn.engine.configs import PairsConfig, pairs_ok

    base, x = make(shape, np.complex128, rng)
    problem = canonical(x.shape, x.strides, x.itemsize)
    assert pairs_ok(problem, 8)
    assert any(isinstance(c, PairsConfig) for c in candidates(problem))
    for config in (PairsConfig(8, 8), PairsConfig(16, 32, 8), PairsConfig(64, 8, 2)):
        assert_bits_equal(run_engine(base, x, config, word=8), reference(x))


@pytest.mark.parametrize("dtype", DTYPES + [np.int16], ids=lambda d: np.dtype(d).name)
def test_strided_output_writes_a_column_block_and_nothing_else(dtype, rng):
    """A matrix transposed into columns [8, 8 + M) of a wider output: the block is exact, the rest untouched."""
    from cornerturn.engine.configs import PairsConfig, word_size

    base, x = make((36, 44), dtype, rng, (1, 1))
    x = x[:, 4:]  # a column slice, as a sharded transpose sends it
    problem = canonical(x.shape, x.strides, x.itemsize)
    wide = poisoned((x.shape[1], x.shape[0] + 16), x.dtype)
    configs = [(None, natural_word(problem)), (TileConfig(16, 8), word_size(problem))]
    if words_ok(problem):
        configs += [(WordsConfig(8, 4), 4), (WordsConfig(8, 4, 4, "items"), 4)]
    if np.dtype(dtype).itemsize == 16:
        configs.append((PairsConfig(8, 16), 8))
    for config, word in configs:
        out = wide.copy()
        plan = engine_plan.build(problem, word, config, out_row_stride=out.strides[0])
        (x_offset, out_offset, launch), = plan.pieces
        first = (x.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // word
        out_t = torch.from_numpy(out.reshape(-1).view(WORD_NUMPY[word]))
        base_t = torch.from_numpy(base.reshape(-1).view(WORD_NUMPY[word]))
        launch.run_tensors(base_t[first + x_offset // word:], out_t[8 * x.itemsize // word + out_offset // word:])
        assert_bits_equal(out[:, 8:8 + x.shape[0]], reference(x))
        assert_bits_equal(out[:, :8], wide[:, :8])
        assert_bits_equal(out[:, 8 + x.shape[0]:], wide[:, 8 + x.shape[0]:])


def test_strided_output_refuses_batches_and_misfit_words():
    problem = canonical((3, 8, 8), (256, 32, 4), 4)
    with pytest.raises(ValueError, match="strided output"):
        engine_plan.build(problem, 4, None, out_row_stride=64)
    with pytest.raises(ValueError, match="strided output"):
        engine_plan.build(canonical((8, 8), (32, 4), 4), 4, None, out_row_stride=66)


def test_a_misaligned_address_narrows_the_word_and_keeps_a_strided_output(monkeypatch):
    """run_pointers' narrowing: a plan writing rows further apart is rebuilt with that stride, never as a
    C-contiguous output (which would write over the rest of the wider output)."""
    import cornerturn.engine as engine
    from cornerturn.engine.runtime import narrowed_for

    asked = []
    monkeypatch.setattr(engine, "choose", lambda problem, device, word: asked.append(("plain", word)) or "plain")
    monkeypatch.setattr(engine, "choose_strided_out",
                        lambda problem, device, word, stride: asked.append(("strided", word, stride)) or "strided")
    problem = canonical((8, 8), (64, 8), 8)
    strided = engine_plan.build(problem, 8, None, out_row_stride=256)
    plain = engine_plan.build(problem, 8, None)
    assert strided.out_row_stride == 256 and plain.out_row_stride is None
    assert narrowed_for(strided, 4096, 8192, 0) is strided  # aligned: the plan itself
    assert narrowed_for(strided, 4096 + 4, 8192, 0) == "strided"
    assert narrowed_for(plain, 4096, 8192 + 2, 0) == "plain"
    assert asked == [("strided", 4, 256), ("plain", 2)]
    # a plan of 4-byte words moving bytes (the words kernel) keeps that kernel, told the offsets
    monkeypatch.setattr(engine, "choose_offsets", lambda problem, device, offsets: ("offsets", offsets))
    words = engine_plan.build(canonical((64, 63), (63, 1), 1), 4, None)
    assert words.word == 4 and narrowed_for(words, 4096 + 3, 8192 + 1, 0) == ("offsets", (3, 1))
    halves = engine_plan.build(canonical((64, 63), (126, 2), 2), 4, None)  # 2-byte elements: 2-byte words
    assert narrowed_for(halves, 4096 + 2, 8192, 0) == "plain" and asked[-1] == ("plain", 2)
    # ... but not into a wider output: narrower words there
    strided_words = engine_plan.build(canonical((64, 63), (63, 1), 1), 4, None, out_row_stride=128)
    assert narrowed_for(strided_words, 4096 + 2, 8192, 0) == "strided" and asked[-1] == ("strided", 1, 128)


def _run_words(x: np.ndarray, base: np.ndarray, config, out_row: int | None = None) -> np.ndarray:
    """The words kernel's plan for `x` (a view starting at `base`'s first byte) in the interpreter, through 4-byte
    word views of padded copies (the kernel reads whole words, a few bytes past a row's end); the output poisoned,
    `out_row` bytes between output rows for one matrix written into a wider output."""
    problem = canonical(x.shape, x.strides, x.itemsize)
    plan = engine_plan.build(problem, 4, config, out_row_stride=out_row)
    raw = base.reshape(-1).view(np.uint8)
    padded = np.zeros(raw.size + 8 - raw.size % 4, np.uint8)
    padded[:raw.size] = raw
    need = x.nbytes if out_row is None else x.shape[-1] * out_row
    out = poisoned((need + 8 - need % 4,), np.uint8)
    for x_offset, out_offset, launch in plan.pieces:
        assert x_offset % 4 == 0 and out_offset % 4 == 0
        launch.run_tensors(torch.from_numpy(padded.view(np.int32))[x_offset // 4:],
                           torch.from_numpy(out.view(np.int32))[out_offset // 4:])
    return out


def _run_words_offsets(x: np.ndarray, offsets: tuple[int, int], config) -> np.ndarray:
    """`x` (C-contiguous) placed `offsets[0]` bytes past a whole word, transposed by the words kernel's plan told the
    offsets into an output `offsets[1]` bytes past one (poisoned), in the interpreter through 4-byte word views."""
    x_off, out_off = offsets
    problem = canonical(x.shape, x.strides, x.itemsize)
    plan = engine_plan.build(problem, 4, config, offsets=offsets)
    raw = np.zeros(x_off + x.nbytes + 8 - (x_off + x.nbytes) % 4, np.uint8)
    raw[x_off:x_off + x.nbytes] = x.reshape(-1).view(np.uint8)
    out = poisoned((out_off + x.nbytes + 8 - (out_off + x.nbytes) % 4,), np.uint8)
    for x_offset, out_offset, launch in plan.pieces:  # offsets from x's and out's first bytes to whole words
        assert (x_off + x_offset) % 4 == 0 and (out_off + out_offset) % 4 == 0
        launch.run_tensors(torch.from_numpy(raw.view(np.int32))[(x_off + x_offset) // 4:],
                           torch.from_numpy(out.view(np.int32))[(out_off + out_offset) // 4:])
    return out


@pytest.mark.parametrize("dtype, shape, offsets", grid(
    [np.uint8, np.float16],
    [(37, 29), (32, 36), (3, 20, 33), (2, 3, 13, 11)],
    [(1, 0), (0, 3), (2, 2), (3, 1)]))
def test_words_kernel_from_addresses_past_a_word(dtype, shape, offsets, rng):
    """x and out starting 1 to 3 bytes past a whole word (2 for 2-byte elements), as slices of larger arrays do: the
    words kernel reads and writes the whole words around them; bit-exact, and nothing written before or after."""
    size = np.dtype(dtype).itemsize
    offsets = tuple(o // size * size for o in offsets)
    x = random_bits(shape, dtype, rng)
    for config in (None, WordsConfig(16, 2, 2, "items"), WordsConfig(8, 4, 4, "shifted")):
        got = _run_words_offsets(x, offsets, config)
        lead = poisoned((1,), np.uint8)[0]
        assert (got[:offsets[1]] == lead).all() and (got[offsets[1] + x.nbytes:] == lead).all()
        assert_bits_equal(got[offsets[1]:offsets[1] + x.nbytes].view(dtype).reshape(reference(x).shape), reference(x))


def test_offsets_go_to_the_words_kernel_only():
    problem = canonical((8, 8), (32, 4), 4)
    with pytest.raises(ValueError, match="base offsets"):
        engine_plan.build(problem, 4, None, offsets=(1, 0))
    words = canonical((64, 63), (63, 1), 1)
    with pytest.raises(ValueError, match="base offsets"):
        engine_plan.build(words, 4, WordsConfig(8, 4), offsets=(4, 0))
    c = engine_plan.build(words, 4, WordsConfig(8, 4), offsets=(0, 2)).pieces[0][2].constexprs
    assert (c["IN_WORDS"], c["OUT"], c["EDGES"]) == (False, 1, True)  # output rows no longer at whole words
    c = engine_plan.build(canonical((64, 64), (64, 1), 1), 4, WordsConfig(8, 4), offsets=(1, 0)).pieces[0][2].constexprs
    assert (c["IN_WORDS"], c["OUT"]) == (False, 0)


@pytest.mark.parametrize("width, out", grid([40, 41, 42, 43, 48, 64], ["shifted", "items"]))
def test_words_kernel_into_a_column_block(width, out, rng):
    """Odd input rows transposed into the first 36 columns of a wider output, `width` bytes a row (rows starting at
    every residue, and 48 and 64: strides of 4 and 16 words, where the 9 whole words of a row are not): the block is
    exact and nothing around it is written."""
    base = random_bits((36, 43), np.uint8, rng)
    got = _run_words(base, base, WordsConfig(8, 4, 4, out), out_row=width)
    want = poisoned(got.shape, np.uint8)
    want[:43 * width].reshape(43, width)[:, :36] = base.T
    assert_bits_equal(got, want)


NARROW_SHAPES = [(2, 301), (3, 1000), (5, 257), (7, 64), (12, 99), (33, 130), (64, 70), (3, 5, 211), (2, 2, 4, 122)]


@pytest.mark.parametrize("dtype", [np.uint8, np.float16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", NARROW_SHAPES, ids=str)
def test_narrow_output_rows(dtype, shape, rng):
    """transpose_narrow: output rows of 2 to 64 bytes, built as whole words gathered from a tile of the input rows;
    programs of 64 words, so that most matrices take several and each a partial last one."""
    base, x = make(shape, dtype, rng)
    problem = canonical(x.shape, x.strides, x.itemsize)
    if not narrow_ok(problem):
        assert problem.rows * x.itemsize > NARROW_MAX_ROW_BYTES or problem.rows * problem.cols * x.itemsize % 4
        return
    for config in (NarrowConfig(64, 4), NarrowConfig(256, 2)):
        assert_bits_equal(run_engine(base, x, config, 4), reference(x))


def test_narrow_rows_unaligned_and_refused(rng):
    base, x = make((6, 403), np.uint8, rng)
    x = x[1:, 1:]  # rows 403 bytes apart, each starting inside a word (the first at byte 404)
    problem = canonical(x.shape, x.strides, x.itemsize)
    assert narrow_ok(problem)
    assert_bits_equal(run_engine(base, x, NarrowConfig(64), 4), reference(x))
    wide = canonical((40, 100), (100, 1), 2)  # rows of 80 bytes
    odd_batch = canonical((3, 5, 7), (35, 7, 1), 1)  # 35-byte outputs: the second starts inside a word
    for problem in (wide, odd_batch):
        assert not narrow_ok(problem)
        with pytest.raises(ValueError, match="NarrowConfig"):
            engine_plan.build(problem, 4, NarrowConfig())


def _matrix(shape, size):
    strides = [size]
    for extent in reversed(shape[1:]):
        strides.insert(0, strides[0] * extent)
    return canonical(tuple(shape), tuple(strides), size)


@pytest.mark.parametrize("shape, size, kind, word", [
    ((5, 700001), 1, InterleaveConfig, 4), ((31, 700001), 1, InterleaveConfig, 4),
    ((2, 2, 350001), 1, InterleaveConfig, 4), ((3, 9, 700001), 1, InterleaveConfig, 4),
    ((5, 10, 200002), 1, InterleaveConfig, 4), ((3, 700001), 1, InterleaveConfig, 4),
    ((2, 1048579), 2, InterleaveConfig, 4),
    ((4, 700001), 1, InterleaveConfig, 4), ((7, 300007), 2, InterleaveConfig, 4), ((6, 300007), 2, InterleaveConfig, 4),
    ((INTERLEAVE_MAX_HALF_ROWS + 3, 300007), 2, TileConfig, 2), ((3, 23, 300007), 2, TileConfig, 2),
    ((3, 13, 300007), 2, InterleaveConfig, 4),
    ((2, 3, 350001), 1, InterleaveConfig, 4), ((700001, 3), 1, SplitConfig, 4), ((300007, 29), 1, WordsConfig, 4),
    ((500009, 7), 2, SplitConfig, 4), ((700001, 8), 1, SplitConfig, 4), ((700001, 16), 1, WordsConfig, 4),
    ((300007, 150), 1, WordsConfig, 4),
    ((3, 100003), 16, TileConfig, 8),
    ((100003, 8), 16, TileConfig, 8), ((35, 7287077), 1, WordsConfig, 4), ((4, 191, 300007), 1, WordsConfig, 4),
    ((HALF_TILES_MIN_ROWS, 300007), 2, TileConfig, 2), ((3, 169, 300007), 2, TileConfig, 2)])
def test_skinny_rules_choose_by_side(shape, size, kind, word):
    rule = skinny(_matrix(shape, size))
    assert rule is not None and isinstance(rule[1], kind) and rule[0] == word and rule[2].startswith("skinny")
    assert skinny(_matrix(shape, size), 3 - word % 3) is None  # a word fixed to another one: no rule
    if JOINED_MIN_ROWS <= shape[-2] < JOINED_MAX_ROWS and size == 1:  # byte output rows of 32-191 bytes: joined
        assert rule[1].out == "joined" and rule[1].name.endswith("-joined")


@pytest.mark.parametrize("rows, tile", [(HALF_TILES_MIN_ROWS, (64, 128, 4)), (64, (64, 128, 4)), (65, (128, 64, 4)),
                                        (128, (128, 64, 4)), (129, (256, 64, 8)), (255, (256, 64, 8))])
def test_skinny_rule_of_2_byte_matrices_of_32_to_255_rows(rows, tile):
    """2-byte elements in HALF_TILES_MIN_ROWS to 255 rows: element tiles of 64, 128 or 256 rows (every row, rounded
    up to a power of two) by HALF_ROW_TILES' columns and warps, in a batch too."""
    for shape in ((rows, 300007), (3, rows, 300007)):
        word, config, reason = skinny(_matrix(shape, 2))
        assert (word, (config.block_r, config.block_c, config.num_warps)) == (2, tile) and "2-byte" in reason
    assert skinny(_matrix((rows, 300007), 2))[1] == TileConfig(*tile)


@pytest.mark.parametrize("rows, block_cw", [(2, 512), (3, 512), (5, 128), (SHIFTED_LONG_FROM_ROWS - 1, 128),
                                            (SHIFTED_LONG_FROM_ROWS + 1, 256), (31, 256)])
def test_skinny_rule_of_outputs_shifted_into_place(rows, block_cw):
    """Batches of byte matrices whose outputs start inside words are interleaved, their words shifted into place:
    programs of 512 words a row up to 4 rows, 128 beyond, 256 from SHIFTED_LONG_FROM_ROWS rows on (a multiple of 4
    rows starts every output at a whole word); outputs at whole words keep 128."""
    shifted = _matrix((3, rows, 700001), 1)
    assert outputs_shifted(shifted) and interleave_ok(shifted)
    word, config, reason = skinny(shifted)
    assert (word, config.block_cw) == (4, block_cw) and "shifted" in reason
    whole = _matrix((3, rows, 700004), 1)
    assert not outputs_shifted(whole) and skinny(whole)[1].block_cw == (512 if rows <= 4 else 128)
    assert not outputs_shifted(_matrix((rows, 700001), 1))  # one matrix: its output starts at the array's start


@pytest.mark.parametrize("shape, size", [((300, 1000000), 1), ((100, 5000), 1), ((7, 300007), 4),
                                         ((192, 7287077), 1), ((300007, 40), 2), ((9, 100003), 16),
                                         ((INTERLEAVE_MAX_HALF_ROWS + 2, 300007), 2), ((JOINED_MIN_ROWS, 7287077), 1),
                                         ((3, 164, 700001), 1)])
def test_skinny_rules_leave_the_rest(shape, size):
    """Both sides 256 or more (the table's), 1 MiB or less, 4-byte elements, byte rows of 192 to 255 bytes, byte
    matrices of 32-191 rows that are a multiple of 4 (output rows at whole words), 2-byte rows over 16 bytes, 16-byte
    elements with both sides over 8, an even number of 2-byte rows from INTERLEAVE_MAX_HALF_ROWS to
    HALF_TILES_MIN_ROWS: the heuristic's plan."""
    assert skinny(_matrix(shape, size)) is None


@pytest.mark.parametrize("shape, size, want", [
    ((15780, 29, 174), 1, ("interleave64-w2", 4)),  # 44 words a row, read 256 a program before
    ((61645, 4, 456), 1, ("interleave64-w2", 4)),  # 114 words, 512 before
    ((12036, 3, 1240), 1, ("interleave256-w4", 4)),  # 310 words, 512 before
    ((2457352, 2, 12), 2, ("gather1024-w4", 2)),  # 6 words: gathered, in 2-byte words
    ((292361, 16, 36), 1, ("gather1024-w4", 1)),  # 9 words, in bytes
    ((17304, 10, 187), 2, ("interleave64-w2", 4)),  # 94 words, 128 before
    ((3, 5, 700001), 1, ("interleave128-w4", 4)),  # rows longer than the programs: as before
    ((9864, 3, 127), 1, ("gather1024-w4", 1))])  # 32 words: gathered, at SHORT_ROWS_GATHER
def test_short_rows_rule(shape, size, want, monkeypatch):
    """Batches whose rows hold fewer words than the interleave's programs read: rows of up to SHORT_ROWS_GATHER words
    gathered, in the elements' own words; up to 127 words in programs of 64 on 2 warps; longer in programs of 256
    where the rule's were 512; rows as long as the programs keep them. Off (SHORT_ROWS), the rule's plan as before."""
    from cornerturn.engine import configs

    problem = _matrix(shape, size)
    word, config, reason = skinny(problem)
    assert (config.name, word) == want
    monkeypatch.setattr(configs, "SHORT_ROWS", False)
    assert isinstance(skinny(problem)[1], InterleaveConfig)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16], ids=lambda d: np.dtype(d).name)
def test_short_rows_plans_hold_on_the_interpreter(dtype, rng):
    """The short rows rule's plans on small batches of its shapes (the rule starts at 1 MiB): rows of 6-44 elements
    gathered (2-byte ones in 2-byte words), programs of 64 words for 13 rows of 174 elements (byte outputs shifted into
    place), of 256 for rows of 310 words; a batch of views whose columns are 2 elements apart; bit for bit into
    poisoned outputs."""
    size = np.dtype(dtype).itemsize
    for shape, steps, name in (((40, 3, 6), None, "gather"), ((9, 16, 44), None, "gather"),
                               ((5, 13, 174), None, "interleave64"), ((3, 3, 1240 // size), None, "interleave256"),
                               ((7, 5, 22), (1, 1, 2), "gather")):
        base, x = make(shape, dtype, rng, steps)
        word, config, _ = skinny(_matrix((shape[0] * 100000,) + shape[1:], size))
        assert config.name.startswith(name)
        assert_bits_equal(run_engine(base, x, config, word), reference(x))


def test_skinny_rules_plans_hold_on_the_interpreter(rng):
    """Each rule's configuration on a small matrix of its shape, bit-exact (the rules themselves start at 1 MiB)."""
    for shape, dtype in (((3, 2001), np.uint8), ((5, 1001), np.float16), ((4001, 3), np.uint8), ((901, 7), np.float16),
                         ((3, 301), np.complex128), ((301, 7), np.complex128), ((37, 301), np.uint8),
                         ((37, 301), np.float16), ((2, 90, 301), np.float16)):
        base, x = make(shape, dtype, rng)
        big = tuple(s * 1000 if s > 100 else s for s in shape)
        word, config, _ = skinny(_matrix(big, x.itemsize))
        assert_bits_equal(run_engine(base, x, config, word), reference(x))


@pytest.mark.parametrize("dtype, rows", [(np.uint8, 2), (np.uint8, 3), (np.uint8, 4), (np.float16, 2), (np.float16, 4),
                                         (np.uint8, 5), pytest.param(np.uint8, 9, marks=pytest.mark.full),
                                         (np.float16, 3),
                                         pytest.param(np.float16, 9, marks=pytest.mark.full),
                                         pytest.param(np.uint8, 31, marks=pytest.mark.full)],
                         ids=lambda v: np.dtype(v).name if isinstance(v, type) else str(v))
def test_interleave_rows(dtype, rows, rng, monkeypatch):
    """transpose_interleave: 2 to 31 rows of bytes or 2-byte elements, columns not a multiple of the words',
    rows starting inside words, batches (with 251 columns: outputs 1, 2 or 3 bytes into a word, shifted into place);
    programs of 16 words, so that most matrices take several (of 256 on the rows of 4096 columns: 16-word programs
    there took the interpreter 15 seconds for 9 byte rows); 64-bit offsets on one matrix and on a batch."""
    for shape in ((rows, 301), (rows, 4096), (3, rows, 252), (5, rows, 251), (rows, 1)):
        base, x = make(shape, dtype, rng)
        problem = canonical(x.shape, x.strides, x.itemsize)
        if problem.kind != "transpose" or not interleave_ok(problem):
            continue
        configs = (InterleaveConfig(256, 4),) if shape[-1] == 4096 else (InterleaveConfig(16, 2),
                                                                          InterleaveConfig(256, 4))
        for config in configs:
            assert_bits_equal(run_engine(base, x, config, 4), reference(x))
    monkeypatch.setattr(engine_plan, "WIDE_FROM", 0)
    for shape in ((rows, 301), (5, rows, 251)):  # one matrix; a batch, outputs shifted into place where they start
        base, x = make(shape, dtype, rng)        # inside words
        problem = canonical(x.shape, x.strides, x.itemsize)
        if not interleave_ok(problem):
            continue
        assert engine_plan.build(problem, 4, InterleaveConfig(16, 2)).pieces[0][2].constexprs["WIDE"]
        assert_bits_equal(run_engine(base, x, InterleaveConfig(16, 2), 4), reference(x))
    monkeypatch.undo()

    base, x = make((rows + 1, 1003), dtype, rng)
    x = x[1:, 1:]  # rows starting inside words
    assert interleave_ok(canonical(x.shape, x.strides, x.itemsize))
    assert_bits_equal(run_engine(base, x, InterleaveConfig(16, 2), 4), reference(x))


SPLIT_SHAPES = [  # (shape, dtype, steps, keep): few columns whose rows lie end to end, for transpose_split
    ((403, 3), np.uint8, None, None),  # output rows 3 bytes into a word: every row shifted, the last program partial
    ((400, 3), np.uint8, None, None),  # output rows at whole words
    ((401, 5), np.uint8, None, None),
    ((402, 7), np.uint8, None, None),  # output rows 0 or 2 bytes into a word
    ((257, 31), np.uint8, None, None),  # the most columns of bytes
    ((1001, 2), np.uint8, None, None),
    ((301, 5), np.float16, None, None),  # 2-byte elements: output rows 0 or 2 bytes into a word
    ((300, 16), np.int16, None, None),  # the most columns of 2-byte elements
    ((7, 133, 6), np.uint8, None, None),  # a batch, C-contiguous: one matrix of 931 rows
    ((4, 110, 3), np.uint8, None, 101),  # a batch with gaps: matrices 330 bytes apart, starting inside words
    ((3, 110, 7), np.uint8, None, 103),  # the same, matrices 770 bytes apart, outputs 721 bytes long
    ((3, 105, 3), np.float16, None, 101),
    ((4, 99, 4), np.uint8, (2, 1, 1), None),  # every other matrix
]


@pytest.mark.parametrize("shape, dtype, steps, keep",
                         grid(together(SPLIT_SHAPES), fast=[(SPLIT_SHAPES[i],) for i in (0, 3, 6, 9)]))
def test_split_kernel(shape, dtype, steps, keep, rng, monkeypatch):
    """transpose_split, bit-exact: rows of every residue modulo 4 (output rows at whole words, or 1 to 3 bytes into
    one: words shifted into place, the edges byte by byte by the programs that hold them), programs of 32 lanes (several
    a row, a partial last one) and of 256, matrices of a batch starting inside words, 64-bit offsets; nothing past the
    output written (run_engine checks it)."""
    base, x = make(shape, dtype, rng, steps)
    if keep is not None:
        x = x[:, :keep]
    problem = canonical(x.shape, x.strides, x.itemsize)
    assert split_ok(problem), problem
    for config in (SplitConfig(32, 1), SplitConfig(256, 4)):
        assert_bits_equal(run_engine(base, x, config, 4), reference(x))
    monkeypatch.setattr(engine_plan, "WIDE_FROM", 0)
    assert engine_plan.build(problem, 4, SplitConfig(32, 1)).pieces[0][2].constexprs["WIDE"]
    assert_bits_equal(run_engine(base, x, SplitConfig(32, 1), 4), reference(x))


def test_split_kernel_refuses_what_it_does_not_take(rng):
    """split_ok: 2 to SPLIT_MAX_COLS columns of 1- or 2-byte elements, rows end to end, positive strides, one batch
    axis; a SplitConfig on anything else is a ValueError before any launch, as is a program size not a power of two."""
    for shape, size in (((1000, 32), 1), ((1000, 17), 2), ((1000, 3), 4), ((1000, 1), 1)):
        assert not split_ok(_matrix(shape, size)), shape
    strided_rows = canonical((1000, 3), (4, 1), 1)
    reversed_batch = canonical((4, 33, 7), (-231, 7, 1), 1)
    two_axes = canonical((3, 4, 33, 7), (2000, 400, 7, 1), 1)
    for problem in (strided_rows, reversed_batch, two_axes):
        assert not split_ok(problem), problem
        with pytest.raises(ValueError, match="SplitConfig: transpose_split takes"):
            engine_plan.build(problem, 4, SplitConfig())
    with pytest.raises(ValueError, match="SplitConfig.block: must be a power of two"):
        SplitConfig(96)


@pytest.mark.parametrize("shape, size, block", [
    ((5000001, 3), 1, 512), ((5000001, 12), 1, 512), ((5000002, 4), 1, 512), ((5000001, 5), 2, 512),
    ((5000000, 3), 1, 256), ((5000000, 10), 1, 256), ((5000001, 5), 2, 512), ((5000000, 5), 2, 256),
    ((5000001, 13), 1, 256), ((5000001, 20), 1, 256), ((5000001, 10), 2, 256), ((3, 500001, 10), 1, 512),
    ((5000000, 4), 1, None), ((5000000, 12), 1, None), ((5000000, 4), 2, None),  # rows of whole words
    ((5000001, 8), 1, 512), ((5000001, 8), 2, 256), ((5000001, 16), 1, None), ((3, 500001, 8), 1, 512),  # 8, 16
    ((5000001, 21), 1, None), ((5000000, 13), 1, None), ((3, 500001, 11), 1, None),  # longer rows, batches
])
def test_split_rule(shape, size, block):
    """The split rule (configs.split_rule): rows of up to SPLIT_MAX_BYTES split in programs of 512 lanes where output
    rows start inside words and of 256 where they start at whole words (but not rows of whole words), shifted rows
    of up to SPLIT_MAX_SHIFTED_BYTES in programs of 256, batches up to SPLIT_MAX_BATCH_BYTES a row, never a multiple
    of 16 columns; where it says no, or x or out start past a whole word (split=False), the words kernel's rule."""
    problem = _matrix(shape, size)
    found = skinny(problem)
    if block is None:
        assert not isinstance(found[1], SplitConfig), found
    else:
        assert found[:2] == (4, SplitConfig(block, 4)) and "split into planes" in found[2], found
        assert split_rule(problem) == SplitConfig(block, 4)
    assert isinstance(skinny(problem, split=False)[1], WordsConfig)


# Spill stores and registers of transpose_split compiled for sm_90 (tests/sm90.py): [rows, cols, size, block]
_SPLIT_PTXAS = """
import json, os, re, subprocess, sys, tempfile
from sm90 import compile_launch
from triton.backends.nvidia.compiler import get_ptxas
from cornerturn.engine import plan as engine_plan
from cornerturn.engine.configs import SplitConfig
from cornerturn.problem import canonical
rows, cols, size, block = json.loads(sys.argv[1])
launch = engine_plan.build(canonical((rows, cols), (cols * size, size), size), 4, SplitConfig(block, 4)).pieces[0][2]
compiled = compile_launch(launch)
ptx = compiled.asm["ptx"]
with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
    f.write(ptx)
    f.flush()
    done = subprocess.run([get_ptxas(90).path, "-arch=sm_90a", "-v", "-o", os.devnull, f.name], capture_output=True,
                          text=True, check=True)
print(json.dumps({"spills": [int(v) for v in re.findall(r"(\\d+) bytes spill stores", done.stderr)],
                  "registers": int(re.search(r"Used (\\d+) registers", done.stderr).group(1)),
                  "shift": launch.constexprs["SHIFT"], "shared": compiled.metadata.shared,
                  "barriers": ptx.count("bar.sync"), "span_bytes": launch.named_ints()["span_bytes"]}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("rows, cols, size, block", [(5000001, 12, 1, 512), (5000001, 20, 1, 256),
                                                     (5000001, 5, 2, 512)])
def test_split_rule_programs_do_not_spill(rows, cols, size, block):
    """The longest rows that the split rule gives each program size compile for sm_90 without spilling: a lane keeps
    the C words of its group and, where output rows start inside words, of the group before."""
    import sm90

    found = sm90.run(_SPLIT_PTXAS, [rows, cols, size, block])
    assert found["shift"] and found["spills"] and not any(found["spills"]) and found["registers"] <= 255, found


@pytest.mark.slow
@pytest.mark.parametrize("rows, cols, size, block", [(2000002, 8, 1, 512), (1000001, 16, 1, 256),
                                                     pytest.param(1000001, 8, 2, 256, marks=pytest.mark.full)])
def test_split_rows_of_8_columns_need_no_shared_memory(rows, cols, size, block):
    """Shifted output rows of a multiple of 8 columns, whose matrix's output is a multiple of 16 bytes, compile for
    sm_90 as every other split does: each lane stores the words it built, with no shared memory or barriers (with
    span_bytes specialised on its alignment the compiler moved the words between layouts through shared memory,
    77-157 barriers a program, and such matrices ran at 22-24% of the copy)."""
    import sm90

    found = sm90.run(_SPLIT_PTXAS, [rows, cols, size, block])
    assert found["shift"] and found["span_bytes"] % 16 == 0, found
    assert found["shared"] == 0 and found["barriers"] == 0, found


def test_autotuning_candidates_of_skinny_matrices_build_and_round_trip():
    """The candidates of matrices of 2-8 rows include the narrow and interleave kernels, of a few columns the split
    kernel; each builds a plan and survives the tuning cache's dictionary form."""
    from cornerturn.engine.tune import config_from_dict, config_to_dict

    for shape, size, kinds in (((3, 700001), 1, {NarrowConfig, InterleaveConfig}), ((6, 700001), 1, {NarrowConfig}),
                               ((2, 700001), 2, {NarrowConfig, InterleaveConfig}), ((700001, 5), 1, {SplitConfig})):
        problem = _matrix(shape, size)
        found = candidates(problem)
        assert kinds <= {type(c) for c in found}
        for config in found:
            if isinstance(config, (NarrowConfig, InterleaveConfig, SplitConfig)):
                assert engine_plan.build(problem, 4, config).pieces
                assert config_from_dict(config_to_dict(config)) == config


# The registers a thread of a byte matrix's words kernel compiled for sm_90 (tests/sm90.py): [rows, cols, config]
_REGISTERS = """
import json, sys
from sm90 import compile_launch, registers
from cornerturn.engine import plan as engine_plan
from cornerturn.engine.configs import WordsConfig
from cornerturn.problem import canonical
rows, cols, config = json.loads(sys.argv[1])
launch = engine_plan.build(canonical((rows, cols), (cols, 1), 1), 4, WordsConfig(*config)).pieces[0][2]
print(json.dumps({"constexprs": launch.constexprs, "registers": registers(compile_launch(launch))}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("config", [(256, 32, 8), (256, 16, 4)])
def test_shifted_words_tiles_keep_their_registers(config):
    """The planner's table chose the shifted 256 x 32-word tile on 8 warps for bytes (and 256 x 16 on 4) when they
    compiled to 128 registers a thread, two (four) blocks an SM; conditions for the joined rows in the edge stores
    raised them to 160 (164) where joining is off, one (three) blocks an SM, and uint8 85473x1156, a shape of the
    table's own, fell from 65% of the copy to 50% (H200, docs/engine.md). A byte matrix with output rows shifted."""
    import sm90

    found = sm90.run(_REGISTERS, [1157, 1156, list(config)])
    assert found["constexprs"]["OUT"] == 1 and found["constexprs"]["EDGES"] and not found["constexprs"]["JOIN"]
    assert found["registers"] <= 128


GATHER_CASES = [  # (shape, dtype, steps, move): batches of small matrices for transpose_gather
    ((37, 8, 34), np.float64, None, False),  # 8 x 34: the heuristic's 32 x 64 tile 13% full
    ((41, 5, 4), np.float32, None, False),  # 80-byte matrices
    ((9, 5, 5), np.complex128, None, False),  # 16-byte elements as two words
    ((6, 3, 7), np.int32, (1, 1, 2), False),  # strided columns
    ((7, 5, 6), np.float64, (-1, -1, -1), False),  # every stride negative
    ((3, 4, 5, 6), np.float32, (2, 1, 1, 1), False),  # two batch axes that do not fuse: a launch each outer index
    ((5, 4, 3, 2), np.float32, None, True),  # a batch axis moved last: a disguised copy, not GatherConfig's
    ((3, 2, 1, 9), np.float64, None, False),  # one row: a disguised copy per matrix, left to copy_strided
]


@pytest.mark.parametrize("shape, dtype, steps, move", GATHER_CASES, ids=str)
def test_gather_kernel_on_small_batches(shape, dtype, steps, move, rng, monkeypatch):
    """transpose_gather, bit-exact: the output as one flat run, programs of 32 elements (a partial last one) and of
    the planner's size, dividing by multiplying and (64-bit offsets) by dividing; nothing past the output written
    (run_engine checks it)."""
    from cornerturn.engine.configs import GatherConfig, word_size

    base, x = make(shape, dtype, rng, steps, move)
    problem = canonical(x.shape, x.strides, x.itemsize)
    if problem.kind != "transpose":
        with pytest.raises(ValueError, match="GatherConfig"):
            engine_plan.build(problem, word_size(problem), GatherConfig())
        return
    word = word_size(problem)
    launch = engine_plan.build(problem, word, GatherConfig(32, 1)).pieces[0][2]
    assert launch.constexprs["MAGIC"] is True and launch.constexprs["WORDS"] == x.itemsize // word
    for config in (GatherConfig(32, 1), GatherConfig()):
        assert_bits_equal(run_engine(base, x, config, word), reference(x))
    monkeypatch.setattr(engine_plan, "WIDE_FROM", 0)
    assert engine_plan.build(problem, word, GatherConfig(32, 1)).pieces[0][2].constexprs["MAGIC"] is False
    assert_bits_equal(run_engine(base, x, GatherConfig(32, 1), word), reference(x))


def test_small_matrices_rule():
    """Batches of 4- to 16-byte matrices of 1 KiB or less, or whose tile the planner would fill under 30%, take
    transpose_gather; others keep their tiles; 1- and 2-byte matrices keep their own rules."""
    from cornerturn.engine import configs
    from cornerturn.engine.configs import GATHER_BLOCKS, GatherConfig, small_matrices, tile_fill

    def problem(shape, itemsize):
        strides = (shape[1] * shape[2] * itemsize, shape[2] * itemsize, itemsize)
        return canonical(shape, strides, itemsize)

    tiny = problem((100000, 5, 4), 4)  # 80 B a matrix
    word, config, reason = small_matrices(tiny, heuristic(tiny, 4))
    assert (word, config) == (4, GatherConfig(GATHER_BLOCKS[4])) and "80 B" in reason
    sparse = problem((10000, 8, 34), 8)  # 2,176 B, in tiles of 32 x 64: 13% full
    assert tile_fill(sparse, heuristic(sparse, 8)) < configs.GATHER_FILL
    assert small_matrices(sparse, heuristic(sparse, 8))[1] == GatherConfig(2048)
    assert small_matrices(sparse, None, 8) == small_matrices(sparse, heuristic(sparse, 8))  # the heuristic's tile
    full = problem((1000, 62, 35), 4)  # 8,680 B in tiles of 32 x 32 (more than half full): tiles
    assert small_matrices(full, heuristic(full, 4)) is None
    wide = problem((10, 257, 257), 4)  # a side over GATHER_MAX_SIDE: tiles, however full
    assert small_matrices(wide, TileConfig(512, 512)) is None and tile_fill(wide, TileConfig(512, 512)) < 0.3
    assert small_matrices(problem((100000, 5, 4), 2), None) is None  # 2-byte elements: their own rules
    c128 = problem((100000, 5, 4), 16)
    assert small_matrices(c128, heuristic(c128, 8))[:2] == (8, GatherConfig(2048))
    assert small_matrices(canonical((5, 4), (16, 4), 4), None) is not None  # one matrix too
    configs.GATHER_SMALL = False
    try:
        assert small_matrices(tiny, None) is None
    finally:
        configs.GATHER_SMALL = True
    assert tile_fill(tiny, TileConfig(8, 4)) == 20 / 32 and tile_fill(tiny, None) == 1.0
    with pytest.raises(ValueError, match="GatherConfig.block"):
        GatherConfig(100)
    with pytest.raises(ValueError, match="GatherConfig"):  # a wider output row, or a word wider than the element
        engine_plan.build(canonical((5, 4), (16, 4), 4), 4, GatherConfig(), out_row_stride=64)
    assert GatherConfig(1024, 4).name == "gather1024-w4"
    # autotune measures it on matrices with both sides under 256, and keeps it in its cache
    from cornerturn.engine import tune

    assert {c for c in candidates(sparse) if isinstance(c, GatherConfig)} == {
        GatherConfig(1024, 4), GatherConfig(2048, 4), GatherConfig(4096, 8)}
    assert not any(isinstance(c, GatherConfig) for c in candidates(problem((10, 300, 34), 8)))
    assert tune.config_from_dict(tune.config_to_dict(GatherConfig(4096, 8))) == GatherConfig(4096, 8)


_GATHER_PTX = """
import json, re, sys
from sm90 import compile_launch, registers
from cornerturn.engine import plan as engine_plan
from cornerturn.engine.configs import GatherConfig
from cornerturn.problem import canonical
rows, cols, itemsize, word, block = json.loads(sys.argv[1])
problem = canonical((1000, rows, cols), (rows * cols * itemsize, cols * itemsize, itemsize), itemsize)
compiled = compile_launch(engine_plan.build(problem, word, GatherConfig(block, 4)).pieces[0][2])
ptx = compiled.asm["ptx"]
print(json.dumps({"stores": sorted(set(re.findall(r"st\\.global[.\\w]*", ptx))),
                  "divides": len(re.findall(r"\\bdiv\\.", ptx)), "mulhi": len(re.findall(r"mul\\.hi", ptx)),
                  "registers": registers(compiled)}))
"""


@pytest.mark.slow
def test_gather_kernel_compiles_to_vector_stores_and_multiplies():
    """transpose_gather compiled for sm_90: each lane's run of output words is stored as 16-byte vectors, and the
    output index is split into (matrix, column, row) by multiplying (no division), in few registers."""
    import sm90

    found = sm90.run(_GATHER_PTX, [8, 34, 4, 4, 1024])
    assert any(".v4" in op for op in found["stores"]), found
    assert found["divides"] == 0 and found["mulhi"] > 0 and found["registers"] <= 64, found
