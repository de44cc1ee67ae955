"""Score margins: what the scores of a two-team match say about its performance difference.

A win says only that team 0 performed better than team 1; a 6-0 6-0 says by how much. With a margin
scale ``s`` (performance points per point of score difference) the scores ``(score_0, score_1)`` are
read as an observation of the performance difference ``d`` of team 0 over team 1: ``y = s * (score_0
- score_1)`` with the likelihood ``N(y; d, margin_noise^2)``. TrueSkill's one update
(:func:`mindsport.rating.trueskill.trueskill_kernel.update_match`) multiplies it with the win/draw
truncation (:func:`mindsport.rating.truncation.margin_moments`: the Gaussian is absorbed exactly,
then the truncation is moment-matched), so a match observed with its margin stays one
exact-then-moment-matched step.

The models that rate margins (:class:`~mindsport.rating.trueskill.cardplay.CardPlay` online,
:class:`~mindsport.rating.through_time.model.TrueSkillThroughTime` over the whole history) take the
two settings of :data:`MARGIN_PARAMS` and turn scores into ``y`` with :func:`observed_margin`.
Matches of more than two teams, or without scores, are rated by their order only.

The observed margin is bounded where it enters (:func:`bounded_margin`): ``y`` is clipped to
``[-MARGIN_BOUND beta, MARGIN_BOUND beta]`` (100 performance noises). A margin that large is
no longer evidence of its size: two performances differ by ``N(skill difference, 2 beta^2)``
and skill differences beyond 20 beta (ten prior deviations of ``2 beta`` each side) do not
occur, so every real margin lies far inside the bound, while an absurd one (a mistyped score,
a score on a scale the ``margin_scale`` was not fitted to) moves the ratings no more than a
margin of 100 beta does: a bounded amount, never an overflow.

>>> observed_margin(2.0, (3, 1), 4.0), observed_margin(2.0, (1, 3, 0), 4.0)
(4.0, None)
>>> observed_margin(None, (3, 1), 4.0), observed_margin(1.0, (1e9, -1e9), 4.0)
(None, 400.0)
"""

from __future__ import annotations

from collections.abc import Sequence

from mindsport.rating.params import MAX_SCALE, MIN_SCALE, Kind, Param
from mindsport.rating.trueskill.model import BETA

__all__ = ["MARGIN_BOUND", "MARGIN_NOISE", "MARGIN_PARAMS", "bounded_margin", "observed_margin"]

#: the default deviation of an observed margin: two performance noises' worth
MARGIN_NOISE = BETA * 2.0
#: the largest observed margin, in performance noises (``beta``): see the module docstring
MARGIN_BOUND = 100.0

#: the settings of a model that rates score margins (``margin_scale`` None: margins off)
MARGIN_PARAMS = (
    Param(
        "margin_scale",
        Kind.REAL,
        None,
        "performance points per point of score margin in two-team matches (None: off)",
        0.0,
        MAX_SCALE,
        low_open=True,
        optional=True,
    ),
    Param(
        "margin_noise",
        Kind.REAL,
        MARGIN_NOISE,
        "deviation of the observed margin on the performance scale",
        MIN_SCALE,
        MAX_SCALE,
    ),
)


def bounded_margin(y: float, beta: float) -> float:
    """The observed margin ``y`` clipped to ``[-MARGIN_BOUND beta, MARGIN_BOUND beta]`` (see the
    module docstring): the one bound every path that rates margins applies.

    >>> bounded_margin(3.0, 2.0), bounded_margin(-1e300, 2.0)
    (3.0, -200.0)
    """
    bound = MARGIN_BOUND * beta
    return min(max(float(y), -bound), bound)


def observed_margin(
    scale: float | None, scores: Sequence[float] | None, beta: float
) -> float | None:
    """The performance difference of team 0 over team 1 that the ``scores`` of a two-team match
    stand for, ``scale * (scores[0] - scores[1])`` bounded by :func:`bounded_margin` (``beta``:
    the model's performance noise); None when margins are off (``scale`` None), there are no
    scores, or the match has more than two teams."""
    if scale is None or scores is None or len(scores) != 2:
        return None
    return bounded_margin(scale * (float(scores[0]) - float(scores[1])), beta)
