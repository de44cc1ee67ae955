"""Rolling-origin prediction for whole-history models: refit before each block, predict it.

An online model predicts each match from the ratings before it (:func:`mindsport.history.replay`).
A whole-history model (:class:`WholeHistoryModel`, e.g.
:class:`~mindsport.rating.TrueSkillThroughTime`) revises the past with every new result, so
predicting a match from a fit that saw it would be cheating, and refitting before every match
would be needlessly slow. The protocol fair to both: the matches (in time order) are cut into
``blocks`` consecutive blocks of about equal size; before each block the model is fitted on every
match before it (kept current by incremental adds), then every pair of teams of the block whose
order the result tells is predicted from the players' skills at the match's time, given
everything before the block. The pairs and the probability are those of
:class:`~mindsport.history.MatchPrediction`, so the predictions are scored by the same code as
an online replay (:func:`mindsport.history.evaluate.score_predictions`).

>>> from mindsport.match import Match
>>> from mindsport.rating import TrueSkillThroughTime
>>> ms = [Match(f"g{i}", i, [["a"], ["b"]], [0, 1]) for i in range(6)]
>>> preds = rolling_predictions(TrueSkillThroughTime(draw_probability=0.0), ms, blocks=3)
>>> [round(mp.pairs[0][2], 2) for mp in preds]  # each pair of matches from the ones before
[0.5, 0.5, 0.84, 0.84, 0.91, 0.91]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mindsport.errors import MindsportError
from mindsport.history.replay import MatchPrediction, Predictions, replay
from mindsport.match import Match, pair_outcome

__all__ = [
    "ROLLING_BLOCKS",
    "WholeHistoryModel",
    "block_bounds",
    "model_predictions",
    "rolling_predictions",
]

#: Blocks the matches are cut into by default.
ROLLING_BLOCKS = 50


@runtime_checkable
class WholeHistoryModel(Protocol):
    """A model that estimates skills from a whole history at once.

    ``history(matches)`` returns the fitted history: ``add(matches)`` takes more results,
    ``ratings_at(players, times)`` gives means and deviations of players at times;
    ``outcome_probabilities(team_a, team_b)`` gives ``(P(a ahead), P(draw), P(b ahead))`` for
    teams of ratings.
    """

    def history(
        self, matches: Iterable[Match] = (), priors: Mapping[str, Any] | None = None
    ) -> Any: ...

    def outcome_probabilities(self, team_a: Any, team_b: Any) -> tuple[float, float, float]: ...


def block_bounds(n: int, blocks: int, start: int = 0) -> list[tuple[int, int]]:
    """Index ranges of ``blocks`` consecutive blocks of about equal size covering ``start..n``
    (fewer when there are fewer matches)."""
    if not isinstance(blocks, int) or isinstance(blocks, bool) or blocks < 1:
        raise MindsportError(f"blocks must be an integer >= 1, got {blocks!r}")
    if not 0 <= start <= n:
        raise MindsportError(f"start must be in [0, {n}], got {start!r}")
    cuts = np.linspace(start, n, min(blocks, n - start) + 1).round().astype(int).tolist()
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _predict(model: Any, history: Any, block: Sequence[Match], first: int) -> list[MatchPrediction]:
    from mindsport.rating.rating import Rating

    players = [p for m in block for t in m.teams for p in t]
    times = [m.time for m in block for t in m.teams for _ in t]
    mu, sd = history.ratings_at(players, times)
    out = []
    k = 0
    for x, m in enumerate(block):
        teams = []
        for t in m.teams:
            teams.append([Rating(float(mu[k + i]), float(sd[k + i])) for i in range(len(t))])
            k += len(t)
        pairs = []
        draws = []
        n = len(m.teams)
        for i in range(n):
            for j in range(i + 1, n):
                y = pair_outcome(m.ranks[i], m.ranks[j])
                if y is None:
                    continue
                win, draw, loss = model.outcome_probabilities(teams[i], teams[j])
                p = 0.5 if win + loss <= 0 else win / (win + loss)
                pairs.append((i, j, p, y))
                draws.append(float(draw))
        out.append(MatchPrediction(first + x, m.id, tuple(pairs), tuple(draws)))
    return out


def rolling_predictions(
    model: WholeHistoryModel,
    matches: Iterable[Match],
    *,
    blocks: int = ROLLING_BLOCKS,
    start: int = 0,
    bounds: Sequence[tuple[int, int]] | None = None,
) -> Predictions:
    """Predictions of every match from ``start`` on, each block's from a fit on everything
    before the block (see the module docstring); matches before ``start`` are only learned
    from (no predictions: their pairs are left empty). ``bounds``: the blocks as index ranges
    ``(a, b)`` instead (consecutive, from ``start`` to the end; e.g. calendar months).
    """
    if not isinstance(model, WholeHistoryModel):
        raise MindsportError(f"rolling_predictions: {model!r} is not a whole-history model")
    ms = list(matches)
    if bounds is None:
        bounds = block_bounds(len(ms), blocks, start)
    else:
        ends = [start] + [b for _, b in bounds]
        if (
            [a for a, _ in bounds] != ends[:-1]
            or ends[-1] != len(ms)
            or any(b <= a for a, b in bounds)
        ):
            raise MindsportError(
                f"bounds must be consecutive non-empty blocks from {start} to {len(ms)}"
            )
    history = model.history(ms[:start])
    out = [MatchPrediction(i, m.id, ()) for i, m in enumerate(ms[:start])]
    for a, b in bounds:
        out.extend(_predict(model, history, ms[a:b], a))
        history.add(ms[a:b])
    return Predictions.of(out)


def model_predictions(model: Any, matches: Sequence[Match], *, start: int = 0) -> Any:
    """Honest predictions of ``model`` on ``matches`` from ``start`` on: a whole-history model's
    by rolling refits (:func:`rolling_predictions`), an online model's one match ahead
    (:func:`mindsport.history.replay`)."""
    if isinstance(model, WholeHistoryModel):
        return rolling_predictions(model, matches, start=start)
    return replay(model, matches, keep_history=False).predictions
