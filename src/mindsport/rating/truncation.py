"""Moments of a truncated Gaussian: the ``v`` and ``w`` functions of TrueSkill.

For a performance difference ``d ~ N(t, 1)`` (standardised) and a draw margin ``e``:

* a win means ``d > e``; its truncated mean shift is ``v_win(t, e)`` and its variance shrink
  factor ``w_win(t, e)`` (new variance = ``1 - w``);
* a draw means ``|d| <= e``; likewise ``v_draw`` and ``w_draw``.

These are the functions of the TrueSkill patent (seed 000, figures 2 to 5). They are computed so
that extreme upsets (``t - e`` around -40 or beyond, where ``norm_cdf`` underflows) still give
finite, accurate values: ratios of densities to distribution functions go through the scaled
complementary error function, and the difference ``v + x`` that decides ``w`` in the far tail uses
the asymptotic expansion of Mills' ratio instead of subtracting two nearly equal numbers.
"""

from __future__ import annotations

import math

from mindsport.rating.gaussian import log_norm_cdf, mills_ratio

__all__ = ["v_draw", "v_win", "w_draw", "w_win"]

# Beyond this standardised upset the asymptotic series is used for v + x (relative error < 1e-16).
_ASYMPTOTIC_FROM = 30.0


def _v_plus_x(x: float) -> float:
    """``v_win(x, 0) + x`` = ``mills_ratio(x) + x`` without cancellation."""
    if x > -_ASYMPTOTIC_FROM:
        return mills_ratio(x) + x
    u = -x
    u2 = 1.0 / (u * u)
    # Phi(-u) = phi(u)/u * S with S = 1 - 1/u^2 + 3/u^4 - 15/u^6 + 105/u^8 - 945/u^10
    s = 1.0 + u2 * (-1.0 + u2 * (3.0 + u2 * (-15.0 + u2 * (105.0 - 945.0 * u2))))
    one_minus_s = u2 * (1.0 + u2 * (-3.0 + u2 * (15.0 + u2 * (-105.0 + 945.0 * u2))))
    return u * one_minus_s / s


def v_win(t: float, e: float) -> float:
    """Mean shift of ``N(t, 1)`` truncated to ``(e, inf)``."""
    return mills_ratio(t - e)


def w_win(t: float, e: float) -> float:
    """Variance shrink factor of ``N(t, 1)`` truncated to ``(e, inf)``; lies in (0, 1)."""
    x = t - e
    v = mills_ratio(x)
    w = v * (v + x) if x > -_ASYMPTOTIC_FROM else v * _v_plus_x(x)
    # Rounding can push w to the edges of (0, 1) for enormous |x|; keep the factor usable.
    return min(max(w, 1e-300), 1.0 - 1e-16)


def _draw_terms(t: float, e: float) -> tuple[float, float]:
    """``(v, w)`` for a draw with ``t >= 0`` (the functions are odd/even in ``t``)."""
    a = e - t  # upper standardised bound
    b = -e - t  # lower standardised bound, b <= a
    r_a = mills_ratio(a)
    r_b = mills_ratio(b)
    q = math.exp(log_norm_cdf(b) - log_norm_cdf(a))  # Phi(b)/Phi(a) in [0, 1)
    one_minus_q = -math.expm1(log_norm_cdf(b) - log_norm_cdf(a))
    v = (r_b * q - r_a) / one_minus_q
    w = v * v + (a * r_a - b * r_b * q) / one_minus_q
    return v, w


def v_draw(t: float, e: float) -> float:
    """Mean shift of ``N(t, 1)`` truncated to ``[-e, e]``."""
    if t < 0:
        return -_draw_terms(-t, e)[0]
    return _draw_terms(t, e)[0]


def w_draw(t: float, e: float) -> float:
    """Variance shrink factor of ``N(t, 1)`` truncated to ``[-e, e]``; lies in (0, 1)."""
    w = _draw_terms(abs(t), e)[1]
    return min(max(w, 1e-300), 1.0 - 1e-16)
