"""The row-sharded transpose as an all-to-all (see the package docstring)."""

from __future__ import annotations

from typing import Any

from .pieces import output_rows, part, transpose_into

DTYPE_CODES = ("bool", "int8", "uint8", "int16", "float16", "bfloat16", "int32", "float32", "int64", "float64",
               "complex64", "complex128", "float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64")


METHODS = ("auto", "all_to_all", "direct")


def _metadata(local: Any, group: Any, method: str = "auto", chunks: Any = None) -> list[tuple[int, ...]]:
    """One all-gather of (ndim, rows, cols, dtype code, device kind, method code, host, direct, chunks, free,
    held) from every rank: `host` a hash of the host name, `direct` whether this rank's GPU reaches the others'
    memory (direct.available), `chunks` 0 for None and -1 for a value that is not a positive integer, `free` and
    `held` the free device memory and the direct method's workspace already held (bytes, 0 where no direct)."""
    import socket
    import zlib

    import torch
    import torch.distributed as dist

    from . import direct

    name = str(local.dtype).removeprefix("torch.") if isinstance(local, torch.Tensor) else "?"
    code = DTYPE_CODES.index(name) if name in DTYPE_CODES else -1
    is_tensor = isinstance(local, torch.Tensor)
    ndim = local.ndim if is_tensor else -1
    rows = local.shape[0] if is_tensor and ndim == 2 else -1
    cols = local.shape[1] if is_tensor and ndim == 2 else -1
    device = local.device if is_tensor else torch.device("cpu")
    if dist.get_backend(group) == "nccl" and device.type != "cuda":
        device = torch.device("cuda", torch.cuda.current_device())
    host = zlib.crc32(socket.gethostname().encode())
    reach = int(device.type == "cuda" and dist.get_backend(group) == "nccl" and direct.available())
    how = METHODS.index(method) if method in METHODS else -1
    pieces = 0 if chunks is None else chunks if type(chunks) is int and chunks > 0 else -1
    free, held = direct.room(group, device) if reach and method != "all_to_all" else (0, 0)
    mine = torch.tensor([ndim, rows, cols, code, int(device.type == "cuda"), how, host, reach, pieces, free, held],
                        dtype=torch.int64, device=device)
    every = mine.new_empty(dist.get_world_size(group) * mine.numel())
    dist.all_gather_into_tensor(every, mine, group=group)
    return [tuple(row) for row in every.view(-1, mine.numel()).tolist()]


def _check(meta: list[tuple[int, ...]]) -> None:
    """Raise the same ValueError on every rank where the ranks disagree (every rank sees the same `meta`)."""
    problems = []
    for rank, (ndim, _rows, _cols, code, *_rest) in enumerate(meta):
        if ndim != 2:
            problems.append(f"rank {rank} holds a {ndim}-D tensor (need 2-D local rows)" if ndim >= 0
                            else f"rank {rank} holds no torch tensor")
        elif code < 0:
            problems.append(f"rank {rank} holds an unsupported dtype")
    if not problems:
        if len({m[2] for m in meta}) > 1:
            problems.append("ranks disagree on the number of columns: " + ", ".join(
                f"rank {r}: {m[2]}" for r, m in enumerate(meta)))
        if len({m[3] for m in meta}) > 1:
            problems.append("ranks disagree on the dtype: " + ", ".join(
                f"rank {r}: {DTYPE_CODES[m[3]]}" for r, m in enumerate(meta)))
        if len({m[4] for m in meta}) > 1:
            problems.append("ranks disagree on the device kind (some CUDA, some CPU)")
        if any(m[5] < 0 for m in meta):
            problems.append("method must be one of " + ", ".join(METHODS) + " (rank " + ", ".join(
                str(r) for r, m in enumerate(meta) if m[5] < 0) + ")")
        elif len({m[5] for m in meta}) > 1:
            problems.append("ranks disagree on the method: " + ", ".join(
                f"rank {r}: {METHODS[m[5]]}" for r, m in enumerate(meta)))
        if any(m[8] < 0 for m in meta):
            problems.append("chunks must be a positive integer or None (rank " + ", ".join(
                str(r) for r, m in enumerate(meta) if m[8] < 0) + ")")
        elif len({m[8] for m in meta}) > 1:
            problems.append("ranks disagree on chunks: " + ", ".join(
                f"rank {r}: {m[8] or None}" for r, m in enumerate(meta)))
        if all(m[5] == METHODS.index("direct") for m in meta):
            if not _direct_possible(meta):
                problems.append("method='direct' needs every rank on one host, on a GPU that reaches the "
                                "others' memory, with NCCL and torch symmetric memory; use method='all_to_all'")
            elif not problems and (short := _short_of_memory(meta)):
                problems.append(short + "; use method='all_to_all' or free device memory")
    if problems:
        raise ValueError("cornerturn.distributed.transpose: " + "; ".join(problems))


def _short_of_memory(meta: list[tuple[int, ...]]) -> str:
    """Which ranks cannot allocate the direct method's workspace for this call ("" where all can)."""
    import torch

    from . import direct

    size = getattr(torch, DTYPE_CODES[meta[0][3]]).itemsize
    need = direct.workspace_bytes([m[1] for m in meta], output_rows(meta[0][2], len(meta)), size)
    short = [r for r, m in enumerate(meta) if m[10] < need and m[9] < need + direct.MARGIN_BYTES]
    if not short:
        return ""
    return (f"the direct method's workspace needs {need / 2**20:.0f} MiB on every rank, and rank(s) "
            + ", ".join(f"{r} ({meta[r][9] / 2**20:.0f} MiB free)" for r in short) + " cannot hold it")


