"""cornerturn.transpose_: square matrices in place (CPU engine; the GPU kernel in Triton's interpreter), vectors as
reshaped views, and clear errors that leave the data untouched."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_bits_equal, grid, random_bits, together

import cornerturn


@pytest.mark.parametrize("dtype, shape", grid(
    [np.uint8, np.float16, np.float32, np.float64, np.complex128],
    [(2, 2), (8, 8), (31, 31), (64, 64), (65, 65), (3, 130, 130), (2, 136, 136), (2, 2, 7, 7)]))
def test_square_in_place_on_the_cpu(dtype, shape, rng):
    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    assert cornerturn.transpose_(x) is x
    assert_bits_equal(x, want)


@pytest.mark.parametrize("offset", [0, 1], ids=["8-byte aligned", "unaligned"])
def test_cpu_byte_squares_move_as_words_where_aligned(offset, monkeypatch, rng):
    """Bytes with sides a multiple of 8 on 8-byte aligned rows take the 64-bit word kernel (the per-element one
    is made to fail there), elsewhere the per-element one; both bit-exact."""
    from cornerturn.cpu import inplace

    n, batch = 72, 3
    buf = np.zeros(batch * n * n + 8, dtype=np.uint8)
    x = buf[offset:offset + batch * n * n].reshape(batch, n, n)
    assert (x.ctypes.data % 8 == 0) == (offset == 0)  # NumPy allocates on 16-byte boundaries
    x[...] = random_bits(x.shape, np.uint8, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    if x.ctypes.data % 8 == 0:
        monkeypatch.setattr(inplace, "square_kernel", lambda: pytest.fail("bytes went one at a time"))
    else:
        monkeypatch.setattr(inplace, "byte_square_kernel", lambda: pytest.fail("unaligned rows as words"))
    assert cornerturn.transpose_(x) is x
    assert_bits_equal(x, want)


def test_vectors_and_empty_become_views(rng):
    for shape in [(1, 9), (9, 1), (4, 1, 6), (0, 5)]:
        x = random_bits(shape, np.float32, rng)
        y = cornerturn.transpose_(x)
        assert y.shape == shape[:-2] + (shape[-1], shape[-2]) and (x.size == 0 or np.shares_memory(x, y))
        assert_bits_equal(y, np.ascontiguousarray(x.swapaxes(-1, -2)))


def test_torch_cpu_tensors_in_place(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(random_bits((2, 33, 33), np.int32, rng))
    want = x.transpose(-1, -2).contiguous()
    assert cornerturn.transpose_(x) is x and torch.equal(x, want)
    v = torch.arange(5.0).view(1, 5)
    assert cornerturn.transpose_(v).shape == (5, 1)


@pytest.mark.parametrize("make, error, match", [
    (lambda r: random_bits((8, 16), np.float32, r)[:, :8], ValueError, "one C-contiguous buffer"),
    (lambda r: random_bits((5, 5), np.float32, r).T, ValueError, "one C-contiguous buffer"),
    (lambda r: random_bits((5,), np.float32, r), ValueError, "ndim >= 2"),
])
def test_bad_input_raises_and_leaves_the_data(make, error, match, rng):
    x = make(rng)
    before = x.copy()
    with pytest.raises(error, match=match):
        cornerturn.transpose_(x)
    assert_bits_equal(x, before)


def test_read_only_is_refused(rng):
    x = random_bits((6, 6), np.float32, rng)
    x.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cornerturn.transpose_(x)


@pytest.mark.parametrize("dtype, shape, block, readdress, split", grid(
    [np.uint8, np.float32, np.complex128], [(2, 2), (33, 33), (2, 70, 70), (44, 44), (2, 3, 40, 40)],
    [None, 8],  # the default tiles, or tiles of 8
    [False, True],  # pointers kept across the barrier, or recomputed
    [False, True]))  # every pair masked, or pairs inside the square unmasked and told the side's alignment
def test_gpu_square_kernel_in_the_interpreter(dtype, shape, block, readdress, split, rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import side_alignment, square_launch, square_word

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    n, batch = shape[-1], int(np.prod(shape[:-2], dtype=np.int64))
    word = square_word(x.itemsize, x.__array_interface__["data"][0])
    words = torch.from_numpy(x.reshape(-1).view({1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[word]))
    # tiles of 8 on 70 x 70: 9 x 9 tiles, 45 pairs a matrix, numbered across the batch
    launch = square_launch(batch, n, x.itemsize, word, block, readdress=readdress, split=split)
    assert launch.constexprs["READDRESS"] is readdress and launch.constexprs["SPLIT"] is split
    assert launch.constexprs["ALIGN"] == (side_alignment(n) if split else 1)
    launch.run_tensors(words, words)
    assert_bits_equal(x, want)


@pytest.mark.parametrize("dtype, n, split", grid([np.uint8, np.float32, np.complex128], [44, 37], [False, True]))
def test_gpu_square_kernel_side_by_side_in_the_interpreter(dtype, n, split, rng):
    """The grid form's layout (squares three to a row of squares, two rows of them): pairs inside each square
    unmasked and told the side's alignment (44: rows four elements apart) or not; tiles of 8."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_launch

    count, across = 2, 3
    x = random_bits((count, n, across, n), dtype, rng)
    want = np.ascontiguousarray(x.transpose(0, 3, 2, 1))
    word = min(x.itemsize, 8)
    launch = square_launch(count * across, n, x.itemsize, word, 8, across=across, split=split)
    assert launch.constexprs["GRID"] and launch.constexprs["SPLIT"] is split
    words = torch.from_numpy(x.reshape(-1).view({1: np.int8, 4: np.int32, 8: np.int64}[word]))
    launch.run_tensors(words, words)
    assert_bits_equal(x, want)


