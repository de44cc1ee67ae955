"""The bulk path into the store (``Store.load_matches``, ``mindsport rate FILE``) against the
group commit (``Store.add_matches``, the path every post took before): the same stored rows,
ratings and history; the same idempotency and conflicts; nothing written when a match is
refused; a batch that does not only append goes through the group commit."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest
from sqlalchemy import create_engine, text

from mindsport.errors import ConflictError, NotFoundError
from mindsport.history import Match
from mindsport.store import IngestResult, Store, StoreError, resolve_url
from mindsport.store.codec import encode
from mindsport.store.history_rows import KEY_ORDER_FROM, HistoryRows
from mindsport.store.load import stored_columns


def random_matches(seed: int, n: int, shape: str = "1v1") -> list[Match]:
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(30)] + ["j\u00fcrgen", 'q"uote', "back\\slash", "\u4e2d"]
    out = []
    for i in range(n):
        if shape == "1v1":
            a, b = rng.sample(names, 2)
            teams: list[list[str]] = [[a], [b]]
        elif shape == "2v2":
            ps = rng.sample(names, 4)
            teams = [ps[:2], ps[2:]]
        else:
            k = rng.choice([2, 3])
            ps = rng.sample(names, 5)
            teams = [ps[: 5 - k], ps[5 - k :]] if k == 2 else [ps[:1], ps[1:3], ps[3:]]
        ranks = rng.choice([[0, 1], [1, 0], [0, 0]]) if len(teams) == 2 else [0, 2, 1]
        t: Any = rng.choice(  # the same instant, however written: times only grow
            [
                1_600_000_000 + 60 * i,
                1_600_000_000.5 + 60 * i,
                datetime(2020, 9, 13, 12, 26, 40) + timedelta(minutes=i),  # 1,600,000,000 s
                datetime(2020, 9, 13, 20, 26, 40, tzinfo=timezone(timedelta(hours=8)))
                + timedelta(minutes=i),
            ]
        )
        weights = scores = None
        if rng.random() < 0.1 and shape != "1v1":  # (Glicko-2 rates no partial play)
            weights = [[1.0] * len(team) for team in teams]
            weights[0][0] = 0.5
        if rng.random() < 0.1:
            scores = [float(len(teams) - r) for r in ranks]
        out.append(Match(f"m{seed}-{i}", t, teams, ranks, weights, scores))
    return out


@pytest.mark.parametrize("shape", ["1v1", "2v2", "mixed"])
def test_stored_columns_are_the_codecs(shape: str) -> None:
    """The column-by-column stored form equals the codec's, match by match."""
    ms = random_matches(1, 300, shape)
    cols = stored_columns([*ms, ms[5]])  # an identical repeat counts once
    assert cols.size == 301 and cols.matches == ms
    for i, m in enumerate(ms):
        enc = encode(m)
        assert cols.json[i] == enc["json"]
        assert cols.digests[i] == enc["digest"]
        assert cols.time_values[i] == enc["time_value"]
        assert cols.time_isos[i] == enc["time_iso"]
    with pytest.raises(ConflictError, match="appears twice in the input"):
        stored_columns([*ms, Match(ms[3].id, ms[3].time, [["x"], ["y"]], [None, 0])])


@pytest.mark.parametrize(
    "names", [["ann", "bob", "cy", "dan"], ["ann", 'b"ob', "c\\y", "d\u00e4n"]]
)
def test_stored_columns_of_ids_json_writes_as_they_are_and_of_escaped_ones(
    names: list[str],
) -> None:
    ms = [
        Match(f"g{i}", i, [[names[i % 4], names[(i + 1) % 4]], [names[(i + 2) % 4]]], [i % 2, 0])
        for i in range(40)
    ]
    cols = stored_columns(ms)
    assert cols.json == [encode(m)["json"] for m in ms]
    assert cols.digests == [encode(m)["digest"] for m in ms]


