"""Persistence: leagues, an append-only match log and ratings derived from it (SQLAlchemy).

SQLite file by default (``./mindsport.db`` or ``$MINDSPORT_DATABASE_URL``), PostgreSQL by URL.
Nothing is opened at import: create a :class:`Store` with a URL.
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.rating.registry import UnknownModelError
    from mindsport.store.league_model import LeagueModel, PlayerState
    from mindsport.store.store import (
        DEFAULT_DATABASE_URL,
        CurvePoint,
        HistoryPoint,
        IngestResult,
        LeaderboardEntry,
        LeaderboardPage,
        League,
        PlayerRecord,
        PreparedMatches,
        RoleAdvantage,
        Store,
        StoreError,
        prepare_matches,
        resolve_url,
    )

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "UnknownModelError": "mindsport.rating.registry",
    "LeagueModel": "mindsport.store.league_model",
    "PlayerState": "mindsport.store.league_model",
    "DEFAULT_DATABASE_URL": "mindsport.store.store",
    "CurvePoint": "mindsport.store.store",
    "HistoryPoint": "mindsport.store.store",
    "IngestResult": "mindsport.store.store",
    "LeaderboardEntry": "mindsport.store.store",
    "LeaderboardPage": "mindsport.store.store",
    "League": "mindsport.store.store",
    "PlayerRecord": "mindsport.store.store",
    "PreparedMatches": "mindsport.store.store",
    "RoleAdvantage": "mindsport.store.store",
    "Store": "mindsport.store.store",
    "StoreError": "mindsport.store.store",
    "prepare_matches": "mindsport.store.store",
    "resolve_url": "mindsport.store.store",
}

lazy_exports(__name__, _EXPORTS)


__all__ = [
    "DEFAULT_DATABASE_URL",
    "CurvePoint",
    "HistoryPoint",
    "IngestResult",
    "LeaderboardEntry",
    "LeaderboardPage",
    "League",
    "LeagueModel",
    "PlayerRecord",
    "PlayerState",
    "PreparedMatches",
    "RoleAdvantage",
    "Store",
    "StoreError",
    "UnknownModelError",
    "prepare_matches",
    "resolve_url",
]