def test_side_alignment_is_the_power_of_two_below_16_that_divides_the_side():
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import side_alignment, square_launch

    assert [side_alignment(n) for n in (1, 2, 12, 44, 40, 70, 33, 16, 48, 0)] == [1, 2, 4, 4, 8, 2, 1, 1, 1, 1]
    with pytest.raises(ValueError, match="does not divide"):
        square_launch(1, 44, 4, 4, split=True, align=8)


def test_large_split_squares_of_bytes_take_tiles_of_128():
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_default, square_launch

    # tiles of 128 for split squares of bytes of 100 MiB or more and of 2-byte elements of 48 MiB or more; 64 below,
    # or for wider elements; not split (sides that are multiples of 16): 64 for 2-byte elements
    tiles = {(n, size): square_launch(1, n, size, size).constexprs["BLOCK"]
             for n, size in ((11364, 1), (8004, 1), (5122, 2), (4980, 2), (11364, 4), (16384, 2))}
    assert tiles == {(11364, 1): 128, (8004, 1): 64, (5122, 2): 128, (4980, 2): 64, (11364, 4): 64, (16384, 2): 64}
    # ... and only where rows move in words of 4 bytes or more (128-tiles of 2-byte words spill): bytes two off a
    # word, 2-byte elements of odd sides (split where their offsets pass 32 bits)
    assert square_launch(1, 11366, 1, 1).constexprs["BLOCK"] == 64
    assert square_launch(1, 7001, 2, 2).constexprs["BLOCK"] == 64
    assert square_default(1, 34349, 2, 16).constexprs["BLOCK"] == 64


