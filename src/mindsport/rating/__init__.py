"""Rating models: TrueSkill (factor graph), and beside it Elo, Glicko-2, Tenhou R, pairwise.

* :class:`TrueSkill` (:mod:`.trueskill`; its explicit factor graph in :mod:`.factors`, the
  normal and truncated-Gaussian functions in :mod:`.gaussian` and :mod:`.truncation`);
* :class:`TrueSkillThroughTime` (:mod:`.through_time`, compiled in :mod:`.through_time_kernels`):
  whole-history TrueSkill, each player's skill a chain through time smoothed by message passing,
  kept current by :class:`SkillHistory`;
* :class:`Elo` with :class:`FideK`, :class:`Glicko2`, :class:`TenhouRating`, and the naive
  :class:`PairwiseTrueSkill` of the mahjong article as a baseline;
* every model's one update is compiled (:mod:`.kernels`, :mod:`.kernels_classic`, loaded on
  first use) and shared by ``rate`` and the replay of long histories (:mod:`.replayers`, over
  blocks of matches, :mod:`.batch`);
* the models by name, with their settings and leaderboard display: :mod:`.registry`.
"""

from mindsport.rating.elo import Elo, EloRating, FideK
from mindsport.rating.glicko2 import Glicko2, Glicko2Rating
from mindsport.rating.pairwise import PairwiseTrueSkill
from mindsport.rating.params import Kind, Param, ParameterError
from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.registry import (
    MODELS,
    Display,
    Estimate,
    ModelSpec,
    UnknownModelError,
    build_model,
    default_grid,
    get_spec,
    model_names,
)
from mindsport.rating.teams import ShapeError
from mindsport.rating.tenhou import TenhouR, TenhouRating
from mindsport.rating.through_time import SkillHistory, TrueSkillThroughTime
from mindsport.rating.trueskill import ConvergenceError, InvalidGameError, TrueSkill

__all__ = [
    "MODELS",
    "ConvergenceError",
    "Display",
    "Elo",
    "EloRating",
    "Estimate",
    "FideK",
    "Glicko2",
    "Glicko2Rating",
    "InvalidGameError",
    "InvalidRatingError",
    "Kind",
    "ModelSpec",
    "PairwiseTrueSkill",
    "Param",
    "ParameterError",
    "Rating",
    "ShapeError",
    "SkillHistory",
    "TenhouR",
    "TenhouRating",
    "TrueSkill",
    "TrueSkillThroughTime",
    "UnknownModelError",
    "build_model",
    "default_grid",
    "get_spec",
    "model_names",
]
