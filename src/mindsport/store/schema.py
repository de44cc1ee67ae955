"""Database tables (SQLAlchemy Core).

* ``leagues``: one rating pool each, with its model name and JSON parameters, plus the counters
  the writers maintain under the league lock (``last_seq``: the sequence number of the latest
  committed match; ``max_time``: the latest match time) and its policy for late results
  (``late``, ``late_limit``: :mod:`mindsport.store.late`; databases of earlier versions get
  them added in place, their leagues ``replay``). In a league whose policy is ``arrival`` the
  ratings are derived by replaying its matches in ``seq`` order instead. ``catchup_time`` and
  ``catchup_seq``: where the re-rating after a late result has got to, while the league is
  being brought up to date in bounded pieces (:mod:`mindsport.store.catchup`; null when it is
  up to date), its pieces' new current ratings staged in ``ratings_pending`` and
  ``virtual_pending``.
* ``matches``: the append-only match log, the source of truth. ``seq`` numbers a league's
  matches in commit order; ratings are derived by replaying matches ordered by
  ``(time_value, seq)``. ``digest`` is a SHA-256 of the normalised record, used to tell an
  identical re-post (ignored) from a conflicting one (refused).
  ``roles``, ``deal`` and ``luck`` (null when not given) are what a game of chance adds
  (:class:`mindsport.match.Match`); databases of earlier versions get them added in place.
* ``ratings``: current rating per (league, player), derived.
* ``virtual_ratings``: current rating per (league, virtual player) of a model that rates
  virtual players (``cardplay``: a role's advantage, kind ``role``; a duplicate deal side's
  luck, kind ``deal``, with its ``deal`` id), derived; ``key`` is the JSON list naming it,
  ``name`` its shown name; and the model's seat statistics, kind ``seats``, two sums a row in
  ``mu`` and ``sigma`` (:meth:`mindsport.rating.trueskill.seats.SeatStatistics.states`).
  Never players: they appear on no leaderboard, search or player page.
* ``rating_history``: the rating after every match a player took part in, derived (online
  models).
* ``skill_curve``: a whole-history model's smoothed skill of each player at every time step he
  played in (``time_value``: the step's start on the match log's time axis), derived from the
  whole match log; a later result (late ones included) revises the earlier points. Databases of
  earlier versions get the table when opened.
* ``api_keys``: API keys, as SHA-256 hashes (the key itself is never stored) with a public
  prefix to find them: write keys of one league (``role`` ``write``) and admin keys
  (``role`` ``admin``, no league), each with an optional expiry and a revocation time.
* ``ms_events`` and the tables under it: tournament events run by :mod:`mindsport.event` (their
  settings, registrations, rounds with their tables and deals, table results and the log of
  amended results, the forfeits of its bot entrants, the log of undos and corrections); an
  event's final results go into a league's match log.

The match log and the tables derived from it carry their league's id without a foreign key:
leagues are never deleted, and every row of them is written in a transaction that holds the
league's write lock and has just read the league's row. PostgreSQL checks a foreign key with
one query per inserted row (a batch of 1,000 matches and its 2,800 history rows took its writer
103 ms with them, 65 ms without), a cost that buys nothing here; databases of earlier versions
have those keys dropped when opened.

The match log and the rating history are keyed by what identifies a row, not by a row number:
a match by its league and ``seq``, a history row by its league, player, time and ``seq`` (the
order a player's page and a replay's starting point read it in). A row number costs every
insert a sequence step and one more index: on PostgreSQL, commits of 1,000 matches took 35 ms
with one and 29.5 ms without. PostgreSQL databases of earlier versions have that column (``id``)
dropped when opened; SQLite keeps it, as the table's own row number, which costs nothing.

The rating history has that key and no other index. Every read of it is by player (a player's
page, a replay's starting point), and so is the one place rows are deleted: a late match makes
the store re-rate the matches that depend on it, which for each player involved are all his
matches from his first affected one on, one range of the key. An index in time order, which
earlier versions kept for that delete, cost every inserted row about 30% of its time on
PostgreSQL (8,400 rows, 33 ms with it, 24 ms without); databases of earlier versions have it
dropped when opened (:data:`DROPPED_INDEXES`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

__all__ = [
    "DROPPED_INDEXES",
    "LEAGUE_DATA",
    "SURROGATE_ID_TABLES",
    "api_keys",
    "event_amendments",
    "event_forfeits",
    "event_log",
    "event_players",
    "event_results",
    "event_rounds",
    "event_tables",
    "events",
    "leagues",
    "matches",
    "metadata",
    "rating_history",
    "ratings",
    "ratings_pending",
    "skill_curve",
    "virtual_pending",
    "virtual_ratings",
]

metadata = MetaData()

#: the tables filled by writes to a league, whose league id has no foreign key (see above)
LEAGUE_DATA = (
    "ms_matches", "ms_ratings", "ms_virtual_ratings", "ms_rating_history", "ms_skill_curve",
    "ms_ratings_pending", "ms_virtual_pending",
)  # fmt: skip
#: the tables whose row number column ``id`` earlier versions had (see above)
SURROGATE_ID_TABLES = ("ms_matches", "ms_rating_history")
#: indexes of earlier versions that are no longer kept, by table (see above)
DROPPED_INDEXES = {"ms_rating_history": ("ix_ms_history_order",)}

leagues = Table(
    "ms_leagues",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("model", String(40), nullable=False),
    Column("params", JSON, nullable=False),
    Column("last_seq", Integer, nullable=False, default=0),
    Column("max_time", Double, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # the policy for late results (mindsport.store.late) and its age limit (``refuse`` only)
    Column("late", String(16), nullable=False, server_default="replay"),
    Column("late_limit", Double, nullable=True),
    # where the re-rating after a late result has got to (mindsport.store.catchup): null seq
    # when the league is up to date; seq 0 with a null time: from the start of the log
    Column("catchup_time", Double, nullable=True),
    Column("catchup_seq", Integer, nullable=True),
    # what the league's numeric match times mean (mindsport.store.values.TIME_UNITS): display
    Column("time_unit", String(16), nullable=False, server_default="number"),
)

matches = Table(
    "ms_matches",
    metadata,
    Column("league_id", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("match_id", String(200), nullable=False),
    Column("time_value", Double, nullable=False),
    Column("time_iso", String(64), nullable=True),
    Column("teams", JSON, nullable=False),
    Column("ranks", JSON, nullable=False),
    Column("weights", JSON, nullable=True),
    Column("scores", JSON, nullable=True),
    Column("roles", JSON, nullable=True),
    Column("deal", String(200), nullable=True),
    Column("luck", JSON, nullable=True),
    Column("digest", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("league_id", "seq", name="pk_ms_matches"),
    UniqueConstraint("league_id", "match_id", name="uq_ms_matches_league_match"),
    Index("ix_ms_matches_order", "league_id", "time_value", "seq"),
)


def _league_key() -> Column[int]:
    """The league id as the first part of a table's primary key (rows go with their league)."""
    return Column("league_id", Integer, primary_key=True)