def _tables(url: str, league: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a league has (no surrogate ids, no arrival stamps), in a fixed order."""
    engine = create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            lid = conn.execute(text("SELECT id FROM ms_leagues WHERE name = :n"), {"n": league})
            lid_v = lid.scalar_one()
            q = {
                "matches": "SELECT seq, match_id, time_value, time_iso, CAST(teams AS TEXT), "
                "CAST(ranks AS TEXT), CAST(weights AS TEXT), CAST(scores AS TEXT), digest "
                "FROM ms_matches WHERE league_id = :l ORDER BY seq",
                "history": "SELECT player, seq, time_value, mu, sigma, CAST(extra AS TEXT), "
                "games FROM ms_rating_history WHERE league_id = :l ORDER BY player, seq",
                "ratings": "SELECT player, mu, sigma, CAST(extra AS TEXT), exposed, games, "
                "last_time, search_key FROM ms_ratings WHERE league_id = :l ORDER BY player",
                "league": "SELECT last_seq, max_time FROM ms_leagues WHERE id = :l",
            }
            return {
                k: [tuple(r) for r in conn.execute(text(v), {"l": lid_v})] for k, v in q.items()
            }
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("model", "shape"), [("trueskill", "mixed"), ("elo", "mixed"), ("glicko2", "1v1")]
)
def test_the_bulk_path_stores_what_the_group_commit_stores(
    db_url: str, model: str, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ms = random_matches(2, 400, shape)
    head, tail = ms[:250], ms[250:]
    with Store(db_url) as st:
        with monkeypatch.context() as patched:  # the bulk path itself, not the group commit
            patched.setattr(Store, "add_matches", None)
            assert st.load_matches("bulk", head, create=(model, {})) == IngestResult(250, 0, 0)
            assert st.load_matches("bulk", tail, create=(model, {})) == IngestResult(150, 0, 0)
        st.add_matches("group", head, create=(model, {}))
        st.add_matches("group", tail)
        assert st.matches("bulk") == st.matches("group")  # as stored (times in UTC)
    assert _tables(db_url, "bulk") == _tables(db_url, "group")


def test_a_re_post_adds_nothing_and_a_conflict_writes_nothing(db_url: str) -> None:
    ms = random_matches(3, 200)
    with Store(db_url) as st:
        st.load_matches("main", ms, create=("trueskill", {}))
        before = _tables(db_url, "main")
        assert st.load_matches("main", ms) == IngestResult(0, 200, 0)
        more = random_matches(4, 50)
        changed = Match(ms[10].id, ms[10].time, ms[10].teams, [None, 0])
        with pytest.raises(ConflictError, match=f"{ms[10].id!r} is already recorded"):
            st.load_matches("main", [*more, changed])
        assert _tables(db_url, "main") == before
        with pytest.raises(ConflictError, match="appears twice in the input"):
            st.load_matches("fresh", [*more, Match(more[0].id, 1, [["a"], ["b"]], [0, 1])],
                            create=("trueskill", {}))  # fmt: skip
        with pytest.raises(NotFoundError):
            st.get_league("fresh")


def test_a_refused_match_leaves_nothing_not_even_the_league(db_url: str) -> None:
    many = [Match(f"m{i}", i, [[f"p{i % 7}"], [f"q{i % 5}"]], [0, 1]) for i in range(600)]
    many[450] = Match("m450", 450, [["p1", "p2"], ["q1"]], [0, 1])  # teams: glicko2 refuses
    with Store(db_url) as st:
        with pytest.raises(StoreError, match="'m450'"):
            st.load_matches("g", many, create=("glicko2", {}))
        with pytest.raises(NotFoundError):
            st.get_league("g")
        st.create_league("g", "glicko2")
        with pytest.raises(StoreError, match="'m450'"):
            st.load_matches("g", many)
        assert st.match_count("g") == 0 and st.states("g") == {}


def test_a_late_batch_goes_through_the_group_commit(db_url: str) -> None:
    """Matches earlier than recorded ones of their players are replayed, as a post is."""
    ms = random_matches(5, 120)
    late = [Match(f"late{i}", m.time, m.teams, [1, 0]) for i, m in enumerate(ms[10:20])]
    with Store(db_url) as st:
        st.load_matches("bulk", ms, create=("trueskill", {}))
        got = st.load_matches("bulk", late)
        st.add_matches("group", ms, create=("trueskill", {}))
        assert got == st.add_matches("group", late)
        assert got.replayed > 0
    assert _tables(db_url, "bulk") == _tables(db_url, "group")


def test_the_command_line_rates_a_file_on_the_bulk_path(tmp_path: Any) -> None:
    """``mindsport rate FILE`` twice: the league as the group commit makes it, then nothing
    new."""
    from typer.testing import CliRunner

    from mindsport.cli import app
    from mindsport.history import write_matches

    ms = random_matches(6, 300)
    path = tmp_path / "games.parquet"
    write_matches(path, ms)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    runner = CliRunner()
    first = runner.invoke(app, ["rate", str(path), "--league", "cli", "--db", db])
    assert first.exit_code == 0, first.output
    assert "300 new matches, 0 already recorded" in first.output
    again = runner.invoke(app, ["rate", str(path), "--league", "cli", "--db", db])
    assert "0 new matches, 300 already recorded" in again.output
    with Store(db) as st:
        st.add_matches("group", ms, create=("trueskill", {}))
    assert _tables(db, "cli") == _tables(db, "group")


def _large(seed: int, n: int, n_players: int, start: int) -> list[Match]:
    """``n`` one-against-one matches among ``n_players`` players (some names not ASCII), one a
    minute from ``start``."""
    rng = random.Random(seed)
    names = [f"p{i}" if i % 5 else f"\u00fc{i}\u4e2d" for i in range(n_players)]
    out = []
    for i in range(n):
        a, b = rng.sample(names, 2)
        out.append(Match(f"L{seed}-{i}", start + 60 * i, [[a], [b]], rng.choice([[0, 1], [1, 0]])))
    return out


def test_a_large_load_stores_what_the_group_commit_stores(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches past the size from which the history is written in the order of its key (and on
    PostgreSQL after the rating, not streamed), the second with players the league has and new
    ones (their ratings inserted, the others' updated): the same tables as the group commit,
    which writes batches of a thousand; loading again adds nothing."""
    n = KEY_ORDER_FROM + 500
    first = _large(7, n, 1_500, 1_600_000_000)
    second = _large(8, n, 3_000, 1_700_000_000)
    with Store(db_url) as st:
        with monkeypatch.context() as patched:  # the bulk path itself, not the group commit
            patched.setattr(Store, "add_matches", None)
            assert st.load_matches("bulk", first, create=("trueskill", {})) == IngestResult(n, 0, 0)
            assert st.load_matches("bulk", second) == IngestResult(n, 0, 0)
            before = _tables(db_url, "bulk")
            assert st.load_matches("bulk", second) == IngestResult(0, n, 0)
        st.add_matches("group", first, create=("trueskill", {}))
        st.add_matches("group", second)
    after = _tables(db_url, "bulk")
    assert after == before
    assert after == _tables(db_url, "group")


def test_a_refused_match_in_a_large_load_leaves_nothing(db_url: str) -> None:
    many = _large(9, KEY_ORDER_FROM + 100, 800, 0)
    many[-3] = Match("odd", many[-3].time, [["p1", "p2"], ["p3"]], [0, 1])  # glicko2 refuses
    with Store(db_url) as st:
        with pytest.raises(StoreError, match="'odd'"):
            st.load_matches("g", many, create=("glicko2", {}))
        with pytest.raises(NotFoundError):
            st.get_league("g")


def test_history_rows_in_key_order_are_sorted_as_the_database_compares_text(
    db_url: str,
) -> None:
    """The order :meth:`HistoryRows.in_key_order` writes the history in is the database's own
    ``ORDER BY`` of the key (player, time, seq) comparing text by code point (SQLite's;
    PostgreSQL's ``C`` collation), players with names outside ASCII included, whatever order
    the rows were made in."""
    rng = random.Random(10)
    names = ["b", "a", "\u00fc", "\u4e2d", "Z", "a\u00e9", "\U0001f600", "ab", "a b"]
    made = [
        (rng.randrange(len(names)), seq, float(rng.choice([1.0, 2.5, -3.0]))) for seq in range(200)
    ]
    rng.shuffle(made)
    codes, seqs, times = (np.array(c) for c in zip(*made, strict=True))
    n = len(made)
    history = HistoryRows(
        1, names, codes, seqs, times, np.full(n, 25.0), np.full(n, 8.0), None, np.ones(n, int)
    )
    engine = create_engine(resolve_url(db_url))
    try:
        with engine.begin() as conn:
            conn.execute(
                text("CREATE TABLE t_order (player VARCHAR(200), time_value FLOAT, seq INT)")
            )
            conn.execute(
                text("INSERT INTO t_order VALUES (:p, :t, :s)"),
                [{"p": names[c], "t": t, "s": q} for c, q, t in made],
            )
            got = conn.execute(
                text(
                    "SELECT player, time_value, seq FROM t_order ORDER BY player"
                    + ("" if db_url.startswith("sqlite") else ' COLLATE "C"')
                    + ", time_value, seq"
                )
            ).all()
            conn.execute(text("DROP TABLE t_order"))
    finally:
        engine.dispose()
    ordered = history.in_key_order()
    mine = zip(ordered.players(), ordered.times.tolist(), ordered.seqs.tolist(), strict=True)
    assert list(mine) == [tuple(r) for r in got]
