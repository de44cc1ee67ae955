"""The scalar formulas the TrueSkill models share, written once in plain Python on floats.

The draw margin, drift over time away and the two tails of a predicted performance difference,
used by online TrueSkill (:mod:`mindsport.rating.trueskill.model`, with its pairwise and card-play
variants) and whole-history TrueSkill (:mod:`mindsport.rating.through_time.model`). Python code runs
them as they are (``win_probability``, ``decay`` ...); the compiled kernels compile these very
functions (:mod:`mindsport.rating.compiled`), so the replay of a long history and a single
``rate`` share one implementation of each. Each other model's own formulas live with the model
(:mod:`mindsport.rating.elo.formulas`, :mod:`mindsport.rating.glicko2.formulas`,
:mod:`mindsport.rating.tenhou.formulas`).

>>> round(margin_from_quantile(0.5, 4, 2.0), 6), drifted_sigma(3.0, 7.0, 0.0, 8.0)
(2.0, 3.0)
"""

from __future__ import annotations

import math

from mindsport.rating.gaussian import norm_cdf

__all__ = [
    "MARGIN_BOUND",
    "ahead_given",
    "ahead_probability",
    "clip_margin",
    "drifted_sigma",
    "margin_from_quantile",
    "win_loss",
]

#: the functions of this module that the kernels compile (see :mod:`mindsport._jit.compiling`)
__kernels__ = (
    "margin_from_quantile",
    "drifted_sigma",
    "win_loss",
    "ahead_given",
    "ahead_probability",
    "clip_margin",
)

#: the largest observed score margin, in performance noises (``beta``): see
#: :mod:`mindsport.rating.trueskill.margins`
MARGIN_BOUND = 100.0


def clip_margin(y: float, beta: float) -> float:
    """An observed performance difference ``y`` clipped to ``[-MARGIN_BOUND beta,
    MARGIN_BOUND beta]`` (:func:`mindsport.rating.trueskill.margins.bounded_margin`)."""
    bound = MARGIN_BOUND * beta
    return min(max(y, -bound), bound)


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
