"""permute_dims: the canonical form, the tile's sides, the general kernel under TRITON_INTERPRET=1 (every plan shape:
fused to a transpose, general tile, sides of several axes, a shared run as a wide element, rest axes past a launch's
four), the CPU engine on random ranks, sizes, strides and permutations (hypothesis), and the errors."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import assert_bits_equal, grid, poisoned, random_bits, together
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cornerturn
from cornerturn.arrays import byte_range
from cornerturn.problem import Permutation, Problem, canonical, canonical_permutation, check_axes
from cornerturn.tiling import element_bytes, split, widest_word


def c_strides(shape, itemsize):
    return tuple(int(np.prod(shape[k + 1:], dtype=np.int64)) * itemsize for k in range(len(shape)))


def canon(shape, axes, itemsize=4):
    return canonical_permutation(shape, c_strides(shape, itemsize), itemsize, axes)


def reference(x, axes):
    return np.transpose(x, axes).copy(order="C")


def forget_plans():
    """Clear the API's plan caches, so that plans made after a planner knob is patched see it."""
    from cornerturn import api

    api._backend_plan.cache_clear()
    api._cached_plan.cache_clear()
    api._NUMPY_PLANS.clear()


# ---- canonical form -------------------------------------------------------------------------------------------


def test_nchw_to_nhwc_is_a_batched_transpose():
    p = canon((64, 3, 50, 40), (0, 2, 3, 1))
    assert p == Problem("transpose", (64,), (3 * 2000 * 4,), 3, 2000, 2000 * 4, 4, 4)


def test_heads_and_tokens_swap_is_a_permutation_with_a_wide_unit():
    p = canon((8, 32, 40, 16), (0, 2, 1, 3), itemsize=2)
    assert isinstance(p, Permutation)
    assert p.extents == (8, 40, 32, 16) and element_bytes(p) == 32 and widest_word(p) == 8


def test_reversal_of_three_axes_is_general():
    p = canon((5, 6, 7), (2, 1, 0))
    assert p == Permutation((7, 6, 5), (4, 28, 168), 4)
    assert p.out_strides == (120, 20, 4)


def test_identity_size_one_and_zero_size():
    assert canon((3, 4, 5), (0, 1, 2)).kind == "copy"
    assert canon((3, 1, 5), (1, 2, 0)) == canon((3, 5), (1, 0))  # the size-1 axis vanishes
    assert canon((3, 0, 5), (2, 0, 1)).kind == "empty"
    assert canon((), ()).kind == "copy" and canon((7,), (0,)).kind == "copy"


def test_transpose_axes_give_the_transpose_problem():
    for shape in [(31, 33), (4, 17, 40), (2, 3, 5, 7)]:
        strides = c_strides(shape, 8)
        axes = (*range(len(shape) - 2), len(shape) - 1, len(shape) - 2)
        assert canonical_permutation(shape, strides, 8, axes) == canonical(shape, strides, 8)


def test_batches_that_stay_apart_go_to_the_general_kernel():
    # (2,0,1,3) of a 4-D array: a copy of 67-element runs over two batch axes that do not fuse
    assert isinstance(canon((183, 334, 9, 67), (2, 0, 1, 3), 8), Permutation)


@pytest.mark.parametrize("axes, error, words", [
    ((0, 0, 1), ValueError, "not a permutation"), ((0, 1), ValueError, "has 2 entries"),
    ((0, 1, 3), ValueError, "not a permutation"), ((0, 1, 2.0), TypeError, "expected ints"),
    ((True, 0, 1), TypeError, "expected ints"), (5, TypeError, "sequence"),
])
def test_check_axes_errors(axes, error, words):
    with pytest.raises(error, match=words):
        check_axes(axes, 3)


def test_check_axes_negative():
    assert check_axes((-1, 0, -2), 3) == (2, 0, 1)


# ---- sides ----------------------------------------------------------------------------------------------------


def test_sides_of_a_six_axis_permutation():
    p = canon((16,) * 6, (5, 3, 1, 4, 0, 2))
    sides = split(p, 4, 64)
    assert [a.in_stride for a in sides.a] == [16**3, 16**5]  # the output's innermost two: axes 2 and 0
    assert [b.in_stride for b in sides.b] == [1, 16]  # the input's fastest two: axes 5 and 4
    assert sides.size_a * sides.size_b * sides.size_rest == 16**6


def test_sides_keep_the_input_fastest_axis_for_b():
    p = canon((5, 6, 7), (2, 1, 0))
    sides = split(p, 4, 10**6)  # a target no side reaches: A must still stop before the input's fastest axis
    assert [a.extent for a in sides.a] == [5, 6] and [b.extent for b in sides.b] == [7]


