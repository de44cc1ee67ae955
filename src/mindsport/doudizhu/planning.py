"""Hand plans as typed values: the compiled planner (:mod:`mindsport.doudizhu.compiled.planner`)
seen from Python.

A *plan* splits a hand into groups that are each one legal move (chains of singles and pairs
searched exhaustively, then bombs, the rocket, planes and trios with their lowest kickers up to
a king, pairs and singles); its *cost* is about one play per group, less for high groups,
negative for bombs and the rocket. Lower is better; the strong bot plays by the best plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindsport.doudizhu.cards import N_RANKS, Counts
from mindsport.doudizhu.kinds import Kind

__all__ = ["Group", "Plan", "Planner"]

Group = tuple[Kind, int, Counts]  # kind, main rank, cards as counts

_KINDS = tuple(Kind)
_MAX_GROUPS = 24


@dataclass(frozen=True, slots=True)
class Plan:
    """A split of a hand: total cost and its groups."""

    cost: float
    groups: tuple[Group, ...]

    @property
    def plays(self) -> int:
        return len(self.groups)


def _counts(counts: Counts) -> np.ndarray:
    c = np.array(counts, dtype=np.int64)
    if c.shape != (N_RANKS,):
        raise ValueError(f"a hand is {N_RANKS} counts, got {counts!r}")
    return c


class Planner:
    """Best plans of hands (count vectors), from the compiled planner. Stateless."""

    def plan(self, counts: Counts) -> Plan:
        """The lowest-cost plan of a hand: its chains in search order, then the rest's split."""
        from mindsport.doudizhu.compiled import ensure_compiled
        from mindsport.doudizhu.compiled.planner import best, plan_groups

        ensure_compiled()
        c = _counts(counts)
        gk = np.zeros(_MAX_GROUPS, np.int64)
        gm = np.zeros(_MAX_GROUPS, np.int64)
        gs = np.zeros(_MAX_GROUPS, np.int64)
        gc = np.zeros((_MAX_GROUPS, N_RANKS), np.int64)
        n = plan_groups(c, gk, gm, gs, gc)
        groups = tuple(
            (_KINDS[int(gk[i])], int(gm[i]), tuple(gc[i].tolist())) for i in range(int(n))
        )
        return Plan(float(best(c.copy(), 0)), groups)

    def cost(self, counts: Counts) -> float:
        """Cost of the best plan."""
        from mindsport.doudizhu.compiled import ensure_compiled
        from mindsport.doudizhu.compiled.planner import best

        ensure_compiled()
        return float(best(_counts(counts), 0))
