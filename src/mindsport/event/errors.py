"""The error of a refused event operation (kept apart so that every module of the package,
the game tables of :mod:`mindsport.event.games` included, can raise it without a cycle)."""

from __future__ import annotations

from mindsport.errors import MindsportError

__all__ = ["EventError"]


class EventError(MindsportError):
    """An event operation refused: the message names the input and what is wrong."""
