"""The Tenhou dan ladder against hand-computed sequences of places and the published tables
(tenhou.net/man as reproduced in docs/models.md), and its replay against ``rate``."""

from __future__ import annotations

import random

import pytest
from reference_models import tenhou_dan_rate

from mindsport.errors import MindsportError
from mindsport.history import replay
from mindsport.match import Match
from mindsport.rating import build_model
from mindsport.rating.tenhou_dan.model import TenhouDan, TenhouDanLadder

NEW = TenhouDan(0, 0.0)


def play(ladder: TenhouDanLadder, me: TenhouDan, place: int, others: TenhouDan = NEW) -> TenhouDan:
    """``me`` after finishing ``place`` (1..4) at a table of ``others``."""
    ranks = [place] + [p for p in (1, 2, 3, 4) if p != place]
    out = ladder.rate([(me,), (others,), (others,), (others,)], ranks)
    return out[0][0]


def run(ladder: TenhouDanLadder, me: TenhouDan, places: list[int]) -> list[tuple[int, float]]:
    seen = []
    for p in places:
        me = play(ladder, me, p)
        seen.append((me.level, me.points))
    return seen


def test_new_player_climbs_the_kyu_ranks_to_first_dan() -> None:
    """All first places in 一般 east-south (+30 each): the kyu targets 20, 20, 20, 20, 40, 60,
    80, 100, 100, 100 take 1, 1, 1, 1, 2, 2, 3, 4, 4, 4 games; 初段 starts at 200."""
    ladder = TenhouDanLadder(room="ippan")
    seen = run(ladder, NEW, [1] * 26)
    games_per_level = [1, 1, 1, 1, 2, 2, 3, 4, 4, 4]
    at = 0
    for level, games in enumerate(games_per_level):
        for g in range(games - 1):
            assert seen[at + g] == (level, 30.0 * (g + 1))
        at += games
        assert seen[at - 1] == (level + 1, 200.0 if level == 9 else 0.0)
    assert seen[25] == (10, 290.0)  # 初段 200 + 3 x 30
    assert ladder.rating(10).name == "初段"


def test_kyu_ranks_are_never_lost_and_lose_points_from_2kyu() -> None:
    ladder = TenhouDanLadder(room="ippan")
    # 新人 to 3級: a fourth place costs nothing
    for level in range(8):
        assert play(ladder, TenhouDan(level, 10.0), 4) == TenhouDan(level, 10.0)
    # 2級 loses 15, 1級 30 (east-south); points stop at 0, the rank stays
    assert play(ladder, TenhouDan(8, 50.0), 4) == TenhouDan(8, 35.0)
    assert play(ladder, TenhouDan(8, 5.0), 4) == TenhouDan(8, 0.0)
    assert play(ladder, TenhouDan(9, 50.0), 4) == TenhouDan(9, 20.0)
    assert run(ladder, TenhouDan(9, 20.0), [4, 4, 1]) == [(9, 0.0), (9, 0.0), (9, 30.0)]
    # third place: nothing, anywhere
    assert play(ladder, TenhouDan(15, 1500.0), 3) == TenhouDan(15, 1500.0)


@pytest.mark.parametrize("dan", range(1, 11))
def test_fourth_place_loss_grows_with_the_dan(dan: int) -> None:
    """At dan n a fourth place loses 30 + 15 n (east-south) or 20 + 10 n (east only), from the
    base points 200 n."""
    level = 9 + dan
    hanchan = play(TenhouDanLadder(room="houou"), TenhouDan(level, 200.0 * dan), 4)
    tonpuu = play(TenhouDanLadder(room="houou", length="tonpuu"), TenhouDan(level, 200.0 * dan), 4)
    assert hanchan == TenhouDan(level, 200.0 * dan - (30 + 15 * dan))
    assert tonpuu == TenhouDan(level, 200.0 * dan - (20 + 10 * dan))


