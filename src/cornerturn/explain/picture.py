"""A picture of one warp's accesses in a lab kernel: the 128-byte lines each thread touches in global memory and
the bank each thread hits in shared memory; for a padded kernel also its unpadded twin (before padding)."""

from __future__ import annotations

from pathlib import Path

from ..lab.registry import get
from .model import Access, model


def _panel(ax, access: Access, title: str) -> None:
    threads = list(range(len(access.addresses)))
    if access.space == "global":
        lines = access.lines
        base = min(lines)
        ys = [ln - base for ln in lines]
        ax.scatter(threads, ys, s=18, c=ys, cmap="viridis")
        ax.set_ylim(-0.5, max(ys) + 0.5)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.set_ylabel("128-byte line (relative)")
        note = f"{access.sectors} sectors / request (ideal {access.ideal_sectors})"
    else:
        ys = list(access.banks())
        ax.scatter(threads, ys, s=18, c=ys, cmap="tab20", vmin=0, vmax=31)
        ax.set_ylim(-1, 32)
        ax.set_ylabel("bank")
        note = f"{access.ways}-way" + (" (no conflict)" if access.ways == 1 else " bank conflict")
    ax.set_xlabel("thread of the warp")
    ax.set_title(f"{title}\n{access.space} {access.op} {access.what}: {note}", fontsize=8)
    ax.grid(alpha=0.3)


def draw(kernel: str, path: str | Path, itemsize: int = 4) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = get(kernel)
    panels = [(a, k.name) for a in model(k, itemsize).accesses]
    if k.unpadded_twin:
        twin = model(k.unpadded_twin, itemsize)
        panels += [(a, f"{k.unpadded_twin} (before padding)") for a in twin.of("shared", "load")]
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for ax, (access, title) in zip(axes.flat, panels):
        _panel(ax, access, title)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(f"{k.name}: {k.teaches} ({itemsize}-byte elements, warp 0 of an interior block)", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
