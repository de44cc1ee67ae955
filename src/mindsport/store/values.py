"""What the store hands out and what it raises: the values its reads and writes return (a league,
a write's outcome, a leaderboard page, a player's record) and its errors.

Plain frozen dataclasses, importable without the database layer (no SQLAlchemy here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mindsport.errors import ConflictError, MindsportError
from mindsport.rating.registry import Display
from mindsport.store.league_model import PlayerState

__all__ = [
    "CurvePoint",
    "HistoryPoint",
    "IngestResult",
    "LeaderboardEntry",
    "LeaderboardPage",
    "League",
    "MatchConflictError",
    "MatchRefusedError",
    "PlayerRecord",
    "RoleAdvantage",
    "StoreError",
]


class StoreError(MindsportError):
    """A store operation was given something it cannot use (names the input)."""


class MatchRefusedError(StoreError):
    """A match the store cannot take: ``match_id`` and ``field`` name it and what is wrong."""

    def __init__(self, message: str, match_id: str, field: str) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.field = field


class MatchConflictError(ConflictError):
    """A match id recorded (or repeated in the input) with other data (``field`` is ``id``)."""

    def __init__(self, message: str, match_id: str) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.field = "id"


@dataclass(frozen=True, slots=True)
class League:
    """A rating pool: its name, model name and model parameters."""

    name: str
    model: str
    params: dict[str, Any]
    matches: int


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What a write did: new matches, identical re-posts ignored, matches replayed because late
    (none in a whole-history league: late results revise the smoothed past in place)."""

    added: int
    duplicates: int
    replayed: int

    def as_dict(self) -> dict[str, int]:
        return {"added": self.added, "duplicates": self.duplicates, "replayed": self.replayed}


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    player: str
    mu: float
    sigma: float
    exposed: float
    games: int


@dataclass(frozen=True, slots=True)
class RoleAdvantage:
    """A role's (seat's) learned advantage in a league whose model rates roles (``cardplay``):
    the skill points it adds to its player's team, and their deviation."""

    role: str
    advantage: float
    sigma: float


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """A page of a league's leaderboard. ``display``: how the league's model shows a rating
    (labels of ``mu``, ``sigma`` and ``exposed``; see :class:`mindsport.rating.Display`).
    ``roles``: the league's learned role advantages by role name (empty for a model without
    roles, or before a match with roles)."""

    league: str
    total: int
    offset: int
    limit: int
    entries: list[LeaderboardEntry]
    display: Display | None = None
    roles: tuple[RoleAdvantage, ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    match_id: str
    seq: int
    time: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """A point of a whole-history league's smoothed skill curve: the player's skill (``mu``,
    ``sigma``) at the time step starting at ``time`` (on the match log's time axis: POSIX
    seconds for datetimes), given all the league's matches."""

    time: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player's rating in a league: rank, state, games, and how the rating went: ``history``
    (an online league: the rating after each match) or ``curve`` (a whole-history league: the
    smoothed skill at each time step he played in)."""

    league: str
    player: str
    rank: int
    state: PlayerState
    exposed: float
    games: int
    history: list[HistoryPoint] = field(default_factory=list)
    curve: list[CurvePoint] = field(default_factory=list)
