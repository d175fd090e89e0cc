"""The canonical form: fusion rules, the plan key, and that a canonical problem moves what the request asks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cornerturn.problem import canonical


def apply_reference(problem, x: np.ndarray) -> np.ndarray:
    """Execute a canonical problem with plain NumPy from x's first element: the problem's own semantics."""
    from numpy.lib.stride_tricks import as_strided

    if problem.kind == "empty":
        return np.empty(0, x.dtype)
    shape = (*problem.batch, problem.rows, problem.cols)
    strides = (*problem.batch_strides, problem.row_stride, problem.col_stride)
    if problem.kind == "copy":
        shape, strides = (*problem.batch, problem.cols), (*problem.batch_strides, problem.col_stride)
    view = as_strided(x, shape=shape, strides=strides)
    moved = view if problem.kind == "copy" else view.swapaxes(-1, -2)
    return np.ascontiguousarray(moved).reshape(-1)


def test_contiguous_batches_fuse_and_unit_axes_vanish():
    a = canonical((2, 3, 5, 7), (420, 140, 28, 4), 4)
    b = canonical((6, 5, 7), (140, 28, 4), 4)
    c = canonical((1, 6, 1, 5, 7), (840, 140, 140, 28, 4), 4)
    assert a.key == b.key == c.key
    assert a.kind == "transpose" and a.batch == (6,)


def test_element_size_not_dtype_decides():
    # float16 and int16 of one shape are one memory movement
    assert canonical((64, 32), (64, 2), 2).key == canonical((64, 32), (64, 2), 2).key
    assert canonical((64, 32), (128, 4), 4).key != canonical((64, 32), (64, 2), 2).key


def test_disguised_copies():
    # one row, one column: copies
    assert canonical((1, 9), (36, 4), 4).kind == "copy"
    assert canonical((9, 1), (4, 4), 4).kind == "copy"
    # a Fortran-ordered matrix (a transposed view of a C-contiguous one) is one contiguous copy
    p = canonical((5, 7), (4, 20), 4)
    assert p.kind == "copy" and p.batch == () and p.cols == 35 and p.col_stride == 4


def test_batch_axis_after_columns_joins_columns():
    # x[b, i, j] at b*N + i*(B*N) + j: an (M, B*N) matrix seen as B blocks of columns
    M, B, N = 4, 3, 5
    base = np.arange(M * B * N, dtype=np.int32).reshape(M, B, N)
    x = base.transpose(1, 0, 2)
    p = canonical(x.shape, x.strides, 4)
    assert p.batch == () and (p.rows, p.cols) == (M, B * N)
    np.testing.assert_array_equal(apply_reference(p, x), np.ascontiguousarray(x.swapaxes(-1, -2)).reshape(-1))


def test_non_fusable_batches_stay_separate():
    x = np.zeros((4, 6, 5, 7), np.float32)[:, :3]
    p = canonical(x.shape, x.strides, 4)
    assert p.batch == (4, 3) and p.kind == "transpose"


def test_empty():
    assert canonical((0, 5), (20, 4), 4).kind == "empty"
    assert canonical((3, 5, 0), (0, 0, 4), 4).kind == "empty"


@st.composite
def strided_arrays(draw):
    ndim = draw(st.integers(2, 4))
    shape = tuple(draw(st.sampled_from([1, 2, 3, 5, 7])) for _ in range(ndim))
    steps = tuple(draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in range(ndim))
    base_shape = tuple(s * abs(k) for s, k in zip(shape, steps))
    base = np.arange(int(np.prod(base_shape)), dtype=np.int32).reshape(base_shape)
    index = tuple(slice(None, None, k) for k in steps)
    x = base[index]
    if draw(st.booleans()):
        axes = list(range(ndim))
        draw(st.randoms()).shuffle(axes)
        x = x.transpose(axes)
    return x


@settings(max_examples=300, deadline=None)
@given(strided_arrays())
def test_canonical_problem_moves_what_was_asked(x):
    p = canonical(x.shape, x.strides, x.itemsize)
    want = np.ascontiguousarray(x.swapaxes(-1, -2)).reshape(-1)
    got = apply_reference(p, x)
    np.testing.assert_array_equal(got, want)
    assert p.elements == x.size or p.kind == "empty"
