"""Every GPU kernel path once on small shapes, checked bit-exact; run under compute-sanitizer by gpu_check.py.

    python3 scripts/gpu_paths.py [SECTION ...]

runs the named sections (transposes, words, narrow, split, gather, inplace, permute), all where none is named, and
prints each one's wrong results and seconds as it ends (most of the time goes to compiling the kernels)."""

from __future__ import annotations

import sys
import time

import torch

import cornerturn
from cornerturn.engine import permute as engine_permute
from cornerturn.engine import plan as engine_plan
from cornerturn.problem import Permutation, canonical, canonical_permutation

cases = []
for dtype in (torch.int8, torch.float16, torch.float32, torch.float64, torch.complex128):
    cases += [((31, 33), dtype), ((3, 70, 45), dtype), ((1000, 3), dtype), ((3, 1000), dtype),
              ((64, 36), dtype), ((2, 40, 132), dtype),  # these two: rows of whole 32-bit words
              ((300, 301), dtype), ((301, 272), dtype), ((272, 301), dtype)]  # odd sides: configs.UNALIGNED_TILES
cases += [((4097, 4099), torch.int8), ((4100, 4097), torch.int8)]  # input rows funnel-shifted, output either way


def check(x) -> bool:
    got = cornerturn.transpose(x)
    want = x.transpose(-1, -2).contiguous()
    if x.is_complex():
        got, want = torch.view_as_real(got), torch.view_as_real(want)
    return torch.equal(got.reshape(-1).view(torch.int8), want.reshape(-1).view(torch.int8))


IN_PLACE_DTYPES = (torch.int8, torch.float16, torch.float32, torch.float64, torch.complex128)


def wrong_in_place(shapes, label: str, dtypes=IN_PLACE_DTYPES) -> int:
    """transpose_ of each shape in each element size against torch; the number of wrong results."""
    wrong = 0
    for dtype in dtypes:
        for shape in shapes:
            x = torch.randn(*shape, device="cuda").to(dtype) if dtype != torch.int8 else \
                torch.randint(-128, 127, shape, dtype=dtype, device="cuda")
            want = x.transpose(-1, -2).contiguous()
            y = cornerturn.transpose_(x)
            if not torch.equal(torch.view_as_real(y) if y.is_complex() else y,
                               torch.view_as_real(want) if want.is_complex() else want):
                wrong += 1
                print("WRONG in place", label, shape, dtype)
    return wrong



def bits(t: torch.Tensor) -> torch.Tensor:
    return (torch.view_as_real(t) if t.is_complex() else t).contiguous().reshape(-1).view(torch.int8)


def wrong_result(make_plan, wide: bool, x: torch.Tensor, want: torch.Tensor) -> bool:
    """Whether the plan that make_plan() builds (with 64-bit offsets where `wide`) gets `want` (the result's bytes)
    wrong from x or writes past it."""
    engine_plan.WIDE_FROM = 0 if wide else 2**31
    plan = make_plan()
    engine_plan.WIDE_FROM = 2**31
    out = torch.full((want.numel() + 64,), -91, dtype=torch.int8, device="cuda")
    for x_offset, out_offset, launch in plan.pieces:
        launch.run_pointers(x.data_ptr() + x_offset, out.data_ptr() + out_offset,
                            torch.cuda.current_stream().cuda_stream, 0)
    return not (torch.equal(out[:want.numel()], want) and bool((out[want.numel():] == -91).all()))


def wrong_plan(perm, word: int, config, wide: bool, x: torch.Tensor, want: torch.Tensor) -> bool:
    """wrong_result for the engine's plan of the permutation `perm` with `config`."""
    return wrong_result(lambda: engine_permute.build(perm, word, config), wide, x, want)


def wrong_transpose(problem, word: int, config, wide: bool, x: torch.Tensor, want: torch.Tensor) -> bool:
    """wrong_result for the engine's plan of the transpose `problem` with `config`."""
    return wrong_result(lambda: engine_plan.build(problem, word, config), wide, x, want)


