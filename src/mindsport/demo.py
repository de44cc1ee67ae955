"""The main job of ``make run``: mindsport end to end on the embedded default (a SQLite file).

1. **A league with known skills.** Players get hidden true skills; games (1v1, 2v2 and four-player
   free-for-all) are decided by noisy performances under the TrueSkill model. The results go into
   the rating store (an append-only match log in SQLite, ratings derived from it), and the
   leaderboard read back from the store is compared with the truth (Kendall's tau, Spearman's
   rho, share of correctly ordered pairs).
2. **Dou Dizhu bots of graded skill.** Bots from ``level:0`` (random play) to ``level:100`` (the
   strong planner) play landlord against two farmers on random deals; the store rates them as
   one-against-two games, and the leaderboard should list them in the order of their levels.

Everything is reproducible from ``seed``. ``mindsport serve --db FILE`` then shows the same
leaderboards in a browser.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from scipy.stats import kendalltau, spearmanr

from mindsport.match import Match
from mindsport.rating.trueskill.model import TrueSkill

__all__ = ["LeagueSimulation", "run_demo", "simulate_ddz_ladder", "simulate_league"]


@dataclass(frozen=True)
class LeagueSimulation:
    """Simulated games and the hidden truth behind them."""

    true_skill: dict[str, float]
    matches: list[Match]


def simulate_league(
    players: int, games: int, rng: np.random.Generator, env: TrueSkill | None = None
) -> LeagueSimulation:
    """``games`` games among ``players`` with performances drawn from the TrueSkill model."""
    env = env or TrueSkill()
    names = [f"p{i:03d}" for i in range(players)]
    truth = {
        n: float(s) for n, s in zip(names, rng.normal(env.mu, env.sigma, players), strict=True)
    }
    shapes = [(1, 1), (2, 2), (1, 1, 1, 1)] if players >= 4 else [(1, 1)]
    matches = []
    for g in range(games):
        shape = shapes[int(rng.integers(len(shapes)))]
        chosen = [str(p) for p in rng.choice(names, size=sum(shape), replace=False)]
        teams: list[list[str]] = []
        for size in shape:
            teams.append(chosen[:size])
            chosen = chosen[size:]
        perf = [sum(rng.normal(truth[p], env.beta) for p in team) for team in teams]
        matches.append(Match(f"league-{g:05d}", g, teams, scores=perf))
    return LeagueSimulation(truth, matches)


def recovery(truth: dict[str, float], rated: dict[str, float]) -> tuple[float, float, float]:
    """Kendall's tau, Spearman's rho and the share of pairs in the true order."""
    names = sorted(truth)
    a = [truth[n] for n in names]
    b = [rated[n] for n in names]
    good = total = 0
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            total += 1
            good += (a[i] - a[j]) * (b[i] - b[j]) > 0
    return (
        float(kendalltau(a, b).statistic),
        float(spearmanr(a, b).statistic),
        good / total if total else 1.0,
    )


def simulate_ddz_ladder(
    games: int,
    rng: np.random.Generator,
    levels: tuple[int, ...] = (0, 20, 40, 60, 80, 100),
    progress: Progress | None = None,
) -> tuple[dict[str, int], list[Match]]:
    """Dou Dizhu games between graded bots: landlord against two farmers on random deals.

    Returns ``{bot name: level}`` and one :class:`Match` per game (team 0 the landlord, team 1
    the two farmers; ranks from the landlord's score under the ``LINEAR`` rule).
    """
    from mindsport.doudizhu import LINEAR, deal, play
    from mindsport.doudizhu.bots import make_bot

    names = {f"level-{lv:03d}": lv for lv in levels}
    bots = {n: make_bot(f"level:{lv}") for n, lv in names.items()}
    order = list(names)
    task = progress.add_task("Dou Dizhu ladder", total=games) if progress else None
    matches = []
    for g in range(games):
        seats = [order[int(i)] for i in rng.choice(len(order), size=3, replace=False)]
        record = play(deal(rng), [bots[s] for s in seats], LINEAR, rng)
        score = record.landlord_score
        matches.append(Match(f"ddz-{g:05d}", g, [[seats[0]], seats[1:]], scores=[score, -score]))
        if progress is not None and task is not None:
            progress.advance(task)
    return names, matches


def run_demo(
    db: str | os.PathLike[str] = "out/mindsport.db",
    players: int = 24,
    games: int = 600,
    ddz_games: int = 600,
    seed: int = 2024,
    console: Console | None = None,
) -> None:
    """Run both parts against the SQLite file ``db`` (created when missing) and print them."""
    from mindsport.store.demo import run as store_run

    console = console or Console()
    rng = np.random.default_rng(seed)
    path = Path(db)
    if path.exists():  # a fresh demo each time: the store is append-only by design
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)

    console.rule("1. A league of players with known skills, rated with TrueSkill")
    sim = simulate_league(players, games, rng)
    page = store_run(path, sim.matches, league="league", top=10, console=console)
    env = TrueSkill()
    from mindsport.store.store import Store

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
        levels, matches = simulate_ddz_ladder(ddz_games, rng, progress=progress)
    store_run(path, matches, league="ddz", top=len(levels), console=console)
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
