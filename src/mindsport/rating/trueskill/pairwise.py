"""The naive "every pair, repeated" TrueSkill update (mahjong article), kept as a baseline to beat.

The mahjong article (TrueSkill explained, ``UpdateMahjong``) rates a multi-player game without the
factor graph: it loops ``for iter in 0..9``, and inside over every *ordered* pair ``(i, j)``,
``i != j``, applies the two-player TrueSkill update (``Update1v1``) to the *current* ratings of i
and j (so updates are sequential: later pairs see earlier pairs' results) with score 1, 0.5 or 0
from the ranks, and adds the dynamics ``tau`` in every such update. Each game is therefore
counted ``2 * iterations`` times per pair (20 times with the seed's 10 iterations), and a player
of an n-player game receives ``2 (n - 1) iterations`` updates.

:class:`PairwiseTrueSkill` does exactly that, with these documented choices:

* the two-player update is TrueSkill's exact two-team update (mean and variance of the truncated
  performance difference, draw margin from ``draw_probability``), which equals
  :meth:`mindsport.rating.trueskill.model.TrueSkill.rate` on the pair. ``tau`` enters before each
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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.rating.formulas import margin_from_quantile, win_loss
from mindsport.rating.gaussian import norm_ppf
from mindsport.rating.params import (
    MAX_LOCATION,
    MAX_SCALE,
    MIN_SCALE,
    Kind,
    Param,
    check_settings,
)
from mindsport.rating.rating import Rating, trusted_rating
from mindsport.rating.replay.blocks import MatchBlock
from mindsport.rating.replay.replayers import (
    ArrayReplayer,
    block_kernels,
    compiled_unless_changed,
    refusal,
)
from mindsport.rating.teams import check_ranks, check_weights, join_teams, split_teams
from mindsport.rating.trueskill.model import MAX_DRAW_PROBABILITY

__all__ = ["SETTINGS", "PairwiseTrueSkill"]

#: the settings as the compiled update and replay read them: one record, fields by name
SETTINGS = np.dtype(
    [
        ("z", np.float64),  # the normal quantile of the draw margin
        ("beta", np.float64),
        ("tau", np.float64),
        ("iterations", np.int64),
        ("both_orders", np.bool_),
    ],
    align=True,
)


@functools.cache
def _kernels() -> Any:
    from mindsport.rating.trueskill import pairwise_kernel

    return pairwise_kernel


#: the settings of :class:`PairwiseTrueSkill` (checked when built; read by the model registry),
#: bounded as TrueSkill's (:data:`mindsport.rating.trueskill.model.PARAMS` says why)
PARAMS = (
    Param("mu", Kind.REAL, 25.0, "prior mean of a new player's skill", -MAX_LOCATION, MAX_LOCATION),
    Param(
        "sigma",
        Kind.REAL,
        25.0 / 3.0,
        "prior deviation of a new player's skill",
        MIN_SCALE,
        MAX_SCALE,
    ),
    Param("beta", Kind.REAL, 25.0 / 6.0, "performance noise", MIN_SCALE, MAX_SCALE),
    Param(
        "tau",
        Kind.REAL,
        25.0 / 300.0,
        "dynamics added before every pairwise update",
        0.0,
        MAX_SCALE,
    ),
    Param(
        "draw_probability",
        Kind.REAL,
        0.10,
        "how often two equal players draw",
        0.0,
        MAX_DRAW_PROBABILITY,
    ),
    # every pass goes over every pair of the game: a thousand passes is bounded work
    Param("iterations", Kind.INTEGER, 10, "passes over the pairs", 1.0, 1000.0),
    Param("both_orders", Kind.BOOLEAN, True, "every ordered pair (True) or each pair once"),
)


@dataclass(frozen=True)
class PairwiseTrueSkill:
    """The mahjong article's pairwise TrueSkill (see the module docstring)."""

    PARAMS: ClassVar[tuple[Param, ...]] = PARAMS

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 25.0 / 300.0
    draw_probability: float = 0.10
    iterations: int = 10
    both_orders: bool = True

    def __post_init__(self) -> None:
        check_settings(self, PARAMS, "PairwiseTrueSkill", MindsportError)

    @functools.cached_property
    def _quantile(self) -> float:
        p = self.draw_probability
        return 0.0 if p == 0 else norm_ppf((p + 1.0) / 2.0)

    @functools.cached_property
    def _settings(self) -> NDArray[np.void]:
        """The settings as the compiled update takes them (:data:`SETTINGS`, one record)."""
        return np.array(
            [(self._quantile, self.beta, self.tau, self.iterations, self.both_orders)],
            dtype=SETTINGS,
        )

    def rating(self, mu: float | None = None, sigma: float | None = None) -> Rating:
        """A new player's rating (the prior, or the given values)."""
        return Rating(self.mu if mu is None else mu, self.sigma if sigma is None else sigma)

    @staticmethod
    def expose(rating: Rating) -> float:
        """Conservative leaderboard value ``mu - 3 sigma``."""
        return rating.mu - 3.0 * rating.sigma

    def replayer(self) -> Any:
        """The compiled replay (``rate`` match by match for a subclass that changes it)."""
        return compiled_unless_changed(self, PairwiseTrueSkill, PairwiseReplayer)

    def rate(
        self,
        teams: Sequence[Any],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Any] | None = None,
    ) -> list[Any]:
        """New ratings after one game (same shape as ``teams``), pair by pair, repeated.

        Each pairwise update is TrueSkill's compiled two-team update
        (:func:`mindsport.rating.trueskill.pairwise_kernel.pairwise_update`).
        """
        values, keys = split_teams(teams, Rating, "PairwiseTrueSkill")
        rk = check_ranks(ranks, len(values), "PairwiseTrueSkill")
        ws = check_weights(weights, values, keys, "PairwiseTrueSkill")
        if self.draw_probability == 0:
            ranked = [r for r in rk if r is not None]
            if len(set(ranked)) != len(ranked):
                raise MindsportError(
                    f"PairwiseTrueSkill: ranks {list(rk)!r} contain a tie, but draw_probability "
                    "is 0 so a tie is impossible under this model"
                )
        flat = [r for t in values for r in t]
        n, n_teams = len(flat), len(values)
        buf = np.array(
            [
                *map(len, values),
                *(math.nan if r is None else float(r) for r in rk),
                *(r.mu for r in flat),
                *(r.sigma for r in flat),
                *(x for w in ws for x in w),
            ],
            dtype=np.float64,
        )
        _kernels().pairwise_game(buf, self._settings, n_teams, n)
        at = 2 * n_teams
        out = buf[at : at + 2 * n].tolist()
        new = [
            r if w == 0 else trusted_rating(m, s)
            for r, m, s, w in zip(flat, out[:n], out[n:], (x for w in ws for x in w), strict=True)
        ]
        rows, at = [], 0
        for t in values:
            rows.append(new[at : at + len(t)])
            at += len(t)
        return join_teams(rows, keys)

    def rate_1vs1(self, a: Rating, b: Rating, drawn: bool = False) -> tuple[Rating, Rating]:
        """``a`` beat ``b`` (or drew)."""
        (a2,), (b2,) = self.rate([(a,), (b,)], [0, 0] if drawn else [0, 1])
        return a2, b2

    def outcome_probabilities(self, team_a: Any, team_b: Any) -> tuple[float, float, float]:
        """``(P(a ahead), P(draw), P(b ahead))`` for the next game, as TrueSkill predicts it."""
        values, _ = split_teams([team_a, team_b], Rating, "PairwiseTrueSkill")
        tau2, beta2 = self.tau * self.tau, self.beta * self.beta
        mus = [sum(r.mu for r in t) for t in values]
        var = [sum(r.sigma * r.sigma + tau2 + beta2 for r in t) for t in values]
        e = margin_from_quantile(self._quantile, len(values[0]) + len(values[1]), self.beta)
        win, loss = win_loss(mus[0] - mus[1], math.sqrt(var[0] + var[1]), e)
        return win, max(0.0, 1.0 - win - loss), loss

    def win_probability(self, team_a: Any, team_b: Any) -> float:
        """Probability that ``team_a`` finishes ahead of ``team_b`` (a draw is not a win)."""
        return self.outcome_probabilities(team_a, team_b)[0]


class PairwiseReplayer(ArrayReplayer):
    """The mahjong article's pairwise TrueSkill via :func:`.pairwise_kernel.replay_pairwise`."""

    fields = ("mu", "sigma")
    n_value = 2

    def new_state(self) -> tuple[float, ...]:
        return (float(self.model.mu), float(self.model.sigma))

    def make(self, *values: Any) -> Any:
        return trusted_rating(*values)

    def unpack(self, value: Any) -> tuple[float, ...] | None:
        return (value.mu, value.sigma) if isinstance(value, Rating) else None

    def check(self, block: MatchBlock, predict: bool) -> None:
        block.validate()
        if self.model.draw_probability == 0:
            at = block_kernels().first_tie(block.team_ptr, block.ranks)
            if at >= 0:
                raise refusal(self.model, block, at, predict, False)

    def kernel(self) -> Any:
        return _kernels().replay_pairwise
