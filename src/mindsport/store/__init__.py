"""Persistence: leagues, an append-only match log per league and ratings derived from it, API
keys, in one SQL database (SQLAlchemy): a SQLite file by default (``./mindsport.db`` or
``$MINDSPORT_DATABASE_URL``), PostgreSQL by URL. Nothing is opened at import: create a
:class:`Store` with a URL.

:class:`Store` (``facade.py``) is a thin facade over modules of one concern each:

* ``values.py``: what the store returns (leagues, write outcomes, leaderboard pages, player
  records) and raises; ``league_model.py``: a league's rating model and its stored columns;
* ``schema.py``: the tables; ``migrations.py``: upgrading the tables of earlier versions;
* ``database.py``: URLs, engines, transactions, the SQLite writer connection and FIFO lock
  (``checkpoint.py``: its WAL checkpoints); ``bulk.py``: many rows at once (COPY on
  PostgreSQL);
* ``codec.py``: a match's stored form and canonical digest; ``match_log.py``: the match log in
  SQL;
* ``leagues.py``: the league catalogue; ``league_lock.py``: a league's write lock and the reads
  under it; ``keys.py``: API keys;
* ``ingest.py``: writing matches (idempotency, late matches), with ``commit.py``: the group
  commit;
* ``derive.py``: ratings, history and virtual players derived from the log (replay after a late
  match, recompute); ``whole_history.py``: whole-history leagues' smoothed skill curves;
* ``queries.py``: leaderboard, player, states, matches; ``display.py``: a leaderboard as a
  rich table.

The store may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport.files`,
:mod:`mindsport.rating` (the models and the replay engine) and :mod:`mindsport.history`;
never the service, the command line (:mod:`mindsport.cli`) above it, the game packages, events
or :mod:`mindsport.forecast` (predictions and matchmaking over the store's reads).
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.rating.registry import UnknownModelError
    from mindsport.store.codec import PreparedMatches, prepare_matches
    from mindsport.store.database import DEFAULT_DATABASE_URL, resolve_url
    from mindsport.store.facade import Store
    from mindsport.store.late import LateMatchError
    from mindsport.store.league_model import LeagueModel, PlayerState
    from mindsport.store.values import (
        CurvePoint,
        HistoryPoint,
        IngestResult,
        LatePolicy,
        LeaderboardEntry,
        LeaderboardPage,
        League,
        PlayerRecord,
        RoleAdvantage,
        StoreError,
    )

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "UnknownModelError": "mindsport.rating.registry",
    "LeagueModel": "mindsport.store.league_model",
    "PlayerState": "mindsport.store.league_model",
    "DEFAULT_DATABASE_URL": "mindsport.store.database",
    "CurvePoint": "mindsport.store.values",
    "HistoryPoint": "mindsport.store.values",
    "IngestResult": "mindsport.store.values",
    "LateMatchError": "mindsport.store.late",
    "LatePolicy": "mindsport.store.values",
    "LeaderboardEntry": "mindsport.store.values",
    "LeaderboardPage": "mindsport.store.values",
    "League": "mindsport.store.values",
    "PlayerRecord": "mindsport.store.values",
    "PreparedMatches": "mindsport.store.codec",
    "RoleAdvantage": "mindsport.store.values",
    "Store": "mindsport.store.facade",
    "StoreError": "mindsport.store.values",
    "prepare_matches": "mindsport.store.codec",
    "resolve_url": "mindsport.store.database",
}

lazy_exports(__name__, _EXPORTS)


__all__ = [
    "DEFAULT_DATABASE_URL",
    "CurvePoint",
    "HistoryPoint",
    "IngestResult",
    "LateMatchError",
    "LatePolicy",
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
