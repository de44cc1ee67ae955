"""A league's policy for late results (:mod:`mindsport.store.late`), through the Store API, on
SQLite and PostgreSQL.

References: ``arrival`` ratings are :func:`mindsport.history.replay` of the matches in memory in
the order they were posted (and the ``trueskill`` package's, the same order); ``replay`` and
``refuse`` ratings are the ``trueskill`` package's in time order; a refused post leaves the
league's log and ratings exactly as they were read before it.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from test_store import TOL, assert_matches_reference, random_matches

from mindsport.history import replay
from mindsport.match import Match
from mindsport.rating import build_model
from mindsport.store import LateMatchError, LatePolicy, Store, StoreError


def _post_shuffled(st: Store, league: str, ms: list[Match], seed: int) -> list[Match]:
    """Post ``ms`` shuffled, in random small batches; returns them in the order posted."""
    rng = random.Random(seed)
    order = ms[:]
    rng.shuffle(order)
    i = 0
    while i < len(order):
        k = rng.randint(1, 6)
        res = st.add_matches(league, order[i : i + k])
        assert res.added == len(order[i : i + k])
        if st.get_league(league).late.by_arrival:
            assert res.replayed == 0  # nothing re-rated, late or not
        i += k
    return order


def _assert_equals_replay(st: Store, league: str, model: str, ms: list[Match]) -> None:
    """The league's ratings are ``mindsport.history.replay`` of ``ms`` in the order given."""
    lg = st.get_league(league)
    expect = replay(build_model(model, **lg.params), ms).ratings
    got = st.ratings(league)
    assert set(got) == set(expect)
    for p, r in expect.items():
        assert got[p] == pytest.approx(r, abs=1e-9), p


@pytest.mark.parametrize("model", ["trueskill", "elo"])
def test_arrival_rates_in_the_order_of_arrival(db_url: str, reference: Any, model: str) -> None:
    ms = random_matches(80, random.Random(11))
    with Store(db_url) as st:
        lg = st.create_league("arr", model, late="arrival")
        assert lg.late == LatePolicy("arrival")
        arrived = _post_shuffled(st, "arr", ms, seed=12)
        assert arrived != ms  # late matches did arrive
        _assert_equals_replay(st, "arr", model, arrived)
        if model == "trueskill":  # a peer agrees, in arrival order
            assert_matches_reference(st, "arr", reference(arrived)[0])
            # and differs from the time order's ratings: the policy changed something
            by_time = reference(ms)[0]
            assert any(abs(st.states("arr")[p].mu - mu) > 1e-3 for p, (mu, _) in by_time.items())
        # times are recorded as given; a rebuild replays in arrival order too
        assert sorted((m.id, m.time) for m in st.matches("arr")) == sorted(
            (m.id, m.time) for m in ms
        )
        assert st.recompute("arr") == {"arr": 80}
        _assert_equals_replay(st, "arr", model, arrived)


def test_arrival_with_dated_matches_and_drift(db_url: str) -> None:
    """Times go backwards in arrival order: the replayer's elapsed time is the same in memory."""
    t0 = datetime(2024, 3, 1, tzinfo=UTC)
    rng = random.Random(3)
    ms = [
        Match(m.id, t0 + timedelta(hours=7 * i), m.teams, m.ranks)
        for i, m in enumerate(random_matches(40, rng, players=6))
    ]
    with Store(db_url) as st:
        st.create_league("d", "trueskill", {"tau": 0.5}, late="arrival")
        arrived = _post_shuffled(st, "d", ms, seed=4)
        _assert_equals_replay(st, "d", "trueskill", arrived)


def test_replay_is_the_default_and_follows_time_order(db_url: str, reference: Any) -> None:
    ms = random_matches(60, random.Random(21))
    with Store(db_url) as st:
        assert st.create_league("rep").late == LatePolicy("replay")
        _post_shuffled(st, "rep", ms, seed=22)
        assert_matches_reference(st, "rep", reference(ms)[0])


def test_refuse_past_the_limit_stores_nothing_of_the_post(db_url: str, reference: Any) -> None:
    def m(mid: str, t: float, a: str = "a", b: str = "b") -> Match:
        return Match(mid, t, [[a], [b]], [0, 1])

    with Store(db_url) as st:
        st.create_league("ref", late=LatePolicy("refuse", 10))
        st.add_matches("ref", [m("m1", 100), m("m2", 101, "b", "c")])
        before = (st.matches("ref"), st.states("ref"), st.get_league("ref").matches)
        # one match 11 older than the latest (101): the whole post is refused
        with pytest.raises(LateMatchError) as err:
            st.add_matches("ref", [m("ok", 102, "c", "d"), m("old", 90.5, "a", "c")])
        text_ = str(err.value)
        assert "'old'" in text_ and "90.5" in text_ and "101" in text_ and "10" in text_
        assert err.value.match_id == "old" and err.value.field == "time"
        assert (st.matches("ref"), st.states("ref"), st.get_league("ref").matches) == before
        # exactly the limit is accepted, and replayed as under ``replay``
        res = st.add_match("ref", m("edge", 91, "a", "c"))
        assert res.added == 1 and res.replayed == 2
        # the latest moves on: 91 is now too old against 102 (once recorded)
        st.add_match("ref", m("new", 102, "c", "d"))
        with pytest.raises(LateMatchError):
            st.add_match("ref", m("old2", 91.9, "a", "d"))
        # an identical re-post of a recorded old match is no new match: ignored, not refused
        assert st.add_match("ref", m("edge", 91, "a", "c")).duplicates == 1
        log = [
            m("edge", 91, "a", "c"),
            m("m1", 100),
            m("m2", 101, "b", "c"),
            m("new", 102, "c", "d"),
        ]
        assert [x.id for x in st.matches("ref")] == [x.id for x in log]
        final, _ = reference(log)
        assert_matches_reference(st, "ref", final, TOL)