@pytest.mark.parametrize("dtype, shape, two_off_from", [
    (np.int8, (2, 70, 70), 1 << 62),  # bytes two off a word in 2-byte words (split)
    (np.int8, (2, 70, 70), 0),  # ... and through the funnel
    (np.int8, (300, 300), 1 << 62),  # bytes in whole words, 2 warps
    (np.float16, (2, 33, 33), 1 << 62),  # odd 2-byte sides with 64-bit offsets: split, not the funnel
    (np.float16, (270, 270), 1 << 62),  # 2-byte split squares in tiles of 128 (an inner pair unmasked)
], ids=str)
def test_gpu_square_size_rules_forced_in_the_interpreter(dtype, shape, two_off_from, monkeypatch, rng):
    """The size rules for 1- and 2-byte squares, made to take small squares (64-bit offsets everywhere, tiles of 128
    for every split 2-byte square, 2 warps for split byte squares in whole words): the launches square_default then
    builds are bit-exact."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine import inplace, plan

    monkeypatch.setattr(plan, "WIDE_FROM", 0)
    monkeypatch.setattr(inplace, "LARGE_SQUARE_FROM", {1: 1 << 62, 2: 0})
    monkeypatch.setattr(inplace, "MID_BYTES_TWO_WARPS", 0)
    monkeypatch.setattr(inplace, "FUNNEL_TWO_OFF_FROM", two_off_from)
    inplace.square_launch.cache_clear()
    try:
        n, count = shape[-1], int(np.prod(shape[:-2], dtype=np.int64))
        launch = inplace.square_default(count, n, np.dtype(dtype).itemsize, 256)
    finally:
        inplace.square_launch.cache_clear()
    funnel = launch.kernel.fn.__name__ == "transpose_square_funnel"
    assert launch.constexprs["WIDE"] and funnel == (n % 2 == 1 and dtype == np.int8 or two_off_from == 0)
    if not funnel:
        assert launch.constexprs["BLOCK"] == (128 if dtype == np.float16 and n % 2 == 0 else 64)
        assert launch.num_warps == (2 if dtype == np.int8 and n % 4 == 0 else 4)
    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    buffer = np.zeros(-(-x.nbytes // 8) * 8, np.uint8)
    buffer[:x.nbytes] = x.reshape(-1).view(np.uint8)
    word = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[launch.word]
    launch.run_tensors(*[torch.from_numpy(buffer.view(word))] * 2)
    assert_bits_equal(buffer[:x.nbytes].view(dtype).reshape(want.shape), want)


def test_mid_sized_byte_squares_in_words_take_two_warps():
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_launch

    # split byte squares of 32 to 100 MiB whose rows move in 4- or 8-byte words: 2 warps; smaller or larger ones,
    # rows of 2-byte words, and sides that are multiples of 16: 4
    warps = {n: square_launch(1, n, 1, 1).num_warps for n in (5788, 5800, 9404, 10236, 10244, 9406, 8336)}
    assert warps == {5788: 4, 5800: 2, 9404: 2, 10236: 2, 10244: 4, 9406: 4, 8336: 4}


def test_16_byte_and_large_4_byte_squares_take_two_warps():
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_launch

    # 2 warps for 16-byte squares, and for 4-byte ones of 100 MiB or more (5120^2 is exactly 100 MiB); 4 elsewhere,
    # and a warp count asked for is kept
    warps = {(n, size): square_launch(1, n, size, size if size < 16 else 8).num_warps
             for n, size in ((3001, 16), (8192, 16), (5120, 4), (5119, 4), (9148, 4), (9148, 8), (8004, 2))}
    assert warps == {(3001, 16): 2, (8192, 16): 2, (5120, 4): 2, (5119, 4): 4, (9148, 4): 2, (9148, 8): 4,
                     (8004, 2): 4}
    assert square_launch(1, 9148, 4, 4, num_warps=4).num_warps == 4


def test_odd_4_byte_squares_on_two_warps_keep_whole_columns_below_the_limit():
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import PAIR_GROUP, pair_group, square_launch

    assert (pair_group(17275, 17275, 4, 2), pair_group(17275, 17275, 4), pair_group(17275, 17275, 4, 4)) == \
        (1, PAIR_GROUP, PAIR_GROUP)
    # 17275^2 float32 (1138 MiB, odd) keeps whole columns; even sides, odd ones of 2.5 GiB or more, 4 warps asked
    # for, a group asked for and the grid form keep the blocks of pair_group
    def group(n, **options):
        return square_launch(1, n, 4, 4, **options).constexprs["GROUP"]

    assert (group(17275), group(11587), group(25905), group(25907)) == (1, 1, 1, 8)  # 2.5 GiB lies between
    assert (group(17276), group(17275, num_warps=4), group(17275, group=8)) == (8, 8, 8)
    assert square_launch(2, 17275, 4, 4, across=2).constexprs["GROUP"] == 8
    assert square_launch(1, 17275, 8, 8).constexprs["GROUP"] == 8  # 8-byte squares keep 4 warps and the blocks


def test_square_pointers_recomputed_where_accesses_are_one_word_wide():
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_launch

    assert square_launch(1, 16383, 1, 1).constexprs["READDRESS"]  # rows of 16383 bytes
    assert square_launch(1, 8191, 4, 4).constexprs["READDRESS"]
    assert square_launch(1, 8188, 4, 4).constexprs["READDRESS"]  # whole 16-byte runs, but the last column masked
    assert not square_launch(1, 8188, 4, 4, split=False).constexprs["READDRESS"]
    assert not square_launch(1, 16384, 1, 1).constexprs["READDRESS"]
    assert not square_launch(1, 8191, 16, 8).constexprs["READDRESS"]  # rows of whole 16-byte elements, flat


@pytest.mark.parametrize("dtype, shape, block, group, across", [
    (np.float32, (2, 70, 70), 8, 2, 0),  # 9 x 9 tiles in blocks of 2: the last block row half past the last tile
    (np.float64, (37, 37), 8, 3, 0),  # 5 x 5 tiles in blocks of 3, split (rows of 37 elements)
    (np.complex128, (2, 19, 19), 8, 2, 0),  # flat
    (np.int8, (44, 44), 8, 4, 3),  # side by side
    (np.uint8, (2, 45, 45), 8, 4, 0),  # the funnel kernel (odd rows of bytes)
    (np.float16, (29, 29), 8, 3, 3),  # the funnel kernel, side by side
], ids=str)
def test_gpu_square_pairs_numbered_in_blocks_in_the_interpreter(dtype, shape, block, group, across, rng):
    """Tile pairs numbered in blocks of group x group tiles: the slots below the diagonal and past the last tile do
    nothing, every pair is swapped once (a pair swapped twice, or not at all, leaves it as it was)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_funnel, square_launch

    n, count = shape[-1], int(np.prod(shape[:-2], dtype=np.int64))
    funnel = square_funnel(n, np.dtype(dtype).itemsize, 16)
    word = 4 if funnel else min(np.dtype(dtype).itemsize, 8)
    if across:
        x = random_bits((count, n, across, n), dtype, rng)
        want = np.ascontiguousarray(x.transpose(0, 3, 2, 1))
    else:
        x = random_bits(shape, dtype, rng)
        want = np.ascontiguousarray(x.swapaxes(-1, -2))
    launch = square_launch(count * max(1, across), n, x.itemsize, 1 if funnel else word, block, across=across,
                           funnel=funnel, group=group)
    assert launch.constexprs["GROUP"] == group and launch.constexprs["GRID"] == bool(across)
    buffer = np.zeros(-(-x.nbytes // 8) * 8, np.uint8)
    buffer[:x.nbytes] = x.reshape(-1).view(np.uint8)
    launch.run_tensors(*[torch.from_numpy(buffer.view({1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[word]))] * 2)
    assert_bits_equal(buffer[:x.nbytes].view(dtype).reshape(want.shape), want)


def test_large_squares_number_their_pairs_in_blocks():
    """Blocks of PAIR_GROUP tiles where a column of tiles spans 100 MiB (bytes) or 512 MiB (wider elements): a
    square's bytes, or in the grid form those of the rows of squares its column crosses."""
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import PAIR_GROUP, pair_group, square_default, square_launch

    assert PAIR_GROUP > 1
    assert pair_group(10240, 10240, 1) == PAIR_GROUP and pair_group(10239, 10239, 1) == 1  # 100 MiB of bytes
    assert pair_group(8192, 8192, 8) == PAIR_GROUP and pair_group(8191, 8191, 8) == 1  # 512 MiB
    assert pair_group(16384, 16384, 2) == PAIR_GROUP and pair_group(11585, 11585, 4) == 1
    assert pair_group(4096, 4 * 4096, 8) == PAIR_GROUP  # side by side, four to a row of squares: 512 MiB spanned
    assert square_default(1, 35549, 1, 16).constexprs["GROUP"] == PAIR_GROUP  # the funnel kernel
    assert square_default(4, 8191, 4, 16).constexprs["GROUP"] == 1  # four 256 MiB squares one after another
    assert square_launch(1, 24408, 4, 4).constexprs["GROUP"] == PAIR_GROUP  # (odd: on 2 warps, whole columns)
    assert square_launch(1, 24407, 4, 4, num_warps=4).constexprs["GROUP"] == PAIR_GROUP
    assert square_launch(1, 24407, 4, 4, group=1).constexprs["GROUP"] == 1
    with pytest.raises(ValueError, match="at least 1"):
        square_launch(1, 64, 4, 4, group=0)


@pytest.mark.parametrize("dtype, shape, block, across, word", grid(
    [np.uint8, np.float16],
    together([((37, 37), 8), ((2, 45, 45), 8), ((3, 29, 29), 8), ((45, 45), 16), ((3, 3), 8), ((5, 5), 8)]),
    [0, 3],  # squares one after another, or side by side
    [4, 8]))  # read through 4-byte or 8-byte words
def test_gpu_square_funnel_kernel_in_the_interpreter(dtype, shape, block, across, word, rng):
    """Odd sides of 1- and 2-byte elements: inner tile pairs read through aligned words at every shift, pairs on the
    diagonal and in the last column of tiles element by element; squares in a batch or side by side (the grid
    form's layout, `across` to a row of squares); words of 4 bytes (the default) or 8; the buffer is exactly as
    long as the squares, rounded up to a word (the reads stay inside it)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_funnel, square_launch

    n, count = shape[-1], int(np.prod(shape[:-2], dtype=np.int64))
    assert square_funnel(n, np.dtype(dtype).itemsize, 16) == 4
    if across:  # `count` rows of squares, `across` squares to a row
        x = random_bits((count, n, across, n), dtype, rng)
        want = np.ascontiguousarray(x.transpose(0, 3, 2, 1))
        launch = square_launch(count * across, n, x.itemsize, 1, block, across=across, funnel=word)
    else:
        x = random_bits(shape, dtype, rng)
        want = np.ascontiguousarray(x.swapaxes(-1, -2))
        launch = square_launch(count, n, x.itemsize, 1, block, funnel=word)
    assert launch.kernel.fn.__name__ == "transpose_square_funnel" and launch.constexprs["GRID"] == bool(across)
    buffer = np.zeros(-(-x.nbytes // word) * word, np.uint8)
    buffer[:x.nbytes] = x.reshape(-1).view(np.uint8)
    words = torch.from_numpy(buffer.view({4: np.int32, 8: np.int64}[word]))
    launch.run_tensors(words, words)
    assert_bits_equal(buffer[:x.nbytes].view(dtype).reshape(want.shape), want)


@pytest.mark.parametrize("shape", [(37, 37), (2, 45, 45)], ids=str)
def test_gpu_square_funnel_kernel_float32_through_8_byte_words(shape, rng):
    """4-byte elements read through 8-byte words: not a default (slower than element by element on the GPU, see
    docs/inplace.md), but a setting the kernel takes, so it is checked too."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_launch

    x = random_bits(shape, np.float32, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    n, count = shape[-1], int(np.prod(shape[:-2], dtype=np.int64))
    buffer = np.zeros(-(-x.nbytes // 8) * 8, np.uint8)
    buffer[:x.nbytes] = x.reshape(-1).view(np.uint8)
    words = torch.from_numpy(buffer.view(np.int64))
    square_launch(count, n, 4, 4, 8, 4, funnel=8).run_tensors(words, words)
    assert_bits_equal(buffer[:x.nbytes].view(np.float32).reshape(want.shape), want)


def test_square_funnel_where_rows_are_not_whole_words():
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_default, square_funnel

    assert square_funnel(16383, 1, 16) == 4 and square_funnel(16382, 1, 16) == 4 and square_funnel(8191, 2, 4) == 4
    assert square_funnel(16384, 1, 16) == 0 and square_funnel(8190, 2, 16) == 0  # rows of whole words
    assert square_funnel(10238, 1, 16) == 0 and square_funnel(10242, 1, 16) == 4  # bytes two off a word, by size
    assert square_funnel(8191, 4, 16) == 0 and square_funnel(16383, 1, 2) == 0  # 4-byte elements; base not aligned
    assert square_default(4, 16383, 1, 256).kernel.fn.__name__ == "transpose_square_funnel"
    assert square_default(4, 16383, 4, 256).kernel.fn.__name__ == "transpose_square_inplace"
    assert square_default(4, 16383, 1, 1).kernel.fn.__name__ == "transpose_square_inplace"
    assert square_default(1, 9302, 1, 256).constexprs["ALIGN"] == 2  # 2-byte words under 100 MiB, tiles of 64
    assert square_default(1, 9302, 1, 256).constexprs["BLOCK"] == 64
    # 2-byte elements whose offsets pass 32 bits: split (the funnel's registers spill there); bytes keep the funnel
    kernels = {(batch, n, size): square_default(batch, n, size, 16).kernel.fn.__name__.split("_")[-1]
               for batch, n, size in ((1, 32767, 2), (1, 32769, 2), (3, 26755, 2), (3, 26755, 1), (1, 46341, 1))}
    assert kernels == {(1, 32767, 2): "funnel", (1, 32769, 2): "inplace", (3, 26755, 2): "inplace",
                       (3, 26755, 1): "funnel", (1, 46341, 1): "funnel"}


@pytest.mark.parametrize("dtype, shape, block, readdress, split", grid(
    [np.uint8, np.float32, np.complex128], [(2, 2), (33, 33), (2, 70, 70), (64, 64), (2, 36, 36)],
    [8, 16],  # tiles of 8 or 16
    [False, True],  # pointers kept across the barrier, or recomputed
    [False, True]))  # every pair masked, or pairs inside the square unmasked
def test_gpu_square_kernel_flat_in_the_interpreter(dtype, shape, block, readdress, split, rng):
    """Both tiles moved as rows of words (FLAT), one or two words an element, odd sides and batches too."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.inplace import square_launch

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    n, batch = shape[-1], int(np.prod(shape[:-2], dtype=np.int64))
    word = min(x.itemsize, 8)
    launch = square_launch(batch, n, x.itemsize, word, block, None, True, readdress, split=split)
    assert launch.constexprs["FLAT"] and launch.constexprs["READDRESS"] is readdress
    words = torch.from_numpy(x.reshape(-1).view({1: np.int8, 4: np.int32, 8: np.int64}[word]))
    launch.run_tensors(words, words)
    assert_bits_equal(x, want)
