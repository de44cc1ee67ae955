"""``mindsport tournament``: DIH, test-case selection, GDI libraries and Swiss pairings, and the
experiments of the two papers on engine games (validate, compare, validate-grid,
validate-formats); the deal generator, ``generate``, is in :mod:`mindsport.cli.tournament_generate`
(the root adds it to this group, last).

This module imports only typer: NumPy, the engine and the experiments load when a command runs.
Errors are printed by the command line's error boundary (:mod:`mindsport.cli.boundary`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mindsport.cli.boundary import new_app
from mindsport.cli.options import (
    output_file,
    output_folder,
    parse_bot_specs,
    parse_counts,
    parse_levels,
    parse_numbers,
)
from mindsport.errors import MindsportError

if TYPE_CHECKING:
    from mindsport.tournament.swiss import SwissRound

app = new_app(
    "Tournament science: hand discrimination (DIH), difficulty (GDI), Swiss tables.",
    name="tournament",
)

# the defaults of the equal-strength study (Dou Dizhu deals with exactly one bomb): landlord
# scores -2, -1, 1, 2, the centre of equal strength and its radius; the same numbers as
# mindsport.tournament.gdi's constants (a test keeps them equal), written out so that the help
# needs no NumPy
GDI_LEVELS = "-2,-1,1,2"
GDI_CENTRE = "0.96,0.91,0.79"
_EPSILON = 0.15


ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where engine games run: local (worker processes), serial, or ray "
        "(pip install 'mindsport[ray]'). Same results for the same --seed on any of them.",
    ),
]
WorkersOption = Annotated[
    int,
    typer.Option(help="Local worker processes, or Ray CPUs for a local Ray (0: all cores)."),
]
AddressOption = Annotated[
    str | None, typer.Option(help="Ray cluster address (e.g. auto or ray://head:10001).")
]


@app.command()
def dih(
    scores: Annotated[str, typer.Option(help="Per-round scores, comma-separated: -2,-1,1,2")],
    probs: Annotated[str, typer.Option(help="Their probabilities, comma-separated: 0,0.6,0.4,0")],
    players: Annotated[int, typer.Option(help="Players in the event.")],
    rounds: Annotated[int, typer.Option(help="Rounds played.")],
    top: Annotated[int, typer.Option(help="Top places that must have distinct totals.")],
    plot: Annotated[
        Path | None,
        typer.Option(help="Write a PNG of DIH against rounds here.", callback=output_file),
    ] = None,
    plot_rounds: Annotated[
        int, typer.Option(help="Rounds on the plot's axis (default max(rounds, 20)).")
    ] = 0,
) -> None:
    """DIH (the DIH paper): probability that the best TOP of PLAYERS totals are pairwise
    distinct."""
    from mindsport.tournament.dih import discrimination, discrimination_curve

    s, p = parse_numbers(scores, "--scores"), parse_numbers(probs, "--probs")
    value = discrimination(s, p, players, rounds, top)
    typer.echo(f"{value:.6g}")
    if plot is not None:
        from mindsport.tournament.plots import plot_dih_curve

        last = plot_rounds if plot_rounds > 0 else max(rounds, 20)
        curve = discrimination_curve(s, p, players, range(1, last + 1), top)
        plot_dih_curve(curve, plot, title=f"DIH: {players} players, top {top} distinct")
        typer.echo(f"plot written to {plot}")


@app.command()
def select(
    logfile: Annotated[Path, typer.Argument(help="Game log: (hand, landlord score) records.")],
    players: Annotated[int, typer.Option(help="Players in the event.")],
    rounds: Annotated[int, typer.Option(help="Rounds (one hand per round).")],
    top: Annotated[int, typer.Option(help="Top places that must have distinct totals.")] = 1,
    min_plays: Annotated[int, typer.Option(help="Ignore hands played fewer times.")] = 50,
    show: Annotated[int, typer.Option(help="Also list this many runners-up.")] = 0,
) -> None:
    """Rank the logged hands by DIH for the event and pick one hand per round."""
    from rich.console import Console
    from rich.table import Table

    from mindsport.tournament.errors import TournamentError
    from mindsport.tournament.library import HandLibrary
    from mindsport.tournament.records import read_hand_scores
    from mindsport.tournament.selection import rank_by_discrimination

    library = HandLibrary.from_records(read_hand_scores(logfile), min_plays=min_plays)
    if len(library) == 0:
        raise TournamentError(f"{logfile}: no hand was played at least {min_plays} times")
    ranked = rank_by_discrimination(library, players, rounds, top)
    if len(ranked) < rounds:
        raise TournamentError(
            f"{logfile}: {len(ranked)} hands with at least {min_plays} plays, "
            f"fewer than the {rounds} rounds"
        )
    table = Table(title=f"Test cases: {players} players, {rounds} rounds, top {top}")
    for column in ("round", "hand", "plays", "DIH"):
        table.add_column(column)
    for i, r in enumerate(ranked[: rounds + max(show, 0)]):
        label = str(i + 1) if i < rounds else "-"
        table.add_row(label, r.hand, str(library[r.hand].plays), f"{r.dih:.6g}")
    Console(width=200).print(table)


@app.command()
def gdi(
    logfile: Annotated[
        Path, typer.Argument(help="Game log: one record per table that played a hand.")
    ],
    levels: Annotated[str, typer.Option(help="The k possible landlord scores.")] = GDI_LEVELS,
    centre: Annotated[str, typer.Option(help="GDI centre of the equal-strength set.")] = GDI_CENTRE,
    epsilon: Annotated[
        float, typer.Option(help="Distance threshold of equal strength.")
    ] = _EPSILON,
    min_plays: Annotated[int, typer.Option(help="Ignore hands played at fewer tables.")] = 1,
    out: Annotated[
        Path | None,
        typer.Option(help="Save the library (.jsonl or .parquet).", callback=output_file),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="Write a PNG of the GDI distribution here.", callback=output_file),
    ] = None,
    show: Annotated[int, typer.Option(help="List this many equal-strength hands.")] = 10,
) -> None:
    """Compute every hand's GDI and list the hands of equal strength around CENTRE."""
    import numpy as np
    from rich.console import Console
    from rich.table import Table

    from mindsport.tournament.errors import TournamentError
    from mindsport.tournament.library import HandLibrary
    from mindsport.tournament.records import read_hand_scores

    grades = parse_numbers(levels, "--levels")
    middle = parse_numbers(centre, "--centre")
    if len(middle) != len(grades) - 1:
        raise TournamentError(
            f"--centre has {len(middle)} values; --levels {grades} need {len(grades) - 1}"
        )
    library = HandLibrary.from_records(
        read_hand_scores(logfile), min_plays=min_plays, levels=grades
    )
    if len(library) == 0:
        raise TournamentError(f"{logfile}: no hand was played at {min_plays} tables or more")
    chosen = library.equal_strength(middle, epsilon)
    typer.echo(
        f"{len(library)} hands; {len(chosen)} within {epsilon:g} of GDI "
        f"({', '.join(f'{x:g}' for x in middle)})"
    )
    table = Table()
    for column in ("hand", "tables", "GDI"):
        table.add_column(column)
    for entry in list(chosen)[: max(show, 0)]:
        gdi_text = ", ".join(f"{x:.3f}" for x in entry.gdi or ())
        table.add_row(entry.hand, str(entry.plays), gdi_text)
    if show > 0 and len(chosen):
        Console(width=200).print(table)
    if out is not None:
        library.save(out)
        typer.echo(f"library written to {out}")
    if plot is not None:
        from mindsport.tournament.plots import plot_gdi_distribution

        matrix = np.array([e.gdi for e in library], dtype=float)
        plot_gdi_distribution(matrix, plot, centre=middle, levels=grades)
        typer.echo(f"plot written to {plot}")


