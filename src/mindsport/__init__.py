"""mindsport: ratings, fair tournaments, simulation and hidden-information inference.

>>> import mindsport as ms
>>> env = ms.TrueSkill()
>>> [(winner,), (loser,)] = env.rate([(env.rating(),), (env.rating(),)])
>>> winner.mu > 25 > loser.mu
True
"""

from mindsport.errors import ConflictError, MindsportError, NotFoundError
from mindsport.rating import Rating, TrueSkill

__version__ = "0.1.0"

__all__ = [
    "ConflictError",
    "MindsportError",
    "NotFoundError",
    "Rating",
    "TrueSkill",
    "__version__",
]
