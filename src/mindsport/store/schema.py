"""Database tables (SQLAlchemy Core).

* ``leagues``: one rating pool each, with its model name and JSON parameters, plus the counters
  the writers maintain under the league lock (``last_seq``: the sequence number of the latest
  committed match; ``max_time``: the latest match time).
* ``matches``: the append-only match log, the source of truth. ``seq`` numbers a league's
  matches in commit order; ratings are derived by replaying matches ordered by
  ``(time_value, seq)``. ``digest`` is a SHA-256 of the normalised record, used to tell an
  identical re-post (ignored) from a conflicting one (refused).
* ``ratings``: current rating per (league, player), derived.
* ``rating_history``: the rating after every match a player took part in, derived.
* ``api_keys``: API keys, as SHA-256 hashes (the key itself is never stored) with a public
  prefix to find them: write keys of one league (``role`` ``write``) and admin keys
  (``role`` ``admin``, no league), each with an optional expiry and a revocation time.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)

__all__ = ["api_keys", "leagues", "matches", "metadata", "rating_history", "ratings"]

metadata = MetaData()

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
)

matches = Table(
    "ms_matches",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("league_id", Integer, ForeignKey("ms_leagues.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("match_id", String(200), nullable=False),
    Column("time_value", Double, nullable=False),
    Column("time_iso", String(64), nullable=True),
    Column("teams", JSON, nullable=False),
    Column("ranks", JSON, nullable=False),
    Column("weights", JSON, nullable=True),
    Column("scores", JSON, nullable=True),
    Column("digest", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("league_id", "match_id", name="uq_ms_matches_league_match"),
    UniqueConstraint("league_id", "seq", name="uq_ms_matches_league_seq"),
    Index("ix_ms_matches_order", "league_id", "time_value", "seq"),
)

ratings = Table(
    "ms_ratings",
    metadata,
    Column(
        "league_id",
        Integer,
        ForeignKey("ms_leagues.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("player", String(200), primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("extra", JSON, nullable=True),
    Column("exposed", Double, nullable=False),
    Column("games", Integer, nullable=False),
    Column("last_time", Double, nullable=False),
    Index("ix_ms_ratings_board", "league_id", "exposed"),
)

rating_history = Table(
    "ms_rating_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("league_id", Integer, ForeignKey("ms_leagues.id", ondelete="CASCADE"), nullable=False),
    Column("player", String(200), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("time_value", Double, nullable=False),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("extra", JSON, nullable=True),
    Column("games", Integer, nullable=False),
    Index("ix_ms_history_player", "league_id", "player", "time_value", "seq"),
    Index("ix_ms_history_order", "league_id", "time_value", "seq"),
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
