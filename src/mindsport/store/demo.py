"""End-to-end demonstration of the store on a SQLite file (used by ``make run``'s demo).

>>> import tempfile, os
>>> from mindsport.history import Match
>>> games = [Match(f"g{i}", i, [["ann"], ["bob"]], [0, 1]) for i in range(3)]
>>> with tempfile.TemporaryDirectory() as d:
...     page = run(os.path.join(d, "demo.db"), games, console=None)
>>> [e.player for e in page.entries]
['ann', 'bob']
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from rich.console import Console

from mindsport.match import Match
from mindsport.store.display import board_table
from mindsport.store.facade import Store
from mindsport.store.values import LeaderboardPage

__all__ = ["run"]


def run(
    db_path: str | os.PathLike[str],
    matches: Iterable[Match],
    *,
    league: str = "demo",
    model: str = "trueskill",
    params: Mapping[str, Any] | None = None,
    top: int = 10,
    console: Console | None = None,
) -> LeaderboardPage:
    """Create ``league`` in the SQLite file ``db_path`` (its directory and the league are created
    when missing), ingest ``matches`` twice (the second time every match is recognised and
    ignored), print the top of the leaderboard and return it. ``console=None`` prints nothing.
    """
    items = list(matches)
    path = os.path.abspath(os.fspath(db_path))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with Store(path) as store:
        store.ensure_league(league, model, params)
        first = store.add_matches(league, items)
        again = store.add_matches(league, items)
        page = store.leaderboard(league, limit=top)
        n = store.match_count(league)
    if console is not None:
        console.print(
            f"[bold]{league}[/]: {first.added} matches stored in {os.fspath(db_path)} "
            f"(re-posting them again added {again.added}, ignored {again.duplicates}); "
            f"{n} in the log"
        )
        table = board_table(page, f"{league}: top {len(page.entries)} of {page.total}")
        console.print(table)
    return page
