"""Replacing a set of recorded matches of a league in one transaction, then re-rating it.

The match log is append-only for results as they arrive (:mod:`mindsport.store.ingest`): a
match id recorded once is never changed by a post. A result that turns out wrong after it went
into a league -- a director correcting a finished event (:mod:`mindsport.event`) -- is
replaced here instead: in one write transaction, holding the league's write lock, the given
match ids are deleted from the log, the new matches appended (new sequence numbers: they
arrive now), and the league's ratings rebuilt from the whole log (a replay from the start, as
:meth:`~mindsport.store.Store.recompute`; a catch-up in progress is superseded by it). Readers
see the league before or after, never between, and the ratings equal a replay of the log as it
now stands: the league as if the corrected matches had been recorded in the first place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from sqlalchemy import Connection, delete, func, select

from mindsport.match import Match
from mindsport.store.bulk import insert_many
from mindsport.store.codec import prepare_matches
from mindsport.store.database import Database, chunks, cursor
from mindsport.store.derive import Deriver
from mindsport.store.league_lock import LeagueLock
from mindsport.store.league_model import LeagueModels
from mindsport.store.match_log import MATCH_INSERT
from mindsport.store.schema import matches as match_log

__all__ = ["Replacer"]


class Replacer:
    """Replaces recorded matches of a league (see the module text)."""

    def __init__(self, db: Database, models: LeagueModels, lock: LeagueLock, deriver: Deriver):
        self._db = db
        self._models = models
        self._lock = lock
        self._deriver = deriver

    def replace(
        self, conn: Connection, league: str, remove: Sequence[str], add: Iterable[Match]
    ) -> int:
        """In the write transaction ``conn``: delete the matches ``remove`` (ids; those not
        recorded are skipped) and any recorded match with the id of a new one, append ``add``
        and re-rate the league from the start. Returns the number of matches deleted."""
        prepared = prepare_matches(add)
        row = self._lock.lock_league(conn, league)
        lid = row.id
        gone = 0
        ids = sorted(set(remove) | set(prepared.records))
        for part in chunks(ids):
            done = conn.execute(
                delete(match_log).where(
                    match_log.c.league_id == lid, match_log.c.match_id.in_(list(part))
                )
            )
            gone += done.rowcount
        seq = row.last_seq
        now = datetime.now(UTC)
        stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f") if self._db.is_sqlite else now
        rows = []
        for enc in prepared.records.values():
            seq += 1
            rows.append(
                (
                    lid,
                    seq,
                    enc["match_id"],
                    enc["time_value"],
                    enc["time_iso"],
                    *enc["json"],
                    enc["deal"],
                    enc["digest"],
                    stamp,
                )
            )
        cur = cursor(conn)
        if rows:
            insert_many(self._db, cur, *MATCH_INSERT, rows)
        latest = conn.execute(
            select(func.max(match_log.c.time_value)).where(match_log.c.league_id == lid)
        ).scalar()
        cur.execute(
            self._db.sql("UPDATE ms_leagues SET last_seq = ?, max_time = ? WHERE id = ?"),
            (seq, latest, lid),
        )
        model = self._models.model_for(row.model, row.params)
        self._deriver.replay(conn, lid, model, None, by_arrival=row.late.by_arrival)
        return gone
