"""The GPU script: correctness, sanitizers and benchmarks on the GPU machine, results as JSON under --out.

    python3 scripts/gpu_check.py --out $OUT [--sections tests,big,overhead,sanitizer,tune,bench,random]
    RANDOM_SEED=S RANDOM_CASES=N INPLACE_CASES=K (the random sections: shapes drawn from a seed; 64 and 20 by default)

Each section is independent and records what it found (or its error) in gpu_check.json; the benchmark writes
bench-cuda.json/.png and bench-cuda-small.json through the `cornerturn bench` command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("env", "tests", "big", "overhead", "profile", "sanitizer", "tune", "bench", "random", "lab", "inplace",
            "inplace_random")


def sh(cmd: list[str], log: Path, timeout: int = 600, env: dict | None = None) -> tuple[int, str]:
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **(env or {})})
    text = proc.stdout + proc.stderr
    with log.open("a") as f:
        f.write(f"\n$ {' '.join(cmd)}  ({time.time() - start:.1f} s, rc {proc.returncode})\n{text}\n")
    return proc.returncode, text


def section_env(out: Path, log: Path) -> dict:
    from cornerturn.info import report_lines

    _, smi = sh(["nvidia-smi", "--query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version",
                 "--format=csv"], log)
    return {"info": report_lines(), "nvidia_smi": smi.strip()}


def section_tests(out: Path, log: Path) -> dict:
    rc, text = sh([sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-x", "tests/test_gpu.py", "-p",
                   "no:cacheprovider"], log, env={"CORNERTURN_GPU_TESTS": "1", "TRITON_INTERPRET": "0"})
    return {"rc": rc, "tail": text.strip().splitlines()[-3:]}


def section_big(out: Path, log: Path) -> dict:
    """More than 2**31 elements: int8 49152 x 49152 (2.25 GiB), checked against torch on the device."""
    import torch

    import cornerturn

    n = 49152
    x = torch.randint(-128, 127, (n, n), dtype=torch.int8, device="cuda")
    got = cornerturn.transpose(x)
    ok = torch.equal(got, x.t().contiguous())
    res = {"shape": [n, n], "elements": n * n, "over_2**31": n * n > 2**31, "bit_exact": bool(ok)}
    del got
    y = torch.randn(2, 40000, 30000, device="cuda").to(torch.float16)  # 2.4e9 elements, batched
    got = cornerturn.transpose(y)
    res["batched_fp16"] = {"shape": list(y.shape), "bit_exact": bool(torch.equal(got, y.transpose(1, 2)))}
    del x, y, got
    torch.cuda.empty_cache()
    return res


OVERHEAD_ROUNDS = 9


def section_overhead(out: Path, log: Path) -> dict:
    """Per-call host time on a 64x64 float32 matrix, dispatch-bound: ours against torch's out.copy_(x.t()), in
    interleaved rounds of 2000 calls each."""
    import torch

    import cornerturn
    from cornerturn.engine.timing import time_wall

    x = torch.randn(64, 64, device="cuda")
    out = torch.empty(64, 64, device="cuda")
    plan = cornerturn.plan((64, 64), torch.float32, device="cuda")
    calls = {
        "torch out.copy_(x.t())": lambda: out.copy_(x.t()),
        "torch x.t().contiguous()": lambda: x.t().contiguous(),
        "cornerturn.transpose(x, out=out)": lambda: cornerturn.transpose(x, out=out),
        "cornerturn.transpose(x)": lambda: cornerturn.transpose(x),
        "plan.execute(x, out)": lambda: plan.execute(x, out),
    }
    if len(plan._backend.pieces) == 1:  # the floor: the plan's compiled kernel launched by pointer, nothing else
        (_, _, launch), = plan._backend.pieces
        stream = torch.cuda.current_stream().cuda_stream
        calls["the kernel's launch alone"] = lambda: launch.run_pointers(x.data_ptr(), out.data_ptr(), stream, 0)
    # rounds interleaved, each starting at the next call, so that a machine's drift touches every call alike
    samples = {name: [] for name in calls}
    names = list(calls)
    for r in range(OVERHEAD_ROUNDS):
        for name in names[r % len(names):] + names[:r % len(names)]:
            samples[name].append(time_wall(calls[name], calls=2000))
    return {name: {"median_us": statistics.median(s) * 1e6, "min_us": min(s) * 1e6, "rounds": len(s)}
            for name, s in samples.items()}


def section_profile(out: Path, log: Path) -> dict:
    """Where the host time of a small call goes (cProfile over many calls)."""
    import cProfile
    import io
    import pstats

    import torch

    import cornerturn

    x = torch.randn(64, 64, device="cuda")
    out = torch.empty(64, 64, device="cuda")
    plan = cornerturn.plan((64, 64), torch.float32, device="cuda")
    res = {}
    for name, stmt in (("execute", lambda: plan.execute(x, out)), ("transpose", lambda: cornerturn.transpose(x))):
        stmt()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(3000):
            stmt()
        prof.disable()
        torch.cuda.synchronize()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
        res[name] = buf.getvalue().splitlines()[-20:]
    return res


def section_sanitizer(out: Path, log: Path) -> dict:
    """compute-sanitizer memcheck and racecheck over every engine kernel path and every lab kernel."""
    res = {}
    programs = {"engine": [sys.executable, "scripts/gpu_paths.py"],
                "lab": [sys.executable, "-m", "cornerturn.cli", "lab", "--rows", "200", "--cols", "150",
                        "--repeats", "1", "--no-progress"],
                "lab-square": [sys.executable, "-m", "cornerturn.cli", "lab", "--size", "130", "--kernels",
                               "inplace-square,diagonal", "--repeats", "1", "--no-progress"]}
    only = os.environ.get("SANITIZE_ONLY", "")  # e.g. "engine"
    for what, program in programs.items():
        if only and what not in only.split(","):
            continue
        for tool in ("memcheck", "racecheck"):
            rc, text = sh(["compute-sanitizer", f"--tool={tool}", "--error-exitcode=9", *program], log, timeout=900)
            summary = [line for line in text.splitlines() if "ERROR SUMMARY" in line or "RACECHECK SUMMARY" in line]
            res[f"{what} {tool}"] = {"rc": rc, "summary": summary[-1:] or text.strip().splitlines()[-2:]}
    return res


def section_tune(out: Path, log: Path) -> dict:
    import torch

    import cornerturn
    from cornerturn.engine import tune
    from cornerturn.engine.timing import time_cuda

    os.environ["CORNERTURN_CACHE_DIR"] = "/tmp/cornerturn-tune-cache"
    tune.DEFAULT_BUDGET_S = float(os.environ.get("TUNE_BUDGET_S", tune.DEFAULT_BUDGET_S))
    only = os.environ.get("TUNE_ONLY", "")  # e.g. "int8,float16": tune just those dtypes
    res = {}
    for shape, dtype in [((32768, 32768), torch.int8), ((16384, 16384), torch.float32),
                         ((16384, 16384), torch.float16), ((8192, 8192), torch.complex128),
                         ((4097, 4095), torch.float32), ((2097152, 96), torch.float32)]:
        if only and str(dtype).removeprefix("torch.") not in only.split(","):
            continue
        x = torch.randn(shape, device="cuda").to(dtype) if dtype != torch.int8 else \
            torch.randint(-128, 127, shape, dtype=dtype, device="cuda")
        o = torch.empty(shape[::-1], dtype=dtype, device="cuda")
        heur = cornerturn.plan(shape, dtype, device="cuda")
        t_h = time_cuda(lambda p=heur, x=x, o=o: p.execute(x, o), repeats=10).median
        start = time.time()
        tuned = cornerturn.plan(shape, dtype, device="cuda", autotune=True)
        tune_s = time.time() - start
        t_t = time_cuda(lambda p=tuned, x=x, o=o: p.execute(x, o), repeats=10).median
        gb = 2 * x.numel() * x.element_size() / 1e9
        from cornerturn.engine.tune import cache_file, load

        entries = load(cache_file(torch.cuda.get_device_name(0)))
        timings = [t for e in entries.values() if e["problem"] == tuned.problem.describe() for t in e["timings"]]
        ranked = sorted((t for t in timings if t.get("median_s")), key=lambda t: t["median_s"])
        res[f"{str(dtype)[6:]} {shape}"] = {
            "heuristic": heur.method, "heuristic_gbps": gb / t_h, "tuned": tuned.method, "tuned_gbps": gb / t_t,
            "tune_s": tune_s, "reason": tuned.reason, "candidates": len(timings),
            "top": [(t["config"], round(gb / t["median_s"], 1)) for t in ranked[:6]],
            "worst": [(t["config"], round(gb / t["median_s"], 1)) for t in ranked[-2:]]}
        del x, o
    torch.cuda.empty_cache()
    return res


def section_bench(out: Path, log: Path) -> dict:
    """The benchmark with the engine's default (heuristic) plans: no tuning cache."""
    res = {}
    for suite in ("cuda", "cuda-small"):
        rc, text = sh([sys.executable, "-m", "cornerturn.cli", "bench", "--device", "cuda", "--suite", suite,
                       "--repeats", "10", "--no-progress", "--json", str(out / f"bench-{suite}.json"),
                       *(["--plot", str(out / f"bench-{suite}.png")] if suite == "cuda" else [])], log,
                      timeout=1200, env={"CORNERTURN_CACHE_DIR": "off"})
        res[suite] = {"rc": rc}
        print(text[-6000:], flush=True)
    return res