def _rating_columns() -> list[Column[Any]]:
    """A player's current rating: the columns of ``ms_ratings`` and of its staging table."""
    return [
        _league_key(),
        Column("player", String(200), primary_key=True),
        Column("mu", Double, nullable=False),
        Column("sigma", Double, nullable=False),
        Column("extra", JSON, nullable=True),
        Column("exposed", Double, nullable=False),
        Column("games", Integer, nullable=False),
        Column("last_time", Double, nullable=False),
        # what the leaderboard's search compares (mindsport.match.search_key: the case folding
        # of the NFC id), computed in Python so that SQLite and PostgreSQL find the same players
        Column("search_key", Text, nullable=True),
    ]


def _virtual_columns() -> list[Column[Any]]:
    """A virtual player's state (a role or a deal, see :mod:`mindsport.store.values`): the
    columns of ``ms_virtual_ratings`` and of its staging table."""
    return [
        _league_key(),
        Column("key", Text, primary_key=True),
        Column("kind", String(10), nullable=False),
        Column("name", Text, nullable=False),
        Column("deal", String(200), nullable=True),
        Column("mu", Double, nullable=False),
        Column("sigma", Double, nullable=False),
    ]


ratings = Table(
    "ms_ratings", metadata, *_rating_columns(), Index("ix_ms_ratings_board", "league_id", "exposed")
)

