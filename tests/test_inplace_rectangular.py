"""cornerturn.transpose_ on non-square matrices: the decomposition's index maps (cornerturn.ckg), the block form
(cornerturn.blocks) and its cycles (cornerturn.cycles), the CPU passes, and the GPU passes in Triton's interpreter,
on prime, coprime (gcd = 1) and gcd > 1 shapes, bit-exact; the scratch each plan takes stays O(max(M, N))."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_bits_equal, grid, interpreted_bytes_under, random_bits, together

import cornerturn
from cornerturn import blocks, cycles
from cornerturn.ckg import Decomposition, transpose_reference

# (rows, cols): gcd > 1, coprime, primes, one divides the other, skinny both ways
SHAPES = [(4, 6), (6, 4), (7, 5), (12, 18), (97, 89), (64, 8), (8, 64), (30, 100), (200, 3), (3, 200), (33, 128)]


@pytest.mark.parametrize("rows, cols", [(m, n) for m in range(1, 26) for n in range(1, 26)][::7] + SHAPES)
def test_reference_passes_transpose(rows, cols, rng):
    x = rng.integers(0, 2**62, (rows, cols))
    np.testing.assert_array_equal(transpose_reference(x), x.T)


@pytest.mark.parametrize("rows, cols", [(12, 4), (4, 12), (9, 3), (3, 9), (40, 8), (8, 40), (7, 1), (1, 7),
                                        (96, 32), (32, 96), (35, 5)])
def test_block_form_transposes(rows, cols, rng):
    x = rng.integers(0, 2**62, (rows, cols))
    assert_bits_equal(blocks.transpose_reference(x), x.T.copy())


@pytest.mark.parametrize("rows, cols", [(m, n) for m in range(2, 41) for n in range(2, 41)
                                        if blocks.grid_form(m, n) is not None][::4])
def test_grid_form_transposes(rows, cols, rng):
    x = rng.integers(0, 2**62, (rows, cols))
    assert_bits_equal(blocks.grid_reference(x), x.T.copy())


def test_grid_form_applies_where_the_sides_share_a_factor_and_neither_divides_the_other():
    assert blocks.grid_form(32768, 12288) == blocks.GridForm(8, 3, 4096)
    assert blocks.grid_form(4096, 14336) == blocks.GridForm(2, 7, 2048)
    assert blocks.grid_form(32768, 8192) is None and blocks.grid_form(8192, 8192) is None
    assert blocks.grid_form(32768, 8191) is None  # coprime
    with pytest.raises(ValueError, match="no grid form"):
        blocks.grid_reference(np.zeros((4, 8)))


@pytest.mark.parametrize("rows, cols", [(13, 4), (4, 13), (9, 2), (2, 9), (30, 7), (7, 30), (17, 16), (16, 17),
                                        (100, 33), (5, 3), (3, 5)])
def test_peeled_form_transposes(rows, cols, rng):
    x = rng.integers(0, 2**62, (rows, cols))
    assert_bits_equal(blocks.peeled_reference(x), x.T.copy())


def test_peeled_form_applies_where_a_side_divides_the_other_but_for_an_edge():
    assert blocks.peel_form(32768, 8191) == blocks.PeelForm(blocks.BlockForm(4, 8191, True), 32764, 8191, 4, True)
    assert blocks.peel_form(8191, 32768) == blocks.PeelForm(blocks.BlockForm(4, 8191, False), 8191, 32764, 4, False)
    assert blocks.peel_form(17, 16).front is None  # the front is square
    assert blocks.peel_form(32, 8) is None and blocks.peel_form(8, 8) is None
    with pytest.raises(ValueError, match="no peeled form"):
        blocks.peeled_reference(np.zeros((4, 8)))


def test_block_form_applies_where_one_side_divides_the_other():
    assert blocks.block_form(32768, 8192) == blocks.BlockForm(4, 8192, tall=True)
    assert blocks.block_form(8192, 32768) == blocks.BlockForm(4, 8192, tall=False)
    assert blocks.block_form(32768, 8191) is None and blocks.block_form(12, 18) is None
    assert blocks.block_form(64, 64) is None
    with pytest.raises(ValueError, match="no block form"):
        blocks.transpose_reference(np.zeros((4, 6)))


@pytest.mark.parametrize("size", [1, 2, 3, 10, 57, 200])
@pytest.mark.parametrize("length", [2, 3, 7, 1000])
def test_cycles_permute_chunks_in_place(size, length, rng):
    source = rng.permutation(size)
    chunks = rng.integers(0, 2**62, (size, 3))
    want = chunks[source].copy()
    work = cycles.segments(source, length)
    assert (work.table[:, 1] <= length).all() and work.table[:, 1].sum() == np.count_nonzero(source != np.arange(size))
    cycles.apply(chunks, work)
    assert_bits_equal(chunks, want)


def test_cycles_cut_long_cycles_and_check_their_input():
    source = np.roll(np.arange(10), 1)  # one cycle of 10
    work = cycles.segments(source, 3)
    assert work.count == 4 and len(work.saved) == 4 and sorted(work.table[:, 2].tolist()) == [0, 1, 2, 3]
    # the chain 0 <- 9 <- 8 <- ... <- 1 in pieces of 3, each closed by the saved first chunk of the next
    assert work.order.tolist() == [0, 9, 8, 7, 6, 5, 4, 3, 2, 1] and work.saved.tolist() == [0, 7, 4, 1]
    assert work.table.tolist() == [[0, 3, 1], [3, 3, 2], [6, 3, 3], [9, 1, 0]]
    assert cycles.segments(source, 10).saved.size == 0
    with pytest.raises(ValueError, match="not a permutation"):
        cycles.segments(np.array([0, 0, 1]), 2)
    with pytest.raises(ValueError, match="at least 2"):
        cycles.segments(source, 1)


def test_decomposition_constants():
    d = Decomposition(32768, 8192)
    assert (d.c, d.a, d.b, d.rotates_first) == (8192, 4, 1, True)
    d = Decomposition(32768, 8191)
    assert (d.c, d.rotates_first) == (1, False) and d.a_inverse * d.a % d.b == 1
    with pytest.raises(ValueError, match="at least 1 x 1"):
        Decomposition(0, 4)


@pytest.mark.parametrize("dtype, shape", grid([np.uint8, np.float16, np.float32, np.float64, np.complex128],
                                             SHAPES + [(3, 10, 14), (2, 2, 5, 9)]))
def test_cpu_passes(dtype, shape, rng):
    from cornerturn.cpu.rectangular import transpose_batch

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    words = x.reshape(-1, m, n).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64,
                                      16: np.complex128}[x.itemsize])
    transpose_batch(words, small_bytes=0, blocks=False)  # the three passes even for small matrices
    assert_bits_equal(x.reshape(want.shape), want)


def _forbid_the_passes(monkeypatch, form: str) -> None:
    """The CPU's three passes made to fail, for tests of the forms that should take their place."""
    from cornerturn.cpu import rectangular

    def no_passes(*args):
        raise AssertionError(f"the three passes ran where the {form} form applies")

    monkeypatch.setattr(rectangular, "transpose_matrix", no_passes)


