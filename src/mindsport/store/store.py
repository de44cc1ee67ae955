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

import json
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import (
    Connection,
    and_,
    delete,
    func,
    select,
    true,
    update,
)
from sqlalchemy.exc import ArgumentError, DBAPIError

from mindsport.errors import DatabaseError, MindsportError, NotFoundError
from mindsport.match import Match, id_problem, text_problem, time_value
from mindsport.rating.batch import DAY, PlayerIndex, encode_columns
from mindsport.rating.registry import MODELS, ModelSpec
from mindsport.rating.trueskill import ConvergenceError
from mindsport.store.bulk import copy_rows, insert_many
from mindsport.store.codec import (
    MAX_ID_LENGTH,
    PreparedMatches,
    canonical_json,
    from_json_text,
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
from mindsport.store.keys import (
    ApiKey,
    KeyRole,
    Keys,
)
from mindsport.store.league_model import LeagueModel, LeagueModels, PlayerState
from mindsport.store.leagues import Leagues, check_league_name
from mindsport.store.match_log import (
    FROM_POSITION,
    MATCH_INSERT,
    clear_derived,
    read_log,
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

#: matches rated per block when a league replays its log
_REPLAY_CHUNK = 20_000
#: PostgreSQL: matches rated per block when new matches are appended, each block's history
#: rows streamed to the server while the next is rated
_STREAM_BLOCK = 250
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
#: first key of the PostgreSQL advisory locks taken per league ("ms")
_LOCK_SPACE = 0x6D73


@dataclass(frozen=True, slots=True)
class _LeagueRow:
    """A league's row as a writer sees it under the league's lock."""

    id: int
    name: str
    model: str
    params: dict[str, Any]
    last_seq: int
    max_time: float | None


_LEAGUE_ROW_SQL = (
    "SELECT id, name, model, params, last_seq, max_time FROM ms_leagues WHERE name = ?"
)


def _league_row(row: Sequence[Any]) -> _LeagueRow:
    """A league's row from the columns of :data:`_LEAGUE_ROW_SQL`."""
    params = json.loads(row[3]) if isinstance(row[3], str) else row[3]
    return _LeagueRow(int(row[0]), row[1], row[2], dict(params), int(row[4]), row[5])


_KNOWN_SQL = "SELECT match_id, digest FROM ms_matches WHERE league_id = "  # + id, condition

_CURRENT_SQL = (  # completed by the league id's placeholder and a condition on the player
    "SELECT player, mu, sigma, extra, games, last_time FROM ms_ratings WHERE league_id = "
)

# PostgreSQL: the same reads for a list of match ids or players given as one array (first
# parameter), the league's id given by ``{league}``. Each is looked up in its unique index one at
# a time: a LATERAL subquery with LIMIT 1 is never turned into a join. Given ``= ANY(array)`` of
# 1,000 ids, the planner reads the league's whole match log instead (10 ms at 60,000 matches,
# growing with the log, against 2 ms for the lookups).
_PG_KNOWN_SQL = (
    "SELECT m.match_id, m.digest FROM unnest(%s::text[]) AS i(id), LATERAL (SELECT match_id, "
    "digest FROM ms_matches WHERE league_id = {league} AND match_id = i.id LIMIT 1) AS m"
)
_PG_CURRENT_SQL = (
    "SELECT r.player, r.mu, r.sigma, r.extra::text, r.games, r.last_time FROM "
    "unnest(%s::text[]) AS i(p), LATERAL (SELECT player, mu, sigma, extra, games, last_time "
    "FROM ms_ratings WHERE league_id = {league} AND player = i.p LIMIT 1) AS r"
)


def _players_of(rows: Iterable[Sequence[Any]]) -> dict[str, _Player]:
    """Current ratings from the rows of :data:`_CURRENT_SQL` (``extra`` as JSON text: most
    models keep none, and its text ``null`` needs no parsing)."""
    players: dict[str, _Player] = {}
    for p, mu, sigma, extra, games, last_time in rows:
        if isinstance(extra, str):
            extra = from_json_text(extra)
        players[p] = _Player(PlayerState(mu, sigma, extra), games, last_time)
    return players


_HISTORY_INSERT = (
    "INSERT INTO ms_rating_history (league_id, player, seq, time_value, mu, sigma, extra, games)",
    "(?, ?, ?, ?, ?, ?, JSON(?), ?)",
)


def _occurrence(codes: Any) -> Any:
    """For each entry of the integer array ``codes``, how many equal entries come before it."""
    order = np.argsort(codes, kind="stable")
    ranked = codes[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    within = np.arange(len(codes)) - np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    out = np.empty(len(codes), dtype=np.int64)
    out[order] = within
    return out


@dataclass(slots=True)
class _Request:
    """One caller's matches, queued for the group commit."""

    league: str
    matches: PreparedMatches
    progress: Callable[[int, int], None] | None
    create: tuple[str, Mapping[str, Any]] | None


#: a player's history rows from a position on (:data:`FROM_POSITION`), by the history's key
_HISTORY_DELETE_FROM = "DELETE FROM ms_rating_history WHERE league_id = ? AND player = ?" + (
    FROM_POSITION
)


@dataclass(slots=True)
class _Player:
    state: PlayerState
    games: int
    last_time: float


#: a stored skill curve: its times (on the match log's axis), means and deviations
_Curve = tuple[tuple[float, ...], Any, Any]


@dataclass(slots=True)
class _Smoothed:
    """A whole-history league's settled graph (``history``, a
    :class:`~mindsport.rating.through_time.SkillHistory`) of its match log up to ``last_seq``,
    with what the database holds of it: each player's curve, games and last match time."""

    last_seq: int
    history: Any
    curves: dict[str, _Curve]
    games: dict[str, int]
    last_time: dict[str, float]


def _unsettled(model: LeagueModel, exc: ConvergenceError) -> StoreError:
    """A post refused because the league's whole-history model did not settle within the
    league's own limit on sweeps (a setting of the league, so a refusal, not a crash)."""
    return StoreError(
        f"league model {model.name!r} {model.params}: {exc}; nothing was written (raise the "
        "league's max_sweeps or tolerance: mindsport leagues set)"
    )


# --------------------------------------------------------------------------------------------


def _latest_history(lid: int, names: Sequence[str], lateral: bool) -> Any:
    """The latest history row of each of the players ``names`` of league ``lid`` (none for a
    player without one): for each player one backward step of the key on (league, player,
    time, seq), found from his row of the ratings table (every player with history has one),
    not a pass over all his rows.

    ``lateral`` (PostgreSQL): the step is a ``LATERAL`` subquery, which the planner must run
    once per player; given the step as a join condition, it may hash the league's whole history
    instead. SQLite has no ``LATERAL``, and looks each row up by its key from the two steps
    that find its time and ``seq``."""
    h, r = rating_history.c, ratings.c
    later = rating_history.alias("later")
    mine = (later.c.league_id == r.league_id, later.c.player == r.player)
    newest = (later.c.time_value.desc(), later.c.seq.desc())
    if lateral:
        row = (
            select(later.c.mu, later.c.sigma, later.c.extra, later.c.games, later.c.time_value)
            .where(*mine)
            .order_by(*newest)
            .limit(1)
            .lateral("latest")
        )
        return (
            select(r.player, row.c.mu, row.c.sigma, row.c.extra, row.c.games, row.c.time_value)
            .select_from(ratings.join(row, true()))
            .where(r.league_id == lid, r.player.in_(names))
        )

    def last(column: str) -> Any:
        return select(later.c[column]).where(*mine).order_by(*newest).limit(1).scalar_subquery()

    on = and_(
        h.league_id == r.league_id,
        h.player == r.player,
        h.time_value == last("time_value"),
        h.seq == last("seq"),
    )
    return (
        select(h.player, h.mu, h.sigma, h.extra, h.games, h.time_value)
        .select_from(ratings.join(rating_history, on))
        .where(r.league_id == lid, r.player.in_(names))
    )


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
        # whole-history leagues' settled graphs, by league id and model settings
        self._smoothed: dict[tuple[int, str], _Smoothed] = {}
        self._league_ids: dict[str, int] = {}  # league name -> id, as last read
        self._cache_lock = threading.Lock()
        try:
            self._db = Database(self.url)
        except (ArgumentError, ImportError) as exc:
            raise unusable(shown, exc) from None
        self.engine = self._db.engine
        self.is_sqlite = self._db.is_sqlite
        self._leagues = Leagues(self._db, self._models)
        self._keys = Keys(self._db, self._leagues)
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
        with self._db.write() as conn:
            row = self._lock_league(conn, name)
            new_model = row.model if model is None else model
            new_params = dict(row.params) if params is None else dict(params)
            lm = self._models.model_for(new_model, new_params)
            conn.execute(
                update(leagues)
                .where(leagues.c.id == row.id)
                .values(model=new_model, params=new_params)
            )
            self._replay(conn, row.id, lm, None)
            return League(name, new_model, new_params, row.last_seq)

    def _lock_league(self, conn: Connection, name: str) -> _LeagueRow:
        """The league row, with the league's write lock held until the transaction ends
        (:meth:`_lock_and_read` with nothing more to read)."""
        return self._lock_and_read(conn, name, (), ())[0]

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
                row, known, current = self._lock_and_read(conn, league, ids, names)
            except NotFoundError as exc:
                made = requests[0].create  # a creating request is always alone
                if made is None:
                    return [exc for _ in requests]
                self._leagues.insert(conn, league, made[0], dict(made[1]))
                row, known, current = self._lock_league(conn, league), {}, {}
            return self._ingest(conn, row, requests, known, current)

    def _lock_and_read(
        self, conn: Connection, name: str, ids: Sequence[str], names: Sequence[str]
    ) -> tuple[_LeagueRow, dict[str, str], dict[str, _Player]]:
        """The league row, with the league's write lock held until the transaction ends; then
        the digests of the match ids ``ids`` already recorded in the league and the current
        ratings of the players ``names`` that have one.

        PostgreSQL: a transaction-scoped advisory lock on the league's name (a FIFO queue of
        writers; other leagues are not blocked), then the reads, all in one round trip
        (pipelined; each read runs after the lock is granted, so it sees the last writer's
        commit). SQLite: ``BEGIN IMMEDIATE`` already holds the write lock.
        """
        check_league_name(name)
        if self.is_sqlite:
            cur = cursor(conn)
            cur.execute(self._db.sql(_LEAGUE_ROW_SQL), (name,))
            found = cur.fetchone()
            if found is None:
                raise NotFoundError(f"league {name!r} does not exist")
            row = _league_row(found)
            return row, self._known(conn, row.id, ids), self._current_of(conn, row.id, names)
        driver = conn.connection.driver_connection
        # the league's id as last seen (ids never change; checked below): with it the planner
        # looks each id up in the unique index even before the table has statistics
        guess = self._league_ids.get(name)
        league_of = "(SELECT id FROM ms_leagues WHERE name = %s)" if guess is None else "%s"
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
            return row, self._known(conn, row.id, ids), self._current_of(conn, row.id, names)
        return row, known, current

    def _known(self, conn: Connection, lid: int, ids: Sequence[str]) -> dict[str, str]:
        """The digests of the match ids ``ids`` already recorded in league ``lid``."""
        cur = cursor(conn)
        if not self.is_sqlite:
            cur.execute(_PG_KNOWN_SQL.format(league="%s"), (list(ids), lid), prepare=False)
            return dict(cur.fetchall())
        known: dict[str, str] = {}
        for chunk in chunks(ids):
            cur.execute(
                self._db.sql(_KNOWN_SQL + "? AND match_id IN (" + ",".join("?" * len(chunk)) + ")"),
                (lid, *chunk),
            )
            known.update(cur.fetchall())
        return known

    def _ingest(
        self,
        conn: Connection,
        row: _LeagueRow,
        requests: Sequence[_Request],
        known: Mapping[str, str],
        current: dict[str, _Player],
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
                else self._append(conn, lid, model, new, progress, current)
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
                self._smooth(conn, lid, model, new, progress)
            elif write_derived is None:
                pos = (first["time_value"], first["seq"])
                new_seqs = {r["seq"] for r in new}
                replayed = self._replay(conn, lid, model, pos, progress, new_seqs) - len(new)
        out: list[IngestResult | MindsportError] = []
        for r, got in zip(requests, per_request, strict=True):
            if isinstance(got, MindsportError):
                out.append(got)
                continue
            late = replayed > 0 and any(x["time_value"] < old_max for x in got)
            out.append(IngestResult(len(got), r.matches.size - len(got), replayed if late else 0))
        return out

    # -- deriving ratings ----------------------------------------------------------------------
    def _rate_all(
        self,
        lid: int,
        model: LeagueModel,
        rows: Iterable[Any],
        players: dict[str, _Player],
        progress: Callable[[int, int], None] | None = None,
        virtual: dict[tuple[str, ...], tuple[float, float]] | None = None,
        emit: Callable[[Sequence[tuple[Any, ...]]], None] | None = None,
        block_size: int = _REPLAY_CHUNK,
    ) -> tuple[list[tuple[Any, ...]], set[str]]:
        """Replay ``rows`` (in order) on ``players`` through the model's replayer (the replay
        engine's); returns the history rows (the columns of :data:`_HISTORY_INSERT`) and the
        touched players, whose entries of ``players`` it updates. A model that rates virtual
        players (:class:`~mindsport.store.league_model.VirtualPlayers`) starts from ``virtual``
        (their states, updated in place). A match the model refuses raises :class:`StoreError`
        naming it. ``emit``, if given, receives each block's history rows as soon as they are
        made (``block_size`` matches a block)."""
        rows = list(rows)
        replayer = model.replayer()
        if model.virtual:
            replayer.load_virtual(virtual or {})
        index = PlayerIndex()
        games_before: list[int] = []  # by player code: games recorded before these rows
        for p in dict.fromkeys(p for r in rows for t in r["teams"] for p in t):
            code = index.get(p)
            known = players.get(p)
            games_before.append(0 if known is None else known.games)
            if known is not None:
                replayer.set_state(code, model.row(known.state))
        games_so_far = np.array(games_before, dtype=np.int64)
        history: list[tuple[Any, ...]] = []
        last: dict[str, int] = {}  # player -> his last history row
        width = len(model.stored)
        plain = not model.extra_cols  # mu and sigma only: no JSON extra
        sigma_col = model.sigma_col  # post columns are the stored fields, a prefix of the fields
        for start in range(0, len(rows), block_size):
            chunk = rows[start : start + block_size]
            tvs = [float(r["time_value"]) for r in chunk]
            times = np.array(
                [tv / DAY if r.get("time_iso") else tv for r, tv in zip(chunk, tvs, strict=True)],
                dtype=np.float64,
            )
            block = encode_columns(
                [r["teams"] for r in chunk],
                [r["ranks"] for r in chunk],
                [r["weights"] for r in chunk],
                times,
                index,
            )
            if model.virtual:
                block = replayer.extend(
                    block,
                    [
                        (len(r["teams"]), r["roles"], r["deal"], r["luck"], r["scores"])
                        for r in chunk
                    ],
                )
            try:
                fed = replayer.feed(block, predict=False, keep=True)
            except MindsportError as exc:
                at = getattr(exc, "match_index", None)
                if at is None:
                    raise
                mid = chunk[int(at)]["match_id"]
                raise StoreError(f"match {mid!r}: model rejected it: {exc}") from exc
            # one history row per slot (a player in a match), built column by column
            codes = block.players
            n_slots = np.diff(block.player_ptr[block.team_ptr])
            match_of = np.repeat(np.arange(len(chunk)), n_slots)
            games = _occurrence(codes) + games_so_far[codes] + 1
            games_so_far += np.bincount(codes, minlength=len(games_so_far))
            ids = index.ids
            names = [ids[c] for c in codes.tolist()]
            post = fed.post[: len(names), :width]  # the players' slots come first
            mus = post[:, 0].tolist()
            if plain:
                sigmas = [0.0] * len(names) if sigma_col is None else post[:, sigma_col].tolist()
                extras = ["null"] * len(names)
            else:
                states = [model.state(r) for r in post.tolist()]
                mus = [st.mu for st in states]
                sigmas = [st.sigma for st in states]
                extras = ["null" if st.extra is None else json.dumps(st.extra) for st in states]
            first = len(history)
            history.extend(
                zip(
                    [lid] * len(names),
                    names,
                    np.array([int(r["seq"]) for r in chunk])[match_of].tolist(),
                    np.array(tvs)[match_of].tolist(),
                    mus,
                    sigmas,
                    extras,
                    games.tolist(),
                    strict=True,
                )
            )
            last.update(zip(names, range(first, len(history)), strict=True))
            if emit is not None:
                emit(history[first:])
            if progress is not None:
                progress(min(start + block_size, len(rows)), len(rows))
        for p, at in last.items():
            h = history[at]
            extra = from_json_text(h[6])
            players[p] = _Player(PlayerState(h[4], h[5], extra), h[7], h[3])
        if model.virtual and virtual is not None:
            virtual.update(replayer.virtual_states())
        return history, set(last)

    def _virtual(
        self, conn: Connection, lid: int, rows: list[dict[str, Any]]
    ) -> dict[tuple[str, ...], tuple[float, float]]:
        """The stored virtual players ``rows`` may meet: every role, and the sides of their
        deals."""
        v = virtual_ratings.c
        deals = sorted({r["deal"] for r in rows if r["deal"] is not None})
        q = select(v.key, v.mu, v.sigma).where(v.league_id == lid)
        found = list(conn.execute(q.where(v.kind == "role")))
        for chunk in chunks(deals):
            found.extend(conn.execute(q.where(v.kind == "deal", v.deal.in_(chunk))))
        return {tuple(json.loads(r.key)): (float(r.mu), float(r.sigma)) for r in found}

    def _write_virtual(
        self, conn: Connection, lid: int, states: Mapping[tuple[str, ...], tuple[float, float]]
    ) -> None:
        """Insert or update the league's virtual players ``states``."""
        insert_many(
            self._db,
            cursor(conn),
            "INSERT INTO ms_virtual_ratings (league_id, key, kind, name, deal, mu, sigma)",
            "(?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    lid,
                    canonical_json(list(key)),
                    key[0],
                    "/".join(key[1:]),
                    key[1] if key[0] == "deal" else None,
                    mu,
                    sigma,
                )
                for key, (mu, sigma) in sorted(states.items())
            ],
            " ON CONFLICT (league_id, key) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma",
        )

    def _write_derived(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        history: list[tuple[Any, ...]],
        players: dict[str, _Player],
        touched: set[str],
        clear: bool,
    ) -> None:
        # driver-level statements: the SQL toolkit's per-row parameter work cost more than
        # the database's own (``clear``: the league's rows were deleted, the upsert inserts)
        cur = cursor(conn)
        insert_many(self._db, cur, *_HISTORY_INSERT, history)
        insert_many(
            self._db,
            cur,
            "INSERT INTO ms_ratings (league_id, player, mu, sigma, extra, exposed, games, "
            "last_time)",
            "(?, ?, ?, ?, JSON(?), ?, ?, ?)",
            [
                (
                    lid,
                    p,
                    players[p].state.mu,
                    players[p].state.sigma,
                    "null"
                    if players[p].state.extra is None
                    else json.dumps(players[p].state.extra),
                    model.exposed(players[p].state),
                    players[p].games,
                    players[p].last_time,
                )
                for p in sorted(touched)
            ],
            " ON CONFLICT (league_id, player) DO UPDATE SET mu = excluded.mu, "
            "sigma = excluded.sigma, extra = excluded.extra, exposed = excluded.exposed, "
            "games = excluded.games, last_time = excluded.last_time",
        )

    def _append(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        new: list[dict[str, Any]],
        progress: Callable[[int, int], None] | None,
        players: dict[str, _Player],
    ) -> Callable[[], None]:
        """Rate matches that no recorded match depends on (they come after every recorded match
        of their players) from ``players``, the current ratings of their players (updated in
        place); returns the write of their derived rows."""
        new = sorted(new, key=lambda r: (r["time_value"], r["seq"]))
        virtual = self._virtual(conn, lid, new) if model.virtual else None
        if self.is_sqlite or model.virtual:
            history, touched = self._rate_all(lid, model, new, players, progress, virtual)
        else:
            # PostgreSQL: the history rows of a block of matches are streamed to the server,
            # which stores them while the next block is rated
            with copy_rows(cursor(conn), _HISTORY_INSERT[0]) as send:
                history, touched = self._rate_all(
                    lid, model, new, players, progress, None, emit=send, block_size=_STREAM_BLOCK
                )
            history = []  # written

        def write() -> None:
            self._write_derived(conn, lid, model, history, players, touched, clear=False)
            if virtual is not None:
                self._write_virtual(conn, lid, virtual)

        return write

    def _current_of(self, conn: Connection, lid: int, names: Sequence[str]) -> dict[str, _Player]:
        """The current ratings of the players ``names`` that have one in league ``lid``."""
        cur = cursor(conn)
        if not self.is_sqlite:
            cur.execute(_PG_CURRENT_SQL.format(league="%s"), (list(names), lid), prepare=False)
            return _players_of(cur.fetchall())
        players: dict[str, _Player] = {}
        for chunk in chunks(names):
            cur.execute(
                self._db.sql(_CURRENT_SQL + "? AND player IN (" + ",".join("?" * len(chunk)) + ")"),
                (lid, *chunk),
            )
            players.update(_players_of(cur.fetchall()))
        return players

    def _replay(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        pos: tuple[float, int] | None,
        progress: Callable[[int, int], None] | None = None,
        new_seqs: set[int] | None = None,
    ) -> int:
        """Rebuild the derived rows from position ``pos`` = (time, seq) on (None: everything).

        With ``new_seqs`` (the matches just inserted, the earliest at ``pos``) only the matches
        of the suffix that depend on them are re-rated: a match is affected when it is new or
        one of its players took part in an affected match before it. Any other match of the
        suffix has the same inputs as before, so its derived rows stand. Every match of an
        affected player after his first affected match is affected too, so that player's
        latest remaining history row (after deleting the affected ones) is his rating just
        before his first affected match: the replay starts from there.

        A model that rates virtual players (a role sits in every game of its role) is replayed
        from the start: their states at ``pos`` are not kept.

        A whole-history model rebuilds its graph from the whole log (:meth:`_smooth`).

        Returns the number of matches re-rated.
        """
        if model.smoothed:
            return self._smooth(conn, lid, model, None, progress)
        if model.virtual:
            pos, new_seqs = None, None
        if pos is None:
            clear_derived(conn, lid)
        rows = read_log(self._db, conn, lid, pos)
        players: dict[str, _Player] = {}
        if pos is not None:
            first: dict[str, tuple[float, int]] = {}  # affected player -> his first affected match
            affected = []
            for r in rows:
                names_r = [p for t in r["teams"] for p in t]
                if new_seqs is None or r["seq"] in new_seqs or any(p in first for p in names_r):
                    affected.append(r)
                    for p in names_r:
                        first.setdefault(p, (r["time_value"], r["seq"]))
            rows = affected
            # an affected player's history rows from his first affected match on are exactly
            # those of affected matches: one range of the history's key per player
            cursor(conn).executemany(
                self._db.sql(_HISTORY_DELETE_FROM),
                [(lid, p, t, t, s) for p, (t, s) in first.items()],
            )
            names = sorted(first)
            for chunk in chunks(names):
                for lr in conn.execute(_latest_history(lid, chunk, not self.is_sqlite)):
                    players[lr.player] = _Player(
                        PlayerState(lr.mu, lr.sigma, lr.extra), lr.games, lr.time_value
                    )
        virtual: dict[tuple[str, ...], tuple[float, float]] | None = {} if model.virtual else None
        history, touched = self._rate_all(lid, model, rows, players, progress, virtual)
        self._write_derived(conn, lid, model, history, players, touched, clear=pos is None)
        if virtual is not None:
            self._write_virtual(conn, lid, virtual)
        return len(rows)

    def _smooth(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        new: list[dict[str, Any]] | None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Bring a whole-history league's derived rows up to its match log, whose matches
        ``new`` (None: rebuild from scratch) were just inserted.

        The league's settled graph is taken from the in-memory cache when it holds the log
        just before ``new``; the new matches are added to it (re-converging from where the
        messages stood). Otherwise it is built from the whole log and every derived row is
        rewritten. The curves and current ratings of the players whose curve changed (a new
        time step, or a point that moved by more than the model's convergence tolerance, the
        precision the message passing settles to) are rewritten whole. The graph goes back to
        the cache once the transaction has committed. Returns the number of matches the graph
        was built from (0 when it was updated in place). A match the model refuses raises
        :class:`StoreError`.
        """
        last_seq = int(
            conn.execute(select(leagues.c.last_seq).where(leagues.c.id == lid)).scalar_one()
        )
        key = (lid, json.dumps([model.name, model.params], sort_keys=True))
        with self._cache_lock:
            kept = self._smoothed.pop(key, None)
            for stale in [k for k in self._smoothed if k[0] == lid]:  # of earlier settings
                del self._smoothed[stale]
        rows: list[dict[str, Any]]
        if new is not None and kept is not None and kept.last_seq == last_seq - len(new):
            rows = sorted(new, key=lambda r: (r["time_value"], r["seq"]))
            try:
                kept.history.add([match_of(r) for r in rows])
            except MindsportError as exc:  # refused before anything changed: keep the graph
                with self._cache_lock:
                    self._smoothed.setdefault(key, kept)
                raise StoreError(f"model {model.name!r} rejected a match: {exc}") from exc
            except ConvergenceError as exc:  # the graph is dropped (rebuilt on the next post)
                raise _unsettled(model, exc) from exc
            rebuilt = 0
        else:
            rows = read_log(self._db, conn, lid, None)
            try:
                history = model.history([match_of(r) for r in rows])
            except MindsportError as exc:
                raise StoreError(f"model {model.name!r} rejected a match: {exc}") from exc
            except ConvergenceError as exc:
                raise _unsettled(model, exc) from exc
            kept = _Smoothed(last_seq, history, {}, {}, {})
            clear_derived(conn, lid)
            rebuilt = len(rows)
        kept.last_seq = last_seq
        played: set[str] = set()  # their games and last times change: always rewritten
        for r in rows:
            tv = float(r["time_value"])
            for team in r["teams"]:
                for p in team:
                    kept.games[p] = kept.games.get(p, 0) + 1
                    kept.last_time[p] = max(kept.last_time.get(p, tv), tv)
                    played.add(p)
        changed: list[str] = []
        moved = model.tolerance
        for p in kept.history.players:
            c = kept.history.curve(p)
            old = kept.curves.get(p)
            if (  # a chain only grows: the same length is the same time steps
                p not in played
                and old is not None
                and len(old[0]) == len(c)
                and float(np.max(np.abs(old[1] - c.mu))) <= moved
                and float(np.max(np.abs(old[2] - c.sigma))) <= moved
            ):
                continue
            times = tuple(time_value(t) if isinstance(t, datetime) else float(t) for t in c.times)
            kept.curves[p] = (times, c.mu, c.sigma)
            changed.append(p)
        self._write_curves(conn, lid, model, kept, changed, clear=rebuilt > 0 or new is None)
        if progress is not None:
            progress(len(rows), len(rows))
        done = kept

        def keep() -> None:
            with self._cache_lock:
                self._smoothed[key] = done

        self._db.after_commit(conn, keep)
        return rebuilt

    def _write_curves(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        kept: _Smoothed,
        players: list[str],
        clear: bool,
    ) -> None:
        """Write the curves and current ratings of ``players`` whole (``clear``: the league's
        derived rows were deleted, nothing to replace)."""
        c = skill_curve.c
        if not clear:
            for chunk in chunks(players):
                conn.execute(delete(skill_curve).where(c.league_id == lid, c.player.in_(chunk)))
        cur = cursor(conn)
        insert_many(
            self._db,
            cur,
            "INSERT INTO ms_skill_curve (league_id, player, time_value, mu, sigma)",
            "(?, ?, ?, ?, ?)",
            [
                (lid, p, t, mu, sd)
                for p in players
                for t, mu, sd in zip(
                    kept.curves[p][0],
                    kept.curves[p][1].tolist(),
                    kept.curves[p][2].tolist(),
                    strict=True,
                )
            ],
        )
        current = []
        for p in players:
            _, mus, sds = kept.curves[p]
            state = PlayerState(float(mus[-1]), float(sds[-1]))
            current.append(
                (lid, p, state.mu, state.sigma, "null", model.exposed(state), kept.games[p],
                 kept.last_time[p])
            )  # fmt: skip
        insert_many(
            self._db,
            cur,
            "INSERT INTO ms_ratings (league_id, player, mu, sigma, extra, exposed, games, "
            "last_time)",
            "(?, ?, ?, ?, JSON(?), ?, ?, ?)",
            current,
            " ON CONFLICT (league_id, player) DO UPDATE SET mu = excluded.mu, "
            "sigma = excluded.sigma, extra = excluded.extra, exposed = excluded.exposed, "
            "games = excluded.games, last_time = excluded.last_time",
        )

    def recompute(
        self, league: str | None = None, *, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, int]:
        """Rebuild ratings and history from the match log (one league, or each league in turn).

        Returns the number of matches replayed per league.
        """
        names = [league] if league is not None else [lg.name for lg in self.list_leagues()]
        done: dict[str, int] = {}
        for name in names:
            with self._db.write() as conn:
                row = self._lock_league(conn, name)
                lm = self._models.model_for(row.model, row.params)
                done[name] = self._replay(conn, row.id, lm, None, progress)
        return done

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
