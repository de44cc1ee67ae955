"""``mindsport event``: a tournament director's commands, from registration to the league.

Every command takes ``--db URL`` (default ``$MINDSPORT_DATABASE_URL`` or ``./mindsport.db``),
the same database as the leagues. Bad input prints ``error: <message>`` and exits with status 2.
Scores of a table are written ``L,F1,F2;L,F1,F2;...``: one group per board (board 1 first), the
landlord's, farmer 1's and farmer 2's score, as on the deal sheet.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table as RichTable

from mindsport.commandline import new_app, output_file
from mindsport.event.model import (
    DealSource,
    EventError,
    EventFormat,
    EventSpec,
    Scoring,
    TieBreak,
)
from mindsport.store.cli import DbOption

__all__ = ["app", "parse_scores", "parse_tables", "read_results"]

app = new_app("Run an event: register, pair, deal sheets, results, standings, finish; simulate.")

Name = Annotated[str, typer.Argument(help="Event name.")]


@contextlib.contextmanager
def _events(db: str | None, *, create: bool = True) -> Iterator[Any]:
    """The events of the database ``db``, closed afterwards (``create=False``: a command that
    only reads; a missing database is an error, not created)."""
    from mindsport.event.storage import EventStore
    from mindsport.store.cli import open_store

    with open_store(db, create=create) as store:
        yield EventStore(store)


def parse_scores(text: str) -> list[list[float]]:
    """``"2,-1,-1;-2,1,1"`` -> ``[[2, -1, -1], [-2, 1, 1]]`` (errors name the board)."""
    rows = []
    for b, group in enumerate(text.split(";"), start=1):
        try:
            rows.append([float(x) for x in group.split(",")])
        except ValueError:
            raise EventError(
                f"scores {text!r}: board {b} ({group!r}) is not three numbers L,F1,F2"
            ) from None
    return rows


def parse_tables(text: str) -> list[list[str]]:
    """``"a,b,c;d,e,f"`` -> ``[["a", "b", "c"], ["d", "e", "f"]]``."""
    return [[p.strip() for p in t.split(",")] for t in text.split(";") if t.strip()]


def _numbers(text: str, option: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise EventError(f"{option} {text!r}: give numbers like 0.96,0.91,0.79") from None


def _write(path: Path, text: str) -> None:
    from mindsport.files import write_atomically

    def writer(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    write_atomically(path, writer)
    typer.echo(f"written to {path}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class _PoolOptions:
    """The options of ``create`` that choose the pool of hands."""

    library: Path | None
    select: str
    players: int
    rounds: int
    top: int
    centre: str | None
    epsilon: float
    hands: Path | None
    model: Path | None
    target: str | None
    count: int
    seed: int


def _pool(options: _PoolOptions) -> tuple[str, ...]:
    """The pool of hands the options ask for (empty: random deals)."""
    from mindsport.event.deals import check_hands, pool_by_dih, pool_by_gdi
    from mindsport.tournament.gdi import EQUAL_STRENGTH_CENTRE
    from mindsport.tournament.library import HandLibrary

    if options.model is not None:
        from mindsport.event.deals import pool_by_model
        from mindsport.tournament.doudizhu.generator import GdiModel

        if options.target is None:
            raise EventError("--gdi-model needs --target, the requested GDI (e.g. 0.9,0.8,0.6)")
        return pool_by_model(
            GdiModel.load(options.model),
            _numbers(options.target, "--target"),
            options.epsilon,
            options.count,
            options.seed,
        )
    if options.hands is not None:
        lines = options.hands.read_text(encoding="utf-8").splitlines()
        return check_hands([ln.strip() for ln in lines if ln.strip()])
    if options.library is None:
        return ()
    lib = HandLibrary.load(options.library)
    if options.select == "dih":
        return pool_by_dih(lib, options.players, options.rounds, options.top)
    if options.select == "gdi":
        middle = (
            list(EQUAL_STRENGTH_CENTRE)
            if options.centre is None
            else _numbers(options.centre, "--centre")
        )
        return pool_by_gdi(lib, middle, options.epsilon)
    raise EventError(f"--select {options.select!r}: use dih or gdi")


@app.command()
def create(
    name: Name,
    league: Annotated[str, typer.Option("--league", "-l", help="League the results go to.")],
    format: Annotated[EventFormat, typer.Option(help="How deals are shared.")] = (
        EventFormat.DUPLICATE
    ),
    rounds: Annotated[int, typer.Option(help="Swiss rounds.")] = 6,
    deals: Annotated[int, typer.Option(help="Deals per round (each in 3 rotations).")] = 1,
    scoring: Annotated[Scoring, typer.Option(help="Rank points over the field or table.")] = (
        Scoring.FIELD
    ),
    tie_break: Annotated[
        list[TieBreak] | None, typer.Option(help="Tie-breaks in order (repeat the option).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of the lot.")] = 0,
    library: Annotated[
        Path | None, typer.Option(help="Hand library (JSONL/Parquet) to take the deals from.")
    ] = None,
    select: Annotated[
        str, typer.Option(help="dih: most discriminating first; gdi: equal strength.")
    ] = "dih",
    expected_players: Annotated[int, typer.Option(help="Players assumed for DIH.")] = 90,
    top: Annotated[int, typer.Option(help="Top places DIH must tell apart.")] = 3,
    centre: Annotated[str | None, typer.Option(help="GDI centre, e.g. 0.96,0.91,0.79.")] = None,
    epsilon: Annotated[float, typer.Option(help="GDI distance of equal strength.")] = 0.15,
    hands: Annotated[
        Path | None, typer.Option(help="Text file of hands, one [L][F1][F2] a line.")
    ] = None,
    gdi_model: Annotated[
        Path | None, typer.Option(help="GDI model (mindsport tournament generate) to deal with.")
    ] = None,
    target: Annotated[
        str | None, typer.Option(help="Requested GDI of generated deals, e.g. 0.9,0.8,0.6.")
    ] = None,
    count: Annotated[int, typer.Option(help="Deals to generate with --gdi-model.")] = 60,
    create_league: Annotated[bool, typer.Option(help="Create the league if missing.")] = False,
    db: str | None = DbOption,
) -> None:
    """Create an event (its league must exist, or pass --create-league)."""
    pool = _pool(
        _PoolOptions(
            library=library,
            select=select,
            players=expected_players,
            rounds=rounds,
            top=top,
            centre=centre,
            epsilon=epsilon,
            hands=hands,
            model=gdi_model,
            target=target,
            count=count,
            seed=seed,
        )
    )
    spec = EventSpec(
        name=name,
        league=league,
        format=format,
        rounds=rounds,
        deals=deals,
        source=DealSource.POOL if pool else DealSource.RANDOM,
        scoring=scoring,
        tie_breaks=tuple(tie_break) if tie_break else (TieBreak.SCORE, TieBreak.OPPONENTS),
        seed=seed,
        pool=pool,
    )
    with _events(db) as events:
        if create_league:
            events.store.ensure_league(league)
        events.create(spec)
    typer.echo(
        f"event {name}: {format} format, {rounds} rounds of {deals} deal(s), {spec.source} "
        f"deals{f' ({len(pool)} hands)' if pool else ''}; results go to league {league}"
    )


@app.command()
def register(
    name: Name,
    players: Annotated[list[str] | None, typer.Argument(help="Player names.")] = None,
    bot: Annotated[str | None, typer.Option(help="Enter them as this bot (e.g. level:40).")] = None,
    file: Annotated[
        Path | None, typer.Option(help="File of players: NAME or NAME,BOT a line.")
    ] = None,
    db: str | None = DbOption,
) -> None:
    """Register players (all or none); after a round is paired they join from the next."""
    entries: list[tuple[str, str | None]] = [(p, bot) for p in players or []]
    if file is not None:
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                who, _, spec = line.partition(",")
                entries.append((who.strip(), spec.strip() or bot))
    if not entries:
        raise EventError("name at least one player (or --file)")
    with _events(db) as events:
        added = events.register(name, entries)
    typer.echo(f"registered {len(added)} player(s), from round {added[0].joined}")


@app.command()
def withdraw(name: Name, player: str, db: str | None = DbOption) -> None:
    """Withdraw a player from the next round on (earlier results stay)."""
    with _events(db) as events:
        p = events.withdraw(name, player)
    typer.echo(f"{p.name} withdrawn from round {p.withdrawn} on")


@app.command()
def pair(
    name: Name,
    tables: Annotated[
        str | None, typer.Option(help='Seat by hand: "a,b,c;d,e,f" (the rest get byes).')
    ] = None,
    db: str | None = DbOption,
) -> None:
    """Pair the next round: Swiss tables of three, byes, the deals of each table."""
    with _events(db) as events:
        r = events.pair(name, None if tables is None else parse_tables(tables))
    typer.echo(f"round {r.number}: {len(r.tables)} tables")
    for t in r.tables:
        typer.echo(f"  table {t.number}: {', '.join(t.players)}")
    typer.echo(f"  byes: {', '.join(r.byes) or 'none'}")


@app.command()
def sheet(
    name: Name,
    round_number: Annotated[int, typer.Argument(metavar="ROUND")],
    html: Annotated[
        Path | None, typer.Option(help="Write the printable HTML here.", callback=output_file)
    ] = None,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write the JSON here.", callback=output_file)
    ] = None,
    db: str | None = DbOption,
) -> None:
    """Deal sheets of a round: who holds which seat's cards on every board of every table."""
    from mindsport.event.sheets import deal_sheet, deal_sheet_html

    with _events(db, create=False) as events:
        state = events.get(name)
    data = deal_sheet(state, round_number)
    if html is not None:
        _write(html, deal_sheet_html(state, round_number))
    if json_file is not None:
        _write(json_file, json.dumps(data, indent=1))
    if html is None and json_file is None:
        typer.echo(json.dumps(data, indent=1))