def test_promotion_drops_excess_points_and_demotion_goes_to_the_previous_base() -> None:
    ladder = TenhouDanLadder(room="joukyuu")
    # 初段 390 + 60 = 450 >= 400: 二段 at its base 400 (the 50 over are dropped)
    assert play(ladder, TenhouDan(10, 390.0), 1) == TenhouDan(11, 400.0)
    # exactly the target promotes: 二段 785 + 15 = 800
    assert play(ladder, TenhouDan(11, 785.0), 2) == TenhouDan(12, 600.0)
    # 二段 40 - 60 < 0: 初段 at 200; 初段 30 - 45 < 0: 1級 at 0
    assert play(ladder, TenhouDan(11, 40.0), 4) == TenhouDan(10, 200.0)
    assert play(ladder, TenhouDan(10, 30.0), 4) == TenhouDan(9, 0.0)
    # exactly 0 is kept: 初段 45 - 45
    assert play(ladder, TenhouDan(10, 45.0), 4) == TenhouDan(10, 0.0)
    # a sequence: 三段 at 600 in 上級: 4th, 4th, ..., down to 二段, then back up
    seq = run(ladder, TenhouDan(12, 600.0), [4] * 8 + [4, 1, 1, 1, 2])
    assert seq[:9] == [(12, 600.0 - 75.0 * k) for k in range(1, 9)] + [(11, 400.0)]
    assert seq[9:] == [(11, 460.0), (11, 520.0), (11, 580.0), (11, 595.0)]


def test_tenhou_i_is_reached_from_ten_dan_and_never_lost() -> None:
    ladder = TenhouDanLadder(room="houou")
    top = play(ladder, TenhouDan(19, 3950.0), 1)
    assert top == TenhouDan(20, 0.0) and top.name == "天鳳位"
    assert run(ladder, top, [4, 4, 4, 1]) == [(20, 0.0)] * 4


def test_rooms_differ_in_first_and_second_place_points() -> None:
    """四段 at 800, the same places (1, 2, 3, 4, 1) in each room, east-south and east only."""
    want = {
        ("ippan", "hanchan"): (30, 15),
        ("joukyuu", "hanchan"): (60, 15),
        ("tokujou", "hanchan"): (75, 30),
        ("houou", "hanchan"): (90, 45),
        ("ippan", "tonpuu"): (20, 10),
        ("joukyuu", "tonpuu"): (40, 10),
        ("tokujou", "tonpuu"): (50, 20),
        ("houou", "tonpuu"): (60, 30),
    }
    for (room, length), (first, second) in want.items():
        last = 90 if length == "hanchan" else 60
        seen = run(TenhouDanLadder(room=room, length=length), TenhouDan(13, 800.0), [1, 2, 3, 4, 1])
        pts = [800 + first, 800 + first + second]
        pts += [pts[-1], pts[-1] - last, pts[-1] - last + first]
        assert seen == [(13, float(p)) for p in pts], (room, length)


def test_automatic_room_is_the_highest_the_lowest_level_at_the_table_may_enter() -> None:
    ladder = TenhouDanLadder()  # room="auto"
    seven, four, one_kyu = TenhouDan(16, 1400.0), TenhouDan(13, 800.0), TenhouDan(9, 0.0)

    def first_place_gain(table: list[TenhouDan]) -> float:
        out = ladder.rate([(p,) for p in table], [1, 2, 3, 4])
        return out[0][0].points - table[0].points

    assert first_place_gain([seven, seven, seven, seven]) == 90  # 鳳凰
    assert first_place_gain([seven, four, seven, seven]) == 75  # 特上
    assert first_place_gain([seven, seven, one_kyu, seven]) == 60  # 上級
    assert first_place_gain([seven, seven, seven, TenhouDan(8, 0.0)]) == 30  # 一般