def _direct_possible(meta: list[tuple[int, ...]]) -> bool:
    """Every rank on one host, on CUDA with NCCL, reaching every other GPU (see direct.available)."""
    return len({m[6] for m in meta}) == 1 and all(m[4] and m[7] for m in meta)


def _bytes(t: Any) -> Any:
    """A flat uint8 view of a contiguous tensor: the exchange moves bytes, whatever the dtype (Gloo and NCCL
    do not all take bool, bfloat16, fp8 or complex)."""
    import torch

    if t.is_complex():
        t = torch.view_as_real(t)
    return t.reshape(-1).view(torch.uint8)


PIPELINE_FROM_BYTES = 64 << 20  # local blocks from this size are exchanged in chunks, overlapping the copies


def transpose(local: Any, *, group: Any = None, chunks: int | None = None, method: str = "auto") -> Any:
    """This rank's rows of the transpose of the row-sharded matrix whose rows `local` holds (see the module).

    `method`: "direct" copies each destination's columns straight into its memory over the GPU links, where
    they are transposed into place (torch symmetric memory; one host, NCCL, peer access; a workspace kept
    between calls: see `direct`); "all_to_all" packs, exchanges with `all_to_all_single` and unpacks; "auto"
    takes "direct" where every rank can and has the memory for its workspace, else "all_to_all".
    `chunks` splits each destination's columns into that many pieces, so that piece k is copied into place
    while piece k+1 is on the wire (default: 1 below PIPELINE_FROM_BYTES per rank, else 8 for the all-to-all
    and DIRECT_CHUNKS direct). The rank's own block never leaves it: it is transposed straight into its
    columns of the output while the other blocks are on the wire.
    """
    import torch.distributed as dist

    from . import direct

    meta = _metadata(local, group, method, chunks)
    _check(meta)
    ranks = dist.get_world_size(group)
    in_rows = [m[1] for m in meta]
    out_rows = output_rows(meta[0][2], ranks)
    big = local.numel() * local.element_size() >= PIPELINE_FROM_BYTES
    if chosen_method(meta, method) == "direct":
        return direct.transpose(local, group, chunks or (direct.DIRECT_CHUNKS if big else 1), in_rows, out_rows)
    return _all_to_all(local, group, chunks or (8 if big else 1), in_rows, out_rows)


def chosen_method(meta: list[tuple[int, ...]], method: str) -> str:
    """The method a call with this (checked) metadata takes: "auto" is "direct" where every rank can."""
    if method == "auto":
        fits = len(meta) > 1 and _direct_possible(meta) and not _short_of_memory(meta)
        return "direct" if fits else "all_to_all"
    return method


def _all_to_all(local: Any, group: Any, chunks: int, in_rows: list[int], out_rows: list[int]) -> Any:
    """Pack, all_to_all_single, unpack, in `chunks` pipelined pieces (see transpose)."""
    import torch.distributed as dist

    from ..api import transpose as local_transpose

    ranks, me = dist.get_world_size(group), dist.get_rank(group)
    m_me, m_total, size = local.shape[0], sum(in_rows), local.element_size()
    col_starts = [sum(out_rows[:d]) for d in range(ranks)]
    row_starts = [sum(in_rows[:s]) for s in range(ranks)]
    others_in = [0 if s == me else m for s, m in enumerate(in_rows)]  # rows received from each rank
    out = local.new_empty((out_rows[me], m_total))
    pending = None  # (work, receive buffer, this rank's row range) of the piece on the wire
    for k in range(chunks):
        # piece k: for each destination d, its columns [lo, hi) of this piece, transposed, in destination order
        pieces = [part(out_rows[d], chunks, k) for d in range(ranks)]
        sent = [0 if d == me else (hi - lo) * m_me for d, (lo, hi) in enumerate(pieces)]
        lo_me, hi_me = pieces[me]
        work = recv = send = None
        if ranks > 1:
            send = local.new_empty(sum(sent))
            offset = 0
            for d, (lo, hi) in enumerate(pieces):
                if sent[d]:
                    block = send[offset:offset + sent[d]].view(hi - lo, m_me)
                    local_transpose(local[:, col_starts[d] + lo:col_starts[d] + hi], out=block)
                offset += sent[d]
            recv = local.new_empty((hi_me - lo_me) * sum(others_in))
            work = dist.all_to_all_single(
                _bytes(recv), _bytes(send), output_split_sizes=[(hi_me - lo_me) * m * size for m in others_in],
                input_split_sizes=[e * size for e in sent], group=group, async_op=True)
        if hi_me > lo_me and m_me:
            own = local[:, col_starts[me] + lo_me:col_starts[me] + hi_me]
            transpose_into(own, out[lo_me:hi_me, row_starts[me]:row_starts[me] + m_me])
        if pending is not None:
            _unpack(out, *pending, others_in, row_starts)
        pending = (work, recv, lo_me, hi_me, send)  # send stays referenced until its piece has landed
    _unpack(out, *pending, others_in, row_starts)
    return out


def _unpack(out: Any, work: Any, recv: Any, lo: int, hi: int, _send: Any, in_rows: list[int],
            row_starts: list[int]) -> None:
    """Wait (on the device) for a piece and copy each source's block into its columns of out[lo:hi]."""
    if work is None:
        return
    work.wait()
    offset = 0
    for m, start in zip(in_rows, row_starts):
        if m and hi > lo:
            out[lo:hi, start:start + m].copy_(recv[offset:offset + (hi - lo) * m].view(hi - lo, m))
        offset += (hi - lo) * m
