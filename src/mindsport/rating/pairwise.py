"""The naive "every pair, repeated" TrueSkill update of seed 002, kept as a baseline to beat.

Seed 002 (TrueSkill applied to mahjong, ``UpdateMahjong``) rates a multi-player game without the
factor graph: it loops ``for iter in 0..9``, and inside over every *ordered* pair ``(i, j)``,
``i != j``, applies the two-player TrueSkill update (``Update1v1``) to the *current* ratings of i
and j (so updates are sequential: later pairs see earlier pairs' results) with score 1, 0.5 or 0
from the ranks, and adds the dynamics ``tau`` in every such update. Each game is therefore
counted ``2 * iterations`` times per pair (20 times with the seed's 10 iterations), and a player
of an n-player game receives ``2 (n - 1) iterations`` updates.

:class:`PairwiseTrueSkill` does exactly that, with these documented choices:

* the two-player update is TrueSkill's exact two-team update (mean and variance of the truncated
  performance difference, draw margin from ``draw_probability``), which equals
  :meth:`mindsport.rating.trueskill.TrueSkill.rate` on the pair. ``tau`` enters before each
  update, as in TrueSkill (the seed adds it after; for a chain of updates that only shifts where
  the first and last ``tau`` go).
* the seed's code has a sign slip: for the ordered pair ``(i, j)`` with i *behind* j it calls
  ``Update1v1(r_i, r_j, 0)``, which computes ``v`` for the loser's side but then *adds* it to
  ``mu_i`` (and subtracts it from ``mu_j``), moving both players the wrong way; the reverse pair
  ``(j, i)`` then moves them back. That is not reproduced: every pairwise update moves the
  winner up and the loser down.
* teams of several players are allowed: a pair of teams gets the two-team update.
* unranked teams (rank ``None``) lose to every ranked team; two unranked teams are not compared.

``iterations`` (default 10, the seed's) and ``both_orders`` (default True: ordered pairs, as in the
seed; False: each unordered pair once per iteration) are settings. With ``iterations=1,
both_orders=False`` and two players this *is* TrueSkill.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mindsport.errors import MindsportError
from mindsport.match import pair_outcome
from mindsport.rating.elo import (
    check_ranks,
    check_weights,
    join_teams,
    split_teams,
)
from mindsport.rating.gaussian import norm_cdf
from mindsport.rating.rating import Rating
from mindsport.rating.trueskill import draw_margin
from mindsport.rating.truncation import v_draw, v_win, w_draw, w_win

__all__ = ["PairwiseTrueSkill"]


@dataclass(frozen=True)
class PairwiseTrueSkill:
    """Seed 002's pairwise TrueSkill (see the module docstring)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 25.0 / 300.0
    draw_probability: float = 0.10
    iterations: int = 10
    both_orders: bool = True

    def __post_init__(self) -> None:
        for name in ("sigma", "beta"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0:
                raise MindsportError(f"PairwiseTrueSkill: {name} must be > 0, got {v!r}")
        if not self.tau >= 0:
            raise MindsportError(f"PairwiseTrueSkill: tau must be >= 0, got {self.tau!r}")
        if not 0 <= self.draw_probability < 1:
            raise MindsportError(
                f"PairwiseTrueSkill: draw_probability must be in [0, 1), got "
                f"{self.draw_probability!r}"
            )
        if (
            isinstance(self.iterations, bool)
            or not isinstance(self.iterations, int)
            or (self.iterations < 1)
        ):
            raise MindsportError(
                f"PairwiseTrueSkill: iterations must be an integer >= 1, got {self.iterations!r}"
            )

    def rating(self, mu: float | None = None, sigma: float | None = None) -> Rating:
        """A new player's rating (the prior, or the given values)."""
        return Rating(self.mu if mu is None else mu, self.sigma if sigma is None else sigma)

    @staticmethod
    def expose(rating: Rating) -> float:
        """Conservative leaderboard value ``mu - 3 sigma``."""
        return rating.mu - 3.0 * rating.sigma

    def _two(
        self,
        win: list[list[float]],
        lose: list[list[float]],
        w_win_: list[float],
        w_lose: list[float],
        drawn: bool,
    ) -> None:
        """TrueSkill's two-team update, in place on ``[mu, var]`` pairs: ``win`` finished ahead
        of (or tied with) ``lose``."""
        tau2, beta2 = self.tau**2, self.beta**2
        mean = 0.0
        c2 = 0.0
        size = 0
        for team, ws, sign in ((win, w_win_, 1.0), (lose, w_lose, -1.0)):
            for (mu, var), w in zip(team, ws, strict=True):
                mean += sign * w * mu
                c2 += w * w * (var + tau2 + beta2)
                size += w > 0
        c = math.sqrt(c2)
        e = draw_margin(self.draw_probability, size, self.beta) / c
        x = mean / c
        v, w_ = (v_draw(x, e), w_draw(x, e)) if drawn else (v_win(x, e), w_win(x, e))
        for team, ws, sign in ((win, w_win_, 1.0), (lose, w_lose, -1.0)):
            for r, w in zip(team, ws, strict=True):
                if w == 0:
                    continue
                pv = r[1] + tau2
                r[0] += sign * w * pv / c * v
                r[1] = pv * (1.0 - w * w * pv / c2 * w_)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game (same shape as ``teams``), pair by pair, repeated."""
        values, keys = split_teams(teams, Rating, "PairwiseTrueSkill")
        rk = check_ranks(ranks, len(values), "PairwiseTrueSkill")
        ws = check_weights(weights, values, keys, "PairwiseTrueSkill")
        n = len(values)
        if self.draw_probability == 0:
            ranked = [r for r in rk if r is not None]
            if len(set(ranked)) != len(ranked):
                raise MindsportError(
                    f"PairwiseTrueSkill: ranks {list(rk)!r} contain a tie, but draw_probability "
                    "is 0 so a tie is impossible under this model"
                )
        cur = [[[r.mu, r.sigma**2] for r in t] for t in values]
        pairs: list[tuple[int, int, float]] = []
        for i in range(n):
            for j in range(n):
                if i == j or (not self.both_orders and j < i):
                    continue
                s = pair_outcome(rk[i], rk[j])
                if s is not None:
                    pairs.append((i, j, s))
        for _ in range(self.iterations):
            for i, j, s in pairs:
                if s >= 0.5:
                    self._two(cur[i], cur[j], ws[i], ws[j], s == 0.5)
                else:
                    self._two(cur[j], cur[i], ws[j], ws[i], False)
        out = [
            [
                r if w == 0 else Rating(m, math.sqrt(var))
                for r, (m, var), w in zip(t, ct, wt, strict=True)
            ]
            for t, ct, wt in zip(values, cur, ws, strict=True)
        ]
        return join_teams(out, keys)

    def rate_1vs1(self, a: Rating, b: Rating, drawn: bool = False) -> tuple[Rating, Rating]:
        """``a`` beat ``b`` (or drew)."""
        (a2,), (b2,) = self.rate([(a,), (b,)], [0, 0] if drawn else [0, 1])
        return a2, b2

    def outcome_probabilities(self, team_a: Any, team_b: Any) -> tuple[float, float, float]:
        """``(P(a ahead), P(draw), P(b ahead))`` for the next game, as TrueSkill predicts it."""
        values, _ = split_teams([team_a, team_b], Rating, "PairwiseTrueSkill")
        tau2, beta2 = self.tau**2, self.beta**2
        d = sum(r.mu for r in values[0]) - sum(r.mu for r in values[1])
        c = math.sqrt(sum(r.sigma**2 + tau2 + beta2 for t in values for r in t))
        e = draw_margin(self.draw_probability, len(values[0]) + len(values[1]), self.beta)
        win, loss = norm_cdf((d - e) / c), norm_cdf((-d - e) / c)
        return win, max(0.0, 1.0 - win - loss), loss

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Probability that ``team_a`` finishes ahead of ``team_b`` (a draw is not a win)."""
        return self.outcome_probabilities(team_a, team_b)[0]
