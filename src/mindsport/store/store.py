"""The rating store: an append-only match log per league, with ratings derived from it.

Source of truth and derived data
    Matches are only ever appended (``ms_matches``). Current ratings (``ms_ratings``) and the
    rating history (``ms_rating_history``) are a pure function of the log: the league's model
    replayed over its matches ordered by ``(time, seq)``, where ``seq`` numbers the league's
    matches in commit order. :meth:`Store.recompute` rebuilds them from scratch; a changed setting
    (:meth:`Store.update_league`) recomputes in the same transaction. A match that arrives late
    (its time earlier than the league's latest) is handled by replay as well: the derived rows from
    its position on are deleted and the suffix of the log is replayed from the ratings every
    player had just before that position (read back from the history). A match at or after the
    latest time is the special case of an empty suffix: it is applied to the current ratings.

Whole-history leagues
    A league whose model estimates skills from the whole history at once (``trueskill-history``,
    :class:`~mindsport.rating.through_time.TrueSkillThroughTime`) keeps, derived in the same
    transaction as the matches, each player's smoothed skill at his last time step
    (``ms_ratings``: leaderboard, player and predictions read it as for any league) and his whole
    smoothed curve (``ms_skill_curve``: one point per time step he played in); no per-match
    history. New results, late ones included, are added to the league's settled graph
    (:class:`~mindsport.rating.through_time.SkillHistory` ``add``: message passing re-converges
    from where it stood), and the curves and ratings of the players whose values moved are
    rewritten whole. The graph is kept in memory per league, tagged with the league's
    ``last_seq``; when that does not match the database (another process wrote, or the store
    just opened) it is rebuilt from the match log. :meth:`Store.recompute` rebuilds it from
    scratch.

Games of chance
    A match's ``roles``, ``deal`` and ``luck`` (:class:`~mindsport.match.Match`) are kept in the
    log for every league. A model whose replayer rates virtual players
    (:class:`~mindsport.store.league_model.VirtualPlayers`: ``cardplay``'s role advantages and
    duplicate deal sides) has their states kept per league in ``ms_virtual_ratings``, loaded
    before new matches are rated and written in the same transaction; a late match in such a
    league replays the whole log (every later game of the same role depends on it). Other
    models rate such a match by its teams, ranks, weights and scores only.

Transactions and concurrency
    Every write is one database transaction: an error anywhere (an unknown league, a conflicting
    match id, a model error on row 500 of a file) rolls back everything, including the match log.
    Writers to one league are serialised, so the committed order of matches is the ``seq`` order
    and concurrent clients end with exactly the ratings of a sequential replay of that order:

    * PostgreSQL: the transaction starts with ``pg_advisory_xact_lock(0x6d73, hashtext(name))``
      (a transaction-scoped advisory lock per league name) and then reads the league row, so it
      sees the latest committed counters. Writers to the same league queue on that lock in
      FIFO order (``SELECT ... FOR UPDATE`` on the league row serialises just as well, but its
      waiters are woken all at once and race, which gave a p99 latency 3-5x worse under 20
      concurrent clients); writers to other leagues run in parallel. Readers never wait (MVCC,
      READ COMMITTED).
    * SQLite: write transactions start with ``BEGIN IMMEDIATE`` (the database write lock is taken
      up front, so two writers cannot both read then both write), with WAL journaling (readers
      run during a write) and a busy timeout. Within one process a FIFO lock per :class:`Store`
      also queues writer threads fairly instead of letting them poll the busy handler. SQLite
      serialises all leagues together; that is the price of an embedded file.

    ``synchronous=NORMAL`` is used with WAL: a committed transaction survives the process being
    killed (it is in the WAL file); only an operating-system crash or power loss can lose the
    last commits. Set ``MINDSPORT_SQLITE_SYNCHRONOUS=FULL`` for that too. The WAL is copied
    back into the database file (a checkpoint) by a background thread, not by the committing
    writer (:mod:`mindsport.store.checkpoint`); the writes go through one connection of their
    own with a large page cache, which stays warm from one transaction to the next.

Idempotency
    A match id already in the league is ignored when the record is identical (same normalised
    time, teams, ranks, weights and scores, and roles, deal and luck when given: compared by
    SHA-256 digest) and refused with
    :class:`~mindsport.errors.ConflictError` when it differs. Re-posting a whole file is safe.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    func,
    select,
)
from sqlalchemy.exc import ArgumentError, DBAPIError

from mindsport.errors import DatabaseError, MindsportError, NotFoundError
from mindsport.match import Match, id_problem, text_problem
from mindsport.rating.registry import MODELS, ModelSpec
from mindsport.store.bulk import insert_many
from mindsport.store.codec import (
    MAX_ID_LENGTH,
    PreparedMatches,
    match_of,
    prepare_matches,
)
from mindsport.store.commit import GroupCommitter, Reservation, WorkItem
from mindsport.store.database import (
    DEFAULT_DATABASE_URL,
    Database,
    chunks,
    cursor,
    require_existing,
    resolve_url,
    shown_url,
    unusable,
)
from mindsport.store.derive import Deriver
from mindsport.store.keys import (
    ApiKey,
    KeyRole,
    Keys,
)
from mindsport.store.league_lock import LeagueLock, LeagueRow, Player
from mindsport.store.league_model import LeagueModel, LeagueModels, PlayerState
from mindsport.store.leagues import Leagues
from mindsport.store.match_log import (
    MATCH_INSERT,
    stored_digest,
)
from mindsport.store.migrations import open_tables
from mindsport.store.schema import (
    leagues,
    matches,
    rating_history,
    ratings,
    skill_curve,
    virtual_ratings,
)
from mindsport.store.values import (
    CurvePoint,
    HistoryPoint,
    IngestResult,
    LeaderboardEntry,
    LeaderboardPage,
    League,
    MatchConflictError,
    MatchRefusedError,
    PlayerRecord,
    RoleAdvantage,
    StoreError,
)
from mindsport.store.whole_history import WholeHistory

__all__ = [
    "DEFAULT_DATABASE_URL",
    "GROUP_MATCHES",
    "MAX_ID_LENGTH",
    "MAX_OFFSET",
    "PG_GROUP_MATCHES",
    "CurvePoint",
    "HistoryPoint",
    "IngestResult",
    "LeaderboardEntry",
    "LeaderboardPage",
    "League",
    "MatchConflictError",
    "MatchRefusedError",
    "PlayerRecord",
    "PreparedMatches",
    "RoleAdvantage",
    "Store",
    "StoreError",
    "prepare_matches",
    "resolve_url",
]

#: most matches of one league one group commit takes from the queue (a larger request is that
#: league's only one in the group), on SQLite, whose one writer serves every league: a group
#: bounds how long another league's post waits
GROUP_MATCHES = 2_000
#: the same on PostgreSQL, whose leagues commit in parallel: a group delays only its own
#: league's posts, and a larger one shares the reads, the ratings' update and the commit among
#: more matches (batches of 1,000 from 6 clients: 17,000 matches/s with 2,000, 20,000 with 8,000)
PG_GROUP_MATCHES = 8_000
#: largest leaderboard offset
MAX_OFFSET = 1_000_000_000


@dataclass(slots=True)
class _Request:
    """One caller's matches, queued for the group commit."""

    league: str
    matches: PreparedMatches
    progress: Callable[[int, int], None] | None
    create: tuple[str, Mapping[str, Any]] | None


