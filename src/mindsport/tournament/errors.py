"""Errors raised by :mod:`mindsport.tournament` (all :class:`~mindsport.errors.MindsportError`)."""

from __future__ import annotations

from mindsport.errors import MindsportError

__all__ = ["TournamentError"]


class TournamentError(MindsportError):
    """Bad input to a tournament computation; the message names the offending input."""