@pytest.mark.parametrize("shape, axes, itemsize, before, after", [
    ((33, 3, 40), (2, 1, 0), 8, [33], [33, 3]),  # tiles of 32 along 33 words: 0.52 of them used; with 3, 0.77
    ((269, 3, 130), (2, 1, 0), 2, [269], [269, 3]),
    ((70, 3, 5, 64), (3, 2, 1, 0), 4, [70], [70, 3, 5]),  # 70 in 64s: 0.55 of them used, 210: 0.82, 1050: 0.96
    ((33, 4, 6, 5, 3, 2), (4, 5, 2, 1, 3, 0), 8, [33], [33]),  # B takes the next axes (180 words in three)
    ((64, 3, 40), (2, 1, 0), 8, [64], [64]),  # whole tiles already
])
def test_side_a_goes_on_where_its_tiles_are_short(shape, axes, itemsize, before, after):
    from cornerturn.engine import permute

    p = canon(shape, axes, itemsize)
    word = permute.natural_word(p)
    fill = dict(fill_block=permute.tile_base(word)[0], fill=permute.FILL_A)
    plain, filled = split(p, word, max(16, permute.SIDE_BYTES // word)), \
        split(p, word, max(16, permute.SIDE_BYTES // word), **fill)
    assert [a.extent for a in plain.a] == before and [a.extent for a in filled.a] == after
    assert filled.b == plain.b  # B keeps its axes
    assert filled.size_a * filled.size_b * filled.size_rest == math.prod(shape) * itemsize // word
    built = permute.build(p, word)
    assert f"({filled.size_a} x {filled.size_b} words" in built.reason  # the planner's plan takes the filled side


def test_side_a_of_two_byte_words_takes_a_third_axis_only_where_its_runs_align():
    from cornerturn.engine import permute

    def filled(shape, axes, aligning):
        p = canon(shape, axes, 2)
        third = permute.runs_align_better if aligning else None
        return [a.extent for a in split(p, 2, 128, fill_block=256, fill=permute.FILL_A, third_axis=third).a]

    # A of 12 x 13 = 156 words (runs 4-word aligned) in tiles of 256; with 15 more, 2340 (4-word aligned too)
    assert filled((12, 4, 13, 5, 15, 130), (1, 3, 5, 4, 2, 0), False) == [12, 13, 15]
    assert filled((12, 4, 13, 5, 15, 130), (1, 3, 5, 4, 2, 0), True) == [12, 13]
    # 12 x 13 x 16 = 2496 words: 16-word aligned runs, so the third axis is taken
    assert filled((12, 4, 13, 5, 16, 130), (1, 3, 5, 4, 2, 0), True) == [12, 13, 16]


@pytest.mark.parametrize("shape, axes, tiles", [
    ((256, 256, 64, 64), (3, 2, 1, 0), [(128, 256, 8), (256, 256, 4)]),  # B: 64 x 64 bytes end to end in the input
    ((144, 2, 32, 32), (3, 2, 1, 0), [(128, 256, 8), (256, 256, 4)]),
    ((16, 105685, 64), (2, 1, 0), [(512, 64, 8), (1024, 64, 4)]),  # narrowed to B's 64 bytes as the planner's is
    ((16756, 16, 20, 16), (3, 0, 2, 1), []),  # B two runs of the input (16 and 20 x 16 bytes)
    ((256, 256, 64, 63), (3, 2, 1, 0), []),  # rows of 63 bytes: not vectors (the words kernel)
])
def test_autotune_measures_larger_byte_tiles_of_vectors_where_b_is_one_run(shape, axes, tiles):
    from cornerturn.engine import permute

    p = canon(shape, axes, 1)
    planned = permute.build(p, permute.natural_word(p))
    found = permute.candidates(p)
    assert found[0] == (planned.word, planned.config)  # the planner's plan first, and unchanged
    larger = [(c.block_a, c.block_b, c.num_warps) for w, c in found
              if isinstance(c, permute.PermuteConfig) and c.block_a * c.block_b > 8192]
    assert larger == tiles
    if isinstance(planned.config, permute.PermuteConfig):
        assert permute.vector_run(planned.pieces[0][2]) == bool(tiles)
    for config in (c for w, c in found[1:] if isinstance(c, permute.PermuteConfig) and tiles):
        assert permute.build(p, 1, config).config == config


# ---- the GPU kernel in the interpreter ------------------------------------------------------------------------

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

WORD_NUMPY = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def run_engine(x: np.ndarray, axes, config=None, wide: bool = False, word: int | None = None) -> np.ndarray:
    """permute_dims of `x` by the engine's general kernel in the interpreter, from a copy of x's bytes (in `word`-byte
    words where given: a plan narrowed for an address not aligned to its own)."""
    from cornerturn.engine import permute
    from cornerturn.engine import plan as engine_plan

    p = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    assert isinstance(p, Permutation), p
    if word is not None:
        pass
    elif isinstance(config, (permute.PermuteConfig, permute.RunsConfig, permute.PermuteGatherConfig)):  # the widest
        word = permute.widest_word(p)
    else:  # the words kernels move 32-bit words
        word = 4 if isinstance(config, (permute.PermuteWordsConfig, permute.ShiftedRunsConfig)) else \
            permute.natural_word(p)
    saved = engine_plan.WIDE_FROM
    engine_plan.WIDE_FROM = 0 if wide else saved
    try:
        plan = permute.build(p, word, config)
    finally:
        engine_plan.WIDE_FROM = saved
    lo, hi = byte_range(x.shape, x.strides, x.itemsize)
    start = x.__array_interface__["data"][0] + lo
    raw = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * (hi - lo)).from_address(start)).copy()
    raw = np.concatenate([raw, poisoned(((-raw.size) % word,), np.uint8)])  # whole words (the words kernel's reads)
    want = reference(x, axes)
    out_raw = poisoned((want.nbytes + word + (-want.nbytes) % word,), np.uint8)
    x_t = torch.from_numpy(raw.view(WORD_NUMPY[word]))
    out_t = torch.from_numpy(out_raw.view(WORD_NUMPY[word]))
    for x_offset, out_offset, launch in plan.pieces:
        assert launch.constexprs["WIDE"] or not wide
        launch.run_tensors(x_t[(x_offset - lo) // word:], out_t[out_offset // word:])
    assert (out_raw[want.nbytes:] == poisoned((1,), np.uint8)[0]).all()  # nothing past the output
    return out_raw[:want.nbytes].view(x.dtype).reshape(want.shape)


ENGINE_CASES = [
    ((5, 6, 7), (2, 1, 0), np.float32),  # one axis a side
    ((3, 4, 5, 6), (0, 2, 1, 3), np.uint16),  # a shared run: a wide unit of 12 bytes
    ((4, 3, 5, 7), (3, 1, 0, 2), np.uint8),
    ((2, 3, 2, 3, 2, 3), (5, 3, 1, 4, 0, 2), np.float32),  # sides of several axes
    ((6, 5, 4, 3), (3, 2, 1, 0), np.float64),
    ((3, 5, 7, 2), (1, 3, 0, 2), np.complex128),  # 16-byte elements as two words
    ((2,) * 9, (8, 6, 4, 2, 0, 7, 5, 3, 1), np.uint8),  # more rest axes than a launch walks: several launches
    ((2, 3, 40, 8), (0, 2, 1, 3), np.float16),
    ((33, 3, 40), (2, 1, 0), np.int64),  # side A goes on past a short last tile: two axes
    ((70, 3, 5, 64), (3, 2, 1, 0), np.int32),  # and three
    ((144, 2, 32, 32), (3, 2, 1, 0), np.uint8),  # 16-byte vectors, B one run: VECTOR_TILES, ragged along A
]


@pytest.mark.parametrize("shape, axes, dtype", ENGINE_CASES, ids=str)
def test_general_kernel(shape, axes, dtype, rng):
    x = random_bits(shape, dtype, rng)
    assert_bits_equal(run_engine(x, axes), reference(x, axes))


def test_general_kernel_strided_negative_wide_and_small_tiles(rng):
    from cornerturn.engine.permute import PermuteConfig

    base = random_bits((6, 10, 7, 4), np.float32, rng)
    x = base[::-1, ::2, :, ::-1]
    for config in (None, PermuteConfig(2, 4), PermuteConfig(8, 2)):
        assert_bits_equal(run_engine(x, (2, 0, 3, 1), config), reference(x, (2, 0, 3, 1)))
    assert_bits_equal(run_engine(x, (3, 1, 2, 0), wide=True), reference(x, (3, 1, 2, 0)))


@pytest.mark.parametrize("dtype, cases, ragged", [
    (np.float32, [((1485, 63, 991), (2, 1, 0), "permute128x32-w8"),
                  ((512, 512, 512), (2, 1, 0), "permute64x64-w8"),  # rows of whole vectors
                  ((16,) * 6, (5, 3, 1, 4, 0, 2), "permute64x64-w8"),
                  ((130, 3, 33), (2, 1, 0), "permute128x32-w8"),
                  ((132, 2, 36), (2, 1, 0), "permute64x64-w8")], (130, 3, 33)),  # 144-byte rows
    (np.float64, [((13, 7, 16, 33, 39, 20), (5, 3, 4, 2, 0, 1), "permute64x64-w8"),
                  ((65, 3, 33), (2, 1, 0), "permute64x64-w8"),
                  ((66, 3, 34), (2, 1, 0), "permute32x64-w8")], (65, 3, 33))], ids=["4 bytes", "8 bytes"])
def test_unaligned_tiles_take_the_longer_base(dtype, cases, ragged, rng):
    """4- and 8-byte general tiles whose loads or stores cannot be 16-byte vectors take the heuristic's tile from the
    bases of permute.UNALIGNED_TILES (128 x 32 and 64 x 64 words); those that can keep TILES' (64 x 64, 32 x 64); the
    plan rebuilt from its config is the same plan (the tuning cache keeps configs); bit-exact in the interpreter
    where the rule changes the tile."""
    from cornerturn.engine import permute

    size = np.dtype(dtype).itemsize
    for shape, axes, name in cases:
        perm = canon(shape, axes, size)
        rule = permute.UNALIGNED_TILES
        permute.UNALIGNED_TILES = {k: v for k, v in rule.items() if k != size}
        try:
            before = permute.build(perm, size)
        finally:
            permute.UNALIGNED_TILES = rule
        plan = permute.build(perm, size)
        assert plan.name == name and before.name == {4: "permute64x64-w8", 8: "permute32x64-w8"}[size], \
            (shape, plan.name, before.name)
        again = permute.build(perm, size, plan.config).pieces[0][2]
        assert (again.constexprs, again.ints) == (plan.pieces[0][2].constexprs, plan.pieces[0][2].ints)
    x = random_bits(ragged, dtype, rng)
    assert_bits_equal(run_engine(x, (2, 1, 0)), reference(x, (2, 1, 0)))


def test_sixteen_byte_elements_take_the_wider_base(rng):
    """16-byte elements in general tiles of 8-byte words take the 64 x 64-word base whatever their alignment; 8-byte
    elements whose tiles move vectors keep 32 x 64; the plan rebuilt from its config is the same plan; bit-exact."""
    from cornerturn.engine import permute

    perm = canon((12, 71, 17, 49, 24), (1, 2, 0, 4, 3), 16)
    plan = permute.build(perm, 8)
    assert plan.name == "permute64x64-w8" and "16-byte elements" in plan.reason, (plan.name, plan.reason)
    again = permute.build(perm, 8, plan.config).pieces[0][2]
    assert (again.constexprs, again.ints) == (plan.pieces[0][2].constexprs, plan.pieces[0][2].ints)
    assert permute.build(canon((66, 3, 34), (2, 1, 0), 8), 8).name == "permute32x64-w8"
    x = random_bits((3, 5, 7, 9), np.complex128, rng)
    small = permute.build(canonical_permutation(x.shape, x.strides, 16, (2, 0, 3, 1)), 8)
    assert "16-byte elements" in small.reason and small.config.block_a == 16  # narrowed to a side of 10 words
    assert_bits_equal(run_engine(x, (2, 0, 3, 1)), reference(x, (2, 0, 3, 1)))


def test_side_b_narrowed_where_it_pads_fewer_lanes(rng):
    """General tiles of 8-byte words of 64 or more words along A and 64 along B take 32 along B where that leaves
    NARROW_B_GAIN fewer lanes idle: int64 2x5x4x7x13x7 by (0,2,4,5,1,3) has sides of 35 x 91 words, 91 padded to
    128 fills 71% of the lanes along B and to 96 95%; the plan rebuilt from its config is the same; not where B is
    a multiple of 64 words; bit-exact in the interpreter, 8- and 16-byte elements."""
    from cornerturn.engine import permute

    assert permute.padded_fill(35, 91, 64, 64) == 35 * 91 / (64 * 128)
    assert permute.padded_fill(35, 91, 64, 32) == 35 * 91 / (64 * 96)
    for shape, axes, size in (((2, 5, 4, 7, 13, 7), (0, 2, 4, 5, 1, 3), 8), ((3, 70, 90), (2, 1, 0), 16)):
        perm = canon(shape, axes, size)
        plan = permute.build(perm, 8)
        assert (plan.config.block_a, plan.config.block_b) == (64, 32) and "B in blocks of 32" in plan.reason, \
            (shape, plan.name, plan.reason)
        again = permute.build(perm, 8, plan.config).pieces[0][2]
        assert (again.constexprs, again.ints) == (plan.pieces[0][2].constexprs, plan.pieces[0][2].ints)
        gain = permute.NARROW_B_GAIN
        permute.NARROW_B_GAIN = 10.0
        try:
            assert permute.build(perm, 8).config.block_b == 64  # the plan before the rule
        finally:
            permute.NARROW_B_GAIN = gain
        x = random_bits(shape, {8: np.int64, 16: np.complex128}[size], rng)
        assert_bits_equal(run_engine(x, axes), reference(x, axes))
    whole = permute.build(canon((3, 70, 128), (2, 1, 0), 16), 8)
    assert whole.config.block_b == 64 and "blocks of 32" not in whole.reason  # 256 words: no lane idle along B


LOADS_CASES = [  # (shape, axes, steps, widened): 2-byte general tiles whose loads the planner widens, or not
    ((6, 9, 8, 16), (1, 3, 0, 2), None, True),  # sides of two axes each
    ((3, 4, 5, 6, 8), (4, 2, 0, 3, 1), (1, -1, 1, 1, 1), True),  # a reversed axis, three axes on side A
    ((12, 10, 8, 6), (2, 3, 1, 0), (1, 1, 1, 1), True),
    ((11, 4, 5, 10, 2), (1, 3, 2, 4, 0), None, True),  # B of 100 words and a rest stride of 100: each 4, not 8
    ((5, 5, 13, 7, 2), (2, 3, 1, 4, 0), None, True),  # 182 and 182: each 2, not 4
    ((250, 5, 140), (2, 1, 0), None, False),  # one axis a side, output runs 2-byte aligned: word-wide loads
    ((5, 7, 6, 12), (3, 1, 0, 2), (1, 1, 1, 2), False),  # side B strided in the input: nothing to widen
]


@pytest.mark.parametrize("shape, axes, steps, widened", LOADS_CASES, ids=str)
def test_general_tiles_widen_two_byte_loads(shape, axes, steps, widened, rng):
    """The loads' offsets written into the arithmetic (ARITH_IN) where the planner's rule widens them, bit-exact;
    the rule's exclusions keep the attribute hints."""
    from cornerturn.engine import permute
    from cornerturn.engine.permute_kernel import permute_tiles

    x = _strided(np.int16, shape, steps or (1,) * len(shape), int(rng.integers(2**32)))
    perm = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    plan = permute.build(perm, permute.widest_word(perm))  # the tiles (the planner interleaves the fourth and
    # fifth cases' output rows: permute_interleave)
    launches = [launch for _, _, launch in plan.pieces]
    assert all(launch.kernel is permute_tiles and launch.word == 2 for launch in launches)
    assert {launch.constexprs["ARITH_IN"] for launch in launches} == {widened}
    assert_bits_equal(run_engine(x, axes, plan.config), reference(x, axes))


def test_divisor_magic_divides_every_31_bit_index(rng):
    """divisor_magic's multiply and shift give n // d for divisors from 2 to 2**31 - 1 (the small ones, powers of two
    and their neighbours, random ones) and dividends at the edges (0, multiples of d and their neighbours,
    2**31 - 1) and at random; m fits a signed 32-bit integer; divisors under 2 or past 31 bits are refused."""
    from cornerturn.engine.permute import divisor_magic

    divisors = [*range(2, 1025), *(2**k + e for k in range(10, 31) for e in (-1, 0, 1) if 2**k + e < 2**31),
                *rng.integers(2, 2**31, 300).tolist()]
    for d in divisors:
        m, h = divisor_magic(d)
        assert -2**31 <= m < 2**31 and 0 <= h < 31
        top = (2**31 - 1) // d * d
        n = np.array([0, 1, d - 1, d, d + 1, top - 1, top, 2**31 - 1, *rng.integers(0, 2**31, 64).tolist()],
                     dtype=np.uint64)
        n = n[n < 2**31]
        q = ((n * np.uint64(m % 2**32)) >> np.uint64(32)) >> np.uint64(h)
        assert (q == n // np.uint64(d)).all(), d
    for d in (0, 1, 2**31):
        with pytest.raises(ValueError, match="from 2 to 2"):
            divisor_magic(d)


MULTIPLY_CASES = [  # (shape, axes, dtype, side A multiplies, side B multiplies): general tiles of small words
    ((2, 3, 5, 3, 4, 7), (1, 3, 5, 4, 2, 0), np.float16, True, True),  # three axes a side: shifts of 0 (by 2) to 2
    ((2, 5, 4, 3, 3, 9), (1, 5, 3, 2, 0, 4), np.int16, True, True),  # shifts of 1 (by 3) and 3 (by 9)
    ((3, 5, 2, 7, 6), (4, 1, 3, 0, 2), np.uint8, True, True),
    ((6, 9, 8, 16), (1, 3, 0, 2), np.int16, True, False),  # loads widened (ARITH_IN): side B divides
    ((5, 6, 7, 9), (3, 1, 0, 2), np.float32, False, False),  # 4-byte words divide
]


@pytest.mark.parametrize("shape, axes, dtype, magic_a, magic_b", MULTIPLY_CASES, ids=str)
def test_general_tiles_divide_by_multiplying(shape, axes, dtype, magic_a, magic_b, rng):
    """Tiles of 1- and 2-byte words split their sides' indices by multiplying (MAGIC_A; MAGIC_B where the loads
    gather), bit-exact with the planner's tile and a small one (several tiles a side), and dividing again with
    64-bit offsets; wider words keep dividing."""
    from cornerturn.engine import permute
    from cornerturn.engine import plan as engine_plan

    x = random_bits(shape, dtype, rng)
    perm = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    word = permute.widest_word(perm)
    for config in (permute.heuristic(split(perm, word, max(16, permute.SIDE_BYTES // word))),
                   permute.PermuteConfig(8, 4)):
        launch = permute.build(perm, word, config).pieces[0][2]
        given = launch.named_ints()
        assert (launch.constexprs["MAGIC_A"], launch.constexprs["MAGIC_B"]) == (magic_a, magic_b)
        assert any(given[k] for k in ("ma0", "ma1", "mb0", "mb1")) == magic_a  # the multipliers go where used
        assert_bits_equal(run_engine(x, axes, config), reference(x, axes))
    saved = engine_plan.WIDE_FROM
    engine_plan.WIDE_FROM = 0
    try:
        wide = permute.build(perm, word, permute.PermuteConfig(8, 4)).pieces[0][2].constexprs
    finally:
        engine_plan.WIDE_FROM = saved
    assert not wide["MAGIC_A"] and not wide["MAGIC_B"]
    assert_bits_equal(run_engine(x, axes, permute.PermuteConfig(8, 4), wide=True), reference(x, axes))


# Compiles a plan's kernel for sm_90 with the given MAGIC constexprs all on and all off, no GPU needed (tests/sm90.py),
# and prints each one's thread layouts (TTGIR) and global loads and stores (PTX).
_LAYOUTS = """
import json, re, sys
import numpy as np
from sm90 import compile_launch
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation
shape, axes, size, keys = json.loads(sys.argv[1])
strides = [int(np.prod(shape[k + 1:])) * size for k in range(len(shape))]
perm = canonical_permutation(tuple(shape), tuple(strides), size, tuple(axes))
launch = permute.build(perm, permute.natural_word(perm)).pieces[0][2]
found = []
for magic in (True, False):
    k = compile_launch(launch, dict(launch.constexprs, **{key: magic for key in keys}))
    found.append({"magic": magic, "layouts": sorted(re.findall(r"#ttg.blocked<[^>]*>", k.asm["ttgir"])),
                  "memory": sorted(re.findall(r"(?:ld|st).global[.a-z0-9]*", k.asm["ptx"])),
                  "divides": len(re.findall(r"(?:div|rem).[su]32", k.asm["ptx"])),
                  "multiplies": len(re.findall(r"mul.hi.u32", k.asm["ptx"]))})
print(json.dumps(found))
"""


def test_multiplying_leaves_the_vectors_as_they_were():
    """Where a tile's sides divide by multiplying, the compiled kernel keeps the thread layouts and the global loads'
    and stores' widths of the one that divides (the difference that gives each digit is said to divide by 1: else
    the stores' layout took vectors twice as wide as written, 1.5x the L2 sectors; H200, docs/permute.md), with the
    divisions of its sides' digits gone."""
    case = [[60, 43, 12, 35, 5, 16], [2, 4, 3, 5, 1, 0], 2, ["MAGIC_A", "MAGIC_B"]]  # sides of 2 and 3 axes
    multiplied, divided = _compiled_both_ways(case)
    assert multiplied["layouts"] == divided["layouts"] and multiplied["memory"] == divided["memory"]
    assert any(op.startswith("st.global.v2") for op in divided["memory"])  # stores of 8 bytes (B's loads widened)
    assert multiplied["multiplies"] > 0 and divided["multiplies"] == 0 and divided["divides"] > multiplied["divides"]


def _compiled_both_ways(case):
    """_LAYOUTS's two compilations of a case [shape, axes, itemsize, MAGIC keys]: multiplying, then dividing."""
    import sm90

    multiplied, divided = sm90.run(_LAYOUTS, case)
    assert multiplied["magic"] is True and divided["magic"] is False
    return multiplied, divided


GATHER_CASES = [  # (shape, axes, dtype, steps)
    ((26, 8, 3, 5, 15), (3, 1, 0, 4, 2), np.float32, None),  # blocks of 5 x 15 turned, the batch permuted
    ((4, 3, 5, 7), (3, 1, 0, 2), np.uint8, None),
    ((9, 7, 5, 3), (1, 3, 0, 2), np.int16, (1, 2, 1, 1)),  # a strided axis
    ((3, 4, 5, 6, 7, 8), (5, 4, 3, 2, 1, 0), np.complex128, None),  # seven axes in 8-byte words
    pytest.param((2, 3, 40, 8), (0, 2, 1, 3), np.float16, None, marks=pytest.mark.full),  # a shared run, wider words
    pytest.param((5, 6, 3, 4), (2, 3, 1, 0), np.int64, (2, 1, 1, 3), marks=pytest.mark.full),
]


@pytest.mark.parametrize("shape, axes, dtype, steps", GATHER_CASES, ids=str)
def test_gather_kernel(shape, axes, dtype, steps, rng):
    """permute_gather bit-exact in programs of 1,024 and of 128 words (a partial last one), with 64-bit offsets,
    dividing and multiplying; nothing written past the output (run_engine)."""
    from cornerturn.engine import permute

    x = _strided(dtype, shape, steps or (1,) * len(shape), int(rng.integers(2**32)))
    for config, wide in ((permute.PermuteGatherConfig(), False), (permute.PermuteGatherConfig(128, 4), True)):
        assert_bits_equal(run_engine(x, axes, config, wide=wide), reference(x, axes))
    perm = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    if permute.widest_word(perm) > 1:  # narrowed to bytes, as for an address one byte past a word
        assert_bits_equal(run_engine(x, axes, permute.PermuteGatherConfig(), word=1), reference(x, axes))
    launch = permute.build(perm, 0, permute.PermuteGatherConfig()).pieces[0][2]
    assert launch.constexprs["MAGIC"] and launch.constexprs["N"] == len(permute.word_axes(perm, launch.word))


def test_gather_takes_what_it_fits_and_words_narrowed():
    """permute_gather takes positive strides and up to seven axes in words; given a narrower word (an address not
    aligned to the widest) it moves that word; the inner block is the output's innermost axes that are the
    input's."""
    from cornerturn.engine import permute

    perm = canon((26, 83, 8, 47, 5, 15), (3, 1, 0, 2, 5, 4))
    assert permute.inner_block(perm) == 75 and permute.gather_fit(perm)
    assert permute.build(perm, 2, permute.PermuteGatherConfig()).word == 2
    assert permute.build(perm, 0, permute.PermuteGatherConfig()).word == 4
    assert permute.inner_block(canon((5, 6, 7), (2, 1, 0))) == 0
    assert permute.inner_block(canon((4, 5, 6, 7), (1, 0, 3, 2))) == 42
    assert not permute.gather_fit(canon((2,) * 9, (8, 6, 4, 2, 0, 7, 5, 3, 1), 1))
    with pytest.raises(ValueError, match="gather_fit"):
        permute.build(canon((2,) * 9, (8, 6, 4, 2, 0, 7, 5, 3, 1), 1), 1, permute.PermuteGatherConfig())


@pytest.mark.parametrize("shape, axes, itemsize, taken", [
    ((26, 83, 8, 47, 5, 15), (3, 1, 0, 2, 5, 4), 4, True),  # blocks of 300 B
    ((22, 238, 8, 6, 38, 4), (3, 2, 0, 1, 5, 4), 2, True),  # 304 B
    ((330, 187, 11, 2, 2, 2), (1, 0, 2, 4, 5, 3), 16, True),  # 128 B of 16-byte elements
    ((330, 187, 11, 2, 2, 2), (1, 0, 2, 4, 5, 3), 8, False),  # 64 B of 8-byte ones
    ((62, 33, 13, 7, 11, 12, 3), (2, 0, 1, 3, 5, 4, 6), 1, False),  # bytes keep their plans
    ((171, 278, 6, 59), (1, 0, 3, 2), 4, False),  # 1,416 B: past GATHER_BLOCK_BYTES
    ((26, 83, 8, 47, 5, 15), (3, 1, 0, 2, 4, 5), 4, False),  # no inner block
], ids=str)
def test_gather_rule(shape, axes, itemsize, taken):
    """The planner takes permute_gather for batches of inner blocks of GATHER_BLOCK_BYTES (by element size) that the
    general tiles would take, and keeps its plan elsewhere."""
    from cornerturn.engine import permute

    perm = canon(shape, axes, itemsize)
    plan = permute.build(perm, permute.natural_word(perm))
    assert isinstance(plan.config, permute.PermuteGatherConfig) == taken, plan.config
    assert permute.gather_ok(perm) == taken


_GATHER_COMPILED = """
import json, re, sys
from sm90 import compile_launch
from cornerturn.engine import permute
from cornerturn.problem import canonical_permutation
found = []
for shape, strides, size, axes in json.loads(sys.argv[1]):
    perm = canonical_permutation(tuple(shape), tuple(strides), size, tuple(axes))
    ptx = compile_launch(permute.build(perm, 0, permute.PermuteGatherConfig()).pieces[0][2]).asm["ptx"]
    found.append({"stores": sorted(set(re.findall(r"st.global[.a-z0-9]*", ptx))),
                  "divides": len(re.findall(r"(?:div|rem).[su](?:32|64)", ptx))})
print(json.dumps(found))
"""


def test_gather_compiles_to_vector_stores_without_dividing():
    """Compiled for sm_90, permute_gather stores 16-byte vectors (4-byte words) and 8-byte ones (bytes: 8 a thread)
    and splits its indices by multiplying, with no division left."""
    import sm90

    cases = [[[26, 83, 8, 47, 5, 15], c_strides((26, 83, 8, 47, 5, 15), 4), 4, [3, 1, 0, 2, 5, 4]],
             [[52, 42, 27, 16, 13, 8], c_strides((52, 42, 27, 16, 13, 8), 1), 1, [5, 2, 1, 4, 3, 0]]]
    words, items = sm90.run(_GATHER_COMPILED, cases)
    assert words == {"stores": ["st.global.v4.b32"], "divides": 0}
    assert items == {"stores": ["st.global.v2.b32"], "divides": 0}


PACKED_CASES = [  # (shape, axes, dtype, steps): side A short and the input's fastest axis short too
    ((3, 4, 5, 2, 7, 5), (3, 0, 2, 1, 5, 4), np.uint8, None),  # 7 x 5 bytes turned in each block, blocks permuted
    ((4, 7, 5, 8), (2, 1, 3, 0), np.float32, None),  # A of 4 words, then the input's 8 and one more axis
    ((7, 2, 6, 8), (0, 3, 2, 1), np.int16, (1, -1, 1, 1)),  # a reversed axis; A ends with the input's fastest
    ((3, 4, 2, 4, 5), (3, 1, 0, 4, 2), np.float64, (2, 1, 1, 1, 1)),  # a strided outer axis
]


@pytest.mark.parametrize("shape, axes, dtype, steps", PACKED_CASES, ids=str)
def test_packed_general_tiles(shape, axes, dtype, steps, rng):
    """Packed tiles (side A past the input's fastest axis) bit-exact, and their side A longer than the plain one;
    each is among the candidates autotune measures, after the planner's own plan."""
    from cornerturn.engine import permute
    from cornerturn.tiling import split

    x = _strided(dtype, shape, steps or (1,) * len(shape), int(rng.integers(2**32)))
    perm = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    word = permute.widest_word(perm)
    target = max(16, permute.SIDE_BYTES // word)
    plain, packed = split(perm, word, target), split(perm, word, target, permute.PACK_BYTES)
    assert len(packed.a) > len(plain.a) and packed.size_a > plain.size_a
    config = permute.heuristic(packed)
    config = permute.PermuteConfig(config.block_a, config.block_b, config.num_warps, packed=True)
    launch = permute.build(perm, word, config).pieces[0][2]
    assert launch.named_ints()["size_a"] == packed.size_a
    assert_bits_equal(run_engine(x, axes, config), reference(x, axes))
    found = permute.candidates(perm)
    assert found[0] == (permute.natural_word(perm), permute.build(perm, permute.natural_word(perm)).config)
    assert len(set(found)) == len(found) and (word, config) in found
    assert {c.num_warps for _, c in found if isinstance(c, permute.PermuteConfig) and c.packed} == {4, 8}


def test_candidates_take_words_written_by_element_on_four_warps(monkeypatch):
    """Where the planner's permute_words tile writes its output element by element, autotune measures that tile on
    ITEMS_WARPS warps too (second, after the planner's own); not where the output runs are whole words."""
    from cornerturn.engine import permute

    monkeypatch.setattr(permute, "interleave_ok", lambda p: False)  # these would interleave output rows instead
    items = canon((17, 3, 6, 18), (2, 1, 3, 0), 1)  # 17 bytes of A: element by element
    planned = permute.build(items, 4)
    assert planned.pieces[0][2].constexprs["OUT"] == 2 and planned.config.num_warps == 8
    found = permute.candidates(items)
    assert found[1] == (4, permute.PermuteWordsConfig(planned.config.block_a, planned.config.block_cw, 4, "items"))
    assert len(found) == len(set(found))
    words = canon((20, 3, 6, 18), (2, 1, 3, 0), 1)  # whole words
    assert not any(isinstance(c, permute.PermuteWordsConfig) and c.num_warps == 4
                   for _, c in permute.candidates(words))


def test_candidates_leave_out_packing_that_changes_nothing():
    from cornerturn.engine import permute

    perm = canonical_permutation((40, 50, 60), (12000, 240, 4), 4, (2, 1, 0))  # sides of 40+ words: nothing packed
    found = permute.candidates(perm)
    assert all(isinstance(c, permute.PermuteConfig) and not c.packed for _, c in found)
    assert len(found) == len(set(found)) == 2 and {c.num_warps for _, c in found} == {4, 8}
    with pytest.raises(ValueError, match="PermuteConfig.packed"):
        permute.PermuteConfig(16, 16, 4, packed=1)


def test_autotune_plans_what_it_measured_with_the_cache_off(monkeypatch):
    """With the tuning cache off (CORNERTURN_CACHE_DIR=off) a plan made with autotune takes the fastest candidate it
    measured (timings faked here: no GPU); plans made afterwards without autotune have nothing kept to read."""
    import cornerturn.engine as engine
    from cornerturn.api import Plan
    from cornerturn.engine import permute, tune

    monkeypatch.setenv("CORNERTURN_CACHE_DIR", "off")
    monkeypatch.setattr(tune, "_device_name", lambda device: "Test GPU")
    monkeypatch.setattr(engine, "_require", lambda: None)
    shape, strides, axes = (3, 4, 5, 2, 7, 5), (1400, 350, 70, 35, 5, 1), (3, 0, 2, 1, 5, 4)
    found = permute.candidates(canonical_permutation(shape, strides, 1, axes))
    monkeypatch.setattr(tune, "measure_candidates", lambda problem, device, word, *, budget_s: [
        {"config": config, "median_s": 1.0 if i != len(found) - 1 else 0.5}
        for i, (config, _) in enumerate(tune._plans(problem, word))])
    engine.choose.cache_clear()
    try:
        tuned = Plan(shape, "uint8", strides, "cuda:0", autotune=True, axes=axes)
        assert (tuned._backend.word, tuned._backend.config) == found[-1] and tuned.reason.startswith("autotuned now")
        assert Plan(shape, "uint8", strides, "cuda:0", axes=axes)._backend.config == found[0][1]
    finally:
        engine.choose.cache_clear()


def test_permutation_autotune_keeps_the_fastest_in_the_cache(tmp_path, monkeypatch):
    """tuned_permutation measures permute.candidates (timings faked here: no GPU), writes the fastest with its word
    to the cache, and engine.choose plans from it afterwards; a broken entry is ignored with a warning."""
    import json

    import cornerturn.engine as engine
    from cornerturn.engine import permute, tune

    monkeypatch.setenv("CORNERTURN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tune, "_device_name", lambda device: "Test GPU")
    monkeypatch.setattr(engine, "_require", lambda: None)
    perm = canonical_permutation((3, 4, 5, 2, 7, 5), (1400, 350, 70, 35, 5, 1), 1, (3, 0, 2, 1, 5, 4))
    found = permute.candidates(perm)
    fastest = len(found) - 1  # the last candidate: packed, 8 warps

    def fake(problem, device, word, *, budget_s):
        return [{"config": config, "median_s": 1.0 if i != fastest else 0.5}
                for i, (config, _) in enumerate(tune._plans(problem, word))]

    monkeypatch.setattr(tune, "measure_candidates", fake)
    engine.choose.cache_clear()
    try:
        assert engine.choose(perm, "cuda:0").config == found[0][1]  # nothing cached: the planner's plan
        word, config, reason = tune.tuned_permutation(perm, "cuda:0", measure=True)
        assert (word, config) == found[fastest] and config.packed and reason.startswith("autotuned now")
        engine.choose.cache_clear()
        plan = engine.choose(perm, "cuda:0")
        assert (plan.word, plan.config) == found[fastest] and plan.reason.startswith("autotuned on")
        assert engine.choose(perm, "cuda:0", 1).config == permute.build(perm, 1).config  # a word fixed by
        # addresses: the planner's plan in that word
        path = tune.cache_file("Test GPU")
        good = json.loads(path.read_text())
        # an unknown kind; a permutation's word missing
        for breaks in (lambda best: best.update(kind="no such kind"), lambda best: best.pop("word")):
            data = json.loads(json.dumps(good))
            for entry in data["entries"].values():
                breaks(entry["best"])
            path.write_text(json.dumps(data))
            engine.choose.cache_clear()
            with pytest.warns(RuntimeWarning, match="broken tuning entry"):
                assert engine.choose(perm, "cuda:0").config == found[0][1]
    finally:
        engine.choose.cache_clear()


RUNS_CASES = [  # (shape, axes, dtype, steps): a unit contiguous on both sides moved whole by permute_runs
    ((7, 9, 3), (1, 0, 2), np.float64, None),  # 3 words a unit
    ((5, 40, 11), (1, 0, 2), np.int32, None),  # 11 words, more units along axis 1 than a small block holds
    ((3, 4, 5, 6), (0, 2, 1, 3), np.uint16, None),  # 12 bytes: 3 words of 4
    ((2, 3, 4, 2, 3, 5), (4, 2, 0, 3, 1, 5), np.float32, None),  # four rest axes in one launch
    ((2, 2, 2, 2, 2, 3, 7), (5, 4, 3, 2, 1, 0, 6), np.complex128, None),  # five: one launch a value of the outer
    ((6, 9, 12), (1, 0, 2), np.uint8, (2, -1, 1)),  # strided and reversed outer axes
    ((4, 5, 2, 9), (2, 0, 1, 3), np.int16, (1, 1, 1, 1)),
    ((5, 6, 40), (1, 0, 2), np.float32, (1, -1, 1)),  # 160 B: runs by default
    ((12, 4, 43), (1, 0, 2), np.float16, None),  # 86 B of 2-byte words, 12 of 23 along the next axis: by default
    ((3, 12, 2, 45), (2, 1, 0, 3), np.int16, (1, -1, 1, 1)),  # 90 B, reversed
    ((3, 4, 5, 130), (2, 0, 1, 3), np.uint8, None),  # 130 B: 65 words of 2
    ((3, 4, 5, 6, 8), (3, 0, 2, 1, 4), np.complex128, (1, 1, -1, 1, 1)),  # units running on over the next axes
]


def test_runs_run_on_over_the_next_axes_where_they_would_fill_under_a_fifth_of_a_program():
    """4 units of 128 bytes along the output's next axis fill 4 of the 64 a program holds (0.06): they run on over
    the next axes; 26 units of 1,760 bytes, 4 a program, fill 26 of 28 (0.93): they stay along the axis."""
    from cornerturn.engine import permute

    spans = canon((30, 18, 14, 4, 9, 8), (4, 0, 2, 1, 3, 5), 16)
    stays = canon((50, 26, 22, 9, 110), (0, 2, 3, 1, 4), 16)
    for perm, filled, span in ((spans, 4 / 64, True), (stays, 26 / 28, False)):
        axes = permute.word_axes(perm, 8)
        assert permute.runs_filled(axes[-2], axes[-1].extent, permute.RUN_BLOCK) == pytest.approx(filled)
        plan = permute.build(perm, 8)
        assert plan.config.span is span and plan.pieces[0][2].constexprs["SPAN"] is span, plan.reason
        assert (permute.RUNS_CONFIG.block, 8, dataclasses.replace(plan.config, span=not span)) in [
            (c.block, w, c) for w, c in permute.candidates(perm) if isinstance(c, permute.RunsConfig)]


def test_units_of_an_odd_number_of_2_byte_elements_move_whole_from_84_bytes_where_programs_fill_half():
    """permute_runs takes units of 128 bytes or more; units of an odd number of 2-byte elements from ODD_RUN_MIN
    (84) bytes where programs along the output's next axis fill half their room or more."""
    from cornerturn.engine import permute

    def taken(shape, axes, itemsize=2):
        p = canon(shape, axes, itemsize)
        return isinstance(permute.build(p, permute.natural_word(p)).config, permute.RunsConfig)

    assert taken((421, 41, 82, 55), (0, 2, 1, 3))  # 110 B, 41 along the next axis of 18 a program: fills 0.76
    assert taken((12, 4, 43), (1, 0, 2))  # 86 B: 12 of 23
    assert not taken((11, 4, 43), (1, 0, 2))  # 11 of 23 (0.48)
    assert not taken((196, 8, 20, 72, 41), (3, 0, 2, 1, 4))  # 82 B: shorter
    assert not taken((8, 24, 17, 1125, 47), (3, 2, 1, 0, 4))  # 94 B, 8 along the next axis of 21 (0.38)
    assert not taken((12, 4, 42), (1, 0, 2))  # 84 B in 4-byte words: the tiles, as before
    assert not taken((12, 4, 85), (1, 0, 2), 1)  # 85 bytes: not 2-byte elements
    assert taken((12, 4, 64), (1, 0, 2))  # 128 B: RUN_MIN


@pytest.mark.parametrize("shape, axes, dtype, steps", RUNS_CASES, ids=str)
def test_runs_kernel(shape, axes, dtype, steps, rng):
    from cornerturn.engine import permute

    x = _strided(dtype, shape, steps or (1,) * len(shape), int(rng.integers(2**32)))
    want = reference(x, axes)
    p = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    word = permute.widest_word(p)
    unit = permute.element_bytes(p) // word
    default = permute.build(p, word).config
    assert isinstance(default, permute.RunsConfig) == permute.runs_ok(p, word)
    # blocks of several units, of one, and smaller than a unit (a unit in pieces); units spanning the next axes
    configs = [c for c in (default, permute.RunsConfig(16, 1), permute.RunsConfig(64, 2),
                           permute.RunsConfig(64, 2, span=True), permute.RunsConfig(256, 4, span=True))
               if isinstance(c, permute.RunsConfig)]
    for config in configs:
        assert_bits_equal(run_engine(x, axes, config), want)
    assert_bits_equal(run_engine(x, axes, configs[-1], wide=True), want)
    assert_bits_equal(run_engine(x, axes, permute.RunsConfig(64, 2), wide=True), want)
    pieces = permute.build(p, word, permute.RunsConfig(16, 1)).pieces[0][2].constexprs["CHUNKS"]
    assert pieces == -(-unit // 16)


INTERLEAVE_CASES = [  # (shape, axes, dtype, steps): output rows of 2 to 31 elements along the input's fastest axis
    ((10, 5, 7, 18), (2, 1, 3, 0), np.uint8, None),  # 10 rows of 18 columns, input rows funnel-shifted
    ((12, 4, 3, 16), (2, 1, 3, 0), np.uint8, None),  # every row at a whole word (IN_WORDS)
    ((7, 3, 5, 11), (2, 1, 3, 0), np.uint8, None),  # 77-byte chunks: outputs shifted into place
    ((2, 3, 5, 9), (2, 1, 3, 0), np.uint8, None),  # 2 rows, shifted
    ((31, 3, 4, 13), (2, 1, 3, 0), np.uint8, None),  # 31 rows, shifted
    ((6, 5, 3, 7), (2, 1, 3, 0), np.int16, None),  # 2-byte elements
    ((5, 2, 7, 3), (2, 1, 3, 0), np.int16, None),  # 2-byte elements, shifted
    ((3, 4, 2, 3, 7, 5), (1, 3, 0, 2, 5, 4), np.uint8, None),  # four more axes, shifted
    ((6, 5, 3, 10), (2, 1, 3, 0), np.uint8, (1, 2, 1, 1)),  # a strided axis
]


# Each case runs the planner's plan, and programs of 32 lanes with 32-bit or 64-bit offsets (the fast tier one way a
# case, cycling; the full tier all three).
@pytest.mark.parametrize("shape, axes, dtype, steps, way",
                         grid(together(INTERLEAVE_CASES), ("planner", "32 lanes", "64-bit")))
def test_interleave_kernel(shape, axes, dtype, steps, way, rng):
    from cornerturn.engine import permute

    x = _strided(dtype, shape, steps or (1,) * len(shape), int(rng.integers(2**32)))
    p = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    assert permute.interleave_ok(p) and permute.natural_word(p) == 4
    assert isinstance(permute.build(p, 4).config, permute.PermuteInterleaveConfig)
    config = None if way == "planner" else permute.PermuteInterleaveConfig(32, 1)
    launch = permute.build(p, 4, config).pieces[0][2]  # lanes' digits by multiplying, 64-bit offsets dividing
    assert launch.constexprs["MAGIC"] is (launch.named_ints()["chunk_words"] >= 2)
    assert_bits_equal(run_engine(x, axes, config, wide=way == "64-bit"), reference(x, axes))
    assert not isinstance(permute.build(p, x.itemsize).config, permute.PermuteInterleaveConfig)  # narrowed


def test_interleave_rule():
    from cornerturn.engine import permute

    fit = canon((10, 5, 7, 18), (2, 1, 3, 0), 1)  # rows of 10 along the input's fastest axis (18)
    assert permute.interleave_ok(fit)
    assert permute.build(fit, 4).pieces[0][2].constexprs["R"] == 10
    one_word = permute.build(canon((10, 5, 7, 4), (2, 1, 3, 0), 1), 4).pieces[0][2]  # chunks of one word: no
    assert one_word.named_ints()["chunk_words"] == 1 and one_word.constexprs["MAGIC"] is False  # divisor of 1
    assert permute.interleave_ok(canon((31, 5, 7, 18), (2, 1, 3, 0), 2))  # 31 rows of 2-byte elements
    assert not permute.interleave_fit(canon((32, 5, 7, 18), (2, 1, 3, 0), 1))  # 32 rows
    assert not permute.interleave_fit(canon((10, 5, 7, 18), (2, 1, 3, 0), 4))  # 4-byte elements
    assert not permute.interleave_fit(canon((10, 5, 18, 7), (3, 1, 2, 0), 1))  # the next output axis is not the
    # input's fastest
    assert not permute.interleave_fit(canon((3, 2, 3, 2, 3, 5, 4), (4, 0, 2, 1, 3, 6, 5), 1))  # five more axes
    assert not permute.interleave_fit(canonical_permutation((10, 5, 7, 18), (-630, 126, 18, 1), 1, (2, 1, 3, 0)))
    assert permute.candidates(fit)[:2] == [(4, permute.PermuteInterleaveConfig()), (4, permute.INTERLEAVE_WIDE)]
    assert all(not isinstance(c, permute.PermuteInterleaveConfig)  # autotune measures it only where it fits
               for _, c in permute.candidates(canon((10, 5, 18, 7), (3, 1, 2, 0), 1)))
    with pytest.raises(ValueError, match="not one permute_interleave takes"):
        permute.build(canon((32, 5, 7, 18), (2, 1, 3, 0), 1), 4, permute.PermuteInterleaveConfig())
    with pytest.raises(ValueError, match="power of two"):
        permute.PermuteInterleaveConfig(100)


SHIFTED_CASES = [  # (shape, axes, dtype, steps): units no 4-byte word divides, in shifted words (permute_runs_words)
    ((5, 12, 7), (1, 0, 2), np.uint8, None),  # 7 bytes: most words straddle two units
    ((3, 4, 5, 47), (2, 0, 1, 3), np.uint8, None),  # 47 bytes, two rest axes
    ((2, 3, 2, 3, 2, 5), (4, 3, 2, 1, 0, 5), np.int8, None),  # 5 bytes, four rest axes
    ((6, 9, 13), (1, 0, 2), np.uint8, (2, 1, 1)),  # strided outer axes
    ((4, 5, 2, 9), (2, 0, 1, 3), np.int16, None),  # 2-byte elements, 18 bytes
    ((3, 7, 6), (1, 0, 2), np.uint8, None),  # 6 bytes, which 2-byte words divide
    ((3, 4, 5, 130), (2, 0, 1, 3), np.uint8, None),  # 130 bytes
    ((124, 3, 33), (1, 0, 2), np.uint8, None),  # the planner's: 33 bytes, 124 of them a program
    ((7, 5, 9, 35), (2, 1, 0, 3), np.uint8, None),  # the planner's: a program's units span the rest axes
    ((3, 2, 1025), (1, 0, 2), np.uint8, None),  # the planner's: 1,025 bytes (SHIFTED_LONG_UNIT), 3 a program
]


# Each case runs the planner's plan where it takes the case, and one more launch: blocks of one unit, of two units, or
# of one unit with 64-bit offsets (the fast tier one way a case, cycling; the full tier all three).
@pytest.mark.parametrize("shape, axes, dtype, steps, way",
                         grid(together(SHIFTED_CASES), ("one a program", "two a program", "64-bit")))
def test_shifted_runs_kernel(shape, axes, dtype, steps, way, rng):
    from cornerturn.engine import permute

    x = _strided(dtype, shape, steps or (1,) * len(shape), int(rng.integers(2**32)))
    want = reference(x, axes)
    p = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    one = max(4, 1 << ((permute.element_bytes(p) + 6) // 4 - 1).bit_length())  # the least block holding a unit
    assert permute.shifted_runs_fit(p, one)
    if permute.shifted_runs_ok(p):  # the planner's own
        assert permute.natural_word(p) == 4 and isinstance(permute.build(p, 4).config, permute.ShiftedRunsConfig)
        assert_bits_equal(run_engine(x, axes), want)
    config = permute.ShiftedRunsConfig(2 * one, 2) if way == "two a program" else permute.ShiftedRunsConfig(one, 1)
    assert permute.build(p, 4, config).pieces[0][2].constexprs["MAGIC"] is True  # (64-bit offsets: dividing)
    assert_bits_equal(run_engine(x, axes, config, wide=way == "64-bit"), want)
    assert isinstance(permute.build(p, 1).config, (permute.PermuteConfig, permute.RunsConfig))  # narrowed


def test_shifted_runs_rule():
    from cornerturn.engine import permute

    assert permute.shifted_runs_ok(canon((124, 3, 33), (1, 0, 2), 1))  # 33 bytes, 124 a program
    assert permute.shifted_runs_ok(canon((7, 3, 33), (1, 0, 2), 1))  # a program's units span values of axis 0
    assert not permute.shifted_runs_ok(canon((124, 3, 36), (1, 0, 2), 1))  # 4-byte words divide it: permute_runs
    assert not permute.shifted_runs_ok(canon((124, 3, 34), (1, 0, 2), 1))  # 2-byte words: element tiles
    assert not permute.shifted_runs_ok(canon((140, 3, 31), (1, 0, 2), 1))  # shorter: element tiles
    assert not permute.shifted_runs_ok(canon((40, 3, 129), (1, 0, 2), 1))  # longer: permute_runs
    assert not permute.shifted_runs_ok(canon((4, 3, 1023), (1, 0, 2), 1))  # up to SHIFTED_LONG_UNIT: permute_runs
    assert permute.shifted_runs_ok(canon((4, 3, 1025), (1, 0, 2), 1))  # from it: shifted words
    assert permute.shifted_runs_ok(canon((4, 3, 4093), (1, 0, 2), 1))  # up to what a program of 1,024 words holds
    assert not permute.shifted_runs_ok(canon((4, 3, 4095), (1, 0, 2), 1))  # then permute_runs again
    assert not permute.shifted_runs_ok(canon((124, 3, 17), (1, 0, 2), 2))  # 2-byte elements
    assert not permute.shifted_runs_fit(canon((3, 4, 5, 3), (2, 0, 1, 3), 1), 1024)  # 3 bytes
    assert not permute.shifted_runs_fit(canon((2,) * 6 + (5,), (5, 4, 3, 2, 1, 0, 6), 1), 1024)  # five more axes
    assert not permute.shifted_runs_fit(canonical_permutation((5, 6, 7), (42, -7, 1), 1, (1, 0, 2)), 1024)
    assert not permute.shifted_runs_fit(canon((3, 4, 4100), (1, 0, 2), 1), 1024)  # a unit past a program's block
    with pytest.raises(ValueError, match="not one permute_runs_words takes"):
        permute.build(canon((3, 4, 47), (1, 0, 2), 1), 4, permute.ShiftedRunsConfig(8, 1))  # 29 bytes a program
    with pytest.raises(ValueError, match="power of two"):
        permute.ShiftedRunsConfig(12)


WORDS_CASES = [  # (shape, axes, dtype, steps): 1- and 2-byte permutations moved in 32-bit words (permute_words)
    ((10, 3, 6, 18), (2, 1, 3, 0), np.uint8, None),  # A of 10 rows: output shifted or by element; B of three axes
    ((37, 3, 2, 18), (2, 1, 3, 0), np.uint8, None),  # A of 37 rows: runs shifted across several tiles of A
    ((23, 5, 35), (2, 1, 0), np.uint8, (2, 1, 1)),  # A of 23 rows two strides apart
    ((12, 3, 2, 18), (2, 1, 3, 0), np.uint8, None),  # A of 12: output in words
    ((4, 3, 5, 17), (3, 1, 0, 2), np.uint8, None),  # A of three axes, rows funnel-shifted
    ((6, 7, 3, 19), (1, 0, 3, 2), np.uint8, None),  # B cut to its first axis, the other joins the rest
    ((6, 5, 3, 20), (2, 0, 3, 1), np.uint8, None),  # rows at whole words
    ((5, 20, 35), (2, 1, 0), np.uint8, (2, 1, 1)),  # strided
    ((3, 2, 3, 2, 2, 17), (4, 0, 1, 2, 5, 3), np.uint8, None),  # rest axes
    ((3, 4, 5, 3, 2, 5), (3, 1, 5, 2, 0, 4), np.uint8, None),  # segments of 5 bytes, two axes, output bytes
    ((3, 3, 4, 11, 5), (1, 3, 0, 4, 2), np.uint8, None),  # segments of two axes (55 bytes), output words
    ((3, 3, 5, 11, 5), (1, 3, 0, 4, 2), np.uint8, None),  # the same, output bytes
    ((6, 4, 5, 6, 7), (4, 2, 0, 3, 1), np.uint8, None),  # segments of 7 bytes
    ((4, 2, 4, 2, 12), (2, 0, 4, 3, 1), np.uint8, None),  # segments at whole words
    ((4, 4, 2, 8, 12), (2, 1, 4, 3, 0), np.uint8, None),  # the same, output words
    ((5, 2, 5, 12), (1, 0, 3, 2), np.uint8, (1, 1, 2, 1)),  # strided segments
    ((4, 3, 2, 16), (1, 3, 0, 2), np.uint8, None),  # rows 16 bytes apart, output runs of 2 words: both told
    ((3, 24, 9, 8), (0, 3, 2, 1), np.uint8, None),  # B takes the axis that continues the input's run (RUN_TO_B)
    ((3, 8, 20, 4, 8), (2, 4, 3, 0, 1), np.int8, None),  # the same with rest axes
    ((3, 20, 10, 6), (0, 3, 2, 1), np.uint8, None),  # first sides refused (B 6 bytes, then 3 far apart): the input's
    ((3, 17, 9, 6), (0, 3, 2, 1), np.int8, None),  # run to B (RUN_TO_B_REFUSED), output in words, then byte by byte
]


# Each case runs the planner's plan and one more way of launching the kernel: the smallest tiles (4 rows x 2 words,
# output runs along A shifted into place where they start inside words), tiles of 8 rows x 4 words written element by
# element, or 64-bit offsets. The fast tier takes one way a case (the interpreter's cheaper ones, each way and each
# mode of the kernel at least once; tiles of 4 rows on A of 10 rows shift runs across three tiles of A), the full
# tier the other ways too, the smallest tiles only on cases of up to 1,100 elements and on the first: on the larger
# ones the interpreter took 0.5-2 minutes a case, and they take tiles of 4 rows x 16 words instead (each group of rows
# shifted without the next group from the tile, as in the smallest tiles, in an eighth of the programs).
WORDS_WAYS = ("smallest tiles", "items", "64-bit", "4 rows")
WORDS_FAST = ("4 rows", "items", "items", "smallest tiles", "64-bit", "items", "items", "64-bit", "items",
              "items", "64-bit", "items", "64-bit", "smallest tiles", "64-bit", "smallest tiles", "64-bit", "items",
              "64-bit", "items", "smallest tiles")
WORDS_FAST_PAIRS = list(zip(WORDS_CASES, WORDS_FAST))


def _words_full_tier(case, way) -> bool:
    """The full tier's ways beyond the fast tier's: the smallest tiles on cases of up to 1,100 elements and on the
    first, tiles of 4 rows x 16 words where a case takes the smallest tiles in neither tier."""
    small = np.prod(case[0]) <= 1100
    if way == "smallest tiles":
        return small or case == WORDS_CASES[0]  # A of 10 rows: runs shifted across three tiles of A
    return way != "4 rows" or not (small or (case, "smallest tiles") in WORDS_FAST_PAIRS)


@pytest.mark.parametrize("shape, axes, dtype, steps, way", grid(
    together(WORDS_CASES), WORDS_WAYS, fast=WORDS_FAST_PAIRS, full=_words_full_tier))
def test_words_kernel(shape, axes, dtype, steps, way, rng, monkeypatch):
    from cornerturn.engine import permute

    monkeypatch.setattr(permute, "SEGMENT_MIN", 4)  # the kernel on segments and sides A shorter than the planner's
    monkeypatch.setattr(permute, "WORDS_MIN_A", 1)
    monkeypatch.setattr(permute, "interleave_ok", lambda p: False)  # some of these interleave output rows instead

    x = _strided(dtype, shape, steps or (1,) * len(shape), int(rng.integers(2**32)))
    want = reference(x, axes)
    p = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
    assert permute.words_ok(p) and permute.natural_word(p) == 4
    default = permute.build(p, 4)
    assert isinstance(default.config, permute.PermuteWordsConfig)
    assert_bits_equal(run_engine(x, axes), want)
    config = {"smallest tiles": permute.PermuteWordsConfig(4, 2, 1),
              "items": permute.PermuteWordsConfig(8, 4, 1, "items"),  # where runs along A start inside words
              "64-bit": permute.PermuteWordsConfig(8, 4, 2),
              "4 rows": permute.PermuteWordsConfig(4, 16, 2)}[way]
    assert_bits_equal(run_engine(x, axes, config, wide=way == "64-bit"), want)
    assert isinstance(permute.build(p, p.itemsize).config, permute.PermuteConfig)  # narrowed: element tiles


def test_words_divide_by_multiplying(monkeypatch, rng):
    """permute_words splits every index into digits by multiplying (MAGIC) wherever its indices fit 31 bits, with
    divisor_magic's (m, h) for each extent it divides by and zeros for the others; with 64-bit offsets it divides
    (test_words_kernel runs both ways bit-exact), as it does where a segment is one word. The cases of WORDS_CASES
    reach every division there is: A of three axes, B of three, B in segments along two more axes."""
    from cornerturn.engine import permute
    from cornerturn.engine import plan as engine_plan

    monkeypatch.setattr(permute, "SEGMENT_MIN", 4)  # as test_words_kernel plans them
    monkeypatch.setattr(permute, "WORDS_MIN_A", 1)
    monkeypatch.setattr(permute, "interleave_ok", lambda p: False)
    reached = set()
    for shape, axes, dtype, steps in WORDS_CASES:
        x = _strided(dtype, shape, steps or (1,) * len(shape), 0)
        p = canonical_permutation(x.shape, x.strides, x.itemsize, axes)
        launch = permute.build(p, 4).pieces[0][2]
        c, given = launch.constexprs, launch.named_ints()
        assert c["MAGIC"] is True
        pairs = {"ma0": "ea0", "ma1": "ea1", "msw": "seg_words", "mes": "es0", "mb0": "eb0", "mb1": "eb1"}
        used = {"ma0": c["NA_IN"] >= 2, "ma1": c["NA_IN"] >= 3, "msw": c["NS"] >= 1, "mes": c["NS"] >= 1,
                "mb0": c["NB"] >= 2, "mb1": c["NB"] >= 3}
        for m, extent in pairs.items():
            h = "h" + m[1:]
            if used[m]:
                assert (given[m], given[h]) == permute.divisor_magic(given[extent]), (shape, m)
            else:
                assert (given[m], given[h]) == (0, 0), (shape, m)
        reached |= {k for k in ("ma1", "mb1") if used[k]} | ({"ns2"} if c["NS"] == 2 else set())
        saved = engine_plan.WIDE_FROM
        engine_plan.WIDE_FROM = 0
        try:
            wide = permute.build(p, 4).pieces[0][2]
        finally:
            engine_plan.WIDE_FROM = saved
        assert wide.constexprs["MAGIC"] is False and not any(wide.named_ints()[m] for m in pairs)
    assert reached == {"ma1", "mb1", "ns2"}
    # segments of one word (4 bytes): nothing to divide by there, so the kernel divides, bit-exact
    x = random_bits((3, 4, 5, 3, 6, 4), np.uint8, rng)
    p = canonical_permutation(x.shape, x.strides, x.itemsize, (3, 1, 5, 2, 0, 4))
    launch = permute.build(p, 4).pieces[0][2]
    assert launch.named_ints()["seg_words"] == 1 and launch.constexprs["MAGIC"] is False
    assert_bits_equal(run_engine(x, (3, 1, 5, 2, 0, 4)), reference(x, (3, 1, 5, 2, 0, 4)))


@pytest.mark.full
def test_words_multiplying_leaves_the_vectors_as_they_were():
    """permute_words multiplying keeps the thread layouts and the global loads' and stores' widths of the kernel that
    divides, with the divisions gone: a case whose A has two axes, B three, in segments along two more, and whose
    output runs are stored as 8-byte vectors."""
    case = [[3, 16, 6, 16, 8], [0, 2, 4, 1, 3], 1, ["MAGIC"]]
    multiplied, divided = _compiled_both_ways(case)
    assert multiplied["layouts"] == divided["layouts"] and multiplied["memory"] == divided["memory"]
    assert any(op.startswith("st.global.v2") for op in divided["memory"])
    assert multiplied["multiplies"] > 0 and divided["multiplies"] == 0 and divided["divides"] > multiplied["divides"]


def test_words_modes_and_rule(monkeypatch):
    from cornerturn.engine import permute

    monkeypatch.setattr(permute, "interleave_ok", lambda p: False)  # some of these interleave output rows instead

    def launch(shape, axes, itemsize, steps=None):
        strides = c_strides(tuple(s * (k or 1) for s, k in zip(shape, steps or [1] * len(shape))), itemsize)
        strides = tuple(st * (k or 1) for st, k in zip(strides, steps or [1] * len(shape)))
        p = canonical_permutation(shape, strides, itemsize, axes)
        return permute.build(p, permute.natural_word(p)).pieces[0][2].constexprs

    assert launch((17, 3, 6, 18), (2, 1, 3, 0), 1)["OUT"] == 2  # 17 bytes of A: element by element
    assert launch((130, 3, 6, 18), (2, 1, 3, 0), 1)["OUT"] == 2  # 130, under SHIFTED_OUT_MIN_A: element by element
    shifted = launch((258, 3, 6, 18), (2, 1, 3, 0), 1)  # 258, B of two axes or more: shifted into place, each
    assert shifted["OUT"] == 1 and shifted["NEXT_BY_GATHER"] is True  # group's successor gathered from the tile
    assert launch((131, 3, 300), (2, 1, 0), 1)["OUT"] == 2  # 393, B of one axis: element by element
    assert launch((20, 3, 6, 18), (2, 1, 3, 0), 1)["OUT"] == 0  # whole words
    # where rows and output runs start, in words, told so that accesses widen: the powers of two that divide the
    # strides (and the words of B and of A)
    told = launch((32, 3, 6, 20), (2, 1, 3, 0), 1)  # rows 360 B apart (90 words), B 30 words; runs of A 32 B
    assert (told["IN_ALIGN"], told["OUT_ALIGN"]) == (2, 8)
    told = launch((12, 3, 6, 18), (2, 1, 3, 0), 1)  # rows 324 B apart (81 words), runs of 3 words
    assert (told["IN_WORDS"], told["IN_ALIGN"], told["OUT_ALIGN"]) == (True, 1, 1)
    assert launch((6, 7, 16, 19), (1, 0, 3, 2), 1)["IN_ALIGN"] == 1  # rows inside words: nothing told
    assert launch((258, 3, 6, 18), (2, 1, 3, 0), 1)["OUT_ALIGN"] == 1  # runs shifted into place: nothing told
    assert launch((6, 7, 16, 19), (1, 0, 3, 2), 1)["IN_WORDS"] is False  # rows of 19 bytes
    assert launch((6, 7, 16, 20), (1, 0, 3, 2), 1)["IN_WORDS"] is True
    cut = launch((6, 7, 16, 19), (1, 0, 3, 2), 1)  # B cut to its first axis, the other joins the rest
    assert cut["NB"] == 1 and cut["NR"] == 2
    seg = launch((3, 9, 16, 11, 5), (1, 3, 0, 4, 2), 1)  # B of 5 bytes, then 11 x 5, then 9: cut, 5 bytes along B
    assert seg["NB"] == 3 and seg["NS"] == 1  # so segments of B's first two axes (55 bytes), the third says where
    assert not permute.words_ok(canon((3, 9, 15, 11, 5), (1, 3, 0, 4, 2), 1))  # segments need 16 bytes along A
    assert not permute.words_ok(canon((6, 7, 15, 19), (1, 0, 3, 2), 1))  # and so does B cut
    assert permute.words_ok(canon((10, 5, 40, 18), (2, 1, 3, 0), 1))  # B end to end: 10 bytes along A will do
    assert launch((4, 4, 2, 8, 12), (2, 1, 4, 3, 0), 1)["IN_WORDS"] is True
    # B's segments under SHORT_SEGMENT bytes: B takes the axis that continues the input's run, where its segments
    # then reach SHORT_SEGMENT and A spans whole words
    from cornerturn.tiling import segment_extent
    run = canon((3, 24, 9, 8), (0, 3, 2, 1), 1)  # A 24 x 9, B 8 then 9 x 3 apart: segments of 8 bytes
    assert segment_extent(permute._words_sides(run).b) == 8
    taken = permute.words_sides(run)  # A 24 alone, B 8 x 9 end to end: segments of 72
    assert (taken.size_a, segment_extent(taken.b)) == (24, 72)
    assert permute.build(run, 4).pieces[0][2].constexprs["OUT"] == 0
    kept = canon((7, 13, 3, 12, 10), (1, 4, 3, 2, 0), 1)  # the same would leave A 21 bytes: kept
    assert permute.words_sides(kept) == permute._words_sides(kept)
    assert segment_extent(permute._words_sides(kept, None, permute.RUN_TO_B).b) >= permute.SHORT_SEGMENT
    # the first sides refused (B cut to 6 bytes): the same sides, where the output is not shifted into place and the
    # element tiles' B holds WORDS_MIN_B bytes or more
    for shape, size_a, out in (((3, 20, 10, 6), 20, 0), ((3, 17, 9, 6), 17, 2)):
        refused = canon(shape, (0, 3, 2, 1), 1)
        assert permute._words_sides(refused) is None
        taken = permute.words_sides(refused)
        assert (taken.size_a, segment_extent(taken.b)) == (size_a, shape[2] * 6)
        assert permute.build(refused, 4).pieces[0][2].constexprs["OUT"] == out
        x = _strided(np.uint8, shape, (1,) * 4, size_a)
        assert_bits_equal(run_engine(x, (0, 3, 2, 1)), reference(x, (0, 3, 2, 1)))
    written = canon((3, 130, 9, 6), (0, 3, 2, 1), 1)  # A of 130 bytes, under SHIFTED_OUT_MIN_A: element by element
    assert permute.words_sides(written).size_a == 130 and permute.build(written, 4).pieces[0][2].constexprs["OUT"] == 2
    with monkeypatch.context() as m:  # where its output would be shifted into place: refused
        m.setattr(permute, "SHIFTED_OUT_MIN_A", 128)
        assert permute.words_sides(written) is None and permute._words_sides(written, None, permute.RUN_TO_B)
    tall = canon((20, 40, 14), (2, 1, 0), 1)  # the element tiles' B is 14 bytes (tiles of 512 x 16): kept
    assert permute.words_sides(tall) is None and permute._words_sides(tall, None, permute.RUN_TO_B)
    permute.RUN_TO_B_REFUSED = False
    try:
        assert permute.words_sides(canon((3, 20, 10, 6), (0, 3, 2, 1), 1)) is None
    finally:
        permute.RUN_TO_B_REFUSED = True
    assert launch((4, 4, 2, 8, 12), (2, 1, 4, 3, 0), 1)["NS"] == 2
    assert launch((5, 20, 35), (2, 1, 0), 1)["NS"] == 0
    short = canon((6, 4, 5, 6, 7), (4, 2, 0, 3, 1), 1)  # segments of 7 bytes
    assert not permute.words_ok(short) and permute.words_sides(short, 7) is not None
    assert not permute.words_ok(canon((6, 7, 9, 19), (1, 0, 3, 2), 2))  # 2-byte elements: element tiles
    assert not permute.words_ok(canon((5, 7, 6, 15), (3, 1, 0, 2), 1))  # B of 15 bytes: element tiles
    assert permute.words_ok(canon((5, 7, 6, 16), (3, 1, 0, 2), 1))
    aligned = canon((256, 256, 64, 64), (3, 2, 1, 0), 1)  # the element tiles move 16 bytes a lane
    assert permute.tiles_in_vectors(aligned) and not permute.words_ok(aligned)
    assert not permute.tiles_in_vectors(canon((256, 256, 64, 63), (3, 2, 1, 0), 1))
    p = canon((4, 5, 6), (2, 1, 0), 4)
    assert not permute.words_ok(p) and permute.natural_word(p) == 4  # 4-byte elements: tiles of words
    assert not permute.words_ok(canon((4, 5, 6), (1, 0, 2), 1))  # a unit shared by both sides
    assert not permute.words_ok(canonical_permutation((4, 5, 6, 7), (420, 84, 14, 2), 1, (3, 1, 0, 2)))  # B strided
    assert not permute.words_ok(canonical_permutation((5, 6, 7), (42, -7, 1), 1, (2, 1, 0)))  # a negative stride
    with pytest.raises(ValueError, match="not one permute_words takes"):
        permute.build(p, 4, permute.PermuteWordsConfig(4, 4))
    with pytest.raises(ValueError, match="at least 4"):
        permute.PermuteWordsConfig(2, 4)
    with pytest.raises(ValueError, match="PermuteWordsConfig.out"):
        permute.PermuteWordsConfig(4, 4, 1, "words")
    assert permute.PermuteWordsConfig(8, 4, 2, "items").name == "pwords8x4w-w2-items"


def test_runs_plans_by_hand():
    from cornerturn.engine import permute

    def plan_of(shape, axes, itemsize):
        p = canon(shape, axes, itemsize)
        return permute.build(p, permute.natural_word(p))

    def launch_of(shape, axes, itemsize, span=False):
        plan = plan_of(shape, axes, itemsize)
        assert plan.config == permute.RunsConfig(1024, 4, span)
        launch = plan.pieces[0][2]
        return launch.constexprs["UNIT"], launch.constexprs["CHUNKS"], launch.programs

    assert launch_of((172, 2464, 77), (1, 0, 2), 4) == (77, 1, 2464 * 14)  # 308 B: 13 units of 77 words a program
    assert launch_of((8, 32, 4096, 128), (0, 2, 1, 3), 2) == (32, 1, 8 * 4096 * 1)  # 256 B: 32 words, 32 a program
    assert launch_of((9, 5, 1024), (1, 0, 2), 4) == (512, 1, 5 * 5)  # 4 KiB: 512 words of 8, two units a program
    assert launch_of((9, 5, 2048), (1, 0, 2), 4) == (1024, 1, 5 * 9)  # 8 KiB: one unit a program
    assert launch_of((9, 5, 1025), (1, 0, 2), 4) == (1025, 2, 5 * 9 * 2)  # 4100 B: a unit in two pieces
    assert launch_of((3, 4, 50000), (1, 0, 2), 1) == (6250, 7, 4 * 3 * 7)  # 50,000 B: 6,250 words of 8, 7 pieces
    assert launch_of((4, 5, 32), (1, 0, 2), 4, span=True) == (16, 1, 1)  # 128 B: 16 words of 8; 4 along the axis,
    assert launch_of((64, 5, 32), (1, 0, 2), 4) == (16, 1, 5 * 1)  # 4 of 64 a program: all 20 in one; 64 fill one
    assert isinstance(plan_of((4, 5, 31), (1, 0, 2), 4).config, permute.PermuteConfig)  # 124 B: tiles
    pieces = permute.build(canon((4, 5, 100), (1, 0, 2), 8), 8, permute.RunsConfig(64)).pieces
    assert pieces[0][2].programs == 5 * 4 * 2  # 20 units of 100 words, two pieces of 64 words each
    with pytest.raises(ValueError, match="no unit"):
        permute.build(canon((4, 5, 2), (1, 0, 2), 4), 8, permute.RunsConfig(64))
    with pytest.raises(ValueError, match="no unit"):  # 101 bytes: 4-byte words do not divide it
        permute.build(canon((166, 27, 101), (1, 0, 2), 1), 4, permute.RunsConfig(1024))
    view = canonical_permutation((166, 27, 64), (27 * 65, 65, 1), 1, (1, 0, 2))  # 64 bytes, but rows 65 apart
    assert element_bytes(view) == 64
    with pytest.raises(ValueError, match="no unit"):
        permute.build(view, 4, permute.RunsConfig(1024))
    with pytest.raises(ValueError, match="power of two"):
        permute.RunsConfig(48)
    with pytest.raises(ValueError, match="num_warps"):
        permute.RunsConfig(64, 3)


def test_permute_config_validates():
    from cornerturn.engine.permute import PermuteConfig

    with pytest.raises(ValueError, match="power of two"):
        PermuteConfig(3, 4)
    with pytest.raises(ValueError, match="num_warps"):
        PermuteConfig(4, 4, 3)


@st.composite
def strided_permutations(draw, max_rank: int, max_side: int):
    dtype = draw(st.sampled_from([np.uint8, np.int16, np.float32, np.float64, np.complex128]))
    rank = draw(st.integers(0, max_rank))
    shape = tuple(draw(st.integers(0 if k == 0 else 1, max_side)) for k in range(rank))
    steps = tuple(draw(st.sampled_from([1, 1, 2, -1])) for _ in range(rank))
    axes = tuple(draw(st.permutations(range(rank))))
    return dtype, shape, steps, axes, draw(st.integers(0, 2**32 - 1))


def _strided(dtype, shape, steps, seed):
    """A view of `shape` with `steps` (negative: reversed) into random bits; 0-D for an empty shape."""
    base = random_bits(tuple(max(1, s * abs(k)) for s, k in zip(shape, steps)), dtype, np.random.default_rng(seed))
    x = base[(..., *(slice(None, s * abs(k), k) if k > 0 else slice(None, None, k) for s, k in zip(shape, steps)))]
    return x[(..., *(slice(0, s) for s in shape))]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strided_permutations(max_rank=5, max_side=5))
def test_general_kernel_random(case):
    dtype, shape, steps, axes, seed = case
    x = _strided(dtype, shape, steps, seed)
    if isinstance(canonical_permutation(x.shape, x.strides, x.itemsize, axes), Permutation):
        assert_bits_equal(run_engine(x, axes), reference(x, axes))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strided_permutations(max_rank=6, max_side=40))
def test_general_tile_hints_are_kept(case):
    """permute_tiles writes its stores' ALIGN_* into the arithmetic (x // ALIGN * ALIGN) and hints the loads'
    ALIGN_* and CONTIG_*: each is a promise about the planned integers, and a broken one would move elements (or let
    the compiler widen an access that straddles). Every general-tile launch's promises hold."""
    from cornerturn.engine import permute
    from cornerturn.engine.permute_kernel import permute_tiles

    dtype, shape, steps, axes, _ = case
    itemsize = np.dtype(dtype).itemsize
    strides, pitch = [], itemsize  # a C-contiguous base of shape * |steps|, viewed with those steps: no data needed
    for side, step in reversed(list(zip(shape, steps))):
        strides.insert(0, pitch * step)
        pitch *= max(1, side * abs(step))
    perm = canonical_permutation(shape, tuple(strides), itemsize, axes)
    if not isinstance(perm, Permutation):
        return
    for word in {permute.natural_word(perm), 1}:
        for _, _, launch in permute.build(perm, word).pieces:
            if launch.kernel is not permute_tiles:
                continue
            v = launch.named_ints()
            c = launch.constexprs
            assert v["size_a"] % c["ALIGN_SA"] == 0 and v["size_b"] % c["ALIGN_SB"] == 0
            if c["ARITH_IN"]:  # loads widened: 2-byte words along a contiguous B, vectors of LOAD_WORDS at most
                widest = permute.LOAD_WORDS[launch.word]
                assert c["CONTIG_IB"] > 1 and max(c["ALIGN_IA"], c["ALIGN_IB"], c["ALIGN_SB"]) <= widest
            else:
                assert c["ALIGN_SB"] == 1
            rest_in = [v[f"ir{k}"] for k in range(c["NR"])]
            rest_out = [v[f"or{k}"] for k in range(c["NR"])]
            assert all(s % c["ALIGN_OA"] == 0 for s in (c["BLOCK_A"], *rest_out))
            assert all(v[f"ob{k}"] % c["ALIGN_OB"] == 0 for k in range(c["NB"]))
            for side, n, more in (("a", c["NA_IN"], rest_in), ("b", c["NB_IN"], [])):
                contig, align = c[f"CONTIG_I{side.upper()}"], c[f"ALIGN_I{side.upper()}"]
                strides = [v[f"i{side}{k}"] for k in range(n)]
                if contig > 1:
                    assert strides[0] == 1 and (n == 1 or v[f"e{side}0"] % contig == 0)
                    strides = strides[1:]
                assert all(s % align == 0 for s in (*strides, *more))


# ---- the public function on the CPU ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strided_permutations(max_rank=6, max_side=9))
def test_permute_dims_random(case):
    dtype, shape, steps, axes, seed = case
    x = _strided(dtype, shape, steps, seed)
    got = cornerturn.permute_dims(x, axes)
    want = reference(x, axes)
    assert got.shape == want.shape and got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape, axes, dtype, method", [
    ((40, 50, 60), (2, 1, 0), np.float32, "permute-plane"),
    ((12, 10, 9, 8, 7), (4, 2, 0, 3, 1), np.uint8, "permute-plane"),
    ((6, 7, 9, 5, 10), (2, 0, 4, 1, 3), np.int64, "permute-plane"),  # the output's innermost axis: 5 elements
    ((7, 5, 9, 40), (3, 1, 2, 0), np.uint8, "permute-plane"), ((9, 40, 12, 3), (2, 0, 1, 3), np.int16, "permute-tiles"),
    ((9, 40, 10, 3), (1, 0, 2, 3), np.int16, "runs"),  # runs of 60 bytes in 4-byte words: NARROW_RUN_BYTES
    ((4, 32, 30, 16), (0, 2, 1, 3), np.float16, "runs"),  # a 32-byte unit in 8-byte words: runs (PLANE_UNIT_BYTES)
    ((4, 32, 30, 5), (0, 2, 1, 3), np.float16, "permute-tiles"),  # a 10-byte unit: words of the table kernel
    ((6, 20, 30, 40), (0, 2, 1, 3), np.float32, "runs"), ((33, 17, 5, 19), (1, 0, 2, 3), np.int16, "runs"),
    ((30, 20, 20), (1, 2, 0), np.complex128, None), ((6, 7, 8, 9, 10), (3, 0, 4, 1, 2), np.int64, "permute-plane"),
    ((9, 11, 13, 17), (3, 1, 0, 2), np.complex128, "permute-plane"),  # 16-byte units as one word
    ((12, 5, 7, 3, 40), (2, 4, 1, 3, 0), np.float16, "permute-plane"),
], ids=str)
def test_permute_dims_cpu_kernels(shape, axes, dtype, method, rng):
    x = random_bits(shape, dtype, rng)
    planned = cornerturn.plan(shape, dtype, axes=axes)
    if method is None:  # a batched transpose: the CPU engine's tile kernels
        assert isinstance(planned.problem, Problem) and planned.method.startswith("tiles")
    else:
        assert planned.method == method
    out = poisoned(reference(x, axes).shape, dtype)
    assert cornerturn.permute_dims(x, axes, out=out) is out
    assert_bits_equal(out, reference(x, axes))
    assert_bits_equal(cornerturn.permute_dims(x[::-1], axes), reference(x[::-1], axes))


@pytest.mark.parametrize("method, shape, axes, dtype", [
    ("permute-plane", (70, 9, 33), (2, 0, 1), np.float32), ("permute-plane", (9, 3, 40, 11), (2, 3, 1, 0), np.uint8),
    ("permute-plane", (9, 30, 10, 8), (1, 3, 2, 0), np.complex128),
    ("permute-plane", (7, 5, 9, 40), (3, 1, 2, 0), np.int16), ("permute-plane", (3, 40, 90, 5), (3, 2, 0, 1), np.uint8),
    ("permute-plane", (6, 30, 7, 20), (3, 1, 0, 2), np.complex128),
    ("permute-plane", (20, 12, 50), (2, 1, 0), np.int64),  # a short axis of 20 words: its extent given at run time
    ("permute-plane", (9, 30, 40), (2, 1, 0), np.float64),  # a short axis of 9 words, given at run time
    ("permute-tiles", (9, 40, 12, 3), (2, 0, 1, 3), np.int16), ("runs", (11, 7, 4, 40), (1, 2, 0, 3), np.float64),
    ("runs", (11, 7, 4, 40), (1, 2, 0, 3), np.uint8),  # runs of 40 bytes in 1-byte words: NARROW_RUN_BYTES
], ids=str)
def test_cpu_permutation_kernels_on_views(method, shape, axes, dtype, rng):
    """Each CPU kernel on views that step, reverse and offset every axis (negative strides fold into the tables
    and the plane's stride), bit for bit into poisoned outputs."""
    big = random_bits(tuple(2 * n + 3 for n in shape), dtype, rng)
    views = [big[tuple(slice(1, 1 + n) for n in shape)], big[tuple(slice(None, 2 * n, 2) for n in shape)],
             big[tuple(slice(2 * n - 1, None, -2) for n in shape)], big[tuple(slice(n + 2, 2, -1) for n in shape)]]
    from cornerturn.cpu import choose_variant

    assert choose_variant(canonical_permutation(shape, views[0].strides, views[0].itemsize, axes)).name == method
    for x in views:  # the others may plan otherwise (a run that steps is no run): each is checked all the same
        assert x.shape == shape
        out = poisoned(reference(x, axes).shape, dtype)
        cornerturn.permute_dims(x, axes, out=out)
        assert_bits_equal(out, reference(x, axes))


def test_plane_sides_by_hand():
    """float16 14x4x50x95x17x9 by (1, 2, 3, 5, 4, 0): axes 1-3 stay neighbours (one axis of 19,000, input stride 153
    elements); the plane is the output's innermost axis (axis 0: 14 elements, input stride 19,000 x 153) against the
    input's two fastest (axis 5, stride 1, then axis 4, stride 9: 153 elements >= 16); output strides 1, 238 and 14."""
    from cornerturn.cpu.permute import PlaneSides, plane_sides
    from cornerturn.tiling import Axis

    p = canon((14, 4, 50, 95, 17, 9), (1, 2, 3, 5, 4, 0), itemsize=2)
    assert plane_sides(p) == PlaneSides(2, Axis(14, 2_907_000, 1), (Axis(9, 1, 238), Axis(17, 9, 14)),
                                        (Axis(19_000, 153, 2142),))
    # a short innermost output axis (7 elements) moves whole at each step along the next output axis (4 x 5 fused)
    assert plane_sides(canon((7, 4, 5, 14), (3, 1, 2, 0))) == PlaneSides(4, Axis(20, 14, 7), (Axis(14, 1, 140),), (),
                                                                        Axis(7, 280, 1))


def test_eight_byte_words_move_output_axes_under_32_units_whole():
    """8-byte words: an output innermost axis under 32 units moves whole at each step along the next output axis
    (PLANE_MIN_A), so that each b's output run is 256 B or more; 4- and 16-byte words keep it as side a from 8 units.
    The 3-D reversal of 20 x 6 x 40: the short axis is axis 0 (20, input stride 240), a is axis 1 (6, stride 40,
    output stride 20), B axis 2 (40, stride 1, output stride 120); with 32 rows axis 0 is side a (32, stride 240)
    and B gathers axes 2 and 1 (40 x 6 = 240 >= 64)."""
    from cornerturn.cpu.permute import PLANE_COMPILED_SHORT, PlaneSides, plane_sides
    from cornerturn.tiling import Axis

    assert plane_sides(canon((20, 6, 40), (2, 1, 0), 8)) == PlaneSides(
        8, Axis(6, 40, 20), (Axis(40, 1, 120),), (), Axis(20, 240, 1))
    for itemsize, rows in [(8, 32), (4, 20), (16, 20)]:
        assert plane_sides(canon((rows, 6, 40), (2, 1, 0), itemsize)) == PlaneSides(
            itemsize, Axis(rows, 240, 1), (Axis(40, 1, 6 * rows), Axis(6, 40, rows)), ())
    assert PLANE_COMPILED_SHORT <= 20  # the int64 case of the views test takes the run-time extent


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32], ids=lambda d: np.dtype(d).name)
def test_plane_vector_blocks(dtype, rng):
    """permute-plane's vector blocks on each word they take (blocks of 16 x 16 bytes, 8 x 8 int16s, 4 x 4 float32s): a
    plane of 40 x 777 (B lies end to end: every block of b's is one run; tiles of 128 leave a last tile of 9 b's,
    under a block, and 40 a's end in a block that overlaps the one before), the same with the plane's a reversed
    (a negative stride), and a plane whose B is 20 neighbours in the input then a stride of 23 (70 x 180: each run
    in two blocks that overlap; the tile's edge at 128 leaves a piece of 8, under a block of bytes), bit for bit into
    poisoned outputs."""
    from cornerturn.cpu.permute import plane_run, plane_sides

    x = random_bits((40, 37, 21), dtype, rng)
    wide = random_bits((70, 9, 23), dtype, rng)[:, :, :20]
    for view, axes, run in [(x, (2, 1, 0), 777), (x[::-1], (2, 1, 0), 777), (wide, (2, 1, 0), 20)]:
        sides = plane_sides(canonical_permutation(view.shape, view.strides, view.itemsize, axes))
        assert plane_run(sides) == run
        strides = tuple(step // view.itemsize for step in view.strides)  # plan takes strides in elements
        assert cornerturn.plan(view.shape, dtype, axes=axes, strides=strides).method == "permute-plane"
        out = poisoned(reference(view, axes).shape, dtype)
        cornerturn.permute_dims(view, axes, out=out)
        assert_bits_equal(out, reference(view, axes))


@pytest.mark.parametrize("share", [4, 0])
@pytest.mark.parametrize(("dtype", "shape"), [(np.uint8, (6, 9, 40, 6)), (np.int16, (6, 9, 40, 6)),
                                              (np.float32, (8, 9, 48, 3))], ids=["uint8", "int16", "float32"])
def test_plane_blocks_of_fewer_neighbours(dtype, shape, share, monkeypatch, rng):
    """B's run of input neighbours shorter than a vector block (6 bytes or int16s, 3 float32s; the output's innermost
    axis is the next input axis): pieces of a quarter block or more move in blocks that store only their rows, the
    rest (and the last pieces, whose rows' loads would run past x) element by element; tiles of 128 b's cut runs into
    pieces of 2 and 4; the same with the plane's a reversed, and with x's last byte before a page that cannot be read
    (so that a load past x stops the test); bit for bit into poisoned outputs, and as before with no such blocks
    (share 0)."""
    from cornerturn.cpu import permute as cpu_permute

    monkeypatch.setattr(cpu_permute, "PLANE_SOME_SHARE", share)
    x = random_bits(shape, dtype, rng)
    axes = (1, 3, 0, 2)
    edge, guard = _before_a_guard_page(x)
    for view in (x, x[:, :, ::-1], edge):
        sides = cpu_permute.plane_sides(canonical_permutation(view.shape, view.strides, view.itemsize, axes))
        assert 0 < cpu_permute.plane_run(sides) == shape[3] < 16 // np.dtype(dtype).itemsize
        strides = tuple(step // view.itemsize for step in view.strides)  # plan takes strides in elements
        assert cornerturn.plan(view.shape, dtype, axes=axes, strides=strides).method == "permute-plane"
        out = poisoned(reference(view, axes).shape, dtype)
        cornerturn.permute_dims(view, axes, out=out)
        assert_bits_equal(out, reference(view, axes))


@pytest.mark.parametrize("half", [True, False])
@pytest.mark.parametrize(("shape", "run"), [((6, 4, 13, 300), 300), ((6, 4, 8, 300), 300), ((5, 4, 15, 301), 301),
                                            ((40, 9, 13, 6), 6)], ids=["a13", "a8", "a15", "a13-run6"])
def test_plane_half_blocks_of_bytes(shape, run, half, monkeypatch, rng):
    """Planes of bytes whose side a is 8 to 15 (under a block of 16) move in blocks of 8 x 8 bytes: a of 13 (two
    blocks that overlap), 8 (one) and 15, B one run of 300 or 301 bytes (tiles of 128 leave pieces of 44 and 45),
    and B in runs of 6 (blocks that store only their rows); the plane's a reversed, and x's last byte before a page
    that cannot be read; bit for bit into poisoned outputs, and as before with half blocks off."""
    from cornerturn.cpu import permute as cpu_permute

    monkeypatch.setattr(cpu_permute, "PLANE_HALF_BLOCKS", half)
    x = random_bits(shape, np.uint8, rng)
    axes = (1, 0, 3, 2)
    edge, guard = _before_a_guard_page(x)
    for view in (x, x[:, :, ::-1], edge):
        sides = cpu_permute.plane_sides(canonical_permutation(view.shape, view.strides, view.itemsize, axes))
        assert (sides.a.extent, cpu_permute.plane_run(sides)) == (shape[2], run)
        assert cpu_permute.plane_block(1, sides.a.extent) == ((8, True) if half else (0, False))
        out = poisoned(reference(view, axes).shape, np.uint8)
        cornerturn.permute_dims(view, axes, out=out)
        assert_bits_equal(out, reference(view, axes))


def test_plane_block_by_hand():
    """The plane's block side: 16 / word where a reaches it; half blocks (8) for bytes with a of 8-15 unless the
    blocks are gathered; none below."""
    from cornerturn.cpu.permute import plane_block

    assert [plane_block(1, a) for a in (16, 15, 8, 7)] == [(16, False), (8, True), (8, True), (0, False)]
    assert plane_block(1, 15, halves=False) == (0, False)  # gathered blocks (a short axis) are whole ones
    assert [plane_block(2, 8), plane_block(2, 7), plane_block(4, 4), plane_block(4, 3)] == [
        (8, False), (0, False), (4, False), (0, False)]


@pytest.mark.parametrize("on", [True, False])
@pytest.mark.parametrize(("dtype", "shape"), [(np.uint8, (6, 5, 40, 30)), (np.uint8, (20, 5, 40, 6)),
                                              (np.uint8, (60, 3, 4, 30)), (np.int16, (6, 3, 40, 30)),
                                              (np.float32, (20, 7, 12, 6))],
                         ids=["uint8", "uint8-run6", "uint8-j12", "int16", "float32"])
def test_plane_short_axis_in_gathered_blocks(dtype, shape, on, monkeypatch, rng):
    """Planes whose output's innermost axis is short (3-7 elements) move in blocks along the output's contiguous index
    j = a * ns + k, each block's rows gathered from a table of input offsets: B one run of 30 (blocks that overlap at
    its end) or runs of 6 (blocks that store only their rows, for bytes), j of 200, 120 or 84 (the last block
    overlapping), or 12 bytes (under a block: element by element, no half blocks); a reversed, the short axis
    reversed (negative offsets in the table), and x's last byte before a page that cannot be read; bit for bit into
    poisoned outputs, and as before with the blocks off."""
    from cornerturn.cpu import permute as cpu_permute

    monkeypatch.setattr(cpu_permute, "PLANE_SHORT_BLOCKS", on)
    x = random_bits(shape, dtype, rng)
    axes = (0, 3, 2, 1)
    edge, guard = _before_a_guard_page(x)
    for view in (x, x[:, :, ::-1], x[:, ::-1], edge):
        sides = cpu_permute.plane_sides(canonical_permutation(view.shape, view.strides, view.itemsize, axes))
        assert sides.short.extent == shape[1] and sides.a.extent == shape[2]
        assert cpu_permute.plane_run(sides) == (shape[3] if on else 0)
        out = poisoned(reference(view, axes).shape, dtype)
        cornerturn.permute_dims(view, axes, out=out)
        assert_bits_equal(out, reference(view, axes))


def test_plane_takes_the_output_next_axis_by_hand(monkeypatch):
    """float32 6x5x7x12x20 by (1, 2, 4, 0, 3): the output's innermost axis (axis 3: 12 float32s, 48 B, up to
    PLANE_NEXT_MAX_BYTES) rides inside each step along the output's next axis (axis 0: 6, input stride 8,400, output
    stride 12), which B (axis 4, then axes 1-2 fused: 20 x 35) does not hold; a tile spans PLANE_NEXT_SPAN // 12 a's.
    Bytes keep the innermost axis as side a (PLANE_NEXT_MAX_BYTES holds no 1-byte words), as do a table of a * ns + k
    past PLANE_NEXT_MAX_ROWS and PLANE_NEXT off."""
    from cornerturn.cpu import permute as cpu_permute
    from cornerturn.cpu.permute import PlaneSides, plane_sides, plane_tile_a
    from cornerturn.tiling import Axis

    shape, axes = (6, 5, 7, 12, 20), (1, 2, 4, 0, 3)
    b = (Axis(20, 1, 72), Axis(35, 240, 1440))
    folded = PlaneSides(4, Axis(6, 8400, 12), b, (), Axis(12, 20, 1))
    assert plane_sides(canon(shape, axes)) == folded
    assert plane_tile_a(folded, 128) == cpu_permute.PLANE_NEXT_SPAN // 12
    assert plane_tile_a(PlaneSides(4, Axis(20, 14, 7), (Axis(14, 1, 140),), (), Axis(7, 280, 1)), 128) == 128
    plain = PlaneSides(4, Axis(12, 20, 1), b, (Axis(6, 8400, 12),))
    assert plane_sides(canon(shape, axes), fold_next=False) == plain
    assert plane_sides(canon(shape, axes, 1)) == PlaneSides(1, Axis(12, 20, 1), b, (Axis(6, 8400, 12),))
    assert plane_sides(canon((6, 5, 7, 200, 20), axes)).short is None  # 800 B: past PLANE_NEXT_MAX_BYTES
    monkeypatch.setattr(cpu_permute, "PLANE_NEXT_MAX_ROWS", 6 * 12 - 1)  # the table of a * ns + k: one row too many
    assert plane_sides(canon(shape, axes)) == plain
    assert plane_sides(canon(shape, axes), fold_next=True) == plain
    monkeypatch.setattr(cpu_permute, "PLANE_NEXT_MAX_ROWS", 6 * 12)
    assert plane_sides(canon(shape, axes)) == folded
    monkeypatch.setattr(cpu_permute, "PLANE_NEXT", False)
    assert plane_sides(canon(shape, axes)) == plain


@pytest.mark.parametrize(("dtype", "shape"), [(np.uint8, (13, 5, 9, 40)), (np.int16, (13, 5, 9, 40)),
                                              (np.float32, (13, 5, 9, 40)), (np.int64, (13, 7, 33, 12)),
                                              (np.complex128, (13, 5, 9, 40))],
                         ids=["uint8", "int16", "float32", "int64", "complex128"])
def test_plane_with_the_output_next_axis(dtype, shape, monkeypatch, rng):
    """Planes whose side a is the output's next axis (13), the output's innermost axis (9 or 33: extents read at run
    time) riding inside each step, for every word (PLANE_NEXT_MAX_BYTES widened to all: blocks along j = a * ns + k
    gathered from a table for 1- to 4-byte words, B's runs of 40 cut into overlapping blocks; 8- and 16-byte words
    element by element) in tiles of PLANE_NEXT_SPAN 64 units (7 or 1 a's a tile, the last ragged); a reversed, the
    innermost axis reversed (negative offsets in the table), and x's last byte before a page that cannot be read;
    bit for bit into poisoned outputs."""
    from cornerturn.cpu import permute as cpu_permute

    monkeypatch.setattr(cpu_permute, "PLANE_NEXT", True)
    monkeypatch.setattr(cpu_permute, "PLANE_NEXT_MAX_BYTES", {w: 1 << 20 for w in (1, 2, 4, 8, 16)})
    monkeypatch.setattr(cpu_permute, "PLANE_NEXT_SPAN", 64)
    forget_plans()
    x = random_bits(shape, dtype, rng)
    axes = (1, 3, 0, 2)
    edge, guard = _before_a_guard_page(x)
    try:
        for view in (x, x[::-1], x[:, :, ::-1], edge):
            sides = cpu_permute.plane_sides(canonical_permutation(view.shape, view.strides, view.itemsize, axes))
            assert (sides.a.extent, sides.short.extent) == (13, shape[2])
            strides = tuple(step // view.itemsize for step in view.strides)
            assert cornerturn.plan(view.shape, dtype, axes=axes, strides=strides).method == "permute-plane"
            out = poisoned(reference(view, axes).shape, dtype)
            cornerturn.permute_dims(view, axes, out=out)
            assert_bits_equal(out, reference(view, axes))
    finally:
        forget_plans()


def test_short_rows_by_hand():
    """The table of input offsets along j = a * ns + k: a * sa + k * ss, negative strides too."""
    from cornerturn.cpu.permute import PlaneSides, short_rows
    from cornerturn.tiling import Axis

    sides = PlaneSides(1, Axis(3, 10, 3), (Axis(30, 1, 90),), (), Axis(2, -300, 1))
    assert short_rows(sides).tolist() == [0, -300, 10, -290, 20, -280]


def _before_a_guard_page(x: np.ndarray):
    """A copy of x whose last byte is the last of a page that a page no process may read follows (Linux; elsewhere x
    itself), and the mapping that holds it: a load past x's end then stops the process instead of reading on."""
    import ctypes
    import mmap
    import sys

    if not sys.platform.startswith("linux"):
        return x, None
    pages = -(-x.nbytes // mmap.PAGESIZE) + 1
    held = mmap.mmap(-1, pages * mmap.PAGESIZE)
    start = ctypes.addressof(ctypes.c_char.from_buffer(held))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    assert libc.mprotect(start + (pages - 1) * mmap.PAGESIZE, mmap.PAGESIZE, 0) == 0  # PROT_NONE
    offset = (pages - 1) * mmap.PAGESIZE - x.nbytes
    edge = np.frombuffer(held, np.uint8, x.nbytes, offset).view(x.dtype).reshape(x.shape)
    edge[...] = x
    return edge, held


def test_rows_inside_by_hand():
    """The test that keeps a block's loads inside x: rows of n words from src, `step` apart (a negative step wraps as
    an unsigned one does in the kernel)."""
    from cornerturn.cpu.permute import _rows_inside, plane_some_min

    back = np.uint64(2**64 - 10)
    assert _rows_inside(100, 70, 0, 3, 10, 8)  # rows at 70, 80, 90: the last ends at 98
    assert not _rows_inside(100, 70, 0, 4, 10, 8)  # ... at 100: past x
    assert _rows_inside(100, 90, 0, 4, back, 8)  # 90 down to 60
    assert not _rows_inside(100, 93, 0, 2, back, 8)  # 93 + 8 > 100
    assert [plane_some_min(n) for n in (16, 8, 4)] == [4, 2, 1]


def test_plane_run_by_hand():
    """B's run of input neighbours: the chained prefix from a unit stride (a short innermost output axis too); none
    for 8-byte words or B's first axis not of unit stride."""
    from cornerturn.cpu.permute import PlaneSides, plane_run
    from cornerturn.tiling import Axis

    a = Axis(40, 777, 1)
    assert plane_run(PlaneSides(1, a, (Axis(21, 1, 1480), Axis(37, 21, 40)), ())) == 777
    assert plane_run(PlaneSides(1, a, (Axis(20, 1, 270), Axis(9, 23, 30)), ())) == 20
    assert plane_run(PlaneSides(8, a, (Axis(21, 1, 1480),), ())) == 0
    assert plane_run(PlaneSides(4, a, (Axis(21, 1, 1480),), (), Axis(3, 5000, 1))) == 21  # blocks along a * 3 + k
    assert plane_run(PlaneSides(4, a, (Axis(21, 2, 1480),), ())) == 0


def test_narrow_runs_rule():
    """Units contiguous on both sides that are not one host word: runs from NARROW_RUN_BYTES (16), except 16 bytes
    in 8-byte words (one host word of the plane's); shorter ones the table kernel. Worked by hand: uint8 runs of 59
    bytes (1-byte words), int16 of 18 (2-byte words), float32 of 44 (4-byte words), int16 of 24 and float32 of 32
    (8-byte words) take runs; float32 of 12 keeps the tiles, float32 and float64 of 16 (8-byte words) the plane;
    8-byte words of 64 bytes take runs."""
    from cornerturn.cpu.permute import plan

    for run, dtype, method in [(59, np.uint8, "runs"), (9, np.int16, "runs"), (11, np.float32, "runs"),
                               (12, np.int16, "runs"), (8, np.float32, "runs"), (3, np.float32, "permute-tiles"),
                               (4, np.float32, "permute-plane"), (2, np.float64, "permute-plane"),
                               (16, np.float32, "runs")]:
        p = canon((100, 50, run), (1, 0, 2), itemsize=np.dtype(dtype).itemsize)
        assert plan(p).name == method, (run, dtype)


@pytest.mark.parametrize("balanced", [True, False])
def test_runs_in_balanced_tiles(balanced, rng, monkeypatch):
    """The runs kernel's tiles cut each extent into tiles of equal size (run_tiles, worked by hand); bit for bit into
    a poisoned output either way, on extents that leave a ragged tile of 16 (18 = 16 + 2, 35 = 2 x 16 + 3)."""
    from cornerturn.cpu import permute as cpu_permute

    assert cpu_permute.run_tiles(18, 15717) == (9, 16) and cpu_permute.run_tiles(35, 16) == (12, 16)
    assert cpu_permute.run_tiles(13, 1) == (13, 1) and cpu_permute.run_tiles(0, 33) == (1, 11)
    monkeypatch.setattr(cpu_permute, "RUN_TILES_BALANCED", balanced)
    assert cpu_permute.run_tiles(18, 17) == ((9, 9) if balanced else (16, 16))
    for shape, axes in (((35, 18, 17), (1, 0, 2)), ((3, 35, 4, 18, 20), (3, 0, 1, 2, 4))):
        x = random_bits(shape, np.float32, rng)
        assert cornerturn.plan(x.shape, x.dtype, axes=axes).method == "runs"
        out = poisoned(reference(x, axes).shape, np.float32)
        cornerturn.permute_dims(x, axes, out=out)
        assert_bits_equal(out, reference(x, axes))


@pytest.mark.parametrize("run", [70000, 70001])
def test_long_runs_in_pieces(run, rng):
    """Six runs of about 70 KB (words of 8 bytes, then of 1): one tile of the runs kernel, so each run is cut into
    pieces that tasks share; bit for bit into a poisoned output, and the piece count worked by hand."""
    from cornerturn.cpu.permute import run_pieces

    assert run_pieces(70000, 1, 2) == 4  # 8 tasks wanted (4 a thread), at most 70000 // 16384 pieces
    assert run_pieces(70000, 1, 1) == 4 and run_pieces(20000, 1, 2) == 1 and run_pieces(10**6, 3, 2) == 3
    assert run_pieces(10**6, 8, 2) == 1
    x = random_bits((2, 3, run), np.uint8, rng)
    assert cornerturn.plan(x.shape, x.dtype, axes=(1, 0, 2)).method == "runs"
    out = poisoned((3, 2, run), np.uint8)
    cornerturn.permute_dims(x, (1, 0, 2), out=out)
    assert_bits_equal(out, reference(x, (1, 0, 2)))


@pytest.mark.parametrize("dtype, run", [(np.uint8, 17), (np.float32, 20), (np.float64, 32), (np.complex128, 4),
                                        (np.complex128, 17)])
def test_short_runs_move_in_copies_of_constant_length(dtype, run, rng, monkeypatch):
    """Runs of up to RUN_INLINE_BYTES take the runs kernel compiled for their length (a memcpy of constant length);
    longer ones, and runs cut into pieces, the kernel of run-time length that moves them in vector loops
    (RUN_VECTORS). Bit for bit into a poisoned output, a transposed batch (runs of the last axis) and a strided input;
    the kernel taken checked by spying on the factories (0: the vector loops)."""
    from cornerturn.cpu import permute as cpu_permute

    seen = []
    factory, vectors = cpu_permute.runs_kernel, cpu_permute.vector_runs_kernel
    monkeypatch.setattr(cpu_permute, "runs_kernel", lambda words=0: seen.append(words) or factory(words))
    monkeypatch.setattr(cpu_permute, "vector_runs_kernel", lambda word: seen.append(0) or vectors(word))
    word = widest_word(canon((7, 13, run), (1, 0, 2), itemsize=np.dtype(dtype).itemsize))
    run_bytes = run * np.dtype(dtype).itemsize
    for shape, axes, view in [((17, 23, 11, run), (2, 0, 1, 3), np.s_[...]),
                              ((82, 67, run), (1, 0, 2), np.s_[::2])]:
        base = random_bits(shape, dtype, rng)
        x = base[view]
        strides = tuple(step // x.itemsize for step in x.strides)
        assert cornerturn.plan(x.shape, x.dtype, strides=strides, axes=axes).method == "runs"
        out = poisoned(tuple(x.shape[a] for a in axes), dtype)
        cornerturn.permute_dims(x, axes, out=out)
        assert_bits_equal(out, reference(x, axes))
        want = run_bytes // word if run_bytes <= cpu_permute.RUN_INLINE_BYTES else 0
        assert seen[-1] == want, (shape, seen)


@pytest.mark.parametrize("dtype, run", [(np.uint8, 353), (np.int16, 291), (np.float32, 89), (np.float64, 37),
                                        (np.complex128, 21)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_long_runs_move_in_vector_loops(dtype, run, rng, monkeypatch):
    """Runs past RUN_INLINE_BYTES move in 64-byte vectors, then one of 32 bytes, then word by word (_vector_move):
    lengths that leave each of those, in every word size, from an input and into an output that start one element
    past a 16-byte boundary, a reversed axis and a strided one; bit for bit, nothing written past the output; the
    same with RUN_VECTORS off (a memcpy a run)."""
    from cornerturn.cpu import permute as cpu_permute

    for vectors in (True, False):
        monkeypatch.setattr(cpu_permute, "RUN_VECTORS", vectors)
        forget_plans()
        cases = [((41, 13, run), (1, 0, 2), None), ((5, 8, 24, run), (2, 0, 1, 3), np.s_[::-1, :, ::2])]
        for shape, axes, view in cases:
            if view is None:  # one element past the buffer's start
                x = random_bits((math.prod(shape) + 1,), dtype, rng)[1:].reshape(shape)
            else:
                x = random_bits(shape, dtype, rng)[view]
            strides = tuple(step // x.itemsize for step in x.strides)
            assert cornerturn.plan(x.shape, x.dtype, strides=strides, axes=axes).method == "runs"
            spare = poisoned((x.size + 2,), dtype)
            out = spare[1:1 + x.size].reshape(tuple(x.shape[a] for a in axes))
            cornerturn.permute_dims(x, axes, out=out)
            assert_bits_equal(out, reference(x, axes))
            assert_bits_equal(spare[[0, -1]], poisoned((2,), dtype))


@pytest.mark.parametrize("dtype, shape, axes, view, lead, want", [
    (np.float32, (17, 23, 11, 20), (2, 0, 1, 3), np.s_[...], 0, 5),  # 80 B runs: 5 vectors unrolled
    (np.complex128, (161, 27, 17), (1, 0, 2), np.s_[::2], 0, 0),  # 272 B, past RUN_INLINE_BYTES: a loop
    (np.complex128, (3, 2, 2304), (1, 0, 2), np.s_[...], 0, 0),  # 36 KiB runs cut into pieces
    (np.uint8, (37, 13, 96), (1, 0, 2), np.s_[...], 0, 6),  # bytes
    (np.float32, (47, 23, 17), (1, 0, 2), np.s_[...], 0, None),  # 68 B: not whole vectors, plain
    (np.float32, (47, 23, 20), (1, 0, 2), np.s_[...], 8, None),  # an output 8 bytes past a vector: plain
])
def test_streamed_runs(dtype, shape, axes, view, lead, want, rng, monkeypatch):
    """Runs of whole 16-byte vectors into an aligned output stream it (x86-64, from STREAM_MIN_BYTES, here 0):
    unrolled for short runs, a loop for long ones and pieces; runs of other lengths and unaligned outputs take plain
    stores. Bit for bit, nothing written before or past the output; the kernel's arguments checked by spying on its
    factory, and the compiled kernel's stores non-temporal and fenced."""
    from test_transpose_cpu import assert_streams

    from cornerturn.cpu import nontemporal, planner
    from cornerturn.cpu import permute as cpu_permute

    monkeypatch.setattr(planner, "STREAM_MIN_BYTES", 0)
    seen = []
    factory = cpu_permute.streamed_runs_kernel
    monkeypatch.setattr(cpu_permute, "streamed_runs_kernel", lambda *a: seen.append(a) or factory(*a))
    x = random_bits(shape, dtype, rng)[view]
    strides = tuple(step // x.itemsize for step in x.strides)
    assert cornerturn.plan(x.shape, x.dtype, strides=strides, axes=axes).method == "runs"
    size = x.nbytes
    spare = np.full(16 + lead + size + 64, 0xA5, np.uint8)
    start = -spare.ctypes.data % 16 + lead
    out = spare[start:start + size].view(dtype).reshape(tuple(x.shape[a] for a in axes))
    cornerturn.permute_dims(x, axes, out=out)
    assert_bits_equal(out, reference(x, axes))
    assert (spare[start + size:] == 0xA5).all() and (spare[:start] == 0xA5).all()
    assert [vectors for vectors, _ in seen] == ([want] if want is not None and nontemporal.STREAM_HOST else [])
    if seen:  # the kernel on two runs by two, of its vectors (or 2; `per` words each), all at whole vectors
        vectors, per = seen[0]
        run = per * (vectors or 2)
        words = np.zeros(8 * run, {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.complex128}[16 // per])
        inner, outer = np.array([0, run], np.int64), np.array([0, 2 * run], np.int64)
        assert_streams(factory(vectors, per).py_func, words, np.zeros_like(words), run, inner, inner, outer, outer,
                       2, 2, 2, 1)


def test_plane_shape_validates():
    from cornerturn.cpu.permute import PlaneShape

    assert PlaneShape(64, 4, 8).micro_b == 8
    for bad, words in [((64, 0, 8), "micro_a"), ((64, 8, 3), "divide"), ((64.0, 8, 8), "tile")]:
        with pytest.raises(ValueError, match=words):
            PlaneShape(*bad)


def test_plan_with_axes_executes_and_says_what_it_runs(rng):
    x = random_bits((20, 30, 40), np.float32, rng)
    planned = cornerturn.plan(x.shape, x.dtype, axes=(2, 0, 1))
    assert planned.out_shape == (40, 20, 30) and "axes=(2, 0, 1)" in repr(planned)
    out = poisoned((40, 20, 30), np.float32)
    planned.execute(x, out)
    assert_bits_equal(out, reference(x, (2, 0, 1)))
    with pytest.raises(ValueError, match="shape"):
        planned.execute(x, poisoned((40, 30, 20), np.float32))


def test_errors_write_nothing(rng):
    x = random_bits((3, 4, 5), np.float32, rng)
    kept = x.copy()
    for out, error, words in [
        (poisoned((5, 4, 3), np.float32), ValueError, "permuted by axes"),
        (poisoned((5, 3, 4), np.float64), TypeError, "dtype"),
        (poisoned((5, 3, 8), np.float32)[:, :, ::2], ValueError, "C-contiguous"),
    ]:
        before = out.copy()
        with pytest.raises(error, match=words):
            cornerturn.permute_dims(x, (2, 0, 1), out=out)
        assert_bits_equal(out, before)
    readonly = poisoned((5, 3, 4), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="cannot be written"):
        cornerturn.permute_dims(x, (2, 0, 1), out=readonly)
    with pytest.raises(ValueError, match="overlaps"):
        cornerturn.permute_dims(x, (0, 1, 2), out=x)
    with pytest.raises(ValueError, match="not a permutation"):
        cornerturn.permute_dims(x, (2, 2, 1))
    assert_bits_equal(x, kept)


def test_masked_array_keeps_its_mask(rng):
    data = random_bits((3, 4, 5), np.float32, rng)
    mask = rng.random((3, 4, 5)) < 0.3
    got = cornerturn.permute_dims(np.ma.MaskedArray(data, mask=mask), (1, 2, 0))
    assert_bits_equal(got.data, reference(data, (1, 2, 0)))
    assert (got.mask == reference(mask, (1, 2, 0))).all()


def test_torch_tensors_autograd_and_compile():
    x = torch.randn(3, 4, 5, dtype=torch.float64, requires_grad=True)
    y = cornerturn.permute_dims(x, (2, 0, 1))
    assert torch.equal(y, x.permute(2, 0, 1)) and y.is_contiguous()
    weights = torch.randn_like(y)
    (y * weights).sum().backward()
    assert torch.equal(x.grad, weights.permute(1, 2, 0))
    with pytest.raises(ValueError, match="keeps no gradient"):
        cornerturn.permute_dims(x, (2, 0, 1), out=torch.empty(5, 3, 4, dtype=torch.float64))
    z = torch.randn(4, 5, 6)
    assert torch.equal(cornerturn.permute_dims(z, (1, -1, 0)), z.permute(1, 2, 0))


@pytest.mark.full
def test_torch_compile_holds_one_node():
    compiled = torch.compile(lambda t: cornerturn.permute_dims(t, (1, 2, 0)) * 2, fullgraph=True)
    z = torch.randn(4, 5, 6)
    assert torch.equal(compiled(z), z.permute(1, 2, 0) * 2)


def test_jax_arrays_and_traced_calls():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = jnp.arange(60.0).reshape(3, 4, 5)
    assert (np.asarray(cornerturn.permute_dims(x, (2, 0, 1))) == np.transpose(np.asarray(x), (2, 0, 1))).all()
    traced = jax.jit(lambda t: cornerturn.permute_dims(t, (1, 2, 0)))(x)
    assert (np.asarray(traced) == np.transpose(np.asarray(x), (1, 2, 0))).all()


def test_random_permutation_suite_is_drawn_from_its_seed():
    from cornerturn.bench.suites import PERMUTE_BYTES, random_permutations, suite

    cases = random_permutations(5, 20, "cpu")
    assert cases == random_permutations(5, 20, "cpu") and cases != random_permutations(6, 20, "cpu")
    lo, hi = PERMUTE_BYTES["cpu"]
    for case in cases:
        assert 3 <= len(case.shape) <= 6 and sorted(case.axes) == list(range(len(case.shape)))
        assert case.axes != tuple(range(len(case.shape)))
        assert lo / 4 <= case.nbytes <= hi * 1.5
        assert case.out_shape == tuple(case.shape[a] for a in case.axes)
    assert len(suite("permute", seed=5, count=3, device="cpu")) == len(suite("permute")) + 3


def test_bench_runs_a_permutation_on_the_cpu():
    from cornerturn.bench.runner import run_suite
    from cornerturn.bench.suites import Case

    report = run_suite([Case((30, 40, 50), "float32", (2, 0, 1))], "cpu", "permute", repeats=1)
    ours = report.get(report.cases()[0], "cornerturn")
    assert ours.verified is True and ours.median_s > 0
    assert math.isclose(ours.bytes_moved, 2 * 30 * 40 * 50 * 4)
