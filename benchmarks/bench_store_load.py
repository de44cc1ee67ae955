"""A large file into a league (``mindsport rate FILE``) beside the floor any store pays, in one run.

A synthetic history (seeded): 1,000,000 one-against-one matches among 50,000 players
(``--matches``), written as a Parquet file. For each database (SQLite: a new file in a scratch
folder for each measure below, so each writes into tables as empty as the others'; PostgreSQL
at ``--pg``, default ``$MINDSPORT_TEST_POSTGRES_URL``, a league of its own for each, in the
order below: each writes into tables the ones before filled):

* ``read``: ``read_located`` of the file (what ``mindsport rate`` reads it with);
* ``rate``: ``Store.load_matches`` into a new TrueSkill league, history kept (what ``mindsport
  rate`` does after reading: the stored form, the league created, the ratings computed by the
  one replay driver, every row written, one transaction);
* ``plain floor``: the very rows ``rate`` wrote (the match log, the rating history, the current
  ratings, read back) inserted again, in the order ``rate`` writes them (the history in the
  order of its key, player by player), into another new league, nothing computed, the plain
  way (SQLite: ``executemany`` of one row a run, every value bound, in one transaction;
  PostgreSQL: ``COPY``): what writing the rows costs whatever computes them;
* ``store floor``: the same with the store's own insert of the match log and the history
  (:func:`mindsport.store.bulk.insert_columns`; SQLite: the values every row shares written
  into the statement, 32 rows a run; PostgreSQL: the same ``COPY``): what writing costs
  ``rate`` itself;
* ``group commit``: ``Store.add_matches`` (the path ``rate`` took before) on the first
  ``--group-matches`` matches, for scale.

With ``--repeat R`` each of ``rate`` and the floors is run ``R`` times (each into a new database
or league) and the medians are reported, with every run's ``rate``. Reports matches per second
and ``rate`` against each floor (floor time / rate time: 1.0 against
the store's floor would be a rating that costs nothing), with the load average: the machine is
shared, ratios are what to compare.

    python benchmarks/bench_store_load.py [--matches 1000000] [--players 50000]
        [--backends sqlite,postgres] [--pg URL] [--group-matches 20000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from sqlalchemy import text

from mindsport.history import Match, write_matches
from mindsport.history.io import read_located
from mindsport.store import Store
from mindsport.store.bulk import _insert_columns, insert_columns, insert_many
from mindsport.store.database import cursor
from mindsport.store.history_rows import HISTORY_INSERT
from mindsport.store.match_log import MATCH_INSERT, RATINGS_UPSERT


def history(n: int, n_players: int, seed: int = 0) -> list[Match]:
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, n_players, (n, 2))
    same = pairs[:, 0] == pairs[:, 1]
    pairs[same, 1] = (pairs[same, 1] + 1) % n_players
    first_wins = rng.random(n) < 0.5
    names = [f"p{i}" for i in range(n_players)]
    return [
        Match(f"m{i}", 1_600_000_000 + 60 * i, [[names[a]], [names[b]]], [0, 1] if w else [1, 0])
        for i, ((a, b), w) in enumerate(zip(pairs.tolist(), first_wins.tolist(), strict=True))
    ]


_SELECTS = {
    "matches": "SELECT seq, match_id, time_value, time_iso, CAST(teams AS TEXT), "
    "CAST(ranks AS TEXT), CAST(weights AS TEXT), CAST(scores AS TEXT), CAST(roles AS TEXT), "
    "CAST(luck AS TEXT), deal, digest, created_at FROM ms_matches WHERE league_id = :l "
    "ORDER BY seq",
    "history": "SELECT player, seq, time_value, mu, sigma, CAST(extra AS TEXT), games "
    "FROM ms_rating_history WHERE league_id = :l ORDER BY seq",
    "ratings": "SELECT player, mu, sigma, CAST(extra AS TEXT), exposed, games, last_time, "
    "search_key FROM ms_ratings WHERE league_id = :l ORDER BY player",
}


def league_rows(st: Store, league: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of ``league`` in the three tables a rating writes (without the league id), in
    the order a large load writes them (the indexes are filled in the same order): the match
    log by seq, the history by its key (player, time, seq; players in code point order, as the
    store sorts them), the current ratings by player."""
    with st.engine.connect() as conn:
        lid = conn.execute(text("SELECT id FROM ms_leagues WHERE name = :n"), {"n": league})
        lid_v = lid.scalar_one()
        rows = {
            k: [tuple(r) for r in conn.execute(text(q), {"l": lid_v})] for k, q in _SELECTS.items()
        }
    rows["history"].sort(key=lambda r: (r[0], r[2], r[1]))
    return rows


