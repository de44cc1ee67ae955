"""Elo's scalar formulas, written once in plain Python on floats.

:class:`~mindsport.rating.elo.model.Elo` runs them as they are (``win_probability``,
:class:`~mindsport.rating.elo.model.FideK`); the compiled update compiles these very functions
(:mod:`.elo_kernel`), so ``rate`` and the replay of a long history share one implementation.

>>> round(logistic10(0.5), 6), fide_k(12, False, 1800.0, 40.0, 30, 20.0, 10.0, 2400.0)
(0.759747, 40.0)
"""

from __future__ import annotations

import math

__all__ = ["fide_k", "logistic10"]

#: the functions of this module that the kernels compile (see :mod:`mindsport._jit.compiling`)
__kernels__ = ("logistic10", "fide_k")


def logistic10(x: float) -> float:
    """``1 / (1 + 10 ** -x)`` without overflow for any finite ``x``: the expected score at a
    rating difference of ``x`` scales."""
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
