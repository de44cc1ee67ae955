"""Persistence: leagues, an append-only match log and ratings derived from it (SQLAlchemy).

SQLite file by default (``./mindsport.db`` or ``$MINDSPORT_DATABASE_URL``), PostgreSQL by URL.
Nothing is opened at import: create a :class:`Store` with a URL.
"""

from mindsport.rating.registry import UnknownModelError
from mindsport.store.league import LeagueModel, PlayerState
from mindsport.store.store import (
    DEFAULT_DATABASE_URL,
    HistoryPoint,
    IngestResult,
    LeaderboardEntry,
    LeaderboardPage,
    League,
    PlayerRecord,
    Store,
    StoreError,
    resolve_url,
)

__all__ = [
    "DEFAULT_DATABASE_URL",
    "HistoryPoint",
    "IngestResult",
    "LeaderboardEntry",
    "LeaderboardPage",
    "League",
    "LeagueModel",
    "PlayerRecord",
    "PlayerState",
    "Store",
    "StoreError",
    "UnknownModelError",
    "resolve_url",
]
