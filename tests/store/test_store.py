"""The store against independent references: the ``trueskill`` package replaying the same
matches in (time, commit) order, hand-computed Elo, and direct calls of the rating model."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select, text

from mindsport import forecast
from mindsport.errors import ConflictError, MindsportError, NotFoundError
from mindsport.history import Match
from mindsport.store import Store, StoreError, UnknownModelError, resolve_url
from mindsport.store.schema import api_keys, rating_history

# the reference package approximates erfc to ~1e-7; errors add up along a chain of games
TOL = 2e-5


def random_matches(
    n: int,
    rng: random.Random,
    *,
    players: int = 12,
    shapes: tuple[tuple[int, ...], ...] = ((1, 1), (2, 2), (1, 2)),
    draws: bool = True,
    prefix: str = "g",
) -> list[Match]:
    """``n`` two-team matches at distinct increasing times 0, 1, 2, ..."""
    pool = [f"p{i:02d}" for i in range(players)]
    out = []
    for i in range(n):
        shape = rng.choice(shapes)
        chosen = rng.sample(pool, sum(shape))
        teams, k = [], 0
        for size in shape:
            teams.append(chosen[k : k + size])
            k += size
        draw = draws and rng.random() < 0.1
        ranks = [0, 0] if draw else [0, 1] if rng.random() < 0.5 else [1, 0]
        out.append(Match(f"{prefix}{i}", i, teams, ranks))
    return out


def assert_matches_reference(
    store: Store, league: str, ref: dict[str, tuple[float, float]], tol: float = TOL
) -> None:
    got = store.states(league)
    assert set(got) == set(ref)
    for p, (mu, sigma) in ref.items():
        assert got[p].mu == pytest.approx(mu, abs=tol), p
        assert got[p].sigma == pytest.approx(sigma, abs=tol), p


def assert_histories_match_reference(
    store: Store, league: str, hist: dict[str, list[tuple[float, float]]]
) -> None:
    """Every player's stored history (mean and sigma after each game) is the reference's."""
    for p, pairs in hist.items():
        rec = store.player(league, p)
        got = [x for h in rec.history for x in (h.mu, h.sigma)]
        assert got == pytest.approx([x for pair in pairs for x in pair], abs=TOL), p
        assert rec.games == len(pairs), p


def rate_one_by_one(ms: list[Match]) -> dict[str, Any]:
    """Each player's rating after calling ``TrueSkill().rate`` on ``ms`` match by match."""
    from mindsport.rating.trueskill.model import TrueSkill

    env = TrueSkill()
    expect: dict[str, Any] = {}
    for m in ms:
        groups = [tuple(expect.get(p, env.rating()) for p in t) for t in m.teams]
        new = env.rate(groups, ranks=list(m.ranks), weights=m.weights)
        for t, rs in zip(m.teams, new, strict=True):
            expect.update(zip(t, rs, strict=True))
    return expect


def test_ingest_in_order_equals_reference(db_url: str, reference: Any) -> None:
    rng = random.Random(1)
    ms = random_matches(120, rng)
    with Store(db_url) as st:
        st.create_league("main")
        for i in range(0, len(ms), 17):
            res = st.add_matches("main", ms[i : i + 17])
            assert res.added == len(ms[i : i + 17]) and res.replayed == 0
        final, hist = reference(ms)
        assert_matches_reference(st, "main", final)
        # history: one point per game, in time order, equal to the reference after each game
        for p in ("p00", "p05"):
            rec = st.player("main", p)
            assert rec.games == len(hist[p]) == len(rec.history)
            assert [h.time for h in rec.history] == sorted(h.time for h in rec.history)
            for h, (mu, sigma) in zip(rec.history, hist[p], strict=True):
                assert h.mu == pytest.approx(mu, abs=TOL)
                assert h.sigma == pytest.approx(sigma, abs=TOL)
        assert st.match_count("main") == 120


