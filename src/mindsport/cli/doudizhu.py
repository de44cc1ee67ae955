"""``mindsport ddz``: deal, watch and simulate Dou Dizhu games."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mindsport.cli.boundary import new_app
from mindsport.cli.options import output_file
from mindsport.errors import MindsportError

if TYPE_CHECKING:
    from mindsport.doudizhu.bots import Bot
    from mindsport.doudizhu.scoring import ScoringRule

_DEFAULT_OUT = Path("logs.jsonl")

app = new_app("Dou Dizhu (斗地主): deal hands, watch bots play, simulate many games to JSONL.")


def _scoring(name: str) -> ScoringRule:
    from mindsport.doudizhu.scoring import SCORING_RULES

    rule = SCORING_RULES.get(name.lower())
    if rule is None:
        raise MindsportError(
            f"--scoring {name!r}: unknown scoring; use one of {', '.join(SCORING_RULES)}"
        )
    return rule


def _doubles(text: str) -> tuple[int, int]:
    from mindsport.doudizhu.scoring import check_doubles

    try:
        return check_doubles(tuple(int(x) for x in text.split(",")))
    except ValueError as exc:
        why = str(exc) if isinstance(exc, MindsportError) else "expected two numbers F1,F2"
        raise MindsportError(f"--doubles {text!r}: {why}") from None


@app.command("compile")
def compile_cmd() -> None:
    """Load the compiled engine, compiling it first if this machine has not yet (about a
    minute, once; later commands then start at once)."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.moves import move_table

    ensure_compiled()
    move_table()
    typer.echo("the Dou Dizhu engine is ready")


@app.command("deal")
def deal_cmd(seed: int = typer.Option(0, help="Seed of the deal (game 0 of that seed).")) -> None:
    """Print a deal as [landlord][farmer1][farmer2]."""
    from mindsport.doudizhu.deal import deal
    from mindsport.doudizhu.game import game_rng

    typer.echo(str(deal(game_rng(seed, 0))))


_BOTS_HELP = (
    "Bots: one spec or landlord,farmer1,farmer2: random, greedy, strong, tracking, level:N or "
    'cmd:COMMAND (a program speaking the JSON-lines bot protocol, e.g. cmd:"python bot.py").'
)
_TIME_HELP = "Seconds an external (cmd:) bot may think per move before it forfeits."


def _close(players: Sequence[object]) -> None:
    """Stop the external programs among ``players`` (and reap them)."""
    for bot in players:
        close = getattr(bot, "close", None)
        if callable(close):
            close()


@app.command("play")
def play_cmd(
    seed: int = typer.Option(0, help="Seed of the deal and of the bots."),
    bots: str = typer.Option("strong", help=_BOTS_HELP),
    scoring: str = typer.Option("linear", help="Scoring: linear, ccpc2016 or classic."),
    time_limit: float = typer.Option(10.0, min=0.001, help=_TIME_HELP),
    call: int = typer.Option(1, min=1, max=3, help="The landlord's bid, 1-3 (ccpc2016, classic)."),
    doubles: str = typer.Option(
        "0,0",
        help="Doublings on farmer 1's and farmer 2's stakes (ccpc2016): each 0, 1 (he doubled) "
        "or 2 (he doubled, the landlord redoubled), e.g. 2,0.",
    ),
) -> None:
    """Play one game and print it move by move."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from mindsport.doudizhu.bots import make_bots
    from mindsport.doudizhu.deal import SEAT_NAMES, deal
    from mindsport.doudizhu.game import game_rng, play

    console = Console()
    rule = _scoring(scoring)
    doubling = _doubles(doubles)
    players = make_bots(bots, time_limit=time_limit)
    rng = game_rng(seed, 0)
    the_deal = deal(rng)
    try:
        record = play(the_deal, players, scoring=rule, rng=rng, call=call, doubles=doubling)
    finally:
        _close(players)
    console.print(f"[bold]deal[/] {the_deal}")
    table = Table("#", "seat", "bot", "play")
    for turn, (seat, move) in enumerate(record.moves, 1):
        text = "[dim]pass[/]" if move is None else f"{move.cards} [dim]({move.kind.value})[/]"
        table.add_row(str(turn), SEAT_NAMES[seat], escape(players[seat].name), text)
    console.print(table)
    if record.forfeit is not None:
        f = record.forfeit
        console.print(
            f"[bold red]forfeit[/]: {SEAT_NAMES[f.player]} ({players[f.player].name}), "
            f"{f.reason.value}: {escape(f.detail)}"
        )
    console.print(
        f"[bold]{record.winner_side} win[/] (seat {SEAT_NAMES[record.winner]}); "
        f"bombs {record.bombs}, rockets {record.rockets}, spring {record.spring}; call "
        f"{record.call}, doubles {record.doubles[0]},{record.doubles[1]}; scores "
        f"({rule.name}) {', '.join(f'{s:g}' for s in record.scores)}"
    )


@app.command("simulate")
def simulate_cmd(
    games: int = typer.Option(100, min=1, help="Number of games."),
    bots: str = typer.Option("strong", help=_BOTS_HELP),
    out: Annotated[
        Path, typer.Option(help="JSONL file to write.", callback=output_file)
    ] = _DEFAULT_OUT,
    seed: int = typer.Option(0, help="Seed: game i uses (seed, i), whatever --jobs."),
    jobs: int = typer.Option(1, min=1, help="Worker processes."),
    scoring: str = typer.Option("linear", help="Scoring: linear, ccpc2016 or classic."),
    time_limit: float = typer.Option(10.0, min=0.001, help=_TIME_HELP),
) -> None:
    """Simulate many games and write them as JSONL (external bots: one program per seat for
    the whole run, games played one after the other)."""
    import numpy as np
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress

    from mindsport.doudizhu.bots import make_bots
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.engine import supported
    from mindsport.doudizhu.game import simulate
    from mindsport.doudizhu.logs import write_logs

    console = Console()
    players: list[Bot] = []
    try:
        rule = _scoring(scoring)
        players = make_bots(bots, time_limit=time_limit)
        lineup: str | list[Bot] = bots if supported(players) else players
        if not isinstance(lineup, str):
            jobs = 1  # programs and custom bots stay in this process, started once
        ensure_compiled()
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("games", total=games)
            records = simulate(
                games,
                lineup,
                seed=seed,
                jobs=jobs,
                scoring=rule,
                progress=lambda n: progress.advance(task, n),
            )
        write_logs(out, records)
    finally:
        _close(players)
    forfeits = sum(r.forfeit is not None for r in records)
    if forfeits:
        console.print(f"{forfeits} games ended by a forfeit (see the log's forfeit field)")
    scores = np.array([r.landlord_score for r in records])
    wins = sum(r.landlord_won for r in records)
    console.print(
        f"{games} games -> {escape(str(out))}: landlord won {wins / games:.1%}, "
        f"mean landlord score {scores.mean():+.3f}"
    )
