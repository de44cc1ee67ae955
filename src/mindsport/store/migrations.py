"""Bringing a database up to today's tables: creating what is missing, and upgrading the tables
of earlier versions in place (their data kept).

What changed over the versions (the tables themselves are :mod:`mindsport.store.schema`):

* API keys gained roles (write, admin), labels and expiry: an old key table is rebuilt, its keys
  kept as write keys of their leagues.
* The match log gained the columns ``roles``, ``deal`` and ``luck`` (null in older rows).
* Current ratings gained the column ``search_key`` (what the leaderboard's search compares,
  :func:`mindsport.match.search_key`), computed in Python for the rows already there. Ids
  themselves are kept as stored: no id is rewritten to NFC (two stored spellings of one id
  would have to merge, and their leagues be rated again).
* Leagues gained their policy for late results (``late``, ``late_limit``): the leagues already
  there get ``replay``, what every league did before (:mod:`mindsport.store.late`). Then what
  their numeric times mean (``time_unit``): the leagues already there get ``number`` (not said).
* Leagues gained the position of their catch-up after a late result (``catchup_time``,
  ``catchup_seq``: :mod:`mindsport.store.catchup`), null (up to date) in the leagues already
  there.
* Events gained the forfeits of their bot entrants (``ms_event_forfeits``) and the log of
  their undos and corrections (``ms_event_log``), created empty in the databases already there.
* PostgreSQL: the foreign keys from the match log and the derived tables to the league table,
  the row number column ``id`` of the match log and the rating history, and the index
  :data:`~mindsport.store.schema.DROPPED_INDEXES` are dropped (the schema's text says why).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, insert, inspect, select, text, update

from mindsport.errors import DatabaseError
from mindsport.match import search_key
from mindsport.store.database import Database
from mindsport.store.keys import KeyRole, as_time
from mindsport.store.schema import (
    DROPPED_INDEXES,
    LEAGUE_DATA,
    SURROGATE_ID_TABLES,
    api_keys,
    leagues,
    matches,
    metadata,
    ratings,
)

__all__ = ["open_tables", "upgrade"]

#: columns later versions added to the match log, with their SQL types
_MATCH_COLUMNS = (("roles", "JSON"), ("deal", "VARCHAR(200)"), ("luck", "JSON"))
#: columns later versions added to the league table, with their SQL types and defaults
_LEAGUE_COLUMNS = (
    ("late", "VARCHAR(16) NOT NULL DEFAULT 'replay'"),
    ("late_limit", "DOUBLE PRECISION"),
    ("catchup_time", "DOUBLE PRECISION"),
    ("catchup_seq", "INTEGER"),
    ("time_unit", "VARCHAR(16) NOT NULL DEFAULT 'number'"),
)


def _upgrade_key_table(conn: Connection) -> None:
    """Bring an API key table written by an earlier version (write keys only, no expiry) to
    today's columns: its keys stay valid as write keys of their leagues."""
    columns = {c["name"] for c in inspect(conn).get_columns(api_keys.name)}
    if "role" in columns:
        return
    old = [dict(r._mapping) for r in conn.execute(text(f"SELECT * FROM {api_keys.name}"))]
    conn.execute(text(f"DROP TABLE {api_keys.name}"))
    api_keys.create(conn)
    for r in old:
        conn.execute(
            insert(api_keys).values(
                id=r["id"],
                league_id=r["league_id"],
                role=KeyRole.WRITE.value,
                key_hash=r["key_hash"],
                prefix=r["prefix"],
                label=None,
                created_at=as_time(r["created_at"]),
                expires_at=None,
                revoked_at=None,
            )
        )


def _upgrade_match_table(conn: Connection) -> None:
    """Add the columns of roles, deal and luck to a match log written by an earlier version
    (its matches keep null there: they carried none). Inside the caller's transaction."""
    columns = {c["name"] for c in inspect(conn).get_columns(matches.name)}
    for name, sql_type in _MATCH_COLUMNS:
        if name not in columns:
            conn.execute(text(f"ALTER TABLE {matches.name} ADD COLUMN {name} {sql_type}"))


def _upgrade_league_table(conn: Connection) -> None:
    """Add the late-result policy and the time unit to the league table of an earlier version:
    its leagues get ``replay`` (what they did), without an age limit, and the time unit
    ``number``. Inside the caller's transaction."""
    columns = {c["name"] for c in inspect(conn).get_columns(leagues.name)}
    for name, sql_type in _LEAGUE_COLUMNS:
        if name not in columns:
            conn.execute(text(f"ALTER TABLE {leagues.name} ADD COLUMN {name} {sql_type}"))