def test_late_matches_are_replayed(db_url: str, reference: Any) -> None:
    rng = random.Random(2)
    ms = random_matches(90, rng)
    shuffled = ms[:]
    rng.shuffle(shuffled)
    with Store(db_url) as st:
        st.create_league("main")
        replayed = 0
        i = 0
        while i < len(shuffled):
            k = rng.randint(1, 9)
            replayed += st.add_matches("main", shuffled[i : i + k]).replayed
            i += k
        assert replayed > 0  # late arrivals did happen
        final, hist = reference(ms)  # reference: time order
        assert_matches_reference(st, "main", final)
        rec = st.player("main", "p03")
        assert [h.match_id for h in rec.history] == [m.id for m in ms if "p03" in m.players]
        for h, (mu, _) in zip(rec.history, hist["p03"], strict=True):
            assert h.mu == pytest.approx(mu, abs=TOL)
        # a full rebuild from the log gives the same
        assert st.recompute("main") == {"main": 90}
        assert_matches_reference(st, "main", final)
        # the log comes back in rating order
        assert [m.id for m in st.matches("main")] == [m.id for m in ms]


def test_equal_times_keep_commit_order(db_url: str, reference: Any) -> None:
    a = Match("a", 5, [["x"], ["y"]], [0, 1])
    b = Match("b", 5, [["y"], ["x"]], [0, 1])
    c = Match("c", 1, [["x"], ["z"]], [1, 0])
    with Store(db_url) as st:
        st.create_league("main")
        st.add_match("main", a)
        st.add_match("main", b)
        assert st.add_match("main", c).replayed == 2
        final, _ = reference([c, a, b])
        assert_matches_reference(st, "main", final)


def test_multi_team_and_partial_play_equal_direct_model_replay(db_url: str) -> None:
    """Teams of several sizes, unranked teams and weights: the store equals calling the model
    match by match (to 1e-12: the replay sweeps games of three or more teams on vector lanes,
    whose error function agrees with the scalar one to a few units in the last place), and a
    recompute equals the incremental ingest bit for bit (a game's numbers do not depend on the
    games rated beside it)."""
    rng = random.Random(3)
    pool = [f"q{i}" for i in range(10)]
    ms = []
    for i in range(40):
        chosen = rng.sample(pool, 6)
        teams = [chosen[:1], chosen[1:3], chosen[3:4], chosen[4:6]]
        ranks: list[int | None] = [0, 1, 1, None] if i % 3 == 0 else rng.sample(range(4), 4)
        weights = [[1.0], [0.5, 1.0], [1.0], [1.0, 0.25]] if i % 4 == 0 else None
        ms.append(Match(f"m{i}", float(i), teams, ranks, weights))
    expect = rate_one_by_one(ms)
    with Store(db_url) as st:
        st.create_league("ffa")
        late = ms[:]
        late.insert(5, late.pop(30))  # one match arrives early in the file, the others late
        for m in late:
            st.add_match("ffa", m)
        got = st.ratings("ffa")
        assert got.keys() == expect.keys()
        for p, r in expect.items():
            assert abs(got[p].mu - r.mu) <= 1e-12 and abs(got[p].sigma - r.sigma) <= 1e-12, p
        st.recompute("ffa")
        assert st.ratings("ffa") == got


def test_idempotent_and_conflicting_reposts(db_url: str, reference: Any) -> None:
    rng = random.Random(4)
    ms = random_matches(30, rng)
    with Store(db_url) as st:
        st.create_league("main")
        assert st.add_matches("main", ms[:20]).added == 20
        res = st.add_matches("main", ms)
        assert (res.added, res.duplicates) == (10, 20)
        res = st.add_matches("main", ms + ms)
        assert (res.added, res.duplicates) == (0, 60)
        before = st.states("main")
        changed = Match(
            ms[7].id, ms[7].time, ms[7].teams, [1, 0] if ms[7].ranks != (1, 0) else [0, 1]
        )
        fresh = Match("new1", 100, [["p01"], ["p02"]], [0, 1])
        with pytest.raises(ConflictError, match=ms[7].id):
            st.add_matches("main", [fresh, changed])
        # nothing of the refused batch was written
        assert st.match_count("main") == 30
        assert st.states("main") == before
        with pytest.raises(ConflictError, match="twice"):
            st.add_matches("main", [fresh, Match("new1", 100, [["p01"], ["p02"]], [1, 0])])
        final, _ = reference(ms)
        assert_matches_reference(st, "main", final)