@pytest.mark.parametrize("dtype, form, shape", grid(
    [np.uint8, np.float32, np.complex128],
    together([("block", s) for s in [(12, 4), (4, 12), (3, 16, 4), (2, 4, 24), (9, 3), (6, 1), (1024, 4), (4, 1024),
                                     (2, 600, 3)]]
             + [("grid", s) for s in [(48, 80), (80, 48), (2, 36, 60), (24, 40), (640, 24)]])))
def test_cpu_block_and_grid_forms(dtype, form, shape, rng, monkeypatch):
    from cornerturn.cpu import rectangular

    monkeypatch.setattr(rectangular, "MIN_CHUNK_BYTES", 1)

    _forbid_the_passes(monkeypatch, form)
    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    assert getattr(rectangular, f"cpu_{form}_form")(m, n, x.itemsize) is not None
    # 1024 x 4, 600 x 3 and 640 x 24 (80 x 3 squares of 8): hundreds of moved chunks, so cycles are cut and closed
    # with saved chunks
    saved = rectangular.transpose_batch(x.reshape(-1, m, n), small_bytes=0)
    assert saved > 0 or max(m, n) < 600
    assert_bits_equal(x.reshape(want.shape), want)


def _restrided_form(monkeypatch, form: str, staged: int | None) -> None:
    """Small chunks allowed, rows restrided through a scratch of `staged` bytes (None: the default), and the three
    passes made to fail, for the CPU forms that move rows to a new stride."""
    from cornerturn.cpu import rectangular

    monkeypatch.setattr(rectangular, "MIN_CHUNK_BYTES", 1)
    if staged:
        monkeypatch.setattr(rectangular, "RESTRIDE_BYTES", staged)
    _forbid_the_passes(monkeypatch, form)


