"""Riichi mahjong in the contract: the rules are riichienv's, so these tests hold the contract's
behaviour to the engine (its own ranks, its wall shuffle, its mjai log) and to hand
computations (the forfeit penalty, the conserved points)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.games import get_game, make_bot, play_game
from mindsport.games.many import Table
from mindsport.mahjong import MahjongGame, MahjongState, Walls, placements
from mindsport.tournament.executors import ProcessExecutor
from mindsport.tournament.runner import play_tables

LINEUP = ("level:100", "level:70", "level:30", "random")


def _play(name: str, walls: Walls, specs: tuple[str, ...], seed: int) -> tuple[object, ...]:
    game = get_game(name)
    result = play_game(game, [make_bot(game, s) for s in specs], np.random.default_rng(seed), walls)
    state = result.final
    assert isinstance(state, MahjongState)
    return (game.record(result), state.mjai_log(), state)


def test_seeded_walls_reproduce_games_and_fix_the_tiles() -> None:
    walls = Walls(123456789)
    record_a, log_a, _ = _play("mahjong-east", walls, LINEUP, 1)
    record_b, log_b, _ = _play("mahjong-east", walls, LINEUP, 1)
    assert log_a == log_b and record_a == record_b
    # other bots and another generator: the first hand deals the same tiles (the engine's walls
    # depend on the seed alone), the game then differs
    _, log_c, _ = _play("mahjong-east", walls, ("random",) * 4, 2)
    start_a = next(e for e in log_a if e["type"] == "start_kyoku")
    start_c = next(e for e in log_c if e["type"] == "start_kyoku")
    assert start_a == start_c
    assert log_a != log_c
    _, log_d, _ = _play("mahjong-east", Walls(987654321), LINEUP, 1)
    assert next(e for e in log_d if e["type"] == "start_kyoku") != start_a


@pytest.mark.parametrize("name", ["mahjong-east", "mahjong"])
def test_points_are_conserved_and_placed_as_the_engine_ranks(name: str) -> None:
    riichi_seen = False
    for seed in range(3):
        game = get_game(name)
        walls = game.sample_chance(np.random.default_rng([seed, 5]))
        record, log, state = _play(name, walls, LINEUP, seed)
        # every riichi deposit is either on the table or was paid to a winner: the four
        # seats' points and the deposits left make the starting 4 x 25,000
        assert sum(record.points) + 1000 * record.riichi_sticks == 100_000
        assert record.points == tuple(state.engine.scores())
        assert list(record.placements) == list(state.engine.ranks())
        assert record.returns == tuple((p - 25_000) / 1000 for p in record.points)
        riichi_seen |= any(e["type"] == "reach_accepted" for e in log)
        hands = sum(e["type"] == "start_kyoku" for e in log)
        assert hands >= (4 if name == "mahjong-east" else 8) or min(record.points) < 0
    assert riichi_seen, "the sample has a riichi, so the deposits were accounted"


def test_placements_break_ties_by_seat_and_put_a_forfeiter_last() -> None:
    assert placements([25_000, 30_000, 25_000, 20_000]) == (2, 1, 3, 4)
    assert placements([40_000, 30_000, 20_000, 10_000], last=0) == (4, 1, 2, 3)


def test_a_forfeit_pays_a_mangan_penalty() -> None:
    game = MahjongGame("east")
    dealer_out = game.new_initial_state(Walls(7))
    dealer_out.forfeit(0)  # seat 0 deals the first hand: 4,000 to each other seat
    assert dealer_out.points() == (13_000, 29_000, 29_000, 29_000)
    assert dealer_out.placements() == (4, 1, 2, 3)
    other_out = game.new_initial_state(Walls(7))
    other_out.forfeit(2)  # 4,000 to the dealer, 2,000 to the other two
    assert other_out.points() == (29_000, 27_000, 17_000, 27_000)
    assert other_out.placements() == (1, 2, 4, 3)
    assert other_out.is_terminal() and other_out.returns() == [4.0, 2.0, -8.0, 2.0]
    with pytest.raises(MindsportError, match="over"):
        other_out.forfeit(1)


def test_placement_scoring_and_bad_settings() -> None:
    game = MahjongGame("east", score="placement")
    state = game.new_initial_state(Walls(7))
    state.forfeit(1)
    assert state.returns() == [1.5, -1.5, 0.5, -0.5] and game.info.returns_sum == 0.0
    with pytest.raises(MindsportError, match="unknown mahjong length"):
        MahjongGame("west")
    with pytest.raises(MindsportError, match="unknown score"):
        MahjongGame(score="uma")
    with pytest.raises(MindsportError, match="2\\*\\*64"):
        Walls(-1)
    with pytest.raises(MindsportError, match="starts from Walls"):
        game.new_initial_state(7)
    with pytest.raises(MindsportError, match="unknown mahjong bot"):
        make_bot(game, "level:101")


def test_moves_are_values_named_like_mjai() -> None:
    state = MahjongGame("east").new_initial_state(Walls(3))
    legal = state.legal_actions()
    texts = [state.action_to_string(m) for m in legal]
    assert all(t.startswith("dahai ") for t in texts) and len(set(texts)) == len(texts)
    copy = pickle.loads(pickle.dumps(legal[0]))
    assert copy == legal[0] and hash(copy) == hash(legal[0]) and copy is not legal[0]
    state.apply_action(copy)  # an equal move is as good as the listed one
    assert state.current_player() == 1


def test_the_tournament_runner_plays_mahjong_on_processes_as_serially() -> None:
    walls = [Walls(11), Walls(12)]
    tables = [Table(w, LINEUP, (0, i)) for i, w in enumerate(walls)]
    serial = play_tables("mahjong-east", tables, seed=4, chunk=1)
    with ProcessExecutor(2) as pool:
        parallel = play_tables("mahjong-east", tables, seed=4, executor=pool, chunk=1)
    assert np.array_equal(serial, parallel) and serial.shape == (2, 4)


@pytest.mark.ray_cluster
def test_the_tournament_runner_plays_mahjong_on_ray_as_serially() -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'mindsport[ray]')")
    from mindsport.tournament.executors import RayExecutor

    walls = [Walls(21), Walls(22), Walls(23)]
    tables = [Table(w, LINEUP, (1, i)) for i, w in enumerate(walls)]
    serial = play_tables("mahjong-east", tables, seed=6, chunk=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with RayExecutor() as executor:
            on_ray = play_tables("mahjong-east", tables, seed=6, executor=executor, chunk=2)
    finally:
        ray.shutdown()
    assert np.array_equal(serial, on_ray) and serial.shape == (3, 4)
    assert len({tuple(row) for row in serial.tolist()}) == 3  # three different games