def section_transposes() -> int:
    """Every transpose plan the planner makes, through cornerturn.transpose: 64-bit offsets, tiles in bands."""
    bad = 0
    defaults = engine_plan.BAND_FROM, engine_plan.BAND_BYTES
    for wide, band_bytes in ((False, None), (True, None), (False, 1), (False, 40000)):
        engine_plan.WIDE_FROM = 0 if wide else 2**31
        # tiles taken in bands: of one tile row, then of a few (the last band shorter), wherever rows are off the
        # sectors
        engine_plan.BAND_FROM, engine_plan.BAND_BYTES = defaults if band_bytes is None else (0, band_bytes)
        cornerturn.api._backend_plan.cache_clear()
        cornerturn.engine.choose.cache_clear()
        for shape, dtype in cases:
            base = torch.randn(*shape, device="cuda").to(dtype) if dtype != torch.int8 else \
                torch.randint(-128, 127, shape, dtype=dtype, device="cuda")
            for x in (base, base[..., ::2], base.transpose(-1, -2), base[..., :1, :], base[..., 1:]):
                if not check(x):
                    bad += 1
                    print("WRONG", wide, band_bytes, shape, dtype, tuple(x.shape), x.stride())
    engine_plan.BAND_FROM, engine_plan.BAND_BYTES = defaults
    return bad


def section_words() -> int:
    bad = 0
    # the words kernel's every way, whatever the table chooses: rows read as words or funnel-shifted; output rows
    # written as words, shifted into place (loose elements one by one) or element by element; batches
    from cornerturn.engine.configs import WordsConfig

    for dtype in (torch.int8, torch.float16):
        for shape in ((300, 301), (301, 300), (301, 302), (304, 300), (3, 129, 67), (2, 64, 36)):
            x = (torch.randint(-128, 127, shape, dtype=torch.int8, device="cuda").view(dtype) if dtype == torch.int8
                 else torch.randn(*shape, device="cuda").to(dtype))
            size = x.element_size()
            problem = canonical(tuple(x.shape), tuple(st * size for st in x.stride()), size)
            want = x.transpose(-1, -2).contiguous()
            for config in (WordsConfig(64, 16, 4, "shifted"), WordsConfig(32, 8, 2, "items"), WordsConfig(128, 32, 8),
                           WordsConfig(64, 32, 4, "joined")):
                out = torch.full_like(want, 0).view(torch.int8).fill_(-91).view(dtype)
                for x_offset, out_offset, launch in engine_plan.build(problem, 4, config).pieces:
                    launch.run_pointers(x.data_ptr() + x_offset, out.data_ptr() + out_offset,
                                        torch.cuda.current_stream().cuda_stream, 0)
                if not torch.equal(out.view(torch.int8), want.view(torch.int8)):
                    bad += 1
                    print("WRONG words", shape, dtype, config)
            # x and out starting 1 to 3 bytes past a whole word (slices): the kernel told the offsets; nothing else
            # of the output buffer written
            for x_off, out_off in ((1, 0), (0, 3), (2, 2), (3, 1)):
                x_off, out_off = x_off // size * size, out_off // size * size
                flat = torch.empty(x.numel() * size + 8, dtype=torch.int8, device="cuda")
                moved = flat[x_off:x_off + x.numel() * size].view(dtype).view(x.shape)
                moved.copy_(x)
                buf = torch.full((want.numel() * size + 8,), -91, dtype=torch.int8, device="cuda")
                for config in (WordsConfig(64, 16, 4, "shifted"), WordsConfig(32, 8, 2, "items"),
                               WordsConfig(64, 32, 4, "joined")):
                    for x_offset, out_offset, launch in engine_plan.build(problem, 4, config,
                                                                          offsets=(x_off, out_off)).pieces:
                        launch.run_pointers(moved.data_ptr() + x_offset, buf.data_ptr() + out_off + out_offset,
                                            torch.cuda.current_stream().cuda_stream, 0)
                    got = buf[out_off:out_off + want.numel() * size]
                    rest = torch.cat([buf[:out_off], buf[out_off + want.numel() * size:]])
                    if not (torch.equal(got, want.reshape(-1).view(torch.int8)) and bool((rest == -91).all())):
                        bad += 1
                        print("WRONG words past a word", shape, dtype, config, x_off, out_off)
    return bad