def test_bad_row_deep_in_a_batch_writes_nothing(db_url: str, reference: Any) -> None:
    """Draws are impossible in a league with draw_probability 0: a tie on row 500 of a batch
    refuses the whole batch, match log included."""
    rng = random.Random(5)
    good = random_matches(20, rng, draws=False)
    batch = random_matches(600, rng, prefix="b", draws=False)
    batch = [Match(m.id, m.time + 100, m.teams, m.ranks) for m in batch]
    batch[500] = Match("b500", 600, [["p01", "p02", "p03"], ["p04"]], [0, 0])
    with Store(db_url) as st:
        st.create_league("main", "trueskill", {"draw_probability": 0.0})
        st.add_matches("main", good)
        before = st.states("main")
        with pytest.raises(StoreError, match=r"b500.*tie"):
            st.add_matches("main", batch)
        assert st.match_count("main") == 20
        assert st.states("main") == before
        final, _ = reference(good, draw_probability=0.0)
        assert_matches_reference(st, "main", final)
        eng = create_engine(resolve_url(db_url))
        with eng.connect() as conn:
            n_hist = conn.execute(select(rating_history.c.seq)).all()
        eng.dispose()
        assert len(n_hist) == sum(len(m.players) for m in good)


def _concurrent_post(url: str, league: str, batches: list[list[Match]], workers: int) -> None:
    errors: list[BaseException] = []
    lock = threading.Lock()
    queue = list(batches)

    def work() -> None:
        with Store(url, create_tables=False) as st:  # one store (pool, lock) per client
            while True:
                with lock:
                    if not queue:
                        return
                    item = queue.pop()
                try:
                    st.add_matches(league, item)
                except BaseException as exc:  # pragma: no cover - reported below
                    errors.append(exc)
                    return

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_concurrent_writers_equal_sequential_replay(db_url: str, reference: Any) -> None:
    rng = random.Random(6)
    ms = random_matches(60, rng, players=16)
    batches = [ms[i : i + 2] for i in range(0, len(ms), 2)]
    rng.shuffle(batches)
    with Store(db_url) as st:
        st.create_league("main")
        _concurrent_post(db_url, "main", batches, workers=6)
        # re-posting everything concurrently changes nothing
        _concurrent_post(db_url, "main", [ms[i : i + 5] for i in range(0, 60, 5)], workers=6)
        assert st.match_count("main") == 60
        final, _ = reference(ms)
        assert_matches_reference(st, "main", final)


def test_concurrent_equal_times_follow_commit_order(db_url: str, reference: Any) -> None:
    """All matches at the same time: the committed order decides; no update may be lost."""
    rng = random.Random(7)
    ms = [Match(m.id, 0, m.teams, m.ranks) for m in random_matches(48, rng, players=6)]
    with Store(db_url) as st:
        st.create_league("main")
        _concurrent_post(db_url, "main", [[m] for m in ms], workers=6)
        committed = st.matches("main")  # (time, seq) order = commit order here
        assert sorted(m.id for m in committed) == sorted(m.id for m in ms)
        final, _ = reference(committed)
        assert_matches_reference(st, "main", final)
        assert sum(r.games for r in st.leaderboard("main", limit=500).entries) == sum(
            len(m.players) for m in ms
        )


def test_leagues_are_separate_and_settings_change_replays(db_url: str, reference: Any) -> None:
    rng = random.Random(8)
    ms = random_matches(40, rng)
    with Store(db_url) as st:
        st.create_league("a")
        st.create_league("b", "trueskill", {"beta": 3.0, "draw_probability": 0.2})
        st.add_matches("a", ms)
        st.add_matches("b", ms[:25])
        assert_matches_reference(st, "a", reference(ms)[0])
        assert_matches_reference(st, "b", reference(ms[:25], beta=3.0, draw_probability=0.2)[0])
        st.update_league("a", params={"tau": 0.5, "mu": 30.0})
        assert_matches_reference(st, "a", reference(ms, tau=0.5, mu=30.0)[0])
        assert [lg.name for lg in st.list_leagues()] == ["a", "b"]
        assert st.get_league("b").params == {"beta": 3.0, "draw_probability": 0.2}
        with pytest.raises(ConflictError, match="'a'"):
            st.create_league("a")
        with pytest.raises(UnknownModelError, match="gamma"):
            st.create_league("c", "trueskill", {"gamma": 1.0})
        with pytest.raises(UnknownModelError, match="nosuch"):
            st.create_league("c", "nosuch")
        with pytest.raises(StoreError, match="league name"):
            st.create_league("bad name!")
        with pytest.raises(NotFoundError, match="'zz'"):
            st.add_matches("zz", ms[:1])
        with pytest.raises(StoreError, match="player id"):
            st.add_matches("a", [Match("long", 99, [["x" * 201], ["p00"]], [0, 1])])


