"""The expected result of a Dou Dizhu deal: how much of a game's result the cards decide.

A luck-aware rating (the ``cardplay`` model of the rating registry) takes, with each match, the
deal's *luck*: the expected result of the landlord's side, in standard-normal units of
performance. The number is made here, from the engine, and travels in the match (the rating
layer knows no game):

* **exact** (:func:`played_luck`): the deal is played out by reference bots (by default three
  ``level:50`` bots) at ``tables`` tables, as the GDI grading does
  (:func:`mindsport.tournament.doudizhu.games.landlord_table`); the landlord's win rate, its
  mean score and the deal's GDI (:func:`mindsport.tournament.gdi.grade_difficulty`) per deal;
* **fast** (:class:`LuckModel`): a ridge regression on the hand features of the GDI predictor
  (:func:`mindsport.tournament.doudizhu.generator.deal_features`, the same
  :class:`~mindsport.tournament.doudizhu.generator.GdiModel`) fitted to the played win rates
  of simulated deals; it predicts a deal's landlord win rate from the cards alone, in about a
  third of a millisecond.

A win rate ``p`` becomes a luck by the probit, :func:`luck_from_rate`: two sides whose
performances differ by ``N(delta, c^2)`` win with probability ``Phi(delta / c)``, so a deal won
with probability ``p`` by equal reference players shifts the landlord side by
``c * probit(p)``; the rating model scales the luck by its fitted ``luck_scale`` (which plays
the part of ``c``). Rates are kept away from 0 and 1 (by ``(wins + 1/2) / (tables + 1)`` for
played deals, and a clip at ``1 / 200`` for predicted ones) so that a luck stays finite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu import LINEAR, Deal, ScoringRule
from mindsport.tournament.doudizhu.games import landlord_table, random_deals
from mindsport.tournament.doudizhu.generator import GdiModel, feature_matrix
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import Executor
from mindsport.tournament.gdi import grade_difficulty

__all__ = [
    "REFERENCE_BOT",
    "LuckModel",
    "PlayedLuck",
    "luck_from_rate",
    "played_luck",
]

#: the reference player of every seat when a deal's luck is played out
REFERENCE_BOT = "level:50"
#: the least and the greatest predicted win rate (a luck stays finite)
RATE_CLIP = 1 / 200

_NORMAL = NormalDist()


def luck_from_rate(rate: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The landlord side's luck from its win rate: ``probit(rate)``, with ``rate`` clipped to
    ``[1/200, 199/200]``.

    >>> luck_from_rate([0.5, 0.8413447460685429]).round(6).tolist()
    [0.0, 1.0]
    """
    p = np.clip(np.asarray(rate, dtype=np.float64), RATE_CLIP, 1.0 - RATE_CLIP)
    return np.vectorize(_NORMAL.inv_cdf, otypes=[np.float64])(p)


@dataclass(frozen=True)
class PlayedLuck:
    """Deals played out by reference bots: per deal the landlord's win rate (smoothed:
    ``(wins + 1/2) / (tables + 1)``), mean score, GDI over ``levels`` (None when the scoring
    gives other scores) and luck (:func:`luck_from_rate`); ``scores[deal, table]`` as played."""

    scores: npt.NDArray[np.float64]
    win_rate: npt.NDArray[np.float64]
    mean_score: npt.NDArray[np.float64]
    gdi: npt.NDArray[np.float64] | None
    luck: npt.NDArray[np.float64]


def played_luck(
    deals: Sequence[Deal],
    seed: int,
    *,
    tables: int = 20,
    reference: str = REFERENCE_BOT,
    levels: Sequence[float] | None = None,
    executor: Executor | None = None,
    scoring: ScoringRule = LINEAR,
    stage: int = 0,
    progress: Callable[[int], None] | None = None,
) -> PlayedLuck:
    """The exact expected result of every deal: played at ``tables`` tables by ``reference``
    bots in all three seats (games keyed ``(stage, 0, deal, table)`` of the run ``seed``).
    ``levels``: the possible landlord scores for the GDI (default: the scores seen)."""
    if isinstance(tables, bool) or int(tables) != tables or tables < 1:
        raise TournamentError(f"tables must be a positive integer, got {tables!r}")
    if len(deals) == 0:
        empty = np.zeros(0)
        return PlayedLuck(np.zeros((0, int(tables))), empty, empty, None, empty)
    scores = landlord_table(
        deals,
        [reference],
        (reference, reference),
        seed,
        stage,
        executor,
        replays=int(tables),
        scoring=scoring,
        progress=progress,
    )[0]
    wins = (scores > 0).sum(axis=1)
    rate = (wins + 0.5) / (int(tables) + 1)
    grades = levels if levels is not None else sorted(set(scores.ravel().tolist()))
    gdi: npt.NDArray[np.float64] | None = None
    if len(grades) >= 2 and set(scores.ravel().tolist()) <= set(grades):
        gdi = np.stack([grade_difficulty(row, grades) for row in scores])
    return PlayedLuck(scores, rate, scores.mean(axis=1), gdi, luck_from_rate(rate))


@dataclass(frozen=True)
class LuckModel:
    """The fast estimate: a ridge regression (:class:`GdiModel`) from a deal's hand features
    to the landlord's win rate under the reference bots."""

    regression: GdiModel

    @classmethod
    def fit(
        cls,
        deals: Sequence[Deal],
        played: PlayedLuck,
        alpha: float = 1.0,
    ) -> LuckModel:
        """Fitted to played deals (their smoothed win rates)."""
        if len(deals) != len(played.win_rate):
            raise TournamentError(f"{len(deals)} deals but {len(played.win_rate)} played win rates")
        return cls(GdiModel.fit(feature_matrix(deals), played.win_rate, alpha=alpha))

    @classmethod
    def simulate(
        cls,
        n_deals: int,
        seed: int,
        *,
        tables: int = 20,
        reference: str = REFERENCE_BOT,
        alpha: float = 1.0,
        executor: Executor | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> LuckModel:
        """Fitted to ``n_deals`` random deals played out (:func:`played_luck`) in the run
        ``seed`` (the deals are dealt from ``numpy.random.default_rng(seed)``)."""
        deals = random_deals(n_deals, np.random.default_rng(seed))
        played = played_luck(
            deals, seed, tables=tables, reference=reference, executor=executor, progress=progress
        )
        return cls.fit(deals, played, alpha)

    def win_rate(self, deals: Sequence[Deal]) -> npt.NDArray[np.float64]:
        """Predicted landlord win rates, in ``[1/200, 199/200]``."""
        if len(deals) == 0:
            return np.zeros(0)
        rate = self.regression.predict(feature_matrix(deals))[:, 0]
        return np.clip(rate, RATE_CLIP, 1.0 - RATE_CLIP)

    def luck(self, deals: Sequence[Deal]) -> npt.NDArray[np.float64]:
        """Predicted luck of the landlord side (:func:`luck_from_rate` of :meth:`win_rate`)."""
        return luck_from_rate(self.win_rate(deals))

    def r2(self, deals: Sequence[Deal], played: PlayedLuck) -> float:
        """Coefficient of determination of the predicted win rates on played deals."""
        return float(self.regression.r2(feature_matrix(deals), played.win_rate)[0])
