"""Rating models, one package each, on shared Gaussian maths and one replay machinery.

Where things are:

* :mod:`.trueskill`: :class:`TrueSkill` (the model, :mod:`.trueskill.model`), its readable factor
  graph (:mod:`.trueskill.factors`), its compiled update of one game
  (:mod:`.trueskill.trueskill_kernel`) and replay (:mod:`.trueskill.replay_kernel`), the naive
  :class:`PairwiseTrueSkill` of the mahjong article (:mod:`.trueskill.pairwise`), TrueSkill with
  roles and deal luck (:mod:`.trueskill.cardplay`) and score margins (:mod:`.trueskill.margins`);
* :mod:`.through_time`: :class:`TrueSkillThroughTime`, whole-history TrueSkill, each player's
  skill a chain through time smoothed by message passing, kept current by :class:`SkillHistory`;
* :mod:`.elo` (:class:`Elo`, :class:`FideK`), :mod:`.glicko2` (:class:`Glicko2`),
  :mod:`.tenhou` (:class:`TenhouRating`): each the model (``model``) and its compiled update and
  replay (``*_kernel``);
* the shared maths: :mod:`.gaussian` (normal distribution), :mod:`.truncation`
  (truncated-Gaussian moments), :mod:`.formulas` (what the TrueSkill models share), compiled once
  for every kernel in :mod:`.compiled`;
* :mod:`.replay`: replaying long histories through any model (the player index and blocks of
  matches, the replayer protocol, the one replay driver that :mod:`mindsport.history` and the
  store call);
* the models by name, with their settings and leaderboard display: :mod:`.registry` (settings:
  :mod:`.params`; the value :class:`Rating`: :mod:`.rating`; team shapes: :mod:`.teams`).

Every model's one update is compiled (numba, loaded on first use, never by ``import
mindsport``) and shared by ``rate`` and the replay of long histories. This package may import
:mod:`mindsport.errors`, :mod:`mindsport.match` and the numba infrastructure
:mod:`mindsport._jit`; nothing above it (history, store, service, command line).
"""

from mindsport.rating.elo.model import Elo, EloRating, FideK
from mindsport.rating.glicko2.model import Glicko2, Glicko2Rating
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
from mindsport.rating.tenhou.model import TenhouR, TenhouRating
from mindsport.rating.through_time.model import SkillHistory, TrueSkillThroughTime
from mindsport.rating.trueskill.model import ConvergenceError, InvalidGameError, TrueSkill
from mindsport.rating.trueskill.pairwise import PairwiseTrueSkill

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
