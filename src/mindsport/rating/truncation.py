"""Moments of a truncated Gaussian: the ``v`` and ``w`` functions of TrueSkill.

For a performance difference ``d ~ N(t, 1)`` (standardised) and a draw margin ``e``:

* a win means ``d > e``; its truncated mean shift is ``v_win(t, e)`` and its variance shrink
  factor ``w_win(t, e)`` (new variance = ``1 - w``);
* a draw means ``|d| <= e``; likewise ``v_draw`` and ``w_draw``.

These are the functions of the TrueSkill patent (figures 2 to 5). They are computed so
that extreme upsets (``t - e`` around -40 or beyond, where ``norm_cdf`` underflows) still give
finite, accurate values: ratios of densities to distribution functions go through the scaled
complementary error function, and the difference ``v + x`` that decides ``w`` in the far tail uses
the asymptotic expansion of Mills' ratio instead of subtracting two nearly equal numbers.

Like :mod:`mindsport.rating.gaussian`, these are plain Python functions on floats that the
compiled kernels compile as they are (one implementation for both).
"""

from __future__ import annotations

import math

from mindsport.rating.gaussian import (
    TAIL,
    log_norm_cdf,
    mills_given,
    mills_ratio,
    norm_cdf,
    norm_pdf,
)

__all__ = [
    "difference_moments",
    "margin_moments",
    "truncated",
    "v_draw",
    "v_win",
    "vw_draw",
    "vw_win",
    "w_draw",
    "w_win",
    "win_moments",
]

#: the functions of this module that the kernels compile (see :mod:`mindsport._jit.compiling`)
__kernels__ = (
    "v_plus_x",
    "clamp_w",
    "win_main",
    "win_moments",
    "vw_win",
    "vw_draw",
    "truncated",
    "difference_moments",
    "margin_moments",
)

# Beyond this standardised upset the asymptotic series is used for v + x (relative error < 1e-16).
_ASYMPTOTIC_FROM = 30.0
#: ``w`` is kept within ``[W_LOW, W_HIGH]`` (:func:`clamp_w`)
W_LOW = 1e-300
W_HIGH = 1.0 - 1e-16


def v_plus_x(x: float) -> float:
    """``v_win(x, 0) + x`` = ``mills_ratio(x) + x`` without cancellation."""
    if x > -_ASYMPTOTIC_FROM:
        return mills_ratio(x) + x
    u = -x
    u2 = 1.0 / (u * u)
    # Phi(-u) = phi(u)/u * S with S = 1 - 1/u^2 + 3/u^4 - 15/u^6 + 105/u^8 - 945/u^10
    s = 1.0 + u2 * (-1.0 + u2 * (3.0 + u2 * (-15.0 + u2 * (105.0 - 945.0 * u2))))
    one_minus_s = u2 * (1.0 + u2 * (-3.0 + u2 * (15.0 + u2 * (-105.0 + 945.0 * u2))))
    return u * one_minus_s / s


def clamp_w(w: float) -> float:
    """Rounding can push ``w`` to the edges of (0, 1) for enormous ``|x|``: keep it usable."""
    if w < W_LOW:
        return W_LOW
    if w > W_HIGH:
        return W_HIGH
    return w


def vw_win(t: float, e: float) -> tuple[float, float]:
    """``(v, w)`` of ``N(t, 1)`` truncated to ``(e, inf)``; ``w`` lies in (0, 1)."""
    x = t - e
    if x > TAIL:
        v, w = win_main(x)
        return v, clamp_w(w)
    return win_moments(x, 1.0)


def win_main(x: float) -> tuple[float, float]:
    """``(v, w)`` of a win at ``x = t - e`` for ``x > TAIL``, before :func:`clamp_w`.

    Without branches, so that the kernels evaluate it on lanes of games at once
    (:mod:`mindsport._jit.lanes`) and turn to :func:`truncated` only for the lanes outside its
    range (a draw, ``x <= TAIL`` or a ``w`` that needs clamping).
    """
    v = norm_pdf(x) / norm_cdf(x)
    return v, v * (v + x)