def section_random(out: Path, log: Path) -> dict:
    """The random-shape suite (a seed nobody tuned to), every case checked bit-exact, against every peer."""
    seed = os.environ.get("RANDOM_SEED", str(int(time.time()) % 100000))
    cases = os.environ.get("RANDOM_CASES", "64")
    name = f"bench-random-{seed}"
    rc, text = sh([sys.executable, "-m", "cornerturn.cli", "bench", "--device", "cuda", "--suite", "random",
                   "--seed", seed, "--cases", cases, "--repeats", "7", "--no-progress", "--json",
                   str(out / f"{name}.json"), "--plot", str(out / f"{name}.png")], log, timeout=1200,
                  env={"CORNERTURN_CACHE_DIR": "off"})
    print(text[-3000:], flush=True)
    return {"rc": rc, "seed": seed, "cases": cases}


def section_inplace_random(out: Path, log: Path) -> dict:
    """transpose_ on random squares (`cornerturn bench --inplace --suite random`, a seed nobody tuned to), every one
    checked bit-exact, against the device copy of the same bytes."""
    seed = os.environ.get("RANDOM_SEED", str(int(time.time()) % 100000))
    cases = os.environ.get("INPLACE_CASES", "20")
    rc, text = sh([sys.executable, "-m", "cornerturn.cli", "bench", "--inplace", "--device", "cuda", "--suite",
                   "random", "--seed", seed, "--cases", cases, "--repeats", "7", "--no-progress", "--json",
                   str(out / f"inplace-random-{seed}.json")], log, timeout=1200)
    print(text[-3000:], flush=True)
    return {"rc": rc, "seed": seed, "cases": cases}


