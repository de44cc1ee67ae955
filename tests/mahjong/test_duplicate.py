"""Duplicate mahjong: the four cyclic rotations of one set of walls, checked against the
engine's own deal (the same tiles at the same seats in every rotation) and by hand."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.games import get_game, make_bot
from mindsport.games.referee import play_state
from mindsport.mahjong import MahjongGame, Walls
from mindsport.mahjong.duplicate import (
    duplicate_tables,
    per_player,
    play_duplicate,
    rotations,
)


def test_the_rotations_are_the_four_cyclic_seatings() -> None:
    seatings = rotations(["a", "b", "c", "d"])
    assert len(set(seatings)) == 4
    # every player sits every seat once, and each seating is a cyclic shift of the first
    for seat in range(4):
        assert sorted(s[seat] for s in seatings) == ["a", "b", "c", "d"]
    shifts = {tuple(seatings[0][(i - k) % 4] for i in range(4)) for k in range(4)}
    assert shifts == set(seatings)
    tables = duplicate_tables(Walls(5), ["a", "b", "c", "d"], key=(7,))
    assert [t.key for t in tables] == [(7, 0), (7, 1), (7, 2), (7, 3)]
    assert {t.chance for t in tables} == {Walls(5)}
    with pytest.raises(MindsportError, match="4 bots"):
        duplicate_tables(Walls(5), ["a", "b"])


def test_every_rotation_deals_the_same_walls() -> None:
    game = get_game("mahjong-east")
    walls = Walls(2024)
    starts = []
    for table in duplicate_tables(walls, ["level:100", "level:50", "level:20", "random"]):
        bots = [make_bot(game, str(s)) for s in table.bots]
        state = game.new_initial_state(table.chance)
        play_state(state, bots, np.random.default_rng(list(table.key)))
        first = next(e for e in state.mjai_log() if e["type"] == "start_kyoku")  # type: ignore[attr-defined]
        starts.append(first)
    assert all(s == starts[0] for s in starts)  # same hands at the same seats, same dora


def test_a_duplicate_set_is_read_back_per_player() -> None:
    assert per_player([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]).tolist() == [
        [1, 2, 3, 4],
        [6, 7, 8, 5],
        [11, 12, 9, 10],
        [16, 13, 14, 15],
    ]
    bots = ["level:100", "level:60", "level:30", "random"]
    result = play_duplicate(MahjongGame("east"), Walls(31), bots, seed=3)
    assert [r.bots for r in result.records] == [tuple(s) for s in rotations(bots)]
    for k, record in enumerate(result.records):
        for player in range(4):
            seat = (player + k) % 4
            assert result.points[k, player] == record.points[seat]
            assert result.placements[k, player] == record.placements[seat]
        assert sum(record.points) + 1000 * record.riichi_sticks == 100_000
    assert result.mean_placement.sum() == pytest.approx(10.0)
    again = play_duplicate(MahjongGame("east"), Walls(31), bots, seed=3)
    assert np.array_equal(again.points, result.points)
