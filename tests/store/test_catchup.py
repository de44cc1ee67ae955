"""Late results re-rated in bounded pieces (:mod:`mindsport.store.catchup`), on SQLite and
PostgreSQL.

References: once a league is up to date its ratings equal :func:`mindsport.history.replay` of
its matches in time order (computed in memory, apart from the store), and its rating history
equals that of a second league given the same matches in time order in one post (the store's
plain append path, no late result). While a catch-up runs, the ratings served are exactly those
read before the late post, and no piece re-rates more than its bound.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from typing import Any

import pytest
from test_chance_stored import assert_matches_reference as assert_cardplay_reference
from test_chance_stored import doudizhu_matches
from test_store import random_matches

from mindsport.history import replay
from mindsport.match import Match
from mindsport.rating import build_model
from mindsport.store import Store, StoreError
from mindsport.store import catchup as catchup_module

INLINE = 40  # re-ratings longer than this are left to the catch-up in these tests
PIECE = 25  # matches per piece


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small bounds, so that a test league of a few hundred matches needs many pieces."""
    monkeypatch.setattr("mindsport.store.ingest.INLINE", INLINE)
    monkeypatch.setattr(catchup_module, "PIECE", PIECE)
    original = catchup_module.CatchUp.__init__

    def init(self: Any, db: Any, models: Any, lock: Any, piece: int = PIECE) -> None:
        original(self, db, models, lock, piece)

    monkeypatch.setattr(catchup_module.CatchUp, "__init__", init)


def _late(n: int, seed: int) -> tuple[list[Match], list[Match]]:
    """``n`` matches in time order, and a few more dated before all but the first few."""
    ms = random_matches(n, random.Random(seed), players=10)
    early = [
        Match(f"late{k}", 2.5 + k / 10, m.teams, m.ranks)
        for k, m in enumerate(random_matches(3, random.Random(seed + 1), players=10))
    ]
    return ms, early


def _by_time(ms: list[Match]) -> list[Match]:
    return sorted(ms, key=lambda m: float(m.time))  # type: ignore[arg-type]


def _assert_equals_replay(st: Store, league: str, ms: list[Match]) -> None:
    """The league's ratings are the in-memory replay of ``ms`` in time order."""
    expect = replay(build_model("trueskill"), _by_time(ms)).ratings
    got = st.ratings(league)
    assert set(got) == set(expect)
    for p, r in expect.items():
        assert got[p] == pytest.approx(r, abs=1e-9), p


def _histories(st: Store, league: str) -> dict[str, list[tuple[Any, ...]]]:
    return {
        p: [(h.match_id, h.time, round(h.mu, 9), round(h.sigma, 9)) for h in rec.history]
        for p in st.states(league)
        for rec in [st.player(league, p)]
    }


def test_a_long_late_replay_runs_in_pieces_and_ends_equal_to_the_time_order(
    db_url: str, small: None
) -> None:
    ms, early = _late(200, seed=1)
    with Store(db_url) as st:
        st.create_league("lg", "trueskill")
        st.add_matches("lg", ms)
        before = st.states("lg")
        board_before = st.leaderboard("lg", limit=100)
        res = st.submit_matches("lg", early).result()  # no worker: left marked
        assert (res.added, res.replayed, res.updating) == (3, 0, True)
        assert st.get_league("lg").updating
        # the last consistent ratings are served, marked
        assert st.states("lg") == before
        board = st.leaderboard("lg", limit=100)
        assert board.updating and board.entries == board_before.entries
        assert st.player("lg", ms[0].teams[0][0]).updating
        # bounded pieces: the 197 recorded matches from the earliest late one on, and 3 new
        sizes = []
        while (got := st._catchup.step("lg")) is not None:
            sizes.append(got[0])
            if got[1]:
                break
        assert max(sizes) <= PIECE and sum(sizes) == 200 and len(sizes) == 8
        assert not st.get_league("lg").updating
        assert not st.leaderboard("lg").updating
        _assert_equals_replay(st, "lg", ms + early)
        # the history equals a league given every match in time order at once
        st.create_league("ref", "trueskill")
        st.add_matches("ref", _by_time(ms + early))
        assert _histories(st, "lg") == _histories(st, "ref")


