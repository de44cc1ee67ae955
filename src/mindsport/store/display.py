"""The leaderboard as a rich table, labelled as the league's model shows a rating (one table for
``mindsport leaderboard`` and the demo)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mindsport.store.values import LeaderboardPage

__all__ = ["board_table", "role_lines"]


def board_table(page: LeaderboardPage, title: str | None = None) -> Table:
    """The page's rows under the model's headings (:class:`~mindsport.rating.registry.Display`):
    the value the board is sorted by, the rating when that differs, the deviation only for a
    model that has one; on a ladder (the Tenhou dan ladder) the level's name. A model this
    installation does not know gets the raw columns."""
    d = page.display
    if d is None:
        cols = ["#", "player", "exposed", "mu", "sigma", "games"]
    else:
        cols = ["#", "player", d.conservative]
        if d.conservative != d.value_label:
            cols.append(d.value_label)
        if d.deviation_label is not None:
            cols.append(d.deviation_label)
        cols.append("games")
    if title is None:
        title = f"{page.league}: {page.total} players"
        if d is not None:
            title += f", by {d.conservative}"
    table = Table(title=title)
    for col in cols:
        table.add_column(col, justify="left" if col == "player" else "right")
    for e in page.entries:
        shown = f"{e.exposed:.2f}" if d is None else d.shown(e.exposed)
        row: list[str | Text] = [str(e.rank), Text(e.player), shown]
        if d is None or d.conservative != d.value_label:
            row.append(f"{e.mu:.2f}")
        if d is None or d.deviation_label is not None:
            row.append(f"{e.sigma:.2f}")
        row.append(str(e.games))
        table.add_row(*row)
    return table


def role_lines(page: LeaderboardPage) -> list[str]:
    """The league's learned role advantages, one line each (none for a league without roles),
    e.g. ``landlord seat: +6.10 skill points (± 0.41)``."""
    return [
        f"{r.role} seat: {r.advantage:+.2f} skill points (\u00b1 {r.sigma:.2f})" for r in page.roles
    ]