virtual_ratings = Table("ms_virtual_ratings", metadata, *_virtual_columns())

#: the new current ratings of the players re-rated so far by a league's catch-up after a late
#: result (:mod:`mindsport.store.catchup`): moved into ``ms_ratings`` in one statement when the
#: catch-up reaches the end of the log, so the league serves its last consistent ratings until then
ratings_pending = Table("ms_ratings_pending", metadata, *_rating_columns())

#: the same for virtual players (a catch-up of a model that rates them starts from the first
#: match: these are their states at the catch-up's position)
virtual_pending = Table("ms_virtual_pending", metadata, *_virtual_columns())

rating_history = Table(
    "ms_rating_history",
    metadata,
    Column("league_id", Integer, nullable=False),
    Column("player", String(200), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("time_value", Double, nullable=False),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("extra", JSON, nullable=True),
    Column("games", Integer, nullable=False),
    # a player's rows in time order (one row per player and match: (league, player, seq) is
    # unique already); the only key: see the module's text
    PrimaryKeyConstraint("league_id", "player", "time_value", "seq", name="pk_ms_rating_history"),
)

skill_curve = Table(
    "ms_skill_curve",
    metadata,
    _league_key(),
    Column("player", String(200), primary_key=True),
    Column("time_value", Double, primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
)

api_keys = Table(
    "ms_api_keys",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("league_id", Integer, ForeignKey("ms_leagues.id", ondelete="CASCADE"), nullable=True),
    Column("role", String(10), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("prefix", String(16), nullable=False, index=True),
    Column("label", String(100), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)

# -- events (mindsport.event) ------------------------------------------------------------------

events = Table(
    "ms_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("league", String(100), nullable=False),
    Column("spec", JSON, nullable=False),
    Column("status", String(10), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
)


def _event_keys(*names: str, key: bool = True) -> list[Column[int]]:
    """The event id (a foreign key) and the integer columns ``names`` (e.g. round, table_no),
    as the primary key when ``key``."""
    fk = ForeignKey("ms_events.id", ondelete="CASCADE")
    return [
        Column("event_id", Integer, fk, primary_key=key, nullable=False),
        *(Column(n, Integer, primary_key=key, nullable=False) for n in names),
    ]


event_players = Table(
    "ms_event_players",
    metadata,
    *_event_keys(),
    Column("player", String(200), primary_key=True),
    Column("number", Integer, nullable=False),
    Column("bot", String(200), nullable=True),
    Column("joined", Integer, nullable=False),
    Column("withdrawn", Integer, nullable=True),
)

event_rounds = Table(
    "ms_event_rounds",
    metadata,
    *_event_keys("round"),
    Column("byes", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

event_tables = Table(
    "ms_event_tables",
    metadata,
    *_event_keys("round", "table_no"),
    Column("players", JSON, nullable=False),
    Column("deals", JSON, nullable=False),
)

event_results = Table(
    "ms_event_results",
    metadata,
    *_event_keys("round", "table_no"),
    Column("scores", JSON, nullable=False),
    Column("entered_by", String(100), nullable=True),
    Column("entered_at", DateTime(timezone=True), nullable=False),
)

event_amendments = Table(
    "ms_event_amendments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    *_event_keys("round", "table_no", key=False),
    Column("old_scores", JSON, nullable=False),
    Column("new_scores", JSON, nullable=False),
    Column("who", String(100), nullable=False),
    Column("why", String(500), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

event_forfeits = Table(
    "ms_event_forfeits",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    *_event_keys("round", "table_no", "board", key=False),
    Column("player", String(200), nullable=False),
    Column("reason", String(20), nullable=False),
    Column("detail", String(2000), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

event_log = Table(
    "ms_event_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    *_event_keys(key=False),
    Column("action", String(20), nullable=False),
    Column("round", Integer, nullable=True),
    Column("player", String(200), nullable=True),
    Column("detail", String(2000), nullable=False),
    Column("who", String(100), nullable=False),
    Column("why", String(500), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)
