"""Non-temporal stores for the CPU kernels: 16-byte vectors written past the caches in write-combining buffers, whole
lines without a read for ownership first (x86-64's movntps / movntpd), and the fence that orders them ahead of the
stores after them. Kernels that stream fall back to plain stores where the output is not aligned (`streamable`).
"""

from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

STREAM_HOST = platform.machine().lower() in ("x86_64", "amd64")  # sfence, and non-temporal vector stores
STREAM_BYTES = 16  # each non-temporal store: one 16-byte vector at a 16-byte boundary


def streamable(out: np.ndarray) -> bool:
    """Whether a streamed kernel may write `out`: aligned to a vector, its matrices and rows whole vectors apart."""
    return out.ctypes.data % STREAM_BYTES == 0 and all(s % STREAM_BYTES == 0 for s in out.strides[:2])


def mark_nontemporal(builder: ir.IRBuilder, store) -> None:
    """LLVM's !nontemporal on `store` (an aligned vector store)."""
    store.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))


@intrinsic
def store_fence(typingctx):
    """store_fence(): x86's sfence, which orders the non-temporal stores before it ahead of any store after it (a
    full fence on other hosts, which never stream)."""

    def codegen(context, builder, signature, args):
        if not STREAM_HOST:
            builder.fence("seq_cst")
            return context.get_dummy_value()
        name = "llvm.x86.sse.sfence"
        fn = builder.module.globals.get(name) or ir.Function(builder.module, ir.FunctionType(ir.VoidType(), []), name)
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def value_stream(typingctx, out, at, value):
    """value_stream(out, at, value): the 16-byte element `value` (complex128, the host word of 16-byte elements)
    stored into element `at` of the complex128 array `out` as one aligned non-temporal vector (`out` aligned to
    16 bytes). Its bits move unchanged: no arithmetic touches them."""
    if not (isinstance(out, types.Array) and out.dtype == types.complex128 and value == types.complex128):
        return None

    def codegen(context, builder, signature, args):
        out_val, at, value = args
        vector = ir.VectorType(ir.DoubleType(), 2)
        packed = ir.Constant(vector, ir.Undefined)
        for k in range(2):
            packed = builder.insert_element(packed, builder.extract_value(value, k), ir.Constant(ir.IntType(32), k))
        dst = builder.bitcast(context.make_array(signature.args[0])(context, builder, out_val).data,
                              ir.IntType(8).as_pointer())
        at_bytes = builder.mul(at, ir.Constant(at.type, STREAM_BYTES))
        mark_nontemporal(builder, builder.store(packed, builder.bitcast(builder.gep(dst, [at_bytes]),
                                                                        vector.as_pointer()), align=STREAM_BYTES))
        return context.get_dummy_value()

    return types.void(out, at, value), codegen


def element_pointers(context, builder, signature, args):
    """Byte pointers to element `src` of x and element `dst` of out, for the codegen of an intrinsic copy(x, src,
    out, dst) over two arrays of one dtype."""
    x_val, src, out_val, dst = args
    size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
    byte = ir.IntType(8).as_pointer()
    base_x = builder.bitcast(context.make_array(signature.args[0])(context, builder, x_val).data, byte)
    base_out = builder.bitcast(context.make_array(signature.args[2])(context, builder, out_val).data, byte)
    return (builder.gep(base_x, [builder.mul(src, ir.Constant(src.type, size))]),
            builder.gep(base_out, [builder.mul(dst, ir.Constant(dst.type, size))]))


def run_stream(vectors: int):
    """An intrinsic copy(x, src, out, dst): `vectors` 16-byte vectors from element src of x (any alignment) to element
    dst of out (at a 16-byte boundary) as aligned non-temporal stores, unrolled (`vectors` a compile-time constant);
    x and out of one dtype. Bits move unchanged."""

    @intrinsic
    def copy(typingctx, x, src, out, dst):
        if not (isinstance(x, types.Array) and isinstance(out, types.Array) and x.dtype == out.dtype):
            return None

        def codegen(context, builder, signature, args):
            from_x, to_out = element_pointers(context, builder, signature, args)
            vector = ir.VectorType(ir.IntType(64), 2)
            for k in range(vectors):
                at = ir.Constant(ir.IntType(64), k * STREAM_BYTES)
                value = builder.load(builder.bitcast(builder.gep(from_x, [at]), vector.as_pointer()), align=1)
                store = builder.store(value, builder.bitcast(builder.gep(to_out, [at]), vector.as_pointer()),
                                      align=STREAM_BYTES)
                mark_nontemporal(builder, store)
            return context.get_dummy_value()

        return types.void(x, src, out, dst), codegen

    return copy
