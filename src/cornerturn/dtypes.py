"""Which element types cornerturn moves, and how many bytes each is.

A transpose moves bits, so the element size alone decides the kernel: float16, bfloat16 and int16 all move as
2-byte words. Names are given without a library prefix ("float32", not "torch.float32"). Beyond the named types,
any NumPy dtype of 1, 2, 4, 8 or 16 bytes that holds no Python objects moves as its bits (datetime64, 'S4', 'U1',
structured records); those, and named types in a byte order other than the machine's, are named by NumPy's own
spelling (dtype.str, e.g. '>f4', '<M8[s]', '|S4'), so that arrays of different byte orders never pass for equal.
"""

from __future__ import annotations

import numpy as np

SUPPORTED: dict[str, int] = {
    "bool": 1,
    "int8": 1,
    "uint8": 1,
    "float8_e4m3fn": 1,
    "float8_e4m3fnuz": 1,
    "float8_e5m2": 1,
    "float8_e5m2fnuz": 1,
    "float8_e8m0fnu": 1,
    "int16": 2,
    "uint16": 2,
    "float16": 2,
    "bfloat16": 2,
    "int32": 4,
    "uint32": 4,
    "float32": 4,
    "complex32": 4,
    "int64": 8,
    "uint64": 8,
    "float64": 8,
    "complex64": 8,
    "complex128": 16,
}

ITEMSIZES = (1, 2, 4, 8, 16)

# torch spells some names differently from NumPy
_ALIASES = {"chalf": "complex32", "half": "float16", "float": "float32", "double": "float64",
            "cfloat": "complex64", "cdouble": "complex128", "long": "int64", "int": "int32",
            "short": "int16"}


def supported_list() -> str:
    return ", ".join(SUPPORTED) + ", and any NumPy dtype of 1, 2, 4, 8 or 16 bytes without Python objects"


def numpy_name(dtype: np.dtype) -> str:
    """The name under which cornerturn knows a NumPy dtype: the canonical name for a named type in the machine's
    byte order, NumPy's dtype.str otherwise. A TypeError (in NumPy's spelling) for dtypes it cannot move."""
    if dtype.hasobject:
        raise TypeError(f"unsupported dtype {str(dtype)!r}: it holds Python objects, which cannot be moved as bits")
    if dtype.itemsize not in ITEMSIZES:
        raise TypeError(f"unsupported dtype {str(dtype)!r} of {dtype.itemsize}-byte elements; cornerturn moves "
                        f"elements of 1, 2, 4, 8 or 16 bytes: {supported_list()}")
    name = canonical_name(dtype.name)
    if name in SUPPORTED and dtype.isnative:
        return name
    name = str(dtype) if dtype.fields else dtype.str  # records: their fields too, so that two layouts differ
    _BITS[name] = dtype.itemsize
    return name


_BITS: dict[str, int] = {}  # the element size of each name numpy_name gave beyond the named types


def canonical_name(name: str) -> str:
    """'torch.float32' -> 'float32'; 'float32' -> 'float32'."""
    short = name.rsplit(".", 1)[-1]
    return _ALIASES.get(short, short)


def itemsize_of(name: str, *, argument: str = "x") -> int:
    """The element size in bytes of a supported dtype (a named type, or a NumPy dtype.str that numpy_name gave), or
    a TypeError listing the supported ones."""
    short = canonical_name(name)
    if short in SUPPORTED:
        return SUPPORTED[short]
    if name in _BITS:
        return _BITS[name]
    raise TypeError(f"{argument}: unsupported dtype {name!r}; cornerturn moves these dtypes: {supported_list()}")


def host_word_dtype(itemsize: int):
    """The NumPy dtype whose loads and stores move one element of `itemsize` bytes bit-exactly.

    16-byte elements move as complex128: x86-64 loads and stores of doubles never alter their bits (only
    arithmetic quiets a signalling NaN); the tests check it on random bit patterns.
    """
    return _HOST_WORDS[itemsize]


_HOST_WORDS = {n: np.dtype(t) for n, t in
               ((1, np.uint8), (2, np.uint16), (4, np.uint32), (8, np.uint64), (16, np.complex128))}
