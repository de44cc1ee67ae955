"""Roles (seats) in predictions and matchmaking: the role-aware formulas against closed forms
and against the compiled replay's own predictions; the store's forecasts against the model's
formula with the league's learned role advantages (SQLite and PostgreSQL); the HTTP answers."""

from __future__ import annotations

import math
from typing import Any

import pytest
from scipy.stats import norm

from mindsport import forecast
from mindsport.match import InvalidMatchError, Match
from mindsport.rating import Rating, TrueSkill
from mindsport.rating.formulas import margin_from_quantile
from mindsport.rating.replay.blocks import PlayerIndex
from mindsport.rating.trueskill.cardplay import CardPlay
from mindsport.store import Store, StoreError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _home_wins(n: int) -> list[Match]:
    """Four players, every pairing both ways, the home side winning three games in four."""
    pairs = [("a", "b"), ("c", "d"), ("b", "c"), ("d", "a"), ("a", "c"), ("b", "d")]
    out = []
    for i in range(n):
        h, w = pairs[i % len(pairs)] if i % 2 else pairs[i % len(pairs)][::-1]
        ranks = [1, 0] if i % 4 == 3 else [0, 1]
        out.append(Match(f"g{i}", i, [[h], [w]], ranks, roles=[["home"], ["away"]]))
    return out


def test_outcome_probabilities_with_roles_closed_form() -> None:
    m = CardPlay(draw_probability=0.2)
    a, b = Rating(27.0, 3.0), Rating(24.0, 4.0)
    home, away = Rating(1.5, 0.7), Rating(-0.5, 0.9)
    win, draw, loss = m.outcome_probabilities([a], [b], [[home], []])
    c = math.sqrt(3.0**2 + 4.0**2 + 2 * (m.beta**2 + m.tau**2) + 0.7**2)
    d = 27.0 + 1.5 - 24.0
    e = margin_from_quantile(m._quantile, 2, m.beta)
    assert win == pytest.approx(norm.cdf((d - e) / c), rel=1e-12)
    assert loss == pytest.approx(norm.cdf((-d - e) / c), rel=1e-12)
    assert draw == pytest.approx(1 - win - loss)
    # no roles: TrueSkill's numbers
    assert m.outcome_probabilities([a], [b]) == TrueSkill(
        draw_probability=0.2
    ).outcome_probabilities([a], [b])
    # quality of two single players: sqrt(2 beta^2 / c2) exp(-d^2 / (2 c2)), tau out
    c2 = 2 * m.beta**2 + 3.0**2 + 4.0**2 + 0.7**2 + 0.9**2
    d = 27.0 + 1.5 - 24.0 + 0.5
    q = m.quality([[a], [b]], virtual=[[home], [away]])
    assert q == pytest.approx(math.sqrt(2 * m.beta**2 / c2) * math.exp(-(d**2) / (2 * c2)))
    teams = [[a], [b, Rating(20.0, 5.0)], [Rating(30.0, 1.0)]]
    assert m.quality(teams) == pytest.approx(TrueSkill().quality(teams), rel=1e-12)
    zero = [[Rating(0.0, 1e-9)], [], []]
    assert m.quality(teams, virtual=zero) == pytest.approx(TrueSkill().quality(teams), rel=1e-9)
    rp = m.rank_probabilities([[a], [b]], virtual=[[home], [away]], points=2001)
    # P(a first) = P(a's performance with home above b's with away), tau in the noise
    assert rp[0, 0] == pytest.approx(norm.cdf(d / math.sqrt(c2 + 2 * m.tau**2)), abs=1e-4)


def test_role_predictions_are_the_compiled_replays() -> None:
    """The next game's prediction by the compiled card-play replay (roles as virtual players)
    equals the Python formula on the replayer's ratings and role advantages."""
    model = CardPlay(draw_probability=0.15)
    ms = _home_wins(40)
    index = PlayerIndex()
    rp = model.replayer()
    rp.feed(rp.encode(ms, index, None), predict=False, keep=False)
    roles = rp.roles()
    nxt = Match("next", 99, [["b"], ["a"]], [0, 0], roles=[["away"], ["home"]])
    fed = rp.feed(rp.encode([nxt], index, None), predict=True, keep=False)
    # (the replayer rated "next" after predicting it; the prediction came first)
    ratings = {p: Rating(*v) for p, v in _values(ms, model).items()}
    win, draw, loss = model.outcome_probabilities(
        [ratings["b"]], [ratings["a"]], [[roles["away"]], [roles["home"]]]
    )
    assert fed.prob[0] == pytest.approx(win / (win + loss), rel=1e-9)
    assert fed.draw[0] == pytest.approx(draw, rel=1e-9)


def _values(ms: list[Match], model: CardPlay) -> dict[str, tuple[float, float]]:
    rp = model.replayer()
    index = PlayerIndex()
    rp.feed(rp.encode(ms, index, None), predict=False, keep=False)
    return {p: (rp.value(index.get(p)).mu, rp.value(index.get(p)).sigma) for p in index.ids}


