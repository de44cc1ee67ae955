"""``mindsport ddz``: deal, watch and simulate Dou Dizhu games."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, cast

import numpy as np
import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from mindsport.doudizhu.bots import make_bots
from mindsport.doudizhu.deal import SEAT_NAMES, deal
from mindsport.doudizhu.game import play
from mindsport.doudizhu.logs import write_logs
from mindsport.doudizhu.scoring import SCORING_RULES, ScoringRule
from mindsport.doudizhu.simulate import Engine, game_rng, simulate
from mindsport.errors import MindsportError

_DEFAULT_OUT = Path("logs.jsonl")

app = typer.Typer(
    help="Dou Dizhu (斗地主): deal hands, watch bots play, simulate many games to JSONL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _scoring(name: str) -> ScoringRule:
    rule = SCORING_RULES.get(name.lower())
    if rule is None:
        raise MindsportError(f"unknown scoring {name!r}; use one of {', '.join(SCORING_RULES)}")
    return rule


def _fail(exc: MindsportError) -> typer.Exit:
    Console(stderr=True).print(f"[bold red]error:[/] {exc}")
    return typer.Exit(2)


@app.command("deal")
def deal_cmd(seed: int = typer.Option(0, help="Seed of the deal (game 0 of that seed).")) -> None:
    """Print a deal as [landlord][farmer1][farmer2]."""
    typer.echo(str(deal(game_rng(seed, 0))))


@app.command("play")
def play_cmd(
    seed: int = typer.Option(0, help="Seed of the deal and of the bots."),
    bots: str = typer.Option("strong", help="Bots: one spec or landlord,farmer1,farmer2."),
    scoring: str = typer.Option("linear", help="Scoring: linear, ccpc2016 or classic."),
) -> None:
    """Play one game and print it move by move."""
    console = Console()
    try:
        players = make_bots(bots)
        rule = _scoring(scoring)
    except MindsportError as exc:
        raise _fail(exc) from None
    rng = game_rng(seed, 0)
    the_deal = deal(rng)
    record = play(the_deal, players, scoring=rule, rng=rng)
    console.print(f"[bold]deal[/] {the_deal}")
    table = Table("#", "seat", "bot", "play")
    for turn, (seat, move) in enumerate(record.moves, 1):
        text = "[dim]pass[/]" if move is None else f"{move.cards} [dim]({move.kind.value})[/]"
        table.add_row(str(turn), SEAT_NAMES[seat], players[seat].name, text)
    console.print(table)
    console.print(
        f"[bold]{record.winner_side} win[/] (seat {SEAT_NAMES[record.winner]}); "
        f"bombs {record.bombs}, rockets {record.rockets}, spring {record.spring}; "
        f"scores ({rule.name}) {', '.join(f'{s:g}' for s in record.scores)}"
    )


@app.command("simulate")
def simulate_cmd(
    games: int = typer.Option(100, min=1, help="Number of games."),
    bots: str = typer.Option("strong", help="Bots: one spec or landlord,farmer1,farmer2."),
    out: Annotated[Path, typer.Option(help="JSONL file to write.")] = _DEFAULT_OUT,
    seed: int = typer.Option(0, help="Seed: game i uses (seed, i), whatever --jobs."),
    jobs: int = typer.Option(1, min=1, help="Worker processes."),
    scoring: str = typer.Option("linear", help="Scoring: linear, ccpc2016 or classic."),
    engine: str = typer.Option(
        "auto", help="auto (compiled for built-in bots), python or compiled: same games."
    ),
) -> None:
    """Simulate many games and write them as JSONL."""
    console = Console()
    try:
        rule = _scoring(scoring)
        make_bots(bots)
        if engine not in ("auto", "python", "compiled"):
            raise MindsportError(f"unknown engine {engine!r}; use auto, python or compiled")
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("games", total=games)
            records = simulate(
                games,
                bots,
                seed=seed,
                jobs=jobs,
                scoring=rule,
                progress=lambda n: progress.advance(task, n),
                engine=cast(Engine, engine),
            )
        write_logs(out, records)
    except MindsportError as exc:
        raise _fail(exc) from None
    scores = np.array([r.landlord_score for r in records])
    wins = sum(r.landlord_won for r in records)
    console.print(
        f"{games} games -> {out}: landlord won {wins / games:.1%}, "
        f"mean landlord score {scores.mean():+.3f}"
    )