@app.command()
def result(
    name: Name,
    round_number: Annotated[int, typer.Argument(metavar="ROUND")],
    table: int,
    scores: Annotated[
        str, typer.Option("--scores", "-s", help="L,F1,F2;L,F1,F2;... one group per board.")
    ],
    who: Annotated[str, typer.Option(help="Who enters it.")] = "director",
    db: str | None = DbOption,
) -> None:
    """Enter a table's whole result (once; correct it with amend)."""
    with _events(db) as events:
        r = events.enter_result(name, round_number, table, parse_scores(scores), who)
    typer.echo(f"round {r.round} table {r.table}: {len(r.scores)} boards entered")


def read_results(path: Path) -> list[tuple[int, int, list[list[float]]]]:
    """A results file: one table a line, ``ROUND TABLE L,F1,F2;L,F1,F2;...`` (``#`` starts a
    comment); errors name the line."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        try:
            if len(parts) != 3:
                raise ValueError
            out.append((int(parts[0]), int(parts[1]), parse_scores(parts[2])))
        except ValueError as exc:
            why = str(exc) if isinstance(exc, EventError) else "expected ROUND TABLE SCORES"
            raise EventError(f"{path}, line {number}: {why}") from None
    return out


@app.command()
def results(
    name: Name,
    file: Annotated[Path, typer.Argument(help="Lines ROUND TABLE L,F1,F2;... (one table each).")],
    who: Annotated[str, typer.Option(help="Who enters them.")] = "director",
    db: str | None = DbOption,
) -> None:
    """Enter the results of many tables from a file, all or none."""
    entries = read_results(file)
    with _events(db) as events:
        done = events.enter_results(name, entries, who)
    typer.echo(f"{len(done)} table result(s) entered")


@app.command()
def amend(
    name: Name,
    round_number: Annotated[int, typer.Argument(metavar="ROUND")],
    table: int,
    scores: Annotated[
        str, typer.Option("--scores", "-s", help="The corrected scores, L,F1,F2;...")
    ],
    who: Annotated[str, typer.Option(help="Who corrects it.")],
    why: Annotated[str, typer.Option(help="Why (kept in the log).")],
    db: str | None = DbOption,
) -> None:
    """Correct a table's result; the old and new scores are logged with who, when and why."""
    with _events(db) as events:
        a = events.amend(name, round_number, table, parse_scores(scores), who, why)
    typer.echo(f"round {a.round} table {a.table} amended by {a.who} at {a.at.isoformat()}")