def test_refuse_counts_days_for_dated_matches(db_url: str) -> None:
    t0 = datetime(2024, 5, 10, 12, tzinfo=UTC)

    def m(mid: str, t: datetime) -> Match:
        return Match(mid, t, [["a"], ["b"]], [0, 1])

    with Store(db_url) as st:
        st.create_league("days", late="refuse:2")
        st.add_match("days", m("now", t0))
        with pytest.raises(LateMatchError, match=r"'late'.*2024-05-08T11:59:59.*more than 2 days"):
            st.add_match("days", m("late", t0 - timedelta(days=2, seconds=1)))
        assert st.add_match("days", m("edge", t0 - timedelta(days=2))).added == 1
        assert st.match_count("days") == 2


def test_policy_values_are_checked() -> None:
    assert LatePolicy.parse("refuse:30") == LatePolicy("refuse", 30.0)
    assert LatePolicy.parse("arrival").text() == "arrival"
    assert LatePolicy("refuse", 1.5).text() == "refuse:1.5"
    for bad, says in (
        (lambda: LatePolicy("later"), "use one of replay, arrival, refuse"),
        (lambda: LatePolicy("refuse"), "needs refuse_older_than"),
        (lambda: LatePolicy("refuse", -1), "from 0 to"),
        (lambda: LatePolicy("refuse", float("inf")), "from 0 to"),
        (lambda: LatePolicy("refuse", float("nan")), "from 0 to"),
        (lambda: LatePolicy("arrival", 3), "applies only to the policy 'refuse'"),
        (lambda: LatePolicy.parse("refuse:soon"), "must be a number"),
    ):
        with pytest.raises(StoreError, match=says):
            bad()


def test_arrival_is_refused_for_whole_history_models(db_url: str) -> None:
    with Store(db_url) as st:
        with pytest.raises(StoreError, match="'arrival' does not apply"):
            st.create_league("h", "trueskill-history", late="arrival")
        assert st.list_leagues() == []
        st.create_league("h", "trueskill-history", late="refuse:5")  # refuse applies
        with pytest.raises(StoreError, match="'arrival' does not apply"):
            st.update_league("h", late="arrival")
        st.create_league("o", late="arrival")
        with pytest.raises(StoreError, match="'arrival' does not apply"):
            st.update_league("o", model="trueskill-history", params={})
        assert st.get_league("h").late == LatePolicy("refuse", 5)
        assert st.get_league("o").late == LatePolicy("arrival")
        assert st.get_league("o").model == "trueskill"


def test_changing_the_policy_rerates_nothing(db_url: str, reference: Any) -> None:
    ms = random_matches(50, random.Random(31))
    with Store(db_url) as st:
        st.create_league("c", late="arrival")
        arrived = _post_shuffled(st, "c", ms, seed=32)
        states = st.states("c")
        assert st.update_league("c", late="replay").late == LatePolicy("replay")
        assert st.states("c") == states  # still the arrival order's
        assert st.recompute("c") == {"c": 50}  # now re-rated in time order
        assert_matches_reference(st, "c", reference(ms)[0])
        st.update_league("c", late="arrival")
        st.recompute("c")
        _assert_equals_replay(st, "c", "trueskill", arrived)
        # changing the model re-rates, in the league's order (arrival)
        st.update_league("c", params={"beta": 5.0})
        _assert_equals_replay(st, "c", "trueskill", arrived)


def test_an_earlier_database_gives_its_leagues_replay(db_url: str, reference: Any) -> None:
    ms = random_matches(30, random.Random(41))
    with Store(db_url) as st:
        st.create_league("old")
        st.add_matches("old", ms[:20])
    engine = create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE ms_leagues DROP COLUMN late"))
        conn.execute(text("ALTER TABLE ms_leagues DROP COLUMN late_limit"))
    engine.dispose()
    with Store(db_url, create=False) as st:
        assert st.get_league("old").late == LatePolicy("replay")
        later = ms[20:]
        st.add_matches("old", later[::-1])  # late ones among them: replayed
        assert_matches_reference(st, "old", reference(ms)[0])
        st.update_league("old", late="refuse:3")
    with Store(db_url, create=False) as st:
        assert st.list_leagues()[0].late == LatePolicy("refuse", 3)
