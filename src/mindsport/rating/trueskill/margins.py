"""Score margins: what the scores of a match say about its performance differences.

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
Matches without scores are rated by their order only.

**More than two teams.** A match of ``n`` teams with scores observes the performance difference
of every two teams adjacent in its finishing order: link ``j`` of TrueSkill's factor graph (the
difference ``d_j = t_left - t_right`` of the team ``j``-th and ``j+1``-th) gets the likelihood
``N(y_j; d_j, margin_noise^2)`` with ``y_j = s * (score_left - score_right)``, each link's
observation independent of the others' (:func:`observed_scores` gives the teams' scores on the
performance scale; the compiled update takes the differences, each clipped as below). The
derivation (docs/models.md, "Score margins of more than two teams"): the truncation factor of a
link becomes ``1[d_j > e] N(y_j; d_j, s2)``; in the schedule's step for that link the message
from the team performances is the cavity ``N(d_j; m, c^2)``; the product with the Gaussian
observation is again Gaussian (precisions add: ``1/c^2 + 1/s2``, ``m/c^2 + y_j/s2``), which is
then truncated to the win (or draw) and moment-matched exactly as without a margin; the
message sent back is the matched marginal divided by the cavity. For two teams there is one link
and no schedule, and this is the closed form of
:func:`~mindsport.rating.truncation.margin_moments`, number for number.

The observed margin is bounded where it enters (:func:`bounded_margin`): ``y`` is clipped to
``[-MARGIN_BOUND beta, MARGIN_BOUND beta]`` (100 performance noises). A margin that large is
no longer evidence of its size: two performances differ by ``N(skill difference, 2 beta^2)``
and skill differences beyond 20 beta (ten prior deviations of ``2 beta`` each side) do not
occur, so every real margin lies far inside the bound, while an absurd one (a mistyped score,
a score on a scale the ``margin_scale`` was not fitted to) moves the ratings no more than a
margin of 100 beta does: a bounded amount, never an overflow.

>>> observed_margin(2.0, (3, 1), 4.0), observed_margin(2.0, (1, 3, 0), 4.0)
(4.0, None)
>>> observed_scores(2.0, (1, 3, 0)), observed_scores(2.0, (3, 1)), observed_scores(None, (1, 3, 0))
((2.0, 6.0, 0.0), None, None)
>>> observed_margin(None, (3, 1), 4.0), observed_margin(1.0, (1e9, -1e9), 4.0)
(None, 400.0)
"""

from __future__ import annotations

from collections.abc import Sequence

from mindsport.rating.formulas import MARGIN_BOUND, clip_margin
from mindsport.rating.params import MAX_SCALE, MIN_SCALE, Kind, Param
from mindsport.rating.trueskill.model import BETA

__all__ = [
    "MARGIN_BOUND",
    "MARGIN_NOISE",
    "MARGIN_PARAMS",
    "bounded_margin",
    "observed_margin",
    "observed_scores",
]

#: the default deviation of an observed margin: two performance noises' worth
MARGIN_NOISE = BETA * 2.0

#: the settings of a model that rates score margins (``margin_scale`` None: margins off)
MARGIN_PARAMS = (
    Param(
        "margin_scale",
        Kind.REAL,
        None,
        "performance points per point of score difference between teams (None: off)",
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
    return clip_margin(float(y), beta)


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


def observed_scores(
    scale: float | None, scores: Sequence[float] | None
) -> tuple[float, ...] | None:
    """The scores of a match of more than two teams on the performance scale, ``scale *
    score`` each (their adjacent differences in the finishing order are the observed margins,
    see the module docstring); None when margins are off, there are no scores, or the match has
    two teams (:func:`observed_margin`)."""
    if scale is None or scores is None or len(scores) <= 2:
        return None
    return tuple(scale * float(x) for x in scores)