def test_elo_league_against_hand_computation(db_url: str) -> None:
    pytest.importorskip("mindsport.rating.elo.model")
    with Store(db_url) as st:
        st.create_league("chess", "elo", {"k": 32.0})
        st.add_matches(
            "chess",
            [Match("1", 1, [["a"], ["b"]], [0, 1]), Match("2", 2, [["b"], ["c"]], [0, 0])],
        )
        e = 1 / (1 + 10 ** (0 / 400))
        a, b = 1500 + 32 * (1 - e), 1500 - 32 * (1 - e)
        e_bc = 1 / (1 + 10 ** ((1500 - b) / 400))
        b2, c = b + 32 * (0.5 - e_bc), 1500 - 32 * (0.5 - e_bc)
        got = st.states("chess")
        assert got["a"].mu == pytest.approx(a)
        assert got["b"].mu == pytest.approx(b2)
        assert got["c"].mu == pytest.approx(c)
        assert st.leaderboard("chess").entries[0].player == "a"


def test_glicko2_league_refuses_teams_atomically(db_url: str) -> None:
    pytest.importorskip("mindsport.rating.glicko2.model")
    with Store(db_url) as st:
        st.create_league("g", "glicko2")
        st.add_match("g", Match("1", 1, [["a"], ["b"]], [0, 1]))
        with pytest.raises(MindsportError):
            st.add_matches(
                "g",
                [Match("2", 2, [["a"], ["b"]], [0, 1]), Match("3", 3, [["a", "c"], ["b"]], [0, 1])],
            )
        assert st.match_count("g") == 1
        assert st.states("g")["a"].mu > 1500 > st.states("g")["b"].mu