def win_moments(x: float, cdf: float) -> tuple[float, float]:
    """:func:`vw_win` at ``x = t - e`` when ``cdf = norm_cdf(x)`` is known already (the
    replay's predictions computed it)."""
    v = mills_given(x, cdf)
    w = v * (v + x) if x > -_ASYMPTOTIC_FROM else v * v_plus_x(x)
    return v, clamp_w(w)


def vw_draw(t: float, e: float) -> tuple[float, float]:
    """``(v, w)`` of ``N(t, 1)`` truncated to ``[-e, e]``; ``w`` lies in (0, 1).

    Computed for ``|t|`` (``v`` is odd in ``t``, ``w`` even) with both bounds' Mills ratios and
    the ratio of their distribution functions taken in logarithms.
    """
    sign = 1.0
    if t < 0:
        t = -t
        sign = -1.0
    a = e - t  # upper standardised bound
    b = -e - t  # lower standardised bound, b <= a
    r_a = mills_ratio(a)
    r_b = mills_ratio(b)
    lq = log_norm_cdf(b) - log_norm_cdf(a)
    q = math.exp(lq)  # Phi(b)/Phi(a) in [0, 1)
    one_minus_q = -math.expm1(lq)
    v = (r_b * q - r_a) / one_minus_q
    w = v * v + (a * r_a - b * r_b * q) / one_minus_q
    return sign * v, clamp_w(w)


def truncated(t: float, e: float, draw: bool) -> tuple[float, float]:
    """``(v, w)`` for a win (``d > e``) or, with ``draw``, a draw (``|d| <= e``)."""
    if draw:
        return vw_draw(t, e)
    return vw_win(t, e)


def difference_moments(d: float, c: float, e: float, draw: bool) -> tuple[float, float]:
    """``(v, w)`` for a performance difference ``N(d, c^2)`` that ended a win (``> e``) or a
    draw (``|.| <= e``): the truncation standardised by ``c``."""
    if draw:
        return vw_draw(d / c, e / c)
    x = (d - e) / c
    return win_moments(x, norm_cdf(x) if x > TAIL else 1.0)


def margin_moments(
    d: float, c: float, e: float, draw: bool, y: float, s2: float
) -> tuple[float, float]:
    """``(v, w)`` for a performance difference ``N(d, c^2)`` that ended a win or a draw (as
    :func:`difference_moments`) and whose size was observed too: ``y ~ N(difference, s2)``
    (the score margin on the performance scale, see :mod:`mindsport.rating.trueskill.cardplay`).

    The likelihood ``1[win] N(y; difference, s2)`` is a Gaussian times a step: the Gaussian
    observation is absorbed exactly (precisions add), then the result is truncated. ``v`` and
    ``w`` are stated relative to the prior ``N(d, c^2)``: the posterior difference has mean
    ``d + c v`` and variance ``c^2 (1 - w)``, so the callers move every skill as for a plain
    win or draw.
    """
    c2 = c * c
    k = c2 / (c2 + s2)
    m = d + k * (y - d)
    cm = math.sqrt(c2 * s2 / (c2 + s2))
    v1, w1 = difference_moments(m, cm, e, draw)
    mean = m + cm * v1
    var = cm * cm * (1.0 - w1)
    return (mean - d) / c, 1.0 - var / c2


def v_win(t: float, e: float) -> float:
    """Mean shift of ``N(t, 1)`` truncated to ``(e, inf)``."""
    return vw_win(t, e)[0]


def w_win(t: float, e: float) -> float:
    """Variance shrink factor of ``N(t, 1)`` truncated to ``(e, inf)``; lies in (0, 1)."""
    return vw_win(t, e)[1]


def v_draw(t: float, e: float) -> float:
    """Mean shift of ``N(t, 1)`` truncated to ``[-e, e]``."""
    return vw_draw(t, e)[0]


def w_draw(t: float, e: float) -> float:
    """Variance shrink factor of ``N(t, 1)`` truncated to ``[-e, e]``; lies in (0, 1)."""
    return vw_draw(t, e)[1]
