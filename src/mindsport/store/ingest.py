"""Writing matches: a batch checked and queued for the group commit
(:mod:`mindsport.store.commit`), then, league by league, one transaction that takes the league's
lock, sorts out identical re-posts and conflicting ids by digest, appends the new matches to the
log and brings the derived ratings up to it (rated on, or replayed after a late match, as the
league's late-result policy says: :mod:`mindsport.store.late`).

Every write is one database transaction: an error anywhere (an unknown league, a conflicting
match id, a model error on row 500 of a file) rolls back everything, including the match log.

Idempotency: a match id already in the league is ignored when the record is identical (same
normalised time, teams, ranks, weights and scores, and roles, deal and luck when given: compared
by SHA-256 digest, :mod:`mindsport.store.codec`) and refused with
:class:`~mindsport.store.values.MatchConflictError` when it differs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from mindsport.errors import DatabaseFaultError, MindsportError, NotFoundError
from mindsport.match import Match
from mindsport.store.bulk import insert_many
from mindsport.store.catchup import INLINE, START, longer_than, mark
from mindsport.store.codec import PreparedMatches, prepare_matches
from mindsport.store.commit import GroupCommitter, Reservation, WorkItem
from mindsport.store.database import Database, cursor
from mindsport.store.derive import Deriver
from mindsport.store.late import refusal
from mindsport.store.league_lock import LeagueLock, LeagueRow, Player
from mindsport.store.league_model import LeagueModels
from mindsport.store.leagues import Leagues
from mindsport.store.match_log import MATCH_INSERT, stored_digest
from mindsport.store.values import IngestResult, MatchConflictError
from mindsport.store.whole_history import WholeHistory

__all__ = ["GROUP_MATCHES", "PG_GROUP_MATCHES", "Ingest"]

#: most matches of one league one group commit takes from the queue (a larger request is that
#: league's only one in the group), on SQLite, whose one writer serves every league: a group
#: bounds how long another league's post waits
GROUP_MATCHES = 2_000
#: the same on PostgreSQL, whose leagues commit in parallel: a group delays only its own
#: league's posts, and a larger one shares the reads, the ratings' update and the commit among
#: more matches (batches of 1,000 from 6 clients: 17,000 matches/s with 2,000, 20,000 with 8,000)
PG_GROUP_MATCHES = 8_000


@dataclass(slots=True)
class _Request:
    """One caller's matches, queued for the group commit."""

    league: str
    matches: PreparedMatches
    progress: Callable[[int, int], None] | None
    create: tuple[str, Mapping[str, Any]] | None


