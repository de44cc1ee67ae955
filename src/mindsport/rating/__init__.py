"""Rating models: TrueSkill (factor graph), and beside it Elo, Glicko-2, Tenhou R, pairwise.

* :class:`TrueSkill` (:mod:`.trueskill`, factors in :mod:`.factors`, truncated-Gaussian moments
  in :mod:`.truncation`), compiled replay of long histories in :mod:`.batch`/:mod:`.kernels`;
* :class:`TrueSkillThroughTime` (:mod:`.through_time`, compiled in :mod:`.through_time_kernels`):
  whole-history TrueSkill, each player's skill a chain through time smoothed by message passing,
  kept current by :class:`SkillHistory`;
* :class:`Elo` with :class:`FideK`, :class:`Glicko2`, :class:`TenhouRating`, and the naive
  :class:`PairwiseTrueSkill` of seed 002 as a baseline.
"""

from mindsport.rating.elo import Elo, EloRating, FideK, ShapeError
from mindsport.rating.glicko2 import Glicko2, Glicko2Rating
from mindsport.rating.pairwise import PairwiseTrueSkill
from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.tenhou import TenhouR, TenhouRating
from mindsport.rating.through_time import SkillHistory, TrueSkillThroughTime
from mindsport.rating.trueskill import ConvergenceError, InvalidGameError, TrueSkill

__all__ = [
    "ConvergenceError",
    "Elo",
    "EloRating",
    "FideK",
    "Glicko2",
    "Glicko2Rating",
    "InvalidGameError",
    "InvalidRatingError",
    "PairwiseTrueSkill",
    "Rating",
    "ShapeError",
    "SkillHistory",
    "TenhouR",
    "TenhouRating",
    "TrueSkill",
    "TrueSkillThroughTime",
]
