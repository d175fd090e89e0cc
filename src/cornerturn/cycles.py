"""Permuting equal-sized chunks of a buffer in place by following the permutation's cycles, in segments.

A permutation names, for each destination chunk d, its source chunk source[d]. Following a cycle d0 <- d1 <- d2
<- ... moves every chunk once: chunk d0 is held, d0 takes d1, d1 takes d2, ..., the last takes the held one. A
cycle longer than `length` chunks is cut into segments that run side by side: the first chunk of each is saved
(one launch), then every segment moves its chunks down the chain and takes its last one from the saved first
chunk of the segment after it (a second launch). A cycle of at most `length` chunks is one segment that holds
its own first chunk. Fixed points are left alone.

Used by the block form of the in-place transpose (cornerturn.blocks) for chunks of whole matrix rows, where
reading and writing each chunk in one contiguous piece runs at the speed of a copy.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Segments:
    """The work of one permutation. `table` (int32, one row per segment): where the segment starts in `order`,
    its length, and the saved slot of the chunk that closes it (-1: a whole cycle, which holds its own first
    chunk). `saved` (int32): the chunk each slot saves before any segment moves. `order` (int32): the chunks of
    every segment, one segment after another, each in chain order (order[k] takes the chunk order[k + 1])."""

    table: np.ndarray
    saved: np.ndarray
    order: np.ndarray

    @property
    def count(self) -> int:
        return len(self.table)

    def packed(self) -> np.ndarray:
        """table, saved and order as one int32 array, in that order (the layout the GPU kernels read)."""
        return np.concatenate([self.table.reshape(-1), self.saved, self.order]).astype(np.int32)


def segments(source: np.ndarray, length: int) -> Segments:
    """Cut the cycles of `source` into segments of at most `length` chunks (length >= 2)."""
    if length < 2:
        raise ValueError(f"a segment must hold at least 2 chunks, not {length}")
    src = np.asarray(source, dtype=np.int64).reshape(-1)
    if len(src) and (src.min() < 0 or src.max() >= len(src) or np.bincount(src).max() != 1):
        raise ValueError("source is not a permutation of 0 .. n - 1")
    return Segments(*_compiled()(src, length))


@functools.cache
def _compiled():
    """The cycle walk of `segments`, compiled (a Python loop took 3.8 s for 3.4 M chunks)."""
    import numba

    @numba.njit(cache=True, nogil=True)
    def walk(src, length):
        n = len(src)
        seen = np.zeros(n, np.uint8)
        order = np.empty(n, np.int32)
        table = np.empty((n, 3), np.int32)
        saved = np.empty(n, np.int32)
        placed = segments_found = slots = 0
        for start in range(n):
            if seen[start] or src[start] == start:
                continue
            begin, d = placed, start
            while not seen[d]:  # the cycle start <- src[start] <- ..., in chain order
                seen[d] = 1
                order[placed] = d
                placed += 1
                d = src[d]
            size = placed - begin
            if size <= length:  # whole: it holds its own first chunk
                table[segments_found] = (begin, size, -1)
                segments_found += 1
                continue
            pieces = (size + length - 1) // length
            for k in range(pieces):  # each piece closes with the saved first chunk of the next
                saved[slots + k] = order[begin + k * length]
                table[segments_found] = (begin + k * length, min(length, size - k * length), slots + (k + 1) % pieces)
                segments_found += 1
            slots += pieces
        return table[:segments_found].copy(), saved[:slots].copy(), order[:placed].copy()

    return walk


def segment_length(moved: int, wanted_segments: int) -> int:
    """The segment length that cuts `moved` chunks into about `wanted_segments` segments."""
    return max(2, math.ceil(moved / max(1, wanted_segments)))


def cut(source: np.ndarray, wanted_segments: int) -> Segments:
    """The cycles of `source` cut into about `wanted_segments` segments of equal length (none if no chunk moves)."""
    moved = int(np.count_nonzero(np.asarray(source) != np.arange(len(source))))
    return segments(source, segment_length(moved, wanted_segments))


def apply(chunks: np.ndarray, s: Segments) -> None:
    """What the two GPU launches do, in NumPy: permute the rows of `chunks` in place."""
    held = chunks[s.saved].copy()
    for start, count, slot in s.table.tolist():
        chain = s.order[start:start + count]
        first = chunks[chain[0]].copy()
        for here, there in zip(chain[:-1], chain[1:]):
            chunks[here] = chunks[there]
        chunks[chain[-1]] = first if slot < 0 else held[slot]
