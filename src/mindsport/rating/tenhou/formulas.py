"""Tenhou R's scalar formulas, written once in plain Python on floats.

:class:`~mindsport.rating.tenhou.model.TenhouRating` runs them as they are (``adjustment``,
``delta``); the compiled update compiles these very functions (:mod:`.tenhou_kernel`).

>>> tenhou_adjustment(100, 400, 0.002, 0.2), tenhou_change(1500.0, 1540.0, 10.0, 0.5, 40.0)
(0.8, 5.5)
"""

from __future__ import annotations

__all__ = ["tenhou_adjustment", "tenhou_change"]

#: the functions of this module that the kernels compile (see :mod:`mindsport._jit.compiling`)
__kernels__ = ("tenhou_adjustment", "tenhou_change")


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