def section_narrow() -> int:
    bad = 0
    # transpose_narrow: output rows of 2 to 64 bytes built as whole words, programs of 64 and 1,024 words (a partial
    # last one, words and bytes past the last vector one by one), batches of whole-word outputs, rows funnel-shifted,
    # 64-bit offsets; transpose_interleave on 2 to 31 rows (of bytes and 2-byte elements) the same way, and on batches
    # whose outputs start inside words (words shifted into place, the shared ones byte by byte); nothing past the output
    # written
    from cornerturn.engine.configs import InterleaveConfig, NarrowConfig, interleave_ok, narrow_ok

    for dtype, shape in ((torch.int8, (3, 7001)), (torch.int8, (5, 4097)), (torch.int8, (2, 4, 1001)),
                         (torch.int8, (64, 333)), (torch.float16, (3, 3001)), (torch.float16, (2, 2, 1500)),
                         (torch.int8, (2, 7001)), (torch.int8, (4, 4097)), (torch.float16, (4, 3001)),
                         (torch.float16, (3, 2, 1501)), (torch.int8, (9, 4099)), (torch.int8, (31, 2003)),
                         (torch.int8, (2, 12, 1001)), (torch.int8, (5, 3, 1001)), (torch.int8, (6, 2, 1001)),
                         (torch.int8, (4, 9, 1003)), (torch.int8, (3, 31, 2001)), (torch.float16, (5, 3, 1001)),
                         (torch.float16, (9, 2001)), (torch.float16, (4, 9, 1001)), (torch.float16, (2, 6, 1001))):
        x = torch.randint(-128, 127, (*shape[:-1], shape[-1] * (2 if dtype == torch.float16 else 1)), dtype=torch.int8,
                          device="cuda").view(dtype)
        size = x.element_size()
        problem = canonical(tuple(x.shape), tuple(st * size for st in x.stride()), size)
        want = x.transpose(-1, -2).contiguous().reshape(-1).view(torch.int8)
        configs = (NarrowConfig(64, 4), NarrowConfig(1024, 4)) if narrow_ok(problem) else ()
        if interleave_ok(problem):  # transpose_interleave: programs of 16, 128 and 512 words a row
            configs += (InterleaveConfig(16, 2), InterleaveConfig(128, 4), InterleaveConfig(512, 4))
        for config in configs:
            for wide in (False, True):
                if wrong_transpose(problem, 4, config, wide, x, want):
                    bad += 1
                    print("WRONG narrow", shape, dtype, config, wide)
    return bad


