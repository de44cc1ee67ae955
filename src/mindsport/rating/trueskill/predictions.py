"""TrueSkill's predictions for a game of many teams: match quality and place probabilities.

:meth:`TrueSkill.quality <mindsport.rating.trueskill.model.TrueSkill.quality>` and
:meth:`TrueSkill.rank_probabilities <mindsport.rating.trueskill.model.TrueSkill.rank_probabilities>`
compute them here from a validated game (:class:`~mindsport.rating.trueskill.game.Game`) and the
model's performance noise ``beta`` and dynamics ``tau``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from mindsport.rating.rating import Rating
from mindsport.rating.trueskill.game import Game

__all__ = ["place_probabilities", "quality"]


def quality(game: Game, beta: float, virtual: Sequence[Sequence[Rating]] | None = None) -> float:
    """The draw probability of ``game`` relative to that of equal, certain teams (see
    :meth:`~mindsport.rating.trueskill.model.TrueSkill.quality`). ``virtual``: per team, virtual
    players (role advantages) whose skill and uncertainty join the team's performance without
    performance noise: they enter the differences, not the ``beta`` term."""
    extra = [()] * len(game.ratings) if virtual is None else [tuple(v) for v in virtual]
    members = [(*rs, *vs) for rs, vs in zip(game.ratings, extra, strict=True)]
    mus = np.array([r.mu for rs in members for r in rs])
    var = np.array([r.sigma**2 for rs in members for r in rs])
    ws = [
        w
        for row, vs in zip(game.weight_rows(), extra, strict=True)
        for w in (*row, *([1.0] * len(vs)))
    ]
    noisy = np.array(
        [
            x
            for rs, vs in zip(game.ratings, extra, strict=True)
            for x in (*([1.0] * len(rs)), *([0.0] * len(vs)))
        ]
    )
    n_teams = len(game.ratings)
    a = np.zeros((len(mus), n_teams - 1))
    start = 0
    bounds = []
    for rs in members:
        bounds.append((start, start + len(rs)))
        start += len(rs)
    for k in range(n_teams - 1):
        s0, e0 = bounds[k]
        s1, e1 = bounds[k + 1]
        a[s0:e0, k] = ws[s0:e0]
        a[s1:e1, k] = [-x for x in ws[s1:e1]]
    a_noisy = noisy[:, None] * a
    ata = beta**2 * (a_noisy.T @ a_noisy)
    middle = ata + a.T @ (var[:, None] * a)
    e_arg = -0.5 * float(mus @ a @ np.linalg.solve(middle, a.T @ mus))
    s_arg = float(np.linalg.det(ata) / np.linalg.det(middle))
    return math.exp(e_arg) * math.sqrt(s_arg)


def place_probabilities(
    game: Game,
    tau: float,
    beta: float,
    points: int,
    virtual: Sequence[Sequence[Rating]] | None = None,
) -> NDArray[np.float64]:
    """``P[i, k]``: probability that team ``i`` of ``game`` finishes in place ``k``, by
    quadrature on ``points`` performances (see
    :meth:`~mindsport.rating.trueskill.model.TrueSkill.rank_probabilities`); ``virtual`` as in
    :func:`quality`."""
    extra = [()] * len(game.ratings) if virtual is None else [tuple(v) for v in virtual]
    mus_vars = []
    for rs, ws, vs in zip(game.ratings, game.weight_rows(), extra, strict=True):
        mu = sum(w * r.mu for r, w in zip(rs, ws, strict=True)) + sum(v.mu for v in vs)
        var = sum(w * w * (r.sigma**2 + tau**2 + beta**2) for r, w in zip(rs, ws, strict=True))
        var += sum(v.sigma**2 for v in vs)
        mus_vars.append((mu, var))
    from scipy.special import ndtr

    mu_arr = np.array([m for m, _ in mus_vars])
    sd_arr = np.sqrt(np.array([v for _, v in mus_vars]))
    lo = float(np.min(mu_arr - 9 * sd_arr))
    hi = float(np.max(mu_arr + 9 * sd_arr))
    x = np.linspace(lo, hi, points)
    dx = x[1] - x[0]
    above = 1.0 - ndtr((x[None, :] - mu_arr[:, None]) / sd_arr[:, None])  # P(team j > x)
    n = len(mus_vars)
    out = np.zeros((n, n))
    for i in range(n):
        dens = np.exp(-0.5 * ((x - mu_arr[i]) / sd_arr[i]) ** 2) / (
            sd_arr[i] * math.sqrt(2 * math.pi)
        )
        poly = np.zeros((n, len(x)))  # poly[k] = P(exactly k of the others above x)
        poly[0] = 1.0
        for j in range(n):
            if j == i:
                continue
            p = above[j]
            shifted = np.vstack([np.zeros((1, len(x))), poly[:-1]])
            poly = poly * (1.0 - p) + shifted * p
        # trapezoid rule on a grid wide enough that the ends carry no mass
        integrand = poly * dens[None, :]
        out[i] = (integrand.sum(axis=1) - 0.5 * (integrand[:, 0] + integrand[:, -1])) * dx
    return np.asarray(out / out.sum(axis=1, keepdims=True), dtype=np.float64)
