"""The engine's plan for a canonical problem: a configuration, and the launches that carry it out."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..problem import Problem
from .configs import (
    NARROW_MAX_ROW_BYTES,
    OUT_MODES,
    CopyConfig,
    GatherConfig,
    InterleaveConfig,
    NarrowConfig,
    PairsConfig,
    SplitConfig,
    TileConfig,
    WordsConfig,
    _pow2_at_least,
    heuristic,
    interleave_ok,
    narrow_ok,
    narrow_tile,
    outputs_shifted,
    split_ok,
    split_shifted,
)
from .launch import Launch, inline_asm

Config = (TileConfig | CopyConfig | PairsConfig | WordsConfig | NarrowConfig | InterleaveConfig | GatherConfig
          | SplitConfig)

WIDE_FROM = 2**31  # offsets (in words) from which the kernels compute in 64 bits
MAX_ALIGN = 16  # the most the kernels are told of their strides' divisibility (words): 16 bytes and more


SECTOR = 32  # bytes: the unit in which the L2 reads DRAM
BAND_FROM = 16 << 20  # a column of tiles reading more input bytes than this is taken in bands (H100, docs/engine.md)
BAND_BYTES = 2 << 20  # the input bytes a band's column of tiles reads


def band_of(tiles_r: int, block_r: int, piece_bytes: int, row_stride: int) -> int:
    """Tile rows a band holds, where a tile reads `piece_bytes` of each of its `block_r` rows, rows `row_stride`
    bytes apart. Programs take tiles down a column of tiles, so a tile meets the one to its right a column later.
    Where rows do not start at whole sectors the two read one sector of each row in common; where a column reads
    more than BAND_FROM bytes (tall matrices) that sector has left the L2 by then and is read twice. There tiles
    go in bands of BAND_BYTES a column; elsewhere down whole columns (bands cost a point or two there)."""
    column = block_r * max(1, piece_bytes)
    if tiles_r * column <= BAND_FROM or row_stride % SECTOR == 0:
        return tiles_r
    return max(1, min(tiles_r, BAND_BYTES // column))


def alignment(*strides: int) -> int:
    """The largest power of two up to MAX_ALIGN that divides every stride (in words); the tile kernels' IN_ALIGN and
    OUT_ALIGN, so that a pitch that Triton's specialisation would miss (not a multiple of 16) still vectorizes."""
    g = 0
    for s in strides:
        g = math.gcd(g, abs(int(s)))
    align = 1
    while align < MAX_ALIGN and g % (2 * align) == 0:
        align *= 2
    return align


@dataclass
class EnginePlan:
    problem: Problem
    config: Config
    word: int
    reason: str
    pieces: list[tuple[int, int, Launch]] = field(default_factory=list)  # (x byte offset, out byte offset, ...)
    out_row_stride: int | None = None  # bytes between output rows where wider than the matrix (one matrix)
    offsets: tuple[int, int] = (0, 0)  # bytes by which x and out start past a whole word (the words kernel only)

    @property
    def name(self) -> str:
        return self.config.name if self.problem.kind != "empty" else "empty"


def _input_bytes(problem: Problem, inner: int, inner_stride: int) -> int:
    """Bytes from the first matrix's first element to the last matrix's last one, for `inner` matrices
    `inner_stride` bytes apart with contiguous columns (what the words kernels may read)."""
    return (inner - 1) * inner_stride + (problem.rows - 1) * problem.row_stride + problem.cols * problem.itemsize


