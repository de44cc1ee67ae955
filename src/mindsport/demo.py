"""The computation of ``mindsport demo`` (the main job of ``make run``): simulated games whose
truth is known, and how well the ratings recover it. The command that stores, rates and prints
them is :mod:`mindsport.cli.demo`.

1. **A league with known skills.** Players get hidden true skills; games (1v1, 2v2 and four-player
   free-for-all) are decided by noisy performances under the TrueSkill model. The results go into
   the rating store (an append-only match log in SQLite, ratings derived from it), and the
   leaderboard read back from the store is compared with the truth (Kendall's tau, Spearman's
   rho, share of correctly ordered pairs).
2. **Dou Dizhu bots of graded skill.** Bots from ``level:0`` (random play) to ``level:100`` (the
   strong planner) play landlord against two farmers on random deals; the store rates them as
   one-against-two games, and the leaderboard should list them in the order of their levels.

Everything is reproducible from the random generator passed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau, spearmanr

from mindsport.match import Match
from mindsport.rating.trueskill.model import TrueSkill

__all__ = ["LeagueSimulation", "recovery", "simulate_ddz_ladder", "simulate_league"]


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
    progress: Callable[[], None] | None = None,
) -> tuple[dict[str, int], list[Match]]:
    """Dou Dizhu games between graded bots: landlord against two farmers on random deals
    (``progress`` is called after each game).

    Returns ``{bot name: level}`` and one :class:`Match` per game (team 0 the landlord, team 1
    the two farmers; ranks from the landlord's score under the ``LINEAR`` rule).
    """
    from mindsport.doudizhu import LINEAR, deal, play
    from mindsport.doudizhu.bots import make_bot

    names = {f"level-{lv:03d}": lv for lv in levels}
    bots = {n: make_bot(f"level:{lv}") for n, lv in names.items()}
    order = list(names)
    matches = []
    for g in range(games):
        seats = [order[int(i)] for i in rng.choice(len(order), size=3, replace=False)]
        record = play(deal(rng), [bots[s] for s in seats], LINEAR, rng)
        score = record.landlord_score
        matches.append(Match(f"ddz-{g:05d}", g, [[seats[0]], seats[1:]], scores=[score, -score]))
        if progress is not None:
            progress()
    return names, matches