def section_split() -> int:
    bad = 0
    # transpose_split: a few columns whose rows lie end to end, one matrix or a batch of them with gaps (matrices
    # starting inside words among them), output rows at whole words or shifted into place (edge bytes one by one), a
    # partial last program, 64-bit offsets, multiples of 8 columns; nothing past the output written
    from cornerturn.engine.configs import SplitConfig, split_ok

    for dtype, shape, keep in ((torch.int8, (7001, 3), 7001), (torch.int8, (4097, 5), 4097),
                               (torch.int8, (4, 1010, 3), 1001), (torch.int8, (3, 1010, 7), 1003),
                               (torch.int8, (8001, 31), 8001), (torch.int8, (2, 4100, 4), 4096),
                               (torch.float16, (3001, 5), 3001), (torch.float16, (3, 1005, 3), 1001),
                               (torch.float16, (2001, 16), 2001), (torch.int8, (20001, 2), 20001),
                               # multiples of 8 columns, each matrix's output a multiple of 16 bytes, rows shifted
                               (torch.int8, (2002, 8), 2002), (torch.int8, (1001, 16), 1001),
                               (torch.float16, (1001, 8), 1001), (torch.int8, (3, 1010, 8), 1002)):
        base = torch.randint(-128, 127, (*shape[:-1], shape[-1] * (2 if dtype == torch.float16 else 1)),
                             dtype=torch.int8, device="cuda").view(dtype)
        x = base[..., :keep, :] if len(shape) == 3 else base[:keep]
        size = x.element_size()
        problem = canonical(tuple(x.shape), tuple(st * size for st in x.stride()), size)
        assert split_ok(problem), problem
        want = x.transpose(-1, -2).contiguous().reshape(-1).view(torch.int8)
        for config in (SplitConfig(32, 1), SplitConfig(256, 4), SplitConfig(512, 4)):
            for wide in (False, True):
                if wrong_transpose(problem, 4, config, wide, x, want):
                    bad += 1
                    print("WRONG split", shape, keep, dtype, config, wide)
    return bad


def section_gather() -> int:
    bad = 0
    # transpose_gather: batches of small matrices as one flat run (dividing by multiplying, and with 64-bit offsets by
    # dividing), a partial last program, strided columns, 16-byte elements as two words, 1- and 2-byte elements in their
    # own words (engine.configs.short_rows); nothing past the output written
    from cornerturn.engine.configs import GatherConfig, word_size

    for dtype, shape in ((torch.float32, (1001, 5, 4)), (torch.float64, (333, 8, 34)), (torch.complex128, (257, 5, 5)),
                         (torch.float32, (7, 3, 71)), (torch.int32, (3, 1, 2, 9)), (torch.int8, (1001, 5, 7)),
                         (torch.float16, (333, 3, 12)), (torch.uint8, (7, 29, 43))):
        base = torch.randint(-128, 127, (*shape[:-1], 2 * shape[-1] * torch.empty((), dtype=dtype).element_size()),
                             dtype=torch.int8, device="cuda").view(dtype)
        for x in (base[..., :shape[-1]], base[..., ::2]):
            size = x.element_size()
            problem = canonical(tuple(x.shape), tuple(st * size for st in x.stride()), size)
            want = x.transpose(-1, -2).contiguous().reshape(-1).view(torch.int8)
            for config in (GatherConfig(32, 1), GatherConfig(2048, 4)):
                for wide in (False, True):
                    if wrong_transpose(problem, word_size(problem), config, wide, x, want):
                        bad += 1
                        print("WRONG gather", shape, dtype, tuple(x.stride()), config, wide)
    return bad


