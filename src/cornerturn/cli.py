"""The `cornerturn` command: run (the main job), bench, lab, explain, info."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

# a wide table when the output is a file or a pipe (CI logs, docs), the terminal's width otherwise
console = Console(width=None if sys.stdout.isatty() else 160)


def _gpu_present() -> bool:
    from .info import backends

    return any(b.name == "gpu engine" and b.available for b in backends())


def cmd_info(args: argparse.Namespace) -> int:
    from .info import report_lines

    for line in report_lines():
        console.print(line, highlight=False)
    return 0


def cmd_bench_distributed(args: argparse.Namespace) -> int:
    """The row-sharded transpose on every rank of a torchrun job; rank 0 prints and writes the figures."""
    import json
    import os

    if "RANK" not in os.environ:
        console.print("[red]--distributed: run under torchrun, e.g. torchrun --nproc-per-node 2 -m cornerturn.cli "
                      "bench --distributed --rows 32768 --cols 32768[/red]")
        return 2
    from .distributed.bench import run

    report = run(args.rows, args.cols, args.dtype, args.repeats, args.chunks, args.method, args.copy_streams)
    if report is None:
        return 0
    t = Table(title=f"{report['ranks']} ranks on {report['device']}: {report['rows']}x{report['cols']} "
                    f"{report['dtype']} ({report['bytes'] / 2**30:.2f} GiB), median of {args.repeats}, "
                    f"cornerturn {report['method']}" +
                   (f", copy streams: {report['copy_streams']}" if report["copy_streams"] else ""))
    t.add_column("method")
    t.add_column("ms", justify="right")
    for name, ms in report["median_ms"].items():
        t.add_row(name, f"{ms:.2f}")
    console.print(t)
    console.print(f"cornerturn / all-to-all alone: {report['ours_over_all_to_all']:.2f}x; speedup over the plain "
                  f"torch way: {report['speedup_over_torch_way']:.2f}x; bit-exact against it: "
                  f"{report['bit_exact_vs_torch_way']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        console.print(f"wrote {args.json}")
    return 0 if report["bit_exact_vs_torch_way"] else 1


def _bench_device(args: argparse.Namespace) -> str:
    """--device, with auto meaning the GPU when there is one."""
    return args.device if args.device != "auto" else ("cuda" if _gpu_present() else "cpu")


def cmd_bench_inplace(args: argparse.Namespace) -> int:
    import json

    from .bench.inplace import by_dtype, cases_of, run

    device = _bench_device(args)
    suite_name = args.suite or device
    try:
        cases = cases_of(suite_name, args.seed, args.cases)
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        return 2
    with Progress(TextColumn("{task.description:<40}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=args.no_progress) as bar:
        task = bar.add_task("in place", total=len(cases))

        def progress(name: str) -> None:
            bar.update(task, advance=1, description=name)

        report = run(suite_name, device, args.repeats, progress, args.seed, args.cases)
    t = Table(title=f"in place on {report['device']} ({report['date']}), median of {args.repeats}; GB/s count "
                    "the matrix read and written once")
    for column in ("matrix", "copy GB/s", "in place GB/s", "% of copy", "in place ms", "out of place + back ms",
                   "extra memory", "bit-exact"):
        t.add_column(column, justify="left" if column == "matrix" else "right")
    for r in report["results"]:
        t.add_row(r["case"], f"{r['copy_gbps']:,.1f}", f"{r['inplace_gbps']:,.1f}", f"{r['pct_of_copy']:.0f}%",
                  f"{r['inplace_ms']:.3f}", f"{r['out_of_place_and_back_ms']:.3f}",
                  f"{r['extra_bytes'] / 2**20:,.1f} MiB ({100 * r['extra_bytes'] / r['matrix_bytes']:.1f}%)",
                  "yes" if r["bit_exact"] else "[red]NO[/red]")
    console.print(t)
    for dtype, (count, low, middle, high) in by_dtype(report["results"]).items():
        console.print(f"{dtype}: {count} case(s), % of copy minimum {low:.0f}%, median {middle:.0f}%, "
                      f"maximum {high:.0f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        console.print(f"wrote {args.json}")
    return 0 if all(r["bit_exact"] for r in report["results"]) else 1


def cmd_bench(args: argparse.Namespace) -> int:
    if getattr(args, "case", None) and (getattr(args, "distributed", False) or getattr(args, "inplace", False)):
        console.print("[red]--case: out-of-place cases only, not with --inplace or --distributed[/red]")
        return 2
    if getattr(args, "distributed", False):
        return cmd_bench_distributed(args)
    if getattr(args, "inplace", False):
        return cmd_bench_inplace(args)
    from .bench import report
    from .bench.runner import peers_for, run_suite
    from .bench.suites import CASES, parse_case, suite

    device = _bench_device(args)
    if getattr(args, "case", None):
        if args.suite or args.seed is not None:
            console.print("[red]--case: give cases or a suite (--suite, --seed), not both[/red]")
            return 2
        try:
            cases = tuple(parse_case(text) for text in args.case)
        except ValueError as exc:
            console.print(f"[red]--case: {exc}[/red]", highlight=False)
            return 2
        suite_name = CASES
    else:
        suite_name = args.suite or ("cuda" if device == "cuda" else "cpu")
        if suite_name == "random" and args.seed is None:
            console.print("[red]--suite random: needs --seed S (any integer; the same seed draws the same "
                          "shapes)[/red]")
            return 2
        cases = suite(suite_name, seed=args.seed, count=args.cases, device=device)
    methods = args.methods.split(",") if args.methods else None
    if methods:
        known = [p.name for p in peers_for(device)]
        unknown = [m for m in methods if m not in known]
        if unknown:
            console.print(f"[red]--methods: unknown {', '.join(unknown)}; choose from {', '.join(known)}[/red]")
            return 2
    steps = len(cases) * len([p for p in peers_for(device) if methods is None or p.name in methods
                              or p.role == "ceiling"])
    with Progress(TextColumn("{task.description:<40}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=args.no_progress) as bar:
        task = bar.add_task(f"bench {suite_name} on {device}", total=steps)

        def progress(advance: int, description: str) -> None:
            bar.update(task, advance=advance, **({"description": description} if description else {}))

        result = run_suite(cases, device, suite_name, methods=methods, repeats=args.repeats, progress=progress,
                           seed=args.seed if suite_name in ("random", "permute") else None)
    _print_bench(result)
    for note in report.notes(result):
        console.print(f"note: {note}", highlight=False)
    if args.json:
        report.write_json(result, args.json)
        console.print(f"wrote {args.json}")
    if args.plot:
        report.write_plot(result, args.plot)
        console.print(f"wrote {args.plot}")
    wrong = [r for r in result.results if r.verified is False]
    return 1 if wrong and any(r.role == "ours" for r in wrong) else 0


def _print_bench(result) -> None:
    """The table, the geometric-mean speedups, the distribution of % of copy and every case a peer beats."""
    from .bench import report

    console.print(report.table(result))
    for m in result.methods():
        g = report.geomean_speedup(result, m)
        if g and any(r.method == m and r.role == "peer" for r in result.results):
            console.print(f"geometric-mean speedup of cornerturn over {m}: {g:.2f}x")
    d = report.distribution(result)
    if d:
        console.print(f"cornerturn as % of the copy over {d['cases']} cases: minimum {d['min']:.0f}%, lowest tenth "
                      f"{d['tenth']:.0f}%, median {d['median']:.0f}%, maximum {d['max']:.0f}%", highlight=False)
    slower = report.beaten(result)
    if slower:
        console.print(f"[yellow]{len(slower)} case(s) where a peer was faster:[/yellow]")
        for b in slower:
            leads = ", ".join(f"{m} {lead:.2f}x" for m, lead in b["faster"].items())
            console.print(f"  {b['case']} ({b['pct_of_copy']:.0f}% of copy): {leads}", highlight=False)
    elif d:
        console.print("no peer was faster on any case")


def cmd_report(args: argparse.Namespace) -> int:
    """A saved benchmark (the JSON of `cornerturn bench --json`) as a table or Markdown, and its plot."""
    import json

    from .bench import report

    try:
        data = json.loads(Path(args.path).read_text())
        result = report.BenchReport.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        console.print(f"[red]{args.path}: not a benchmark JSON written by cornerturn bench --json ({exc})[/red]")
        return 2
    if args.markdown:
        print(report.markdown(result))
    else:
        _print_bench(result)
    if args.plot:
        report.write_plot(result, args.plot)
        console.print(f"wrote {args.plot}")
    return 0


def _use_simulator_without_gpu() -> bool:
    """Switch numba-cuda to its simulator (before numba.cuda is imported) when there is no GPU."""
    import os

    from .info import cuda_devices

    if not cuda_devices()[0]:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
        return True
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def cmd_lab(args: argparse.Namespace) -> int:
    from .explain import report as lab_report
    from .lab.registry import REGISTRY

    simulated = _use_simulator_without_gpu()
    from .lab.runner import run_lab

    rows, cols = args.rows, args.cols
    if rows is None or cols is None:
        size = args.size or (70 if simulated else 8192)
        rows, cols = rows or size, cols or size
    names = args.kernels.split(",") if args.kernels else [k.name for k in REGISTRY]
    unknown = [n for n in names if n not in {k.name for k in REGISTRY}]
    if unknown:
        console.print(f"[red]--kernels: unknown {', '.join(unknown)}; choose from "
                      f"{', '.join(k.name for k in REGISTRY)}[/red]")
        return 2
    if simulated:
        console.print(f"no GPU: running each kernel in numba-cuda's simulator on {rows}x{cols} "
                      "(correctness only; the figures are the model's)")
    with Progress(TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=args.no_progress) as bar:
        task = bar.add_task("lab", total=len(names))

        def progress(name: str) -> None:
            bar.update(task, advance=1, description=name)

        result = run_lab(rows, cols, args.dtype, names, repeats=0 if simulated else args.repeats,
                         progress=progress)
        constants = _lab_constants(args, simulated, result.device, bar)
    if constants is None:
        return 2
    profile = None
    if args.profile:
        profile = _profile(result, simulated)
    table_rows = lab_report.rows(result, constants, profile)
    console.print(lab_report.table(result, table_rows))
    console.print(lab_report.constants_line(constants), highlight=False)
    for r in table_rows:
        if r["note"]:
            console.print(f"note: {r['kernel']}: {r['note']}", highlight=False)
    if profile:
        for line in _profile_verdicts(table_rows):
            console.print(line, highlight=False)
    if args.json:
        lab_report.write_json(result, table_rows, args.json, constants)
        console.print(f"wrote {args.json}")
    if args.plot:
        lab_report.write_plot(result, table_rows, args.plot)
        console.print(f"wrote {args.plot}")
    broken = [r.kernel for r in result.results if r.verified is False or r.note.startswith("failed")]
    if broken:
        console.print(f"[red]wrong or failed: {', '.join(broken)}[/red]")
    return 1 if broken else 0


def _lab_constants(args: argparse.Namespace, simulated: bool, device: str, bar=None):
    """The speed model's constants: a shipped reference (--constants, or the H200's in the simulator), else
    this GPU's, from its cache file or measured now (--calibrate measures again)."""
    from .lab import calibrate

    name = getattr(args, "constants", None)
    if name or simulated:
        try:
            return calibrate.reference(name or "H200")
        except ValueError as exc:
            console.print(f"[red]--constants: {exc}[/red]")
            return None
    task = bar.add_task("calibrating the model", total=None) if bar is not None else None

    def progress(what: str) -> None:
        if task is not None:
            bar.update(task, description=f"model constants: {what}")

    return calibrate.for_device(device, remeasure=getattr(args, "calibrate", False), progress=progress)


