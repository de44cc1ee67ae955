"""Error types shared by every part of mindsport.

Every error is a :class:`ValueError` subclass whose message names the offending input, so the
command line can print it without a traceback and the HTTP service can return it as a 4xx body.
"""

from __future__ import annotations

__all__ = ["ConflictError", "MindsportError", "NotFoundError"]


class MindsportError(ValueError):
    """Base class of every error raised on bad input."""


class NotFoundError(MindsportError, LookupError):
    """A named thing (player, league, file) does not exist."""


class ConflictError(MindsportError):
    """The input contradicts what is already recorded (e.g. a match id reused with other data)."""
