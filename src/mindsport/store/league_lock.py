"""A writer's way into a league: the league's write lock, and what a writer reads under it (the
league's row, the digests of match ids already recorded, the current ratings of players).

Writers to one league are serialised, so the committed order of matches is the ``seq`` order:

* PostgreSQL: the transaction starts with ``pg_advisory_xact_lock(0x6d73, hashtext(name))`` (a
  transaction-scoped advisory lock per league name) and then reads the league row, so it sees
  the latest committed counters. Writers to the same league queue on that lock in FIFO order
  (``SELECT ... FOR UPDATE`` on the league row serialises just as well, but its waiters are
  woken all at once and race, which gave a p99 latency 3-5x worse under 20 concurrent
  clients); writers to other leagues run in parallel. Readers never wait (MVCC, READ
  COMMITTED). The lock and the reads go in one round trip.
* SQLite: ``BEGIN IMMEDIATE`` already holds the write lock of the whole file, and a FIFO lock
  per store queues its writer threads (:mod:`mindsport.store.database`). SQLite serialises all
  leagues together; that is the price of an embedded file.

So concurrent clients end with exactly the ratings of a sequential replay of the committed
order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from mindsport.errors import NotFoundError
from mindsport.store.codec import from_json_text
from mindsport.store.database import Database, chunks, cursor
from mindsport.store.league_model import PlayerState
from mindsport.store.leagues import check_league_name, stored_policy
from mindsport.store.values import LatePolicy

__all__ = ["LeagueLock", "LeagueRow", "Player"]

#: first key of the PostgreSQL advisory locks taken per league ("ms")
_LOCK_SPACE = 0x6D73


@dataclass(frozen=True, slots=True)
class LeagueRow:
    """A league's row as a writer sees it under the league's lock."""

    id: int
    name: str
    model: str
    params: dict[str, Any]
    last_seq: int
    max_time: float | None
    late: LatePolicy  # its late-result policy (mindsport.store.late)
    #: where its catch-up after a late result has got to (mindsport.store.catchup): a position
    #: (time, seq) in replay order, (None, 0) for the start of the log; None when up to date
    catchup: tuple[float | None, int] | None = None


@dataclass(slots=True)
class Player:
    """A player's current rating in a league, with his games and the time of his last match."""

    state: PlayerState
    games: int
    last_time: float


_LEAGUE_ROW_SQL = (
    "SELECT id, name, model, params, last_seq, max_time, late, late_limit, catchup_time, "
    "catchup_seq FROM ms_leagues WHERE name = ?"
)


def _league_row(row: Sequence[Any]) -> LeagueRow:
    """A league's row from the columns of :data:`_LEAGUE_ROW_SQL`."""
    params = json.loads(row[3]) if isinstance(row[3], str) else row[3]
    late = stored_policy(row[6], row[7])
    catchup = None if row[9] is None else (row[8], int(row[9]))
    return LeagueRow(int(row[0]), row[1], row[2], dict(params), int(row[4]), row[5], late, catchup)


_KNOWN_SQL = "SELECT match_id, digest FROM ms_matches WHERE league_id = "  # + id, condition

_CURRENT_SQL = (  # completed by the league id's placeholder and a condition on the player
    "SELECT player, mu, sigma, extra, games, last_time FROM ms_ratings WHERE league_id = "
)

# PostgreSQL: the same reads for a list of match ids or players given as one array (first
# parameter), the league's id given by ``{league}``. Each is looked up in its unique index one at
# a time: a LATERAL subquery with LIMIT 1 is never turned into a join. Given ``= ANY(array)`` of
# 1,000 ids, the planner reads the league's whole match log instead (10 ms at 60,000 matches,
# growing with the log, against 2 ms for the lookups).
#
# ``{league}`` is a subquery (:data:`_PG_LEAGUE_ID`, or the league's id read by its name), never
# the id as a plain value: given the value, the planner estimates the league's rows from the
# table's statistics, and for a league they do not know (made, or empty, since the last
# ANALYZE) it expects one row and may look the ids up by the primary key (league, seq) with a
# filter, reading the league's whole log for each id: 3.3 ms for 9 ids in a league of 20,000
# matches, the database's CPU per match 4 times its usual. A subquery's value is unknown when the
# plan is made, so the league is taken to be an average one and the unique index is used.
_PG_KNOWN_SQL = (
    "SELECT m.match_id, m.digest FROM unnest(%s::text[]) AS i(id), LATERAL (SELECT match_id, "
    "digest FROM ms_matches WHERE league_id = {league} AND match_id = i.id LIMIT 1) AS m"
)
_PG_CURRENT_SQL = (
    "SELECT r.player, r.mu, r.sigma, r.extra::text, r.games, r.last_time FROM "
    "unnest(%s::text[]) AS i(p), LATERAL (SELECT player, mu, sigma, extra, games, last_time "
    "FROM ms_ratings WHERE league_id = {league} AND player = i.p LIMIT 1) AS r"
)
#: a league's id given as a value, as the planner cannot see it (see above)
_PG_LEAGUE_ID = "(SELECT %s::integer)"


