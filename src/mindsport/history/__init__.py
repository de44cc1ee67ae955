"""Match records, their files, chronological replay and evaluation."""

from mindsport.history.match import InvalidMatchError, Match, ranks_from_scores

__all__ = ["InvalidMatchError", "Match", "ranks_from_scores"]
