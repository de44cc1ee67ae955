"""``mindsport junqi``: play Luzhanqi games between bots and print them.

``play --seed N --bots belief,greedy`` prints every move from the referee's view (kinds of both
pieces in a collision and the announced outcome), the final result, and with ``--board`` the
starting and final boards rendered with rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from mindsport.cli.boundary import new_app
from mindsport.cli.options import parse_bot_specs
from mindsport.errors import MindsportError

if TYPE_CHECKING:
    from rich.table import Table

    from mindsport.junqi.referee import GameRecord
    from mindsport.junqi.state import State

__all__ = ["app", "render_board"]

app = new_app("Luzhanqi (陆战棋): two-player games between bots, with a referee.", name="junqi")

_COLOURS = ("red", "blue")


@app.callback()
def _group() -> None:
    """Luzhanqi (陆战棋): two-player games between bots, with a referee."""


def render_board(state: State, title: str = "") -> Table:
    """A rich table of the board as the referee sees it (player 0 red, player 1 blue)."""
    from rich.table import Table

    from mindsport.junqi.board import CAMPS, COLS, HEADQUARTERS, ROWS

    table = Table(title=title or None, show_header=True, header_style="bold", box=None)
    table.add_column("")
    for c in range(COLS):
        table.add_column("abcde"[c], justify="center")
    for row in range(ROWS):
        cells = []
        for col in range(COLS):
            post = row * COLS + col
            pid = state.piece_at(post)
            if pid < 0:
                cells.append("()" if post in CAMPS else ("[]" if post in HEADQUARTERS else "·"))
            else:
                kind = state.kind_of(pid)
                colour = _COLOURS[state.owner_of(pid)]
                cells.append(f"[{colour}]{kind.chinese}[/{colour}]")
        table.add_row(str(ROWS - row), *cells)
        if row == 5:
            table.add_row("", *["~~" for _ in range(COLS)])
    return table


def _parse_bots(text: str) -> tuple[str, str]:
    specs = parse_bot_specs(text, "--bots")
    if len(specs) != 2:
        raise MindsportError(f"--bots takes two names separated by a comma, got {text!r}")
    return specs[0], specs[1]


def _describe(record: GameRecord, ply: int, public: bool) -> str:
    from mindsport.junqi.board import post_name

    event = record.events[ply]
    state = record.final
    mover = state.kind_of(event.piece)
    who = f"P{event.player}"
    if public:
        text = f"{event.ply:4d}. {who} {post_name(event.source)}-{post_name(event.target)}"
    else:
        text = (
            f"{event.ply:4d}. {who} {mover.chinese}({mover.name.lower()}) "
            f"{post_name(event.source)}-{post_name(event.target)}"
        )
    if event.outcome is not None and event.defender is not None:
        if public:
            text += f"  collision: {event.outcome.value}"
        else:
            d = state.kind_of(event.defender)
            text += f"  x {d.chinese}({d.name.lower()}): {event.outcome.value}"
    for side, post in event.revealed_flags:
        text += f"  [P{side}'s commander died: flag shown at {post_name(post)}]"
    return text


@app.command()
def play(
    seed: int = typer.Option(0, help="Seed of setups and bots (reproducible)."),
    bots: str = typer.Option(
        "belief,greedy", help="Two bots, player 0 first: random, greedy, belief."
    ),
    board: bool = typer.Option(False, "--board/--no-board", help="Render start and final boards."),
    public: bool = typer.Option(False, help="Hide identities: print only what the players hear."),
    no_capture_limit: int = typer.Option(31, min=1, help="Plies without capture before a draw."),
    max_plies: int = typer.Option(2000, min=1, help="Hard cap on the game length (draw)."),
) -> None:
    """Play one game between two bots and print it from the referee's view."""
    import numpy as np
    from rich.console import Console

    from mindsport.games.registry import make_bot
    from mindsport.junqi.game import LuzhanqiGame
    from mindsport.junqi.referee import play_game
    from mindsport.junqi.rules import Rules
    from mindsport.junqi.state import State

    console = Console(highlight=False)
    names = _parse_bots(bots)
    rng = np.random.default_rng(seed)
    game = LuzhanqiGame()
    players = [make_bot(game, names[0]), make_bot(game, names[1])]
    rules = Rules(no_capture_limit=no_capture_limit, max_plies=max_plies)
    record = play_game(players, rng, rules)
    console.print(
        f"Luzhanqi: P0 {names[0]} (south, red) vs P1 {names[1]} (north, blue), seed {seed}"
    )
    if board and record.setups is not None:
        console.print(render_board(State(record.setups, rules), "start"))
    for ply in range(record.plies):
        console.print(_describe(record, ply, public))
    if board:
        console.print(render_board(record.final, "final"))
    result = "draw" if record.winner is None else f"P{record.winner} ({names[record.winner]}) wins"
    console.print(f"result: {result}: {record.reason} after {record.plies} plies")
    console.print(
        f"time per move: P0 {record.seconds_per_move(0) * 1e3:.2f} ms, "
        f"P1 {record.seconds_per_move(1) * 1e3:.2f} ms"
    )
