"""``mindsport games``: any registered game through the game contract alone.

``list`` names the games; ``play GAME --bots a,b[,c] --games N --seed S`` plays games between
bots (built-in names of that game, or ``cmd:COMMAND`` programs speaking the JSON-lines bot
protocol) with the shared referee and prints each game's returns, forfeits included;
``compare A B --game GAME`` tells two bots apart (duplicate sets, the luck correction, intervals,
the SPRT or a target width: :mod:`mindsport.games.compare`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mindsport.cli.boundary import new_app
from mindsport.cli.options import output_file, parse_bot_specs
from mindsport.errors import MindsportError

__all__ = ["app"]

app = new_app(
    "Any registered game through the game contract: list the games, play bots.", name="games"
)


@app.callback()
def _group() -> None:
    """Any registered game through the game contract: list the games, play bots."""


@app.command("list")
def list_games() -> None:
    """The registered games, their players and built-in bots."""
    from mindsport.games.registry import game_names, get_game

    for name in game_names():
        game = get_game(name)
        info = game.info
        typer.echo(
            f"{name}: {info.title}, {info.players} players; chance: {info.chance}; "
            f"bots: {', '.join(game.bot_names())}"
        )


@app.command("play")
def play(
    game: str = typer.Argument(..., help="A registered game (mindsport games list)."),
    bots: str = typer.Option(..., help="One bot spec per seat, comma-separated (cmd:... too)."),
    games: int = typer.Option(1, min=1, help="Games to play (game i uses the seed (seed, i))."),
    seed: int = typer.Option(0, min=0, help="Seed of the chance outcomes and the bots."),
    time_limit: float = typer.Option(
        10.0, min=0.001, help="Seconds an external (cmd:) bot may think per move."
    ),
) -> None:
    """Play games between bots through the shared referee; print each game's returns."""
    import numpy as np
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from mindsport.games.referee import play_game
    from mindsport.games.registry import get_game, make_bot

    console = Console(highlight=False)
    players = []
    try:
        chosen = get_game(game)
        specs = parse_bot_specs(bots, "--bots")
        if len(specs) != chosen.info.players:
            raise MindsportError(
                f"--bots {bots!r}: {chosen.info.title} needs {chosen.info.players} bots, "
                f"got {len(specs)}"
            )
        players = [make_bot(chosen, s, time_limit=time_limit) for s in specs]
        table = Table("game", *(f"P{i} {p.name}" for i, p in enumerate(players)), "plies", "note")
        totals = np.zeros(len(players))
        for i in range(games):
            result = play_game(chosen, players, np.random.default_rng([seed, i]))
            totals += result.returns
            note = "" if result.forfeit is None else escape(result.forfeit.describe())
            table.add_row(str(i), *(f"{r:g}" for r in result.returns), str(result.plies), note)
    finally:
        for bot in players:
            close = getattr(bot, "close", None)
            if callable(close):
                close()
    console.print(table)
    console.print("total returns: " + ", ".join(f"P{i} {t:g}" for i, t in enumerate(totals)))


def _reference_pairs(text: str | None) -> tuple[tuple[str, str], ...] | None:
    """``--reference``: None (the game's pairs), ``none`` (no correction) or ``A/B,C/D``."""
    if text is None:
        return None
    if text.strip().lower() == "none":
        return ()
    pairs = []
    for item in parse_bot_specs(text, "--reference"):
        stronger, slash, weaker = item.partition("/")
        if not slash or not stronger.strip() or not weaker.strip():
            raise MindsportError(
                f"--reference {text!r}: {item!r} is not a pair STRONGER/WEAKER of built-in bots"
            )
        pairs.append((stronger.strip(), weaker.strip()))
    return tuple(pairs)


