"""The scalar formulas of the rating models, written once in plain Python on floats.

Python code runs them as they are (``win_probability``, ``decay``, ``FideK``, ``delta`` ...);
the compiled kernels compile these very functions (:mod:`mindsport.rating.compiled`), so the
replay of a long history and a single ``rate`` share one implementation of each.

>>> round(logistic10(0.5), 6), fide_k(12, False, 1800.0, 40.0, 30, 20.0, 10.0, 2400.0)
(0.759747, 40.0)
"""

from __future__ import annotations

import math

from mindsport.rating.gaussian import norm_cdf

__all__ = [
    "SCALE",
    "ahead_probability",
    "drifted_sigma",
    "fide_k",
    "g_factor",
    "glicko2_expectation",
    "logistic",
    "logistic10",
    "margin_from_quantile",
    "tenhou_adjustment",
    "tenhou_change",
    "win_loss",
]

#: the functions of this module that the kernels compile (see :mod:`mindsport._jit.compiling`)
__kernels__ = (
    "margin_from_quantile",
    "drifted_sigma",
    "win_loss",
    "ahead_given",
    "ahead_probability",
    "logistic10",
    "fide_k",
    "logistic",
    "g_factor",
    "glicko2_expectation",
    "tenhou_adjustment",
    "tenhou_change",
)

#: Glicko-2 scale factor between the Glicko scale (1500 +- RD) and the internal (mu, phi).
SCALE = 173.7178

# ------------------------------------------------------------------------------ TrueSkill


def margin_from_quantile(z: float, n_players: int | float, beta: float) -> float:
    """Draw margin ``e = z sqrt(n) beta`` for ``n`` players, ``z`` the normal quantile of
    ``(draw_probability + 1) / 2``."""
    return z * math.sqrt(n_players) * beta


def drifted_sigma(sigma: float, elapsed: float, drift: float, sigma0: float) -> float:
    """Sigma after ``elapsed`` time units away: the variance grows by ``drift^2 * elapsed`` (a
    random walk), never beyond the new-player ``sigma0``; no time, no drift: unchanged."""
    if drift == 0.0 or not elapsed > 0.0 or sigma >= sigma0:
        return sigma
    grown = math.sqrt(sigma * sigma + drift * drift * elapsed)
    return grown if grown < sigma0 else sigma0


def win_loss(d: float, c: float, e: float) -> tuple[float, float]:
    """``(P(a ahead), P(b ahead))`` for a performance difference ``N(d, c^2)`` and margin ``e``
    (without branches: the kernels evaluate it for several pairs at once, on lanes)."""
    return norm_cdf((d - e) / c), norm_cdf((-d - e) / c)


def ahead_probability(d: float, c: float, e: float) -> float:
    """``P(a ahead | not a draw)`` for a performance difference ``N(d, c^2)`` and margin ``e``
    (one half when both tails underflow)."""
    win, loss = win_loss(d, c, e)
    return ahead_given(win, loss)


def ahead_given(win: float, loss: float) -> float:
    """:func:`ahead_probability` from the two probabilities of :func:`win_loss`."""
    total = win + loss
    return win / total if total > 0.0 else 0.5


# ------------------------------------------------------------------------------------ Elo


def logistic10(x: float) -> float:
    """``1 / (1 + 10 ** -x)`` without overflow for any finite ``x``."""
    z = x * math.log(10.0)
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


def fide_k(
    games: float,
    reached_2400: bool,
    rating: float,
    new_k: float,
    new_games: float,
    k: float,
    top_k: float,
    threshold: float,
) -> float:
    """The FIDE K of a player (see :class:`FideK`)."""
    if games < new_games:
        return new_k
    if reached_2400 or rating >= threshold:
        return top_k
    return k


# ------------------------------------------------------------------------------- Glicko-2


def logistic(x: float) -> float:
    """``1 / (1 + exp(-x))`` without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    ex = math.exp(x)
    return ex / (1.0 + ex)


def g_factor(phi: float) -> float:
    """Glickman's ``g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)``."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def glicko2_expectation(rating_a: float, rd_a: float, rating_b: float, rd_b: float) -> float:
    """Symmetric expected score of A against B (Glicko scale values), both deviations combined:
    ``1/(1+exp(-g(sqrt(phi_A^2+phi_B^2)) (mu_A-mu_B)))``."""
    g = g_factor(math.hypot(rd_a / SCALE, rd_b / SCALE))
    return logistic(g * ((rating_a - 1500.0) / SCALE - (rating_b - 1500.0) / SCALE))


# ------------------------------------------------------------------------------- Tenhou R


def tenhou_adjustment(games: float, adjust_games: float, step: float, floor: float) -> float:
    """``adj``: ``1 - step x games`` (at least ``floor``) below ``adjust_games`` games, then
    ``floor``."""
    if games < adjust_games:
        adj = 1.0 - step * games
        return floor if floor > adj else adj
    return floor


def tenhou_change(own: float, avg: float, bonus: float, adj: float, divisor: float) -> float:
    """``dR = adj (bonus + (table average - own) / divisor)``."""
    return adj * (bonus + (avg - own) / divisor)
