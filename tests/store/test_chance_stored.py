"""Roles, deals and luck in the store: kept in the match log, rated by a ``cardplay`` league
exactly as the in-memory replay rates them, ignored (but kept) by the other models.

The reference is :func:`mindsport.history.replay` of the same matches in memory, and the
compiled replayer of :class:`mindsport.rating.trueskill.cardplay.CardPlay` fed the whole list at
once for the role advantages: the store reaches the same numbers one match at a time, in batches, by
recompute and through late results, carrying the virtual players' state in its tables.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pytest
from sqlalchemy import create_engine, text

from mindsport.history import replay
from mindsport.match import Match
from mindsport.rating.registry import build_model
from mindsport.rating.replay.blocks import PlayerIndex
from mindsport.store import Store
from mindsport.store.values import MatchConflictError

TOL = 1e-9
PLAYERS = [f"p{i}" for i in range(7)]
ROLES = [["landlord"], ["farmer1", "farmer2"]]
SETTINGS = [{}, {"deal_sigma": 1.5, "margin_scale": 0.8}]


def doudizhu_matches(n: int, seed: int, *, unique_times: bool = False) -> list[Match]:
    """A landlord against two farmers on deals from a small pool (so deals repeat), most
    with roles, some with luck, some with scores, a few plain; in time order."""
    rng = np.random.default_rng(seed)
    out = []
    t = 0
    for i in range(n):
        t += 1 if unique_times or rng.random() < 0.7 else 0
        a, b, c = (str(p) for p in rng.choice(PLAYERS, 3, replace=False))
        won = int(rng.integers(2))
        extra: dict[str, Any] = {}
        kind = rng.random()
        if kind < 0.85:
            extra["roles"] = ROLES
            extra["deal"] = f"d{int(rng.integers(12))}"
            if rng.random() < 0.5:
                extra["luck"] = [float(rng.normal()), 0.0]
        if rng.random() < 0.5:
            k = float(rng.integers(1, 4))
            extra["scores"] = [k, -k] if won == 0 else [-k, k]
        out.append(Match(f"m{i}", t, [[a], [b, c]], [0, 1] if won == 0 else [1, 0], **extra))
    return out


def reference(matches: list[Match], settings: dict[str, Any]) -> tuple[dict, dict]:
    """Players' (mu, sigma) from replay in memory, and role advantages from the compiled
    replayer fed every match in one block."""
    model = build_model("cardplay", **settings)
    players = {p: (r.mu, r.sigma) for p, r in replay(model, matches).ratings.items()}
    replayer = model.replayer()
    replayer.feed(replayer.encode(matches, PlayerIndex(), None), predict=False, keep=False)
    roles = {name: (r.mu, r.sigma) for name, r in replayer.roles().items()}
    return players, roles


def reference_seats(matches: list[Match], settings: dict[str, Any]) -> dict[str, Any]:
    """The sides against the average side, from the compiled replayer fed every match in one
    block (the seat statistics in memory, never stored)."""
    replayer = build_model("cardplay", **settings).replayer()
    replayer.feed(replayer.encode(matches, PlayerIndex(), None), predict=False, keep=False)
    return {e.side: e for e in replayer.seat_edges()}


def assert_matches_reference(st: Store, league: str, matches: list[Match], settings: dict) -> None:
    want_players, want_roles = reference(matches, settings)
    got = st.states(league)
    assert sorted(got) == sorted(want_players)  # roles and deal sides are no players
    for p, (mu, sigma) in want_players.items():
        assert got[p].mu == pytest.approx(mu, abs=TOL), p
        assert got[p].sigma == pytest.approx(sigma, abs=TOL), p
    board = st.leaderboard(league, limit=100)
    assert board.total == len(want_players)
    assert {r.role for r in board.roles} == set(want_roles) == {"landlord", "farmer1", "farmer2"}
    for r in board.roles:
        assert r.advantage == pytest.approx(want_roles[r.role][0], abs=TOL), r.role
        assert r.sigma == pytest.approx(want_roles[r.role][1], abs=TOL), r.role
    # the seat statistics, kept between writes in the virtual players' table, give the
    # estimate of the whole list at once (issue 38)
    want_seats = reference_seats(matches, settings)
    assert {e.side for e in board.seats} == set(want_seats)
    for e in board.seats:
        w = want_seats[e.side]
        assert e.teams == w.teams, e.side
        if w.vs_average is None:
            assert e.vs_average is None and e.low is None, e.side
            continue
        got, exp = (e.vs_average, e.low, e.high), (w.vs_average, w.low, w.high)
        assert got == pytest.approx(exp, abs=1e-7), e.side
    by_role = {r.role: r for r in board.roles}
    landlord, side = by_role["landlord"], want_seats["landlord"]
    if side.vs_average is not None:  # a seat alone: its role carries its edge
        got, exp = (
            (landlord.vs_average, landlord.low, landlord.high),
            (side.vs_average, side.low, side.high),
        )
        assert got == pytest.approx(exp, abs=1e-7)
    assert by_role["farmer1"].vs_average is None  # a farmer is no seat alone


@pytest.mark.parametrize("settings", SETTINGS)
def test_one_by_one_batches_and_recompute_equal_the_replay(db_url: str, settings: dict) -> None:
    ms = doudizhu_matches(90, seed=3)
    with Store(db_url) as st:
        st.create_league("single", "cardplay", settings)
        for m in ms:
            st.add_match("single", m)
        assert_matches_reference(st, "single", ms, settings)
        st.create_league("batched", "cardplay", settings)
        for i in range(0, len(ms), 25):
            st.add_matches("batched", ms[i : i + 25])
        assert_matches_reference(st, "batched", ms, settings)
        assert st.recompute("batched") == {"batched": len(ms)}
        assert_matches_reference(st, "batched", ms, settings)
        # the log keeps what was given
        assert st.matches("batched") == ms


def test_late_results_equal_the_replay_in_time_order(db_url: str) -> None:
    settings = SETTINGS[1]
    ms = doudizhu_matches(80, seed=5, unique_times=True)
    order = np.random.default_rng(9).permutation(len(ms))
    with Store(db_url) as st:
        st.create_league("late", "cardplay", settings)
        replayed = 0
        for i in range(0, len(ms), 10):
            replayed += st.add_matches("late", [ms[k] for k in order[i : i + 10]]).replayed
        assert replayed > 0  # results did arrive late
        assert_matches_reference(st, "late", ms, settings)


def test_other_models_keep_the_fields_and_rate_plain(db_url: str) -> None:
    ms = doudizhu_matches(40, seed=7)
    plain = [Match(m.id, m.time, m.teams, m.ranks, m.weights, m.scores) for m in ms]
    with Store(db_url) as st:
        st.create_league("ts", "trueskill")
        assert st.add_matches("ts", ms).added == len(ms)
        want = replay(build_model("trueskill"), plain).ratings
        for p, s in st.states("ts").items():
            assert s.mu == pytest.approx(want[p].mu, abs=TOL)
            assert s.sigma == pytest.approx(want[p].sigma, abs=TOL)
        assert st.leaderboard("ts").roles == ()
        assert st.matches("ts") == ms


def test_idempotency_sees_roles_deal_and_luck(db_url: str) -> None:
    m = Match("g", 1, [["a"], ["b", "c"]], [0, 1], roles=ROLES, deal="d1", luck=[0.5, 0.0])
    with Store(db_url) as st:
        st.create_league("ddz", "cardplay")
        assert st.add_match("ddz", m).added == 1
        # the same record, players (and their roles) listed in another order: already stored
        same = Match(
            "g", 1, [["a"], ["c", "b"]], [0, 1],
            roles=[["landlord"], ["farmer2", "farmer1"]], deal="d1", luck=[0.5, 0.0],
        )  # fmt: skip
        assert st.add_match("ddz", same).duplicates == 1
        for changed in (
            {"roles": [["landlord"], ["farmer2", "farmer1"]], "deal": "d1", "luck": [0.5, 0.0]},
            {"roles": ROLES, "deal": "d2", "luck": [0.5, 0.0]},
            {"roles": ROLES, "deal": "d1", "luck": [0.4, 0.0]},
            {"roles": ROLES, "deal": "d1"},
        ):
            with pytest.raises(MatchConflictError):
                st.add_match("ddz", Match("g", 1, [["a"], ["b", "c"]], [0, 1], **changed))
        assert st.match_count("ddz") == 1


def _old_digest(m: Match) -> str:
    """The canonical digest of a plain match as the store computed it before it kept roles:
    SHA-256 of the compact JSON ``[time, sorted teams, ranks, weights, scores]``."""
    body = [float(m.time), [sorted(t) for t in m.teams], list(m.ranks), None, None]  # type: ignore[arg-type]
    return hashlib.sha256(json.dumps(body, separators=(",", ":")).encode()).hexdigest()


def test_an_older_database_is_upgraded_and_keeps_its_digests(db_url: str) -> None:
    plain = Match("old", 5, [["b", "a"], ["c"]], [1, 0])
    with Store(db_url) as st:
        st.create_league("ddz", "cardplay")
        st.add_match("ddz", plain)
    engine = create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:  # the match log as an earlier version wrote it
        for col in ("roles", "deal", "luck"):
            conn.execute(text(f"ALTER TABLE ms_matches DROP COLUMN {col}"))
        conn.execute(text("DROP TABLE ms_virtual_ratings"))
        stored = conn.execute(text("SELECT digest FROM ms_matches")).scalar_one()
    engine.dispose()
    assert stored == _old_digest(plain)
    with Store(db_url, create=False) as st:  # a reading command brings the tables up
        assert st.matches("ddz") == [plain]
        assert st.add_match("ddz", plain).duplicates == 1
        m = Match("new", 6, [["a"], ["b", "c"]], [0, 1], roles=ROLES, deal="d1")
        assert st.add_match("ddz", m).added == 1
        assert st.matches("ddz") == [plain, m]
        assert_matches_reference(st, "ddz", [plain, m], {})


def test_long_roles_of_big_teams_fit_in_the_virtual_table(db_url: str) -> None:
    """A duplicate deal side is named by its team's roles: 32 roles of 64 characters."""
    teams = [[f"a{i}" for i in range(32)], [f"b{i}" for i in range(32)]]
    roles = [[f"{s}{i:02d}".ljust(64, "x") for i in range(32)] for s in "ab"]
    ms = [Match(f"g{k}", k, teams, [0, 1], roles=roles, deal="d") for k in range(2)]
    settings = {"deal_sigma": 1.0}
    with Store(db_url) as st:
        st.create_league("big", "cardplay", settings)
        st.add_matches("big", ms)
        want_players, want_roles = reference(ms, settings)
        assert st.states("big")["a0"].mu == pytest.approx(want_players["a0"][0], abs=TOL)
        board = st.leaderboard("big")
        assert len(board.roles) == 64 == len(want_roles)