def section_inplace() -> int:
    """In place: squares (tile pairs one by one and in blocks), rectangles through scratch and in their forms."""
    bad = 0
    # sides off and on multiples of 16, one tile pair and many (odd sides of 1- and 2-byte elements with inner pairs
    # read through words: 201 and 1001 with int8's tiles of 64, 515 and 3001 with float16's of 128; sides that are
    # multiples of 2, 4 and 8 but not 16, inner pairs unmasked in words of that many elements: 70, 300, 1000)
    squares = [(33, 33), (2, 70, 70), (64, 64), (2, 201, 201), (1001, 1001), (2, 515, 515), (3001, 3001), (2, 300, 300),
               (1000, 1000)]
    bad += wrong_in_place(squares, "square")
    # the same with their tile pairs numbered in blocks (the rule for large squares, made to take every square)
    from cornerturn.engine import inplace as engine_inplace

    group_rule = engine_inplace.PAIR_GROUP_FROM, engine_inplace.PAIR_GROUP_FROM_ELSE
    engine_inplace.PAIR_GROUP_FROM, engine_inplace.PAIR_GROUP_FROM_ELSE = {}, 0
    engine_inplace.square_launch.cache_clear()
    bad += wrong_in_place(squares, "square, pairs in blocks")
    engine_inplace.PAIR_GROUP_FROM, engine_inplace.PAIR_GROUP_FROM_ELSE = group_rule
    engine_inplace.square_launch.cache_clear()
    bad += section_inplace_rules()

    from cornerturn.engine import rectangular

    by_size = rectangular.column_options
    banded = rectangular.ColumnOptions(pipelined=False, band_bytes=1 << 16)
    ring = rectangular.ColumnOptions(pipelined=True, band_bytes=1 << 12, ring=2, group=1)
    # through scratch, the passes, banded rows, then columns a launch per band, and a pipelined ring that wraps
    for small, row_words, columns in ((16 << 20, 8192, None), (0, 8192, None), (0, 16, None), (0, 8192, banded),
                                      (0, 8192, ring)):
        rectangular.SMALL_BYTES, rectangular.ROW_WORDS = small, row_words
        rectangular.column_options = by_size if columns is None else (lambda _, o=columns: o)
        bad += wrong_in_place([(33, 70), (2, 64, 24), (300, 7)], f"rectangular {small} {row_words} {columns}")
    rectangular.column_options = by_size
    # the block form, the peeled form (edges of 3 rows or columns, or 32 with a square front) and the trimmed form:
    # whole cycles held in registers, then cycles cut into saved segments, chunks in parts, rows restrided in small
    # items
    rectangular.SMALL_BYTES = 0
    # trimmed (a side cut to a multiple of 16 first) for every element size
    every_size = (1, 2, 4, 8, 16)
    for blocks in (rectangular.BlockOptions(min_chunk_bytes=1, segments=1, trim_sizes=every_size),
                   rectangular.BlockOptions(min_chunk_bytes=1, segments=10**6, block=8, restride_bytes=64,
                                            trim_sizes=every_size)):
        rectangular.BLOCK_OPTIONS = blocks
        bad += wrong_in_place([(96, 32), (32, 96), (2, 40, 8), (99, 32), (32, 99), (96, 64), (3, 61, 12), (130, 33),
                               (33, 130), (32, 7), (7, 32), (2, 32, 7), (70, 17), (17, 70), (2, 40, 19), (300, 61),
                               (48, 80), (80, 48), (2, 36, 60)],
                              f"block, grid, peeled or trimmed form {blocks}")
    # trimmed to a grid: an edge of one column (row) too small for the peeled form's edge of 14 rows (columns)
    for dtype in IN_PLACE_DTYPES:
        itemsize = torch.empty((), dtype=dtype).element_size()
        rectangular.BLOCK_OPTIONS = rectangular.BlockOptions(min_chunk_bytes=1, saved_bytes=64 * itemsize)
        bad += wrong_in_place([(64, 25), (25, 64), (2, 64, 25)], f"trimmed to a grid {dtype}", (dtype,))
        # trimmed on both sides: no cut of one side leaves a form, and the peeled form's edge just passes saved_bytes
        for shape in [(31, 17), (17, 31), (2, 35, 19)]:
            short, long = sorted(shape[-2:])
            rectangular.BLOCK_OPTIONS = rectangular.BlockOptions(min_chunk_bytes=8 * itemsize,
                                                                 saved_bytes=(long % short) * short * itemsize - 1)
            bad += wrong_in_place([shape], f"trimmed on both sides {dtype}", (dtype,))
    rectangular.BLOCK_OPTIONS = rectangular.BlockOptions()
    # odd squares read through words (transpose_square_funnel) in the grid, peeled and trimmed forms at default options
    bad += wrong_in_place([(403, 1209), (2, 806, 1209), (1004, 1001), (1001, 1004), (2011, 1001)],
                          "odd squares in forms")
    rectangular.SMALL_BYTES = 16 << 20
    return bad


