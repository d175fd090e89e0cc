"""Run a suite: for each case, every peer on the same input, each checked bit-exact, then timed."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from .peers import HOST_PEERS, Peer
from .suites import Case


@dataclass
class Result:
    case: str
    shape: tuple[int, ...]
    dtype: str
    bytes_moved: int
    method: str
    role: str
    median_s: float | None = None
    min_s: float | None = None
    max_s: float | None = None
    repeats: int = 0
    wall_s: float | None = None  # host wall time per call, launched back to back (GPU, small cases)
    verified: bool | None = None  # None: the reference itself (or not run)
    note: str = ""

    @property
    def gbps(self) -> float | None:
        return self.bytes_moved / self.median_s / 1e9 if self.median_s else None


@dataclass
class BenchReport:
    device: str
    device_name: str
    suite: str
    results: list[Result] = field(default_factory=list)
    seed: int | None = None  # the random suite's seed
    date: str = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    command: str = field(default_factory=lambda: " ".join(["cornerturn", *sys.argv[1:]]))

    def as_dict(self) -> dict:
        from ..info import versions

        return {
            "schema": 1, "date": self.date, "command": self.command, "device": self.device,
            "device_name": self.device_name, "suite": self.suite, "seed": self.seed, "versions": versions(),
            "results": [{**asdict(r), "gbps": r.gbps} for r in self.results],
        }

    @classmethod
    def from_dict(cls, data: dict) -> BenchReport:
        """A report as written by `as_dict` (the JSON of `cornerturn bench --json`)."""
        fields = Result.__dataclass_fields__
        results = [Result(**{k: (tuple(v) if k == "shape" else v) for k, v in r.items() if k in fields})
                   for r in data["results"]]
        return cls(data["device"], data["device_name"], data["suite"], results, data.get("seed"), data["date"],
                   data["command"])

    def cases(self) -> list[str]:
        return list(dict.fromkeys(r.case for r in self.results))

    def methods(self) -> list[str]:
        return list(dict.fromkeys(r.method for r in self.results))

    def get(self, case: str, method: str) -> Result | None:
        return next((r for r in self.results if r.case == case and r.method == method), None)


def peers_for(device: str) -> tuple[Peer, ...]:
    if device == "cpu":
        return HOST_PEERS
    if device == "cuda":
        from .cuda_peers import CUDA_PEERS

        return CUDA_PEERS
    raise ValueError(f"device: expected 'cpu' or 'cuda', got {device!r}")


def _device(name: str):
    if name == "cpu":
        from .host import HostDevice

        return HostDevice()
    from .cuda_device import CudaDevice

    return CudaDevice()


def run_suite(cases: Iterable[Case], device: str, suite_name: str, *, methods: Iterable[str] | None = None,
              repeats: int = 5, progress=None, seed: int | None = None) -> BenchReport:
    """Run every case with every available peer; `progress(advance_by, description)` is told as it goes."""
    cases = list(cases)
    peers: list[Peer] = [p for p in peers_for(device) if methods is None or p.name in methods or
                         p.role == "ceiling"]
    dev = _device(device)
    report = BenchReport(device, dev.describe(), suite_name, seed=seed)
    for case in cases:
        try:
            x = dev.input(case)
        except (ImportError, TypeError) as exc:
            for peer in peers:
                report.results.append(_result(case, peer, note=f"input not made: {exc}"))
                _tell(progress, 1, f"{case.name}: skipped")
            continue
        reference = None
        timed: dict[str, tuple[Result, object]] = {}  # peers that ran: timed together below
        for peer in peers:
            _tell(progress, 0, f"{case.name}: {peer.name}")
            result = _result(case, peer)
            report.results.append(result)
            why_not = peer.missing() or (None if peer.runs(case) else "not supported for this case")
            if why_not:
                result.note = why_not
                _tell(progress, 1, "")
                continue
            out = dev.output(case)
            try:
                fn = peer.factory(case, x, out)
                fn()
            except Exception as exc:  # a peer that fails is reported, not fatal
                result.note = f"failed: {type(exc).__name__}: {exc}"[:200]
                _tell(progress, 1, "")
                continue
            if peer.role == "ceiling":
                result.verified = dev.as_copy_of(x, out)
            elif reference is None:
                reference = out  # the first transposing peer (NumPy or torch) is the reference
            else:
                result.verified = dev.same_bits(out, reference)
            timed[peer.name] = (result, fn)
            _tell(progress, 1, "")
        # every peer and the ceiling in the same interleaved rounds, so that drift on a shared machine moves all
        _tell(progress, 0, f"{case.name}: timing {len(timed)} methods in rounds")
        timings = dev.time_rounds({name: fn for name, (_, fn) in timed.items()}, repeats) if timed else {}
        wall = getattr(dev, "wall", None)
        for name, (result, fn) in timed.items():
            timing = timings[name]
            result.median_s, result.min_s, result.max_s = timing.median, timing.min, timing.max
            result.repeats = len(timing.seconds)
            result.wall_s = wall(fn) if wall else None
        del timed, timings
        del x, reference
        dev.release()
    return report


def _result(case: Case, peer: Peer, note: str = "") -> Result:
    return Result(case.name, case.shape, case.dtype, case.bytes_moved, peer.name, peer.role, note=note)


def _tell(progress, advance: int, description: str) -> None:
    if progress is not None:
        progress(advance, description)