def _players_of(rows: Iterable[Sequence[Any]]) -> dict[str, Player]:
    """Current ratings from the rows of :data:`_CURRENT_SQL` (``extra`` as JSON text: most
    models keep none, and its text ``null`` needs no parsing)."""
    players: dict[str, Player] = {}
    for p, mu, sigma, extra, games, last_time in rows:
        if isinstance(extra, str):
            extra = from_json_text(extra)
        players[p] = Player(PlayerState(mu, sigma, extra), games, last_time)
    return players


class LeagueLock:
    """Takes the write lock of a league of ``db`` and reads under it."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._league_ids: dict[str, int] = {}  # league name -> id, as last read

    def read_league(self, conn: Connection, name: str) -> LeagueRow:
        """The league row as last committed, without its lock (:class:`NotFoundError` for an
        unknown league)."""
        check_league_name(name)
        cur = cursor(conn)
        cur.execute(self._db.sql(_LEAGUE_ROW_SQL), (name,))
        found = cur.fetchone()
        if found is None:
            raise NotFoundError(f"league {name!r} does not exist")
        return _league_row(found)

    def lock_league(self, conn: Connection, name: str) -> LeagueRow:
        """The league row, with the league's write lock held until the transaction ends
        (:meth:`lock_and_read` with nothing more to read)."""
        return self.lock_and_read(conn, name, (), ())[0]

    def lock_and_read(
        self, conn: Connection, name: str, ids: Sequence[str], names: Sequence[str]
    ) -> tuple[LeagueRow, dict[str, str], dict[str, Player]]:
        """The league row, with the league's write lock held until the transaction ends; then
        the digests of the match ids ``ids`` already recorded in the league and the current
        ratings of the players ``names`` that have one.

        PostgreSQL: a transaction-scoped advisory lock on the league's name (a FIFO queue of
        writers; other leagues are not blocked), then the reads, all in one round trip
        (pipelined; each read runs after the lock is granted, so it sees the last writer's
        commit). SQLite: ``BEGIN IMMEDIATE`` already holds the write lock.
        """
        check_league_name(name)
        if self._db.is_sqlite:
            cur = cursor(conn)
            cur.execute(self._db.sql(_LEAGUE_ROW_SQL), (name,))
            found = cur.fetchone()
            if found is None:
                raise NotFoundError(f"league {name!r} does not exist")
            row = _league_row(found)
            return row, self.known(conn, row.id, ids), self.current_of(conn, row.id, names)
        driver = conn.connection.driver_connection
        # the league's id as last seen (ids never change; checked below), not read by its name
        guess = self._league_ids.get(name)
        league_of = (
            "(SELECT id FROM ms_leagues WHERE name = %s)" if guess is None else _PG_LEAGUE_ID
        )
        key: Any = name if guess is None else guess
        # one cursor per statement: the answers are read after one sync for all of them
        lock, league, digests, ratings_now = (driver.cursor() for _ in range(4))  # type: ignore[union-attr]
        with driver.pipeline() as pipeline:  # type: ignore[union-attr]
            lock.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_SPACE, name))
            league.execute(_LEAGUE_ROW_SQL.replace("?", "%s"), (name,))
            # planned for the values given (not prepared): a generic plan made while the
            # tables are young and without statistics scans the whole league instead
            if ids:
                digests.execute(
                    _PG_KNOWN_SQL.format(league=league_of), (list(ids), key), prepare=False
                )
            if names:
                ratings_now.execute(
                    _PG_CURRENT_SQL.format(league=league_of), (list(names), key), prepare=False
                )
            pipeline.sync()
            found = league.fetchone()
            known = dict(digests.fetchall()) if ids else {}
            current = _players_of(ratings_now.fetchall()) if names else {}
        if found is None:
            self._league_ids.pop(name, None)
            raise NotFoundError(f"league {name!r} does not exist")
        row = _league_row(found)
        self._league_ids[name] = row.id
        if guess is not None and guess != row.id:  # the league was made again: read again
            return row, self.known(conn, row.id, ids), self.current_of(conn, row.id, names)
        return row, known, current

    def known(self, conn: Connection, lid: int, ids: Sequence[str]) -> dict[str, str]:
        """The digests of the match ids ``ids`` already recorded in league ``lid``."""
        cur = cursor(conn)
        if not self._db.is_sqlite:
            cur.execute(_PG_KNOWN_SQL.format(league=_PG_LEAGUE_ID), (list(ids), lid), prepare=False)
            return dict(cur.fetchall())
        known: dict[str, str] = {}
        for chunk in chunks(ids):
            cur.execute(
                self._db.sql(_KNOWN_SQL + "? AND match_id IN (" + ",".join("?" * len(chunk)) + ")"),
                (lid, *chunk),
            )
            known.update(cur.fetchall())
        return known

    def current_of(self, conn: Connection, lid: int, names: Sequence[str]) -> dict[str, Player]:
        """The current ratings of the players ``names`` that have one in league ``lid``."""
        cur = cursor(conn)
        if not self._db.is_sqlite:
            sql = _PG_CURRENT_SQL.format(league=_PG_LEAGUE_ID)
            cur.execute(sql, (list(names), lid), prepare=False)
            return _players_of(cur.fetchall())
        players: dict[str, Player] = {}
        for chunk in chunks(names):
            cur.execute(
                self._db.sql(_CURRENT_SQL + "? AND player IN (" + ",".join("?" * len(chunk)) + ")"),
                (lid, *chunk),
            )
            players.update(_players_of(cur.fetchall()))
        return players