def _profile(result, simulated: bool) -> dict | None:
    from .lab import profile

    if simulated or profile.ncu_path() is None:
        console.print("--profile: needs a GPU and Nsight Compute (ncu) on the PATH; skipped")
        return None
    found = {}
    for r in result.results:
        if r.verified is None:
            continue
        try:
            found[r.kernel] = profile.counters(r.kernel, result.rows, result.cols, result.dtype)
        except Exception as exc:  # a kernel ncu cannot profile is reported, not fatal
            found[r.kernel] = {"error": str(exc)[:300]}
    return found


def _profile_verdicts(table_rows: list[dict]) -> list[str]:
    from .lab.profile import EXPECT, agrees, describe, limiter_agrees, limiter_kind

    lines = []
    for r in table_rows:
        n = r.get("ncu")
        if not n or "error" in n:
            lines.append(f"ncu {r['kernel']}: {n.get('error') if n else 'not profiled'}")
            continue
        checks = {
            "load sectors/request": (n["load_sectors_per_request"], r["model_load_sectors"]),
            "store sectors/request": (n["store_sectors_per_request"], r["model_store_sectors"]),
            "shared-load conflicts": (n["shared_load_conflicts_per_instruction"], r["model_shared_load_conflicts"]),
            "shared-store conflicts": (n["shared_store_conflicts_per_instruction"],
                                       r["model_shared_store_conflicts"]),
        }
        off = [f"{k}: ncu {v[0]:.2f} vs model {v[1]:.2f}" for k, v in checks.items()
               if v[0] is not None and not agrees(v[0], v[1])]
        r["ncu_agrees"] = not off
        lines.append(f"ncu {r['kernel']}: " + ("counts agree with the model" if not off else
                                               "counts DIFFER: " + "; ".join(off)))
        verdict = limiter_agrees(r["limiter"], n)
        r["ncu_view"], r["ncu_limiter_agrees"] = describe(n), verdict
        if verdict is not None:
            kind = limiter_kind(r["limiter"])
            lines.append(f"    limiter {kind!r} ({EXPECT[kind]}): {describe(n)}: "
                         + ("agrees" if verdict else "DIFFERS"))
    return lines


