"""A league's match log in SQL: the insert of new rows, the log read back in replay order (from a
position on), a recorded match's digest, and the statements of the rows derived from it (the
upsert of current ratings, deleting every derived row).

The rows are in their stored form (:mod:`mindsport.store.codec`); the log is append-only and
the source of truth: ratings, rating history, virtual players and skill curves are derived from
it (:mod:`mindsport.store.derive`, :mod:`mindsport.store.whole_history`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import JSON, Connection, delete, select

from mindsport.store.codec import digest, from_json_text
from mindsport.store.database import Database, cursor
from mindsport.store.schema import (
    matches,
    rating_history,
    ratings,
    ratings_pending,
    skill_curve,
    virtual_pending,
    virtual_ratings,
)

__all__ = [
    "FROM_POSITION",
    "MATCH_INSERT",
    "RATINGS_UPSERT",
    "clear_derived",
    "read_log",
    "stored_digest",
]

#: the insert of match log rows (:func:`mindsport.store.bulk.insert_many`'s head and row)
MATCH_INSERT = (
    "INSERT INTO ms_matches (league_id, seq, match_id, time_value, time_iso, teams, ranks, "
    "weights, scores, roles, luck, deal, digest, created_at)",
    "(?, ?, ?, ?, ?, JSON(?), JSON(?), JSON(?), JSON(?), JSON(?), JSON(?), ?, ?, ?)",
)

#: the insert-or-update of players' current ratings (:func:`mindsport.store.bulk.insert_many`'s
#: head, row and tail): rows ``(league_id, player, mu, sigma, extra JSON text, exposed, games,
#: last_time, search key)``, the search key :func:`mindsport.match.search_key` of the player
RATINGS_UPSERT = (
    "INSERT INTO ms_ratings (league_id, player, mu, sigma, extra, exposed, games, last_time, "
    "search_key)",
    "(?, ?, ?, ?, JSON(?), ?, ?, ?, ?)",
    " ON CONFLICT (league_id, player) DO UPDATE SET mu = excluded.mu, "
    "sigma = excluded.sigma, extra = excluded.extra, exposed = excluded.exposed, "
    "games = excluded.games, last_time = excluded.last_time, search_key = excluded.search_key",
)

#: the match log's columns a replay reads, in order; the JSON ones are read as text
_REPLAY_NAMES = (
    "match_id", "seq", "time_value", "time_iso", "teams", "ranks", "weights", "scores", "roles",
    "deal", "luck",
)  # fmt: skip
_JSON_COLUMNS = frozenset(c.name for c in matches.c if isinstance(c.type, JSON))
_REPLAY_SQL = (
    "SELECT "
    + ", ".join(f"CAST({n} AS TEXT)" if n in _JSON_COLUMNS else n for n in _REPLAY_NAMES)
    + " FROM ms_matches WHERE league_id = ?"
)
#: rows at or after a position (time, seq) in replay order, given as (time, time, seq); the
#: first condition bounds the index range on time
FROM_POSITION = " AND time_value >= ? AND (time_value > ? OR seq >= ?)"
_REPLAY_ORDER = " ORDER BY time_value, seq"
#: the order of a league that rates matches as they arrive (late-result policy ``arrival``)
_ARRIVAL_ORDER = " ORDER BY seq"
_REPLAY_IS_JSON = tuple(n in _JSON_COLUMNS for n in _REPLAY_NAMES)


def _log_row(values: Sequence[Any]) -> dict[str, Any]:
    """A replay row (:data:`_REPLAY_SQL`) by column name, its JSON parsed
    (:func:`~mindsport.store.codec.from_json_text`)."""
    return {
        name: from_json_text(v) if is_json else v
        for name, is_json, v in zip(_REPLAY_NAMES, _REPLAY_IS_JSON, values, strict=True)
    }


def read_log(
    db: Database,
    conn: Connection,
    lid: int,
    pos: tuple[float, int] | None,
    by_arrival: bool = False,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """League ``lid``'s match log in replay order (time, then seq), from ``pos`` = (time, seq)
    on (``None``: all of it), as dicts of the stored columns; with ``by_arrival`` all of it in
    arrival order (seq: a league whose late-result policy is ``arrival``). Read through the
    driver: a replay after a late match reads thousands of rows, and the general row objects
    and the driver's own JSON parse of every column (nulls included) cost more than the
    replay. ``limit``: at most that many rows (the first ones in that order)."""
    sql = _REPLAY_SQL
    args: list[Any] = [lid]
    if pos is not None and not by_arrival:
        sql += FROM_POSITION
        args += [pos[0], pos[0], pos[1]]
    cur = cursor(conn)
    sql += _ARRIVAL_ORDER if by_arrival else _REPLAY_ORDER
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    cur.execute(db.sql(sql), args)
    return [_log_row(r) for r in cur.fetchall()]


def stored_digest(conn: Connection, lid: int, match_id: str) -> str | None:
    """The digest of a recorded match in today's canonical form (rows written by earlier
    versions carry a digest of another form)."""
    m = matches.c
    row = conn.execute(
        select(m.time_value, m.teams, m.ranks, m.weights, m.scores, m.roles, m.deal, m.luck).where(
            m.league_id == lid, m.match_id == match_id
        )
    ).first()
    if row is None:
        return None
    return digest(
        row.time_value, row.teams, row.ranks, row.weights, row.scores,
        row.roles, row.deal, row.luck,
    )  # fmt: skip


def clear_derived(conn: Connection, lid: int) -> None:
    """Delete every derived row of league ``lid`` (what any model keeps, and what a catch-up
    after a late result has staged)."""
    derived = (rating_history, ratings, virtual_ratings, skill_curve)
    for table in (*derived, ratings_pending, virtual_pending):
        conn.execute(delete(table).where(table.c.league_id == lid))
