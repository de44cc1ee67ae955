"""A whole-history league (``trueskill-history``) in the store, on SQLite and PostgreSQL.

The reference is the model itself in memory: ``TrueSkillThroughTime(...).history(matches)``
converged from scratch over every match at once. The store reaches its numbers another way:
posts of a few dozen matches, most of them late (their times lie before matches already
recorded), each added to the league's settled graph and re-converged from where it stood, the
derived rows of the players that moved rewritten in the same transaction; and by a rebuild from
the stored log (a new store, another store that wrote meanwhile, or ``recompute``). A refused post
leaves nothing written; ``mindsport player --plot`` draws the stored curve with its 2-sigma band.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from typer.testing import CliRunner

from mindsport import forecast
from mindsport.cli.ratings import app as cli_app
from mindsport.cli.ratings import rating_figure
from mindsport.match import Match, time_value
from mindsport.rating.through_time.model import TrueSkillThroughTime
from mindsport.store import Store, StoreError

TOL = 1e-6
#: a tight convergence, so two routes to the fixed point agree well within TOL
PARAMS: dict[str, Any] = {"drift": 0.4, "draw_probability": 0.1, "tolerance": 1e-9}


def league_matches(n: int, seed: int, *, dated: bool = False) -> list[Match]:
    """Duels, 2 against 2 and three-way free-for-alls among 24 players over ~60 time steps,
    with draws; numeric times, or datetimes a few hours apart."""
    rng = random.Random(seed)
    pool = [f"p{i:02d}" for i in range(24)]
    start = datetime(2025, 5, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        kind = rng.choice(["duel", "duel", "pairs", "three"])
        if kind == "pairs":
            q = rng.sample(pool, 4)
            teams = [q[:2], q[2:]]
        else:
            teams = [[p] for p in rng.sample(pool, 3 if kind == "three" else 2)]
        ranks = list(range(len(teams)))
        rng.shuffle(ranks)
        if len(teams) == 2 and rng.random() < 0.1:
            ranks = [0, 0]
        step = i // 5
        when: datetime | int = start + timedelta(hours=5 * i) if dated else step
        out.append(Match(f"m{i:03d}", when, teams, ranks))
    return out


def late_posts(ms: list[Match], seed: int) -> list[list[Match]]:
    """The matches in posts of 20-60, in shuffled order: most posts hold late results."""
    rng = random.Random(seed)
    order = ms[:]
    rng.shuffle(order)
    posts, i = [], 0
    while i < len(order):
        k = rng.randint(20, 60)
        posts.append(order[i : i + k])
        i += k
    return posts


def assert_like_reference(
    st: Store, league: str, ms: list[Match], params: dict[str, Any] = PARAMS
) -> None:
    """Stored ratings, leaderboard values, games and curves equal the in-memory history."""
    want = TrueSkillThroughTime(**params).history(ms)
    got = st.states(league)
    assert got.keys() == set(want.players)
    for p, r in want.ratings().items():
        assert got[p].mu == pytest.approx(r.mu, abs=TOL), p
        assert got[p].sigma == pytest.approx(r.sigma, abs=TOL), p
    board = st.leaderboard(league, limit=1000)
    games = {p: sum(p in m.players for m in ms) for p in want.players}
    for e in board.entries:
        r = want.rating(e.player)
        assert e.exposed == pytest.approx(r.mu - 3 * r.sigma, abs=3 * TOL)
        assert e.games == games[e.player]
    for p in want.players:
        c = want.curve(p)
        rec = st.player(league, p)
        assert rec.history == []
        assert [pt.time for pt in rec.curve] == [
            time_value(t) if isinstance(t, datetime) else t for t in c.times
        ]
        assert [pt.mu for pt in rec.curve] == pytest.approx(c.mu.tolist(), abs=TOL)
        assert [pt.sigma for pt in rec.curve] == pytest.approx(c.sigma.tolist(), abs=TOL)


def test_late_posts_equal_the_whole_history_at_once(db_url: str) -> None:
    ms = league_matches(300, seed=3)
    posts = late_posts(ms, seed=4)
    assert len(posts) >= 5
    with Store(db_url) as st:
        st.create_league("smooth", "trueskill-history", PARAMS)
        seen: list[Match] = []
        late = 0
        for k, post in enumerate(posts[:-3]):
            latest = max((m.time for m in seen), default=None)
            late += latest is not None and any(m.time < latest for m in post)  # type: ignore[operator]
            res = st.add_matches("smooth", post)
            assert (res.added, res.duplicates, res.replayed) == (len(post), 0, 0)
            seen.extend(post)
            if k == 1:
                assert_like_reference(st, "smooth", seen)
        assert late >= 3
        # the group commit path: posts queued together are committed together
        futures = [st.submit_matches("smooth", post) for post in posts[-3:]]
        assert [f.result().added for f in futures] == [len(p) for p in posts[-3:]]
        assert_like_reference(st, "smooth", ms)
        assert st.add_matches("smooth", posts[0]).duplicates == len(posts[0])
        assert_like_reference(st, "smooth", ms)


def test_recompute_and_a_new_store_agree_with_the_incremental_league(db_url: str) -> None:
    ms = league_matches(200, seed=5, dated=True)
    posts = late_posts(ms, seed=6)
    with Store(db_url) as st:
        st.create_league("smooth", "trueskill-history", PARAMS)
        for post in posts[:-1]:
            st.add_matches("smooth", post)
        incremental = st.states("smooth")
        curves = {p: st.player("smooth", p).curve for p in incremental}
        assert st.recompute("smooth") == {"smooth": len(ms) - len(posts[-1])}
        for p, s in st.states("smooth").items():
            assert s.mu == pytest.approx(incremental[p].mu, abs=TOL)
            assert s.sigma == pytest.approx(incremental[p].sigma, abs=TOL)
            again = st.player("smooth", p).curve
            assert [c.time for c in again] == [c.time for c in curves[p]]
            assert [c.mu for c in again] == pytest.approx([c.mu for c in curves[p]], abs=TOL)
    with Store(db_url) as st:  # no graph in memory: rebuilt from the stored log
        st.add_matches("smooth", posts[-1])
        assert_like_reference(st, "smooth", ms)
        # time steps of one day: each point starts at midnight UTC
        rec = st.player("smooth", "p00")
        assert all(pt.time % 86400 == 0 for pt in rec.curve)


def test_a_refused_post_writes_nothing(db_url: str) -> None:
    strict = {**PARAMS, "draw_probability": 0.0}
    ms = [m for m in league_matches(120, seed=7) if len(set(m.ranks)) == len(m.ranks)]
    tie = Match("tie", 3, [["p01"], ["p02"]], [0, 0])
    with Store(db_url) as st:
        st.create_league("smooth", "trueskill-history", strict)
        st.add_matches("smooth", ms[:80])
        states = st.states("smooth")
        curve = st.player("smooth", "p01").curve
        with pytest.raises(StoreError, match=r"'tie'.*tie"):
            st.add_matches("smooth", [*ms[80:100], tie])
        assert st.match_count("smooth") == 80
        assert st.states("smooth") == states
        assert st.player("smooth", "p01").curve == curve
        st.add_matches("smooth", ms[80:])
        assert_like_reference(st, "smooth", ms, strict)


def test_changing_the_model_rebuilds_the_derived_rows(db_url: str) -> None:
    ms = league_matches(60, seed=8)
    with Store(db_url) as st:
        st.create_league("lg", "trueskill", {"draw_probability": 0.1})
        st.add_matches("lg", ms)
        assert st.player("lg", "p00").history and not st.player("lg", "p00").curve
        st.update_league("lg", model="trueskill-history", params=PARAMS)
        assert_like_reference(st, "lg", ms)
        pr = forecast.predict(st, "lg", [["p00"], ["p01"]])
        want = TrueSkillThroughTime(**PARAMS).history(ms)
        p = TrueSkillThroughTime(**PARAMS).win_probability(
            (want.rating("p00"),), (want.rating("p01"),)
        )
        assert pr.win_probability == pytest.approx(p, abs=1e-6)
        st.update_league("lg", model="trueskill", params={"draw_probability": 0.1})
        rec = st.player("lg", "p00")
        assert rec.history and not rec.curve


def test_an_older_database_gets_the_curve_table(db_url: str) -> None:
    ms = league_matches(40, seed=9)
    with Store(db_url) as st:
        st.create_league("lg", "trueskill", {"draw_probability": 0.1})
        st.add_matches("lg", ms[:20])
    engine = create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:  # the tables as the previous version wrote them
        conn.execute(text("DROP TABLE ms_skill_curve"))
    engine.dispose()
    with Store(db_url, create=False) as st:  # a reading command brings the tables up
        assert st.match_count("lg") == 20
    engine = create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    assert inspect(engine).has_table("ms_skill_curve")
    engine.dispose()
    with Store(db_url) as st:
        st.create_league("smooth", "trueskill-history", PARAMS)
        st.add_matches("smooth", ms)
        assert_like_reference(st, "smooth", ms)


def test_the_player_command_plots_the_smoothed_curve(tmp_path: Path) -> None:
    ms = league_matches(120, seed=10)
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    args = ["leagues", "create", "smooth", "--model", "trueskill-history"]
    args += [f"--param={k}={v}" for k, v in PARAMS.items()]
    r = CliRunner().invoke(cli_app, [*args, "--db", db], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    with Store(db) as st:
        st.add_matches("smooth", ms)
        rec = st.player("smooth", "p05")
        display = st.league_model("smooth").display
    png = tmp_path / "p05.png"
    r = CliRunner().invoke(
        cli_app,
        ["player", "p05", "-l", "smooth", "--plot", str(png), "--last", "3", "--db", db],
        catch_exceptions=False,
    )
    assert r.exit_code == 0, r.output
    assert "smoothed skill curve" in r.output
    assert f"{rec.curve[-1].mu:.3f}" in r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # what the plot draws: the curve as its line, mu +- 2 sigma as its band
    want = TrueSkillThroughTime(**PARAMS).history(ms).curve("p05")
    fig = rating_figure("p05", rec.curve, display, smoothed=True)
    ax = fig.axes[0]
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == list(want.times)
    assert list(line.get_ydata()) == pytest.approx(want.mu.tolist(), abs=TOL)
    band = ax.collections[0].get_paths()[0].vertices
    top = {x: y for x, y in band if y > want.mu[list(want.times).index(x)]}
    bottom = {x: y for x, y in band if y < want.mu[list(want.times).index(x)]}
    for t, mu, sd in zip(want.times, want.mu, want.sigma, strict=True):
        assert top[t] == pytest.approx(mu + 2 * sd, abs=TOL)
        assert bottom[t] == pytest.approx(mu - 2 * sd, abs=TOL)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["smoothed mu ± 2 sigma", "smoothed mu"]


def test_two_stores_writing_one_league_stay_exact(db_url: str) -> None:
    """Each store keeps its own graph in memory; a post through the other store moves the
    league's ``last_seq``, so the first one's graph is stale and is rebuilt from the log."""
    ms = league_matches(150, seed=11)
    posts = late_posts(ms, seed=12)
    with Store(db_url) as a, Store(db_url) as b:
        a.create_league("smooth", "trueskill-history", PARAMS)
        for k, post in enumerate(posts):
            (a if k % 3 != 1 else b).add_matches("smooth", post)
        assert_like_reference(a, "smooth", ms)
        assert_like_reference(b, "smooth", ms)


def test_a_league_whose_sweep_limit_is_too_low_refuses_the_post(db_url: str) -> None:
    """``max_sweeps`` is the league's own setting: not settling within it refuses the post
    (nothing written) instead of failing the server; a higher limit then takes it."""
    ms = league_matches(60, seed=13)
    with Store(db_url) as st:
        st.create_league("smooth", "trueskill-history", {**PARAMS, "max_sweeps": 1})
        with pytest.raises(StoreError, match=r"did not settle within 1 sweeps.*max_sweeps"):
            st.add_matches("smooth", ms)
        assert st.match_count("smooth") == 0 and st.states("smooth") == {}
        st.update_league("smooth", params=PARAMS)
        st.add_matches("smooth", ms)
        assert_like_reference(st, "smooth", ms)
