"""``mindsport evaluate`` and ``mindsport import``: compare rating models on a match history one
step ahead in time, and turn any supported source into a match file.

``evaluate_command`` and ``import_command`` are command functions, registered on the root
``mindsport`` command. This module imports only typer; the rating core loads when a command
runs. Errors are printed by the command line's error boundary (:mod:`mindsport.cli.boundary`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mindsport.cli.options import output_file, output_folder, parse_names
from mindsport.errors import MindsportError
from mindsport.files import write_atomically

if TYPE_CHECKING:
    from rich.console import Console

    from mindsport.history.evaluate import Metrics
    from mindsport.history.replay import MatchPrediction
    from mindsport.history.threeway import ThreeWay
    from mindsport.match import Match

__all__ = ["evaluate_command", "import_command", "run_evaluation"]

_SOURCE_HELP = (
    "A match file (.jsonl/.csv/.parquet) or a public data folder/file (tennis_atp, "
    "halo2/HeadToHead.csv, ti4/ti4.csv; detected from the names and the first line)."
)


def _write_text(path: Path, text: str) -> None:
    def w(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)

    write_atomically(path, w)


def run_evaluation(
    matches: list[Match],
    model_names: list[str],
    *,
    do_fit: bool,
    train_fraction: float,
    start: float | None,
    console: Console | None = None,
) -> tuple[
    dict[str, Metrics],
    dict[str, Sequence[MatchPrediction]],
    dict[str, str],
    dict[str, dict[str, Any]],
    int,
]:
    """Evaluate (and optionally fit) each named model; models that can't take the data are
    reported in the third result (name -> reason) instead of stopping the run. The second result
    holds each model's predictions (a whole-history model's from refits before each block of
    the scored matches, :func:`mindsport.history.rolling.rolling_predictions`)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from mindsport.history.evaluate import score_predictions
    from mindsport.history.fit import fit
    from mindsport.history.replay import replay
    from mindsport.history.rolling import WholeHistoryModel, rolling_predictions
    from mindsport.rating.registry import build_model

    n = len(matches)
    if n < 2:
        raise MindsportError(f"need at least 2 matches to evaluate, got {n}")
    s_frac = train_fraction if (start is None and do_fit) else (start or 0.0)
    if not 0 <= s_frac < 1:
        raise MindsportError(f"--start must be in [0, 1), got {s_frac}")
    s_idx = math.floor(s_frac * n)
    metrics: dict[str, Metrics] = {}
    replays: dict[str, Sequence[MatchPrediction]] = {}
    skipped: dict[str, str] = {}
    params: dict[str, dict[str, Any]] = {}
    con = console or Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=con,
        transient=True,
        disable=n < 2000,
    ) as bar:
        for name in model_names:
            try:
                if do_fit:
                    task = bar.add_task(f"fitting {name}", total=None)

                    def advance(_p: dict[str, Any], _v: float, _t: Any = task) -> None:
                        bar.advance(_t)

                    res = fit(name, matches, train_fraction, progress=advance)
                    model = res.model
                    params[name] = res.params
                    bar.remove_task(task)
                else:
                    model = build_model(name)
                    params[name] = {}
                if isinstance(model, WholeHistoryModel):
                    task = bar.add_task(f"refitting {name}", total=None)
                    preds: Sequence[MatchPrediction] = rolling_predictions(
                        model, matches, start=s_idx
                    )
                else:
                    task = bar.add_task(f"replaying {name}", total=n)

                    def done_so_far(done: int, _t: Any = task) -> None:
                        bar.update(_t, completed=done)

                    r = replay(model, matches, keep_history=False, progress=done_so_far)
                    preds = r.predictions
                bar.remove_task(task)
            except MindsportError as exc:
                skipped[name] = str(exc)
                continue
            replays[name] = preds
            metrics[name] = score_predictions(preds, s_idx)
    return metrics, replays, skipped, params, s_idx