def floor(st: Store, league: str, rows: dict[str, list[tuple[Any, ...]]], columns: bool) -> float:
    """Seconds to insert ``rows`` into a new league ``league`` in one transaction: the match
    log and the history one row a run with every value bound (``insert_many``), or, with
    ``columns``, with the store's columnar insert (``insert_columns``; its columns made before
    the clock starts); the current ratings with the store's upsert's insert either way."""
    st.create_league(league, "trueskill")
    db = st._db
    with st.engine.connect() as conn:
        lid = conn.execute(text("SELECT id FROM ms_leagues WHERE name = :n"), {"n": league})
        lid_v = lid.scalar_one()
    tables = {
        "ms_matches": (MATCH_INSERT, "matches"),
        "ms_rating_history": (HISTORY_INSERT, "history"),
    }
    made = {}
    for table, ((head, _), key) in tables.items():
        names = _insert_columns(head)[1]
        given = [(lid_v, *r) for r in rows[key]]
        made[table] = dict(zip(names, map(list, zip(*given, strict=True)), strict=True))
    start = time.perf_counter()
    with db.write() as conn:
        cur = cursor(conn)
        for table, ((head, row), _) in tables.items():
            if columns:
                insert_columns(db, cur, table, made[table])
            else:
                insert_many(db, cur, head, row, list(zip(*made[table].values(), strict=True)))
        # (every player is new to the league: inserted, as rate inserts them)
        insert_many(db, cur, *RATINGS_UPSERT[:2], [(lid_v, *r) for r in rows["ratings"]])
    return time.perf_counter() - start


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--pg", default=os.environ.get("MINDSPORT_TEST_POSTGRES_URL"))
    parser.add_argument("--group-matches", type=int, default=20_000)
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of rate and the floors; medians reported"
    )
    args = parser.parse_args()
    console = Console(width=150)
    n = args.matches
    console.print(f"{n:,} matches among {args.players:,} players; load average {load()}")
    table = Table(title=f"mindsport rate of {n:,} matches, history kept (matches per second)")
    heads = ("database", "read", "rate", "plain floor", "rate / plain", "store floor")
    for col in (*heads, "rate / store", "group commit"):
        table.add_column(col, justify="right")
    run = time.strftime("%Y%m%d%H%M%S")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.parquet"
        write_matches(path, history(n, args.players))
        for backend in args.backends.split(","):
            if backend == "postgres" and not args.pg:
                console.print("postgres: no URL (--pg or MINDSPORT_TEST_POSTGRES_URL): skipped")
                continue

            def url(name: str, backend: str = backend) -> str:
                return f"sqlite:///{folder}/{name}.db" if backend == "sqlite" else args.pg

            def drop(name: str, backend: str = backend) -> None:
                if backend == "sqlite":  # a million matches' database: about 400 MB
                    for end in ("", "-wal", "-shm"):
                        Path(f"{folder}/{name}.db{end}").unlink(missing_ok=True)

            start = time.perf_counter()
            _, matches = read_located(path)
            read_s = time.perf_counter() - start
            rates, plains, stores = [], [], []
            for r in range(args.repeat):
                tag = f"{run}-{r}"
                with Store(url(f"rate{r}")) as st:  # the compiled code loaded first
                    st.load_matches(f"warm-{tag}", matches[:1000], create=("trueskill", {}))
                    start = time.perf_counter()
                    st.load_matches(f"bulk-{tag}", matches, create=("trueskill", {}))
                    rates.append(time.perf_counter() - start)
                    rows = league_rows(st, f"bulk-{tag}")
                drop(f"rate{r}")
                with Store(url(f"plain{r}")) as st:
                    plains.append(floor(st, f"plain-{tag}", rows, columns=False))
                drop(f"plain{r}")
                with Store(url(f"store{r}")) as st:
                    stores.append(floor(st, f"store-{tag}", rows, columns=True))
                drop(f"store{r}")
                del rows
            rate_s, plain_s, store_s = map(statistics.median, (rates, plains, stores))
            k = min(n, args.group_matches)
            with Store(url("group")) as st:
                st.load_matches(f"warm-g-{run}", matches[:1000], create=("trueskill", {}))
                start = time.perf_counter()
                st.add_matches(f"group-{run}", matches[:k], create=("trueskill", {}))
                group_s = time.perf_counter() - start
            drop("group")
            each = " / ".join(f"{n / t:,.0f}" for t in rates)
            console.print(f"  {backend}: rate per run {each} matches/s")
            table.add_row(
                backend, f"{n / read_s:,.0f}", f"{n / rate_s:,.0f}", f"{n / plain_s:,.0f}",
                f"{plain_s / rate_s:.2f}", f"{n / store_s:,.0f}", f"{store_s / rate_s:.2f}",
                f"{k / group_s:,.0f}",
            )  # fmt: skip
            console.print(f"  {backend}: done (load {load()})")
    console.print(table)
    console.print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()