def cmd_explain(args: argparse.Namespace) -> int:
    from .explain.gpus import spec
    from .explain.model import model, occupancy
    from .explain.picture import draw
    from .lab.registry import get

    try:
        kernel = get(args.kernel)
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        return 2
    constants = _explain_constants(args)
    if constants is None:
        return 2
    gpu = spec(constants.device)
    import numpy as np

    itemsize = np.dtype(args.dtype).itemsize
    m = model(kernel, itemsize)
    console.print(f"[bold]{kernel.name}[/bold]: {kernel.teaches}", highlight=False)
    console.print(f"tile {kernel.tile[0]}x{kernel.tile[1]}{' + pad ' + str(kernel.pad) if kernel.pad else ''}, "
                  f"block {kernel.block[0]}x{kernel.block[1]} threads, {itemsize}-byte elements", highlight=False)
    t = Table(title="one warp, one pass (interior block)")
    for col in ("space", "op", "access", "sectors/request", "ideal", "efficiency", "bank ways", "wavefronts"):
        t.add_column(col)
    for a in m.accesses:
        glob = a.space == "global"
        t.add_row(a.space, a.op, escape(a.what), str(a.sectors) if glob else "-", str(a.ideal_sectors) if glob else "-",
                  f"{a.ideal_sectors / a.sectors:.0%}" if glob else "-", "-" if glob else f"{a.ways}-way",
                  "-" if glob else str(a.wavefronts))
    console.print(t)
    occ = occupancy(kernel, itemsize, gpu, args.registers)
    console.print(f"on {gpu.name}: {occ.threads_per_block} threads and {occ.shared_per_block} B of shared memory "
                  f"per block, {occ.registers_per_thread} registers per thread (assumed): {occ.blocks_per_sm} "
                  f"blocks per SM, limited by {occ.limited_by}; theoretical occupancy {occ.occupancy:.0%}",
                  highlight=False)
    for line in _speed_lines(kernel, args.size, itemsize, args.registers, constants):
        console.print(line, highlight=False)
    if args.png:
        draw(kernel.name, args.png, itemsize)
        console.print(f"wrote {args.png}")
    return 0


