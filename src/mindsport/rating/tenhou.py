"""Tenhou R (天鳳レート), the rating of the Tenhou online mahjong server.

After a game a player rated R changes by

    dR = adj * (bonus(place) + (table average R - R) / 40)

* ``bonus``: +30/+10/-10/-30 for places 1-4 of a 4-player table, +30/0/-30 at a 3-player table.
  Other table sizes (not part of Tenhou) use the same straight line from +30 to -30, which
  reproduces both official tables: ``bonus(p, n) = 30 - 60 (p - 1) / (n - 1)``.
  Tied places (Tenhou breaks ties by seat, so only other games have them) share the mean bonus
  of the places they cover.
* ``adj = 1 - 0.002 * games`` while fewer than 400 games have been played, then 0.2 (``games``
  counts games before this one).
* the table average includes the player himself; everyone starts at 1500.

Tenhou R defines no win probabilities. :meth:`TenhouRating.win_probability` uses a logistic curve
``1 / (1 + 10 ** (-(R_A - R_B) / prob_scale))`` whose slope at equal ratings matches the rule's own
equilibrium in a two-player game (expected change zero when ``P(win) = 1/2 + (R_A - R_B)/4800``),
i.e. ``prob_scale = 1200 ln 10 = 2763``; :func:`mindsport.history.fit` may tune it.

>>> TenhouRating().delta(2000, [2000, 2000, 2000, 2000], place=4, games=400)
-6.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mindsport.errors import MindsportError
from mindsport.rating.elo import (
    ShapeError,
    check_ranks,
    join_teams,
    logistic10,
    split_single_players,
    split_teams,
)

__all__ = ["TenhouR", "TenhouRating"]


@dataclass(frozen=True, slots=True)
class TenhouR:
    """A Tenhou rating and the number of games played before it."""

    rating: float = 1500.0
    games: int = 0

    def __float__(self) -> float:
        return float(self.rating)


@dataclass(frozen=True)
class TenhouRating:
    """Tenhou R settings (defaults are Tenhou's; see the module docstring)."""

    initial: float = 1500.0
    bonuses: tuple[tuple[float, ...], ...] = ((30.0, 10.0, -10.0, -30.0), (30.0, 0.0, -30.0))
    top_bonus: float = 30.0
    divisor: float = 40.0
    adjust_games: int = 400
    adjust_step: float = 0.002
    adjust_floor: float = 0.2
    prob_scale: float = 1200.0 * math.log(10.0)

    def __post_init__(self) -> None:
        if not self.divisor > 0:
            raise MindsportError(f"TenhouRating: divisor must be positive, got {self.divisor!r}")
        if not self.prob_scale > 0:
            raise MindsportError(
                f"TenhouRating: prob_scale must be positive, got {self.prob_scale!r}"
            )
        for b in self.bonuses:
            if len(b) < 2:
                raise MindsportError(f"TenhouRating: a bonus table needs >= 2 places, got {b!r}")

    def rating(self, rating: float | None = None, games: int = 0) -> TenhouR:
        """A new rating (default 1500, no games)."""
        if games < 0:
            raise MindsportError(f"TenhouRating: games must be >= 0, got {games!r}")
        return TenhouR(float(self.initial if rating is None else rating), int(games))

    def adjustment(self, games: int) -> float:
        """``adj``: 1 - 0.002 x games below 400 games, then 0.2."""
        if games < 0:
            raise MindsportError(f"TenhouRating: games must be >= 0, got {games!r}")
        if games < self.adjust_games:
            return max(self.adjust_floor, 1.0 - self.adjust_step * games)
        return self.adjust_floor

    def bonus(self, place: int, players: int) -> float:
        """Placement bonus of 1-based ``place`` at a table of ``players``."""
        if players < 2 or not 1 <= place <= players:
            raise MindsportError(f"TenhouRating: place {place!r} at a table of {players!r}")
        for b in self.bonuses:
            if len(b) == players:
                return float(b[place - 1])
        return self.top_bonus - 2.0 * self.top_bonus * (place - 1) / (players - 1)

    def delta(self, own: float, table: Sequence[float], place: int, games: int) -> float:
        """The change of a player rated ``own`` finishing ``place`` (1-based) at ``table``.

        ``table`` lists every player's rating, his own included; ``games`` is the number of
        games he played before this one.
        """
        if isinstance(table, str | bytes) or len(table) < 2:
            raise MindsportError(f"TenhouRating: table needs >= 2 ratings, got {table!r}")
        if not any(math.isclose(float(own), float(t), rel_tol=0, abs_tol=1e-9) for t in table):
            raise MindsportError(
                f"TenhouRating: table {list(table)!r} must include the player's own rating {own!r}"
            )
        if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= len(table):
            raise MindsportError(f"TenhouRating: place must be 1..{len(table)}, got {place!r}")
        avg = sum(float(t) for t in table) / len(table)
        return self._delta(float(own), avg, self.bonus(place, len(table)), games)

    def _delta(self, own: float, avg: float, bonus: float, games: int) -> float:
        return self.adjustment(games) * (bonus + (avg - own) / self.divisor)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game of single players (lower rank is better; ties share bonus).

        Teams of several players, unranked players and partial-play weights are refused.
        """
        values, keys = split_single_players(teams, TenhouR, "TenhouRating", weights)
        rk = check_ranks(ranks, len(values), "TenhouRating")
        if any(r is None for r in rk):
            raise ShapeError(f"TenhouRating needs every player ranked: ranks {list(rk)!r}")
        n = len(values)
        players = [t[0] for t in values]
        avg = sum(p.rating for p in players) / n
        out = []
        places = [float(r) for r in rk if r is not None]
        for i, p in enumerate(players):
            ahead = sum(1 for r in places if r < places[i])
            tied = sum(1 for r in places if r == places[i])
            bonus = sum(self.bonus(ahead + k, n) for k in range(1, tied + 1)) / tied
            d = self._delta(p.rating, avg, bonus, p.games)
            out.append([TenhouR(p.rating + d, p.games + 1)])
        return join_teams(out, keys)

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Logistic probability that A finishes ahead of B (see the module docstring)."""
        values, _ = split_teams([team_a, team_b], TenhouR, "TenhouRating")
        if len(values[0]) != 1 or len(values[1]) != 1:
            raise ShapeError("TenhouRating rates individual players only")
        d = values[0][0].rating - values[1][0].rating
        return logistic10(d / self.prob_scale)

    def expose(self, rating: TenhouR) -> float:
        """The leaderboard value: R itself."""
        return rating.rating
