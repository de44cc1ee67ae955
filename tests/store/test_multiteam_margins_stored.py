"""A store league of ``cardplay`` with score margins on four-player tables with final points,
on SQLite and PostgreSQL: the stored ratings equal ``rate_with`` match by match with every
team's scaled points (the N-team margin of the rating core), whether posted one by one, in a
batch or late."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.match import Match
from mindsport.rating import build_model
from mindsport.store import Store

SETTINGS = {"margin_scale": 1 / 4000, "margin_noise": 5.0}


def tables(n: int, seed: int) -> list[Match]:
    rng = np.random.default_rng(seed)
    pool = [f"p{i}" for i in range(9)]
    out = []
    for i in range(n):
        table = [str(p) for p in rng.choice(pool, 4, replace=False)]
        points = [float(x) for x in rng.normal(25000, 12000, 4).round(-2)]
        ranks = [sum(q > x for q in points) for x in points]
        out.append(Match(f"m{i}", i, [[p] for p in table], ranks, scores=points))
    return out


def test_scored_tables_are_rated_with_their_margins(db_url: str) -> None:
    ms = tables(60, 4)
    model = build_model("cardplay", **SETTINGS)
    want = {p: model.rating() for m in ms for p in m.players}
    for m in ms:
        players = [t[0] for t in m.teams]
        out, _ = model.rate_with(
            [(want[p],) for p in players], list(m.ranks), margin=model.scores(m.scores)
        )
        want.update((p, t[0]) for p, t in zip(players, out, strict=True))
    late = ms[:50] + ms[55:] + ms[50:55]
    with Store(db_url) as st:
        st.create_league("one", "cardplay", SETTINGS)
        for m in ms:
            st.add_match("one", m)
        st.create_league("late", "cardplay", SETTINGS)
        st.add_matches("late", late)
        st.create_league("plain", "cardplay", {})
        st.add_matches("plain", ms)
        for league in ("one", "late"):
            got = st.states(league)
            for p, r in want.items():
                assert got[p].mu == pytest.approx(r.mu, abs=1e-9), (league, p)
                assert got[p].sigma == pytest.approx(r.sigma, abs=1e-9), (league, p)
        # without margin_scale the points are not used: the ratings differ
        other = st.states("plain")
        assert max(abs(other[p].mu - r.mu) for p, r in want.items()) > 0.1
