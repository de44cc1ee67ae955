"""Rating models: TrueSkill (factor graph), and beside it Elo, Glicko-2, Tenhou R, pairwise.

* :class:`TrueSkill` (:mod:`.trueskill`, factors in :mod:`.factors`, truncated-Gaussian moments
  in :mod:`.truncation`), compiled replay of long histories in :mod:`.batch`/:mod:`.kernels`;
* :class:`Elo` with :class:`FideK`, :class:`Glicko2`, :class:`TenhouRating`, and the naive
  :class:`PairwiseTrueSkill` of seed 002 as a baseline.
"""

from mindsport.rating.elo import Elo, EloRating, FideK, ShapeError
from mindsport.rating.glicko2 import Glicko2, Glicko2Rating
from mindsport.rating.pairwise import PairwiseTrueSkill
from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.tenhou import TenhouR, TenhouRating
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
    "TenhouR",
    "TenhouRating",
    "TrueSkill",
]
