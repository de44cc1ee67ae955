"""The game-free runner: any registered game through the contract, the same returns whatever
the executor, the chunking or the order of the tables."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.games import get_game, make_bot, play_game
from mindsport.games.many import Table
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import ProcessExecutor, task_rng
from mindsport.tournament.runner import GameSpec, play_tables


def _junqi_tables() -> list[Table]:
    game = get_game("junqi")
    setups = [game.sample_chance(np.random.default_rng(k)) for k in range(2)]
    return [
        Table(s, (a, b), (7, i, j))
        for i, (a, b) in enumerate((("random", "greedy"), ("greedy", "random")))
        for j, s in enumerate(setups)
    ]


def test_a_game_without_a_batch_path_is_refereed_table_by_table() -> None:
    tables = _junqi_tables()
    serial = play_tables("junqi", tables, seed=4, chunk=1)
    assert serial.shape == (4, 2) and np.all(serial.sum(axis=1) == 0)
    backwards = play_tables("junqi", tables[::-1], seed=4, chunk=3)[::-1]
    with ProcessExecutor(2) as pool:
        parallel = play_tables("junqi", tables, seed=4, executor=pool, chunk=2)
    assert np.array_equal(serial, backwards) and np.array_equal(serial, parallel)
    # table key k plays with task_rng(seed, *k): the referee's own game from that generator
    game = get_game("junqi")
    for t, row in zip(tables, serial, strict=True):
        bots = [make_bot(game, b) for b in t.bots]
        alone = play_game(game, bots, task_rng(4, *t.key), chance=t.chance)
        assert alone.returns == tuple(row)


def test_the_batch_path_gives_the_referees_returns() -> None:
    game = get_game("doudizhu")
    deals = [game.sample_chance(np.random.default_rng(k)) for k in range(6)]
    tables = [Table(d, ("level:60", "level:20", "random"), (3, j)) for j, d in enumerate(deals)]
    fast = play_tables(GameSpec("doudizhu"), tables, seed=8)
    for t, row in zip(tables, fast, strict=True):
        bots = [make_bot(game, b) for b in t.bots]
        slow = play_game(game, bots, task_rng(8, *t.key), chance=t.chance)
        assert slow.returns == tuple(row)


def test_bad_tables_are_refused() -> None:
    with pytest.raises(TournamentError, match="seats 2 bots"):
        play_tables("junqi", [Table(None, ("random",), (1,))], seed=1)
    with pytest.raises(TournamentError, match="chunk"):
        play_tables("junqi", _junqi_tables(), seed=1, chunk=0)


class _Recording:
    """A serial executor that says it has three workers and records each task's tables."""

    name = "recording"
    workers = 3

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def map(self, fn, tasks, progress=None):  # type: ignore[no-untyped-def]
        self.sizes.extend(len(t[2]) for t in tasks)
        return [fn(t) for t in tasks]


def test_tables_are_shared_among_the_workers_unless_a_chunk_is_given() -> None:
    tables = _junqi_tables() * 2  # 8 tables
    serial = play_tables("junqi", tables, seed=4)  # one worker: one task of all
    recording = _Recording()
    shared = play_tables("junqi", tables, seed=4, executor=recording)  # type: ignore[arg-type]
    assert recording.sizes == [3, 3, 2]  # ceil(8 / 3) a task
    assert np.array_equal(serial, shared)
    recording.sizes.clear()
    play_tables("junqi", tables, seed=4, executor=recording, chunk=8)  # type: ignore[arg-type]
    assert recording.sizes == [8]
