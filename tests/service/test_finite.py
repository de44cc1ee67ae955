"""Issue 42: numbers that pass validation cannot poison a league. Each reproduction of the issue,
over HTTP on SQLite and PostgreSQL: refused with a clear 4xx, or rated to a bounded result
checked against a hand computation; and the last line of defence (nothing non-finite stored or
served) exercised by forcing a non-finite rating past every earlier bound."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from sqlalchemy import create_engine, text

from mindsport.rating.trueskill.model import BETA, MU, SIGMA, TAU, draw_margin
from mindsport.store import Store, resolve_url

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def admin(db_url: str) -> Iterator[tuple[TestClient, Store, dict[str, str]]]:
    from mindsport.service import create_app

    store = Store(db_url)
    key = store.create_key(admin=True)
    with TestClient(create_app(store=store), raise_server_exceptions=False) as client:
        yield client, store, {"X-API-Key": key}
    store.close()


def _phi(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def margin_win_1v1(y: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """By hand, from docs/models.md: two new players (prior N(MU, SIGMA^2), dynamics TAU), the
    first wins with the observed margin ``y`` (noise 2 beta): the Gaussian N(y; d, s2) absorbed
    into the difference N(d, c^2), then truncated to a win (d > e), each skill moved by its
    share of the difference's change."""
    s2 = (2 * BETA) ** 2
    var = SIGMA**2 + TAU**2
    c2 = 2 * BETA**2 + 2 * var
    k = c2 / (c2 + s2)
    m = k * y  # d = 0: equal priors
    cm = math.sqrt(c2 * s2 / (c2 + s2))
    x = (m - draw_margin(0.1, 2, BETA)) / cm
    v = _phi(x) / _cdf(x)
    w = v * (v + x)
    mean, post = m + cm * v, cm * cm * (1 - w)
    shift, shrink = mean / c2, 1 - post / c2  # (mean - d) / c^2, 1 - var / c^2
    sigma = math.sqrt(var * (1 - var / c2 * shrink))
    return (MU + var * shift, sigma), (MU - var * shift, sigma)


def test_extreme_scores_are_refused_and_large_margins_bounded(admin: Any) -> None:
    client, store, h = admin
    params = {"margin_scale": 1.0}
    r = client.post("/api/leagues", json={"name": "cards", "model": "cardplay", "params": params},
                    headers=h)  # fmt: skip
    assert r.status_code == 201, r.text
    post = {"id": "g1", "time": 1, "teams": [["a"], ["b"]], "scores": [1e308, -1e308]}
    r = client.post("/api/leagues/cards/matches", json=post, headers=h)
    assert r.status_code == 422 and "scores" in r.text, r.text
    assert store.match_count("cards") == 0
    # through the Python API too: the match names itself and the field
    from mindsport.match import InvalidMatchError, Match

    with pytest.raises(
        InvalidMatchError, match=r"match 'g1': scores: 1e\+308 is outside \[-1e\+09"
    ):
        Match("g1", 1, [["a"], ["b"]], scores=[1e308, -1e308])
    # the largest allowed scores: the margin 2e9 is clipped to 100 beta
    post["scores"] = [1e9, -1e9]
    r = client.post("/api/leagues/cards/matches", json=post, headers=h)
    assert r.status_code == 200, r.text
    (a_mu, a_sigma), (b_mu, b_sigma) = margin_win_1v1(100 * BETA)
    board = {e["player"]: e for e in client.get("/api/leagues/cards/leaderboard").json()["items"]}
    assert board["a"]["mu"] == pytest.approx(a_mu, rel=1e-9)
    assert board["a"]["sigma"] == pytest.approx(a_sigma, rel=1e-9)
    assert board["b"]["mu"] == pytest.approx(b_mu, rel=1e-9)
    assert board["b"]["sigma"] == pytest.approx(b_sigma, rel=1e-9)
    assert 25 < a_mu < 25 + 100 * BETA  # bounded: not 1e9
    # and exactly what the scores at the clip bound give
    r = client.post("/api/leagues", json={"name": "edge", "model": "cardplay", "params": params},
                    headers=h)  # fmt: skip
    post = {"id": "g1", "time": 1, "teams": [["a"], ["b"]], "scores": [100 * BETA, 0]}
    assert client.post("/api/leagues/edge/matches", json=post, headers=h).status_code == 200
    edge = {e["player"]: e for e in client.get("/api/leagues/edge/leaderboard").json()["items"]}
    assert edge["a"]["mu"] == pytest.approx(board["a"]["mu"], rel=1e-12)
    # later posts and predictions stay finite
    post = {"id": "g2", "time": 2, "teams": [["b"], ["a"]], "scores": [1e9, -1e9]}
    assert client.post("/api/leagues/cards/matches", json=post, headers=h).status_code == 200
    pr = client.post("/api/leagues/cards/predict", json={"teams": [["a"], ["b"]]}).json()
    assert 0 < pr["win_probability"] < 1