class Ingest:
    """Takes matches into the leagues of ``db``: queues them for the group commit and commits
    each group (leagues from ``leagues``, locked by ``lock``, models built by ``models``, their
    ratings derived by ``deriver`` or, for a whole-history league, ``smoother``; ``behind`` is
    called with the name of a league a commit left to its catch-up,
    :mod:`mindsport.store.catchup`)."""

    def __init__(
        self,
        db: Database,
        leagues: Leagues,
        models: LeagueModels,
        lock: LeagueLock,
        deriver: Deriver,
        smoother: WholeHistory,
        behind: Callable[[str], None] | None = None,
    ) -> None:
        self._db = db
        self._behind = behind  # told the name of a league a commit left being brought up to date
        self._leagues = leagues
        self._models = models
        self._lock = lock
        self._deriver = deriver
        self._smoother = smoother
        # SQLite: one writer for the whole file (its lock covers every league); PostgreSQL: one
        # writer per league, in parallel
        self.committer: GroupCommitter[IngestResult] = GroupCommitter(
            self.commit_group,
            max_group_size=GROUP_MATCHES if db.is_sqlite else PG_GROUP_MATCHES,
            workers=1 if db.is_sqlite else 8,
        )

    def _domain(self, league: str) -> str | None:
        """What one writer at a time holds: the whole file on SQLite, a league on PostgreSQL."""
        return None if self._db.is_sqlite else league

    def submit(
        self,
        league: str,
        batch: Iterable[Match] | PreparedMatches,
        progress: Callable[[int, int], None] | None,
        create: tuple[str, Mapping[str, Any]] | None,
        reservation: Reservation | None,
    ) -> Future[IngestResult]:
        """Check ``batch`` and queue it for ``league``'s group commit (see
        :meth:`Store.submit_matches <mindsport.store.Store.submit_matches>`)."""
        try:
            return self._submit(league, batch, progress, create, reservation)
        finally:
            if reservation is not None:  # submitted, or refused: the place is not held any more
                self.committer.release(reservation)

    def reserve(self, league: str) -> Reservation:
        """Hold a place in ``league``'s group commit for matches still being parsed."""
        return self.committer.reserve(self._domain(league), league)

    def release(self, reservation: Reservation) -> None:
        """Give up a place held by :meth:`reserve`."""
        self.committer.release(reservation)

    def close(self) -> None:
        """Finish the queued writes and stop the writer threads."""
        self.committer.close()

    def _submit(
        self,
        league: str,
        batch: Iterable[Match] | PreparedMatches,
        progress: Callable[[int, int], None] | None,
        create: tuple[str, Mapping[str, Any]] | None,
        reservation: Reservation | None,
    ) -> Future[IngestResult]:
        prepared = batch if isinstance(batch, PreparedMatches) else prepare_matches(batch)
        made = None
        if create is not None:
            made = (create[0], self._leagues.check_new(league, create[0], create[1]))
        elif not prepared.records:
            self._leagues.get(league)
        request = _Request(league, prepared, progress, made)
        return self.committer.submit(
            WorkItem(
                domain=self._domain(league),
                part=league,
                size=max(1, len(prepared.records)),
                payload=request,
                alone=progress is not None or made is not None,
            ),
            reservation,
        )

    def commit_group(self, group: Sequence[WorkItem[IngestResult]]) -> None:
        """Commit a group of queued requests, league by league (one transaction each, the
        league with the least to write first, so a few matches of one league never wait for
        more than the batch another league has in flight), completing each request's future
        right after its league's commit.

        A request refused for its own content (a conflicting match id) is refused alone; if a
        model rejects a match, the league's transaction is rolled back and its requests are run
        one by one, each in its own transaction, so only the request holding that match fails.
        A fault of the database (:class:`~mindsport.errors.DatabaseFaultError`: unavailable, disk
        full) rolls the league's transaction back and is raised: the group committer sets it on
        the future of every request not yet committed.
        """
        parts: dict[Hashable, list[WorkItem[IngestResult]]] = {}
        for item in group:
            parts.setdefault(item.part, []).append(item)
        for items in sorted(parts.values(), key=lambda its: sum(it.size for it in its)):
            requests = [item.payload for item in items]
            outcomes: list[IngestResult | MindsportError]
            try:
                outcomes = self._ingest_league(requests)
            except DatabaseFaultError:
                raise  # not the requests' fault: each later request would meet it too
            except MindsportError as exc:
                if len(items) == 1:
                    outcomes = [exc]
                else:
                    outcomes = []
                    for r in requests:
                        try:
                            outcomes.extend(self._ingest_league([r]))
                        except MindsportError as one:
                            outcomes.append(one)
            for item, out in zip(items, outcomes, strict=True):
                if isinstance(out, BaseException):
                    item.future.set_exception(out)
                else:
                    item.future.set_result(out)

    def _ingest_league(self, requests: Sequence[_Request]) -> list[IngestResult | MindsportError]:
        """One transaction for ``requests`` (all to one league); returns each request's result
        or the error that refused it."""
        league = requests[0].league
        ids = list({mid for r in requests for mid in r.matches.records})
        names = sorted(
            {
                p
                for r in requests
                for enc in r.matches.records.values()
                for t in enc["teams"]
                for p in t
            }
        )
        with self._db.write() as conn:
            try:
                row, known, current = self._lock.lock_and_read(conn, league, ids, names)
            except NotFoundError as exc:
                made = requests[0].create  # a creating request is always alone
                if made is None:
                    return [exc for _ in requests]
                self._leagues.insert(conn, league, made[0], dict(made[1]))
                row, known, current = self._lock.lock_league(conn, league), {}, {}
            outcomes = self._ingest(conn, row, requests, known, current)
        if self._behind is not None and any(
            isinstance(o, IngestResult) and o.updating for o in outcomes
        ):
            self._behind(league)
        return outcomes

    def _ingest(
        self,
        conn: Connection,
        row: LeagueRow,
        requests: Sequence[_Request],
        known: Mapping[str, str],
        current: dict[str, Player],
    ) -> list[IngestResult | MindsportError]:
        """Append the matches of ``requests`` (in order) to the league of ``row`` (locked);
        ``known``: the digests of their ids already recorded; ``current``: the current ratings
        of their players (those that have one)."""
        lid = row.id
        model = self._models.model_for(row.model, row.params)
        cur = cursor(conn)
        accepted: dict[str, str] = {}  # new match ids of this group so far -> digest
        new: list[dict[str, Any]] = []
        per_request: list[list[dict[str, Any]] | MindsportError] = []
        seq = row.last_seq
        now = datetime.now(UTC)
        policy = row.late
        latest = row.max_time  # the league's latest time before each request (``refuse``)
        for r in requests:
            mine: list[dict[str, Any]] = []
            refused: MindsportError | None = None
            for mid, enc in r.matches.records.items():
                old = known.get(mid)
                digest = enc["digest"]
                if old is not None:
                    if old != digest and stored_digest(conn, lid, mid) != digest:
                        refused = MatchConflictError(
                            f"match {mid!r} is already recorded in league {row.name!r} "
                            "with different data",
                            mid,
                        )
                        break
                    continue
                prev = accepted.get(mid)
                if prev is not None:
                    if prev != enc["digest"]:
                        refused = MatchConflictError(
                            f"match {mid!r} was just recorded in league {row.name!r} "
                            "by a concurrent request with different data",
                            mid,
                        )
                        break
                    continue
                mine.append(enc)
            if refused is None and policy.refuse_older_than is not None:
                # a request is refused whole when one of its new matches is too old
                refused = next(
                    (x for x in (refusal(policy, row.name, enc, latest) for enc in mine) if x),
                    None,
                )
            if refused is not None:
                per_request.append(refused)
                continue
            if mine:
                newest = max(enc["time_value"] for enc in mine)
                latest = newest if latest is None else max(latest, newest)
            rows_r = []
            for enc in mine:
                seq += 1
                accepted[enc["match_id"]] = enc["digest"]
                rows_r.append({**enc, "seq": seq})
            new.extend(rows_r)
            per_request.append(rows_r)
        replayed = 0
        deferred = False
        old_max = row.max_time
        if new:
            stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f") if self._db.is_sqlite else now
            progress = requests[0].progress if len(requests) == 1 else None
            first = min(new, key=lambda r: (r["time_value"], r["seq"]))
            independent = (
                model.smoothed
                or policy.by_arrival
                or old_max is None
                or first["time_value"] >= old_max
            )
            if not independent and not model.virtual:
                # late, but maybe no recorded match comes after a new one of the same player:
                # then nothing recorded depends on the new matches and they are appended
                independent = all(
                    p not in current or current[p].last_time <= r["time_value"]
                    for r in new
                    for t in r["teams"]
                    for p in t
                )
            first_pos = (first["time_value"], first["seq"])
            # left to the catch-up (mindsport.store.catchup): everything while the league is
            # being brought up to date, and a late post that would re-rate too much
            deferred = not model.smoothed and (
                row.catchup is not None
                or (
                    not independent
                    and longer_than(
                        self._db, conn, lid, START if model.virtual else first_pos, INLINE
                    )
                )
            )
            if deferred:  # what the model refuses is this post's error, not the catch-up's
                self._deriver.check(lid, model, new, current)
            # appended matches are rated first (PostgreSQL: their history rows are streamed to
            # the server meanwhile; a match the model refuses rolls the whole group back)
            write_derived = (
                None
                if model.smoothed or deferred or not independent
                else self._deriver.append(
                    conn, lid, model, new, progress, current, policy.by_arrival
                )
            )
            insert_many(
                self._db,
                cur,
                *MATCH_INSERT,
                [
                    (
                        lid,
                        r["seq"],
                        r["match_id"],
                        r["time_value"],
                        r["time_iso"],
                        *r["json"],
                        r["deal"],
                        r["digest"],
                        stamp,
                    )
                    for r in new
                ],
            )
            latest = max(r["time_value"] for r in new)
            cur.execute(
                self._db.sql("UPDATE ms_leagues SET last_seq = ?, max_time = ? WHERE id = ?"),
                (seq, latest if old_max is None else max(old_max, latest), lid),
            )
            if write_derived is not None:
                write_derived()
            if model.smoothed:  # the past is revised in place, nothing is replayed
                self._smoother.smooth(conn, lid, model, new, progress)
            elif deferred:
                mark(self._db, conn, lid, row.catchup, first_pos, model.virtual)
            elif write_derived is None:
                new_seqs = {r["seq"] for r in new}
                rerated = self._deriver.replay(conn, lid, model, first_pos, progress, new_seqs)
                replayed = rerated - len(new)
        out: list[IngestResult | MindsportError] = []
        for r, got in zip(requests, per_request, strict=True):
            if isinstance(got, MindsportError):
                out.append(got)
                continue
            late = replayed > 0 and any(x["time_value"] < old_max for x in got)
            out.append(
                IngestResult(len(got), r.matches.size - len(got), replayed if late else 0, deferred)
            )
        return out
