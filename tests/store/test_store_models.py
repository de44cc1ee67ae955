"""Every registered model, with the settings that make it special, in a store league on SQLite
and PostgreSQL: ingests (in order, late arrivals, a rebuild) against an independent replay of the
plain reference updates (``tests/rating/reference_models.py``) in time order."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from reference_models import replay_reference

from mindsport.match import Match
from mindsport.rating import MODELS, build_model
from mindsport.store import Store

CASES: list[tuple[str, dict[str, Any], str]] = [
    ("trueskill", {"drift": 0.3, "sigma_floor": 2.5, "tau": 0.0}, "teams"),
    ("trueskill", {"draw_probability": 0.0, "beta": 3.0}, "ffa"),
    ("elo", {"k": 24.0, "team_strength": "sum"}, "teams"),
    ("fide", {"new_games": 5, "threshold": 1520.0}, "teams"),
    ("glicko2", {"period": 2.0, "max_rd": 300.0, "tau": 0.4}, "singles"),
    ("tenhou", {"adjust_games": 20, "prob_scale": 900.0}, "ffa"),
    ("pairwise", {"iterations": 3, "both_orders": False}, "ffa"),
    ("tenhou-dan", {"room": "auto"}, "fours"),
    ("tenhou-dan", {"room": "ippan", "length": "tonpuu", "prob_scale": 2.0}, "fours"),
]


def matches(kind: str, n: int, rng: random.Random) -> list[Match]:
    pool = [f"p{i:02d}" for i in range(10)]
    t0 = datetime(2024, 3, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        when = t0 + timedelta(days=i * 0.7 + rng.random() * 0.3)
        if kind == "teams":
            shape = rng.choice([(1, 1), (2, 2), (1, 2)])
        elif kind == "ffa":
            shape = (1,) * rng.choice([2, 3, 4])
        elif kind == "fours":
            shape = (1, 1, 1, 1)
        else:
            shape = (1,) * rng.choice([2, 3])
        chosen = rng.sample(pool, sum(shape))
        teams, k = [], 0
        for size in shape:
            teams.append(chosen[k : k + size])
            k += size
        ranks = list(range(len(teams)))
        rng.shuffle(ranks)
        if kind == "teams" and rng.random() < 0.1:
            ranks = [0] * len(teams)
        weights = None
        if kind == "teams" and rng.random() < 0.2:
            weights = [[rng.choice([0.5, 1.0]) for _ in t] for t in teams]
        out.append(Match(f"m{i:03d}", when, teams, ranks, weights))
    return out


def fields(r: Any) -> tuple[Any, ...]:
    return tuple(getattr(r, f) for f in r.__dataclass_fields__)


def assert_same(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.keys() == want.keys()
    for p, r in want.items():
        a, b = fields(got[p]), fields(r)
        assert type(got[p]) is type(r)
        for x, y in zip(a, b, strict=True):
            assert x == pytest.approx(y, abs=1e-9, rel=1e-12), (p, a, b)


@pytest.mark.parametrize(("name", "params", "kind"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_league_of_every_model_equals_the_reference(
    db_url: str, name: str, params: dict[str, Any], kind: str
) -> None:
    rng = random.Random(sum(map(ord, name + kind)))
    ms = matches(kind, 70, rng)
    model = build_model(name, **params)
    if name == "trueskill" and params.get("draw_probability") == 0.0:
        ms = [m for m in ms if len(set(m.ranks)) == len(m.ranks)]
    want = replay_reference(model, ms)
    late = ms[:]
    rng.shuffle(late)
    with Store(db_url) as st:
        st.create_league("in-order", name, params)
        st.create_league("late", name, params)
        for i in range(0, len(ms), 9):
            st.add_matches("in-order", ms[i : i + 9])
        replayed = sum(
            st.add_matches("late", late[i : i + 6]).replayed for i in range(0, len(ms), 6)
        )
        assert replayed > 0
        for league in ("in-order", "late"):
            assert_same(st.ratings(league), want)
        st.recompute("late")
        assert_same(st.ratings("late"), want)
        board = st.leaderboard("late", limit=100)
        assert board.display == MODELS[name].display
        for e in board.entries:
            assert e.exposed == pytest.approx(model.expose(want[e.player]), abs=1e-9, rel=1e-12)
        # the history ends at each player's final rating
        p = ms[-1].teams[0][0]
        last = st.player("late", p).history[-1]
        assert last.match_id == max(m.id for m in ms if p in m.players)
        assert last.mu == pytest.approx(st.states("late")[p].mu, abs=1e-12)
