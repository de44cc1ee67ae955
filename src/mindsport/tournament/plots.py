"""Plots (PNG, matplotlib's Agg canvas, no pyplot state), each written atomically.

* :func:`plot_gdi_distribution`: one histogram per GDI component over a hand library, with the
  equal-strength centre marked;
* :func:`plot_dih_curve`: DIH against the number of rounds;
* :func:`plot_rank_heatmap`: probability of each entrant finishing at each place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.files import write_atomically
from mindsport.tournament.errors import TournamentError

__all__ = [
    "plot_dih_curve",
    "plot_gdi_distribution",
    "plot_rank_heatmap",
    "plot_validation_grid",
]


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: str | Path) -> Path:
    def write(tmp: Path) -> None:
        fig.savefig(tmp, format="png")

    return write_atomically(path, write)


def plot_gdi_distribution(
    gdis: Sequence[Sequence[float]] | npt.ArrayLike,
    path: str | Path,
    *,
    centre: Sequence[float] | None = None,
    levels: Sequence[float] | None = None,
    bins: int = 20,
) -> Path:
    """Histogram of each GDI component g_i (one panel each) over the hands of a library."""
    matrix = np.asarray(gdis, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise TournamentError(f"gdis must be a hands x components table, got shape {matrix.shape}")
    k = matrix.shape[1]
    fig = _figure(3.2 * k, 3.0)
    axes = fig.subplots(1, k, squeeze=False)[0]
    for i, ax in enumerate(axes):
        ax.hist(matrix[:, i], bins=bins, range=(0.0, 1.0), color="tab:blue", alpha=0.8)
        label = f"g{i + 1}"
        if levels is not None and len(levels) > i + 1:
            label += f": P(score >= {levels[i + 1]:g})"
        ax.set_title(label, fontsize=9)
        ax.set_xlim(0.0, 1.0)
        if centre is not None and len(centre) > i:
            ax.axvline(centre[i], color="tab:red", linestyle="--", linewidth=1)
    axes[0].set_ylabel("hands")
    fig.suptitle(f"GDI distribution over {matrix.shape[0]} hands", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def plot_dih_curve(
    curves: Mapping[str, Sequence[tuple[int, float]]] | Sequence[tuple[int, float]],
    path: str | Path,
    *,
    title: str = "DIH against rounds",
) -> Path:
    """DIH against rounds; ``curves`` is ``[(rounds, dih), ...]`` or ``{label: [...]}``."""
    series = curves if isinstance(curves, Mapping) else {"DIH": curves}
    if not series or any(len(points) == 0 for points in series.values()):
        raise TournamentError("curves is empty: nothing to plot")
    fig = _figure(6.0, 4.0)
    ax = fig.subplots()
    for label, points in series.items():
        xs = [int(m) for m, _ in points]
        ys = [float(d) for _, d in points]
        ax.plot(xs, ys, marker="o", label=str(label))
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("rounds")
    ax.set_ylabel("DIH (top places distinct)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend()
    fig.tight_layout()
    return _save(fig, path)


def plot_rank_heatmap(
    probabilities: npt.ArrayLike,
    path: str | Path,
    *,
    labels: Sequence[str] | None = None,
    title: str = "Place probabilities",
) -> Path:
    """Heatmap of ``probabilities[entrant, place - 1]`` (e.g. from ``place_probabilities``)."""
    table = np.asarray(probabilities, dtype=np.float64)
    if table.ndim != 2 or table.size == 0:
        raise TournamentError(f"probabilities must be a 2-d table, got shape {table.shape}")
    if labels is not None and len(labels) != table.shape[0]:
        raise TournamentError(f"{len(labels)} labels for {table.shape[0]} rows")
    rows, cols = table.shape
    fig = _figure(max(4.0, 0.6 * cols + 2), max(3.0, 0.4 * rows + 1.5))
    ax = fig.subplots()
    image = ax.imshow(table, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    fig.colorbar(image, ax=ax, label="probability")
    ax.set_xticks(range(cols), [str(c + 1) for c in range(cols)])
    ax.set_yticks(range(rows), labels if labels is not None else [str(r) for r in range(rows)])
    ax.set_xlabel("place")
    ax.set_ylabel("entrant")
    ax.set_title(title)
    if rows * cols <= 144:
        for r in range(rows):
            for c in range(cols):
                color = "white" if table[r, c] < 0.5 else "black"
                ax.text(
                    c, r, f"{table[r, c]:.2f}", ha="center", va="center", fontsize=7, color=color
                )
    fig.tight_layout()
    return _save(fig, path)


def plot_validation_grid(cells: Sequence[Any], path: str | Path) -> Path:
    """The DIH paper's validation: P1 (dashed) and P2 (solid) against rounds, one colour per n.

    ``cells`` have ``players``, ``rounds``, ``p_random`` and ``p_selected`` (``GridCell``).
    """
    if len(cells) == 0:
        raise TournamentError("cells is empty: nothing to plot")
    fig = _figure(6.0, 4.0)
    ax = fig.subplots()
    for k, n in enumerate(sorted({int(c.players) for c in cells})):
        row = sorted((c for c in cells if int(c.players) == n), key=lambda c: int(c.rounds))
        ms = [int(c.rounds) for c in row]
        colour = f"C{k}"
        ax.plot(ms, [c.p_random for c in row], "--o", color=colour, label=f"P1 n={n}")
        ax.plot(ms, [c.p_selected for c in row], "-s", color=colour, label=f"P2 n={n}")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("rounds m")
    ax.set_ylabel("P(top totals distinct)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Random hands (P1) vs selected test cases (P2)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return _save(fig, path)
