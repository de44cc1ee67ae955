"""The seat statistics of one match, compiled (numba): what :mod:`.seats` estimates from.

:func:`add_sides` adds one match's expansion of its pairwise likelihood to a league's statistics
(:class:`~mindsport.rating.trueskill.seats.SeatStatistics`), from what the role-aware replay
(:func:`.cardplay_kernel.replay_cardplay`) knows before the match: per team its players'
centred ratings, known offsets, the model's value of its side and its variance (:class:`SideTeams`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.compiled import difference_moments, margin_from_quantile, pair_outcome
from mindsport.rating.trueskill.seats import COUNT, LEVEL, SCORE, SIZE, SLOPE, WIDTH


class SideTeams(NamedTuple):
    """Per team of one match (the first ``n`` entries): ``rated`` its players' ratings minus
    the table's mean rating, summed; ``level`` its size times the table's mean rating;
    ``known`` its known offsets (luck, duplicate deal sides' means); ``lin`` the model's value
    of its side before the match (its roles' means); ``var`` its performance variance given
    the ratings (players' variances and noise, deal sides' variances); ``size`` its players
    (the draw margin's count); ``side`` its side's row (-1: none, not compared); ``score``
    scratch."""

    rated: np.ndarray
    level: np.ndarray
    known: np.ndarray
    lin: np.ndarray
    var: np.ndarray
    size: np.ndarray
    side: np.ndarray
    score: np.ndarray


@jit
def add_sides(rank: np.ndarray, teams: SideTeams, stats: np.ndarray, z: float, beta: float) -> None:
    """Add the match of ``rank`` (one rank per team, NaN: unranked) to ``stats``: for every
    two teams with sides (different ones) whose order the match decides, the pair's
    log-likelihood (a win ``d > e`` or a draw ``|d| <= e`` of ``d ~ N(f_a - f_b, c^2)``)
    expanded around the model's values (the sides at the roles' means, both slopes at 1);
    the match's score outer product into the columns of ``J`` (see :mod:`.seats`)."""
    n = rank.shape[0]
    side = teams.side
    score = teams.score
    slope_score = 0.0
    level_score = 0.0
    used = False
    mean = 0.0
    idx = np.empty(4, np.int64)
    val = np.empty(4)
    for t in range(n):
        score[t] = 0.0
        if teams.size[t] > 0:
            mean = teams.level[t] / teams.size[t]
    for a in range(n):
        if side[a] < 0:
            continue
        for b in range(a + 1, n):
            if side[b] < 0 or side[b] == side[a]:
                continue
            o = pair_outcome(rank[a], rank[b])
            if o is None:
                continue
            x = teams.rated[a] - teams.rated[b]  # the ratings' slope's regressor
            xl = teams.level[a] - teams.level[b]  # the level's
            lin = teams.lin[a] - teams.lin[b] + x + xl  # the model's value of x . theta
            d = lin + teams.known[a] - teams.known[b]
            c = math.sqrt(teams.var[a] + teams.var[b])
            e = margin_from_quantile(z, teams.size[a] + teams.size[b], beta)
            if o == 0.5:
                v, w = difference_moments(d, c, e, True)
            elif o == 1.0:
                v, w = difference_moments(d, c, e, False)
            else:
                v, w = difference_moments(-d, c, e, False)
                v = -v
            g = v / c  # d log-likelihood / d (f_a - f_b)
            info = w / (c * c)
            u = g + info * lin
            idx[0], idx[1], idx[2], idx[3] = side[a], side[b], SLOPE, LEVEL
            val[0], val[1], val[2], val[3] = 1.0, -1.0, x, xl
            for p in range(4):
                stats[idx[p], SCORE] += u * val[p]
                for q in range(4):
                    stats[idx[p], idx[q]] += info * val[p] * val[q]
            score[a] += g
            score[b] -= g
            slope_score += g * x
            level_score += g * xl
            used = True
    if not used:
        return
    stats[SLOPE, COUNT] += 1.0
    stats[SLOPE, SIZE] += mean
    for a in range(n):
        if side[a] < 0:
            continue
        i = side[a]
        stats[i, COUNT] += 1.0
        stats[i, SIZE] += teams.size[a]
        for b in range(n):
            if side[b] >= 0:
                stats[i, WIDTH + side[b]] += score[a] * score[b]
        stats[i, WIDTH + SLOPE] += score[a] * slope_score
        stats[SLOPE, WIDTH + i] += score[a] * slope_score
        stats[i, WIDTH + LEVEL] += score[a] * level_score
        stats[LEVEL, WIDTH + i] += score[a] * level_score
    stats[SLOPE, WIDTH + SLOPE] += slope_score * slope_score
    stats[LEVEL, WIDTH + LEVEL] += level_score * level_score
    stats[SLOPE, WIDTH + LEVEL] += slope_score * level_score
    stats[LEVEL, WIDTH + SLOPE] += slope_score * level_score


@jit
def side_teams(max_teams: int) -> SideTeams:
    """Scratch for matches of up to ``max_teams`` teams."""
    return SideTeams(
        np.empty(max_teams), np.empty(max_teams), np.empty(max_teams), np.empty(max_teams),
        np.empty(max_teams), np.empty(max_teams), np.empty(max_teams, np.int64),
        np.empty(max_teams),
    )  # fmt: skip