@pytest.mark.parametrize("dtype, shape, staged", grid(
    [np.uint8, np.float32, np.complex128],
    [(13, 4), (4, 13), (5, 4), (4, 5), (2, 17, 6), (2, 6, 17), (70, 33), (33, 70), (1031, 4), (4, 1031)],
    [None, 40]))  # rows moved in one group, or in groups of 40 bytes
def test_cpu_peeled_form(dtype, shape, staged, rng, monkeypatch):
    """Tall and wide, a square front and fronts in block form (1031 x 4: hundreds of chunks, cycles cut and closed
    with saved ones), edges of 1 to 4 rows or columns, batches; rows restrided in one group or in many (one row, or
    a few, a group; the last group short); the three passes are made to fail."""
    from cornerturn.cpu import rectangular

    _restrided_form(monkeypatch, "peeled", staged)
    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    form = rectangular.cpu_peel_form(m, n, x.itemsize)
    assert form is not None and rectangular.cpu_block_form(m, n, x.itemsize) is None
    assert rectangular.cpu_grid_form(m, n, x.itemsize) is None
    saved = rectangular.transpose_batch(x.reshape(-1, m, n), small_bytes=0)
    assert saved >= form.edge * min(m, n) * x.itemsize  # the edge, and chunks of cut cycles
    assert_bits_equal(x.reshape(want.shape), want)


@pytest.mark.parametrize("dtype, shape, sides, staged", grid(
    [np.uint8, np.float32, np.complex128],
    together([((96, 35), "one"), ((35, 96), "one"), ((2, 64, 25), "one"), ((97, 61), "both"), ((61, 97), "both"),
              ((2, 53, 41), "both"), ((131, 89), "both"), ((301, 211), "both")]),
    [None, 40]))  # rows moved in one group, or in groups of 40 bytes
def test_cpu_trimmed_form(dtype, shape, sides, staged, rng, monkeypatch):
    """Where no other form fits (the peeled form's edge made too large): columns (tall) or rows (wide) cut so that
    the rest has a shared factor (96 x 35 less 3 columns is 3 squares of 32), or rows and columns both (sides that
    share nothing and sit far from multiples of each other: 97 x 61 less a row and a column is 8 x 5 squares of 12
    for float32); the three passes are made to fail."""
    from cornerturn.cpu import rectangular

    monkeypatch.setattr(rectangular, "TRIM_SIDE_BYTES", 1)
    monkeypatch.setattr(rectangular, "SAVED_BYTES", 0)  # no peeled form
    _restrided_form(monkeypatch, "trimmed", staged)
    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    assert rectangular.cpu_peel_form(m, n, x.itemsize) is None and rectangular._chunked_form(m, n, x.itemsize) is None
    trim = rectangular.cpu_trim_form(m, n, x.itemsize)
    assert trim is not None and (bool(trim.rows) and bool(trim.cols)) == (sides == "both")
    saved = rectangular.transpose_batch(x.reshape(-1, m, n), small_bytes=0)
    assert saved >= (trim.rows * n + trim.cols * trim.inner[0]) * x.itemsize  # the edges, at least
    assert_bits_equal(x.reshape(want.shape), want)


def test_cpu_trimmed_form_where_its_edges_fit():
    from cornerturn.cpu import rectangular

    assert rectangular.cpu_trim_form(30011, 20011, 4) == rectangular.Trim(59, 43, (29952, 19968))  # as on the GPU
    assert rectangular.cpu_trim_form(3001, 2003, 4).inner == (2976, 1984)  # 3 x 2 squares of 992
    # squares of at least TRIM_SIDE_BYTES a row: not 8192 x 2992 (512 x 187 squares of 16) but 8160 x 2720 (3 x 1
    # squares of 2720)
    assert rectangular.cpu_trim_form(8192, 3001, 4) == rectangular.Trim(32, 281, (8160, 2720))
    assert rectangular.cpu_trim_form(4096, 4096, 4) is None and rectangular.cpu_trim_form(8192, 200, 4) is None