def test_posts_during_a_catch_up_are_recorded_and_rated_by_it(db_url: str, small: None) -> None:
    ms, early = _late(200, seed=2)
    later = random_matches(30, random.Random(3), players=10, prefix="x")
    later = [Match(m.id, 1000 + i, m.teams, m.ranks) for i, m in enumerate(later)]
    older = [
        Match("older", 0.5, ms[5].teams, ms[5].ranks),  # before the catch-up's position
        Match("middle", 120.5, ms[7].teams, ms[7].ranks),  # after it, when posted
    ]
    with Store(db_url) as st:
        st.create_league("lg", "trueskill")
        st.add_matches("lg", ms)
        assert st.submit_matches("lg", early).result().updating
        for _ in range(3):
            st._catchup.step("lg")
        res = st.submit_matches("lg", later[:10]).result()  # on time, but the league is behind
        assert (res.added, res.updating) == (10, True)
        st._catchup.step("lg")
        assert st.submit_matches("lg", older).result().updating  # moves the position back
        st.submit_matches("lg", later[10:]).result()
        assert st.catch_up("lg")["lg"] > 0
        assert not st.get_league("lg").updating
        every = ms + early + later + older
        _assert_equals_replay(st, "lg", every)
        st.create_league("ref", "trueskill")
        st.add_matches("ref", _by_time(every))
        assert _histories(st, "lg") == _histories(st, "ref")


def test_a_catch_up_survives_a_restart(db_url: str, small: None) -> None:
    ms, early = _late(150, seed=4)
    with Store(db_url) as st:
        st.create_league("lg", "trueskill")
        st.add_matches("lg", ms)
        st.submit_matches("lg", early).result()
        st._catchup.step("lg")
        st._catchup.step("lg")
    with Store(db_url) as st:  # a new process: the mark and the position were committed
        assert st.get_league("lg").updating
        assert st.catch_up() == {"lg": 147 + 3 - 2 * PIECE}  # from time 2.5 on, less 2 pieces
        _assert_equals_replay(st, "lg", ms + early)


def test_the_synchronous_api_returns_up_to_date(db_url: str, small: None) -> None:
    ms, early = _late(120, seed=5)
    with Store(db_url) as st:
        st.create_league("lg", "trueskill")
        st.add_matches("lg", ms)
        res = st.add_matches("lg", early)
        assert res.updating and not st.get_league("lg").updating
        _assert_equals_replay(st, "lg", ms + early)
        # a short late re-rating is still done inside the post
        res = st.add_matches("lg", [Match("short", 110.5, ms[0].teams, ms[0].ranks)])
        assert not res.updating and 0 < res.replayed <= INLINE


def test_a_model_with_virtual_players_catches_up_from_the_start(db_url: str, small: None) -> None:
    settings = {"deal_sigma": 1.5, "margin_scale": 0.8}
    ms = doudizhu_matches(120, seed=6, unique_times=True)
    order = [*range(30), *range(60, 120), *range(30, 60)]  # 30 matches arrive late
    with Store(db_url) as st:
        st.create_league("ddz", "cardplay", settings)
        st.add_matches("ddz", [ms[i] for i in order[:90]])
        res = st.submit_matches("ddz", [ms[i] for i in order[90:]]).result()
        assert res.updating  # every later game of a role depends on them: 120 > INLINE
        roles_before = st.leaderboard("ddz").roles
        st._catchup.step("ddz")
        assert st.leaderboard("ddz").roles == roles_before  # still the last consistent ones
        st.catch_up("ddz")
        assert_cardplay_reference(st, "ddz", ms, settings)


def test_a_deferred_post_the_model_refuses_is_refused_whole(db_url: str, small: None) -> None:
    ms = random_matches(100, random.Random(7), players=8, shapes=((1, 1),))
    bad = Match("bad", 0.5, [["p01", "p02"], ["p03", "p04"]], [0, 1])  # glicko2: one a team
    with pytest.raises(Exception, match="individual players"):  # the model's own refusal
        replay(build_model("glicko2"), [bad])
    with Store(db_url) as st:
        st.create_league("g2", "glicko2")
        st.add_matches("g2", ms)
        with pytest.raises(StoreError, match="'bad'"):
            st.submit_matches("g2", [bad]).result()
        assert st.match_count("g2") == 100 and not st.get_league("g2").updating