def _whole_word_rows(problem: Problem, word: int, out_row_stride: int, offsets: tuple[int, int], inner: int,
                     inner_stride: int, takes: bool, refusal: str) -> tuple[int, int, dict]:
    """What transpose_narrow and transpose_interleave share: their refusal (32-bit words, a C-contiguous output,
    no offsets, `takes` from their *_ok), the output bytes a matrix, the input's bytes, and the constexprs E,
    OUT_ALIGN and ASM."""
    if word != 4 or out_row_stride != problem.rows * problem.itemsize or offsets != (0, 0) or not takes:
        raise ValueError(refusal)
    span = problem.rows * problem.cols * problem.itemsize
    # matrices' outputs a whole number of words apart (none where they start inside words: outputs_shifted)
    out_align = 4 if inner == 1 else 1 if outputs_shifted(problem) else alignment(span // 4)
    return span, _input_bytes(problem, inner, inner_stride), {
        "E": problem.itemsize, "OUT_ALIGN": out_align, "ASM": inline_asm()}


def _launch(problem: Problem, config: Config, word: int, inner: int, inner_stride: int,
            out_row_stride: int | None = None, offsets: tuple[int, int] = (0, 0)) -> Launch:
    """The launch for `inner` matrices `inner_stride` bytes apart; `out_row_stride` (bytes) for an output whose
    rows are further apart than a C-contiguous one's (one matrix only); `offsets` (words kernel only): the bytes by
    which x and out start past the whole words that the launch's pointers are."""
    from . import kernels, narrow_kernel, split_kernel

    if out_row_stride is None:
        out_row_stride = problem.rows * problem.itemsize
    elif (inner != 1 or problem.kind != "transpose" or
          out_row_stride % (1 if isinstance(config, WordsConfig) else word)):
        raise ValueError("a strided output needs one matrix transposed in words that divide its row stride")

    words = problem.itemsize // word
    if problem.kind == "copy":
        if not isinstance(config, CopyConfig):
            raise ValueError(f"{type(config).__name__}: the problem is a disguised copy, which takes CopyConfig")
        total = inner * problem.cols
        contiguous = problem.col_stride == problem.itemsize and (inner == 1 or
                                                                 inner_stride == problem.cols * problem.itemsize)
        wide = (total * words >= WIDE_FROM or abs(inner_stride) * inner // word >= WIDE_FROM or
                abs(problem.col_stride) * problem.cols // word >= WIDE_FROM)
        return Launch(kernels.copy_strided, math.ceil(total / config.block),
                      (total, problem.cols, inner_stride // word, problem.col_stride // word),
                      {"BLOCK": config.block, "WORDS": words, "CONTIGUOUS": contiguous, "WIDE": wide},
                      config.num_warps, word)
    reach = max((abs(inner_stride) * inner + abs(problem.row_stride) * problem.rows +
                 abs(problem.col_stride) * problem.cols), out_row_stride * problem.cols) // word
    if isinstance(config, WordsConfig):
        size = problem.itemsize
        pack = 4 // size
        assert word == 4 and size in (1, 2) and problem.col_stride == size
        tiles_r = math.ceil(problem.rows / config.block_r)
        tiles_c = math.ceil(math.ceil(problem.cols / pack) / config.block_cw)
        x_off, out_off = offsets
        nbytes = x_off + _input_bytes(problem, inner, inner_stride)
        wide = max(nbytes + 8, out_off + inner * problem.cols * out_row_stride) >= WIDE_FROM
        in_words = x_off == 0 and inner_stride % 4 == 0 and problem.row_stride % 4 == 0
        in_align = alignment(inner_stride // 4, problem.row_stride // 4) if in_words else 1
        # 0: output rows at whole words
        out = 0 if out_off == 0 and out_row_stride % 4 == 0 else OUT_MODES.index(
            "shifted" if config.out == "joined" else config.out)
        if out == 1 and size == 2 and in_words and in_align == 1:
            # 2-byte rows an odd number of words apart: shifted words ran at 51-58% of the copy, element by element
            # 69-81% (1.27x-1.45x on all 19 such cases of two random seeds; H200, docs/engine.md)
            out = 2
        return Launch(kernels.transpose_words, inner * tiles_r * tiles_c,
                      (problem.rows, problem.cols, inner_stride, problem.row_stride, tiles_r, tiles_c, out_row_stride,
                       nbytes, x_off, out_off, band_of(tiles_r, config.block_r, 4 * config.block_cw,
                                                          problem.row_stride if x_off == 0 else 1)),
                      {"BLOCK_R": config.block_r, "BLOCK_CW": config.block_cw, "E": size, "IN_WORDS": in_words,
                       "OUT": out, "EDGES": out < 2 and (out == 1 or problem.rows % pack != 0), "WIDE": wide,
                       "ASM": inline_asm(),
                       "IN_ALIGN": in_align,
                       # the stores' mask bound too (whole words a row), so that masked stores stay vectors: told of
                       # the stride alone, the compiler split each vector into words a lane, 8 to 16 bytes apart
                       "OUT_ALIGN": (alignment(out_row_stride // 4, problem.rows // pack)
                                     if out_row_stride % 4 == 0 else 1),
                       "NEXT_BY_GATHER": out == 1 and pack == 4 and config.block_r // pack >= 2,
                       # output rows end to end: the word where one ends and the next begins is built whole
                       "JOIN": (config.out == "joined" and out == 1 and out_row_stride == problem.rows * size
                                and problem.rows >= 2 * pack)},
                      config.num_warps, 4)
    if isinstance(config, NarrowConfig):
        span, nbytes, shared = _whole_word_rows(problem, word, out_row_stride, offsets, inner, inner_stride,
                                                narrow_ok(problem), "NarrowConfig: transpose_narrow takes 1- and "
                                                "2-byte elements in 32-bit words with output rows of 2 to "
                                                f"{NARROW_MAX_ROW_BYTES} bytes, C-contiguous and starting at whole "
                                                "words (engine.configs.narrow_ok)")
        block_r, block_cw = narrow_tile(problem, config)
        tiles = math.ceil(span / (4 * config.block_ow))
        wide = max(nbytes, inner * span) + 4 * config.block_ow >= WIDE_FROM or inner * tiles >= WIDE_FROM
        return Launch(narrow_kernel.transpose_narrow, inner * tiles,
                      (problem.rows, problem.cols, inner_stride, problem.row_stride, tiles, span, nbytes,
                       -(-(1 << 32) // problem.rows)),
                      {"BLOCK_R": block_r, "BLOCK_CW": block_cw, "BLOCK_OW": config.block_ow, "WIDE": wide, **shared},
                      config.num_warps, 4)
    if isinstance(config, InterleaveConfig):
        span, nbytes, shared = _whole_word_rows(problem, word, out_row_stride, offsets, inner, inner_stride,
                                                interleave_ok(problem), "InterleaveConfig: transpose_interleave takes "
                                                "2 to 31 rows of 1- or 2-byte elements in 32-bit words, C-contiguous, "
                                                "each matrix's output at a whole word but in one batch axis "
                                                "(engine.configs.interleave_ok)")
        tiles = math.ceil(math.ceil(problem.cols * problem.itemsize / 4) / config.block_cw)
        wide = max(nbytes, inner * span) + 8 * config.block_cw >= WIDE_FROM or inner * tiles >= WIDE_FROM
        in_words = inner_stride % 4 == 0 and problem.row_stride % 4 == 0
        return Launch(narrow_kernel.transpose_interleave, inner * tiles,
                      (problem.cols, inner_stride, problem.row_stride, tiles, span, nbytes),
                      {"R": problem.rows, "R_POW2": _pow2_at_least(problem.rows), "BLOCK_CW": config.block_cw,
                       "SHIFT": outputs_shifted(problem), "IN_WORDS": in_words,
                       "IN_ALIGN": alignment(inner_stride // 4, problem.row_stride // 4) if in_words else 1,
                       "WIDE": wide, **shared}, config.num_warps, 4)
    if isinstance(config, SplitConfig):
        span, nbytes, shared = _whole_word_rows(problem, word, out_row_stride, offsets, inner, inner_stride,
                                                split_ok(problem), "SplitConfig: transpose_split takes 2 to 31 columns "
                                                "of bytes or 2 to 16 of 2-byte elements in 32-bit words, rows end to "
                                                "end, a C-contiguous output, one batch axis (engine.configs.split_ok)")
        pack = 4 // problem.itemsize
        groups = math.ceil(problem.rows / pack)
        shift = split_shifted(problem)  # output rows that start inside words: groups + 1 words a row
        tiles = math.ceil((groups + shift) / config.block)
        wide = max(nbytes, inner * span) + 8 * problem.cols * config.block >= WIDE_FROM or inner * tiles >= WIDE_FROM
        shared["OUT_ALIGN"] = 1 if shift else alignment(groups) if inner == 1 else alignment(groups, span // 4)
        return Launch(split_kernel.transpose_split, inner * tiles,
                      (problem.rows, inner_stride, groups, tiles, span, nbytes),
                      {"C": problem.cols, "BLOCK": config.block, "IN_WORDS": inner == 1 or inner_stride % 4 == 0,
                       "SHIFT": shift, "WIDE": wide, **shared}, config.num_warps, 4)
    if isinstance(config, GatherConfig):
        if out_row_stride != problem.rows * problem.itemsize or problem.kind != "transpose" or words < 1:
            raise ValueError("GatherConfig: transpose_gather moves whole elements in words that divide them into one "
                             "C-contiguous output (no wider rows)")
        from . import gather_kernel
        from .permute import divisor_magic

        total = inner * problem.rows * problem.cols
        wide = total * words >= WIDE_FROM or reach >= WIDE_FROM
        magic = not wide and total + config.block < 2**31 and problem.rows >= 2 and problem.cols >= 2
        m_rows, h_rows = divisor_magic(problem.rows) if magic else (0, 0)
        m_cols, h_cols = divisor_magic(problem.cols) if magic else (0, 0)
        return Launch(gather_kernel.transpose_gather, math.ceil(total / config.block),
                      (total, problem.rows, problem.cols, inner_stride // word, problem.row_stride // word,
                       problem.col_stride // word, m_rows, h_rows, m_cols, h_cols),
                      {"BLOCK": config.block, "WORDS": words, "WIDE": wide, "MAGIC": magic}, config.num_warps, word)
    if isinstance(config, PairsConfig):
        assert word == 8 and problem.itemsize == 16 and problem.col_stride == 16
        tiles_r = math.ceil(problem.rows / config.block_r)
        tiles_c = math.ceil(problem.cols / config.block_c)
        wide = inner * problem.rows * problem.cols * 2 >= WIDE_FROM or reach >= WIDE_FROM
        return Launch(kernels.transpose_pairs, inner * tiles_r * tiles_c,
                      (problem.rows, problem.cols, inner_stride // 8, problem.row_stride // 8, tiles_r, tiles_c,
                       out_row_stride // 8, band_of(tiles_r, config.block_r, 16 * config.block_c, problem.row_stride)),
                      {"BLOCK_R": config.block_r, "BLOCK_C": config.block_c, "WIDE": wide}, config.num_warps, 8)
    assert isinstance(config, TileConfig)
    tiles_r = math.ceil(problem.rows / config.block_r)
    tiles_c = math.ceil(problem.cols / config.block_c)
    wide = inner * problem.rows * problem.cols * words >= WIDE_FROM or reach >= WIDE_FROM
    return Launch(kernels.transpose_tiles, inner * tiles_r * tiles_c,
                  (problem.rows, problem.cols, inner_stride // word, problem.row_stride // word,
                   problem.col_stride // word, tiles_r, tiles_c, out_row_stride // word,
                   band_of(tiles_r, config.block_r, config.block_c * abs(problem.col_stride), problem.row_stride)),
                  {"BLOCK_R": config.block_r, "BLOCK_C": config.block_c, "WORDS": words, "WIDE": wide,
                   "OUT_ALIGN": alignment(out_row_stride // word, *([problem.rows] if words == 1 else []))},
                  config.num_warps, word)


def build(problem: Problem, word: int, config: Config | None = None,
          reason: str | None = None, out_row_stride: int | None = None,
          offsets: tuple[int, int] = (0, 0)) -> EnginePlan:
    """A plan with `config` (the heuristic's if None), moving `word`-byte words; `out_row_stride` (bytes) for
    one matrix written into rows that are further apart than a C-contiguous output's. With `offsets` (the words
    kernel only) x and out start that many bytes past a whole word: the pieces' offsets then lead from the arrays'
    addresses back to those words."""
    if problem.kind == "empty":
        return EnginePlan(problem, CopyConfig(), word, "nothing to move")
    if config is None:
        config = heuristic(problem, word)
        reason = reason or "heuristic: tiles of about 16 KiB shaped to the matrix"
    if offsets != (0, 0) and not (isinstance(config, WordsConfig) and all(0 <= o < 4 for o in offsets)):
        raise ValueError(f"base offsets {offsets}: the words kernel takes 0 to 3 bytes, not {config.name}")
    plan = EnginePlan(problem, config, word, reason or "given", out_row_stride=out_row_stride, offsets=offsets)
    *outer, inner = problem.batch or (1,)
    *outer_strides, inner_stride = problem.batch_strides or (0,)
    piece_elements = inner * problem.rows * problem.cols
    launch = _launch(problem, config, word, inner, inner_stride, out_row_stride, offsets)
    out_step = piece_elements * problem.itemsize
    x_off, out_off = offsets
    for n, index in enumerate(_ndindex(outer)):
        x_offset = sum(i * s for i, s in zip(index, outer_strides))
        plan.pieces.append((x_offset - x_off, n * out_step - out_off, launch))
    return plan


def _ndindex(shape: list[int]):
    import itertools

    return itertools.product(*(range(e) for e in shape))