def test_cpu_peeled_form_where_its_edge_fits():
    from cornerturn.cpu import rectangular

    assert rectangular.cpu_peel_form(8192, 2047, 4).edge == 4  # 4 x 2047 rows after a front of 8188 x 2047
    assert rectangular.cpu_peel_form(2047, 8192, 4).tall is False
    assert rectangular.cpu_peel_form(12001, 7000, 4) is None  # an edge of 5001 rows of 7000 elements: too large
    assert rectangular.cpu_peel_form(8192, 8, 4) is None  # chunks of 32 bytes: under a cache line


@pytest.mark.parametrize("shape", [(5, 3), (2, 70, 45), (1000, 3), (3, 1000), (300, 500)], ids=str)
def test_transpose_in_place_returns_a_view_of_the_same_memory(shape, rng):
    x = random_bits(shape, np.float32, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    y = cornerturn.transpose_(x)
    assert y.shape == want.shape and np.shares_memory(x, y) and x.shape == shape
    assert_bits_equal(y, want)


def test_torch_cpu_tensor_rectangular(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(random_bits((2, 9, 14), np.int16, rng))
    want = x.transpose(-1, -2).contiguous()
    y = cornerturn.transpose_(x)
    assert y.data_ptr() == x.data_ptr() and torch.equal(y, want)


ROUTES = {
    "passes": {"small_bytes": 0},  # the column settings of the element size
    # many column bands: one pipelined launch through a ring of two slots, with rows in bands
    "ring of two, banded rows": {"small_bytes": 0, "row_words": 2, "row_band_bytes": 64,
                                 "columns": {"pipelined": True, "band_bytes": 64, "ring": 2, "group": 1}},
    # each band gathered back two bands later, items of three tiles
    "ring of three, lag of two": {"small_bytes": 0, "columns": {"pipelined": True, "band_bytes": 64, "ring": 3,
                                                                "lag": 2, "group": 3}},
    "a launch per band": {"small_bytes": 0, "columns": {"pipelined": False, "band_bytes": 64}},
    "through scratch": {},
}


SQUARE_KERNELS = {"transpose_square_inplace", "transpose_square_funnel"}


def _kernel_names(p) -> list[str]:
    """The kernels of a plan's launches, in order; either square kernel named "square" (which one moves a square is
    tested in test_inplace.py)."""
    names = [s.launch.kernel.fn.__name__ for s in p.steps]
    return ["square" if name in SQUARE_KERNELS else name for name in names]


def _kernels_of_the_passes(m, n, itemsize, options):
    """The kernels a plan with these options takes (but cycles_save, there only when a cycle is cut)."""
    from cornerturn.engine.rectangular import BlockOptions, column_options

    block_options = options.get("blocks", BlockOptions())
    if block_options.enabled and blocks.block_form(m, n) and min(m, n) * itemsize >= block_options.min_chunk_bytes:
        return {"square", "copy_words", "cycles_move"}
    columns = options.get("columns", column_options(itemsize))
    column_pass = {"inplace_columns", "zero_words"} if columns.pipelined else {"inplace_columns_banded"}
    rows = {"inplace_rows_banded" if "row_words" in options else "inplace_rows"}
    return (column_pass if math.gcd(m, n) > 1 else set()) | rows | column_pass


@pytest.mark.parametrize("dtype, shape, route", grid(
    [np.uint8, np.uint16, np.float32, np.float64, np.complex128],
    [(4, 6), (7, 5), (12, 18), (2, 30, 100), (64, 8), (200, 3), (256, 6)], list(ROUTES)))
def test_gpu_passes_in_the_interpreter(dtype, shape, route, rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, ColumnOptions, plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    options = dict(ROUTES[route])
    if "columns" in options:
        options["columns"] = ColumnOptions(**options["columns"])
    if "blocks" in options:
        options["blocks"] = BlockOptions(**options["blocks"])
    p = plan(x.size // (m * n), m, n, x.itemsize, 16, **options)
    names = set(_kernel_names(p))
    if route != "through scratch":
        assert names - {"cycles_save"} == _kernels_of_the_passes(m, n, x.itemsize, options)
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


def _whole_word(x: np.ndarray, m: int, n: int) -> int:
    """The word of moves through whole words: 8 or 4 bytes, whichever every matrix of x (at a 16-byte aligned
    address) starts at a multiple of; 0 when neither."""
    every = 16 if x.size == m * n else math.gcd(16, m * n * x.itemsize)
    return 8 if every % 8 == 0 else 4 if every % 4 == 0 else 0


# Outside the fast tier's cover, the full tier leaves out the in-place forms' combinations that the interpreter took
# 20 s to 2.5 minutes over and whose kernels and flags other combinations reach (recorded with tests/paths.py,
# 2026-11-26): matrices over 16 KiB in the grid form, 130 x 33 of 4- and 16-byte elements in the peeled form, and
# in the trimmed form 16-byte matrices over 16 KiB on the routes that cut cycles.
LARGE_IN_THE_INTERPRETER = interpreted_bytes_under(16384)

BLOCK_ROUTES = {"whole cycles": {"min_chunk_bytes": 1, "segments": 1},
                "cut cycles, chunks in parts": {"min_chunk_bytes": 1, "segments": 10**6, "block": 2},
                "cut cycles, whole words in parts": {"min_chunk_bytes": 1, "segments": 10**6, "block": 4}}


@pytest.mark.parametrize("dtype, shape, route", grid(
    [np.uint8, np.float32, np.complex128],
    [(12, 4), (4, 12), (3, 16, 4), (2, 4, 24), (40, 8), (8, 40), (9, 3), (6, 1), (45, 9), (9, 45), (2, 36, 9),
     (99, 33), (33, 99)], list(BLOCK_ROUTES)))
def test_gpu_block_form_in_the_interpreter(dtype, shape, route, rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    p = plan(x.size // (m * n), m, n, x.itemsize, 16, small_bytes=0, blocks=BlockOptions(**BLOCK_ROUTES[route]))
    names = set(_kernel_names(p))
    source = blocks.chunk_source(blocks.block_form(m, n))
    whole = cycles.segments(source, max(2, len(source))).table[:, 1]  # the lengths of the cycles, none cut
    cut = route.startswith("cut") and max(whole, default=0) > 2  # that route's segments hold 2 chunks
    # chunks that are not a whole number of words move through whole words where every matrix is aligned to one
    chunk = n * x.itemsize if m > n else m * x.itemsize
    wide = _whole_word(x, m, n)
    packed = wide and chunk % wide != 0 and 4 * wide <= min(BLOCK_ROUTES[route].get("block", 1024) * 8,
                                                             1 << (chunk - 1).bit_length())
    suffix = "_packed" if packed else ""
    moves = {"copy_words", f"cycles_move{suffix}"} | ({f"cycles_save{suffix}"} if cut else set())
    assert names == {"square"} | (moves if len(whole) else set())
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


@pytest.mark.parametrize("dtype, shape, route", grid(
    [np.uint8, np.float16, np.float32, np.complex128], [(48, 80), (80, 48), (3, 24, 40), (21, 33)],
    list(BLOCK_ROUTES), full=LARGE_IN_THE_INTERPRETER))
def test_gpu_grid_form_in_the_interpreter(dtype, shape, route, rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    p = plan(x.size // (m * n), m, n, x.itemsize, 16, small_bytes=0, blocks=BlockOptions(**BLOCK_ROUTES[route]))
    squares = [s.launch for s in p.steps if s.launch.kernel.fn.__name__ in SQUARE_KERNELS]
    form = blocks.grid_form(m, n)
    assert squares and all(s.constexprs["GRID"] and s.ints[4] == form.across for s in squares)
    assert set(_kernel_names(p)) & {"cycles_move", "cycles_move_packed"}
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


@pytest.mark.parametrize("dtype, shape, cut", grid(
    [np.uint8, np.float32, np.complex128],
    together([((64, 25), 1), ((25, 64), 1), ((2, 64, 25), 1), ((96, 35), 3), ((35, 96), 3)])))
def test_gpu_trimmed_to_a_grid_in_the_interpreter(dtype, shape, cut, rng):
    """No other form fits (the peeled form's edge passes saved_bytes): the last `cut` columns (tall) or rows
    (wide) set aside leave sides with a shared factor, in grid or block form."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, _trim, plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    options = BlockOptions(min_chunk_bytes=4 * x.itemsize, saved_bytes=cut * max(m, n) * x.itemsize)
    trim = _trim(m, n, x.itemsize, options, alone=True)
    assert trim is not None and (trim.rows, trim.cols) == ((0, cut) if m > n else (cut, 0))
    p = plan(x.size // (m * n), m, n, x.itemsize, 16, small_bytes=0, blocks=options)
    names = _kernel_names(p)
    assert names.count("copy_2d") == 2 * (x.size // (m * n)) and "square" in names
    assert not {"inplace_columns", "inplace_rows"} & set(names)
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


@pytest.mark.parametrize("dtype, shape", grid([np.uint8, np.float16, np.float32, np.complex128],
                                             [(31, 17), (17, 31), (2, 35, 19), (41, 21)]))
def test_gpu_trimmed_on_both_sides_in_the_interpreter(dtype, shape, rng):
    """No form fits and no cut of one side leaves one (the peeled form's edge just passes saved_bytes): rows and
    columns cut so that both sides are multiples of one g, the edges saved, rows closed up, the rest in grid or
    block form, its rows spread out, the edges written back transposed."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, _form, _trim, plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    batch = x.size // (m * n)
    peel_edge = (max(m, n) % min(m, n)) * min(m, n) * x.itemsize
    options = BlockOptions(min_chunk_bytes=8 * x.itemsize, saved_bytes=peel_edge - 1)
    assert _form(m, n, x.itemsize, options) is None
    trim = _trim(m, n, x.itemsize, options, alone=True)
    assert trim is not None and trim.rows and trim.cols and math.gcd(*trim.inner) >= 8
    p = plan(batch, m, n, x.itemsize, 16, small_bytes=0, blocks=options)
    names = _kernel_names(p)
    assert names.count("copy_2d") == 4 * batch and names.count("zero_words") == 2 * batch
    assert "square" in names and not {"inplace_columns", "inplace_rows"} & set(names)
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


PEEL_ROUTES = {"whole cycles": {"min_chunk_bytes": 1, "segments": 1},
               "cut cycles, rows in many parts": {"min_chunk_bytes": 1, "segments": 10**6, "block": 2,
                                                  "restride_bytes": 8},
               "rows of 16 bytes": {"min_chunk_bytes": 1, "restride_bytes": 16},
               "cut cycles, whole words in parts": {"min_chunk_bytes": 1, "segments": 10**6, "block": 4,
                                                    "restride_bytes": 32}}


@pytest.mark.parametrize("dtype, shape, route", grid(
    [np.uint8, np.float16, np.float32, np.complex128],
    [(13, 4), (4, 13), (2, 9, 2), (3, 13, 4), (30, 7), (7, 30), (17, 16), (16, 17), (61, 7), (7, 61), (130, 33),
     (32, 7), (7, 32), (293, 17), (17, 293)], list(PEEL_ROUTES),
    full=lambda dtype, shape, route: not (shape == (130, 33) and np.dtype(dtype).itemsize >= 4)))
def test_gpu_peeled_form_in_the_interpreter(dtype, shape, route, rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, _peel_fits, _trim, plan, run_tensors

    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    m, n = shape[-2:]
    options = BlockOptions(**PEEL_ROUTES[route], trim_sizes=())
    p = plan(x.size // (m * n), m, n, x.itemsize, 16, small_bytes=0, blocks=options)
    names = set(_kernel_names(p))
    if not _peel_fits(blocks.peel_form(m, n), x.itemsize, options):
        # too many parts a row (its rows are the long side): trimmed to a form of its own where a cut fits (rows of
        # the short side), else three passes (293 x 17: no cut of one side leaves a shared factor, and a cut of both
        # would spread out rows of the long side, more parts a row than these routes allow)
        trimmed = _trim(m, n, x.itemsize, options, alone=True) is not None
        assert ("square" in names) == trimmed and ("inplace_rows" in names) != trimmed
    else:
        assert {"copy_2d", "zero_words", "square"} <= names
        assert bool(names & {"cycles_move", "cycles_move_packed"}) == (blocks.peel_form(m, n).front is not None)
        # rows of whole 16-byte runs restride in them; other rows of 1- and 2-byte elements as bytes through whole
        # words where every matrix is aligned to one
        wide = _whole_word(x, m, n)
        peel = blocks.peel_form(m, n)
        every = 16 if x.size == m * n else math.gcd(16, m * n * x.itemsize)
        front = peel.rows if peel.tall else peel.cols  # rows of this length move between these strides
        sides = (front, front, front + peel.edge)
        runs = every % 16 == 0 and options.restride_bytes >= 16 and all(v * x.itemsize % 16 == 0 for v in sides)
        packed = x.itemsize < min(wide, 4) and options.restride_bytes >= 4 * wide and not runs
        assert names & {"restride_rows", "restride_rows_packed"} == {
            "restride_rows_packed" if packed else "restride_rows"}
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


def test_block_options_are_checked():
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions

    with pytest.raises(ValueError, match="block must be a power of two"):
        BlockOptions(block=48)
    with pytest.raises(ValueError, match="segments must be at least 1"):
        BlockOptions(segments=0)
    with pytest.raises(ValueError, match="restride_bytes must be a power of two"):
        BlockOptions(restride_bytes=3000)
    with pytest.raises(ValueError, match="trim_sizes holds element sizes"):
        BlockOptions(trim_sizes=(3,))


def test_column_options_are_checked():
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import ColumnOptions

    with pytest.raises(ValueError, match="lag must be in"):
        ColumnOptions(pipelined=True, band_bytes=1 << 20, ring=2, lag=2)
    with pytest.raises(ValueError, match="band_bytes must be at least 1"):
        ColumnOptions(pipelined=True, band_bytes=0)
    with pytest.raises(ValueError, match="power of two"):
        ColumnOptions(pipelined=True, band_bytes=1 << 20, tile_rows=3)


@pytest.mark.parametrize("rows, cols, itemsize", [(32768, 8192, 4), (32768, 8191, 4), (8192, 32768, 2),
                                                  (1 << 24, 3, 4), (3, 1 << 24, 4), (65536, 65535, 16),
                                                  (65536, 16384, 1)])
def test_gpu_scratch_is_order_max_rows_cols(rows, cols, itemsize):
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import ROW_BAND_BYTES, BlockOptions, column_options, plan

    p = plan(1, rows, cols, itemsize, 16)
    names = set(_kernel_names(p))
    if "square" in names:
        # the block form: saved slots of cut cycles (at most twice the option's bound) and 16 bytes of cycle table
        # per chunk; the peeled form adds the edge (at most the same bound) and a flag per row part
        assert p.scratch_bytes <= 3 * BlockOptions().saved_bytes + 4 * (16 + 64) * max(rows, cols)
        # chunk cycles when the squares are several, rows restrided when an edge was peeled (65536x65535: one square
        # and an edge of one row, no cycles)
        assert names & {"cycles_move", "restride_rows", "restride_rows_packed"}
        p = plan(1, rows, cols, itemsize, 16, blocks=BlockOptions(enabled=False))
    o = column_options(itemsize)
    # the column slots (each at most a band, or one 128-byte column band of a tall matrix), or two row bands (one
    # row each for a wide one), plus two counters per column band
    slots = max(max(o.ring, 2) * max(o.band_bytes, rows * min(cols * itemsize, 128)),
                2 * max(ROW_BAND_BYTES, cols * itemsize))
    assert p.scratch_bytes <= slots + 8 * cols + 16
    assert set(_kernel_names(p)) & {"inplace_columns", "inplace_columns_banded"}


@pytest.mark.parametrize("rows, cols, itemsize, align, vec", [(32768, 8191, 4, 16, 4), (8191, 32768, 4, 16, 4),
                                                              (32768, 8191, 4, 8, 1), (32769, 8191, 4, 16, 1),
                                                              (8192, 4095, 16, 16, 2), (32768, 4095, 2, 16, 8),
                                                              (65536, 16383, 1, 16, None)])
def test_restride_moves_16_byte_runs_where_rows_allow(rows, cols, itemsize, align, vec):
    """Rows of the peeled form whose starts and length are whole 16-byte runs (base aligned to 16) restride in
    16-byte accesses, other rows of bytes through whole words (no VEC)."""
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, plan

    restride = [s.launch for s in plan(1, rows, cols, itemsize, align, blocks=BlockOptions(trim_sizes=())).steps
                if s.launch.kernel.fn.__name__.startswith("restride_rows")]
    assert len(restride) == 1
    assert restride[0].constexprs.get("VEC") == vec


@pytest.mark.parametrize("rows, cols, itemsize, align, vec", [(8192, 4095, 16, 16, 2), (8192, 4096, 16, 8, 1),
                                                              (32768, 8192, 4, 16, 2), (32768, 8188, 4, 16, 2),
                                                              (8192, 4095, 8, 16, 1)])
def test_chunk_cycles_move_16_byte_runs_where_chunks_allow(rows, cols, itemsize, align, vec):
    """Chunks of whole 16-byte runs, in a matrix aligned to 16, move in 16-byte accesses (VEC words of 8 bytes)."""
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import plan

    moves = [s.launch for s in plan(1, rows, cols, itemsize, align).steps
             if s.launch.kernel.fn.__name__ in ("cycles_move", "cycles_save")]
    assert moves and all(launch.constexprs["VEC"] == vec for launch in moves)


TRIM_ROUTES = {"whole cycles": {"min_chunk_bytes": 1, "segments": 1, "trim_sizes": (1, 2, 4, 8, 16)},
               "cut cycles, rows in many parts": {"min_chunk_bytes": 1, "segments": 10**6, "block": 2,
                                                  "restride_bytes": 32, "trim_sizes": (1, 2, 4, 8, 16)}}


@pytest.mark.parametrize("dtype, shape, route", grid(
    [np.uint8, np.float16, np.float32, np.complex128],
    [(70, 17), (17, 70), (100, 31), (17, 64), (2, 40, 19), (2, 19, 40), (31, 100), (64, 17)], list(TRIM_ROUTES),
    full=lambda dtype, shape, route: route == "whole cycles" or LARGE_IN_THE_INTERPRETER(dtype, shape)))
def test_gpu_trimmed_form_in_the_interpreter(dtype, shape, route, rng):
    """The shorter side cut to a multiple of 16 (edge saved, rows closed up or spread out), the rest in its block or
    peeled form, the edge written back transposed."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BlockOptions, _trim, plan, run_tensors

    m, n, batch = shape[-2], shape[-1], int(np.prod(shape[:-2], dtype=np.int64))
    options = BlockOptions(**TRIM_ROUTES[route])
    trim = _trim(m, n, np.dtype(dtype).itemsize, options)
    assert trim is not None and (trim.rows, trim.cols) == ((0, n % 16) if m > n else (m % 16, 0))
    p = plan(batch, m, n, np.dtype(dtype).itemsize, 16, small_bytes=0, blocks=options)
    names = _kernel_names(p)
    assert names.count("copy_2d") >= 2 * batch and "square" in names
    x = random_bits(shape, dtype, rng)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    run_tensors(p, torch.from_numpy(x.reshape(-1).view(np.uint8)))
    assert_bits_equal(x.reshape(want.shape), want)


@pytest.mark.parametrize("rows, cols, itemsize, trimmed", [(65536, 16383, 1, True), (16383, 65536, 1, True),
                                                           (65536, 16384, 1, False), (32768, 4095, 2, True),
                                                           (32768, 4095, 4, False), (65536, 16000, 1, False),
                                                           (40000, 16383, 1, False)])
def test_trimmed_form_is_taken_for_odd_sides_of_its_sizes(rows, cols, itemsize, trimmed):
    """With trim_sizes (1, 2), bytes and halves take the trimmed form where a side is not a multiple of 16 and the
    cut rest has a form of its own (65536 x 16000: a multiple of 16 already; 40000 x 16368 has no form that fits);
    by default nothing does."""
    pytest.importorskip("triton")
    from cornerturn.engine.rectangular import BLOCK_OPTIONS, BlockOptions, _trim, plan

    options = BlockOptions(trim_sizes=(1, 2))
    assert (_trim(rows, cols, itemsize, options) is not None) == trimmed
    assert _trim(rows, cols, itemsize, BLOCK_OPTIONS) is None
    if trimmed:  # two edges and their restride flags: O(max(M, N)) plus a constant, not O(M N)
        assert (plan(1, rows, cols, itemsize, 16, blocks=options).scratch_bytes
                <= 2 * options.saved_bytes + 64 * max(rows, cols))
