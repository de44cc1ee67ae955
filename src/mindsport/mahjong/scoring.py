"""A mahjong game's score from its final points: placement points and uma, as the World Riichi
Championship (WRC) rules score a session.

Under the WRC rules every player starts with 30,000 points, there is no oka (the target is the
start), and the uma is +15 / +5 / -5 / -15 thousand for first to fourth; players tied on points
share the uma of the places they tie for (averaged). A session's score is

    score = (final points - 30,000) / 1,000 + uma

(riichi.wiki, "World Riichi Championship rules": starting points 30,000, oka 0, uma +15/+5/-5/-15
modified for ties, session score = ((points - 30,000) / 1,000) + uma). So two players tied for
second with 30,000 each score 0 + (5 - 5) / 2 = 0.

The final points of a game are whole hundreds (every payment is), and the four sum to 4 x 30,000
less the riichi deposits (1,000 each) still on the table when the game ends: riichienv's games
(Tenhou's rules) leave them there, and a table that hands them to first place reports the full
sum; both are accepted (:meth:`WrcScoring.problem`). This module is plain values: it does not
load riichienv.

>>> WRC.scores((42_300, 30_000, 30_000, 17_700))
(27.3, 0.0, 0.0, -27.3)
>>> WRC.problem((42_300, 30_000, 30_000, 17_650))
'final points 17650: points are whole hundreds'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MAX_POINTS", "RIICHI_DEPOSIT", "WRC", "WrcScoring"]

#: one riichi deposit (a 1,000-point stick)
RIICHI_DEPOSIT = 1_000
#: no game's final points go beyond this (every point of the table is 120,000)
MAX_POINTS = 1_000_000


@dataclass(frozen=True, slots=True)
class WrcScoring:
    """Placement points and uma: ``start`` points each, ``uma`` (thousands, first to fourth),
    no oka; at most ``max_deposits`` riichi deposits left on the table."""

    start: int = 30_000
    uma: tuple[int, ...] = (15, 5, -5, -15)
    max_deposits: int = 120

    @property
    def total(self) -> int:
        """What the four final points sum to with no deposit left on the table."""
        return self.start * len(self.uma)

    def problem(self, points: Sequence[float]) -> str | None:
        """What is wrong with a game's final ``points`` (one per seat), or None."""
        if len(points) != len(self.uma):
            return f"final points {list(points)}: a mahjong game has {len(self.uma)} players"
        for p in points:
            if not math.isfinite(p) or abs(p) > MAX_POINTS:
                return (
                    f"final points {p:g}: a game's points are a number from -{MAX_POINTS:,} "
                    f"to {MAX_POINTS:,}"
                )
            if p != int(p) or int(p) % 100:
                return f"final points {p:g}: points are whole hundreds"
        total = int(sum(int(p) for p in points))
        short = self.total - total
        if short < 0 or short % RIICHI_DEPOSIT or short // RIICHI_DEPOSIT > self.max_deposits:
            return (
                f"final points {[int(p) for p in points]} sum to {total}: they sum to "
                f"{self.total} (4 x {self.start}) less the riichi deposits of "
                f"{RIICHI_DEPOSIT} left on the table"
            )
        return None

    def umas(self, points: Sequence[float]) -> tuple[float, ...]:
        """Each seat's uma in thousands: by place, players tied on points sharing (averaging)
        the uma of the places they hold together."""
        order = sorted(range(len(points)), key=lambda s: -points[s])
        out = [0.0] * len(points)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and points[order[j + 1]] == points[order[i]]:
                j += 1
            share = sum(self.uma[i : j + 1]) / (j - i + 1)
            for k in range(i, j + 1):
                out[order[k]] = share
            i = j + 1
        return tuple(out)

    def scores(self, points: Sequence[float]) -> tuple[float, ...]:
        """Each seat's score: (final points - start) / 1,000 + uma (one division, exact to
        the float nearest)."""
        return tuple(
            (int(p) - self.start + round(1000 * u)) / 1000.0
            for p, u in zip(points, self.umas(points), strict=True)
        )


#: the WRC rules' scoring
WRC = WrcScoring()