def test_the_worker_brings_leagues_up_to_date_in_the_background(db_url: str, small: None) -> None:
    ms, early = _late(200, seed=8)
    other = random_matches(50, random.Random(9), players=6, prefix="o")
    with Store(db_url) as st:
        st.create_league("lg", "trueskill")
        st.create_league("other", "trueskill")
        st.add_matches("lg", ms)
        st.start_catch_up()
        assert st.add_matches("lg", early).updating  # answered before the re-rating
        # another league's posts go on meanwhile
        for i in range(0, 50, 10):
            assert not st.add_matches("other", other[i : i + 10]).updating
        deadline = time.monotonic() + 60
        while st.get_league("lg").updating and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not st.get_league("lg").updating
        _assert_equals_replay(st, "lg", ms + early)
        st.stop_catch_up()
        assert not any(t.name == "mindsport-catchup" for t in threading.enumerate())


def test_posts_to_a_league_being_brought_up_to_date_are_paced(
    db_url: str, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the worker runs, a commit leaving a league being brought up to date holds that
    league's next commit back for the pace (the clock is the reference), not another league's;
    the ratings end equal to a replay in time order."""
    monkeypatch.setattr("mindsport.store.facade.PACE_SECONDS", 1.0)
    ms, early = _late(200, seed=12)
    other = random_matches(20, random.Random(13), players=6, prefix="o")
    with Store(db_url) as st:
        st.create_league("lg", "trueskill")
        st.create_league("other", "trueskill")
        st.add_matches("lg", ms)
        st.start_catch_up()
        start = time.monotonic()
        assert st.add_matches("lg", early[:1]).updating
        assert not st.add_matches("other", other).updating
        assert time.monotonic() < start + 1.0  # the other league was not held back
        st.add_matches("lg", early[1:])
        assert time.monotonic() >= start + 1.0  # the late league's next commit was
        deadline = time.monotonic() + 60
        while st.get_league("lg").updating and time.monotonic() < deadline:
            time.sleep(0.05)
        _assert_equals_replay(st, "lg", ms + early)
        st.stop_catch_up()


def test_the_command_line_shows_a_league_being_brought_up_to_date(
    tmp_path: Any, small: None
) -> None:
    from typer.testing import CliRunner

    from mindsport.cli.ratings import app

    db = str(tmp_path / "cli.db")
    ms, early = _late(100, seed=10)
    with Store(db) as st:
        st.create_league("lg", "trueskill")
        st.add_matches("lg", ms)
        st.submit_matches("lg", early).result()
    runner = CliRunner()
    shown = runner.invoke(app, ["leaderboard", "--league", "lg", "--db", db]).output
    assert "being brought up to date" in shown
    assert runner.invoke(app, ["recompute", "--league", "lg", "--db", db]).exit_code == 0
    shown = runner.invoke(app, ["leaderboard", "--league", "lg", "--db", db]).output
    assert "being brought up to date" not in shown
    with Store(db) as st:
        _assert_equals_replay(st, "lg", ms + early)


class _Steps:
    """A stand-in for :class:`CatchUp`: one league behind for ``pieces`` steps, each step's
    time.monotonic() recorded."""

    def __init__(self, pieces: int) -> None:
        self.left = pieces
        self.times: list[float] = []

    def behind(self) -> list[str]:
        return ["lg"] if self.left else []

    piece = 250

    def step(self, name: str, piece: int | None = None) -> None:
        self.times.append(time.monotonic())
        self.left -= 1


def _started_while_writing(steps: object, max_defer: float) -> catchup_module.CatchUpWorker:
    """A worker over the stand-in ``steps`` (rescans every 0.05 s, no rest, quiet after
    0.05 s), started just after a write."""
    worker = catchup_module.CatchUpWorker(
        steps,  # type: ignore[arg-type]
        rescan=0.05,
        rest=0.0,
        quiet=0.05,
        max_defer=max_defer,
    )
    worker.writing()
    worker.start()
    return worker


def _keep_writing(worker: catchup_module.CatchUpWorker, seconds: float) -> float:
    """Tell ``worker`` of a write every 5 ms for ``seconds``; returns when that ended
    (time.monotonic())."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        worker.writing()
        time.sleep(0.005)
    return until


def test_the_worker_holds_its_pieces_while_writes_arrive_but_moves_on() -> None:
    """While writes arrive every 5 ms, pieces are at least ``max_defer`` apart (the bound's
    arithmetic is the reference: a piece waits for a quiet ``quiet`` seconds or ``max_defer``
    after the last one), so the catch-up still moves on; once writes stop the pieces follow one
    another at once (no rest: ``rest`` 0)."""
    steps = _Steps(pieces=40)
    worker = _started_while_writing(steps, max_defer=0.3)
    try:
        until = _keep_writing(worker, 1.5)
        during = [t for t in steps.times if t < until]
        assert 2 <= len(during) <= 7, during  # 1.5 s at one piece per 0.3 s at most
        gaps = [b - a for a, b in itertools.pairwise(during)]
        assert all(g >= 0.3 - 0.01 for g in gaps), gaps
        deadline = time.monotonic() + 30
        while steps.left and time.monotonic() < deadline:
            time.sleep(0.01)
        assert steps.left == 0  # the rest, once quiet, without the hold
    finally:
        worker.stop()


class _TimedSteps:
    """A stand-in for :class:`CatchUp` whose piece takes 1 ms a match; the sizes asked for
    recorded with their time.monotonic()."""

    piece = 200

    def __init__(self) -> None:
        self.sizes: list[tuple[float, int]] = []

    def behind(self) -> list[str]:
        return ["lg"]

    def step(self, name: str, piece: int | None = None) -> tuple[int, bool]:
        size = self.piece if piece is None else piece
        self.sizes.append((time.monotonic(), size))
        time.sleep(size * 0.001)
        return size, False


def test_pieces_shrink_while_writes_arrive_and_come_more_often() -> None:
    """While writes arrive a piece is cut to what its pace re-rates in LOADED_PIECE_SECONDS
    (1 ms a match: at most 15 matches, at least MIN_PIECE; the first, not yet timed, is whole)
    and the hold shrinks in proportion, so more pieces come than whole ones would (one per
    ``max_defer``); once writes stop, pieces are whole again."""
    steps = _TimedSteps()
    worker = _started_while_writing(steps, max_defer=1.0)
    try:
        until = _keep_writing(worker, 2.5)
        during = [size for t, size in steps.sizes if t < until]
        assert during[0] == 200
        limit = int(catchup_module.LOADED_PIECE_SECONDS / 0.001)
        assert all(catchup_module.MIN_PIECE <= s <= limit for s in during[1:]), during
        assert len(during) >= 6, during  # whole pieces: at most 3 in 2.5 s
        time.sleep(0.5)
        assert steps.sizes[-1][1] == 200  # quiet again: whole pieces
    finally:
        worker.stop()


@pytest.mark.parametrize(
    ("when", "rated_again"),
    [
        (10.5, True),  # inside the piece being rated: it must be rated by it
        (1000.0, False),  # after every match: a later piece rates it
    ],
)
def test_a_piece_rated_without_the_lock_is_rated_again_when_a_match_lands_before_its_end(
    db_url: str, small: None, monkeypatch: pytest.MonkeyPatch, when: float, rated_again: bool
) -> None:
    """A piece is rated outside the write transaction; a match recorded meanwhile that comes
    before the piece's end makes the step rate the piece again under the lock, one after it
    does not; either way the ratings and histories end equal to a replay in time order (the
    reference: the in-memory replay, and a league fed the same matches in time order)."""
    ms, early = _late(200, seed=14)
    landed = Match("landed", when, [["p01"], ["p02"]], [0, 1])
    original = catchup_module.CatchUp._rate
    rated: list[int] = []
    pending = [landed]

    with Store(db_url) as st:
        st.create_league("lg", "trueskill")
        st.add_matches("lg", ms)
        st.submit_matches("lg", early[:1]).result()  # marked; no worker: nothing re-rated yet
        assert st.get_league("lg").updating

        def rate(self: Any, conn: Any, row: Any, size: int) -> Any:
            got = original(self, conn, row, size)
            rated.append(size)
            if pending:  # another client's post, committed between the rating and the write
                st.submit_matches("lg", [pending.pop()]).result()
            return got

        monkeypatch.setattr(catchup_module.CatchUp, "_rate", rate)
        st.catch_up("lg")
        monkeypatch.undo()
        everything = [*ms, early[0], landed]
        after = sum(float(m.time) >= float(early[0].time) for m in everything)  # type: ignore[arg-type]
        _assert_equals_replay(st, "lg", everything)
        st.create_league("ordered", "trueskill")
        st.add_matches("ordered", _by_time(everything))
        assert _histories(st, "lg") == _histories(st, "ordered")
        assert len(rated) == -(-after // PIECE) + (1 if rated_again else 0)
