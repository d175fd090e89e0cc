"""The benchmark's parts that run anywhere: the random suite, the report's distribution and the cases a peer beats,
Markdown and plots of a saved run, and the plain Triton tile peer in Triton's interpreter."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import random_bits

from cornerturn.bench import report
from cornerturn.bench.runner import BenchReport, Result
from cornerturn.bench.suites import RANDOM_BYTES, SIDES, random_cases, suite
from cornerturn.cli import main


@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_random_suite_is_drawn_from_its_seed_within_its_ranges(device):
    cases = random_cases(11, 200, device)
    assert cases == random_cases(11, 200, device) and cases != random_cases(12, 200, device)
    lo, hi = RANDOM_BYTES[device]
    assert all(lo * 0.9 <= c.nbytes <= hi for c in cases)
    assert all(SIDES[0] * 0.5 <= min(c.shape[-2:]) and max(c.shape[-2:]) <= SIDES[1] for c in cases)
    assert {c.itemsize for c in cases} == {1, 2, 4, 8, 16}
    batched = sum(len(c.shape) == 3 for c in cases)
    assert 0.1 < batched / len(cases) < 0.4
    tall = sum(c.shape[-2] > c.shape[-1] for c in cases)
    assert 0.3 < tall / len(cases) < 0.7  # both orientations
    assert suite("random", seed=11, count=5, device=device) == cases[:5]
    with pytest.raises(ValueError, match="needs a seed"):
        suite("random")
    with pytest.raises(ValueError, match="at least 1"):
        random_cases(1, 0, device)


def _report() -> BenchReport:
    rows = []
    for case, times in (("a 10x10", {"copy": 1.0, "torch": 4.0, "cornerturn": 1.25}),
                        ("b 20x20", {"copy": 1.0, "torch": 0.5, "cornerturn": 2.0}),
                        ("c 30x30", {"copy": 1.0, "torch": 3.0, "cornerturn": 1.0})):
        for method, t in times.items():
            role = {"copy": "ceiling", "torch": "peer"}.get(method, "ours")
            rows.append(Result(case, (10, 10), "float32", 800, method, role, median_s=t, min_s=t, max_s=t,
                               repeats=3, verified=None if role == "ceiling" else True))
    return BenchReport("cpu", "test machine", "random", rows, seed=5, date="2026-11-24 00:00 UTC",
                       command="cornerturn bench --suite random --seed 5")


def test_distribution_and_the_cases_a_peer_beats():
    r = _report()
    d = report.distribution(r)
    assert d == {"cases": 3, "min": 50.0, "tenth": 50.0, "median": 80.0, "max": 100.0}
    beaten = report.beaten(r)
    assert [b["case"] for b in beaten] == ["b 20x20"] and beaten[0]["faster"] == {"torch": 4.0}
    assert report.nearest_rank([5, 1, 4, 2, 3], 0.5) == 3 and report.nearest_rank(list(range(1, 21)), 0.1) == 2
    wrong = _report()
    wrong.results[2].verified = False  # a wrong result is no figure
    assert report.pct_of_copy(wrong, "a 10x10", "cornerturn") is None


def test_a_saved_run_reads_back_as_table_markdown_and_plots(tmp_path, capsys):
    r = _report()
    path = tmp_path / "run.json"
    report.write_json(r, path)
    data = json.loads(path.read_text())
    assert data["seed"] == 5 and data["distribution"]["median"] == 80.0 and len(data["slower_than_a_peer"]) == 1
    again = report.load_json(path)
    assert again.results == r.results and again.seed == 5
    md = report.markdown(again)
    assert md.splitlines()[0] == "| case | copy | torch | cornerturn | % of copy | vs best peer | us/call |"
    assert "| b 20x20 |" in md and "`cornerturn bench --suite random --seed 5`" in md
    png = tmp_path / "run.png"
    assert main(["report", str(path), "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "median 80%" in out and "b 20x20 (50% of copy): torch 4.00x" in out
    assert png.read_bytes()[:4] == b"\x89PNG"
    r.suite = "cpu"  # a named suite: grouped bars
    report.write_plot(r, tmp_path / "bars.png")
    assert main(["report", str(tmp_path / "missing.json")]) == 2


def test_bench_random_on_the_cpu_needs_a_seed(tmp_path, capsys):
    assert main(["bench", "--device", "cpu", "--suite", "random", "--no-progress"]) == 2
    assert "needs --seed" in capsys.readouterr().out


def test_plain_tile_peer_in_the_interpreter(rng):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    from cornerturn.bench import plain_tile

    for dtype, shape in ((np.float32, (70, 130)), (np.uint8, (3, 65, 67)), (np.float64, (1, 5))):
        x = torch.from_numpy(random_bits(shape, dtype, rng))
        out = torch.empty(shape[:-2] + (shape[-1], shape[-2]), dtype=x.dtype)
        plain_tile.make(x, out)()
        want = x.transpose(-1, -2).contiguous()
        assert torch.equal(out.reshape(-1).view(torch.uint8), want.reshape(-1).view(torch.uint8))  # bits, NaNs too
    assert not plain_tile.supports(16)


def test_methods_are_timed_in_interleaved_rounds():
    """One sample of each method a round, in order, after each one's warm-up and batch-sizing calls."""
    from cornerturn.timing import time_host_rounds

    calls = []
    fns = {name: (lambda name=name: calls.append(name)) for name in ("copy", "torch", "ours")}
    timings = time_host_rounds(fns, warmup=1, repeats=3, min_seconds=0.0)
    assert calls[:6] == ["copy", "copy", "torch", "torch", "ours", "ours"]  # warm-up, then the call that sizes a batch
    assert calls[6:] == ["copy", "torch", "ours"] * 3
    assert all(len(t.seconds) == 3 for t in timings.values())


