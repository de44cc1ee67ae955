"""Rating models: TrueSkill (factor graph), and beside it Elo, Glicko-2, Tenhou R, pairwise."""

from mindsport.rating.rating import InvalidRatingError, Rating
from mindsport.rating.trueskill import ConvergenceError, InvalidGameError, TrueSkill

__all__ = ["ConvergenceError", "InvalidGameError", "InvalidRatingError", "Rating", "TrueSkill"]