@app.command()
def standings(
    name: Name,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table.")] = False,
    after: Annotated[
        int | None, typer.Option(help="After this round (default: every complete round).")
    ] = None,
    db: str | None = DbOption,
) -> None:
    """Standings after the complete rounds: rank points, then the tie-breaks."""
    with _events(db, create=False) as events:
        state = events.get(name)
    rows = state.standings(after)
    if as_json:
        for s in rows:
            typer.echo(json.dumps(dataclasses.asdict(s)))
        return
    done = state.complete if after is None else after
    out = RichTable(title=f"{name}: after {done} of {state.spec.rounds} rounds")
    for col in ("Place", "Player", "RP", "Score", "Opp. RP", "Rounds", "Byes"):
        out.add_column(col)
    for s in rows:
        out.add_row(
            str(s.place),
            s.player + (" (w)" if s.withdrawn else ""),
            str(s.rank_points),
            f"{s.score:+g}",
            str(s.opponents),
            str(s.rounds),
            str(s.byes),
        )
    Console().print(out)


@app.command()
def play(name: Name, db: str | None = DbOption) -> None:
    """Play the latest round's tables where every seat is a bot, and enter their results."""
    from mindsport.event.simulate import play_round
    from mindsport.tournament.doudizhu.games import warm_engine

    with _events(db) as events:
        state = events.get(name)
        if not state.rounds:
            raise EventError(f"event {name!r} has no round paired yet")
        last = state.rounds[-1]
        bots = {p.name for p in state.players if p.bot}
        todo = [
            t
            for t in last.tables
            if (last.number, t.number) not in state.results and set(t.players) <= bots
        ]
        warm_engine()
        for (r, t), res in play_round(state.spec, state.players, last, todo).items():
            events.enter_result(name, r, t, res.scores, "bots")
    typer.echo(f"round {last.number}: {len(todo)} bot tables played")