def section_inplace_rules() -> int:
    """The size rules for 1- and 2-byte squares made to take the small squares of section_inplace: 64-bit offsets
    everywhere (odd 2-byte sides then split instead of the funnel), tiles of 128 for every split 2-byte square,
    2 warps for split byte squares in whole words, and the funnel for bytes two off a word."""
    from cornerturn.engine import inplace as engine_inplace

    squares = [(2, 70, 70), (2, 201, 201), (1001, 1001), (2, 515, 515), (3001, 3001), (2, 300, 300), (1000, 1000),
               (1002, 1002)]
    saved = (engine_plan.WIDE_FROM, engine_inplace.LARGE_SQUARE_FROM, engine_inplace.MID_BYTES_TWO_WARPS,
             engine_inplace.FUNNEL_TWO_OFF_FROM)
    bad = 0
    for two_off_from in (1 << 62, 0):  # bytes two off a word split, then through the funnel
        engine_plan.WIDE_FROM = 0
        engine_inplace.LARGE_SQUARE_FROM = {1: 1 << 62, 2: 0}
        engine_inplace.MID_BYTES_TWO_WARPS, engine_inplace.FUNNEL_TWO_OFF_FROM = 0, two_off_from
        engine_inplace.square_launch.cache_clear()
        bad += wrong_in_place(squares, f"square, byte rules forced ({two_off_from})",
                              (torch.int8, torch.float16, torch.bfloat16))
    (engine_plan.WIDE_FROM, engine_inplace.LARGE_SQUARE_FROM, engine_inplace.MID_BYTES_TWO_WARPS,
     engine_inplace.FUNNEL_TWO_OFF_FROM) = saved
    engine_inplace.square_launch.cache_clear()
    return bad


