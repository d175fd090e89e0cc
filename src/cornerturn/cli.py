"""The `cornerturn` command: run (the main job), bench, info."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

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


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import report
    from .bench.peers import peers_for
    from .bench.runner import run_suite
    from .bench.suites import suite

    device = args.device
    if device == "auto":
        device = "cuda" if _gpu_present() else "cpu"
    suite_name = args.suite or ("cuda" if device == "cuda" else "cpu")
    cases = suite(suite_name)
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

        result = run_suite(cases, device, suite_name, methods=methods, repeats=args.repeats, progress=progress)
    console.print(report.table(result))
    for m in ("numpy", "torch"):
        g = report.geomean_speedup(result, m)
        if g:
            console.print(f"geometric-mean speedup of cornerturn over {m}: {g:.2f}x")
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


def cmd_run(args: argparse.Namespace) -> int:
    """The main job: what this machine has, then the benchmark on the best device, with JSON and a plot."""
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    cmd_info(args)
    device = "cuda" if _gpu_present() else "cpu"
    console.rule(f"benchmark on {device}")
    bench_args = argparse.Namespace(device=device, suite=args.suite, methods=None, repeats=args.repeats,
                                    json=str(out / f"bench-{device}.json"), plot=str(out / f"bench-{device}.png"),
                                    no_progress=args.no_progress)
    return cmd_bench(bench_args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cornerturn",
        description="Matrix transposition at the memory-bandwidth limit, and a lab of the classic CUDA kernels.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("run", help="the main job: info, then the benchmark on the GPU (or the CPU without one)")
    p.add_argument("--output", default="cornerturn-results", help="folder for JSON and plots")
    p.add_argument("--suite", default=None, help="benchmark suite (default: cuda on a GPU, cpu otherwise)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per case and method (median reported)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", help="time cornerturn against the copy ceiling and other libraries")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--suite", default=None, help="tiny, cpu, small, cuda, cuda-small (default: by device)")
    p.add_argument("--methods", default=None, help="comma-separated peers to run (the copy always runs)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per case and method (median reported)")
    p.add_argument("--json", default=None, metavar="PATH", help="write results, machine and versions as JSON")
    p.add_argument("--plot", default=None, metavar="PATH", help="write a PNG plot of bandwidth per case")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_bench)

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
    try:
        from .bench.suites import SUITES

        if getattr(args, "suite", None) and args.suite not in SUITES:
            parser.error(f"--suite: unknown {args.suite!r}; choose one of {', '.join(SUITES)}")
        return args.func(args)
    except KeyboardInterrupt:
        console.print("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