@app.command()
def finish(name: Name, db: str | None = DbOption) -> None:
    """Write every table into the event's league as matches (idempotent) and close it."""
    with _events(db) as events:
        added = events.finish(name)
        league = events.get(name).spec.league
    typer.echo(f"event {name} finished: {added} new match(es) in league {league}")


@app.command()
def show(
    name: Name,
    html: Annotated[
        Path | None, typer.Option(help="Write the event page here.", callback=output_file)
    ] = None,
    db: str | None = DbOption,
) -> None:
    """The event's state: rounds, missing results, amendments (or its page as HTML)."""
    from mindsport.event.sheets import event_page_html

    with _events(db, create=False) as events:
        state = events.get(name)
    if html is not None:
        _write(html, event_page_html(state))
        return
    spec = state.spec
    typer.echo(
        f"{spec.name}: {spec.format}, {len(state.players)} players, {len(state.rounds)} of "
        f"{spec.rounds} rounds paired, {state.complete} complete, {state.status}"
    )
    for r in state.rounds:
        missing = [t.number for t in r.tables if (r.number, t.number) not in state.results]
        typer.echo(
            f"  round {r.number}: {len(r.tables) - len(missing)}/{len(r.tables)} results"
            + (f"; missing tables {', '.join(map(str, missing))}" if missing else "")
        )
    for a in state.amendments:
        typer.echo(
            f"  amended round {a.round} table {a.table} by {a.who} at {a.at.isoformat()}: {a.why}"
        )


@app.command()
def simulate(
    players: Annotated[int, typer.Option(help="Bots in the field (levels 0..100).")] = 300,
    rounds: Annotated[int, typer.Option(help="Swiss rounds.")] = 8,
    format: Annotated[
        list[EventFormat] | None, typer.Option(help="Formats to run (default: all three).")
    ] = None,
    deals: Annotated[int, typer.Option(help="Deals per round (each in 3 rotations).")] = 1,
    events: Annotated[int, typer.Option(help="Events per format.")] = 3,
    scoring: Annotated[Scoring, typer.Option(help="Rank points over the field or table.")] = (
        Scoring.FIELD
    ),
    seed: Annotated[int, typer.Option(help="Seed of the first event.")] = 0,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Whole events of graded bots per format: Kendall tau of final standings vs true order."""
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from mindsport.event.simulate import simulate_formats
    from mindsport.tournament.doudizhu.games import warm_engine

    if events < 1:
        raise EventError(f"--events must be at least 1, got {events}")
    formats = format or list(EventFormat)
    warm_engine()
    total = len(formats) * events * rounds * (players // 3) * 3 * deals
    start = time.perf_counter()
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        console=Console(stderr=True),
        disable=quiet,
    ) as bar:
        task = bar.add_task("games", total=total)
        found = simulate_formats(
            players,
            rounds,
            formats,
            deals=deals,
            events=events,
            seed=seed,
            scoring=scoring,
            progress=lambda k: bar.advance(task, k),
        )
    seconds = time.perf_counter() - start
    typer.echo(
        f"{players} bots, {rounds} rounds, {deals} deal(s) a round, {scoring} rank points, "
        f"{events} event(s) per format, {seconds:.1f} s"
    )
    for f in found:
        typer.echo(
            f"{f.format:>15}: Kendall tau {f.mean:.3f} (sd {f.sd:.3f}) "
            f"over {len(f.taus)} event(s), {f.seconds:.1f} s"
        )
