"""Executors, per-game seeds and engine games in bulk (tiny engine runs)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from mindsport.doudizhu import Deal, deal
from mindsport.errors import MindsportError
from mindsport.tournament.doudizhu.games import (
    Game,
    bomb_count,
    landlord_table,
    one_bomb_deal,
    play_games,
    random_deals,
)
from mindsport.tournament.executors import (
    ProcessExecutor,
    SerialExecutor,
    make_executor,
    task_rng,
    task_seed,
)

RANKS = "3456789TJQKA2XD"


def _square(x: int) -> int:
    return x * x


def _slow_first(x: int) -> int:
    time.sleep(0.2 if x == 0 else 0.0)
    return x


def test_task_seed_is_the_seedsequence_spawn_child() -> None:
    # independent reference: numpy's own spawn() of the root sequence
    children = np.random.SeedSequence(42).spawn(4)
    for i, child in enumerate(children):
        assert np.array_equal(
            np.random.default_rng(child).integers(1 << 30, size=5),
            task_rng(42, i).integers(1 << 30, size=5),
        )
    grandchild = children[3].spawn(3)[2]
    assert task_seed(42, 3, 2).generate_state(4).tolist() == grandchild.generate_state(4).tolist()
    with pytest.raises(MindsportError, match="seed"):
        task_seed(-1)
    with pytest.raises(MindsportError, match="key"):
        task_seed(1, -2)


def test_executors_keep_task_order() -> None:
    tasks = list(range(6))
    with SerialExecutor() as serial:
        assert serial.map(_square, tasks) == [t * t for t in tasks]
    seen: list[int] = []
    with ProcessExecutor(2) as pool:
        assert pool.map(_slow_first, tasks, seen.append) == tasks  # first task finishes last
        assert pool.map(_square, []) == []
    assert seen == [1] * 6
    assert isinstance(make_executor("local", 1), SerialExecutor)
    with pytest.raises(MindsportError, match="executor must be one of"):
        make_executor("gpu")
    with pytest.raises(MindsportError, match="workers"):
        ProcessExecutor(0)


def _brute_bombs(text: str, rocket: bool) -> int:
    count = 0
    for hand in text.strip("[]").split("]["):
        count += sum(1 for r in RANKS[:13] if hand.count(r) == 4)
        count += int(rocket and "X" in hand and "D" in hand)
    return count


def test_bomb_count_and_one_bomb_deals_match_a_character_count() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        d = deal(rng)
        assert bomb_count(d) == _brute_bombs(str(d), True)
        assert bomb_count(d, rocket=False) == _brute_bombs(str(d), False)
    for d in random_deals(30, rng, one_bomb=True):
        assert isinstance(d, Deal)
        assert _brute_bombs(str(d), True) == 1
    assert _brute_bombs(str(one_bomb_deal(rng, rocket=False)), False) == 1


def test_games_do_not_depend_on_chunks_or_workers() -> None:
    deals = random_deals(3, np.random.default_rng(1))
    games = [
        Game(d, (lord, "level:0", "level:0"), (0, i, j))
        for i, lord in enumerate(("level:0", "greedy"))
        for j, d in enumerate(deals)
    ]
    a = play_games(games, seed=9, chunk=1)
    b = play_games(list(reversed(games)), seed=9, chunk=4)[::-1]
    with ProcessExecutor(2) as pool:
        c = play_games(games, seed=9, executor=pool, chunk=2)
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert set(np.abs(a).tolist()) <= {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}
    table = landlord_table(deals, ["level:0", "greedy"], ("level:0", "level:0"), 9, 0, replays=2)
    assert table.shape == (2, 3, 2)
    with pytest.raises(MindsportError, match="unknown bot"):
        play_games([Game(deals[0], ("nobody", "level:0", "level:0"), (0,))], seed=1)


@pytest.mark.ray_cluster
def test_ray_executor_gives_the_serial_results() -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'mindsport[ray]')")
    from mindsport.tournament.executors import RayExecutor

    deals = random_deals(2, np.random.default_rng(2))
    games = [Game(d, ("greedy", "level:0", "level:0"), (1, j)) for j, d in enumerate(deals)]
    serial = play_games(games, seed=3, chunk=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        executor = RayExecutor()
        assert executor.workers == 2
        assert executor.map(_square, [3, 1, 2]) == [9, 1, 4]
        assert np.array_equal(play_games(games, seed=3, executor=executor, chunk=1), serial)
        executor.close()  # it did not start Ray, so Ray stays up
        assert ray.is_initialized()
    finally:
        ray.shutdown()