def _plot_calibration(path: Path, metrics: dict[str, Metrics]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    for name, m in metrics.items():
        pts = [(b.mean_predicted, b.observed) for b in m.calibration if b.count > 0]
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, marker="o", label=f"{name} (log-loss {m.log_loss:.4f})")
    ax.set_xlabel("predicted probability of finishing ahead")
    ax.set_ylabel("observed frequency")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title("Calibration (one step ahead)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()

    def w(tmp: Path) -> None:
        fig.savefig(tmp, format="png", dpi=120)

    try:
        write_atomically(path, w)
    finally:
        plt.close(fig)


def _predictions_csv(replays: dict[str, Sequence[MatchPrediction]], start: int) -> str:
    buf = io.StringIO()
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(
        ["model", "match_index", "match_id", "team_a", "team_b", "p_a_ahead", "outcome", "scored"]
    )
    for name, preds in replays.items():
        for mp in preds:
            for i, j, p, y in mp.pairs:
                scored = int(mp.index >= start and y != 0.5)
                wr.writerow([name, mp.index, mp.match_id, i, j, repr(p), y, scored])
    return buf.getvalue()


_WDL_COLUMNS = (
    "wdl_matches",
    "wdl_log_loss",
    "wdl_brier",
    "draw_rate_predicted",
    "draw_rate_observed",
    "ahead_rate_predicted",
    "ahead_rate_observed",
    "wdl_source",
    "nu",
)


def _wdl_cells(tw: ThreeWay | None) -> list[str]:
    if tw is None:
        return [""] * len(_WDL_COLUMNS)
    d = tw.as_dict()
    return [
        "" if d[k] is None else repr(d[k]) if isinstance(d[k], float) else str(d[k])
        for k in _WDL_COLUMNS
    ]


def _metrics_csv(
    metrics: dict[str, Metrics],
    params: dict[str, dict[str, Any]],
    baseline: ThreeWay | None = None,
) -> str:
    buf = io.StringIO()
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(
        [
            "model",
            "matches",
            "pairs",
            "log_loss",
            "brier",
            "accuracy",
            "prediction_error",
            "params",
            *_WDL_COLUMNS,
        ]
    )
    for name, m in metrics.items():
        d = m.as_dict()
        wr.writerow(
            [
                name,
                d["matches"],
                d["pairs"],
                repr(m.log_loss),
                repr(m.brier),
                repr(m.accuracy),
                repr(m.prediction_error),
                ";".join(
                    f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in params.get(name, {}).items()
                ),
                *_wdl_cells(m.three_way),
            ]
        )
    if baseline is not None:
        wr.writerow(["constant", "", "", "", "", "", "", "", *_wdl_cells(baseline)])
    return buf.getvalue()


def _wdl_row(tw: ThreeWay | None) -> list[str]:
    if tw is None:
        return ["-", "-", "-"]
    return [
        f"{tw.log_loss:.4f}",
        f"{tw.brier:.4f}",
        f"{tw.draw_rate_predicted:.3f}/{tw.draw_rate_observed:.3f}",
    ]


def evaluate_command(
    file: Annotated[Path, typer.Argument(help=_SOURCE_HELP)],
    models: Annotated[
        str,
        typer.Option(
            "--models",
            "-m",
            help="Comma-separated model names (see `mindsport leagues models`).",
        ),
    ] = "trueskill,elo,glicko2,tenhou,pairwise",
    do_fit: Annotated[
        bool, typer.Option("--fit", help="Fit each model's settings on the first --train part.")
    ] = False,
    train: Annotated[
        float, typer.Option("--train", min=0.0, max=1.0, help="Training fraction for --fit.")
    ] = 0.7,
    start: Annotated[
        float | None,
        typer.Option(
            "--start",
            help="Score matches from this fraction on (default: --train with --fit, else 0).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder for calibration.png, predictions.csv and metrics.csv (created).",
            callback=output_folder,
        ),
    ] = None,
) -> None:
    """Replay a match history through rating models and compare their one-step-ahead predictions
    (log-loss, Brier, accuracy, prediction error, calibration of decisive pairs; for two-team
    matches also the win/draw/loss log-loss and Brier and the draw rate predicted against the
    observed, beside a constant baseline of the training part's rates; see docs/models.md)."""
    from rich.console import Console
    from rich.table import Table

    from mindsport.history.importers import import_matches
    from mindsport.history.threeway import constant_baseline
    from mindsport.rating.registry import get_spec

    console = Console()
    err = Console(stderr=True)
    names = [x.lower() for x in parse_names(models, "--models", "model names")]
    for x in names:
        get_spec(x)  # an unknown name is refused before any work
    imported = import_matches(file)
    if imported.dropped:
        typer.echo(imported.summary(), err=True)
    matches = imported.matches
    metrics, replays, skipped, params, s_idx = run_evaluation(
        matches, names, do_fit=do_fit, train_fraction=train, start=start, console=err
    )
    baseline = constant_baseline(matches, s_idx)
    wdl = baseline is not None or any(m.three_way is not None for m in metrics.values())
    table = Table(title=f"{file} — {len(matches)} matches, scored from #{s_idx}")
    cols = ["model", "pairs", "log-loss", "Brier", "accuracy", "pred. error"]
    if wdl:
        cols += ["W/D/L log-loss", "W/D/L Brier", "draws pred./obs."]
    for col in [*cols, "settings"]:
        table.add_column(col, justify="left" if col in ("model", "settings") else "right")
    best = min((m.log_loss for m in metrics.values() if not math.isnan(m.log_loss)), default=None)
    for name, m in metrics.items():
        ll = f"{m.log_loss:.4f}"
        if best is not None and m.log_loss == best:
            ll = f"[bold green]{ll}[/]"
        settings = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in params.get(name, {}).items()
        )
        if m.three_way is not None and m.three_way.nu is not None:
            settings = ", ".join(x for x in (settings, f"Davidson nu={m.three_way.nu:.4g}") if x)
        row = [
            name,
            str(m.pairs),
            ll,
            f"{m.brier:.4f}",
            f"{m.accuracy:.4f}",
            f"{m.prediction_error:.4f}",
        ]
        if wdl:
            row += _wdl_row(m.three_way)
        table.add_row(*row, settings)
    if baseline is not None:
        table.add_row("constant", "", "", "", "", "", *_wdl_row(baseline), "training rates")
    console.print(table)
    for name, why in skipped.items():
        err.print(f"[yellow]skipped {name}:[/] {why}")
    if out is not None and metrics:
        _plot_calibration(out / "calibration.png", metrics)
        _write_text(out / "predictions.csv", _predictions_csv(replays, s_idx))
        _write_text(out / "metrics.csv", _metrics_csv(metrics, params, baseline))
        console.print(
            f"wrote {out / 'calibration.png'}, {out / 'predictions.csv'}, {out / 'metrics.csv'}"
        )
    if not metrics:
        raise MindsportError(f"{file}: none of the models {names} can rate it (reasons above)")


def import_command(
    source: Annotated[Path, typer.Argument(help=_SOURCE_HELP)],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="The match file to write: .jsonl, .csv (long format) or .parquet, by extension.",
            callback=output_file,
        ),
    ],
) -> None:
    """Read match results from any source the other commands read and write them as a match
    file; says how many matches were read and every row dropped, with the reason."""
    from mindsport.history.importers import import_matches
    from mindsport.history.io import write_matches

    imported = import_matches(source)
    n = write_matches(out, imported.matches)
    typer.echo(imported.summary())
    typer.echo(f"wrote {n:,} matches to {out}")
