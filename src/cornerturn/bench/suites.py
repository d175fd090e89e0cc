"""Benchmark suites: named lists of cases (shape and dtype of the input to transpose), and a suite of shapes drawn
at random from a seed, so that the engine is judged on shapes nobody listed."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..dtypes import SUPPORTED, canonical_name, itemsize_of


@dataclass(frozen=True)
class Case:
    shape: tuple[int, ...]
    dtype: str
    axes: tuple[int, ...] | None = None  # a permutation of the axes (permute_dims); None: the last two swapped

    @property
    def name(self) -> str:
        if self.axes is not None:
            return f"{self.dtype} {'x'.join(map(str, self.shape))} ({','.join(map(str, self.axes))})"
        *batch, rows, cols = self.shape
        matrix = f"{rows}x{cols}"
        return f"{self.dtype} {batch[0]} x ({matrix})" if batch else f"{self.dtype} {matrix}"

    @property
    def out_shape(self) -> tuple[int, ...]:
        if self.axes is None:
            return (*self.shape[:-2], self.shape[-1], self.shape[-2])
        return tuple(self.shape[a] for a in self.axes)

    @property
    def itemsize(self) -> int:
        return itemsize_of(self.dtype)

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.itemsize

    @property
    def bytes_moved(self) -> int:
        """Bytes read plus bytes written."""
        return 2 * self.nbytes


def _cases(*specs: tuple[str, tuple[int, ...]]) -> tuple[Case, ...]:
    return tuple(Case(shape, dtype) for dtype, shape in specs)


SUITES: dict[str, tuple[Case, ...]] = {
    # a few seconds anywhere: the CLI tests and smoke runs
    "tiny": _cases(("float32", (64, 64)), ("int8", (300, 200)), ("float64", (3, 40, 50))),
    # the CPU engine's targets: 10x NumPy on fp32 8192^2 and int8 16384^2, half the copy for 4- and 8-byte elements
    "cpu": _cases(
        ("float32", (8192, 8192)), ("int8", (16384, 16384)), ("float64", (8192, 8192)),
        ("float16", (8192, 8192)), ("complex128", (4096, 4096)), ("float32", (4097, 4095)),
        ("float32", (4096, 64, 128)), ("float32", (512, 512, 64)),
    ),
    # small matrices: per-call time matters more than bandwidth
    "small": _cases(*[("float32", (n, n)) for n in (8, 16, 32, 64, 128, 256, 512, 1024)]),
    # the GPU engine's targets: >= 256 MiB for every element size, and awkward shapes; then large odd sides,
    # where rows are not whole 16-byte runs
    "cuda": _cases(
        ("float32", (16384, 16384)), ("float64", (8192, 8192)), ("float16", (16384, 16384)),
        ("bfloat16", (16384, 16384)), ("int8", (32768, 32768)), ("complex64", (8192, 8192)),
        ("complex128", (8192, 8192)), ("float32", (4097, 4095)), ("float32", (16777216, 8)),
        ("float32", (8, 16777216)), ("float32", (2097152, 96)), ("float16", (512, 512, 512)),
        ("float32", (4096, 64, 128)), ("float32", (16383, 16385)), ("float16", (16383, 16385)),
        ("int8", (16383, 16385)),
    ),
    "cuda-small": _cases(*[("float32", (n, n)) for n in (64, 256, 1024, 4096)]),
}


# permute_dims: layout changes users make (NCHW <-> NHWC, attention heads <-> tokens, 3- to 6-D); with --seed the
# random permutations of random_permutations follow
SUITES["permute"] = (
    Case((64, 256, 56, 56), "float16", (0, 2, 3, 1)), Case((64, 56, 56, 256), "float16", (0, 3, 1, 2)),
    Case((32, 3, 512, 512), "float32", (0, 2, 3, 1)), Case((8, 32, 4096, 128), "bfloat16", (0, 2, 1, 3)),
    Case((8, 4096, 32, 128), "bfloat16", (0, 2, 3, 1)), Case((512, 512, 512), "float32", (2, 1, 0)),
    Case((512, 512, 512), "float32", (0, 2, 1)), Case((16,) * 6, "float32", (5, 3, 1, 4, 0, 2)),
    Case((256, 256, 64, 64), "int8", (3, 2, 1, 0)),
)
PERMUTE = "permute"

RANDOM = "random"  # the suite drawn from --seed: random_cases
NAMES = (*SUITES, RANDOM)

# The random suite: matrix bytes log-uniform in these ranges (GPU, CPU), element sizes equally likely, each drawn
# as one of the dtypes of its size, a quarter of the cases batched (2 to 64 matrices), each side log-uniform over
# SIDES as far as the bytes allow, so that tall and wide matrices are equally likely
RANDOM_BYTES = {"cuda": (64 << 20, 768 << 20), "cpu": (16 << 20, 256 << 20)}
RANDOM_DTYPES = {1: ("int8", "uint8", "float8_e4m3fn"), 2: ("float16", "bfloat16", "int16"),
                 4: ("float32", "int32"), 8: ("float64", "complex64", "int64"), 16: ("complex128",)}
SIDES = (300, 10**6)
BATCHED = 0.25
MAX_BATCH = 64


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _draws(seed: int, count: int, device: str, sizes: dict[str, tuple[int, int]]):
    """The generator of `seed`, then for each of `count` cases its dtype and element count: an element size equally
    likely, one of its dtypes, bytes log-uniform in sizes[device]. Checks count and device first."""
    if count < 1:
        raise ValueError(f"cases: need at least 1, got {count}")
    if device not in sizes:
        raise ValueError(f"device: expected one of {', '.join(sizes)}, got {device!r}")
    rng = np.random.default_rng(seed)
    lo, hi = sizes[device]
    for _ in range(count):
        itemsize = int(rng.choice(list(RANDOM_DTYPES)))
        dtype = str(rng.choice(RANDOM_DTYPES[itemsize]))
        yield rng, dtype, int(_log_uniform(rng, lo, hi)) // itemsize


def random_cases(seed: int, count: int, device: str) -> tuple[Case, ...]:
    """`count` cases drawn from `seed` for `device` ("cuda" or "cpu"); the same seed gives the same cases."""
    side_lo, side_hi = SIDES
    cases = []
    for rng, dtype, elements in _draws(seed, count, device, RANDOM_BYTES):
        batch = 1
        most = min(MAX_BATCH, elements // side_lo**2)
        if rng.random() < BATCHED and most >= 2:
            batch = round(_log_uniform(rng, 2, most))
        per_matrix = elements // batch
        rows = round(_log_uniform(rng, max(side_lo, per_matrix / side_hi), min(side_hi, per_matrix / side_lo)))
        cols = per_matrix // rows
        cases.append(Case((batch, rows, cols) if batch > 1 else (rows, cols), dtype))
    return tuple(cases)


# Random permutations: bytes log-uniform in these ranges (GPU, CPU), rank 3 to 6, each axis's share of the elements
# log-uniform (every axis at least 2), a random permutation other than the identity, element sizes equally likely
PERMUTE_BYTES = {"cuda": (32 << 20, 512 << 20), "cpu": (16 << 20, 128 << 20)}
PERMUTE_RANKS = (3, 6)


def random_permutations(seed: int, count: int, device: str) -> tuple[Case, ...]:
    """`count` permutation cases drawn from `seed` for `device`; the same seed gives the same cases."""
    cases = []
    for rng, dtype, elements in _draws(seed, count, device, PERMUTE_BYTES):
        rank = int(rng.integers(PERMUTE_RANKS[0], PERMUTE_RANKS[1] + 1))
        weights = rng.random(rank) + 0.1
        logs = math.log(elements / 2**rank) * weights / weights.sum()
        shape = tuple(max(2, round(2 * math.exp(v))) for v in logs)
        axes = tuple(int(a) for a in rng.permutation(rank))
        while axes == tuple(range(rank)):
            axes = tuple(int(a) for a in rng.permutation(rank))
        cases.append(Case(shape, dtype, axes))
    return tuple(cases)


CASES = "cases"  # the suite name of cases given one by one (`cornerturn bench --case`)


def parse_case(text: str) -> Case:
    """A case as the tables name it: "bfloat16 6000x6000", "float16 8 x (5428x1038)" (a batch of matrices; the last
    two axes swap), or "float16 64x256x56x56 (0,2,3,1)" (permute_dims by those axes). ValueError on anything else."""
    words = text.split(None, 1)
    if len(words) != 2:
        raise ValueError(f"case {text!r}: expected 'DTYPE SHAPE [(AXES)]', e.g. 'bfloat16 6000x6000' or "
                         "'float16 64x256x56x56 (0,2,3,1)'")
    dtype, rest = canonical_name(words[0]), words[1]
    if dtype not in SUPPORTED:
        raise ValueError(f"case {text!r}: unknown dtype {words[0]!r}; one of {', '.join(SUPPORTED)}")
    axes_text = None
    if rest.rstrip().endswith(")") and "," in rest.rsplit("(", 1)[-1]:
        rest, axes_text = rest.rsplit("(", 1)
    dims = rest.replace(" ", "").replace("(", "").replace(")", "").split("x")
    if not all(d.isdigit() for d in dims) or len(dims) < 2:
        raise ValueError(f"case {text!r}: the shape needs at least two sides of whole numbers joined by 'x'")
    shape = tuple(int(d) for d in dims)
    if min(shape) < 1:
        raise ValueError(f"case {text!r}: every side must be at least 1")
    if axes_text is None:
        return Case(shape, dtype)
    parts = axes_text.rstrip().rstrip(")").split(",")
    if not all(a.strip().isdigit() for a in parts):
        raise ValueError(f"case {text!r}: axes must be whole numbers separated by commas, e.g. (0,2,3,1)")
    axes = tuple(int(a) for a in parts)
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(f"case {text!r}: axes {axes} are not a permutation of 0..{len(shape) - 1}")
    return Case(shape, dtype, axes)


def suite(name: str, *, seed: int | None = None, count: int | None = None, device: str = "cuda") -> tuple[Case, ...]:
    """A named suite, or the random one drawn from `seed` (`count` cases, sized for `device`); the permute suite
    with a seed is followed by `count` random permutations."""
    if name == PERMUTE and seed is not None:
        return SUITES[PERMUTE] + random_permutations(seed, count or (32 if device == "cuda" else 12), device)
    if name == RANDOM:
        if seed is None:
            raise ValueError("suite random: needs a seed (--seed)")
        return random_cases(seed, count or (64 if device == "cuda" else 16), device)
    if name not in SUITES:
        raise ValueError(f"suite: unknown {name!r}; choose one of {', '.join(NAMES)}")
    return SUITES[name]
