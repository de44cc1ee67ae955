"""The ``mindsport`` command: one entry point, a sub-command group per area.

Errors are handled in one place, the error boundary of :mod:`mindsport.cli.boundary`: a mistake
in the input is one line on stderr and exit status 2; an internal failure prints its traceback
and exits with status 70. Heavy modules (NumPy, numba, SciPy, SQLAlchemy, FastAPI, matplotlib,
the game engines) are imported inside the commands, so ``mindsport --help`` starts at once.
"""

from __future__ import annotations

import typer

from mindsport.cli.boundary import new_app

app = new_app(
    "Ratings, fair tournaments, simulation and hidden-information inference for mind sports.",
    name="mindsport",
)


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


def _register() -> None:
    """Attach the sub-command groups of each area (their modules import only typer; what a
    command computes with is imported when it runs)."""
    from mindsport.cli.demo import demo
    from mindsport.cli.doudizhu import app as ddz_app
    from mindsport.cli.event import app as event_app
    from mindsport.cli.games import app as games_app
    from mindsport.cli.history import evaluate_command, import_command
    from mindsport.cli.junqi import app as junqi_app
    from mindsport.cli.ratings import register as register_store
    from mindsport.cli.serve import serve
    from mindsport.cli.tournament import app as tournament_app
    from mindsport.cli.tournament_generate import generate

    app.command()(demo)
    register_store(app)
    app.command("serve")(serve)
    app.command("evaluate")(evaluate_command)
    app.command("import")(import_command)

    app.add_typer(ddz_app, name="ddz", help="Dou Dizhu: deal, play and simulate games of bots.")
    app.add_typer(games_app, name="games", help="Any game: list the games, play bots, any program.")
    app.add_typer(junqi_app, name="junqi", help="Luzhanqi: play games between bots.")
    app.add_typer(event_app, name="event", help="Run an event: registration to standings.")
    tournament_app.command()(generate)  # after the group's own commands, as listed in its help
    app.add_typer(
        tournament_app,
        name="tournament",
        help="Fair tournaments: discrimination (DIH), equal strength (GDI), formats, Swiss.",
    )


_register()


def main() -> None:
    """Console-script entry point (the error boundary exits with the status)."""
    app()


if __name__ == "__main__":
    main()
