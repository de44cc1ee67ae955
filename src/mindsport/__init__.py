"""mindsport: ratings, fair tournaments, simulation and hidden-information inference.

>>> import mindsport as ms
>>> env = ms.TrueSkill()
>>> [(winner,), (loser,)] = env.rate([(env.rating(),), (env.rating(),)])
>>> winner.mu > 25 > loser.mu
True
"""

from mindsport.errors import ConflictError, MindsportError, NotFoundError
from mindsport.match import Match
from mindsport.rating import (
    Elo,
    EloRating,
    FideK,
    Glicko2,
    Glicko2Rating,
    PairwiseTrueSkill,
    Rating,
    TenhouRating,
    TrueSkill,
    TrueSkillThroughTime,
)

__version__ = "0.1.0"

__all__ = [
    "ConflictError",
    "Elo",
    "EloRating",
    "FideK",
    "Glicko2",
    "Glicko2Rating",
    "Match",
    "MindsportError",
    "NotFoundError",
    "PairwiseTrueSkill",
    "Rating",
    "TenhouRating",
    "TrueSkill",
    "TrueSkillThroughTime",
    "__version__",
]
