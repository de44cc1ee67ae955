"""``mindsport demo``: the main job of ``make run``, end to end on the embedded default (a SQLite
file), printed.

1. A league of players with hidden true skills (:func:`mindsport.demo.simulate_league`) is
   stored and rated, and the leaderboard read back from the store is compared with the truth.
2. Dou Dizhu bots of graded skill play landlord against two farmers
   (:func:`mindsport.demo.simulate_ddz_ladder`); the store rates them as one-against-two games,
   and the leaderboard should list them in the order of their levels.

Everything is reproducible from ``--seed``. ``mindsport serve --db FILE`` then shows the same
leaderboards in a browser. This module imports only typer; the simulation, the store and rich
load when the command runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from mindsport.match import Match
    from mindsport.store import LeaderboardPage

__all__ = ["demo", "run_demo", "store_league"]


def demo(
    db: str = typer.Option("out/mindsport.db", help="SQLite file for the ratings (recreated)."),
    players: int = typer.Option(24, min=4, help="Players in the simulated league."),
    games: int = typer.Option(600, min=1, help="Games of the simulated league."),
    ddz_games: int = typer.Option(600, min=1, help="Dou Dizhu games between graded bots."),
    seed: int = typer.Option(2024, help="Seed of every random process (reproducible)."),
) -> None:
    """The main job: simulate, rate and store a league and a ladder of Dou Dizhu bots."""
    run_demo(db=db, players=players, games=games, ddz_games=ddz_games, seed=seed)


def run_demo(
    db: str | os.PathLike[str] = "out/mindsport.db",
    players: int = 24,
    games: int = 600,
    ddz_games: int = 600,
    seed: int = 2024,
    console: Console | None = None,
) -> None:
    """Run both parts against the SQLite file ``db`` (created when missing) and print them."""
    import numpy as np
    from rich.console import Console
    from rich.progress import Progress
    from scipy.stats import spearmanr

    from mindsport.demo import recovery, simulate_ddz_ladder, simulate_league
    from mindsport.rating.trueskill.model import TrueSkill
    from mindsport.store import Store

    console = console or Console()
    rng = np.random.default_rng(seed)
    path = Path(db)
    if path.exists():  # a fresh demo each time: the store is append-only by design
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)

    console.rule("1. A league of players with known skills, rated with TrueSkill")
    sim = simulate_league(players, games, rng)
    page = store_league(path, sim.matches, league="league", top=10, console=console)
    env = TrueSkill()

    with Store(str(path.resolve())) as store:
        rated = {p: env.expose(r) for p, r in store.ratings("league").items()}
    tau, rho, pairs = recovery(sim.true_skill, rated)
    console.print(
        f"recovery of the hidden true order from {games} results: Kendall tau {tau:.3f}, "
        f"Spearman rho {rho:.3f}, pairs in the right order {100 * pairs:.1f}% "
        f"({page.total} players)"
    )

    console.rule("2. Dou Dizhu bots of graded skill: landlord against two farmers")
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("Dou Dizhu ladder", total=ddz_games)
        levels, matches = simulate_ddz_ladder(
            ddz_games, rng, progress=lambda: progress.advance(task)
        )
    store_league(path, matches, league="ddz", top=len(levels), console=console)
    with Store(str(path.resolve())) as store:
        ladder = {p: env.expose(r) for p, r in store.ratings("ddz").items()}
    rho_levels = float(spearmanr([levels[n] for n in ladder], list(ladder.values())).statistic)
    console.print(
        f"Spearman correlation between bot level and rating after {ddz_games} games: "
        f"{rho_levels:.3f}"
    )
    console.rule()
    console.print(
        f"The ratings live in {path}. Browse them: [bold]mindsport serve --db {path}[/] "
        "then open http://127.0.0.1:8000/"
    )


def store_league(
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

    >>> import tempfile, os
    >>> from mindsport.history import Match
    >>> games = [Match(f"g{i}", i, [["ann"], ["bob"]], [0, 1]) for i in range(3)]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     page = store_league(os.path.join(d, "demo.db"), games, console=None)
    >>> [e.player for e in page.entries]
    ['ann', 'bob']
    """
    from mindsport.store import Store
    from mindsport.store.display import board_table

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