def test_luck_out_of_range_is_refused(admin: Any) -> None:
    client, store, h = admin
    client.post("/api/leagues", json={"name": "cards", "model": "cardplay"}, headers=h)
    post = {"id": "g1", "time": 1, "teams": [["a"], ["b"]], "ranks": [0, 1], "luck": [41, 0]}
    r = client.post("/api/leagues/cards/matches", json=post, headers=h)
    assert r.status_code == 422 and "luck" in r.text
    assert store.match_count("cards") == 0


def test_a_tiny_beta_is_refused_when_the_league_is_made(admin: Any) -> None:
    client, store, h = admin
    r = client.post("/api/leagues", json={"name": "ts", "params": {"beta": 1e-300}}, headers=h)
    assert r.status_code == 400
    assert r.json()["detail"] == (
        "model 'trueskill': beta must be a number in [0.001, 1e+06], got 1e-300"
    )
    assert [lg.name for lg in store.list_leagues()] == []
    # nor can a league be changed to it
    assert client.post("/api/leagues", json={"name": "ts"}, headers=h).status_code == 201
    r = client.patch("/api/leagues/ts", json={"params": {"beta": 1e-300}}, headers=h)
    assert r.status_code == 400 and "beta must be a number in [0.001, 1e+06]" in r.text
    assert store.get_league("ts").params == {}


def test_a_non_finite_rating_is_neither_written_nor_served(
    admin: Any, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store, h = admin
    assert client.post("/api/leagues", json={"name": "ts"}, headers=h).status_code == 201
    ok = {"id": "g0", "time": 0, "teams": [["a"], ["b"]], "ranks": [0, 1]}
    assert client.post("/api/leagues/ts/matches", json=ok, headers=h).status_code == 200
    before = client.get("/api/leagues/ts/leaderboard").json()

    # a model failing in a way no bound foresaw: its replay hands back an infinite rating
    from mindsport.store import derive

    real_drive = derive.drive

    def poisoned(*args: Any, on_block: Any, **kwargs: Any) -> Any:
        def corrupt(part: Any) -> None:
            post = part.fed.post
            post[len(post) - 1, 0] = np.inf  # the last slot: player b of match g2
            on_block(part)

        return real_drive(*args, on_block=corrupt, **kwargs)

    monkeypatch.setattr(derive, "drive", poisoned)
    batch = [
        {"id": "g1", "time": 1, "teams": [["a"], ["c"]], "ranks": [0, 1]},
        {"id": "g2", "time": 2, "teams": [["a"], ["b"]], "ranks": [1, 0]},
    ]
    r = client.post("/api/leagues/ts/matches", json=batch, headers=h)
    assert r.status_code == 400, r.text
    assert "match 'g2': a rating is not a finite number" in r.json()["detail"]
    monkeypatch.undo()
    assert store.match_count("ts") == 1  # the whole batch refused, nothing written
    assert client.get("/api/leagues/ts/leaderboard").json() == before

    # a value stored non-finite behind the store's back (an old database) is never served
    engine = create_engine(resolve_url(db_url))
    with engine.begin() as conn:
        conn.execute(text("UPDATE ms_ratings SET mu = :x WHERE player = 'a'"), {"x": math.inf})
    engine.dispose()
    for r in (
        client.get("/api/leagues/ts/leaderboard"),
        client.get("/api/leagues/ts/players/a"),
        client.post("/api/leagues/ts/predict", json={"teams": [["a"], ["b"]]}),
    ):
        assert r.status_code == 400, r.text
        assert "player 'a': a rating is not a finite number (inf" in r.json()["detail"]
