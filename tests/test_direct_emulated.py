"""The direct method's data movement for 2 to 4 ranks without GPUs: one thread per rank runs
cornerturn.distributed.direct.transpose on CPU tensors, with the symmetric workspaces as shared CPU buffers, the
device-side barriers as a threading barrier and streams and events as no-ops (each thread runs its work in
program order, so a piece is copied before its barrier and read after it, as on the GPU). Checks the offsets
and pieces of every source, destination and split against NumPy, bit-exact; the GPU script runs the real thing."""

from __future__ import annotations

import contextlib
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cornerturn.distributed import direct  # noqa: E402
from cornerturn.distributed.pieces import output_rows  # noqa: E402


class _Stream:
    def wait_stream(self, other) -> None:
        pass

    def wait_event(self, event) -> None:
        pass


class _Event:
    def record(self, stream=None) -> None:
        pass


class _Handle:
    def __init__(self, barrier: threading.Barrier) -> None:
        self._barrier = barrier

    def barrier(self, channel: int = 0) -> None:
        self._barrier.wait()


def _emulate(monkeypatch, in_rows: list[int], cols: int, dtype, chunks: int) -> dict[int, set]:
    """Runs the ranks; returns, per rank, the (copy stream, destination workspace) pairs its sends used."""
    ranks = len(in_rows)
    out_rows = output_rows(cols, ranks)
    size = torch.empty((), dtype=dtype).element_size()
    need = direct.workspace_bytes(in_rows, out_rows, size)
    buffers = [torch.full((need,), 0xA5, dtype=torch.uint8) for _ in range(ranks)]  # poisoned
    barrier = threading.Barrier(ranks, timeout=60)
    me = threading.local()
    monkeypatch.setattr(torch.distributed, "get_world_size", lambda group=None: ranks)
    monkeypatch.setattr(torch.distributed, "get_rank", lambda group=None: me.rank)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: _Stream())
    monkeypatch.setattr(torch.cuda, "stream", lambda stream: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "Event", _Event)
    monkeypatch.setattr(direct, "_streams", lambda device, copies: ([_Stream() for _ in range(copies)], _Stream()))
    monkeypatch.setattr(direct, "_memcpy_2d", lambda: None)
    sends: dict[int, set] = {r: set() for r in range(ranks)}
    send = direct._send

    def recording_send(src, dst, stream) -> None:
        sends[me.rank].add((id(stream), next(r for r in range(ranks) if dst.untyped_storage().data_ptr()
                                             == buffers[r].untyped_storage().data_ptr())))
        send(src, dst, stream)

    monkeypatch.setattr(direct, "_send", recording_send)
    monkeypatch.setattr(direct, "workspace", lambda group, nbytes, device: direct.Workspace(
        buffers[me.rank], _Handle(barrier), {r: buffers[r] for r in range(ranks) if r != me.rank}))

    rng = np.random.default_rng(sum(in_rows) * cols + chunks)
    whole = rng.integers(0, 256, size=(sum(in_rows), cols * size), dtype=np.uint8)
    starts = np.cumsum([0, *in_rows])
    got: dict[int, torch.Tensor] = {}
    failures: list[BaseException] = []

    def rank_main(rank: int) -> None:
        me.rank = rank
        local = torch.from_numpy(whole[starts[rank]:starts[rank + 1]].copy()).view(dtype)
        try:
            got[rank] = direct.transpose(local, None, chunks, in_rows, out_rows)
        except BaseException as exc:  # noqa: BLE001 - reported below; the barrier breaks for the others
            failures.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=rank_main, args=(r,)) for r in range(ranks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    want = torch.from_numpy(whole).view(dtype).t().contiguous()
    row = 0
    for r in range(ranks):
        assert tuple(got[r].shape) == (out_rows[r], sum(in_rows))
        assert torch.equal(got[r].contiguous().view(torch.uint8), want[row:row + out_rows[r]].view(torch.uint8))
        row += out_rows[r]
    return sends


@pytest.mark.parametrize("in_rows, cols, dtype, chunks", [
    ([5, 4], 7, torch.float32, 1),
    ([5, 4], 7, torch.float32, 3),
    ([6, 0, 7], 10, torch.int8, 2),
    ([3, 9, 1, 4], 11, torch.complex128, 4),
    ([8, 8, 8, 8], 3, torch.float16, 8),  # fewer output rows than ranks: one rank gets none
    ([2, 7, 5], 13, torch.float64, 5),
])
@pytest.mark.parametrize("copy_streams", direct.COPY_STREAMS)
def test_direct_method_moves_every_piece_to_its_place(monkeypatch, in_rows, cols, dtype, chunks, copy_streams):
    monkeypatch.setattr(direct, "copy_streams", copy_streams)
    sends = _emulate(monkeypatch, in_rows, cols, dtype, chunks)
    for rank, used in sends.items():
        streams = {stream for stream, _ in used}
        destinations = {d for _, d in used}
        assert rank not in destinations
        if copy_streams == "one":
            assert len(streams) <= 1
        else:  # each peer's copies on a stream of their own
            assert len(streams) == len(destinations) == len(used)


def test_unknown_copy_streams_is_an_error(monkeypatch):
    monkeypatch.setattr(direct, "copy_streams", "many")
    with pytest.raises(ValueError, match="copy_streams must be one of"):
        direct.transpose(torch.zeros(2, 3), None, 1, [2, 2], [2, 1])