def section_lab(out: Path, log: Path) -> dict:
    """The lab at its default size with JSON and chart; its counters under ncu; the CUDA C twins at 16384^2."""
    res = {}
    rc, text = sh([sys.executable, "-m", "cornerturn.cli", "lab", "--json", str(out / "lab.json"), "--plot",
                   str(out / "lab.png"), "--no-progress"], log, timeout=900)
    print(text[-6000:], flush=True)
    res["lab"] = {"rc": rc}
    rc, text = sh([sys.executable, "-m", "cornerturn.cli", "lab", "--size", "2048", "--repeats", "3", "--profile",
                   "--json", "/tmp/lab-profile.json", "--no-progress"], log, timeout=900)
    print(text[-7000:], flush=True)
    res["profile"] = {"rc": rc, "verdicts": [ln for ln in text.splitlines() if ln.startswith("ncu ")]}
    if Path("/tmp/lab-profile.json").exists():
        res["profile"]["table"] = json.loads(Path("/tmp/lab-profile.json").read_text())["table"]
    rc, text = sh([sys.executable, "scripts/lab_twins.py", "--size", "16384", "--json", "/tmp/twins.json"], log,
                  timeout=900)
    print(text[-3000:], flush=True)
    res["twins"] = {"rc": rc}
    if Path("/tmp/twins.json").exists():
        res["twins"]["rows"] = json.loads(Path("/tmp/twins.json").read_text())["rows"]
    return res


def _inplace_case(n: int, dtype) -> dict:
    import torch

    import cornerturn
    from cornerturn.engine.timing import time_cuda

    x = torch.randn(n, n, device="cuda").to(dtype) if dtype != torch.int8 else \
        torch.randint(-128, 127, (n, n), dtype=dtype, device="cuda")
    want = x.t().contiguous()
    cornerturn.transpose_(x)
    exact = bool(torch.equal(torch.view_as_real(x) if x.is_complex() else x,
                             torch.view_as_real(want) if want.is_complex() else want))
    del want
    tmp = torch.empty_like(x)
    flat, flat_tmp = x.view(-1), tmp.view(-1)
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    t_ours = time_cuda(lambda: cornerturn.transpose_(x), repeats=10).median
    extra = torch.cuda.max_memory_allocated() - before
    t_copy = time_cuda(lambda: flat_tmp.copy_(flat), repeats=10).median

    def out_of_place_and_back():
        cornerturn.transpose(x, out=tmp)
        flat.copy_(flat_tmp)

    t_oop = time_cuda(out_of_place_and_back, repeats=10).median
    gb = 2 * x.numel() * x.element_size() / 1e9
    return {"bit_exact": exact, "copy_gbps": gb / t_copy, "inplace_gbps": gb / t_ours,
            "pct_of_copy": 100 * t_copy / t_ours, "inplace_ms": t_ours * 1e3,
            "out_of_place_and_back_ms": t_oop * 1e3, "peak_extra_device_bytes": extra}


def section_inplace(out: Path, log: Path) -> dict:
    """Square in place against the device copy of the same bytes (the matrix read and written once), and against
    out-of-place plus a copy back; the extra device memory the in-place call takes."""
    import torch

    res = {}
    for n, dtype in [(16384, torch.float32), (32768, torch.int8), (16384, torch.float16), (8192, torch.float64),
                     (8192, torch.complex128)]:
        res[f"{str(dtype)[6:]} {n}x{n}"] = _inplace_case(n, dtype)
        torch.cuda.empty_cache()
    return res


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.environ.get("OUT", "gpu-results"))
    parser.add_argument("--sections", default=",".join(SECTIONS))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "log.txt"
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "command": " ".join([Path(sys.executable).name, *sys.argv])}
    for name in args.sections.split(","):
        start = time.time()
        print(f"== {name}", flush=True)
        try:
            results[name] = globals()[f"section_{name}"](out, log)
        except Exception as exc:
            results[name] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-3000:]}
        results[name + "_seconds"] = round(time.time() - start, 1)
        print(json.dumps(results[name], indent=1, default=str)[:4000], flush=True)
        (out / "gpu_check.json").write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
