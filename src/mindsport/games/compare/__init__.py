"""Telling two bots apart: duplicate sets in every line-up of a game's rotation, a luck
correction whose expected value is zero whatever the bots do, intervals, and sequential
stopping (Wald's SPRT on the Elo scale, or a target interval width), for any game of the
contract.

* :mod:`.schedule`: the rotation's line-ups (a game's sides handed to one bot or the other),
  the margin and win score of a game, the seeding keys of a set;
* :mod:`.play`: the task an executor runs (deal a set, play it, value it with the reference
  bots);
* :mod:`.variates`: the control variate and the cross-fitted correction (why it is unbiased and
  cannot be gamed);
* :mod:`.estimate`: means with Student-t intervals, the Elo scale, the random-deal design's
  variance from duplicate data;
* :mod:`.sequential`: the SPRT and the target width;
* :mod:`.report`: the report; :mod:`.run`: :func:`compare`.

It uses only the game contract (:attr:`~mindsport.games.contract.GameInfo.sides` and
``references`` are a game's optional say in it), so every game of the registry gets it.
"""

from mindsport.games.compare.estimate import Estimate, elo_of, estimate, score_of
from mindsport.games.compare.report import Comparison, Report
from mindsport.games.compare.run import CompareSettings, compare
from mindsport.games.compare.schedule import Rotation, rotation
from mindsport.games.compare.sequential import Sprt, SprtState, Width
from mindsport.games.compare.variates import correct

__all__ = [
    "CompareSettings",
    "Comparison",
    "Estimate",
    "Report",
    "Rotation",
    "Sprt",
    "SprtState",
    "Width",
    "compare",
    "correct",
    "elo_of",
    "estimate",
    "rotation",
    "score_of",
]
