"""cornerturn.distributed on CPU processes with Gloo: 2 and 3 ranks, uneven splits, several dtypes, bit-exact;
mismatched ranks get the same error, never a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import grid

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("dist_worker.py")


@pytest.mark.parametrize("ranks", grid([2, 3], fast=[(2,)]))
def test_row_sharded_transpose_on_gloo(ranks, tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranks}", str(WORKER),
           str(tmp_path / "seen")]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    seen = [json.loads((tmp_path / f"seen.{r}.json").read_text()) for r in range(ranks)]
    for case in seen[0]["cases"]:
        assert case["shape_ok"] and case["rows_ok"] and case["exact"], case
    for name in ("columns", "dtype", "ndim", "chunks", "method", "direct"):
        messages = {s["errors"][name] for s in seen}
        assert len(messages) == 1 and None not in messages, (name, messages)
    assert "disagree on the number of columns" in seen[0]["errors"]["columns"]
    assert "disagree on the dtype" in seen[0]["errors"]["dtype"]
    assert "rank 0 holds a 3-D tensor" in seen[0]["errors"]["ndim"]
    assert "ranks disagree on chunks: rank 0: 1, rank 1: 2" in seen[0]["errors"]["chunks"]
    assert "method must be one of auto, all_to_all, direct (rank 0)" in seen[0]["errors"]["method"]
    assert "method='direct' needs every rank on one host, on a GPU" in seen[0]["errors"]["direct"]


def test_direct_workspace_regions():
    from cornerturn.distributed.direct import ALIGN, regions

    in_rows, size = [5, 0, 7, 3], 8
    for d, out_rows_d in enumerate([4, 4, 3, 3]):
        offsets = regions(out_rows_d, in_rows, d, size)
        assert len(offsets) == len(in_rows) + 1 and all(o % ALIGN == 0 for o in offsets)
        for s, m in enumerate(in_rows):
            held = offsets[s + 1] - offsets[s]
            want = 0 if s == d else m * out_rows_d * size
            assert want <= held < want + ALIGN  # each source's block fits, d's own slot is empty
    assert regions(3, [2, 2], 0, 4) == [0, 0, 256]


def test_direct_method_needs_the_memory_for_its_workspace():
    from cornerturn.distributed.direct import MARGIN_BYTES, workspace_bytes
    from cornerturn.distributed.exchange import DTYPE_CODES, METHODS, _check, _short_of_memory, chosen_method

    f32, direct, auto = DTYPE_CODES.index("float32"), METHODS.index("direct"), METHODS.index("auto")
    need = workspace_bytes([1000, 1000], [1500, 1500], 4)  # 2000 x 3000 float32 on 2 ranks
    assert 1500 * 1000 * 4 <= need < 1500 * 1000 * 4 + 256  # what rank 0 or 1 receives, aligned

    def meta(how, free, held):  # (ndim, rows, cols, dtype, cuda, method, host, reach, chunks, free, held)
        return [(2, 1000, 3000, f32, 1, how, 7, 1, 0, free[r], held[r]) for r in range(2)]

    roomy = meta(auto, [need + MARGIN_BYTES, need + MARGIN_BYTES], [0, 0])
    assert _short_of_memory(roomy) == "" and chosen_method(roomy, "auto") == "direct"
    held = meta(auto, [0, 0], [need, need])  # the workspace is there already
    assert chosen_method(held, "auto") == "direct"
    tight = meta(auto, [need + MARGIN_BYTES, need], [0, 0])
    assert "rank(s) 1 (" in _short_of_memory(tight) and chosen_method(tight, "auto") == "all_to_all"
    with pytest.raises(ValueError, match="workspace needs 6 MiB on every rank, and rank.s. 1"):
        _check(meta(direct, [need + MARGIN_BYTES, need], [0, 0]))


def test_output_rows_are_as_even_as_possible():
    from cornerturn.distributed import output_rows

    assert output_rows(10, 3) == [4, 3, 3]
    assert output_rows(2, 4) == [1, 1, 0, 0]
    assert sum(output_rows(12345, 7)) == 12345


def test_bench_distributed_under_torchrun(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    js = tmp_path / "d.json"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "-m",
           "cornerturn.cli", "bench", "--distributed", "--rows", "300", "--cols", "200", "--repeats", "2",
           "--copy-streams", "per_peer", "--json", str(js)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    report = json.loads(js.read_text())
    assert report["bit_exact_vs_torch_way"] and report["ranks"] == 2
    assert report["method"] == "all_to_all" and report["copy_streams"] is None  # Gloo: no direct method
    assert set(report["median_ms"]) == {"all_to_all alone", "plain torch way", "cornerturn"}


def test_bench_distributed_needs_torchrun(capsys):
    from cornerturn.cli import main

    env_rank = os.environ.pop("RANK", None)
    try:
        assert main(["bench", "--distributed"]) == 2
    finally:
        if env_rank is not None:
            os.environ["RANK"] = env_rank
    assert "run under torchrun" in capsys.readouterr().out