def test_ties_share_the_mean_of_their_places() -> None:
    ladder = TenhouDanLadder(room="houou")
    a, b = TenhouDan(13, 800.0), TenhouDan(16, 1400.0)
    out = ladder.rate([(a,), (b,), (NEW,), (NEW,)], [1, 1, 3, 3])
    assert out[0][0].points == 800 + (90 + 45) / 2 and out[1][0].points == 1400 + 67.5
    out = ladder.rate([(NEW,), (NEW,), (a,), (b,)], [1, 2, 3, 3])
    assert out[2][0].points == 800 - 90 / 2 and out[3][0].points == 1400 - 135 / 2


def test_replay_equals_rate_and_the_hand_written_reference() -> None:
    rng = random.Random(38)
    pool = [f"p{i}" for i in range(9)]
    ms = []
    for i in range(600):
        ranks = [1, 2, 3, 4]
        rng.shuffle(ranks)
        ms.append(Match(f"m{i}", i, [[p] for p in rng.sample(pool, 4)], ranks))
    for room in ("auto", "ippan", "houou"):
        ladder = TenhouDanLadder(room=room)
        ref: dict[str, TenhouDan] = {}
        by_rate: dict[str, TenhouDan] = {}
        for m in ms:
            players = [t[0] for t in m.teams]
            new = tenhou_dan_rate(ladder, [ref.get(p, NEW) for p in players], list(m.ranks))
            ref.update(zip(players, new, strict=True))
            out = ladder.rate([(by_rate.get(p, NEW),) for p in players], list(m.ranks))
            by_rate.update((p, t[0]) for p, t in zip(players, out, strict=True))
        got = replay(ladder, ms).ratings
        assert got == by_rate
        for p, r in ref.items():
            assert (got[p].level, got[p].points) == (r.level, pytest.approx(r.points, abs=1e-9))
        assert max(r.level for r in got.values()) >= 10  # the sequence reached the dan ranks


def test_display_position_and_predictions() -> None:
    ladder = build_model("tenhou-dan", prob_scale=2.0)
    assert ladder.expose(TenhouDan(13, 800.0)) == pytest.approx(13.5)
    assert ladder.expose(TenhouDan(20, 0.0)) == 20.0
    order = [TenhouDan(9, 90.0), TenhouDan(10, 0.0), TenhouDan(10, 399.0), TenhouDan(11, 400.0)]
    assert [ladder.expose(r) for r in order] == sorted(ladder.expose(r) for r in order)
    p = ladder.win_probability((TenhouDan(12, 600.0),), (TenhouDan(10, 200.0),))
    assert p == pytest.approx(1 / (1 + 10 ** (-2.0 / 2.0)))


def test_bad_input_is_refused_naming_what_is_wrong() -> None:
    ladder = TenhouDanLadder()
    with pytest.raises(MindsportError, match="four-player"):
        ladder.rate([(NEW,), (NEW,), (NEW,)], [1, 2, 3])
    with pytest.raises(MindsportError, match="ranked"):
        ladder.rate([(NEW,), (NEW,), (NEW,), (NEW,)], [1, 2, None, 3])
    with pytest.raises(MindsportError, match="individual players"):
        ladder.rate([(NEW, NEW), (NEW,), (NEW,), (NEW,)], [1, 2, 3, 4])
    with pytest.raises(MindsportError, match=r"points at 初段 must be in \[0, 400\)"):
        TenhouDan(10, 400.0)
    with pytest.raises(MindsportError, match=r"level must be 0\.\.20"):
        TenhouDan(21, 0.0)
    with pytest.raises(MindsportError, match="room must be"):
        TenhouDanLadder(room="phoenix")
    ms = [Match("ok", 0, [["a"], ["b"], ["c"], ["d"]], [1, 2, 3, 4])]
    ms.append(Match("three", 1, [["a"], ["b"], ["c"]], [1, 2, 3]))
    with pytest.raises(MindsportError, match=r"'three'.*four-player"):
        replay(ladder, ms)
