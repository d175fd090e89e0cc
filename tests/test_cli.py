"""The `cornerturn` command: info, bench on the CPU with a tiny suite, argument errors, help."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from cornerturn.cli import main


def test_info_lists_versions_devices_and_backends(capsys):
    assert main(["info"]) == 0
    text = capsys.readouterr().out
    assert "cornerturn 0.1.0" in text and "CPU:" in text and "numpy" in text
    assert "cpu engine: available" in text
    assert "gpu engine:" in text and "lab:" in text


def test_bench_tiny_on_cpu_writes_json_and_plot(tmp_path, capsys):
    js, png = tmp_path / "b.json", tmp_path / "b.png"
    code = main(["bench", "--device", "cpu", "--suite", "tiny", "--repeats", "2", "--no-progress",
                 "--json", str(js), "--plot", str(png)])
    assert code == 0
    text = capsys.readouterr().out
    assert "float32 64x64" in text and "cornerturn" in text and "% of copy" in text
    data = json.loads(js.read_text())
    assert data["device"] == "cpu" and data["versions"]["numpy"]
    ours = [r for r in data["results"] if r["method"] == "cornerturn"]
    assert len(ours) == 3 and all(r["verified"] is True and r["gbps"] > 0 for r in ours)
    copies = [r for r in data["results"] if r["method"] == "copy"]
    assert all(r["verified"] is True for r in copies)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_inplace_random_squares_are_drawn_from_the_seed():
    from cornerturn.bench.inplace import RANDOM_MAX_BYTES, RANDOM_SIDES, cases_of, random_squares

    squares = random_squares(5, 40)
    assert squares == random_squares(5, 40) and squares != random_squares(6, 40) and len(squares) == 40
    for batch, rows, cols, dtype in squares:
        assert batch == 1 and rows == cols and RANDOM_SIDES[0] <= rows <= RANDOM_SIDES[1]
        assert rows * cols * np.dtype(dtype).itemsize <= RANDOM_MAX_BYTES
    assert {d for *_, d in squares} == {"int8", "float16", "float32", "float64", "complex128"}
    assert cases_of("random", 5, 3) == squares[:3]
    with pytest.raises(ValueError, match="needs a seed"):
        cases_of("random")
    with pytest.raises(ValueError, match="unknown in-place suite 'nope'"):
        cases_of("nope")


def test_bench_inplace_tiny_on_cpu(tmp_path, capsys):
    import json

    out = tmp_path / "inplace.json"
    assert main(["bench", "--inplace", "--device", "cpu", "--suite", "tiny", "--repeats", "2", "--no-progress",
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [r["case"] for r in report["results"]][:2] == ["float32 64x64", "float32 64x48"]
    assert all(r["bit_exact"] and r["inplace_gbps"] > 0 for r in report["results"])
    assert "out of place + back ms" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["bench", "--inplace", "--device", "cpu", "--suite", "nope"])


def test_inplace_summary_takes_the_middle_of_an_even_count():
    from cornerturn.bench.inplace import by_dtype

    results = [{"case": f"int8 {n}x{n}", "pct_of_copy": p} for n, p in ((7, 43.0), (9, 88.0), (11, 50.0), (13, 64.0))]
    results.append({"case": "float32 5x5", "pct_of_copy": 91.0})
    assert by_dtype(results) == {"float32": (1, 91.0, 91.0, 91.0), "int8": (4, 43.0, 57.0, 88.0)}


def test_bench_rejects_unknown_suite_and_method(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--suite", "nope"])
    assert "unknown 'nope'" in capsys.readouterr().err
    assert main(["bench", "--device", "cpu", "--suite", "tiny", "--methods", "numpy,bogus"]) == 2
    assert "unknown bogus" in capsys.readouterr().out


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "cornerturn.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    for command in ("run", "bench", "info"):
        assert command in out.stdout


@pytest.mark.slow
def test_main_job_runs_as_a_user_would(tmp_path):
    """`cornerturn run` in a fresh process without the test suite's environment: bench, then lab in the
    simulator, every kernel checked, exit 0, results written (the lab on 17 x 17, under one tile of 32: matrices
    of several tiles, ragged, are test_lab's)."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "TRITON_INTERPRET")}
    command = [sys.executable, "-m", "cornerturn.cli", "run", "--suite", "tiny", "--repeats", "2",
               "--lab-size", "17", "--no-progress", "--output", str(tmp_path)]
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "failed" not in out.stdout
    lab = json.loads((tmp_path / "lab.json").read_text())
    assert lab["simulated"] and all(r["verified"] is True or "square" in r["note"] for r in lab["results"])
    assert (tmp_path / "bench-cpu.json").exists() and (tmp_path / "lab.png").exists()
