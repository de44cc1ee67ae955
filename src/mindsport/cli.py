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


def _version(value: bool) -> None:
    if value:
        from mindsport import __version__

        typer.echo(f"mindsport {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Ratings, fair tournaments, simulation and hidden-information inference for mind sports."""


@app.command()
def demo(
    db: str = typer.Option("out/mindsport.db", help="SQLite file for the ratings (recreated)."),
    players: int = typer.Option(24, min=4, help="Players in the simulated league."),
    games: int = typer.Option(600, min=1, help="Games of the simulated league."),
    ddz_games: int = typer.Option(600, min=1, help="Dou Dizhu games between graded bots."),
    seed: int = typer.Option(2024, help="Seed of every random process (reproducible)."),
) -> None:
    """The main job: simulate, rate and store a league and a ladder of Dou Dizhu bots."""
    from mindsport.demo import run_demo

    run_demo(db=db, players=players, games=games, ddz_games=ddz_games, seed=seed)


def _register() -> None:
    """Attach the sub-command groups of each area (imported here, not at package import)."""
    from mindsport.doudizhu.cli import app as ddz_app
    from mindsport.games.cli import app as games_app
    from mindsport.history.cli import evaluate_command, import_command
    from mindsport.junqi.cli import app as junqi_app
    from mindsport.service.cli import serve
    from mindsport.store.cli import register as register_store
    from mindsport.tournament.cli import app as tournament_app

    register_store(app)
    app.command("serve")(serve)
    app.command("evaluate")(evaluate_command)
    app.command("import")(import_command)

    app.add_typer(ddz_app, name="ddz", help="Dou Dizhu: deal, play and simulate games of bots.")
    app.add_typer(games_app, name="games", help="Any game: list the games, play bots, any program.")
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