def test_store_forecasts_with_roles(db_url: str) -> None:
    with Store(db_url) as st:
        st.create_league("club", "cardplay")
        st.create_league("plain")
        games = _home_wins(36)
        st.add_matches("club", games)
        st.add_matches("plain", games)
        learned = st.role_states("club")
        assert set(learned) == {"home", "away"} and learned["home"][0] > learned["away"][0]
        model = CardPlay()
        states = st.states("club")
        r = {p: Rating(s.mu, s.sigma) for p, s in states.items()}
        role = {k: Rating(*v) for k, v in learned.items()}
        at_home = forecast.predict(st, "club", [["a"], ["b"]], roles=[["home"], ["away"]])
        away = forecast.predict(st, "club", [["a"], ["b"]], roles=[["away"], ["home"]])
        plain = forecast.predict(st, "club", [["a"], ["b"]])
        assert at_home.roles == [["home"], ["away"]] and plain.roles is None
        want = model.win_probability([r["a"]], [r["b"]], [[role["home"]], [role["away"]]])
        assert at_home.win_probability == pytest.approx(want, rel=1e-12)
        assert at_home.win_probability > plain.win_probability > away.win_probability
        assert at_home.quality == pytest.approx(
            model.quality([[r["a"]], [r["b"]]], virtual=[[role["home"]], [role["away"]]])
        )
        # a role the league has not seen enters at its prior
        new = forecast.predict(st, "club", [["a"], ["b"]], roles=[["east"], ["west"]])
        prior = model.role_rating()
        assert new.win_probability == pytest.approx(
            model.win_probability([r["a"]], [r["b"]], [[prior], [prior]]), rel=1e-12
        )
        assert abs(new.win_probability - 0.5) < abs(plain.win_probability - 0.5)
        with pytest.raises(StoreError, match="has no roles"):
            forecast.predict(st, "plain", [["a"], ["b"]], roles=[["home"], ["away"]])
        with pytest.raises(InvalidMatchError, match="roles"):
            forecast.predict(st, "club", [["a"], ["b"]], roles=[["home"], ["home"]])
        with pytest.raises(StoreError, match="has no roles"):
            forecast.matchmake(st, "plain", ["a", "b"], "1v1", roles=[["home"], ["away"]])

        plan = forecast.matchmake(
            st, "club", ["a", "b", "c", "d"], "1v1", roles=[["home"], ["away"]]
        )
        assert len(plan.tables) == 2 and not plan.waiting
        for tb in plan.tables:
            assert tb.roles == (("home",), ("away",))
            (x,), (y,) = tb.teams
            as_seated = forecast.predict(st, "club", [[x], [y]], roles=[["home"], ["away"]])
            swapped = forecast.predict(st, "club", [[y], [x]], roles=[["home"], ["away"]])
            assert tb.quality == pytest.approx(as_seated.quality)
            assert as_seated.quality >= swapped.quality  # the better seat assignment
        # brute force over every seating of four players: the worst table is as good as can be
        qs = {}
        for x, y in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]:
            qs[frozenset((x, y))] = max(
                forecast.predict(st, "club", [[p], [q]], roles=[["home"], ["away"]]).quality
                for p, q in ((x, y), (y, x))
            )
        best = max(
            min(qs[frozenset(t1)], qs[frozenset(t2)])
            for t1, t2 in [
                (("a", "b"), ("c", "d")),
                (("a", "c"), ("b", "d")),
                (("a", "d"), ("b", "c")),
            ]
        )
        assert plan.worst_quality == pytest.approx(best)
        with pytest.raises(InvalidMatchError, match="seats"):
            forecast.matchmake(st, "club", ["a", "b"], "1v1", roles=[["home"], ["away", "x"]])


def test_roles_over_http(setup: Any) -> None:
    client, store, _ = setup
    store.create_league("club", "cardplay")
    store.add_matches("club", _home_wins(24))
    store.add_matches("main", _home_wins(24))
    body = {"teams": [["a"], ["b"]], "roles": [["home"], ["away"]]}
    r = client.post("/api/leagues/club/predict", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["roles"] == [["home"], ["away"]]
    want = forecast.predict(store, "club", [["a"], ["b"]], roles=[["home"], ["away"]])
    assert got["win_probability"] == pytest.approx(want.win_probability)
    r = client.post("/api/leagues/main/predict", json=body)  # a trueskill league
    assert r.status_code == 400 and "has no roles" in r.text
    r = client.post("/api/leagues/club/predict", json={**body, "roles": [["home"], [""]]})
    assert r.status_code == 422 and "roles" in r.text
    r = client.post(
        "/api/leagues/club/matchmake",
        json={"players": ["a", "b", "c", "d"], "shape": "1v1", "roles": [["home"], ["away"]]},
    )
    assert r.status_code == 200, r.text
    assert all(t["roles"] == [["home"], ["away"]] for t in r.json()["tables"])
    r = client.post("/api/leagues/club/matchmake", json={"players": ["a", "b"], "shape": "1v1"})
    assert r.status_code == 200 and r.json()["tables"][0]["roles"] is None