def _upgrade_rating_table(conn: Connection) -> None:
    """Add the search key column to the current ratings of an earlier version and fill it for
    every row (in Python: SQL's case functions differ between the databases). Inside the
    caller's transaction."""
    columns = {c["name"] for c in inspect(conn).get_columns(ratings.name)}
    if "search_key" in columns:
        return
    conn.execute(text(f"ALTER TABLE {ratings.name} ADD COLUMN search_key TEXT"))
    r = ratings.c
    rows = [
        {"lid": lid, "p": player, "k": search_key(player)}
        for lid, player in conn.execute(select(r.league_id, r.player))
    ]
    if rows:
        conn.execute(
            update(ratings)
            .where(r.league_id == bindparam("lid"), r.player == bindparam("p"))
            .values(search_key=bindparam("k")),
            rows,
        )


def _league_keys(conn: Connection) -> list[tuple[str, str]]:
    """The foreign keys to the league table (table, constraint name) that earlier versions put
    on the match log and the derived tables; :data:`mindsport.store.schema.LEAGUE_DATA` says
    why today's have none. PostgreSQL only: SQLite cannot drop a constraint without rebuilding
    the table, and checks one in-process, at the cost of an index lookup per row."""
    if conn.dialect.name == "sqlite":
        return []
    found = inspect(conn)
    return [
        (table, key["name"])
        for table in LEAGUE_DATA
        if found.has_table(table)
        for key in found.get_foreign_keys(table)
        if key["referred_table"] == leagues.name and key["name"]
    ]


def _surrogate_ids(conn: Connection) -> list[str]:
    """The tables of :data:`SURROGATE_ID_TABLES` that still have the row number column ``id``
    earlier versions gave them (PostgreSQL only: SQLite cannot drop a primary key column, and
    there the column is the table's row number, which costs nothing)."""
    if conn.dialect.name == "sqlite":
        return []
    found = inspect(conn)
    return [
        t
        for t in SURROGATE_ID_TABLES
        if found.has_table(t) and "id" in {c["name"] for c in found.get_columns(t)}
    ]


def _dropped_indexes(conn: Connection) -> list[str]:
    """The indexes of :data:`DROPPED_INDEXES` that a database of an earlier version still has."""
    found = inspect(conn)
    return [
        name
        for table, names in DROPPED_INDEXES.items()
        if found.has_table(table)
        for name in names
        if name in {i["name"] for i in found.get_indexes(table)}
    ]


def upgrade(conn: Connection) -> None:
    """Create missing tables and bring tables of earlier versions up to today's columns,
    constraints and indexes."""
    metadata.create_all(conn)
    _upgrade_key_table(conn)
    _upgrade_match_table(conn)
    _upgrade_league_table(conn)
    _upgrade_rating_table(conn)
    for table, key in _league_keys(conn):
        conn.execute(text(f'ALTER TABLE {table} DROP CONSTRAINT "{key}"'))
    for table in _surrogate_ids(conn):  # its primary key (and sequence) go with it
        conn.execute(text(f"ALTER TABLE {table} DROP COLUMN id"))
    for name in _dropped_indexes(conn):
        conn.execute(text(f"DROP INDEX {name}"))


def _stale(conn: Connection, found: Any) -> bool:
    """Whether the mindsport tables seen by ``found`` (an inspector on ``conn``) are of an
    earlier version."""
    return (
        any(not found.has_table(t.name) for t in metadata.sorted_tables)
        or "role" not in {c["name"] for c in found.get_columns(api_keys.name)}
        or not {n for n, _ in _MATCH_COLUMNS}
        <= {c["name"] for c in found.get_columns(matches.name)}
        or not {n for n, _ in _LEAGUE_COLUMNS}
        <= {c["name"] for c in found.get_columns(leagues.name)}
        or "search_key" not in {c["name"] for c in found.get_columns(ratings.name)}
        or bool(_league_keys(conn))
        or bool(_surrogate_ids(conn))
        or bool(_dropped_indexes(conn))
    )


def open_tables(db: Database, shown: str, *, create: bool, create_tables: bool) -> None:
    """Make ``db`` (named ``shown`` in messages) ready: with ``create``, create missing tables
    and upgrade old ones (unless not ``create_tables``); without, require mindsport's tables
    (:class:`DatabaseError` when there are none) and upgrade them if they are of an earlier
    version."""
    if create and create_tables:
        with db.write() as conn:
            upgrade(conn)
    elif not create:
        with db.read() as conn:
            found = inspect(conn)
            if not found.has_table(leagues.name):
                raise DatabaseError(
                    f"database {shown} holds no mindsport data (no leagues table); "
                    "check --db, or add matches first: mindsport rate FILE"
                )
            stale = _stale(conn, found)
        if stale:  # a mindsport database of an earlier version: bring its tables up
            with db.write() as conn:
                upgrade(conn)