@app.command()
def swiss(
    players: Annotated[
        int, typer.Option(help="Players (stand-in mode only; --bots and --results set it).")
    ] = 0,
    rounds: Annotated[int, typer.Option(help="Rounds to pair (and play, with --bots).")] = 1,
    results: Annotated[
        Path | None,
        typer.Option(
            help="Results so far (CSV or JSONL rows: round, table, player, points): pair the "
            "next round from the real standings."
        ),
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option(help="Play the event with these bots (levels or specs), one per player."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the games, deals and tie lots.")] = 0,
    executor: ExecutorOption = "local",
    workers: WorkersOption = 0,
    address: AddressOption = None,
) -> None:
    """Swiss pairing into tables of three, from real standings.

    --results FILE: standings, past opponents and byes from a results file; prints the
    standings and the next round. --bots: plays ROUNDS rounds with the engine (each table plays
    one deal in its three seat rotations) and pairs each round on the standings so far.
    Otherwise (--players N) every table gets random stand-in points 4/2/0 (a pairing demo).
    """
    import numpy as np
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from mindsport.tournament.errors import TournamentError
    from mindsport.tournament.swiss import swiss_schedule

    def show(number: int, this: SwissRound[Any], name: Callable[[Any], str]) -> None:
        tables = "  ".join("(" + " ".join(name(p) for p in t) + ")" for t in this.tables)
        byes = f"  bye: {' '.join(name(p) for p in this.byes)}" if this.byes else ""
        typer.echo(f"round {number} [repeats {this.repeats}]: {tables}{byes}")

    if results is not None and bots is not None:
        raise TournamentError("give --results or --bots, not both")
    if results is not None:
        from mindsport.tournament.swiss import read_results, swiss_round

        history = read_results(results)
        order = history.standings()
        if len(order) < 3:
            raise TournamentError(f"{results}: {len(order)} players; a table needs three")
        table = Table(title=f"Standings after round {history.rounds}")
        for column in ("place", "player", "points", "byes"):
            table.add_column(column)
        for i, p in enumerate(order, start=1):
            table.add_row(str(i), escape(p), f"{history.points[p]:g}", str(history.byes[p]))
        Console(width=200).print(table)
        upcoming = swiss_round(order, history.met, history.byes)
        show(history.rounds + 1, upcoming, str)
        return
    if bots is not None:
        from mindsport.tournament.doudizhu.swiss_play import play_swiss

        specs = ddz_bot_specs(bots, "--bots")
        with running_games(executor, workers, address, True) as (ex, _):
            event = play_swiss(specs, rounds, seed, ex)
        for number, played in enumerate(event.rounds, start=1):
            show(number, played, lambda p: str(p + 1))
        table = Table(title=f"Final standings after {rounds} rounds (engine games)")
        for column in ("place", "player", "bot", "points"):
            table.add_column(column)
        for i, k in enumerate(event.standings(), start=1):
            table.add_row(str(i), str(k + 1), escape(specs[k]), f"{event.points[k]:g}")
        Console(width=200).print(table)
        return
    if players < 3:
        raise TournamentError(f"--players must be at least 3, got {players}")
    schedule: list[SwissRound[int]] = swiss_schedule(players, rounds, np.random.default_rng(seed))
    for number, paired in enumerate(schedule, start=1):
        show(number, paired, lambda p: str(p + 1))


@app.command()
def validate(
    landlords: Annotated[str, typer.Option(help="Landlord bot levels.")] = "0,20,40,60,80,100",
    farmers: Annotated[str, typer.Option(help="Farmer bot levels (both seats).")] = "20,80",
    entrants: Annotated[
        int, typer.Option(help="Players n (w = n score-rate buckets of Algorithm 1).")
    ] = 8,
    probe_hands: Annotated[int, typer.Option(help="Random hands of Algorithm 1.")] = 12,
    library_hands: Annotated[int, typer.Option(help="Random hands in the library.")] = 80,
    rounds: Annotated[int, typer.Option(help="Rounds per event.")] = 4,
    top: Annotated[int, typer.Option(help="Top totals that must be distinct.")] = 2,
    events: Annotated[int, typer.Option(help="Events per arm (P1 and P2), resampled.")] = 200,
    replays: Annotated[int, typer.Option(help="Fresh games per line-up and test case.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    executor: ExecutorOption = "local",
    workers: WorkersOption = 0,
    address: AddressOption = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """The DIH paper's validation for one event size: P1 (random) vs P2 (top DIH).

    One cell of validate-grid (n = min(ENTRANTS, line-ups), m = ROUNDS).
    """
    from mindsport.tournament.doudizhu.validation import DihGridSettings, run_dih_grid
    from mindsport.tournament.errors import TournamentError

    lords = [f"level:{x}" for x in parse_levels(landlords, "--landlords")]
    farm = [f"level:{x}" for x in parse_levels(farmers, "--farmers")]
    n = min(entrants, len(lords) * len(farm) ** 2)
    if n < max(top, 2):
        raise TournamentError(f"{n} line-ups, fewer than --top {top} (or 2)")
    with running_games(executor, workers, address, quiet) as (ex, bar):
        settings = DihGridSettings(
            players=[n],
            rounds=[rounds],
            landlords=lords,
            farmers1=farm,
            farmers2=farm,
            library_hands=library_hands,
            probe_hands=min(probe_hands, library_hands),
            replays=replays,
            events=events,
            seed=seed,
            top=top,
        )
        result = run_dih_grid(settings, ex, progress=bar.advance, stage=bar.stage)
    cell = result.cells[0]
    typer.echo(f"entrants: {n} of {result.lineups} line-ups (Algorithm 1, w = {n})")
    typer.echo(f"P1 (random hands)   = {cell.p_random:.3f}")
    typer.echo(f"P2 (top-DIH hands)  = {cell.p_selected:.3f}")
    typer.echo(f"(P2 - P1) / P1      = {_pct(cell.gain)}")


@app.command()
def compare(
    landlords: Annotated[
        str, typer.Option(help="Entrants: landlord bot levels.")
    ] = "0,25,50,75,100",
    farmer: Annotated[int, typer.Option(help="Level of both fixed farmer bots.")] = 50,
    tables: Annotated[str, typer.Option(help="Landlord levels of the GDI tables.")] = (
        "10,20,30,40,50,60,70,80,90,100"
    ),
    library_hands: Annotated[int, typer.Option(help="One-bomb hands graded.")] = 150,
    epsilon: Annotated[float, typer.Option(help="Equal-strength threshold.")] = 0.25,
    rounds: Annotated[int, typer.Option(help="Rounds per event.")] = 5,
    events: Annotated[int, typer.Option(help="Events per format.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    plot: Annotated[
        Path | None,
        typer.Option(help="PNG prefix for the place heatmaps.", callback=output_file),
    ] = None,
    executor: ExecutorOption = "local",
    workers: WorkersOption = 0,
    address: AddressOption = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """The equal-strength paper's experiment around the library's median GDI: one epsilon, one m.

    (validate-formats runs the paper's full grid around a given centre.)
    """
    import numpy as np

    from mindsport.tournament.doudizhu.validation import FormatsSettings, run_format_comparison

    levels = parse_levels(landlords, "--landlords")
    spec = f"level:{parse_levels(str(farmer), '--farmer')[0]}"
    with running_games(executor, workers, address, quiet) as (ex, bar):
        settings = FormatsSettings(
            graders=[f"level:{x}" for x in parse_levels(tables, "--tables")],
            entrants=[f"level:{x}" for x in levels],
            farmers=(spec, spec),
            library_hands=library_hands,
            epsilons=[epsilon],
            rounds=[rounds],
            events=events,
            replays=1,
            seed=seed,
            centre=None,
        )
        result = run_format_comparison(settings, ex, progress=bar.advance, stage=bar.stage)
    typer.echo(
        f"GDI centre (median) {np.round(result.centre, 2).tolist()}; "
        f"{result.pool_sizes[float(epsilon)]} equal-strength hands within {epsilon:g}"
    )
    for (name, _, _), table in result.tables.items():
        places = (np.argmax(table, axis=1) + 1).tolist()
        typer.echo(f"{name:>15}: most likely places {places} for levels {levels}")
    if plot is not None:
        from mindsport.tournament.plots import plot_rank_heatmap

        labels = [f"level {x}" for x in levels]
        for (name, _, _), table in result.tables.items():
            target = plot.with_name(f"{plot.stem}_{name}.png")
            plot_rank_heatmap(table, target, labels=labels, title=name)
            typer.echo(f"plot written to {target}")


# ---------------------------------------------------------------------------------------------
# phase 2: executors, progress bars, validation grids, generator
# ---------------------------------------------------------------------------------------------
class _Bar:
    """A rich progress bar fed by the library's ``stage`` and ``progress`` callbacks."""

    def __init__(self, progress: Any) -> None:
        self._progress = progress
        self._task: Any = None

    def stage(self, description: str, games: int) -> None:
        if self._task is not None:
            self._progress.update(self._task, completed=self._progress.tasks[-1].total)
        self._task = self._progress.add_task(description, total=games)

    def advance(self, games: int) -> None:
        if self._task is not None:
            self._progress.advance(self._task, games)


@contextlib.contextmanager
def running_games(
    executor: str, workers: int, address: str | None, quiet: bool
) -> Iterator[tuple[Any, _Bar]]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from mindsport.tournament.doudizhu.games import warm_engine
    from mindsport.tournament.executors import make_executor

    warm_engine()  # compiles once on a fresh machine, saying so, before any progress bar
    count = workers if workers > 0 else None
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with (
        make_executor(executor, count, address=address, warmup=warm_engine) as ex,
        Progress(*columns, console=Console(stderr=True), disable=quiet, transient=False) as bar,
    ):
        yield ex, _Bar(bar)


def ddz_bot_specs(text: str, name: str) -> list[str]:
    """Dou Dizhu bot specs: levels (``0,50,100``) or spec strings (``level:40,strong``), each
    checked by building its bot."""
    from mindsport.games.registry import get_game, make_bot
    from mindsport.tournament.errors import TournamentError

    game = get_game("doudizhu")
    specs = parse_bot_specs(text, name, bare_levels=True)
    for spec in specs:
        try:
            make_bot(game, spec)
        except MindsportError as exc:
            raise TournamentError(f"{name}: {exc}") from None
    return specs


def _pct(x: float | None) -> str:
    if x is None:
        return "-"
    return "inf" if x == float("inf") else f"{x:+.1%}"


@app.command("validate-grid")
def validate_grid(
    players: Annotated[str, typer.Option(help="Players n per event.")] = "10,20,30",
    rounds: Annotated[str, typer.Option(help="Rounds m per event.")] = "2,3,4,5",
    top: Annotated[
        int,
        typer.Option(help="Best totals that must be distinct (the DIH paper's r = 1 is top 2)."),
    ] = 2,
    landlords: Annotated[str, typer.Option(help="Landlord bots (levels or specs).")] = (
        "0,10,20,30,40,50,60,70,80,90,100"
    ),
    farmers1: Annotated[str, typer.Option(help="Farmer-1 bots.")] = "20,80",
    farmers2: Annotated[str, typer.Option(help="Farmer-2 bots.")] = "20,80",
    library_hands: Annotated[
        int, typer.Option(help="Random hands every line-up plays (the DIH library).")
    ] = 240,
    probe_hands: Annotated[
        int, typer.Option(help="Library hands whose totals feed Algorithm 1.")
    ] = 20,
    replays: Annotated[
        int, typer.Option(help="Fresh games of each line-up on each selected hand.")
    ] = 10,
    events: Annotated[
        int, typer.Option(help="Events per cell and arm, resampled from the games.")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    executor: ExecutorOption = "local",
    workers: WorkersOption = 0,
    address: AddressOption = None,
    plot: Annotated[
        Path | None,
        typer.Option(help="PNG of P1 and P2 against rounds.", callback=output_file),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """The DIH paper's Table 4: P1 (random hands) vs P2 (top-DIH test cases) for every n and m.

    Engine games (line-ups x library hands, then line-ups x selected hands x replays) run on the
    executor; the events are resampled from them (see mindsport.tournament.doudizhu.validation).
    Bigger runs: raise --library-hands and --replays (engine games) and --events (cheap).
    """
    from rich.console import Console
    from rich.table import Table

    from mindsport.tournament.doudizhu.validation import DihGridSettings, run_dih_grid

    ns, ms = parse_counts(players, "--players"), parse_counts(rounds, "--rounds")
    with running_games(executor, workers, address, quiet) as (ex, bar):
        settings = DihGridSettings(
            players=ns,
            rounds=ms,
            landlords=ddz_bot_specs(landlords, "--landlords"),
            farmers1=ddz_bot_specs(farmers1, "--farmers1"),
            farmers2=ddz_bot_specs(farmers2, "--farmers2"),
            library_hands=library_hands,
            probe_hands=probe_hands,
            replays=replays,
            events=events,
            seed=seed,
            top=top,
        )
        result = run_dih_grid(settings, ex, progress=bar.advance, stage=bar.stage)
    typer.echo(
        f"Validation of the DIH paper, top {top} distinct (the paper's r = {top - 1}): "
        f"{result.lineups} line-ups, {result.library_hands} library hands, "
        f"{result.replays} replays, {events} events per cell, {result.games} engine games"
    )
    table = Table()
    for column in ("n", "m", "P1 random", "P2 test cases", "(P2-P1)/P1", "paper", "buckets"):
        table.add_column(column, justify="right")
    for cell in result.cells:
        table.add_row(
            str(cell.players),
            str(cell.rounds),
            f"{cell.p_random:.3f}",
            f"{cell.p_selected:.3f}",
            _pct(cell.gain),
            _pct(cell.paper_gain),
            f"{result.filled_buckets[cell.players]}/{cell.players}",
        )
    Console(width=200).print(table)
    typer.echo(
        "paper: the DIH paper states only these gains (its Table 4 is not in the text); it "
        "reports P2 > P1 in every cell, gains growing with n and shrinking with m."
    )
    if plot is not None:
        from mindsport.tournament.plots import plot_validation_grid

        plot_validation_grid(result.cells, plot)
        typer.echo(f"plot written to {plot}")


@app.command("validate-formats")
def validate_formats(
    entrants: Annotated[str, typer.Option(help="Landlord bots entered (the 5 tables).")] = (
        "20,40,60,80,100"
    ),
    graders: Annotated[str, typer.Option(help="Landlord bots of the GDI tables.")] = (
        "10,20,30,40,50,60,70,80,90,100"
    ),
    farmers: Annotated[str, typer.Option(help="The fixed farmer bots (one or two).")] = "0",
    library_hands: Annotated[int, typer.Option(help="One-bomb deals graded.")] = 400,
    centre: Annotated[str, typer.Option(help="GDI centre of equal strength.")] = GDI_CENTRE,
    epsilons: Annotated[str, typer.Option(help="Equal-strength thresholds.")] = "0.15,0.20,0.25",
    rounds: Annotated[str, typer.Option(help="Rounds per event.")] = "5,10,20",
    events: Annotated[
        int, typer.Option(help="Events per format (the paper plays 20), resampled.")
    ] = 100,
    replays: Annotated[int, typer.Option(help="Games of each entrant on each hand.")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    executor: ExecutorOption = "local",
    workers: WorkersOption = 0,
    address: AddressOption = None,
    plots: Annotated[
        Path | None,
        typer.Option(
            help="Folder for the rank-probability heatmaps (PNG; created).", callback=output_folder
        ),
    ] = None,
    show_tables: Annotated[bool, typer.Option(help="Print every rank-probability table.")] = True,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """The equal-strength paper's experiment 3: duplicate vs equal-strength vs random dealing.

    Prints P(entrant finishes k-th) after EVENTS events of m rounds for each format, and how
    often equal strength (and random) give duplicate's final order.
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from mindsport.tournament.doudizhu.validation import FormatsSettings, run_format_comparison
    from mindsport.tournament.errors import TournamentError

    farm = ddz_bot_specs(farmers, "--farmers")
    if len(farm) == 1:
        farm = farm * 2
    if len(farm) != 2:
        raise TournamentError(f"--farmers takes one or two bots, got {len(farm)}")
    entered = ddz_bot_specs(entrants, "--entrants")
    with running_games(executor, workers, address, quiet) as (ex, bar):
        settings = FormatsSettings(
            graders=ddz_bot_specs(graders, "--graders"),
            entrants=entered,
            farmers=(farm[0], farm[1]),
            library_hands=library_hands,
            epsilons=parse_numbers(epsilons, "--epsilons"),
            rounds=parse_counts(rounds, "--rounds"),
            events=events,
            replays=replays,
            seed=seed,
            centre=parse_numbers(centre, "--centre"),
        )
        result = run_format_comparison(settings, ex, progress=bar.advance, stage=bar.stage)
    console = Console(width=200)
    pools = ", ".join(f"eps {e:g}: {k}" for e, k in result.pool_sizes.items())
    typer.echo(
        f"{len(result.hands)} one-bomb hands graded at {len(ddz_bot_specs(graders, 'g'))} tables; "
        f"equal-strength pools around {list(result.centre)}: {pools}; "
        f"{result.games} engine games; {result.events} events per format"
    )
    labels = [e.replace("level:", "L") for e in entered]
    if show_tables:
        for (name, eps, m), probs in result.tables.items():
            title = f"{name}{'' if eps is None else f' eps {eps:g}'}, m = {m}"
            t = Table(title=title)
            t.add_column("entrant")
            for k in range(probs.shape[1]):
                t.add_column(f"P(#{k + 1})", justify="right")
            for label, row in zip(labels, probs, strict=True):
                t.add_row(escape(label), *(f"{p:.2f}" for p in row))
            console.print(t)
    summary = Table(title="Agreement with duplicate (consensus = most likely place)")
    for column in ("format", "eps", "m", "same order", "same winner", "pairs", "exact"):
        summary.add_column(column, justify="right")
    for (name, eps, m), agree in result.agreement.items():
        if name == "duplicate":
            continue
        summary.add_row(
            name,
            "-" if eps is None else f"{eps:g}",
            str(m),
            "yes" if agree.same_order else "no",
            "yes" if agree.same_winner else "no",
            f"{agree.event_concordance:.2f}",
            f"{agree.exact_events:.2f}",
        )
    console.print(summary)
    typer.echo(
        "pairs: mean share of entrant pairs an event orders as duplicate's consensus; "
        "exact: share of events with exactly duplicate's order. The equal-strength paper "
        "(tables not in the text): at eps 0.15 equal strength ranks as duplicate and random "
        "does not; larger eps flattens the tables."
    )
    if plots is not None:
        from mindsport.tournament.plots import plot_rank_heatmap

        plots.mkdir(parents=True, exist_ok=True)
        for (name, eps, m), probs in result.tables.items():
            stem = f"{name}{'' if eps is None else f'_eps{eps:g}'}_m{m}"
            title = f"{name}{'' if eps is None else f' (eps {eps:g})'}, {m} rounds"
            plot_rank_heatmap(probs, plots / f"{stem}.png", labels=labels, title=title)
        typer.echo(f"{len(result.tables)} heatmaps written to {plots}")
