"""The row-sharded transpose without an all-to-all, for GPUs of one host with peer access (NVLink): the copy
engine moves the columns bound for each other rank, as they are (a 2-D copy of rows), straight into that rank's
symmetric-memory workspace; a device-side barrier says a piece has landed; each rank transposes what it received
into its columns of the output while the next piece is on the wire. Each byte crosses the link once, with no
pack or unpack pass, and the SMs are left to the transposes."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from .pieces import part, transpose_into

DIRECT_CHUNKS = 8  # pieces per call from PIPELINE_FROM_BYTES a rank
COPY_STREAMS = ("one", "per_peer")
# How a rank's copies run: "one" stream, each piece's copies one peer after another (in a different order on each
# rank; measured on 2 and 4 GPUs), or a stream "per_peer", so that a rank sends to every peer at once (as NCCL's
# all-to-all does) and no GPU receives from two peers while another waits. The same on 2 GPUs (one peer).
copy_streams = "one"
ALIGN = 256  # every source's region in a workspace starts at a multiple of this many bytes


def check_copy_streams(value: str) -> None:
    """A ValueError unless `value` is one of COPY_STREAMS."""
    if value not in COPY_STREAMS:
        raise ValueError(f"copy_streams must be one of {COPY_STREAMS}, not {value!r}")


def regions(out_rows_d: int, in_rows: list[int], d: int, size: int) -> list[int]:
    """Byte offsets of each source's block in rank d's workspace, in source order, d's own slot empty; the last
    entry is the bytes the workspace needs. Source s's block holds the in_rows[s] x out_rows_d elements it sends
    to d, row-major as they were at s: piece [a, b) of s's rows lies at element a * out_rows_d."""
    offsets, at = [], 0
    for s, m in enumerate(in_rows):
        offsets.append(at)
        if s != d:
            at += -(-out_rows_d * m * size // ALIGN) * ALIGN
    return [*offsets, at]


def workspace_bytes(in_rows: list[int], out_rows: list[int], size: int) -> int:
    """The workspace every rank of the group holds for one call: the most bytes any rank receives (aligned)."""
    return max(regions(out_rows[d], in_rows, d, size)[-1] for d in range(len(out_rows)))


MARGIN_BYTES = 256 << 20  # device memory left free when a workspace is allocated (the symmetric allocator
#                           rounds up to its granularity; the call's own output comes from torch's allocator)


def room(group: Any, device: Any) -> tuple[int, int]:
    """(free device memory, bytes of the workspace this group already holds on `device`) in bytes."""
    import torch
    import torch.distributed as dist

    group = group or dist.group.WORLD
    ws = _workspaces.get((group.group_name, id(group), device.index))
    return torch.cuda.mem_get_info(device)[0], (ws.tensor.numel() if ws is not None else 0)


@dataclass
class Workspace:
    """One symmetric allocation per process group and device, grown (collectively) when a call needs more."""

    tensor: Any
    handle: Any
    peers: dict[int, Any]  # rank -> a flat uint8 tensor addressing that rank's workspace through the link
    done: Any = None  # an event after the last transposes out of this workspace (the next copies wait for it)


_workspaces: dict[tuple[str, int, int], Workspace] = {}
_streams_of: dict[int, tuple[list[Any], Any]] = {}


def available() -> bool:
    """Whether this torch has symmetric memory and this rank's GPU reaches every other visible GPU directly."""
    import torch

    return torch.cuda.is_available() and _reaches(torch.cuda.current_device())


@functools.cache
def _reaches(me: int) -> bool:
    import torch

    try:
        import torch.distributed._symmetric_memory as symm_mem
    except ImportError:
        return False
    if not all(hasattr(symm_mem, name) for name in ("empty", "rendezvous")):  # older torch: the all-to-all
        return False
    return all(torch.cuda.can_device_access_peer(me, j) for j in range(torch.cuda.device_count()) if j != me)


def workspace(group: Any, nbytes: int, device: Any) -> Workspace:
    """This group's workspace of at least `nbytes` on `device` (a collective when it must be (re)allocated:
    every rank asks for the same size, computed from the gathered shapes)."""
    import warnings

    import torch
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem

    group = group or dist.group.WORLD
    key = (group.group_name, id(group), device.index)  # a group made again under the same name is another
    ws = _workspaces.get(key)
    if ws is not None and ws.tensor.numel() >= nbytes:
        return ws
    if ws is not None:  # every store into it landed before the last call's final barrier
        torch.cuda.synchronize(device)
        del _workspaces[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if hasattr(symm_mem, "enable_symm_mem_for_group"):
            symm_mem.enable_symm_mem_for_group(group.group_name)
    tensor = symm_mem.empty(max(nbytes, ALIGN), dtype=torch.uint8, device=device)
    handle = symm_mem.rendezvous(tensor, group.group_name)
    me = dist.get_rank(group)
    peers = {r: handle.get_buffer(r, (tensor.numel(),), torch.uint8)
             for r in range(dist.get_world_size(group)) if r != me}
    ws = Workspace(tensor, handle, peers)
    _workspaces[key] = ws
    return ws


def release() -> int:
    """Free every workspace this process holds, after the work that uses them; returns how many bytes. Call it on
    every rank of a group at the same point: the next direct transpose then allocates a new workspace, which is
    a collective that every rank must join."""
    import torch

    freed = 0
    for (_name, _group, index), ws in list(_workspaces.items()):
        torch.cuda.synchronize(index)
        freed += ws.tensor.numel()
    _workspaces.clear()
    return freed


def _streams(device: Any, copies: int) -> tuple[list[Any], Any]:
    """This device's streams: `copies` for the copy engine's work, and one for the barriers that follow it."""
    import torch

    if device.index not in _streams_of:
        _streams_of[device.index] = ([], torch.cuda.Stream(device))
    held, signals = _streams_of[device.index]
    while len(held) < copies:
        held.append(torch.cuda.Stream(device))
    return held[:copies], signals


@functools.cache
def _memcpy_2d() -> Any:
    """cudaMemcpy2DAsync from the CUDA runtime torch has loaded (found in /proc/self/maps), or None."""
    import ctypes

    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libcudart.so" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            fn = ctypes.CDLL(path).cudaMemcpy2DAsync
        except (OSError, AttributeError):
            continue
        fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                       ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        return fn
    return None


def _send(src: Any, dst: Any, stream: Any) -> None:
    """dst[:] = src for 2-D tensors with unit column strides, on `stream`: by the copy engine where the CUDA
    runtime is at hand (no SMs taken from the transposes), else by torch's copy kernel."""
    import torch

    memcpy_2d = _memcpy_2d()
    if memcpy_2d is None:
        with torch.cuda.stream(stream):
            dst.copy_(src)
        return
    size = src.element_size()
    rc = memcpy_2d(dst.data_ptr(), dst.stride(0) * size, src.data_ptr(), src.stride(0) * size,
                   src.shape[1] * size, src.shape[0], 4, stream.cuda_stream)  # 4: cudaMemcpyDefault
    if rc:
        raise RuntimeError(f"cornerturn.distributed: cudaMemcpy2DAsync failed with CUDA error {rc}")


def _block(flat: Any, offset: int, rows: int, cols: int, dtype: Any) -> Any:
    """rows x cols elements of `dtype` at byte `offset` of a flat uint8 tensor."""
    import torch

    n = rows * cols * torch.empty((), dtype=dtype).element_size()
    return flat[offset:offset + n].view(dtype).view(rows, cols)


def transpose(local: Any, group: Any, chunks: int, in_rows: list[int], out_rows: list[int]) -> Any:
    """This rank's rows of the transpose (see the module); `in_rows`/`out_rows` from the gathered metadata."""
    import torch
    import torch.distributed as dist

    check_copy_streams(copy_streams)
    ranks, me = dist.get_world_size(group), dist.get_rank(group)
    if local.numel() and not (local.stride(1) == 1 and local.stride(0) >= local.shape[1]):
        local = local.contiguous()  # the copy engine moves rows of contiguous elements
    m_me, size, dtype, device = local.shape[0], local.element_size(), local.dtype, local.device
    layouts = [regions(out_rows[d], in_rows, d, size) for d in range(ranks)]
    ws = workspace(group, workspace_bytes(in_rows, out_rows, size), device)
    col_starts = [sum(out_rows[:d]) for d in range(ranks)]
    row_starts = [sum(in_rows[:s]) for s in range(ranks)]
    per_peer = copy_streams == "per_peer"
    main = torch.cuda.current_stream(device)
    copies, signals = _streams(device, max(ranks - 1, 1) if per_peer else 1)
    out = local.new_empty((out_rows[me], sum(in_rows)))
    if ws.done is not None:
        main.wait_event(ws.done)  # this rank's reads of its workspace in the last call have run
    signals.wait_stream(main)
    with torch.cuda.stream(signals):
        ws.handle.barrier(channel=0)  # ... and every other rank's: the workspaces may be written again
    for stream in copies:
        stream.wait_stream(signals)
    landed = []
    for k in range(chunks):  # the copies run back to back; each piece's barrier runs beside the next copies
        a, b = part(m_me, chunks, k)  # piece k: rows [a, b) of this rank's block
        for step in range(1, ranks):  # destinations in a different order on each rank
            d = (me + step) % ranks
            if b > a and out_rows[d]:
                there = _block(ws.peers[d], layouts[d][me] + a * out_rows[d] * size, b - a, out_rows[d], dtype)
                _send(local[a:b, col_starts[d]:col_starts[d] + out_rows[d]], there,
                      copies[step - 1 if per_peer else 0])
        for stream in copies:
            signals.wait_stream(stream)
        with torch.cuda.stream(signals):
            ws.handle.barrier(channel=0)  # piece k has landed on every rank
        landed.append(torch.cuda.Event())
        landed[-1].record(signals)
    if m_me and out_rows[me]:  # the own block goes straight to the output while the others are on the wire
        transpose_into(local[:, col_starts[me]:col_starts[me] + out_rows[me]],
                       out[:, row_starts[me]:row_starts[me] + m_me])
    for k in range(chunks):
        main.wait_event(landed[k])
        for s, m in enumerate(in_rows):
            a, b = part(m, chunks, k)
            if s != me and b > a and out_rows[me]:
                piece = _block(ws.tensor, layouts[me][s] + a * out_rows[me] * size, b - a, out_rows[me], dtype)
                transpose_into(piece, out[:, row_starts[s] + a:row_starts[s] + b])
    ws.done = torch.cuda.Event()
    ws.done.record(main)
    return out
