"""``mindsport games``: any registered game through the game contract alone.

``list`` names the games; ``play GAME --bots a,b[,c] --games N --seed S`` plays games between
bots (built-in names of that game, or ``cmd:COMMAND`` programs speaking the JSON-lines bot
protocol) with the shared referee and prints each game's returns, forfeits included.
"""

from __future__ import annotations

import typer

from mindsport.cli.boundary import new_app
from mindsport.cli.options import parse_bot_specs
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