@app.command("compare")
def compare_bots(
    first: str = typer.Argument(..., help="The first bot: a built-in name, level:N, cmd:..."),
    second: str = typer.Argument(..., help="The second bot, likewise."),
    game: str = typer.Option("doudizhu", help="A registered game (mindsport games list)."),
    seed: int = typer.Option(0, min=0, help="Seed of the chance outcomes and the bots."),
    max_games: int = typer.Option(
        2000, min=2, help="The most games between the two bots (the run stops there at the latest)."
    ),
    batch: int = typer.Option(
        100, min=1, help="Duplicate sets per batch; the stopping rule is checked after each."
    ),
    stop: str = typer.Option(
        "sprt", help="sprt (Wald's test, --elo0/--elo1/--alpha/--beta), width (--width) or none."
    ),
    elo0: float = typer.Option(0.0, help="The SPRT's H0: the first bot is elo0 Elo stronger."),
    elo1: float = typer.Option(20.0, help="The SPRT's H1: the first bot is elo1 Elo stronger."),
    alpha: float = typer.Option(0.05, help="The SPRT's chance of accepting H1 when H0 holds."),
    beta: float = typer.Option(0.05, help="The SPRT's chance of accepting H0 when H1 holds."),
    width: float = typer.Option(0.05, help="--stop width: the widest interval that stops."),
    metric: str = typer.Option("win", help="--stop width: win (win score) or score (margin)."),
    reference: str | None = typer.Option(
        None,
        help="Reference pairs STRONGER/WEAKER of built-in bots that value each chance outcome "
        "(the luck correction), comma-separated; none: no correction; default: the game's.",
    ),
    calibration: int = typer.Option(
        4, min=1, max=64, help="Calibration outcomes per set the references also play."
    ),
    actions: bool = typer.Option(
        True,
        "--actions/--no-actions",
        help="The action correction (AIVAT's action terms) for the decisions of bots whose "
        "move distribution the game knows (Dou Dizhu: random, level:N); none for cmd: bots.",
    ),
    playouts: int = typer.Option(
        0,
        min=0,
        max=256,
        help="The action correction values each move by this many playouts of the game's own "
        "bots (Dou Dizhu, both bots built in; about 8 ms a game per playout on one core): "
        "at 48, 13 and 6 times fewer games than random deals for level:90 against level:70 "
        "and level:30 (the fixed values: 1.6 and 1.3); below 16 the values are too noisy and "
        "can add variance. 0: by fixed value functions.",
    ),
    level: float = typer.Option(0.95, min=0.5, max=0.999, help="The intervals' level."),
    executor: str = typer.Option(
        "local",
        help="Where games run: local (worker processes), serial, or ray. Same report for the "
        "same --seed on any of them.",
    ),
    workers: int = typer.Option(0, min=0, help="Local workers or Ray CPUs (0: all cores)."),
    address: str | None = typer.Option(None, help="Ray cluster address (e.g. auto)."),
    json_out: Annotated[
        Path | None,
        typer.Option("--json", help="Write the report as JSON here.", callback=output_file),
    ] = None,
    quiet: bool = typer.Option(False, "--quiet", help="No line per batch on stderr."),
) -> None:
    """Is FIRST stronger than SECOND, by how much, and after how few games? Duplicate sets in
    every line-up of the game's rotation, corrected for luck by fixed reference bots and for
    the known bots' random moves (AIVAT's action terms), with intervals and sequential
    stopping. An external (cmd:) bot has 10 seconds per move. See
    docs/compare.md."""
    import functools
    import json

    from mindsport.files import write_atomically
    from mindsport.games.compare import CompareSettings, Report, Sprt, Width, compare
    from mindsport.games.compare.play import SetsTask, play_sets
    from mindsport.games.registry import get_game
    from mindsport.tournament.executors import make_executor

    chosen = get_game(game)
    rule: Sprt | Width | None
    if stop == "sprt":
        rule = Sprt(elo0, elo1, alpha, beta)
    elif stop == "width":
        rule = Width(width, metric)  # type: ignore[arg-type]
    elif stop == "none":
        rule = None
    else:
        raise MindsportError(f"--stop {stop!r}: use sprt, width or none")
    settings = CompareSettings(
        seed=seed,
        max_games=max_games,
        batch=batch,
        stop=rule,
        references=_reference_pairs(reference),
        calibration=calibration,
        level=level,
        actions=actions,
        playouts=playouts,
    )
    pairs = chosen.info.references if settings.references is None else settings.references
    warm = functools.partial(
        play_sets,
        SetsTask(chosen, first.strip(), second.strip(), pairs, 1, seed, (0,), actions),
    )

    def said(report: Report) -> None:
        if not quiet:
            c = report.win.corrected
            typer.echo(
                f"{report.games} games: win score {c.mean:.4f} [{c.low:.4f}, {c.high:.4f}]",
                err=True,
            )

    with make_executor(executor, workers or None, address=address, warmup=warm) as ex:
        result = compare(chosen, first, second, settings, executor=ex, progress=said)
    for line in result.lines():
        typer.echo(line)
    if json_out is not None:
        text = json.dumps(result.to_json(), indent=2) + "\n"

        def write(path: Path) -> None:
            path.write_text(text, encoding="utf-8")

        write_atomically(json_out, write)
