"""Command-line commands over the rating store (typer).

Register them on the main ``mindsport`` app with :func:`register` (or by hand: every function in
:data:`commands` with ``app.command()``, plus :data:`keys_app` and :data:`leagues_app` with
``app.add_typer``). :data:`app` bundles them all for standalone use and tests. (The HTTP service
has its own command, ``mindsport serve``, in :mod:`mindsport.cli.serve`.)

Rating models and their settings come from the model registry
(:mod:`mindsport.rating.registry`): ``--model`` takes any registered name, ``--param NAME=VALUE``
any of its settings (checked and parsed by the model's description of it).

Every command takes ``--db URL`` (default ``$MINDSPORT_DATABASE_URL`` or ``./mindsport.db``,
:mod:`mindsport.cli.options`). Commands that only read (``leaderboard``, ``player``,
``predict``, ...) never create a database: a missing one is an error. Errors are printed by the
command line's error boundary (:mod:`mindsport.cli.boundary`); this module imports only typer,
so the database layer loads when a command runs.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mindsport.cli.boundary import new_app
from mindsport.cli.options import (
    DbOption,
    open_store,
    output_file,
    parse_names,
    parse_settings,
)
from mindsport.errors import MindsportError, file_error

if TYPE_CHECKING:
    from rich.console import Console

    from mindsport.match import Match
    from mindsport.rating.registry import Display

__all__ = ["app", "commands", "keys_app", "leagues_app", "rating_figure", "register"]

DEFAULT_LEAGUE = "main"

LeagueOption = typer.Option(DEFAULT_LEAGUE, "--league", "-l", help="League name.")
_MODELS_HELP = "see `mindsport leagues models`"
_TIME_UNIT_HELP = (
    "What the league's numeric match times mean, for showing them: 'number' (not said), "
    "'seconds' since 1970-01-01 UTC (shown as dates; dated matches are stored so), 'days' or "
    "'rounds' (shown as day N, round N)."
)
_LATE_HELP = (
    "Policy for late results (a match dated before the league's latest): 'replay' re-rates "
    "what depends on it, 'arrival' rates matches in the order they arrive, 'refuse:AGE' "
    "refuses one older than the latest by more than AGE (days for dated matches, else time "
    "units) and replays one within it."
)


def _console() -> Console:
    """Standard output without markup: player ids, league names and files print as they are
    (a player called "[bold]x" keeps the brackets)."""
    from rich.console import Console

    return Console(markup=False, highlight=False)


def _err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, markup=False, highlight=False)


def _read_file(path: Path) -> tuple[list[int], list[Match]]:
    """The matches of a JSONL/CSV/Parquet file and their lines (``mindsport.history.io``, on
    the column path when the file allows it)."""
    from mindsport.history.io import read_located

    return read_located(path)


_NAMED_MATCH = re.compile(r"""^match ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def _in_file(exc: MindsportError, path: Path, lines: dict[str, int]) -> MindsportError:
    """A store-stage error about one match, restated with the file, line and field of that
    match (``exc`` itself when it names no match of the file)."""
    from mindsport.history.io import MatchFileError

    match_id = getattr(exc, "match_id", None)
    if match_id is None:  # a model's refusal names the match in its text
        named = _NAMED_MATCH.match(str(exc))
        if named is not None:
            with contextlib.suppress(ValueError, SyntaxError):
                match_id = ast.literal_eval(named.group(1))
    if not isinstance(match_id, str) or match_id not in lines:
        return exc
    field = getattr(exc, "field", None)
    if field is None:  # the model refused the match: its line-up, its ranks or its weights
        text = str(exc).lower()
        field = "weights" if "weight" in text else "ranks" if "rank" in text else "teams"
    return MatchFileError(path, lines[match_id], field, str(exc))


def _table(**kwargs: Any) -> Any:
    from rich.table import Table

    return Table(**kwargs)


def _teams(text: str, what: str) -> list[str]:
    return parse_names(text, what, "player ids")


def _roles(texts: list[str] | None) -> list[list[str]] | None:
    """``--roles``, one per team: each team's roles, comma-separated."""
    if not texts:
        return None
    return [parse_names(t, f"--roles (team {i + 1})", "roles") for i, t in enumerate(texts)]