def test_api_keys_store_only_a_hash(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("main")
        st.create_league("other")
        k1, k2 = st.create_key("main"), st.create_key("main")
        assert k1 != k2 and len(k1) > 30
        assert st.check_key("main", k1) and st.check_key("main", k2)
        assert not st.check_key("other", k1)
        assert not st.check_key("main", k1 + "x")
        assert not st.check_key("main", "")
        eng = create_engine(resolve_url(db_url))
        with eng.connect() as conn:
            rows = conn.execute(select(api_keys)).all()
        eng.dispose()
        stored = " ".join(str(v) for r in rows for v in r)
        assert k1 not in stored and k2 not in stored
        with pytest.raises(NotFoundError):
            st.create_key("nope")


def test_leaderboard_order_paging_and_search(db_url: str, reference: Any) -> None:
    rng = random.Random(9)
    ms = random_matches(150, rng, players=30)
    ms.append(Match("odd", 1000, [["50%_off"], ["p01"]], [0, 1]))
    with Store(db_url) as st:
        st.create_league("main")
        st.add_matches("main", ms)
        final, _ = reference(ms)
        order = sorted(final, key=lambda p: (-(final[p][0] - 3 * final[p][1]), p))
        page1 = st.leaderboard("main", limit=10)
        page2 = st.leaderboard("main", offset=10, limit=10)
        assert page1.total == len(final) == 31
        assert [e.player for e in page1.entries + page2.entries] == order[:20]
        assert [e.rank for e in page2.entries] == list(range(11, 21))
        found = st.leaderboard("main", search="P1")
        assert sorted(e.player for e in found.entries) == sorted(p for p in final if "p1" in p)
        for e in found.entries:
            assert e.rank == order.index(e.player) + 1  # ranks stay overall
        assert [e.player for e in st.leaderboard("main", search="%_").entries] == ["50%_off"]
        assert st.leaderboard("main", search="zzz").total == 0
        with pytest.raises(StoreError, match="limit"):
            st.leaderboard("main", limit=0)
        with pytest.raises(NotFoundError, match="nobody"):
            st.player("main", "nobody")


def test_predict_and_matchmake_through_the_store(db_url: str) -> None:
    trueskill = pytest.importorskip("trueskill")
    rng = random.Random(10)
    ms = random_matches(60, rng, players=8)
    with Store(db_url) as st:
        st.create_league("main")
        st.add_matches("main", ms)
        states = st.states("main")
        env = trueskill.TrueSkill(backend=None)
        r = {p: env.create_rating(s.mu, s.sigma) for p, s in states.items()}
        pr = forecast.predict(st, "main", [["p00", "p01"], ["p02", "p03"]])
        assert pr.quality == pytest.approx(
            env.quality([(r["p00"], r["p01"]), (r["p02"], r["p03"])]), abs=1e-9
        )
        assert 0 < pr.win_probability < 1  # type: ignore[operator]
        assert pr.rank_probabilities is not None
        assert sum(row[0] for row in pr.rank_probabilities) == pytest.approx(1.0, abs=1e-6)
        with pytest.raises(NotFoundError, match="newbie"):
            forecast.predict(st, "main", [["p00"], ["newbie"]])
        assert forecast.predict(st, "main", [["p00"], ["newbie"]], allow_new=True).new_players == [
            "newbie"
        ]
        with pytest.raises(StoreError, match="twice"):
            forecast.predict(st, "main", [["p00"], ["p00"]])
        plan = forecast.matchmake(st, "main", [f"p{i:02d}" for i in range(8)], "2v2")
        assert len(plan.tables) == 2 and plan.waiting == ()
        for tb in plan.tables:
            q = env.quality([tuple(r[p] for p in t) for t in tb.teams])
            assert tb.quality == pytest.approx(q, abs=1e-9)


def test_url_resolution_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_url("x.db") == "sqlite:///x.db"
    assert resolve_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    monkeypatch.setenv("MINDSPORT_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    with Store() as st:
        st.create_league("main")
    assert (tmp_path / "env.db").exists()
    monkeypatch.delenv("MINDSPORT_DATABASE_URL")
    monkeypatch.chdir(tmp_path)
    assert resolve_url() == "sqlite:///./mindsport.db"
    with pytest.raises(StoreError, match=r"folder .* does not exist"):
        Store(str(tmp_path / "missing" / "x.db"))


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    with Store(url) as st, st.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 60000


def test_import_does_no_io(tmp_path: Path) -> None:
    code = "import mindsport.store, mindsport.service, mindsport.cli.ratings, mindsport.matchmaking"
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)
    assert list(tmp_path.iterdir()) == []


def test_late_match_replays_only_what_depends_on_it(db_url: str, reference: Any) -> None:
    """c's game at t=3 does not depend on the late game at t=2, but c's game with a at t=4
    does: c must restart from his rating after t=3."""
    log = [
        Match("ab", 1, [["a"], ["b"]], [0, 1]),
        Match("cd", 3, [["c"], ["d"]], [1, 0]),
        Match("ca", 4, [["c"], ["a"]], [0, 1]),
        Match("db", 5, [["d"], ["b"]], [0, 0]),
    ]
    late = Match("ae", 2, [["a"], ["e"]], [1, 0])
    with Store(db_url) as st:
        st.create_league("main")
        st.add_matches("main", log)
        assert st.add_match("main", late).replayed == 1  # only "ca"
        final, hist = reference([log[0], late, *log[1:]])
        assert_matches_reference(st, "main", final)
        assert sorted(hist) == list("abcde")
        assert_histories_match_reference(st, "main", hist)


def test_a_late_match_keeps_earlier_rows_of_its_own_time(db_url: str, reference: Any) -> None:
    """A late match at the time of a recorded match of the same player, committed after it:
    that recorded match comes first (equal times keep commit order), so its history row stays
    and the replay of x starts from it; only the rows from the late match's place on go."""
    log = [
        Match("xy", 5, [["x"], ["y"]], [0, 1]),
        Match("yz", 9, [["y"], ["z"]], [1, 0]),
        Match("xv", 12, [["x"], ["v"]], [0, 1]),
    ]
    late = Match("xw", 5, [["x"], ["w"]], [1, 0])
    with Store(db_url) as st:
        st.create_league("main")
        st.add_matches("main", log)
        assert st.add_match("main", late).replayed == 1  # "xv" only
        final, hist = reference([log[0], late, log[1], log[2]])
        assert_matches_reference(st, "main", final)
        assert sorted(hist) == sorted("xyzvw")
        assert_histories_match_reference(st, "main", hist)
        assert [h.match_id for h in st.player("main", "x").history] == ["xy", "xw", "xv"]


def test_bulk_ingest_and_recompute_equal_the_object_replay(tmp_path: Path) -> None:
    """A bulk ingest and a rebuild (the compiled replayer) equal ``TrueSkill.rate`` match by
    match (the replay's object path)."""
    import numpy as np

    from mindsport.history import replay
    from mindsport.rating import TrueSkill

    rng = np.random.default_rng(5)
    names = [f"p{i}" for i in range(40)]
    games = []
    for g in range(300):
        k = int(rng.choice([2, 4]))
        chosen = [str(x) for x in rng.choice(names, size=k, replace=False)]
        teams = [chosen[:1], chosen[1:2]] if k == 2 else [chosen[:2], chosen[2:]]
        ranks = [0, 0] if rng.random() < 0.1 else [int(x) for x in rng.permutation(2)]
        games.append(Match(f"g{g}", g, teams, ranks))
    expected = replay(TrueSkill(), games, fast=False).ratings
    with Store(str(tmp_path / "fast.db")) as store:
        store.ensure_league("main", "trueskill", {})
        store.add_matches("main", games)
        got = store.ratings("main")
        store.recompute("main")
        again = store.ratings("main")
    for p, r in expected.items():
        assert abs(got[p].mu - r.mu) < 1e-9 and abs(got[p].sigma - r.sigma) < 1e-9
        assert abs(again[p].mu - r.mu) < 1e-9


def test_awkward_values_come_back_bit_for_bit(db_url: str) -> None:
    """Numbers at full precision, tiny and large, and ids beyond ASCII are stored and read back
    exactly (PostgreSQL gets each table's rows as one JSON text that the server takes apart),
    and the ratings equal calling the model match by match, bit for bit."""
    ids = ["Zoë", "选手一", 'a"b\\c', "emoji \U0001f600", "x y"]
    times = [1e-300, 0.1 + 0.2, 10 / 3, 123456789.12345679, 7258118399.999999]
    ms = [
        Match(
            f"m{i}\u00e9",
            t,
            [[ids[i]], [ids[(i + 1) % 5]]],
            [0, 1],
            [[0.1 + 0.2], [1 / 3]],
            [7.000000000000001, 1e-300],
        )
        for i, t in enumerate(times)
    ]
    expect = rate_one_by_one(ms)
    with Store(db_url) as st:
        st.create_league("odd")
        st.add_matches("odd", ms)
        back = {m.id: m for m in st.matches("odd")}
        for m in ms:
            got = back[m.id]
            assert (got.time, got.teams, got.ranks) == (m.time, m.teams, m.ranks)
            assert (got.weights, got.scores) == (m.weights, m.scores)
        assert st.ratings("odd") == expect
        last = st.player("odd", ids[0]).history[-1]
        assert (last.mu, last.sigma) == (expect[ids[0]].mu, expect[ids[0]].sigma)


def test_connections_the_server_ended_are_replaced_before_use(
    pg_url: str, end_backends: Any, reference: Any
) -> None:
    """PostgreSQL ends the store's connections (``pg_terminate_backend``, as a restart does):
    the next write, read and key check each succeed on a fresh connection, and the ratings
    equal the reference replay of every match."""
    rng = random.Random(7)
    ms = random_matches(60, rng)
    with Store(pg_url) as st:
        st.create_league("main")
        key = st.create_key("main")
        # several pooled connections, each idle in the pool when its backend is ended
        threads = [threading.Thread(target=st.states, args=("main",)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert end_backends() >= 1
        assert st.add_matches("main", ms[:30]).added == 30
        assert end_backends() >= 1
        assert len(st.states("main")) > 0
        assert end_backends() >= 1
        assert st.check_key("main", key)
        assert end_backends() >= 1
        assert st.add_matches("main", ms[30:]).added == 30
        assert end_backends() >= 1
        assert st.match_count("main") == 60
        final, _ = reference(ms)
        assert_matches_reference(st, "main", final)
