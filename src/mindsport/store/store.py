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
    (:class:`~mindsport.store.league.VirtualPlayers`: ``cardplay``'s role advantages and
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

import functools
import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

import numpy as np
from sqlalchemy import (
    JSON,
    Connection,
    DateTime,
    Double,
    Engine,
    Integer,
    String,
    Text,
    and_,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    true,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError

from mindsport.errors import ConflictError, DatabaseError, MindsportError, NotFoundError
from mindsport.match import Match, id_problem, text_problem, time_value
from mindsport.matchmaking import MAX_POOL, Pairing, matchmake, parse_shape
from mindsport.rating.registry import MODELS, Display, ModelSpec, UnknownModelError
from mindsport.rating.replay.blocks import DAY, PlayerIndex, encode_columns
from mindsport.rating.trueskill.model import ConvergenceError
from mindsport.store.checkpoint import Checkpointer
from mindsport.store.commit import GroupCommitter, Reservation, WorkItem
from mindsport.store.keys import (
    PREFIX_LENGTH,
    ApiKey,
    KeyRefusedError,
    KeyRole,
    MissingKeyError,
    aware,
    hash_key,
    key_matches,
    key_prefix,
    new_key,
)
from mindsport.store.league import LeagueModel, PlayerState
from mindsport.store.schema import (
    DROPPED_INDEXES,
    LEAGUE_DATA,
    SURROGATE_ID_TABLES,
    api_keys,
    leagues,
    matches,
    metadata,
    rating_history,
    ratings,
    skill_curve,
    virtual_ratings,
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
    "Prediction",
    "PreparedMatches",
    "RoleAdvantage",
    "Store",
    "StoreError",
    "prepare_matches",
    "resolve_url",
]

DEFAULT_DATABASE_URL = "sqlite:///./mindsport.db"
_CHUNK = 500
#: matches rated per block when a league replays its log
_REPLAY_CHUNK = 20_000
#: PostgreSQL: matches rated per block when new matches are appended, each block's history
#: rows streamed to the server while the next is rated
_STREAM_BLOCK = 250
#: longest match or player id the tables hold
MAX_ID_LENGTH = 200
#: most matches of one league one group commit takes from the queue (a larger request is that
#: league's only one in the group), on SQLite, whose one writer serves every league: a group
#: bounds how long another league's post waits
GROUP_MATCHES = 2_000
#: the same on PostgreSQL, whose leagues commit in parallel: a group delays only its own
#: league's posts, and a larger one shares the reads, the ratings' update and the commit among
#: more matches (batches of 1,000 from 6 clients: 17,000 matches/s with 2,000, 20,000 with 8,000)
PG_GROUP_MATCHES = 8_000
#: SQLite pages (4 KiB) of write-ahead log past which it is checkpointed while writers wait
#: (see :mod:`mindsport.store.checkpoint`; below it checkpoints run beside the writers)
SQLITE_CHECKPOINT_PAGES = 16_384
#: page cache of the SQLite connection that writes, in MiB (SQLite's default is 2: a batch of
#: 1,000 matches among 500 players changes about 1,000 pages, its players' index pages among them)
SQLITE_WRITER_CACHE_MIB = 64
#: largest leaderboard offset
MAX_OFFSET = 1_000_000_000
#: length of the public prefix of keys made by earlier versions
_OLD_PREFIX_LENGTH = 10
#: first key of the PostgreSQL advisory locks taken per league ("ms")
_LOCK_SPACE = 0x6D73
_LEAGUE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


class StoreError(MindsportError):
    """A store operation was given something it cannot use (names the input)."""


class MatchRefusedError(StoreError):
    """A match the store cannot take: ``match_id`` and ``field`` name it and what is wrong."""

    def __init__(self, message: str, match_id: str, field: str) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.field = field


class MatchConflictError(ConflictError):
    """A match id recorded (or repeated in the input) with other data (``field`` is ``id``)."""

    def __init__(self, message: str, match_id: str) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.field = "id"


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


def _shown_url(url: str) -> str:
    """The database as named in messages: the SQLite file, or the URL without its password."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return repr(url)
    if parsed.get_backend_name() == "sqlite":
        return repr(parsed.database or url)
    return repr(parsed.render_as_string(hide_password=True))


def _require_existing(url: str, shown: str) -> None:
    """Refuse a SQLite file that does not exist (a reading command must not create one)."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise _unusable(shown, exc) from None
    file = parsed.database if parsed.get_backend_name() == "sqlite" else None
    if file not in (None, "", ":memory:") and not os.path.exists(str(file)):
        raise DatabaseError(
            f"database {shown} does not exist; pass --db (or set MINDSPORT_DATABASE_URL) "
            "to use another, or create it by adding matches: mindsport rate FILE"
        )


def _unusable(shown: str, exc: Exception) -> DatabaseError:
    """``exc`` (raised while opening the database) as a one-line :class:`DatabaseError`."""
    if isinstance(exc, ImportError):
        return DatabaseError(
            f"database {shown}: its driver is not installed ({exc}); for PostgreSQL: "
            "pip install 'mindsport[postgres]'"
        )
    if isinstance(exc, ArgumentError):
        return DatabaseError(
            f"database {shown}: not a database URL ({exc}); give a SQLite file or "
            "postgresql://user:password@host:port/name"
        )
    orig = getattr(exc, "orig", None) or exc
    reason = " ".join(str(orig).split()) or type(orig).__name__
    text = reason.lower()
    if "not a database" in text or "file is encrypted" in text:
        fix = "it is not a SQLite database file; check --db"
    elif "unable to open" in text or "readonly" in text or "read-only" in text:
        fix = "check that the path and its folder exist and are writable"
    elif "password" in text or "authentication" in text or "role" in text:
        fix = "check the user name and password in the URL"
    elif "does not exist" in text:
        fix = "create the database first (createdb) or check its name"
    else:
        fix = "check the URL and that the server is running and reachable"
    return DatabaseError(f"database {shown}: cannot be used: {reason} ({fix})")


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
    """What a write did: new matches, identical re-posts ignored, matches replayed because late
    (none in a whole-history league: late results revise the smoothed past in place)."""

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
class RoleAdvantage:
    """A role's (seat's) learned advantage in a league whose model rates roles (``cardplay``):
    the skill points it adds to its player's team, and their deviation."""

    role: str
    advantage: float
    sigma: float


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """A page of a league's leaderboard. ``display``: how the league's model shows a rating
    (labels of ``mu``, ``sigma`` and ``exposed``; see :class:`mindsport.rating.Display`).
    ``roles``: the league's learned role advantages by role name (empty for a model without
    roles, or before a match with roles)."""

    league: str
    total: int
    offset: int
    limit: int
    entries: list[LeaderboardEntry]
    display: Display | None = None
    roles: tuple[RoleAdvantage, ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    match_id: str
    seq: int
    time: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """A point of a whole-history league's smoothed skill curve: the player's skill (``mu``,
    ``sigma``) at the time step starting at ``time`` (on the match log's time axis: POSIX
    seconds for datetimes), given all the league's matches."""

    time: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player's rating in a league: rank, state, games, and how the rating went: ``history``
    (an online league: the rating after each match) or ``curve`` (a whole-history league: the
    smoothed skill at each time step he played in)."""

    league: str
    player: str
    rank: int
    state: PlayerState
    exposed: float
    games: int
    history: list[HistoryPoint] = field(default_factory=list)
    curve: list[CurvePoint] = field(default_factory=list)


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


_CANONICAL_JSON = json.JSONEncoder(
    separators=(",", ":"), allow_nan=False, ensure_ascii=False
).encode


def _iso_utc(t: datetime) -> str:
    """The one stored spelling of a datetime: ISO 8601 in UTC (naive datetimes are UTC)."""
    return (t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)).isoformat()


def _digest(
    tv: float,
    teams: Sequence[Sequence[str]],
    ranks: Sequence[int | None],
    weights: Sequence[Sequence[float]] | None,
    scores: Sequence[float] | None,
    roles: Sequence[Sequence[str]] | None = None,
    deal: str | None = None,
    luck: Sequence[float] | None = None,
) -> str:
    """SHA-256 of a match's canonical form: the time as one number (the instant, however it was
    written), each team's players sorted (with their weights and roles), ranks, weights and
    scores as numbers. Roles, deal and luck join the form only when given, so a match without
    them has the digest it had before the store kept them. Two records with the same digest
    are the same result."""
    sorted_weights = None
    if weights is None and roles is None:  # nothing to carry along: sort the names themselves
        sorted_teams = [sorted(t) for t in teams]
        if scores is None and deal is None and luck is None:  # the usual record: no encoder
            text = (
                f"[{float(tv)!r},{_teams_json(sorted_teams, ',', encode_basestring)},"
                f"{_int_list_json(ranks)},null,null]"
            )
            return hashlib.sha256(text.encode()).hexdigest()
    else:
        order = [sorted(range(len(t)), key=t.__getitem__) for t in teams]
        sorted_teams = [[t[i] for i in o] for t, o in zip(teams, order, strict=True)]
    if weights is not None:
        sorted_weights = [[float(w[i]) for i in o] for w, o in zip(weights, order, strict=True)]
    body: list[Any] = [
        float(tv),
        sorted_teams,
        list(ranks),
        sorted_weights,
        None if scores is None else [float(x) for x in scores],
    ]
    chance: dict[str, Any] = {}
    if roles is not None:
        chance["roles"] = [[rs[i] for i in o] for rs, o in zip(roles, order, strict=True)]
    if deal is not None:
        chance["deal"] = deal
    if luck is not None:
        chance["luck"] = [float(x) for x in luck]
    if chance:
        body.append(chance)
    return hashlib.sha256(_CANONICAL_JSON(body).encode()).hexdigest()


def _encode(m: Match) -> dict[str, Any]:
    tv = time_value(m.time)
    teams = [list(t) for t in m.teams]
    ranks = list(m.ranks)
    weights = None if m.weights is None else [list(w) for w in m.weights]
    scores = None if m.scores is None else list(m.scores)
    roles = None if m.roles is None else [list(r) for r in m.roles]
    luck = None if m.luck is None else list(m.luck)
    return {
        "match_id": m.id,
        "time_value": tv,
        "time_iso": _iso_utc(m.time) if isinstance(m.time, datetime) else None,
        "teams": teams,
        "ranks": ranks,
        "weights": weights,
        "scores": scores,
        "roles": roles,
        "deal": m.deal,
        "luck": luck,
        "digest": _digest(tv, teams, ranks, weights, scores, roles, m.deal, luck),
        # the stored text of the JSON columns teams, ranks, weights, scores, roles and luck
        "json": (
            _teams_json(teams, ", ", encode_basestring_ascii),
            _int_list_json(ranks),
            "null" if weights is None else json.dumps(weights),
            "null" if scores is None else json.dumps(scores),
            "null" if roles is None else json.dumps(roles),
            "null" if luck is None else json.dumps(luck),
        ),
    }


def _decode(row: Any) -> Match:
    return _match_of(row._mapping)


def _match_of(r: Mapping[str, Any]) -> Match:
    """The match of a stored row's columns (or of an encoded match)."""
    t: datetime | float | int
    if r["time_iso"] is not None:
        t = datetime.fromisoformat(r["time_iso"])
    else:
        tv = float(r["time_value"])
        t = int(tv) if tv.is_integer() and abs(tv) < 2**53 else tv
    return Match(
        r["match_id"],
        t,
        r["teams"],
        r["ranks"],
        r["weights"],
        r["scores"],
        roles=r["roles"],
        deal=r["deal"],
        luck=r["luck"],
    )


def _chunks(items: Sequence[Any], n: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _teams_json(teams: Sequence[Sequence[str]], sep: str, quote: Callable[[str], str]) -> str:
    """JSON of a list of lists of strings, as ``json.dumps`` writes it with the item separator
    ``sep`` and the string quoting ``quote`` (``json.encoder.encode_basestring_ascii``: its
    default, ``encode_basestring``: ``ensure_ascii=False``), without building an encoder."""
    return "[" + sep.join("[" + sep.join(map(quote, t)) + "]" for t in teams) + "]"


def _int_list_json(values: Sequence[int | None]) -> str:
    """JSON of a list of ints and nulls (ranks), without the general encoder's overhead."""
    return "[" + ",".join("null" if v is None else str(int(v)) for v in values) + "]"


def _cursor(conn: Connection) -> Any:
    """A driver cursor inside ``conn``'s transaction (for the hot path's statements)."""
    return conn.connection.driver_connection.cursor()  # type: ignore[union-attr]


def _as_time(value: Any) -> datetime:
    """A stored timestamp as an aware UTC datetime (SQLite hands back text)."""
    return aware(datetime.fromisoformat(value) if isinstance(value, str) else value)


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


_JSON_DECODE = json.JSONDecoder().decode


def _from_json_text(value: str | None) -> Any:
    """A JSON column read as text: its value, with SQL ``NULL`` and the text ``null`` (what
    most rows hold in their optional columns) as ``None`` without a parse."""
    return None if value is None or value == "null" else _JSON_DECODE(value)


def _players_of(rows: Iterable[Sequence[Any]]) -> dict[str, _Player]:
    """Current ratings from the rows of :data:`_CURRENT_SQL` (``extra`` as JSON text: most
    models keep none, and its text ``null`` needs no parsing)."""
    players: dict[str, _Player] = {}
    for p, mu, sigma, extra, games, last_time in rows:
        if isinstance(extra, str):
            extra = _from_json_text(extra)
        players[p] = _Player(PlayerState(mu, sigma, extra), games, last_time)
    return players


_MATCH_INSERT = (
    "INSERT INTO ms_matches (league_id, seq, match_id, time_value, time_iso, teams, ranks, "
    "weights, scores, roles, luck, deal, digest, created_at)",
    "(?, ?, ?, ?, ?, JSON(?), JSON(?), JSON(?), JSON(?), JSON(?), JSON(?), ?, ?, ?)",
)

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


_HEAD = re.compile(r"INSERT INTO (\w+) \(([\w, ]+)\)$")


def _insert_columns(head: str) -> tuple[Any, list[str]]:
    """The table and the column names of ``head`` (``INSERT INTO table (columns)``)."""
    found = _HEAD.match(head)
    if found is None:
        raise StoreError(f"not an insert head: {head!r}")
    return metadata.tables[found.group(1)], [c.strip() for c in found.group(2).split(",")]


@functools.cache
def _json_insert(head: str, tail: str) -> tuple[str, int]:
    """PostgreSQL's ``INSERT ... SELECT ... FROM jsonb_array_elements(rows)`` for ``head``
    (``INSERT INTO table (columns)``) and ``tail``: each column of each row read back as its
    type in the schema (a JSON column's value comes as its JSON text); and the row width.

    The rows are parsed once, as ``jsonb``, whose arrays are indexed: a field of a ``json``
    row is found by parsing the row again up to it, which was a quarter of the server's time
    on a batch. Numbers travel as JSON text: Python writes a float's shortest exact form, the
    server keeps it as that decimal and reads it back to the same double."""
    table, names = _insert_columns(head)
    picked = ", ".join(f"{_json_cast(table.c[n].type, f'(e->>{i})')}" for i, n in enumerate(names))
    return f"{head} SELECT {picked} FROM jsonb_array_elements(%s::jsonb) AS r(e){tail}", len(names)


@functools.cache
def _copy_in(head: str) -> tuple[str, list[str]]:
    """PostgreSQL's ``COPY table (columns) FROM STDIN`` in binary format for ``head`` (``INSERT
    INTO table (columns)``), and the binary type of each column: a JSON column is sent as the
    text it holds (the binary form of ``json`` is its text, which the server checks)."""
    table, names = _insert_columns(head)
    types = [_copy_type(table.c[n].type) for n in names]
    return f"COPY {table.name} ({', '.join(names)}) FROM STDIN (FORMAT BINARY)", types


@contextmanager
def _copy_rows(cur: Any, head: str) -> Iterator[Callable[[Iterable[tuple[Any, ...]]], None]]:
    """PostgreSQL: a binary ``COPY`` for ``head`` (:func:`_copy_in`) open on ``cur``; yields
    the function that streams rows into it (the server stores them as they arrive)."""
    sql, types = _copy_in(head)
    with cur.copy(sql) as copy:
        copy.set_types(types)

        def send(rows: Iterable[tuple[Any, ...]]) -> None:
            for r in rows:
                copy.write_row(r)

        yield send


def _copy_type(kind: Any) -> str:
    """The PostgreSQL type a column of SQL type ``kind`` is copied in as."""
    if isinstance(kind, Integer):
        return "int4"
    if isinstance(kind, Double):
        return "float8"
    if isinstance(kind, DateTime):
        return "timestamptz"
    if isinstance(kind, (JSON, String, Text)):
        return "text"
    raise StoreError(f"no binary form for a column of type {kind!r}")


def _json_cast(kind: Any, value: str) -> str:
    """``value`` (JSON text of one row's field) as a column of SQL type ``kind``."""
    if isinstance(kind, Integer):
        return f"{value}::int8"
    if isinstance(kind, Double):
        return f"{value}::float8"
    if isinstance(kind, DateTime):
        return f"{value}::timestamptz"
    if isinstance(kind, JSON):
        return f"{value}::json"
    if isinstance(kind, (String, Text)):
        return value
    raise StoreError(f"no JSON form for a column of type {kind!r}")


def _json_value(value: Any) -> Any:
    """What the JSON encoder writes for the values it does not know (numpy numbers)."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot send {type(value).__name__} as JSON: {value!r}")


def _check_league_name(name: str) -> None:
    """A name no league can have is simply not found (and never reaches the database)."""
    if not isinstance(name, str) or not _LEAGUE_NAME.match(name):
        raise NotFoundError(f"league {name!r} does not exist")


@dataclass(frozen=True, slots=True)
class PreparedMatches:
    """Matches checked and put in their stored form (one time axis, sorted-team digests), ready
    for :meth:`Store.submit_matches`; made by :func:`prepare_matches`.

    Preparing is the part of ingesting that needs no database, so it may run in another process
    (a prepared batch pickles): the service prepares large posts in a worker process while the
    database writer commits earlier ones.
    """

    #: the stored form of each match, by match id (an identical repeat counted once)
    records: dict[str, dict[str, Any]]
    #: matches given, identical repeats included
    size: int


def prepare_matches(matches: Iterable[Match]) -> PreparedMatches:
    """``matches`` as a :class:`PreparedMatches`; raises for what no league can store: an id
    longer than :data:`MAX_ID_LENGTH` (:class:`MatchRefusedError`) or one match id given twice
    with different data (:class:`MatchConflictError`)."""
    encoded: dict[str, dict[str, Any]] = {}
    size = 0
    for m in matches:
        size += 1
        if not isinstance(m, Match):
            raise StoreError(f"expected Match records, got {type(m).__name__}: {m!r}")
        if len(m.id) > MAX_ID_LENGTH:
            raise MatchRefusedError(
                f"match {m.id[:40]!r}...: id: longer than {MAX_ID_LENGTH} characters", m.id, "id"
            )
        for p in m.players:
            if len(p) > MAX_ID_LENGTH:
                raise MatchRefusedError(
                    f"match {m.id!r}: teams: player id {p[:40]!r}... is longer than "
                    f"{MAX_ID_LENGTH} characters",
                    m.id,
                    "teams",
                )
        enc = _encode(m)
        prev = encoded.get(m.id)
        if prev is not None and prev["digest"] != enc["digest"]:
            raise MatchConflictError(
                f"match {m.id!r} appears twice in the input with different data", m.id
            )
        encoded[m.id] = enc
    return PreparedMatches(encoded, size)


@dataclass(slots=True)
class _Request:
    """One caller's matches, queued for the group commit."""

    league: str
    matches: PreparedMatches
    progress: Callable[[int, int], None] | None
    create: tuple[str, Mapping[str, Any]] | None


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
                created_at=_as_time(r["created_at"]),
                expires_at=None,
                revoked_at=None,
            )
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
#: the part of the log from (time, seq) on
#: rows at or after a position (time, seq) in replay order, given as (time, time, seq); the
#: first condition bounds the index range on time
_FROM_POSITION = " AND time_value >= ? AND (time_value > ? OR seq >= ?)"
#: a player's history rows from a position on (:data:`_FROM_POSITION`), by the history's key
_HISTORY_DELETE_FROM = "DELETE FROM ms_rating_history WHERE league_id = ? AND player = ?" + (
    _FROM_POSITION
)
_REPLAY_ORDER = " ORDER BY time_value, seq"
_REPLAY_IS_JSON = tuple(n in _JSON_COLUMNS for n in _REPLAY_NAMES)


def _log_row(values: Sequence[Any]) -> dict[str, Any]:
    """A replay row (:data:`_REPLAY_SQL`) by column name, its JSON parsed
    (:func:`_from_json_text`)."""
    return {
        name: _from_json_text(v) if is_json else v
        for name, is_json, v in zip(_REPLAY_NAMES, _REPLAY_IS_JSON, values, strict=True)
    }


#: columns later versions added to the match log, with their SQL types
_MATCH_COLUMNS = (("roles", "JSON"), ("deal", "VARCHAR(200)"), ("luck", "JSON"))


def _upgrade_match_table(conn: Connection) -> None:
    """Add the columns of roles, deal and luck to a match log written by an earlier version
    (its matches keep null there: they carried none). Inside the caller's transaction."""
    columns = {c["name"] for c in inspect(conn).get_columns(matches.name)}
    for name, sql_type in _MATCH_COLUMNS:
        if name not in columns:
            conn.execute(text(f"ALTER TABLE {matches.name} ADD COLUMN {name} {sql_type}"))


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


def _upgrade(conn: Connection) -> None:
    """Create missing tables and bring tables of earlier versions up to today's columns,
    constraints and indexes."""
    metadata.create_all(conn)
    _upgrade_key_table(conn)
    _upgrade_match_table(conn)
    for table, key in _league_keys(conn):
        conn.execute(text(f'ALTER TABLE {table} DROP CONSTRAINT "{key}"'))
    for table in _surrogate_ids(conn):  # its primary key (and sequence) go with it
        conn.execute(text(f"ALTER TABLE {table} DROP COLUMN id"))
    for name in _dropped_indexes(conn):
        conn.execute(text(f"DROP INDEX {name}"))


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


#: key of the after-commit callbacks in a write connection's ``info``
_AFTER_COMMIT = "mindsport_after_commit"


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
        shown = _shown_url(self.url)
        if not create:
            _require_existing(self.url, shown)
        self._models: Mapping[str, ModelSpec] = dict(MODELS if models is None else models)
        self._model_cache: dict[str, LeagueModel] = {}
        # whole-history leagues' settled graphs, by league id and model settings
        self._smoothed: dict[tuple[int, str], _Smoothed] = {}
        self._sql_cache: dict[str, str] = {}
        self._league_ids: dict[str, int] = {}  # league name -> id, as last read
        self._local = threading.local()
        self._readers: list[Any] = []  # the connections of _fetch, one per thread
        self._cache_lock = threading.Lock()
        try:
            self.engine = self._make_engine(self.url)
        except (ArgumentError, ImportError) as exc:
            raise _unusable(shown, exc) from None
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        # SQLite: the writes go through one connection of their own, so its page cache stays
        # warm from one transaction to the next (a connection that another one wrote after
        # drops its whole cache when its next transaction starts)
        self._writer_engine = (
            self._make_engine(self.url, writer=True) if self.is_sqlite else self.engine
        )
        self._writer_lock: AbstractContextManager[Any] = (
            _FifoLock() if self.is_sqlite else nullcontext()
        )
        self._checkpointer = (
            Checkpointer(
                self.engine.raw_connection,
                os.path.abspath(f"{self.engine.url.database}-wal"),
                self._writer_lock,
                SQLITE_CHECKPOINT_PAGES * 4096,
            )
            if self.is_sqlite
            else None
        )
        # SQLite: one writer for the whole file (its lock covers every league); PostgreSQL: one
        # writer per league, in parallel
        self._committer: GroupCommitter[IngestResult] = GroupCommitter(
            self._commit_group,
            max_group_size=GROUP_MATCHES if self.is_sqlite else PG_GROUP_MATCHES,
            workers=1 if self.is_sqlite else 8,
        )
        try:
            if create and create_tables:
                with self._write() as conn:
                    _upgrade(conn)
            elif not create:
                with self._read() as conn:
                    found = inspect(conn)
                    if not found.has_table(leagues.name):
                        raise DatabaseError(
                            f"database {shown} holds no mindsport data (no leagues table); "
                            "check --db, or add matches first: mindsport rate FILE"
                        )
                    stale = (
                        any(not found.has_table(t.name) for t in metadata.sorted_tables)
                        or "role" not in {c["name"] for c in found.get_columns(api_keys.name)}
                        or not {n for n, _ in _MATCH_COLUMNS}
                        <= {c["name"] for c in found.get_columns(matches.name)}
                        or bool(_league_keys(conn))
                        or bool(_surrogate_ids(conn))
                        or bool(_dropped_indexes(conn))
                    )
                if stale:  # a mindsport database of an earlier version: bring its tables up
                    with self._write() as conn:
                        _upgrade(conn)
        except DBAPIError as exc:
            self.close()
            raise _unusable(shown, exc) from None
        except DatabaseError:
            self.close()
            raise

    # -- engine and transactions --------------------------------------------------------------
    @staticmethod
    def _make_engine(url: str, *, writer: bool = False) -> Engine:
        """An engine on ``url``; SQLite ``writer``: a pool of one connection with a page cache
        of :data:`SQLITE_WRITER_CACHE_MIB`."""
        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite":
            return create_engine(url, pool_size=20, max_overflow=20, pool_recycle=1800)
        if parsed.database in (None, "", ":memory:"):
            raise StoreError(f"database {url!r}: use a SQLite file, not an in-memory database")
        directory = os.path.dirname(os.path.abspath(parsed.database))
        if not os.path.isdir(directory):
            raise StoreError(
                f"database {parsed.database!r}: folder {directory!r} does not exist "
                "(create it first)"
            )
        engine = create_engine(
            url,
            pool_size=1 if writer else 8,
            max_overflow=0 if writer else 32,
            connect_args={"timeout": 60.0},
        )
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
            # the writer leaves checkpoints to the store's checkpoint thread
            cur.execute(f"PRAGMA wal_autocheckpoint={0 if writer else SQLITE_CHECKPOINT_PAGES}")
            # after a checkpoint the log is cut back to this size (it is reused, not regrown)
            cur.execute(f"PRAGMA journal_size_limit={SQLITE_CHECKPOINT_PAGES * 4096}")
            if writer:
                cur.execute(f"PRAGMA cache_size=-{SQLITE_WRITER_CACHE_MIB * 1024}")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Connection) -> None:
            write = conn.get_execution_options().get("mindsport_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction; what :meth:`_after_commit` registers runs once it committed."""
        with self._writer_lock, self._writer_engine.connect() as conn:
            conn.execution_options(mindsport_write=True)
            after: list[Callable[[], None]] = []
            conn.info[_AFTER_COMMIT] = after
            try:
                with conn.begin():
                    yield conn
            finally:
                conn.info.pop(_AFTER_COMMIT, None)
            if self._checkpointer is not None:
                self._checkpointer.committed()
            for fn in after:
                fn()

    @staticmethod
    def _after_commit(conn: Connection, fn: Callable[[], None]) -> None:
        """Run ``fn`` once the write transaction of ``conn`` has committed (never on rollback)."""
        conn.info[_AFTER_COMMIT].append(fn)

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    def transaction(self) -> AbstractContextManager[Connection]:
        """One write transaction on the store's database, queued with the store's own writers
        (for the tables other parts of the package keep in it, such as events)."""
        return self._write()

    def snapshot(self) -> AbstractContextManager[Connection]:
        """One read transaction on the store's database."""
        return self._read()

    def _fetch(self, sql: str, args: Sequence[Any]) -> list[Any]:
        """The rows of one read statement (``?`` placeholders), straight through the driver on a
        connection of the calling thread in autocommit mode: the hot path's reads (the key
        check) skip the SQL toolkit's per-statement work and the pool. A connection that fails
        (the server restarted) is replaced once."""
        for attempt in (0, 1):
            raw = getattr(self._local, "raw", None)
            if raw is None:
                raw = self.engine.raw_connection()
                if not self.is_sqlite:
                    raw.driver_connection.autocommit = True  # type: ignore[union-attr]
                self._local.raw = raw
                with self._cache_lock:
                    self._readers.append(raw)
            try:
                cur = raw.cursor()
                cur.execute(self._sql(sql), tuple(args))
                rows = list(cur.fetchall())
                cur.close()
                return rows
            except self.engine.dialect.loaded_dbapi.OperationalError:
                self._local.raw = None
                with self._cache_lock:
                    self._readers.remove(raw)
                raw.invalidate()
                if attempt:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        """Finish queued writes and release the connection pool."""
        self._committer.close()
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._cache_lock:
            readers, self._readers = self._readers, []
        for raw in readers:
            raw.invalidate()  # closed, not returned to the pool
        self.engine.dispose()
        self._writer_engine.dispose()

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
        params = self._check_new_league(name, model, params)
        try:
            with self._write() as conn:
                return self._insert_league(conn, name, model, params)
        except IntegrityError as exc:  # lost a creation race on PostgreSQL
            raise ConflictError(f"league {name!r} already exists") from exc

    def _check_new_league(
        self, name: str, model: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        if not isinstance(name, str) or not _LEAGUE_NAME.match(name):
            raise StoreError(
                f"league name {name!r}: use 1-100 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )
        out = dict(params or {})
        self.model_for(model, out)
        return out

    def _insert_league(
        self, conn: Connection, name: str, model: str, params: dict[str, Any]
    ) -> League:
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
        _check_league_name(name)
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

    def _lock_league(self, conn: Connection, name: str) -> _LeagueRow:
        """The league row, with the league's write lock held until the transaction ends
        (:meth:`_lock_and_read` with nothing more to read)."""
        return self._lock_and_read(conn, name, (), ())[0]

    def _insert_many(
        self, cur: Any, head: str, row: str, rows: list[tuple[Any, ...]], tail: str = ""
    ) -> None:
        """``head VALUES row tail`` for each of ``rows`` (``head`` is ``INSERT INTO table
        (columns)``). SQLite: one prepared statement run per row, in a C loop.

        PostgreSQL, neither the driver nor the server working per statement: rows simply
        appended (no ``tail``) are streamed in binary ``COPY`` (:func:`_copy_in`: 2,800 history
        rows, a batch of 1,000 matches' worth, took 23 ms from the first byte sent to the commit
        and 2 ms of the driver's time, against 36 and 6 ms as the JSON array below); rows with a
        ``tail`` (an upsert) are sent as one JSON array that the server takes apart
        (:func:`_json_insert`), in one statement whose text does not depend on the number of
        rows, so it is prepared and planned once."""
        if not rows:
            return
        if self.is_sqlite:
            cur.executemany(self._sql(f"{head} VALUES {row}{tail}"), rows)
            return
        if not tail:
            width = len(_copy_in(head)[1])
            if set(map(len, rows)) != {width}:
                raise StoreError(f"{head}: rows of {width} values expected")
            with _copy_rows(cur, head) as send:
                send(rows)
            return
        sql, width = _json_insert(head, tail)
        if set(map(len, rows)) != {width}:
            raise StoreError(f"{head}: rows of {width} values expected")
        cur.execute(sql, (json.dumps(rows, default=_json_value),))

    def _sql(self, text: str) -> str:
        """Driver SQL from ``text`` written with ``?`` placeholders and ``JSON(?)`` for a JSON
        value given as text (SQLite stores the text; PostgreSQL casts it)."""
        got = self._sql_cache.get(text)
        if got is None:
            if self.is_sqlite:
                got = text.replace("JSON(?)", "?")
            else:
                got = text.replace("JSON(?)", "CAST(%s AS JSON)").replace("?", "%s")
            self._sql_cache[text] = got
        return got

    def _league_id(self, conn: Connection, name: str) -> int:
        _check_league_name(name)
        lid = conn.execute(select(leagues.c.id).where(leagues.c.name == name)).scalar()
        if lid is None:
            raise NotFoundError(f"league {name!r} does not exist")
        return int(lid)

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
        if admin == (league is not None):
            raise StoreError(
                "a key is either an admin key (admin=True, no league) or a write key of one league"
            )
        if label is not None:
            why = id_problem(label)
            if why is None and len(label) > 100:
                why = "is longer than 100 characters"
            if why is not None:
                raise StoreError(f"key label {label[:40]!r} {why}")
        now = datetime.now(UTC)
        expiry = None if expires_at is None else aware(expires_at)
        if expiry is not None and expiry <= now:
            raise StoreError(f"expiry {expiry.isoformat()} is not in the future")
        key = new_key()
        role = KeyRole.ADMIN if admin else KeyRole.WRITE
        with self._write() as conn:
            lid = None if league is None else self._league_id(conn, league)
            res = conn.execute(
                insert(api_keys).values(
                    league_id=lid,
                    role=role.value,
                    key_hash=hash_key(key),
                    prefix=key_prefix(key),
                    label=label,
                    created_at=now,
                    expires_at=expiry,
                    revoked_at=None,
                )
            )
            pk = res.inserted_primary_key
            assert pk is not None
            key_id = int(pk[0])
        return key, ApiKey(key_id, role, league, key[:PREFIX_LENGTH], label, now, expiry, None)

    def create_key(
        self,
        league: str | None = None,
        *,
        admin: bool = False,
        expires_at: datetime | None = None,
        label: str | None = None,
    ) -> str:
        """A new key (see :meth:`issue_key`): shown once, only its SHA-256 is stored."""
        return self.issue_key(league, admin=admin, expires_at=expires_at, label=label)[0]

    def _key_rows(self) -> Any:
        k = api_keys.c
        return select(
            k.id, k.role, leagues.c.name.label("league"), k.prefix, k.label, k.created_at,
            k.expires_at, k.revoked_at,
        ).select_from(api_keys.outerjoin(leagues, leagues.c.id == k.league_id))  # fmt: skip

    @staticmethod
    def _key_of(row: Any) -> ApiKey:
        return ApiKey(
            int(row.id),
            KeyRole(row.role),
            row.league,
            row.prefix,
            row.label,
            aware(row.created_at),
            None if row.expires_at is None else aware(row.expires_at),
            None if row.revoked_at is None else aware(row.revoked_at),
        )

    def list_keys(self, league: str | None = None) -> list[ApiKey]:
        """Every key (revoked and expired ones included), or the write keys of ``league``."""
        with self._read() as conn:
            q = self._key_rows().order_by(api_keys.c.id)
            if league is not None:
                q = q.where(api_keys.c.league_id == self._league_id(conn, league))
            return [self._key_of(r) for r in conn.execute(q)]

    def revoke_key(self, key_id: int) -> ApiKey:
        """Revoke key ``key_id`` (by its number in :meth:`list_keys`): it is refused from now on.
        Revoking a revoked key changes nothing."""
        if isinstance(key_id, bool) or not isinstance(key_id, int) or not 0 < key_id < 2**31:
            raise NotFoundError(f"no API key number {key_id!r}")
        with self._write() as conn:
            conn.execute(
                update(api_keys)
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=datetime.now(UTC))
            )
            row = conn.execute(self._key_rows().where(api_keys.c.id == key_id)).first()
        if row is None:
            raise NotFoundError(f"no API key number {key_id}")
        return self._key_of(row)

    def authorize(self, key: str | None, league: str | None = None) -> KeyRole:
        """The role of ``key`` when it may write to ``league`` (``None``: admin actions).

        Raises :class:`MissingKeyError` without a key, :class:`KeyRefusedError` for a key that
        is unknown, revoked, expired or of another league (or not an admin key where one is
        needed), and :class:`NotFoundError` for a good key and an unknown league. Reads the
        key's row on every call (a revocation holds at once); the comparison is constant-time.
        """
        if not key:
            raise MissingKeyError("header X-API-Key is required")
        prefix = key_prefix(key)
        rows: list[Any] = []
        if prefix is not None:
            sql = "SELECT key_hash, role, league_id, expires_at, revoked_at"
            # keys made before prefixes had 12 characters are stored with 10
            args: tuple[Any, ...] = (prefix, prefix[:_OLD_PREFIX_LENGTH])
            if league is not None and _LEAGUE_NAME.match(league):
                sql += ", (SELECT id FROM ms_leagues WHERE name = ?)"
                args = (league, *args)
            rows = self._fetch(sql + " FROM ms_api_keys WHERE prefix IN (?, ?)", args)
        found = key_matches([r[0] for r in rows], key)
        if found is None:
            raise KeyRefusedError("X-API-Key is not a valid key")
        _, role_name, key_league, expires_at, revoked_at, *rest = rows[found]
        if revoked_at is not None:
            raise KeyRefusedError(f"X-API-Key {key[:PREFIX_LENGTH]}... was revoked")
        if expires_at is not None and _as_time(expires_at) <= datetime.now(UTC):
            raise KeyRefusedError(
                f"X-API-Key {key[:PREFIX_LENGTH]}... expired at {_as_time(expires_at).isoformat()}"
            )
        role = KeyRole(role_name)
        if league is None:
            if role is not KeyRole.ADMIN:
                raise KeyRefusedError("this needs an admin key")
            return role
        target = rest[0] if rest else None
        if target is None:
            raise NotFoundError(f"league {league!r} does not exist")
        if role is not KeyRole.ADMIN and key_league != target:
            raise KeyRefusedError(f"X-API-Key is not a write key of league {league!r}")
        return role

    def check_key(self, league: str, key: str | None) -> bool:
        """Whether ``key`` may write to ``league`` (:class:`NotFoundError` if no such league)."""
        try:
            self.authorize(key, league)
        except (MissingKeyError, KeyRefusedError):
            self.get_league(league)
            return False
        return True

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
            made = (create[0], self._check_new_league(league, create[0], create[1]))
        elif not prepared.records:
            self.get_league(league)
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
        with self._write() as conn:
            try:
                row, known, current = self._lock_and_read(conn, league, ids, names)
            except NotFoundError as exc:
                made = requests[0].create  # a creating request is always alone
                if made is None:
                    return [exc for _ in requests]
                self._insert_league(conn, league, made[0], dict(made[1]))
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
        _check_league_name(name)
        if self.is_sqlite:
            cur = _cursor(conn)
            cur.execute(self._sql(_LEAGUE_ROW_SQL), (name,))
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
        cur = _cursor(conn)
        if not self.is_sqlite:
            cur.execute(_PG_KNOWN_SQL.format(league="%s"), (list(ids), lid), prepare=False)
            return dict(cur.fetchall())
        known: dict[str, str] = {}
        for chunk in _chunks(ids):
            cur.execute(
                self._sql(_KNOWN_SQL + "? AND match_id IN (" + ",".join("?" * len(chunk)) + ")"),
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
        model = self.model_for(row.model, row.params)
        cur = _cursor(conn)
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
                    if old != digest and self._stored_digest(conn, lid, mid) != digest:
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
            self._insert_many(
                cur,
                *_MATCH_INSERT,
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
                self._sql("UPDATE ms_leagues SET last_seq = ?, max_time = ? WHERE id = ?"),
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

    @staticmethod
    def _stored_digest(conn: Connection, lid: int, match_id: str) -> str | None:
        """The digest of a recorded match in today's canonical form (rows written by earlier
        versions carry a digest of another form)."""
        m = matches.c
        row = conn.execute(
            select(
                m.time_value, m.teams, m.ranks, m.weights, m.scores, m.roles, m.deal, m.luck
            ).where(m.league_id == lid, m.match_id == match_id)
        ).first()
        if row is None:
            return None
        return _digest(
            row.time_value, row.teams, row.ranks, row.weights, row.scores,
            row.roles, row.deal, row.luck,
        )  # fmt: skip

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
        players (:class:`~mindsport.store.league.VirtualPlayers`) starts from ``virtual`` (their
        states, updated in place). A match the model refuses raises :class:`StoreError` naming
        it. ``emit``, if given, receives each block's history rows as soon as they are made
        (``block_size`` matches a block)."""
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
            extra = _from_json_text(h[6])
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
        for chunk in _chunks(deals):
            found.extend(conn.execute(q.where(v.kind == "deal", v.deal.in_(chunk))))
        return {tuple(json.loads(r.key)): (float(r.mu), float(r.sigma)) for r in found}

    def _write_virtual(
        self, conn: Connection, lid: int, states: Mapping[tuple[str, ...], tuple[float, float]]
    ) -> None:
        """Insert or update the league's virtual players ``states``."""
        self._insert_many(
            _cursor(conn),
            "INSERT INTO ms_virtual_ratings (league_id, key, kind, name, deal, mu, sigma)",
            "(?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    lid,
                    _CANONICAL_JSON(list(key)),
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
        cur = _cursor(conn)
        self._insert_many(cur, *_HISTORY_INSERT, history)
        self._insert_many(
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
            with _copy_rows(_cursor(conn), _HISTORY_INSERT[0]) as send:
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
        cur = _cursor(conn)
        if not self.is_sqlite:
            cur.execute(_PG_CURRENT_SQL.format(league="%s"), (list(names), lid), prepare=False)
            return _players_of(cur.fetchall())
        players: dict[str, _Player] = {}
        for chunk in _chunks(names):
            cur.execute(
                self._sql(_CURRENT_SQL + "? AND player IN (" + ",".join("?" * len(chunk)) + ")"),
                (lid, *chunk),
            )
            players.update(_players_of(cur.fetchall()))
        return players

    def _log_rows(
        self, conn: Connection, lid: int, pos: tuple[float, int] | None
    ) -> list[dict[str, Any]]:
        """The league's match log in replay order (time, then seq), from ``pos`` = (time, seq)
        on (``None``: all of it), as :func:`_log_row` dicts. Read through the driver: a replay
        after a late match reads thousands of rows, and the general row objects and the
        driver's own JSON parse of every column (nulls included) cost more than the replay."""
        sql = _REPLAY_SQL
        args: list[Any] = [lid]
        if pos is not None:
            sql += _FROM_POSITION
            args += [pos[0], pos[0], pos[1]]
        cur = _cursor(conn)
        cur.execute(self._sql(sql + _REPLAY_ORDER), args)
        return [_log_row(r) for r in cur.fetchall()]

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
            self._clear_derived(conn, lid)
        rows = self._log_rows(conn, lid, pos)
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
            _cursor(conn).executemany(
                self._sql(_HISTORY_DELETE_FROM),
                [(lid, p, t, t, s) for p, (t, s) in first.items()],
            )
            names = sorted(first)
            for chunk in _chunks(names):
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

    @staticmethod
    def _clear_derived(conn: Connection, lid: int) -> None:
        """Delete every derived row of league ``lid`` (what any model keeps)."""
        for table in (rating_history, ratings, virtual_ratings, skill_curve):
            conn.execute(delete(table).where(table.c.league_id == lid))

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
                kept.history.add([_match_of(r) for r in rows])
            except MindsportError as exc:  # refused before anything changed: keep the graph
                with self._cache_lock:
                    self._smoothed.setdefault(key, kept)
                raise StoreError(f"model {model.name!r} rejected a match: {exc}") from exc
            except ConvergenceError as exc:  # the graph is dropped (rebuilt on the next post)
                raise _unsettled(model, exc) from exc
            rebuilt = 0
        else:
            rows = self._log_rows(conn, lid, None)
            try:
                history = model.history([_match_of(r) for r in rows])
            except MindsportError as exc:
                raise StoreError(f"model {model.name!r} rejected a match: {exc}") from exc
            except ConvergenceError as exc:
                raise _unsettled(model, exc) from exc
            kept = _Smoothed(last_seq, history, {}, {}, {})
            self._clear_derived(conn, lid)
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

        self._after_commit(conn, keep)
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
            for chunk in _chunks(players):
                conn.execute(delete(skill_curve).where(c.league_id == lid, c.player.in_(chunk)))
        cur = _cursor(conn)
        self._insert_many(
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
        self._insert_many(
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
        if not 0 <= offset <= MAX_OFFSET:
            raise StoreError(f"offset must lie in [0, {MAX_OFFSET}], got {offset}")
        if not 1 <= limit <= MAX_OFFSET:
            raise StoreError(f"limit must lie in [1, {MAX_OFFSET}], got {limit}")
        if search is not None:
            why = text_problem(search)
            if why is not None:
                raise StoreError(f"search {search[:40]!r} {why}")
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
        spec = self._models.get(model_name)
        return LeaderboardPage(
            league, total, offset, limit, entries, None if spec is None else spec.display, roles
        )

    def player(self, league: str, player: str, *, history: bool = True) -> PlayerRecord:
        """A player's current rating, overall rank and rating after each of their matches."""
        why = id_problem(player)
        if why is not None:
            raise StoreError(f"player id {player[:40]!r} {why}")
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

    def _check_teams(self, teams: Sequence[Sequence[str]]) -> list[list[str]]:
        if isinstance(teams, str) or len(teams) < 2:
            raise StoreError(f"teams: need at least two teams, got {teams!r}")
        seen: set[str] = set()
        out: list[list[str]] = []
        for t in teams:
            if isinstance(t, str) or len(t) == 0:
                raise StoreError(f"teams: each team is a non-empty list of player ids, got {t!r}")
            for p in t:
                why = id_problem(p)
                if why is not None:
                    raise StoreError(f"teams: player id {p!r} {why}")
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
        deadline: float | None = None,
    ) -> Pairing:
        """Balanced tables of ``shape`` from waiting ``players`` (:mod:`mindsport.matchmaking`;
        ``deadline``, a :func:`time.monotonic` value, bounds the search)."""
        parse_shape(shape)
        if isinstance(players, str):
            raise StoreError(f"players: expected a list of player ids, got {players!r}")
        if len(players) > MAX_POOL:
            raise StoreError(f"players: {len(players)} players, at most {MAX_POOL}")
        seen: set[str] = set()
        for p in players:
            why = id_problem(p)
            if why is not None:
                raise StoreError(f"players: player id {p!r} {why}")
            if p in seen:
                raise StoreError(f"players: player {p!r} appears twice")
            seen.add(p)
        lm, states = self.team_states(league, [[p] for p in players], allow_new=allow_new)
        pool = {p: st[0] for p, st in zip(players, states, strict=True)}
        return matchmake(
            pool, shape, lambda teams: lm.quality(teams), strength=lm.exposed, deadline=deadline
        )
