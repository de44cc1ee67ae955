"""The rating store: :class:`Store`, one object over the modules that each hold one part of it.

Matches are only ever appended to a league's log (``ms_matches``); current ratings, the rating
history, virtual players and skill curves are derived from it in the same transaction
(:mod:`~mindsport.store.derive`, :mod:`~mindsport.store.whole_history`). Every write is one
transaction; writers to one league are serialised (:mod:`~mindsport.store.league_lock`), so
concurrent clients end with the ratings of a sequential replay of the committed order, and
concurrent posts are committed together (:mod:`~mindsport.store.commit`,
:mod:`~mindsport.store.ingest`). Re-posting an identical match is ignored, a conflicting one
refused (:mod:`~mindsport.store.codec`'s digest).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import ArgumentError, DBAPIError

from mindsport.errors import DatabaseError, DatabaseFaultError
from mindsport.history.formats.common import paused_gc
from mindsport.match import Match
from mindsport.rating.registry import MODELS, ModelSpec
from mindsport.store.catchup import PACE_SECONDS, CatchUp, CatchUpWorker
from mindsport.store.codec import PreparedMatches
from mindsport.store.commit import Reservation, WorkItem
from mindsport.store.database import Database, require_existing, resolve_url, shown_url, unusable
from mindsport.store.derive import Deriver
from mindsport.store.ingest import Ingest
from mindsport.store.keys import ApiKey, KeyRole, Keys
from mindsport.store.league_lock import LeagueLock
from mindsport.store.league_model import LeagueModel, LeagueModels, PlayerState
from mindsport.store.leagues import Leagues
from mindsport.store.load import Loader, load, stored_columns
from mindsport.store.migrations import open_tables
from mindsport.store.queries import Queries
from mindsport.store.replace import Replacer
from mindsport.store.values import (
    IngestResult,
    LatePolicy,
    LeaderboardPage,
    League,
    PlayerRecord,
    late_policy,
)
from mindsport.store.values import (
    time_unit as time_unit_of,
)
from mindsport.store.whole_history import WholeHistory

__all__ = ["Store"]


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

    Ratings are derived by the model's replayer (:mod:`mindsport.rating.replay.replayers`, the
    engine :func:`mindsport.history.replay` runs): every registered model with every setting, e.g.
    TrueSkill's drift and sigma floor (elapsed time from the match times: days for ``datetime``
    times, the number itself otherwise) or Glicko-2's rating periods.

    Late results: each league has a policy (:class:`~mindsport.store.values.LatePolicy`, set by
    :meth:`create_league` and :meth:`update_league`, shown by :meth:`get_league`) for a match
    dated before its latest one. ``replay`` (the default) re-rates what depends on it, so the
    ratings equal a replay of the log in time order; ``arrival`` rates it from its players'
    current ratings as if it had just been played, so the ratings equal a replay in arrival
    order (not for a whole-history model, which re-derives everything from the whole log);
    ``refuse:AGE`` refuses a post holding a match older than the league's latest time by more
    than ``AGE`` (days for ``datetime`` times, the number itself otherwise) with
    :class:`~mindsport.store.late.LateMatchError` (a :class:`~mindsport.errors.ConflictError`;
    nothing of the post is written) and replays one within that age. Changing the policy
    re-rates nothing by itself (:meth:`recompute` re-rates in the new policy's order).
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
            raise unusable(shown, exc, self.url) from None
        self.engine = self._db.engine
        self.is_sqlite = self._db.is_sqlite
        lock = LeagueLock(self._db)
        smoother = WholeHistory(self._db)
        self._deriver = Deriver(self._db, self._models, lock, smoother)
        self._leagues = Leagues(self._db, self._models)
        self._keys = Keys(self._db, self._leagues)
        self._queries = Queries(self._db, self._leagues, self._models)
        self._replacer = Replacer(self._db, self._models, lock, self._deriver)
        self._catchup = CatchUp(self._db, self._models, lock)
        self._worker = CatchUpWorker(self._catchup)
        self._ingest = Ingest(
            self._db, self._leagues, self._models, lock, self._deriver, smoother,
            self._left_behind,
        )  # fmt: skip
        self._loader = Loader(self._db, self._leagues, self._models, lock, self._deriver)
        self._committer = self._ingest.committer
        try:
            open_tables(self._db, shown, create=create, create_tables=create_tables)
        except DBAPIError as exc:
            self.close()
            raise unusable(shown, exc, self.url) from None
        except DatabaseFaultError as exc:  # what the driver said tells the fix
            self.close()
            cause = exc.__cause__
            raise unusable(
                shown, cause if isinstance(cause, Exception) else exc, self.url
            ) from None
        except DatabaseError:
            self.close()
            raise

    # -- database and transactions -------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[Connection]:
        """One write transaction on the store's database, queued with the store's own writers
        (for the tables other parts of the package keep in it, such as events)."""
        return self._db.write()

    def snapshot(self) -> AbstractContextManager[Connection]:
        """One read transaction on the store's database."""
        return self._db.read()

    def close(self) -> None:
        """Finish queued writes, stop the catch-up worker (a league it was bringing up to date
        continues at the next start, or with :meth:`catch_up`) and release the connection
        pool."""
        self._ingest.close()
        self._worker.stop()
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- leagues (mindsport.store.leagues; settings changed: mindsport.store.derive) -----------
    def model_for(self, model: str, params: Mapping[str, Any]) -> LeagueModel:
        """The (cached) model object of a league's settings."""
        return self._models.model_for(model, params)

    def create_league(
        self,
        name: str,
        model: str = "trueskill",
        params: Mapping[str, Any] | None = None,
        *,
        late: LatePolicy | str | None = None,
        time_unit: str | None = None,
    ) -> League:
        """Create a league; its settings are checked by building the model first. ``late``: its
        policy for late results, a :class:`LatePolicy` or its text (``"replay"``, the default;
        ``"arrival"``; ``"refuse:AGE"``). ``time_unit``: what its numeric match times mean
        (``number``, the default; ``seconds`` since 1970; ``days``; ``rounds``): how they are
        shown."""
        return self._leagues.create(name, model, params, late, time_unit)

    def ensure_league(
        self,
        name: str,
        model: str = "trueskill",
        params: Mapping[str, Any] | None = None,
        *,
        late: LatePolicy | str | None = None,
        time_unit: str | None = None,
    ) -> League:
        """The league ``name``, created with the given settings when missing."""
        return self._leagues.ensure(name, model, params, late, time_unit)

    def get_league(self, name: str) -> League:
        return self._leagues.get(name)

    def list_leagues(self) -> list[League]:
        return self._leagues.all_leagues()

    def league_model(self, name: str) -> LeagueModel:
        return self._leagues.model(name)

    def update_league(
        self,
        name: str,
        *,
        model: str | None = None,
        params: Mapping[str, Any] | None = None,
        late: LatePolicy | str | None = None,
        time_unit: str | None = None,
    ) -> League:
        """Change a league's model or parameters and rebuild its ratings (one transaction).
        ``late``: its new policy for late results (see :meth:`create_league`; ``None``: kept).
        Changing only the policy re-rates nothing: it applies to the matches posted from then
        on (:meth:`recompute` re-rates the log in the new policy's order). ``time_unit``: what
        its numeric times mean (``None``: kept); it changes how times are shown only."""
        policy = None if late is None else late_policy(late)
        if time_unit is not None:
            unit = time_unit_of(time_unit)  # refused before anything is written
            if model is None and params is None and policy is None:
                return self._leagues.set_time_unit(name, unit)
        out = self._deriver.update_league(name, model, params, policy)
        if time_unit is not None:
            return self._leagues.set_time_unit(name, unit)
        return replace(out, time_unit=self._leagues.get(name).time_unit)

    # -- API keys (mindsport.store.keys) -------------------------------------------------------
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
        ``expires_at`` (naive = UTC) must lie in the future, at most 100 years ahead
        (:data:`~mindsport.store.keys.MAX_EXPIRY`); ``label`` is a free note (at most 100
        printable characters)."""
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
        Revoking a revoked key changes nothing; the last active admin key is not revoked
        (:class:`~mindsport.errors.ConflictError`)."""
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

    # -- writing matches (mindsport.store.ingest) ----------------------------------------------
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

        A late match whose re-rating covers more than :data:`~mindsport.store.catchup.INLINE`
        matches is re-rated in pieces after the commit (:mod:`mindsport.store.catchup`): here,
        before returning, unless the catch-up worker runs (:meth:`start_catch_up`; then the
        result says ``updating`` and the league is brought up to date in the background).
        """
        result = self.submit_matches(league, batch, progress=progress, create=create).result()
        if result.updating and not self._worker.running:
            self._catchup.run(league)
        return result

    def load_matches(
        self,
        league: str,
        matches: Sequence[Match],
        *,
        progress: Callable[[int, int], None] | None = None,
        create: tuple[str, Mapping[str, Any]] | None = None,
    ) -> IngestResult:
        """:meth:`add_matches` for a large batch (a file): the same result, idempotency and
        all-or-nothing, on the bulk path when the batch only appends to the league
        (:mod:`mindsport.store.load`: the stored form made column by column, one transaction,
        the rows written with the database's bulk interface), else through the group commit."""
        with paused_gc():  # a million rows at once, none in a cycle
            cols = stored_columns(matches)
            done = load(self._loader, league, cols, create, progress)
        if done is not None:
            return done
        return self.add_matches(league, matches, progress=progress, create=create)

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
        :meth:`reserve_matches` held for them, given up if they are refused here. The catch-up's
        worker holds its next piece for them (:class:`~mindsport.store.catchup.CatchUpWorker`)."""
        self._worker.writing()
        return self._ingest.submit(league, batch, progress, create, reservation)

    def reserve_matches(self, league: str) -> Reservation:
        """Hold a place in ``league``'s group commit for matches still being parsed (a large
        post): a commit about to start waits briefly for the oldest such place, so posts that
        concurrent clients sent together are committed together, whatever order they arrived
        in, and nothing is re-rated for it. Pass the place to :meth:`submit_matches`, or to
        :meth:`release_matches` when nothing will be submitted."""
        self._worker.writing()
        return self._ingest.reserve(league)

    def release_matches(self, reservation: Reservation) -> None:
        """Give up a place held by :meth:`reserve_matches` (submitted ones are given up
        already)."""
        self._ingest.release(reservation)

    def _commit_group(self, group: Sequence[WorkItem[IngestResult]]) -> None:
        """Commit a group of queued requests (what the group committer runs;
        :meth:`Ingest.commit_group <mindsport.store.ingest.Ingest.commit_group>`)."""
        self._ingest.commit_group(group)

    def replace_matches(
        self,
        league: str,
        remove: Sequence[str],
        add: Iterable[Match],
        *,
        conn: Connection | None = None,
    ) -> int:
        """Replace recorded matches of ``league`` in one transaction (``conn``, one of
        :meth:`transaction`, or a new one): the ids ``remove`` and those of ``add`` are
        deleted, ``add`` appended, and the league re-rated from the start
        (:mod:`mindsport.store.replace`). Returns the number of matches deleted."""
        if conn is not None:
            return self._replacer.replace(conn, league, remove, add)
        with self._db.write() as own:
            return self._replacer.replace(own, league, remove, add)

    # -- deriving ratings (mindsport.store.derive) ---------------------------------------------
    def recompute(
        self, league: str | None = None, *, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, int]:
        """Rebuild ratings and history from the match log (one league, or each league in turn).

        Returns the number of matches replayed per league.
        """
        names = [league] if league is not None else [lg.name for lg in self.list_leagues()]
        return self._deriver.recompute(names, progress)

    def catch_up(
        self, league: str | None = None, *, progress: Callable[[int], None] | None = None
    ) -> dict[str, int]:
        """Bring ``league`` (or every league being brought up to date) up to date after a late
        result, piece by piece (:mod:`mindsport.store.catchup`); returns the matches re-rated
        per league. ``progress(done)`` after each piece."""
        names = [league] if league is not None else self._catchup.behind()
        return {name: self._catchup.run(name, progress) for name in names}

    def _left_behind(self, league: str) -> None:
        """A commit left ``league`` behind: wake the worker; while it runs, pace the league's
        commits (:data:`~mindsport.store.catchup.PACE_SECONDS`) so late posts cannot take the
        writer from other leagues."""
        if self._worker.running:
            self._committer.pace(league, PACE_SECONDS)
        self._worker.wake(league)

    def start_catch_up(self) -> None:
        """Start the thread that brings leagues up to date after late results in the background
        (what the HTTP service does): from now on a long re-rating never runs inside a write,
        and leagues left marked by an earlier process are resumed."""
        self._worker.start()

    def stop_catch_up(self) -> None:
        """Stop the catch-up thread after its current piece."""
        self._worker.stop()

    # -- reading (mindsport.store.queries) -----------------------------------------------------
    def matches(self, league: str) -> list[Match]:
        """The league's match log in time order (time, then commit sequence): the rating order,
        except in a league whose late-result policy is ``arrival`` (rated in commit order)."""
        return self._queries.matches(league)

    def match_count(self, league: str) -> int:
        return self._queries.match_count(league)

    def states(self, league: str, players: Iterable[str] | None = None) -> dict[str, PlayerState]:
        """Current rating state of every rated player (or of the given ones that are rated)."""
        return self._queries.states(league, players)

    def ratings(self, league: str) -> dict[str, Any]:
        """Current ratings as the model's own values (e.g. ``Rating(mu, sigma)``)."""
        return self._queries.ratings(league)

    def leaderboard(
        self, league: str, *, offset: int = 0, limit: int = 50, search: str | None = None
    ) -> LeaderboardPage:
        """Players by conservative rating (``exposed``, best first), with their overall rank.

        ``search`` keeps players whose id contains it (case-insensitive); ranks stay overall.
        """
        return self._queries.leaderboard(league, offset=offset, limit=limit, search=search)

    def player(self, league: str, player: str, *, history: bool = True) -> PlayerRecord:
        """A player's current rating, overall rank and rating after each of their matches."""
        return self._queries.player(league, player, history=history)

    def role_states(self, league: str) -> dict[str, tuple[float, float]]:
        """The league's learned role advantages, ``(mu, sigma)`` by role (a model that rates
        roles, ``cardplay``; else empty)."""
        return self._queries.role_states(league)

    def team_states(
        self, league: str, teams: Sequence[Sequence[str]], *, allow_new: bool = False
    ) -> tuple[LeagueModel, list[list[PlayerState]]]:
        """The model and the current states of ``teams`` (new players: the model's prior)."""
        return self._queries.team_states(league, teams, allow_new=allow_new)