def _explain_constants(args: argparse.Namespace):
    """--gpu H100|H200: that reference's constants; else this GPU's (cached or measured); else the H200's."""
    from .lab import calibrate

    try:
        if args.gpu:
            return calibrate.reference(args.gpu)
        if _use_simulator_without_gpu():
            return calibrate.reference("H200")
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        return None
    from .lab.runner import device_description

    return calibrate.for_device(device_description()[0])


def _speed_lines(kernel, side: int, itemsize: int, registers: int, c) -> list[str]:
    """The speed model's reasoning for one kernel on a side x side matrix, in words and numbers."""
    from .explain.report import constants_line
    from .explain.speed import predict

    p = predict(kernel, side, side, itemsize, c, registers)
    t = p.traits
    ms = {k: v * 1e3 for k, v in p.terms.items()}
    barrier = (f" + barrier, start and exit {c.block_ns + c.block_ns_per_warp * t.threads / 32:.0f} ns"
               if t.barrier else "")
    return [
        f"speed on {side}x{side}: " + constants_line(c),
        f"  blocks of {t.threads} threads, {t.blocks_per_sm} per SM, {t.elements_per_block} elements each: "
        f"{p.waves} waves",
        f"  one block: {t.rounds} x {c.latency_ns:.0f} ns load latency{barrier} + "
        f"{t.wavefronts_per_block:.0f} shared wavefronts ({t.wavefronts_per_block / c.shared_wavefronts_per_ns:.0f}"
        f" ns) = {p.block_ns:.0f} ns",
        f"  loads in flight: {p.in_flight_kib:.0f} KiB per SM ({t.loads_per_thread} a thread); {p.needed_kib:.0f} "
        f"KiB keep a stream at 90% of the copy",
        f"  DRAM pages: {100 * t.loads_rows_apart:.0f}% of loads and {100 * t.stores_rows_apart:.0f}% of stores "
        f"start rows apart from the previous block's: +{ms['pages']:.3f} ms on the copy's "
        f"{ms['dram'] - ms['pages']:.3f}",
        f"  times (ms): DRAM {ms['dram']:.3f}, latency {ms['latency']:.3f}, shared {ms['shared']:.3f} -> memory "
        f"{ms['memory']:.3f} (in quadrature); L1 lines {ms['l1']:.3f}; partial-sector stores {ms['partial']:.3f};"
        f" launch {ms['launch']:.3f}",
        f"  model: {p.gbps:,.0f} GB/s ({100 * p.gbps / c.copy_gbps:.0f}% of the device copy), limited by "
        f"{p.limiter}",
    ]