def section_permute() -> int:
    bad = 0
    # general permutations: tiles (2-byte loads widened; every candidate autotune measures, packed ones too), bytes in
    # words (permute_words: output in words and element by element, rows at words and funnel-shifted, B cut or in
    # segments), units contiguous on both sides moved whole (permute_runs) with the planner's block, with blocks of one
    # or a few units or of pieces of one, with units running on over the next axes, and with 64-bit offsets, units in
    # shifted words (permute_runs_words), and output rows interleaved (permute_interleave); strided, reversed, and one
    # element past a whole word
    for shape, axes, dtype in (((5, 7, 9, 11), (3, 1, 0, 2), torch.float32), ((40, 30, 36), (1, 0, 2), torch.int8),
                               ((17, 3, 6, 18), (2, 1, 3, 0), torch.int8), ((20, 3, 6, 19), (2, 1, 3, 0), torch.int8),
                               ((6, 7, 16, 20), (1, 0, 3, 2), torch.int8), ((6, 7, 9, 20), (1, 0, 3, 2), torch.int8),
                               ((3, 2, 3, 2, 5, 17), (4, 0, 1, 2, 5, 3), torch.int8),
                               ((3, 9, 16, 11, 5), (1, 3, 0, 4, 2), torch.int8),
                               ((4, 4, 2, 8, 12), (2, 1, 4, 3, 0), torch.int8),
                               ((32, 3, 6, 20), (2, 1, 3, 0), torch.int8),  # words told: rows 2 words, runs 8 apart
                               ((3, 16, 6, 16, 8), (0, 2, 4, 1, 3), torch.int8),  # words: A 2 axes, B 3 in 2 segments
                               ((124, 3, 33), (1, 0, 2), torch.int8), ((5, 40, 7), (1, 0, 2), torch.int8),
                               ((9, 33, 65), (1, 0, 2), torch.int32), ((6, 5, 7, 40), (2, 0, 1, 3), torch.float16),
                               ((3, 4, 5, 6, 2, 33), (4, 2, 0, 3, 1, 5), torch.complex128),
                               ((6, 9, 8, 16), (1, 3, 0, 2), torch.int16),
                               ((11, 4, 5, 10, 2), (1, 3, 2, 4, 0), torch.float16),
                               ((3, 4, 5, 2, 7, 5), (3, 0, 2, 1, 5, 4), torch.uint8),  # packing changes side A
                               # 2-byte tiles of three axes a side, dividing by multiplying: shifts of 0 and 1
                               ((2, 3, 5, 7, 9, 11), (1, 3, 5, 4, 2, 0), torch.float16),
                               ((2, 9, 4, 3, 6, 17), (1, 5, 3, 2, 0, 4), torch.int16),
                               ((4, 7, 5, 8), (2, 1, 3, 0), torch.float32), ((7, 2, 6, 8), (0, 3, 2, 1), torch.int16),
                               # side A gone on past a short last tile (EXTEND_A): two and three axes
                               ((33, 3, 40), (2, 1, 0), torch.int64), ((269, 3, 130), (2, 1, 0), torch.bfloat16),
                               ((70, 3, 5, 64), (3, 2, 1, 0), torch.float32),
                               # 4- and 8-byte tiles that cannot move vectors, from the bases of UNALIGNED_TILES
                               ((130, 3, 33), (2, 1, 0), torch.float32), ((65, 3, 33), (2, 1, 0), torch.float64),
                               # output rows interleaved (permute_interleave): whole words, shifted into place, 2-byte
                               # elements, 2 and 31 rows, four more axes
                               ((12, 4, 3, 16), (2, 1, 3, 0), torch.uint8), ((5, 2, 7, 3), (2, 1, 3, 0), torch.int16),
                               ((31, 3, 4, 13), (2, 1, 3, 0), torch.uint8), ((2, 6, 3, 14), (2, 1, 3, 0), torch.uint8),
                               ((3, 4, 2, 3, 7, 5), (1, 3, 0, 2, 5, 4), torch.uint8),
                               # words where the first sides are refused (RUN_TO_B_REFUSED); units of 1,025 bytes in
                               # shifted words (SHIFTED_LONG_UNIT)
                               ((3, 20, 10, 6), (0, 3, 2, 1), torch.int8), ((3, 17, 9, 6), (0, 3, 2, 1), torch.int8),
                               ((3, 2, 1025), (1, 0, 2), torch.uint8),
                               # units of an odd number of 2-byte elements moved whole (ODD_RUN_MIN)
                               ((12, 4, 43), (1, 0, 2), torch.float16), ((3, 40, 5, 61), (2, 1, 0, 3), torch.int16),
                               # batches of small blocks permuted inside (GATHER_BLOCK_BYTES): permute_gather
                               ((26, 8, 3, 5, 15), (3, 1, 0, 4, 2), torch.float32),
                               ((6, 5, 4, 3, 4, 2), (1, 0, 2, 3, 5, 4), torch.complex128)):
        size = torch.empty((), dtype=dtype).element_size()
        n = torch.Size(shape).numel() * size
        flat = torch.randint(-128, 127, (n + size,), dtype=torch.int8, device="cuda")
        full = flat[:n].view(dtype).view(shape)
        for x in (full, full.flip(0), full[::2], flat[size:].view(dtype).view(shape)):
            want = x.permute(axes).contiguous()
            if not torch.equal(bits(cornerturn.permute_dims(x, axes)), bits(want)):
                bad += 1
                print("WRONG permute", shape, axes, dtype, tuple(x.stride()), x.data_ptr() % 16)
        perm = canonical_permutation(shape, tuple(st * size for st in full.stride()), size, axes)
        if not isinstance(perm, Permutation):
            continue
        word = engine_permute.widest_word(perm)  # the tiles' and permute_runs' word
        if engine_permute.words_ok(perm):  # bytes in words: small tiles, 64-bit offsets
            want = bits(full.permute(axes))
            for config, wide in ((engine_permute.PermuteWordsConfig(4, 2, 1), False),  # runs along A shifted into place
                                 (engine_permute.PermuteWordsConfig(4, 2, 1, "items"), False),  # or element by element
                                 (engine_permute.PermuteWordsConfig(8, 4, 2), True), (None, False)):
                if wrong_plan(perm, 4, config, wide, full, want):
                    bad += 1
                    print("WRONG words", shape, axes, config, wide)
        if engine_permute.interleave_fit(perm):  # output rows interleaved: programs of 32 lanes, 64-bit offsets
            want = bits(full.permute(axes))
            for config, wide in ((engine_permute.PermuteInterleaveConfig(32, 1), False),
                                 (engine_permute.PermuteInterleaveConfig(), True)):
                if wrong_plan(perm, 4, config, wide, full, want):
                    bad += 1
                    print("WRONG interleave", shape, axes, dtype, config, wide)
        unit_bytes = engine_permute.element_bytes(perm)
        one = max(4, 1 << ((unit_bytes + 6) // 4 - 1).bit_length())  # the least block that holds a unit
        if engine_permute.shifted_runs_fit(perm, one):  # units in shifted words: one a program, more, 64-bit offsets
            want = bits(full.permute(axes))
            for config, wide in ((engine_permute.ShiftedRunsConfig(one, 1), False),
                                 (engine_permute.ShiftedRunsConfig(2 * one, 2), False),
                                 (engine_permute.ShiftedRunsConfig(), True)):
                if wrong_plan(perm, 4, config, wide, full, want):
                    bad += 1
                    print("WRONG shifted runs", shape, axes, dtype, config, wide)
        if engine_permute.gather_fit(perm):  # the output as one flat run: programs of 128 words, 64-bit offsets
            want = bits(full.permute(axes))
            for config, wide in ((engine_permute.PermuteGatherConfig(128, 4), False),
                                 (engine_permute.PermuteGatherConfig(), True)):
                if wrong_plan(perm, word, config, wide, full, want):
                    bad += 1
                    print("WRONG gather", shape, axes, dtype, config, wide)
        if engine_permute.has_unit(perm, word):
            unit = engine_permute.element_bytes(perm) // word
            want = bits(full.permute(axes))
            a_unit, four_units = max(16, 1 << (unit - 1).bit_length()), max(64, 4 << (unit - 1).bit_length())
            for config, wide in ((engine_permute.RunsConfig(16, 1), False),  # a unit of more words in pieces
                                 (engine_permute.RunsConfig(a_unit, 1), False),
                                 (engine_permute.RunsConfig(four_units, 2), False),
                                 (engine_permute.RunsConfig(four_units, 2, span=True), False),
                                 (engine_permute.RunsConfig(four_units, 2, span=True), True),
                                 (engine_permute.RUNS_CONFIG, True)):
                if wrong_plan(perm, word, config, wide, full, want):
                    bad += 1
                    print("WRONG runs", shape, axes, dtype, config, wide)
        want = bits(full.permute(axes))
        for cand_word, config in engine_permute.candidates(perm):  # what autotune measures: packed tiles, 4 and 8 warps
            for wide in (False, True):
                if wrong_plan(perm, cand_word, config, wide, full, want):
                    bad += 1
                    print("WRONG candidate", shape, axes, dtype, cand_word, config, wide)
    return bad


SECTIONS = {"transposes": section_transposes, "words": section_words, "narrow": section_narrow,
            "split": section_split, "gather": section_gather, "inplace": section_inplace,
            "inplace_rules": section_inplace_rules,
            "permute": section_permute}

chosen = sys.argv[1:] or list(SECTIONS)
unknown = [name for name in chosen if name not in SECTIONS]
if unknown:
    sys.exit(f"unknown sections {unknown}: the sections are {', '.join(SECTIONS)}")
bad = 0
for name in chosen:
    started = time.time()
    wrong = SECTIONS[name]()
    torch.cuda.synchronize()
    print(f"{name}: {wrong} wrong, {time.time() - started:.0f} s", flush=True)
    bad += wrong
print("paths checked, wrong:", bad)
sys.exit(1 if bad else 0)
