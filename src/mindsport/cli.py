"""The ``mindsport`` command: one entry point, a sub-command group per area.

Errors on bad input (every :class:`ValueError`) are printed without a traceback and the command
exits with status 2.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

app = typer.Typer(
    name="mindsport",
    help="Ratings, fair tournaments, simulation and hidden-information inference for mind sports.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err_console = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Ratings, fair tournaments, simulation and hidden-information inference for mind sports."""


@app.command()
def demo(
    players: int = typer.Option(24, min=2, help="Players in the simulated league."),
    games: int = typer.Option(600, min=1, help="Games to simulate."),
    seed: int = typer.Option(2024, help="Seed of the simulation (reproducible)."),
) -> None:
    """Simulate a league of players with known true skills, rate them, show the leaderboard."""
    from mindsport.demo import run_league_demo

    run_league_demo(players=players, games=games, seed=seed)


def _register() -> None:
    """Attach the sub-command groups of each area (imported here, not at package import)."""
    from mindsport.doudizhu.cli import app as ddz_app
    from mindsport.junqi.cli import app as junqi_app
    from mindsport.tournament.cli import app as tournament_app

    app.add_typer(ddz_app, name="ddz", help="Dou Dizhu: deal, play and simulate games of bots.")
    app.add_typer(junqi_app, name="junqi", help="Luzhanqi: play games between bots.")
    app.add_typer(
        tournament_app,
        name="tournament",
        help="Fair tournaments: discrimination (DIH), equal strength (GDI), formats, Swiss.",
    )


_register()


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except ValueError as exc:  # bad input: a clear message, no traceback
        err_console.print(f"[bold red]error:[/] {exc}")
        sys.exit(2)


if __name__ == "__main__":
    main()