class Store:
    """Leagues, their match logs and derived ratings in one SQL database.

    ``url``: a SQLAlchemy URL or a file path (default: ``$MINDSPORT_DATABASE_URL`` or
    ``./mindsport.db``). Tables are created when missing; with ``create=False`` (what reading
    commands use) nothing is created: the database must exist and hold mindsport's tables. A
    database that cannot be used (unreachable, login refused, not a database, a missing SQLite
    file with ``create=False``) raises :class:`~mindsport.errors.DatabaseError` naming it (the
    password hidden) and the fix. ``models``: the rating models leagues
    may use, by name (default: every model of :data:`mindsport.rating.registry.MODELS`, the
    whole-history ones included). Use as a context manager or call :meth:`close`.

    Ratings are derived by the model's replayer (:mod:`mindsport.rating.replayers`, the engine
    :func:`mindsport.history.replay` runs): every registered model with every setting, e.g.
    TrueSkill's drift and sigma floor (elapsed time from the match times: days for ``datetime``
    times, the number itself otherwise) or Glicko-2's rating periods.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        models: Mapping[str, ModelSpec] | None = None,
        create_tables: bool = True,
        create: bool = True,
    ) -> None:
        self.url = resolve_url(url)
        shown = shown_url(self.url)
        if not create:
            require_existing(self.url, shown)
        self._models = LeagueModels(MODELS if models is None else models)
        try:
            self._db = Database(self.url)
        except (ArgumentError, ImportError) as exc:
            raise unusable(shown, exc) from None
        self.engine = self._db.engine
        self.is_sqlite = self._db.is_sqlite
        self._leagues = Leagues(self._db, self._models)
        self._keys = Keys(self._db, self._leagues)
        self._lock = LeagueLock(self._db)
        smoother = WholeHistory(self._db)
        self._smoother = smoother
        self._deriver = Deriver(self._db, self._models, self._lock, smoother)
        # SQLite: one writer for the whole file (its lock covers every league); PostgreSQL: one
        # writer per league, in parallel
        self._committer: GroupCommitter[IngestResult] = GroupCommitter(
            self._commit_group,
            max_group_size=GROUP_MATCHES if self.is_sqlite else PG_GROUP_MATCHES,
            workers=1 if self.is_sqlite else 8,
        )
        try:
            open_tables(self._db, shown, create=create, create_tables=create_tables)
        except DBAPIError as exc:
            self.close()
            raise unusable(shown, exc) from None
        except DatabaseError:
            self.close()
            raise

    # -- engine and transactions --------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[Connection]:
        """One write transaction on the store's database, queued with the store's own writers
        (for the tables other parts of the package keep in it, such as events)."""
        return self._db.write()

    def snapshot(self) -> AbstractContextManager[Connection]:
        """One read transaction on the store's database."""
        return self._db.read()

    def close(self) -> None:
        """Finish queued writes and release the connection pool."""
        self._committer.close()
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- leagues -------------------------------------------------------------------------------
    def model_for(self, model: str, params: Mapping[str, Any]) -> LeagueModel:
        """The (cached) model object of a league's settings."""
        return self._models.model_for(model, params)

    def create_league(
        self, name: str, model: str = "trueskill", params: Mapping[str, Any] | None = None
    ) -> League:
        """Create a league; its settings are checked by building the model first."""
        return self._leagues.create(name, model, params)

    def ensure_league(
        self, name: str, model: str = "trueskill", params: Mapping[str, Any] | None = None
    ) -> League:
        """The league ``name``, created with the given settings when missing."""
        return self._leagues.ensure(name, model, params)

    def get_league(self, name: str) -> League:
        return self._leagues.get(name)

    def list_leagues(self) -> list[League]:
        return self._leagues.all_leagues()

    def league_model(self, name: str) -> LeagueModel:
        return self._leagues.model(name)

    def update_league(
        self, name: str, *, model: str | None = None, params: Mapping[str, Any] | None = None
    ) -> League:
        """Change a league's model or parameters and rebuild its ratings (one transaction)."""
        return self._deriver.update_league(name, model, params)

    # -- API keys ------------------------------------------------------------------------------
    def issue_key(
        self,
        league: str | None = None,
        *,
        admin: bool = False,
        expires_at: datetime | None = None,
        label: str | None = None,
    ) -> tuple[str, ApiKey]:
        """A new random key and its record: a write key of ``league``, or with ``admin=True``
        (and no league) an admin key. The key is returned once; only its SHA-256 is stored.
        ``expires_at`` (naive = UTC) must lie in the future; ``label`` is a free note (at most
        100 printable characters)."""
        return self._keys.issue(league, admin=admin, expires_at=expires_at, label=label)

    def create_key(
        self,
        league: str | None = None,
        *,
        admin: bool = False,
        expires_at: datetime | None = None,
        label: str | None = None,
    ) -> str:
        """A new key (see :meth:`issue_key`): shown once, only its SHA-256 is stored."""
        return self._keys.issue(league, admin=admin, expires_at=expires_at, label=label)[0]

    def list_keys(self, league: str | None = None) -> list[ApiKey]:
        """Every key (revoked and expired ones included), or the write keys of ``league``."""
        return self._keys.list_keys(league)

    def revoke_key(self, key_id: int) -> ApiKey:
        """Revoke key ``key_id`` (by its number in :meth:`list_keys`): it is refused from now on.
        Revoking a revoked key changes nothing."""
        return self._keys.revoke(key_id)

    def authorize(self, key: str | None, league: str | None = None) -> KeyRole:
        """The role of ``key`` when it may write to ``league`` (``None``: admin actions);
        raises :class:`~mindsport.store.keys.MissingKeyError`,
        :class:`~mindsport.store.keys.KeyRefusedError` or, for a good key and an unknown league,
        :class:`~mindsport.errors.NotFoundError` (:meth:`Keys.authorize
        <mindsport.store.keys.Keys.authorize>`)."""
        return self._keys.authorize(key, league)

    def check_key(self, league: str, key: str | None) -> bool:
        """Whether ``key`` may write to ``league`` (:class:`NotFoundError` if no such league)."""
        return self._keys.check(league, key)

    # -- writing matches -----------------------------------------------------------------------
    def add_match(self, league: str, match: Match) -> IngestResult:
        return self.add_matches(league, [match])

    def add_matches(
        self,
        league: str,
        batch: Iterable[Match] | PreparedMatches,
        *,
        progress: Callable[[int, int], None] | None = None,
        create: tuple[str, Mapping[str, Any]] | None = None,
    ) -> IngestResult:
        """Append matches to ``league`` in one transaction and update the derived ratings.

        Identical re-posts are ignored; a match id recorded with different data raises
        :class:`ConflictError` and nothing of the batch is written. ``progress(done, total)`` is
        called while matches are rated. With ``create=(model, params)`` a missing league is
        created in the same transaction (so a refused batch leaves no empty league behind).

        Concurrent calls are committed together (:mod:`mindsport.store.commit`); each returns
        once its own matches are committed.
        """
        return self.submit_matches(league, batch, progress=progress, create=create).result()

    def submit_matches(
        self,
        league: str,
        batch: Iterable[Match] | PreparedMatches,
        *,
        progress: Callable[[int, int], None] | None = None,
        create: tuple[str, Mapping[str, Any]] | None = None,
        reservation: Reservation | None = None,
    ) -> Future[IngestResult]:
        """:meth:`add_matches` without waiting: the matches are checked here (bad input raises
        at once; a :class:`PreparedMatches` was checked when it was made) and queued for the
        group commit; the future completes after the commit. ``reservation``: the place
        :meth:`reserve_matches` held for them, given up if they are refused here."""
        try:
            return self._submit(league, batch, progress, create, reservation)
        finally:
            if reservation is not None:  # submitted, or refused: the place is not held any more
                self._committer.release(reservation)

    def reserve_matches(self, league: str) -> Reservation:
        """Hold a place in ``league``'s group commit for matches still being parsed (a large
        post): a commit about to start waits briefly for the oldest such place, so posts that
        concurrent clients sent together are committed together, whatever order they arrived
        in, and nothing is re-rated for it. Pass the place to :meth:`submit_matches`, or to
        :meth:`release_matches` when nothing will be submitted."""
        return self._committer.reserve(None if self.is_sqlite else league, league)

    def release_matches(self, reservation: Reservation) -> None:
        """Give up a place held by :meth:`reserve_matches` (submitted ones are given up
        already)."""
        self._committer.release(reservation)

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
        return self._committer.submit(
            WorkItem(
                domain=None if self.is_sqlite else league,
                part=league,
                size=max(1, len(prepared.records)),
                payload=request,
                alone=progress is not None or made is not None,
            ),
            reservation,
        )

    def _commit_group(self, group: Sequence[WorkItem[IngestResult]]) -> None:
        """Commit a group of queued requests, league by league (one transaction each, the
        league with the least to write first, so a few matches of one league never wait for
        more than the batch another league has in flight), completing each request's future
        right after its league's commit.

        A request refused for its own content (a conflicting match id) is refused alone; if a
        model rejects a match, the league's transaction is rolled back and its requests are run
        one by one, each in its own transaction, so only the request holding that match fails.
        """
        parts: dict[Hashable, list[WorkItem[IngestResult]]] = {}
        for item in group:
            parts.setdefault(item.part, []).append(item)
        for items in sorted(parts.values(), key=lambda its: sum(it.size for it in its)):
            requests = [item.payload for item in items]
            outcomes: list[IngestResult | MindsportError]
            try:
                outcomes = self._ingest_league(requests)
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
            return self._ingest(conn, row, requests, known, current)

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
            if refused is not None:
                per_request.append(refused)
                continue
            rows_r = []
            for enc in mine:
                seq += 1
                accepted[enc["match_id"]] = enc["digest"]
                rows_r.append({**enc, "seq": seq})
            new.extend(rows_r)
            per_request.append(rows_r)
        replayed = 0
        old_max = row.max_time
        if new:
            stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f") if self.is_sqlite else now
            progress = requests[0].progress if len(requests) == 1 else None
            first = min(new, key=lambda r: (r["time_value"], r["seq"]))
            independent = model.smoothed or old_max is None or first["time_value"] >= old_max
            if not independent and not model.virtual:
                # late, but maybe no recorded match comes after a new one of the same player:
                # then nothing recorded depends on the new matches and they are appended
                independent = all(
                    p not in current or current[p].last_time <= r["time_value"]
                    for r in new
                    for t in r["teams"]
                    for p in t
                )
            # appended matches are rated first (PostgreSQL: their history rows are streamed to
            # the server meanwhile; a match the model refuses rolls the whole group back)
            write_derived = (
                None
                if model.smoothed or not independent
                else self._deriver.append(conn, lid, model, new, progress, current)
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
            elif write_derived is None:
                pos = (first["time_value"], first["seq"])
                new_seqs = {r["seq"] for r in new}
                rerated = self._deriver.replay(conn, lid, model, pos, progress, new_seqs)
                replayed = rerated - len(new)
        out: list[IngestResult | MindsportError] = []
        for r, got in zip(requests, per_request, strict=True):
            if isinstance(got, MindsportError):
                out.append(got)
                continue
            late = replayed > 0 and any(x["time_value"] < old_max for x in got)
            out.append(IngestResult(len(got), r.matches.size - len(got), replayed if late else 0))
        return out

    # -- deriving ratings ----------------------------------------------------------------------
    def recompute(
        self, league: str | None = None, *, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, int]:
        """Rebuild ratings and history from the match log (one league, or each league in turn).

        Returns the number of matches replayed per league.
        """
        names = [league] if league is not None else [lg.name for lg in self.list_leagues()]
        return self._deriver.recompute(names, progress)

    # -- reading -------------------------------------------------------------------------------
    def matches(self, league: str) -> list[Match]:
        """The league's match log in rating order (time, then commit sequence)."""
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            rows = conn.execute(
                select(matches)
                .where(matches.c.league_id == lid)
                .order_by(matches.c.time_value, matches.c.seq)
            ).all()
        return [match_of(r._mapping) for r in rows]

    def match_count(self, league: str) -> int:
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            return int(
                conn.execute(
                    select(func.count()).select_from(matches).where(matches.c.league_id == lid)
                ).scalar_one()
            )

    def states(self, league: str, players: Iterable[str] | None = None) -> dict[str, PlayerState]:
        """Current rating state of every rated player (or of the given ones that are rated)."""
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            q = select(ratings).where(ratings.c.league_id == lid)
            if players is None:
                rows = list(conn.execute(q))
            else:
                rows = []
                for chunk in chunks(sorted(set(players))):
                    rows.extend(conn.execute(q.where(ratings.c.player.in_(chunk))))
        return {r.player: PlayerState(r.mu, r.sigma, r.extra) for r in rows}

    def ratings(self, league: str) -> dict[str, Any]:
        """Current ratings as the model's own values (e.g. ``Rating(mu, sigma)``)."""
        lm = self.league_model(league)
        return {p: lm.to_rating(s) for p, s in self.states(league).items()}

    def _ranked(self, lid: int) -> Any:
        r = ratings.c
        return (
            select(
                r.player,
                r.mu,
                r.sigma,
                r.exposed,
                r.games,
                func.row_number().over(order_by=(r.exposed.desc(), r.player.asc())).label("rank"),
            )
            .where(r.league_id == lid)
            .subquery()
        )

    def leaderboard(
        self, league: str, *, offset: int = 0, limit: int = 50, search: str | None = None
    ) -> LeaderboardPage:
        """Players by conservative rating (``exposed``, best first), with their overall rank.

        ``search`` keeps players whose id contains it (case-insensitive); ranks stay overall.
        """
        if not 0 <= offset <= MAX_OFFSET:
            raise StoreError(f"offset must lie in [0, {MAX_OFFSET}], got {offset}")
        if not 1 <= limit <= MAX_OFFSET:
            raise StoreError(f"limit must lie in [1, {MAX_OFFSET}], got {limit}")
        if search is not None:
            why = text_problem(search)
            if why is not None:
                raise StoreError(f"search {search[:40]!r} {why}")
        with self._db.read() as conn:
            found = conn.execute(
                select(leagues.c.id, leagues.c.model).where(leagues.c.name == league)
            ).first()
            if found is None:
                raise NotFoundError(f"league {league!r} does not exist")
            lid, model_name = int(found.id), found.model
            ranked = self._ranked(lid)
            cond = ranked.c.player.icontains(search, autoescape=True) if search else None
            base = select(ranked)
            count = select(func.count()).select_from(ranked)
            if cond is not None:
                base = base.where(cond)
                count = count.where(cond)
            total = int(conn.execute(count).scalar_one())
            rows = conn.execute(base.order_by(ranked.c.rank).offset(offset).limit(limit)).all()
            v = virtual_ratings.c
            roles = tuple(
                RoleAdvantage(r.name, float(r.mu), float(r.sigma))
                for r in conn.execute(
                    select(v.name, v.mu, v.sigma)
                    .where(v.league_id == lid, v.kind == "role")
                    .order_by(v.name)
                )
            )
        entries = [
            LeaderboardEntry(int(r.rank), r.player, r.mu, r.sigma, r.exposed, r.games) for r in rows
        ]
        spec = self._models.specs.get(model_name)
        return LeaderboardPage(
            league, total, offset, limit, entries, None if spec is None else spec.display, roles
        )

    def player(self, league: str, player: str, *, history: bool = True) -> PlayerRecord:
        """A player's current rating, overall rank and rating after each of their matches."""
        why = id_problem(player)
        if why is not None:
            raise StoreError(f"player id {player[:40]!r} {why}")
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            ranked = self._ranked(lid)
            row = conn.execute(select(ranked).where(ranked.c.player == player)).first()
            if row is None:
                raise NotFoundError(f"player {player!r} has no rating in league {league!r}")
            extra = conn.execute(
                select(ratings.c.extra).where(
                    ratings.c.league_id == lid, ratings.c.player == player
                )
            ).scalar()
            points: list[HistoryPoint] = []
            curve: list[CurvePoint] = []
            if history:
                h, m = rating_history.c, matches.c
                q = (
                    select(m.match_id, h.seq, h.time_value, h.mu, h.sigma)
                    .join_from(
                        rating_history,
                        matches,
                        and_(m.league_id == h.league_id, m.seq == h.seq),
                    )
                    .where(h.league_id == lid, h.player == player)
                    .order_by(h.time_value, h.seq)
                )
                points = [
                    HistoryPoint(r.match_id, r.seq, r.time_value, r.mu, r.sigma)
                    for r in conn.execute(q)
                ]
                c = skill_curve.c
                curve = [
                    CurvePoint(r.time_value, r.mu, r.sigma)
                    for r in conn.execute(
                        select(c.time_value, c.mu, c.sigma)
                        .where(c.league_id == lid, c.player == player)
                        .order_by(c.time_value)
                    )
                ]
        return PlayerRecord(
            league,
            player,
            int(row.rank),
            PlayerState(row.mu, row.sigma, extra),
            row.exposed,
            row.games,
            points,
            curve,
        )

    def team_states(
        self, league: str, teams: Sequence[Sequence[str]], *, allow_new: bool = False
    ) -> tuple[LeagueModel, list[list[PlayerState]]]:
        """The model and the current states of ``teams`` (new players: the model's prior)."""
        lm = self.league_model(league)
        wanted = [p for t in teams for p in t]
        known = self.states(league, wanted)
        missing = [p for p in wanted if p not in known]
        if missing and not allow_new:
            raise NotFoundError(
                f"unknown player{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(p) for p in missing)} in league {league!r}"
            )
        init = lm.initial()
        return lm, [[known.get(p, init) for p in t] for t in teams]