RolesOption = typer.Option(
    None,
    "--roles",
    help="A team's roles (seats), comma-separated, one per player; repeat once per team in "
    "order (--roles home --roles away). Only for a league whose model rates roles (cardplay).",
)


# -- commands -----------------------------------------------------------------------------


def rate(
    file: Annotated[
        Path,
        typer.Argument(
            help="A match file (JSONL, CSV long format or Parquet) or a public data set "
            "(the tennis_atp folder, Halo 2 HeadToHead.csv, TI4 ti4.csv; detected as by "
            "`mindsport import`)."
        ),
    ],
    league: str = LeagueOption,
    db: str | None = DbOption,
    model: str = typer.Option(
        "trueskill", help=f"Model of the league if it has to be created ({_MODELS_HELP})."
    ),
) -> None:
    """Ingest a match file into a league (one transaction: a bad row writes nothing)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from mindsport.history.importers import detect_source, import_matches
    from mindsport.rating.registry import get_spec

    get_spec(model)  # an unknown model is refused before any work
    kind = detect_source(file)
    console = _console()
    summary = None
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=False,
    ) as bar:
        reading = bar.add_task(f"reading {file.name}", total=None)
        matches: list[Match] = []
        lines: dict[str, int] = {}
        if kind == "matches":  # the project's own formats: errors name the file's line
            starts, matches = _read_file(file)
            lines = dict(zip([m.id for m in matches], starts, strict=True))
        else:  # a public data set, in its published format
            imported = import_matches(file)
            matches = imported.matches
            summary = imported.summary()
        bar.update(reading, completed=len(matches), total=len(matches))
        # the whole file is read (and checked) before the database is opened; the league is
        # created in the same transaction as the matches, so a refused file leaves nothing
        rating = bar.add_task(f"rating into {league!r}", total=None)

        def tick(done: int, total: int) -> None:
            bar.update(rating, completed=done, total=total)

        with open_store(db, create=True) as store:
            try:
                result = store.load_matches(league, matches, progress=tick, create=(model, {}))
            except MindsportError as exc:
                raise _in_file(exc, file, lines) from exc
        bar.update(rating, total=max(1, result.added + result.replayed))
        bar.update(rating, completed=max(1, result.added + result.replayed))
    if summary is not None:
        console.print(summary, highlight=False, markup=False)
    console.print(
        f"{result.added} new match{'es' if result.added != 1 else ''}, "
        f"{result.duplicates} already recorded, {result.replayed} replayed "
        f"(league {league!r})"
    )


def leaderboard(
    league: str = LeagueOption,
    top: int = typer.Option(20, "--top", "-n", min=1, help="Rows to show."),
    search: str | None = typer.Option(None, help="Only players whose id contains this."),
    db: str | None = DbOption,
) -> None:
    """Show the leaderboard, best first by the model's conservative rating.

    TrueSkill: mu - 3 sigma; Glicko-2: rating - 2 RD; Elo and Tenhou R: the rating itself.
    """
    with open_store(db, create=False) as store:
        page = store.leaderboard(league, limit=top, search=search)
    from mindsport.store.display import board_table, role_lines

    console = _console()
    console.print(board_table(page))
    if page.updating:
        console.print(
            f"League {league!r} is being brought up to date after a late result: these are its "
            "last consistent ratings (the server re-rates it in the background; "
            "`mindsport recompute` or Store.catch_up() finish it here).",
            markup=False,
        )
    lines = role_lines(page)
    if lines:
        console.print("Seats against the average seat (95% intervals):", markup=False)
        for line in lines:
            console.print("  " + line, markup=False)


def player(
    player_id: str = typer.Argument(..., help="Player id."),
    league: str = LeagueOption,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="Write a PNG plot of the rating (and its deviation band) over time; in a "
            "whole-history league, the smoothed skill curve with its mu ± 2 sigma band.",
            callback=output_file,
        ),
    ] = None,
    last: int = typer.Option(10, min=0, help="History rows to print."),
    db: str | None = DbOption,
) -> None:
    """Show a player's rating and history (optionally plot it).

    In a whole-history league (model ``trueskill-history``) the history is the player's smoothed
    skill curve: his skill at each time step he played in, given every game of the league.
    """
    from mindsport.store.values import time_text

    with open_store(db, create=False) as store:
        rec = store.player(league, player_id)
        lm = store.league_model(league)
        unit = store.get_league(league).time_unit
        d = lm.display
    console = _console()
    dev = f", {d.deviation_label} {rec.state.sigma:.3f}" if d.deviation_label else ""
    shown = f"{rec.exposed:.3f}" if d.levels is None else d.shown(rec.exposed)
    console.print(
        f"{rec.player} in {league!r}: rank {rec.rank}, {d.value_label} {rec.state.mu:.3f}"
        f"{dev}, {d.conservative} {shown}, {rec.games} games",
        highlight=False,
    )
    if last and lm.smoothed and rec.curve:
        table = _table(title="smoothed skill curve (given every game)")
        cols = ["time step", d.value_label, d.deviation_label or "sigma"]
        for col in cols:
            table.add_column(col, justify="right")
        for c in rec.curve[-last:]:
            table.add_row(time_text(c.time, unit), f"{c.mu:.3f}", f"{c.sigma:.3f}")
        console.print(table)
    elif last and rec.history:
        table = _table()
        cols = ["match", "time", d.value_label] + ([d.deviation_label] if d.deviation_label else [])
        for col in cols:
            table.add_column(col, justify="left" if col == "match" else "right")
        for h in rec.history[-last:]:
            row = [h.match_id, time_text(h.time, unit), f"{h.mu:.3f}"]
            table.add_row(*row, *([f"{h.sigma:.3f}"] if d.deviation_label else []))
        console.print(table)
    if plot is not None:
        points = rec.curve if lm.smoothed else rec.history
        fig = rating_figure(rec.player, points, d, lm.smoothed, unit)
        _save(fig, plot)
        console.print(f"plot written to {plot}")


def rating_figure(
    name: str, points: list[Any], display: Display, smoothed: bool, unit: str = "number"
) -> Any:
    """A matplotlib figure of a player's rating over time: ``points`` (each with ``time``,
    ``mu``, ``sigma``) as a line, with a ``mu ± sigma`` band when the model has a deviation
    (``smoothed``: a whole-history league's skill curve, with a ``mu ± 2 sigma`` band). The
    time axis as the league's time ``unit`` says: dates (UTC) for ``seconds``, day or round
    numbers, else plain numbers (never an exponent or an offset)."""
    import matplotlib

    matplotlib.use("Agg")
    from datetime import UTC, datetime

    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4), dpi=100)
    ax = fig.add_subplot()
    t: list[Any] = [h.time for h in points]
    if unit == "seconds":
        t = [datetime.fromtimestamp(x, UTC) for x in t]
    mu = [h.mu for h in points]
    value = f"smoothed {display.value_label}" if smoothed else display.value_label
    if display.deviation_label is not None:
        k = 2.0 if smoothed else 1.0
        sd = [k * h.sigma for h in points]
        ax.fill_between(
            t,
            [m - s for m, s in zip(mu, sd, strict=True)],
            [m + s for m, s in zip(mu, sd, strict=True)],
            alpha=0.25,
            label=f"{value} ± {'2 ' if smoothed else ''}{display.deviation_label}",
        )
    ax.plot(t, mu, marker=".", label=value)
    ax.set_title(f"{name}: {'smoothed skill curve' if smoothed else 'rating history'}")
    if unit == "seconds":
        fig.autofmt_xdate()
    else:
        ax.ticklabel_format(axis="x", style="plain", useOffset=False)
    ax.set_xlabel({"seconds": "date (UTC)", "days": "day", "rounds": "round"}.get(unit, "time"))
    ax.set_ylabel(display.value_label)
    ax.legend(loc="best")
    fig.tight_layout()
    return fig


def _save(fig: Any, path: Path) -> None:
    try:
        fig.savefig(os.fspath(path))
    except OSError as exc:
        raise file_error(exc, path) from None


def predict(
    teams: Annotated[list[str], typer.Argument(help="Two or more teams, each 'a,b,c'.")],
    league: str = LeagueOption,
    allow_new: bool = typer.Option(False, "--allow-new", help="Unknown players get the prior."),
    roles: list[str] | None = RolesOption,
    db: str | None = DbOption,
) -> None:
    """Win probability and match quality of TEAM_A against TEAM_B (comma-separated ids), with
    their roles (seats) where the league's model rates roles."""
    if len(teams) < 2:
        raise MindsportError(f"predict: need at least two teams, got {teams!r}")
    parsed = [_teams(t, f"team {i + 1}") for i, t in enumerate(teams)]
    from mindsport import forecast

    with open_store(db, create=False) as store:
        pr = forecast.predict(store, league, parsed, roles=_roles(roles), allow_new=allow_new)
    console = _console()
    names = [",".join(t) for t in pr.teams]
    if pr.roles is not None:
        names = [f"{n} ({','.join(r)})" for n, r in zip(names, pr.roles, strict=True)]
    if pr.win_probability is not None:
        lose = pr.pairwise[1][0]
        draw = None if lose is None else max(0.0, 1.0 - pr.win_probability - lose)
        console.print(f"P({names[0]} beats {names[1]}) = {pr.win_probability:.4f}")
        if lose is not None and draw is not None:
            console.print(f"P({names[1]} beats {names[0]}) = {lose:.4f}, P(draw) = {draw:.4f}")
    if pr.rank_probabilities is not None:
        for name, row in zip(names, pr.rank_probabilities, strict=True):
            places = ", ".join(f"{k + 1}: {p:.3f}" for k, p in enumerate(row))
            console.print(f"{name} finishes  {places}")
    if pr.quality is not None:
        console.print(f"match quality = {pr.quality:.4f}")
    if pr.new_players:
        console.print(f"new players (prior rating): {', '.join(pr.new_players)}")


def matchmake(
    players: str = typer.Option(..., help="Waiting players, comma-separated."),
    shape: str = typer.Option("1v1", help="1v1, 2v2, 1v2 (landlord vs two farmers) or ffa4."),
    league: str = LeagueOption,
    allow_new: bool = typer.Option(False, "--allow-new", help="Unknown players get the prior."),
    roles: list[str] | None = RolesOption,
    db: str | None = DbOption,
) -> None:
    """Seat waiting players at balanced tables (maximise the worst table's quality); with
    --roles (the shape's seats) each table also takes the best assignment of roles to teams."""
    from mindsport import forecast

    with open_store(db, create=False) as store:
        plan = forecast.matchmake(
            store,
            league,
            _teams(players, "--players"),
            shape,
            roles=_roles(roles),
            allow_new=allow_new,
        )
    console = _console()
    table = _table(
        title=f"{len(plan.tables)} tables ({shape}{'' if plan.exact else ', heuristic'})"
    )
    table.add_column("table", justify="right")
    table.add_column("teams")
    table.add_column("quality", justify="right")
    for i, tb in enumerate(plan.tables, 1):
        teams = [",".join(t) for t in tb.teams]
        if tb.roles is not None:
            teams = [f"{t} ({','.join(r)})" for t, r in zip(teams, tb.roles, strict=True)]
        table.add_row(str(i), "  vs  ".join(teams), f"{tb.quality:.4f}")
    console.print(table)
    if plan.waiting:
        console.print(f"still waiting: {', '.join(plan.waiting)}")


def recompute(
    league: str | None = typer.Option(None, "--league", "-l", help="One league (default: all)."),
    db: str | None = DbOption,
) -> None:
    """Rebuild ratings and history from the match log."""
    with open_store(db, create=False) as store:
        done = store.recompute(league)
    for name, n in done.items():
        _console().print(f"{name}: replayed {n} matches")


commands: list[Callable[..., Any]] = [
    rate,
    leaderboard,
    player,
    predict,
    matchmake,
    recompute,
]

# -- keys ---------------------------------------------------------------------------------

keys_app = new_app(
    "API keys: write keys of a league and admin keys (listed, revoked, with an expiry)."
)


@keys_app.command("create")
def keys_create(
    league: str = LeagueOption,
    admin: bool = typer.Option(
        False, "--admin", help="An admin key (all leagues, leagues and keys over HTTP)."
    ),
    expires: str | None = typer.Option(
        None, "--expires", help="Expiry: a duration (90m, 12h, 30d, 2w) or an ISO date/datetime."
    ),
    label: str | None = typer.Option(None, "--label", help="A note to tell keys apart."),
    db: str | None = DbOption,
) -> None:
    """Create a key and print it (shown this once; only its hash is stored).

    The first admin key of a new server is made here: ``mindsport keys create --admin``.
    """
    from mindsport.store.keys import parse_expiry

    when = None if expires is None else parse_expiry(expires)
    with open_store(db, create=True) as store:
        key, info = store.issue_key(
            None if admin else league, admin=admin, expires_at=when, label=label
        )
    typer.echo(key)
    _err_console().print(
        f"key {info.id} ({info.role.value}{'' if info.league is None else ' of ' + info.league}"
        f"{'' if info.expires_at is None else ', expires ' + info.expires_at.isoformat()})",
        highlight=False,
    )


@keys_app.command("list")
def keys_list(
    league: str | None = typer.Option(None, "--league", "-l", help="Only this league's keys."),
    db: str | None = DbOption,
) -> None:
    """List the keys (never the keys themselves: their prefixes) with their status."""
    with open_store(db, create=False) as store:
        keys = store.list_keys(league)
    table = _table()
    for col in ("id", "role", "league", "prefix", "label", "created", "expires", "status"):
        table.add_column(col)
    for k in keys:
        table.add_row(
            str(k.id),
            k.role.value,
            k.league or "",
            k.prefix + "...",
            k.label or "",
            k.created_at.strftime("%Y-%m-%d %H:%M"),
            "" if k.expires_at is None else k.expires_at.strftime("%Y-%m-%d %H:%M"),
            k.status(),
        )
    _console().print(table)


@keys_app.command("revoke")
def keys_revoke(
    key_id: int = typer.Argument(..., help="The key's id (see `keys list`)."),
    db: str | None = DbOption,
) -> None:
    """Revoke a key: refused from this moment on (a running server reads keys on every call)."""
    with open_store(db, create=False) as store:
        k = store.revoke_key(key_id)
    typer.echo(f"key {k.id} ({k.prefix}...) revoked")


# -- leagues ------------------------------------------------------------------------------

leagues_app = new_app("Rating pools, each with its own model and settings.")


def _params(
    model: str,
    mu: float | None,
    sigma: float | None,
    beta: float | None,
    tau: float | None,
    draw_probability: float | None,
    param: list[str] | None,
) -> dict[str, Any]:
    """The settings given on the command line, parsed by the model's description of each."""
    from mindsport.rating.registry import get_spec

    spec = get_spec(model)
    out: dict[str, Any] = {}
    for key, value in (
        ("mu", mu),
        ("sigma", sigma),
        ("beta", beta),
        ("tau", tau),
        ("draw_probability", draw_probability),
    ):
        if value is not None:
            out[key] = value
    for key, text in parse_settings(param or [], "--param"):
        out[key] = spec.parse(key, text)
    return spec.check(out)


@leagues_app.command("create")
def leagues_create(
    name: str = typer.Argument(..., help="League name (letters, digits, '_', '.', '-')."),
    model: str = typer.Option("trueskill", help=f"Rating model ({_MODELS_HELP})."),
    mu: float | None = typer.Option(None, help="TrueSkill prior mean."),
    sigma: float | None = typer.Option(None, help="TrueSkill prior deviation."),
    beta: float | None = typer.Option(None, help="TrueSkill performance noise."),
    tau: float | None = typer.Option(None, help="TrueSkill dynamics."),
    draw_probability: float | None = typer.Option(None, help="TrueSkill draw probability."),
    param: Annotated[
        list[str] | None,
        typer.Option(
            help="Model setting NAME=VALUE (see `mindsport leagues models`): a number, "
            "true/false, none, a name, or a table as JSON ([[30,10,-10,-30],[30,0,-30]])."
        ),
    ] = None,
    late: str = typer.Option("replay", help=_LATE_HELP),
    time_unit: str = typer.Option("number", "--time-unit", help=_TIME_UNIT_HELP),
    db: str | None = DbOption,
) -> None:
    """Create a league."""
    params = _params(model, mu, sigma, beta, tau, draw_probability, param)
    with open_store(db, create=True) as store:
        lg = store.create_league(name, model, params, late=late, time_unit=time_unit)
    typer.echo(
        f"league {lg.name!r} created: {lg.model} {lg.params}, late results: {lg.late.text()}, "
        f"times: {lg.time_unit}"
    )


@leagues_app.command("set")
def leagues_set(
    name: str = typer.Argument(..., help="League name."),
    model: str | None = typer.Option(None, help="New model (default: keep)."),
    mu: float | None = typer.Option(None),
    sigma: float | None = typer.Option(None),
    beta: float | None = typer.Option(None),
    tau: float | None = typer.Option(None),
    draw_probability: float | None = typer.Option(None),
    param: Annotated[
        list[str] | None, typer.Option(help="Other model parameter NAME=VALUE.")
    ] = None,
    late: str | None = typer.Option(
        None, help=_LATE_HELP + " Given alone, nothing is re-rated (default: keep)."
    ),
    time_unit: str | None = typer.Option(
        None, "--time-unit", help=_TIME_UNIT_HELP + " Never re-rates (default: keep)."
    ),
    db: str | None = DbOption,
) -> None:
    """Change a league's settings (merged into the current ones) and replay its matches, or
    its policy for late results or its time unit (given alone: nothing is re-rated)."""
    given = (model, mu, sigma, beta, tau, draw_probability)
    with open_store(db, create=False) as store:
        if (
            (late is not None or time_unit is not None)
            and all(v is None for v in given)
            and not param
        ):
            lg = store.update_league(name, late=late, time_unit=time_unit)
            typer.echo(
                f"league {lg.name!r}: late results: {lg.late.text()}, times: {lg.time_unit}; "
                "nothing re-rated"
            )
            return
        current = store.get_league(name)
        params = dict(current.params) if model is None or model == current.model else {}
        name_ = model or current.model
        params.update(_params(name_, mu, sigma, beta, tau, draw_probability, param))
        lg = store.update_league(name, model=model, params=params, late=late, time_unit=time_unit)
    typer.echo(
        f"league {lg.name!r}: {lg.model} {lg.params}, late results: {lg.late.text()}; "
        f"{lg.matches} matches replayed"
    )


@leagues_app.command("models")
def leagues_models() -> None:
    """List the rating models a league can use, with their settings."""
    from mindsport.rating.registry import MODELS, Estimate

    for spec in MODELS.values():
        d = spec.display
        how = "" if spec.estimate is Estimate.ONLINE else f" ({spec.estimate.value})"
        typer.echo(
            f"{spec.name}: {spec.title}{how} - {spec.summary}; leaderboard: {d.conservative}"
        )
        for p in spec.params:
            typer.echo(f"    {p.name} = {p.default!r}  ({p.allowed()}) {p.help}")


@leagues_app.command("list")
def leagues_list(
    as_json: bool = typer.Option(
        False,
        "--json",
        help='One JSON object as GET /api/leagues answers it ({"leagues": [...]}, every '
        "setting as data; each can be given back as --param NAME=VALUE).",
    ),
    db: str | None = DbOption,
) -> None:
    """List the leagues."""
    import json

    with open_store(db, create=False) as store:
        leagues = store.list_leagues()
    if as_json:
        typer.echo(json.dumps({"leagues": [lg.as_dict() for lg in leagues]}))
        return
    for lg in leagues:
        typer.echo(
            f"{lg.name}\t{lg.model}\t{lg.params}\t{lg.matches} matches\tlate: {lg.late.text()}"
            f"\ttimes: {lg.time_unit}"
        )


def register(target: typer.Typer) -> None:
    """Add the store commands and the ``keys``/``leagues`` groups to ``target``."""
    for cmd in commands:
        target.command()(cmd)
    target.add_typer(keys_app, name="keys")
    target.add_typer(leagues_app, name="leagues")


app = new_app(
    "Ratings stored in a database: ingest, leaderboard, predictions, service.",
    name="mindsport-store",
)
register(app)
