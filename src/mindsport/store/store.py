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

Transactions and concurrency
    Every write is one database transaction: an error anywhere (an unknown league, a conflicting
    match id, a model error on row 500 of a file) rolls back everything, including the match log.
    Writers to one league are serialised, so the committed order of matches is the ``seq`` order
    and concurrent clients end with exactly the ratings of a sequential replay of that order:

    * PostgreSQL: the transaction starts with ``pg_advisory_xact_lock(0x6d73, league_id)`` (a
      transaction-scoped advisory lock per league) and then reads the league row again, so it
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
    last commits. Set ``MINDSPORT_SQLITE_SYNCHRONOUS=FULL`` for that too.

Idempotency
    A match id already in the league is ignored when the record is identical (same normalised
    time, teams, ranks, weights and scores: compared by SHA-256 digest) and refused with
    :class:`~mindsport.errors.ConflictError` when it differs. Re-posting a whole file is safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import (
    Connection,
    Engine,
    and_,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from mindsport.errors import ConflictError, MindsportError, NotFoundError
from mindsport.match import Match
from mindsport.matchmaking import Pairing, matchmake, parse_shape
from mindsport.rating.batch import DAY, PlayerIndex, encode_columns
from mindsport.rating.registry import MODELS, Display, ModelSpec, UnknownModelError
from mindsport.store.league import LeagueModel, PlayerState
from mindsport.store.schema import api_keys, leagues, matches, metadata, rating_history, ratings

__all__ = [
    "DEFAULT_DATABASE_URL",
    "HistoryPoint",
    "IngestResult",
    "LeaderboardEntry",
    "LeaderboardPage",
    "League",
    "PlayerRecord",
    "Prediction",
    "Store",
    "StoreError",
    "resolve_url",
]

DEFAULT_DATABASE_URL = "sqlite:///./mindsport.db"
_CHUNK = 500
#: matches rated per block when a league replays its log
_REPLAY_CHUNK = 20_000
#: longest match or player id the tables hold
_MAX_ID = 200
#: first key of the PostgreSQL advisory locks taken per league ("ms")
_LOCK_SPACE = 0x6D73
_LEAGUE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


class StoreError(MindsportError):
    """A store operation was given something it cannot use (names the input)."""


def resolve_url(url: str | None = None) -> str:
    """The database URL to use: ``url``, else ``$MINDSPORT_DATABASE_URL``, else ``./mindsport.db``.

    A plain path becomes a SQLite URL; ``postgresql://`` without a driver uses psycopg 3.

    >>> resolve_url("data/x.db")
    'sqlite:///data/x.db'
    >>> resolve_url("postgres://u@h/db")
    'postgresql+psycopg://u@h/db'
    """
    if url is None:
        url = os.environ.get("MINDSPORT_DATABASE_URL") or DEFAULT_DATABASE_URL
    if "://" not in url:
        return f"sqlite:///{url}"
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


# --------------------------------------------------------------------------------------------
# value objects returned by the store


@dataclass(frozen=True, slots=True)
class League:
    """A rating pool: its name, model name and model parameters."""

    name: str
    model: str
    params: dict[str, Any]
    matches: int


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What a write did: new matches, identical re-posts ignored, matches replayed because late."""

    added: int
    duplicates: int
    replayed: int

    def as_dict(self) -> dict[str, int]:
        return {"added": self.added, "duplicates": self.duplicates, "replayed": self.replayed}


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    player: str
    mu: float
    sigma: float
    exposed: float
    games: int


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """A page of a league's leaderboard. ``display``: how the league's model shows a rating
    (labels of ``mu``, ``sigma`` and ``exposed``; see :class:`mindsport.rating.Display`)."""

    league: str
    total: int
    offset: int
    limit: int
    entries: list[LeaderboardEntry]
    display: Display | None = None


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    match_id: str
    seq: int
    time: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    league: str
    player: str
    rank: int
    state: PlayerState
    exposed: float
    games: int
    history: list[HistoryPoint] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Prediction:
    """Before a game: P(team i ahead of team j), P(team i finishes in place k), match quality."""

    teams: list[list[str]]
    win_probability: float | None
    pairwise: list[list[float | None]]
    rank_probabilities: list[list[float]] | None
    quality: float | None
    new_players: list[str]


# --------------------------------------------------------------------------------------------
# encoding of matches


def _time_value(t: datetime | float | int) -> float:
    if isinstance(t, datetime):
        if t.tzinfo is None:  # naive datetimes are read as UTC, never as local time
            t = t.replace(tzinfo=UTC)
        return t.timestamp()
    return float(t)


def _encode(m: Match) -> dict[str, Any]:
    iso = m.time.isoformat() if isinstance(m.time, datetime) else None
    body = {
        "time": iso if iso is not None else _time_value(m.time),
        "teams": [list(t) for t in m.teams],
        "ranks": list(m.ranks),
        "weights": None if m.weights is None else [list(w) for w in m.weights],
        "scores": None if m.scores is None else list(m.scores),
    }
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return {
        "match_id": m.id,
        "time_value": _time_value(m.time),
        "time_iso": iso,
        "teams": body["teams"],
        "ranks": body["ranks"],
        "weights": body["weights"],
        "scores": body["scores"],
        "digest": hashlib.sha256(canon.encode()).hexdigest(),
    }


def _decode(row: Any) -> Match:
    t: datetime | float | int
    if row.time_iso is not None:
        t = datetime.fromisoformat(row.time_iso)
    else:
        tv = float(row.time_value)
        t = int(tv) if tv.is_integer() and abs(tv) < 2**53 else tv
    return Match(row.match_id, t, row.teams, row.ranks, row.weights, row.scores)


def _chunks(items: Sequence[Any], n: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class _FifoLock:
    """A lock granted in arrival order (``threading.Lock`` lets late threads barge in)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next = 0
        self._serving = 0

    def __enter__(self) -> None:
        with self._cond:
            ticket = self._next
            self._next += 1
            while ticket != self._serving:
                self._cond.wait()

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._serving += 1
            self._cond.notify_all()


@dataclass(slots=True)
class _Player:
    state: PlayerState
    games: int
    last_time: float


# --------------------------------------------------------------------------------------------


class Store:
    """Leagues, their match logs and derived ratings in one SQL database.

    ``url``: a SQLAlchemy URL or a file path (default: ``$MINDSPORT_DATABASE_URL`` or
    ``./mindsport.db``). Tables are created when missing. ``models``: the rating models leagues
    may use, by name (default: every model of :data:`mindsport.rating.registry.MODELS`). Use as
    a context manager or call :meth:`close`.

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
    ) -> None:
        self.url = resolve_url(url)
        self._models: Mapping[str, ModelSpec] = MODELS if models is None else dict(models)
        self._model_cache: dict[str, LeagueModel] = {}
        self._cache_lock = threading.Lock()
        self.engine = self._make_engine(self.url)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        self._writer_lock: AbstractContextManager[Any] = (
            _FifoLock() if self.is_sqlite else nullcontext()
        )
        if create_tables:
            with self._write() as conn:
                metadata.create_all(conn)

    # -- engine and transactions --------------------------------------------------------------
    @staticmethod
    def _make_engine(url: str) -> Engine:
        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite":
            return create_engine(url, pool_size=10, max_overflow=30, pool_recycle=1800)
        if parsed.database in (None, "", ":memory:"):
            raise StoreError(f"database {url!r}: use a SQLite file, not an in-memory database")
        directory = os.path.dirname(os.path.abspath(parsed.database))
        if not os.path.isdir(directory):
            raise StoreError(f"database {url!r}: directory {directory!r} does not exist")
        engine = create_engine(url, pool_size=8, max_overflow=32, connect_args={"timeout": 60.0})
        sync = os.environ.get("MINDSPORT_SQLITE_SYNCHRONOUS", "NORMAL").upper()
        if sync not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise StoreError(f"MINDSPORT_SQLITE_SYNCHRONOUS={sync!r}: use NORMAL or FULL")

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (see _on_begin)
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=60000")
            cur.execute(f"PRAGMA synchronous={sync}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Connection) -> None:
            write = conn.get_execution_options().get("mindsport_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._writer_lock, self.engine.connect() as conn:
            conn.execution_options(mindsport_write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- leagues -------------------------------------------------------------------------------
    def model_for(self, model: str, params: Mapping[str, Any]) -> LeagueModel:
        """The (cached) model object of a league's settings."""
        key = json.dumps([model, dict(params)], sort_keys=True)
        with self._cache_lock:
            cached = self._model_cache.get(key)
        if cached is None:
            spec = self._models.get(model) if isinstance(model, str) else None
            if spec is None:
                known = ", ".join(self._models)
                raise UnknownModelError(f"unknown model {model!r} (known: {known})")
            cached = LeagueModel(spec, params)
            with self._cache_lock:
                self._model_cache[key] = cached
        return cached

    def create_league(
        self, name: str, model: str = "trueskill", params: Mapping[str, Any] | None = None
    ) -> League:
        """Create a league; its settings are checked by building the model first."""
        if not isinstance(name, str) or not _LEAGUE_NAME.match(name):
            raise StoreError(
                f"league name {name!r}: use 1-100 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )
        params = dict(params or {})
        self.model_for(model, params)
        try:
            with self._write() as conn:
                if conn.execute(select(leagues.c.id).where(leagues.c.name == name)).first():
                    raise ConflictError(f"league {name!r} already exists")
                conn.execute(
                    insert(leagues).values(
                        name=name,
                        model=model,
                        params=params,
                        last_seq=0,
                        max_time=None,
                        created_at=datetime.now(UTC),
                    )
                )
        except IntegrityError as exc:  # lost a creation race on PostgreSQL
            raise ConflictError(f"league {name!r} already exists") from exc
        return League(name, model, params, 0)

    def ensure_league(
        self, name: str, model: str = "trueskill", params: Mapping[str, Any] | None = None
    ) -> League:
        """The league ``name``, created with the given settings when missing."""
        try:
            return self.get_league(name)
        except NotFoundError:
            try:
                return self.create_league(name, model, params)
            except ConflictError:
                return self.get_league(name)

    def get_league(self, name: str) -> League:
        with self._read() as conn:
            row = conn.execute(select(leagues).where(leagues.c.name == name)).first()
        if row is None:
            raise NotFoundError(f"league {name!r} does not exist")
        return League(row.name, row.model, dict(row.params), row.last_seq)

    def list_leagues(self) -> list[League]:
        with self._read() as conn:
            rows = conn.execute(select(leagues).order_by(leagues.c.name)).all()
        return [League(r.name, r.model, dict(r.params), r.last_seq) for r in rows]

    def league_model(self, name: str) -> LeagueModel:
        lg = self.get_league(name)
        return self.model_for(lg.model, lg.params)

    def update_league(
        self, name: str, *, model: str | None = None, params: Mapping[str, Any] | None = None
    ) -> League:
        """Change a league's model or parameters and rebuild its ratings (one transaction)."""
        with self._write() as conn:
            row = self._lock_league(conn, name)
            new_model = row.model if model is None else model
            new_params = dict(row.params) if params is None else dict(params)
            lm = self.model_for(new_model, new_params)
            conn.execute(
                update(leagues)
                .where(leagues.c.id == row.id)
                .values(model=new_model, params=new_params)
            )
            self._replay(conn, row.id, lm, None)
            return League(name, new_model, new_params, row.last_seq)

    def _lock_league(self, conn: Connection, name: str) -> Any:
        """The league row, with the league's write lock held until the transaction ends.

        PostgreSQL: a transaction-scoped advisory lock on the league id (a FIFO queue of
        writers; other leagues are not blocked), then the row is read again, so it is the
        latest committed version. SQLite: ``BEGIN IMMEDIATE`` already holds the write lock.
        """
        q = select(leagues).where(leagues.c.name == name)
        row = conn.execute(q).first()
        if row is None:
            raise NotFoundError(f"league {name!r} does not exist")
        if not self.is_sqlite:
            conn.execute(select(func.pg_advisory_xact_lock(_LOCK_SPACE, row.id)))
            row = conn.execute(q).first()
            if row is None:  # pragma: no cover - leagues are never deleted
                raise NotFoundError(f"league {name!r} does not exist")
        return row

    def _league_id(self, conn: Connection, name: str) -> int:
        lid = conn.execute(select(leagues.c.id).where(leagues.c.name == name)).scalar()
        if lid is None:
            raise NotFoundError(f"league {name!r} does not exist")
        return int(lid)

    # -- API keys ------------------------------------------------------------------------------
    def create_key(self, league: str) -> str:
        """A new random write key for ``league``. Shown once: only its SHA-256 is stored."""
        key = "msk_" + secrets.token_urlsafe(32)
        with self._write() as conn:
            lid = self._lock_league(conn, league).id
            conn.execute(
                insert(api_keys).values(
                    league_id=lid,
                    key_hash=_hash_key(key),
                    prefix=key[:10],
                    created_at=datetime.now(UTC),
                )
            )
        return key

    def check_key(self, league: str, key: str | None) -> bool:
        """Whether ``key`` is a write key of ``league`` (:class:`NotFoundError` if no league)."""
        with self._read() as conn:
            row = conn.execute(
                select(leagues.c.id, api_keys.c.id.label("key_id"))
                .select_from(leagues)
                .outerjoin(
                    api_keys,
                    and_(
                        api_keys.c.league_id == leagues.c.id,
                        api_keys.c.key_hash == _hash_key(key or ""),
                    ),
                )
                .where(leagues.c.name == league)
            ).first()
        if row is None:
            raise NotFoundError(f"league {league!r} does not exist")
        return bool(key) and row.key_id is not None

    # -- writing matches -----------------------------------------------------------------------
    def add_match(self, league: str, match: Match) -> IngestResult:
        return self.add_matches(league, [match])

    def add_matches(
        self,
        league: str,
        batch: Iterable[Match],
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestResult:
        """Append matches to ``league`` in one transaction and update the derived ratings.

        Identical re-posts are ignored; a match id recorded with different data raises
        :class:`ConflictError` and nothing of the batch is written. ``progress(done, total)`` is
        called while matches are rated.
        """
        items = list(batch)
        for m in items:
            if not isinstance(m, Match):
                raise StoreError(f"expected Match records, got {type(m).__name__}: {m!r}")
            if len(m.id) > _MAX_ID:
                raise StoreError(f"match {m.id[:40]!r}...: id: longer than {_MAX_ID} characters")
            for p in m.players:
                if len(p) > _MAX_ID:
                    raise StoreError(
                        f"match {m.id!r}: teams: player id {p[:40]!r}... is longer than "
                        f"{_MAX_ID} characters"
                    )
        encoded: dict[str, dict[str, Any]] = {}
        for m in items:
            enc = _encode(m)
            prev = encoded.get(m.id)
            if prev is not None and prev["digest"] != enc["digest"]:
                raise ConflictError(
                    f"match {m.id!r} appears twice in the input with different data"
                )
            encoded[m.id] = enc
        if not encoded:
            self.get_league(league)
            return IngestResult(0, 0, 0)
        with self._write() as conn:
            row = self._lock_league(conn, league)
            lid = row.id
            model = self.model_for(row.model, row.params)
            known: dict[str, str] = {}
            ids = list(encoded)
            for chunk in _chunks(ids):
                for mid, digest in conn.execute(
                    select(matches.c.match_id, matches.c.digest).where(
                        matches.c.league_id == lid, matches.c.match_id.in_(chunk)
                    )
                ):
                    known[mid] = digest
            new: list[dict[str, Any]] = []
            dups = len(items) - len(encoded)
            seq = int(row.last_seq)
            now = datetime.now(UTC)
            for mid, enc in encoded.items():
                old = known.get(mid)
                if old is not None:
                    if old != enc["digest"]:
                        raise ConflictError(
                            f"match {mid!r} is already recorded in league {league!r} "
                            "with different data"
                        )
                    dups += 1
                    continue
                seq += 1
                new.append({**enc, "league_id": lid, "seq": seq, "created_at": now})
            if not new:
                return IngestResult(0, dups, 0)
            for chunk in _chunks(new):
                conn.execute(insert(matches), list(chunk))
            latest = max(r["time_value"] for r in new)
            old_max = row.max_time
            conn.execute(
                update(leagues)
                .where(leagues.c.id == lid)
                .values(last_seq=seq, max_time=latest if old_max is None else max(old_max, latest))
            )
            first = min(new, key=lambda r: (r["time_value"], r["seq"]))
            if old_max is None or first["time_value"] >= old_max:
                replayed = 0
                self._append(conn, lid, model, new, progress)
            else:
                pos = (first["time_value"], first["seq"])
                new_seqs = {r["seq"] for r in new}
                replayed = self._replay(conn, lid, model, pos, progress, new_seqs) - len(new)
            return IngestResult(len(new), dups, replayed)

    # -- deriving ratings ----------------------------------------------------------------------
    def _rate_all(
        self,
        lid: int,
        model: LeagueModel,
        rows: Iterable[Any],
        players: dict[str, _Player],
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[list[dict[str, Any]], set[str]]:
        """Replay ``rows`` (in order) on ``players`` through the model's replayer (the replay
        engine's); returns history rows and touched players. A match the model refuses raises
        :class:`StoreError` naming it."""
        rows = list(rows)
        replayer = model.replayer()
        index = PlayerIndex()
        for p in dict.fromkeys(p for r in rows for t in r["teams"] for p in t):
            known = players.get(p)
            if known is not None:
                replayer.set_state(index.get(p), model.row(known.state))
        history: list[dict[str, Any]] = []
        touched: set[str] = set()
        latest: dict[str, tuple[int, float, int]] = {}  # player -> (history row, time, games)
        width = len(model.stored)
        plain = not model.extra_cols  # mu and sigma only: no JSON extra
        sigma_col = model.sigma_col  # post columns are the stored fields, a prefix of the fields
        for start in range(0, len(rows), _REPLAY_CHUNK):
            chunk = rows[start : start + _REPLAY_CHUNK]
            times = np.array(
                [r["time_value"] / DAY if r.get("time_iso") else r["time_value"] for r in chunk],
                dtype=np.float64,
            )
            block = encode_columns(
                [r["teams"] for r in chunk],
                [r["ranks"] for r in chunk],
                [r["weights"] for r in chunk],
                times,
                index,
            )
            try:
                fed = replayer.feed(block, predict=False, keep=True)
            except MindsportError as exc:
                at = getattr(exc, "match_index", None)
                if at is None:
                    raise
                mid = chunk[int(at)]["match_id"]
                raise StoreError(f"match {mid!r}: model rejected it: {exc}") from exc
            post = fed.post[:, :width].tolist()
            ids = index.ids
            names = [ids[c] for c in block.players.tolist()]
            slot = 0
            for r, n_slots in zip(
                chunk, np.diff(block.player_ptr[block.team_ptr]).tolist(), strict=True
            ):
                tv = float(r["time_value"])
                seq = int(r["seq"])
                for _ in range(n_slots):
                    p = names[slot]
                    row = post[slot]
                    if plain:
                        mu, extra = row[0], None
                        sigma = 0.0 if sigma_col is None else row[sigma_col]
                    else:
                        st = model.state(row)
                        mu, sigma, extra = st.mu, st.sigma, st.extra
                    prev = latest.get(p)
                    if prev is not None:
                        games = prev[2] + 1
                    else:
                        known = players.get(p)
                        games = 1 if known is None else known.games + 1
                    latest[p] = (len(history), tv, games)
                    history.append(
                        {
                            "league_id": lid,
                            "player": p,
                            "seq": seq,
                            "time_value": tv,
                            "mu": mu,
                            "sigma": sigma,
                            "extra": extra,
                            "games": games,
                        }
                    )
                    slot += 1
            if progress is not None:
                progress(min(start + _REPLAY_CHUNK, len(rows)), len(rows))
        for p, (at, tv, games) in latest.items():
            h = history[at]
            players[p] = _Player(PlayerState(h["mu"], h["sigma"], h["extra"]), games, tv)
            touched.add(p)
        return history, touched

    def _write_derived(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        history: list[dict[str, Any]],
        players: dict[str, _Player],
        touched: set[str],
        clear: bool,
    ) -> None:
        for chunk in _chunks(history, 2000):
            conn.execute(insert(rating_history), list(chunk))
        names = sorted(touched)
        rows = [
            {
                "league_id": lid,
                "player": p,
                "mu": players[p].state.mu,
                "sigma": players[p].state.sigma,
                "extra": players[p].state.extra,
                "exposed": model.exposed(players[p].state),
                "games": players[p].games,
                "last_time": players[p].last_time,
            }
            for p in names
        ]
        if clear:
            for chunk in _chunks(rows, 2000):
                conn.execute(insert(ratings), list(chunk))
            return
        # upsert (INSERT ... ON CONFLICT DO UPDATE) on SQLite and PostgreSQL
        dialect_insert = sqlite_insert if self.is_sqlite else pg_insert
        for chunk in _chunks(rows, 2000):
            stmt = dialect_insert(ratings)
            stmt = stmt.on_conflict_do_update(
                index_elements=[ratings.c.league_id, ratings.c.player],
                set_={
                    c: stmt.excluded[c]
                    for c in ("mu", "sigma", "extra", "exposed", "games", "last_time")
                },
            )
            conn.execute(stmt, list(chunk))

    def _append(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        new: list[dict[str, Any]],
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Apply matches that come after every recorded one to the current ratings."""
        new = sorted(new, key=lambda r: (r["time_value"], r["seq"]))
        names = sorted({p for r in new for t in r["teams"] for p in t})
        players: dict[str, _Player] = {}
        for chunk in _chunks(names):
            for r in conn.execute(
                select(ratings).where(ratings.c.league_id == lid, ratings.c.player.in_(chunk))
            ):
                players[r.player] = _Player(
                    PlayerState(r.mu, r.sigma, r.extra), r.games, r.last_time
                )
        history, touched = self._rate_all(lid, model, new, players, progress)
        self._write_derived(conn, lid, model, history, players, touched, clear=False)

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

        Returns the number of matches re-rated.
        """
        h, m = rating_history.c, matches.c
        if pos is None:
            conn.execute(delete(rating_history).where(h.league_id == lid))
            conn.execute(delete(ratings).where(ratings.c.league_id == lid))
            after_m = m.league_id == lid
        else:
            t, s = pos
            after_m = and_(
                m.league_id == lid, or_(m.time_value > t, and_(m.time_value == t, m.seq >= s))
            )
        rows = [
            dict(r._mapping)
            for r in conn.execute(
                select(m.match_id, m.seq, m.time_value, m.time_iso, m.teams, m.ranks, m.weights)
                .where(after_m)
                .order_by(m.time_value, m.seq)
            )
        ]
        players: dict[str, _Player] = {}
        if pos is not None:
            if new_seqs is not None:
                infected: set[str] = set()
                affected = []
                for r in rows:
                    names_r = [p for t in r["teams"] for p in t]
                    if r["seq"] in new_seqs or not infected.isdisjoint(names_r):
                        affected.append(r)
                        infected.update(names_r)
                rows = affected
            old_seqs = [r["seq"] for r in rows if new_seqs is None or r["seq"] not in new_seqs]
            for chunk in _chunks(old_seqs):
                conn.execute(delete(rating_history).where(h.league_id == lid, h.seq.in_(chunk)))
            names = sorted({p for r in rows for t in r["teams"] for p in t})
            for chunk in _chunks(names):
                latest = (
                    select(
                        h.player,
                        h.mu,
                        h.sigma,
                        h.extra,
                        h.games,
                        h.time_value,
                        func.row_number()
                        .over(partition_by=h.player, order_by=(h.time_value.desc(), h.seq.desc()))
                        .label("rn"),
                    )
                    .where(h.league_id == lid, h.player.in_(chunk))
                    .subquery()
                )
                for lr in conn.execute(select(latest).where(latest.c.rn == 1)):
                    players[lr.player] = _Player(
                        PlayerState(lr.mu, lr.sigma, lr.extra), lr.games, lr.time_value
                    )
        history, touched = self._rate_all(lid, model, rows, players, progress)
        self._write_derived(conn, lid, model, history, players, touched, clear=pos is None)
        return len(rows)

    def recompute(
        self, league: str | None = None, *, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, int]:
        """Rebuild ratings and history from the match log (one league, or each league in turn).

        Returns the number of matches replayed per league.
        """
        names = [league] if league is not None else [lg.name for lg in self.list_leagues()]
        done: dict[str, int] = {}
        for name in names:
            with self._write() as conn:
                row = self._lock_league(conn, name)
                lm = self.model_for(row.model, row.params)
                done[name] = self._replay(conn, row.id, lm, None, progress)
        return done

    # -- reading -------------------------------------------------------------------------------
    def matches(self, league: str) -> list[Match]:
        """The league's match log in rating order (time, then commit sequence)."""
        with self._read() as conn:
            lid = self._league_id(conn, league)
            rows = conn.execute(
                select(matches)
                .where(matches.c.league_id == lid)
                .order_by(matches.c.time_value, matches.c.seq)
            ).all()
        return [_decode(r) for r in rows]

    def match_count(self, league: str) -> int:
        with self._read() as conn:
            lid = self._league_id(conn, league)
            return int(
                conn.execute(
                    select(func.count()).select_from(matches).where(matches.c.league_id == lid)
                ).scalar_one()
            )

    def states(self, league: str, players: Iterable[str] | None = None) -> dict[str, PlayerState]:
        """Current rating state of every rated player (or of the given ones that are rated)."""
        with self._read() as conn:
            lid = self._league_id(conn, league)
            q = select(ratings).where(ratings.c.league_id == lid)
            if players is None:
                rows = list(conn.execute(q))
            else:
                rows = []
                for chunk in _chunks(sorted(set(players))):
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
        if offset < 0:
            raise StoreError(f"offset must be >= 0, got {offset}")
        if limit < 1:
            raise StoreError(f"limit must be >= 1, got {limit}")
        with self._read() as conn:
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
        entries = [
            LeaderboardEntry(int(r.rank), r.player, r.mu, r.sigma, r.exposed, r.games) for r in rows
        ]
        spec = self._models.get(model_name)
        return LeaderboardPage(
            league, total, offset, limit, entries, None if spec is None else spec.display
        )

    def player(self, league: str, player: str, *, history: bool = True) -> PlayerRecord:
        """A player's current rating, overall rank and rating after each of their matches."""
        with self._read() as conn:
            lid = self._league_id(conn, league)
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
        return PlayerRecord(
            league,
            player,
            int(row.rank),
            PlayerState(row.mu, row.sigma, extra),
            row.exposed,
            row.games,
            points,
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

    def _check_teams(self, teams: Sequence[Sequence[str]]) -> list[list[str]]:
        if isinstance(teams, str) or len(teams) < 2:
            raise StoreError(f"teams: need at least two teams, got {teams!r}")
        seen: set[str] = set()
        out: list[list[str]] = []
        for t in teams:
            if isinstance(t, str) or len(t) == 0:
                raise StoreError(f"teams: each team is a non-empty list of player ids, got {t!r}")
            for p in t:
                if not isinstance(p, str) or not p:
                    raise StoreError(f"teams: player ids are non-empty strings, got {p!r}")
                if p in seen:
                    raise StoreError(f"teams: player {p!r} appears twice")
                seen.add(p)
            out.append(list(t))
        return out

    def predict(
        self, league: str, teams: Sequence[Sequence[str]], *, allow_new: bool = False
    ) -> Prediction:
        """Win and place probabilities and match quality of a game between ``teams``.

        Unknown players raise :class:`NotFoundError` unless ``allow_new`` (then they get the
        model's prior).
        """
        tlist = self._check_teams(teams)
        known = self.states(league, [p for t in tlist for p in t])
        lm, states = self.team_states(league, tlist, allow_new=allow_new)
        n = len(states)
        pairwise: list[list[float | None]] = [
            [None if i == j else lm.win_probability(states[i], states[j]) for j in range(n)]
            for i in range(n)
        ]
        try:
            quality: float | None = lm.quality(states)
        except MindsportError:
            quality = None
        rp = lm.rank_probabilities(states)
        ranks = None if rp is None else [[float(x) for x in row] for row in rp]
        return Prediction(
            tlist,
            pairwise[0][1] if n == 2 else None,
            pairwise,
            ranks,
            quality,
            [p for t in tlist for p in t if p not in known],
        )

    def matchmake(
        self,
        league: str,
        players: Sequence[str],
        shape: str | Sequence[int],
        *,
        allow_new: bool = False,
    ) -> Pairing:
        """Balanced tables of ``shape`` from waiting ``players`` (:mod:`mindsport.matchmaking`)."""
        parse_shape(shape)
        if isinstance(players, str):
            raise StoreError(f"players: expected a list of player ids, got {players!r}")
        seen: set[str] = set()
        for p in players:
            if not isinstance(p, str) or not p:
                raise StoreError(f"players: player ids are non-empty strings, got {p!r}")
            if p in seen:
                raise StoreError(f"players: player {p!r} appears twice")
            seen.add(p)
        lm, states = self.team_states(league, [[p] for p in players], allow_new=allow_new)
        pool = {p: st[0] for p, st in zip(players, states, strict=True)}
        return matchmake(pool, shape, lambda teams: lm.quality(teams), strength=lm.exposed)
