"""The leaderboard as a rich table, labelled as the league's model shows a rating (one table for
``mindsport leaderboard`` and the demo)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mindsport.store.values import LeaderboardPage, SeatEdge

__all__ = ["board_table", "role_lines", "seat_line"]


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


def seat_line(edge: SeatEdge) -> str:
    """One side against the average side, e.g. ``East seat: +2.31 skill points against the
    average seat (95%: +1.78 to +2.84)``; ``... not identified yet`` while the games cannot
    tell (a side never compared with another)."""
    kind = "seat" if len(edge.roles) == 1 else "side"
    if edge.vs_average is None or edge.low is None or edge.high is None:
        return f"{edge.side} {kind}: not identified yet"
    return (
        f"{edge.side} {kind}: {edge.vs_average:+.2f} skill points against the average "
        f"{kind} (95%: {edge.low:+.2f} to {edge.high:+.2f})"
    )


def role_lines(page: LeaderboardPage) -> list[str]:
    """The league's seats against the average seat, one line each (none for a league without
    roles; see :func:`seat_line`)."""
    return [seat_line(e) for e in page.seats]