def cmd_tune(args: argparse.Namespace) -> int:
    """Autotune the GPU engine for each case of a suite; every candidate's timing goes to the tuning cache. With
    --device cpu: measure the CPU vector kernel's tile for each element size on this host again."""
    import cornerturn
    from cornerturn.engine import tune

    from .bench.suites import suite

    if args.device == "cpu":
        from .cpu import host_tiles, planner

        try:
            entries = host_tiles.remeasure()
        except ValueError as error:
            console.print(f"[red]tune: {error}[/red]")
            return 2
        console.print(f"{host_tiles.host_name()}: {host_tiles.cache_file()}", highlight=False)
        for key, entry in sorted(entries.items(), key=lambda item: (int(item[0].split()[0]), item[0])):
            size, *aliased = key.split()
            rows, cols = entry["tile"]
            where = " (rows a multiple of 512 B apart)" if aliased else ""
            scores = ", ".join(f"{tile} {score:.2f}" for tile, score in entry["score"].items())
            staged = ", staged" if entry["staged"] else ""
            if entry.get("plain"):
                staged += f" (under {planner.STAGED_MIN_BYTES >> 20} MiB: {entry['plain'][0]} x {entry['plain'][1]})"
            console.print(f"  {size}-byte elements{where}: tiles of {rows} x {cols}{staged} (speed of each against "
                          f"the best on each probe, geometric mean: {scores})", highlight=False)
        return 0

    if not _gpu_present():
        console.print("[red]tune: needs a GPU and the GPU engine (cornerturn info says why not)[/red]")
        return 2
    tune.DEFAULT_BUDGET_S = args.budget
    console.print(f"tuning cache: {tune.cache_dir() or 'off (CORNERTURN_CACHE_DIR=off): nothing is kept'}")
    for case in suite(args.suite):
        before = cornerturn.plan(case.shape, case.dtype, device="cuda", axes=case.axes)
        after = cornerturn.plan(case.shape, case.dtype, device="cuda", axes=case.axes, autotune=True)
        console.print(f"{case.name}: heuristic {before.method} -> {after.method} ({after.reason})", highlight=False)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """The main job: what this machine has, then the benchmark on the best device, with JSON and a plot."""
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    cmd_info(args)
    device = "cuda" if _gpu_present() else "cpu"
    console.rule(f"benchmark on {device}")
    bench_args = argparse.Namespace(device=device, suite=args.suite, methods=None, repeats=args.repeats,
                                    seed=args.seed, cases=args.cases,
                                    json=str(out / f"bench-{device}.json"), plot=str(out / f"bench-{device}.png"),
                                    no_progress=args.no_progress)
    code = cmd_bench(bench_args)
    console.rule("lab" + (" (simulator)" if device == "cpu" else ""))
    lab_args = argparse.Namespace(rows=None, cols=None, size=args.lab_size, dtype="float32", kernels=None,
                                  repeats=args.repeats, profile=False, json=str(out / "lab.json"),
                                  plot=str(out / "lab.png"), no_progress=args.no_progress)
    return code or cmd_lab(lab_args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cornerturn",
        description="Matrix transposition at the memory-bandwidth limit, and a lab of the classic CUDA kernels.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("run", help="the main job: info, the benchmark on the GPU (or the CPU without one), then "
                                   "the lab (on the GPU, or checked in the simulator)")
    p.add_argument("--output", default="cornerturn-results", help="folder for JSON and plots")
    p.add_argument("--suite", default=None, help="benchmark suite (default: cuda on a GPU, cpu otherwise; random "
                                                 "needs --seed)")
    p.add_argument("--seed", type=int, default=None, help="--suite random: the seed that draws the shapes")
    p.add_argument("--cases", type=int, default=None, help="--suite random: how many")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per case and method (median reported)")
    p.add_argument("--lab-size", type=int, default=None, help="lab matrix side (default 8192; 70 in the simulator)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", help="time cornerturn against the copy ceiling and other libraries")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--suite", default=None, help="tiny, cpu, small, cuda, cuda-small, random (shapes drawn from "
                                                 "--seed), or permute (permute_dims; with --seed, random "
                                                 "permutations follow); default: cuda on a GPU, cpu otherwise")
    p.add_argument("--seed", type=int, default=None, help="--suite random or permute: the seed that draws the shapes")
    p.add_argument("--case", action="append", default=None, metavar="CASE",
                   help="your own case instead of a suite, as the tables name it (repeat for more): 'bfloat16 "
                        "6000x6000', 'float16 8 x (5428x1038)' (the last two axes swap), or 'float16 "
                        "64x256x56x56 (0,2,3,1)' (permute_dims by those axes)")
    p.add_argument("--cases", type=int, default=None, help="--suite random: how many (default 64 on a GPU, 16 on "
                                                           "the CPU)")
    p.add_argument("--methods", default=None, help="comma-separated peers to run (the copy always runs)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per case and method (median reported)")
    p.add_argument("--json", default=None, metavar="PATH", help="write results, machine and versions as JSON")
    p.add_argument("--plot", default=None, metavar="PATH", help="write a PNG plot of bandwidth per case")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--inplace", action="store_true",
                   help="cornerturn.transpose_ against out of place plus a copy back (suites: cuda, cpu, tiny, "
                        "or random: squares of sides 3000-40000 drawn from --seed)")
    p.add_argument("--distributed", action="store_true",
                   help="under torchrun: the row-sharded transpose across the ranks (see --rows, --cols, --chunks)")
    p.add_argument("--rows", type=int, default=32768, help="--distributed: rows of the global matrix")
    p.add_argument("--cols", type=int, default=32768, help="--distributed: columns of the global matrix")
    p.add_argument("--dtype", default="float32", help="--distributed: element type")
    p.add_argument("--chunks", type=int, default=None, help="--distributed: pipeline pieces (default: by size)")
    p.add_argument("--method", choices=("auto", "all_to_all", "direct"), default="auto",
                   help="--distributed: direct stores over the GPU links, or pack + all_to_all + unpack "
                        "(auto: direct where every rank can)")
    p.add_argument("--copy-streams", choices=("one", "per_peer"), default=None,
                   help="--distributed, direct method: each rank's copies on one stream, one peer after another "
                        "(the default), or one stream per peer, to all peers at once")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("lab", help="run the classic CUDA transpose kernels: check, time, model (simulator "
                                   "without a GPU)")
    p.add_argument("--size", type=int, default=None, help="square matrix side (default 8192; 70 in the simulator)")
    p.add_argument("--rows", type=int, default=None)
    p.add_argument("--cols", type=int, default=None)
    p.add_argument("--dtype", default="float32", choices=("uint8", "int8", "float16", "float32", "float64"))
    p.add_argument("--kernels", default=None, help="comma-separated kernel names (default: all)")
    p.add_argument("--repeats", type=int, default=10, help="timed repeats per kernel (median reported)")
    p.add_argument("--profile", action="store_true", help="read Nsight Compute counters next to the model")
    p.add_argument("--calibrate", action="store_true",
                   help="measure the speed model's constants on this GPU again (else they come from its cache)")
    p.add_argument("--constants", default=None, metavar="GPU",
                   help="use a shipped reference GPU's constants (H100, H200); the simulator uses the H200's")
    p.add_argument("--json", default=None, metavar="PATH")
    p.add_argument("--plot", default=None, metavar="PATH", help="bar chart PNG")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_lab)

    p = sub.add_parser("explain", help="the model of one lab kernel: sectors, bank conflicts, occupancy, picture")
    p.add_argument("kernel", help="a lab kernel name (cornerturn lab lists them)")
    p.add_argument("--gpu", default=None, help="a reference GPU whose measured constants the speed model uses "
                                               "(H100, H200); default: the current GPU's, else the H200's")
    p.add_argument("--dtype", default="float32", choices=("uint8", "int8", "float16", "float32", "float64"))
    p.add_argument("--registers", type=int, default=32, help="registers per thread for occupancy")
    p.add_argument("--size", type=int, default=8192, help="matrix side for the speed model (default 8192)")
    p.add_argument("--png", default=None, metavar="PATH", help="write a picture of one warp's accesses")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("tune", help="autotune the GPU engine on a suite's cases (kept in the tuning cache), or "
                                    "measure the CPU's tiles on this host (--device cpu)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda", help="the engine to tune (default: cuda)")
    p.add_argument("--suite", default="cuda", help="cases to tune (default: cuda; permute: permute_dims' cases)")
    p.add_argument("--budget", type=float, default=30.0, help="seconds of measuring per case")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("report", help="a saved benchmark JSON as a table (or Markdown), its distribution and "
                                      "plot")
    p.add_argument("path", help="JSON written by cornerturn bench --json")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (for README and docs)")
    p.add_argument("--plot", default=None, metavar="PATH", help="write its PNG plot")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("info", help="versions, devices, and which backends are available and why not")
    p.set_defaults(func=cmd_info)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if getattr(args, "repeats", 1) < 1:
        parser.error("--repeats must be >= 1")
    for name in ("size", "rows", "cols", "cases"):
        if getattr(args, name, None) is not None and getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1")
    if args.command in ("run", "lab"):
        _use_simulator_without_gpu()  # before anything imports numba.cuda
    try:
        from .bench.suites import NAMES

        if getattr(args, "suite", None) and args.suite not in NAMES:
            parser.error(f"--suite: unknown {args.suite!r}; choose one of {', '.join(NAMES)}")
        return args.func(args)
    except KeyboardInterrupt:
        console.print("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
