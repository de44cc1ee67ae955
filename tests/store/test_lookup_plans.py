"""PostgreSQL's plans of the store's lookups by a unique key under a league (issue 42): a post's
match ids and players, and the reads of some players' ratings, use the unique indexes in a league
the table's statistics do not know (made since the last ANALYZE), not the league's whole log or
leaderboard with a filter. The planner is the reference: ``EXPLAIN`` of the statements the store
runs."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, select, text

from mindsport.history import Match
from mindsport.store import Store, resolve_url
from mindsport.store.league_lock import _PG_CURRENT_SQL, _PG_KNOWN_SQL, _PG_LEAGUE_ID
from mindsport.store.schema import ratings

pytestmark = pytest.mark.postgres


def _matches(prefix: str, n: int) -> list[Match]:
    return [
        Match(f"{prefix}{i}", i, [[f"{prefix}a{i % 2_000}"], [f"{prefix}b{i % 1_500}"]], [0, 1])
        for i in range(n)
    ]


def test_lookups_use_the_unique_indexes_in_a_league_new_to_the_statistics(pg_url: str) -> None:
    with Store(pg_url) as store:
        store.create_league("old")
        store.add_matches("old", _matches("o", 3_000))
        engine = create_engine(resolve_url(pg_url))
        try:
            with engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))
            store.create_league("new")  # after the statistics were made: unknown to them
            store.add_matches("new", _matches("n", 3_000))
            with engine.connect() as conn:
                lid = conn.execute(text("SELECT id FROM ms_leagues WHERE name = 'new'")).scalar()
                pk_ratings = conn.execute(
                    text(
                        "SELECT conname FROM pg_constraint WHERE conrelid = 'ms_ratings'::regclass"
                        " AND contype = 'p'"
                    )
                ).scalar()
                cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
                for sql, keys, index in (
                    (_PG_KNOWN_SQL, ["n5", "n2999"], "uq_ms_matches_league_match"),
                    (_PG_CURRENT_SQL, ["na1", "nb44"], pk_ratings),
                ):
                    cur.execute("EXPLAIN " + sql.format(league=_PG_LEAGUE_ID), (keys, lid))
                    plan = "\n".join(row[0] for row in cur.fetchall())
                    assert (
                        f"Index Scan using {index}" in plan or f"Only Scan using {index}" in plan
                    ), plan
                    assert "Filter" not in plan, plan
                # the reads of a player's or some players' ratings (player page, predictions)
                key = store._db.league_key(lid)
                for q in (
                    select(ratings.c.extra).where(
                        ratings.c.league_id == key, ratings.c.player == "nb44"
                    ),
                    select(ratings).where(
                        ratings.c.league_id == key, ratings.c.player.in_(["na1", "nb44"])
                    ),
                ):
                    sql = q.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True})
                    plan = "\n".join(conn.execute(text(f"EXPLAIN {sql}")).scalars())
                    assert f"using {pk_ratings}" in plan and "Filter" not in plan, plan
        finally:
            engine.dispose()