def test_a_case_reads_back_from_its_name():
    from cornerturn.bench.suites import Case, parse_case, random_cases, random_permutations

    for case in (*random_cases(3, 12, "cuda"), *random_permutations(3, 12, "cuda")):
        assert parse_case(case.name) == case
    assert parse_case("half 8 x (5428x1038)") == Case((8, 5428, 1038), "float16")
    assert parse_case("uint8 30x31x33 (2, 0, 1)") == Case((30, 31, 33), "uint8", (2, 0, 1))
    for text, why in (("float33 3x4", "unknown dtype 'float33'"), ("float32", "expected 'DTYPE SHAPE"),
                      ("float32 7", "at least two sides"), ("int8 3xa", "whole numbers joined"),
                      ("int8 3x0", "at least 1"), ("int8 3x4x5 (0,1)", r"not a permutation of 0..2"),
                      ("int8 3x4 (0,0)", "not a permutation"), ("int8 3x4 (a,b)", "separated by commas")):
        with pytest.raises(ValueError, match=why):
            parse_case(text)


def test_bench_times_the_cases_given_on_the_command_line(tmp_path, capsys):
    js = tmp_path / "cases.json"
    assert main(["bench", "--device", "cpu", "--case", "float32 300x201", "--case", "uint8 3 x (99x101)",
                 "--case", "float16 4x30x31x33 (0,2,3,1)", "--methods", "numpy,cornerturn", "--repeats", "2",
                 "--no-progress", "--json", str(js)]) == 0
    data = json.loads(js.read_text())
    assert data["suite"] == "cases"
    ours = [r for r in data["results"] if r["method"] == "cornerturn"]
    assert [r["case"] for r in ours] == ["float32 300x201", "uint8 3 x (99x101)", "float16 4x30x31x33 (0,2,3,1)"]
    assert all(r["verified"] is True and r["gbps"] > 0 for r in ours)  # against NumPy, the reference
    assert main(["bench", "--device", "cpu", "--case", "int8 3x4 (1,1)"]) == 2
    assert "not a permutation" in capsys.readouterr().out
    assert main(["bench", "--device", "cpu", "--case", "int8 3x4", "--suite", "tiny"]) == 2
    assert main(["bench", "--device", "cpu", "--case", "int8 3x4", "--inplace"]) == 2
