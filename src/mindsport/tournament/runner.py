"""Games of any registered game in bulk, on any executor, reproducibly: the contract only.

Tables (:class:`mindsport.games.many.Table`: the chance outcome, the bot specs, a key) of a run
seeded ``seed`` play with the generator :func:`~.executors.task_rng` ``(seed, *key)``, so their
returns depend only on (seed, table), never on how tables are chunked or on which worker plays
them. :func:`play_tables` chunks the tables, maps the chunks on an executor and returns the
returns in table order; each chunk is played by :func:`mindsport.games.many.play_many` (a
game's batch path when it has one, else the referee).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.games.contract import Game
from mindsport.games.many import Table, play_many
from mindsport.games.registry import get_game, make_bot
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import Executor, SerialExecutor, task_seed

__all__ = ["DEFAULT_CHUNK", "GameSpec", "play_tables"]

#: tables per task handed to an executor (big enough to amortise pickling and start-up)
DEFAULT_CHUNK = 2000

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class GameSpec:
    """A game by registry name and factory parameters (picklable: workers rebuild it)."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def make(self) -> Game:
        return get_game(self.name, **dict(self.params))


def _play_chunk(task: tuple[GameSpec, int, tuple[Table, ...]]) -> FloatArray:
    spec, seed, tables = task
    return play_many(spec.make(), tables, seed)


def play_tables(
    game: GameSpec | str,
    tables: Sequence[Table],
    seed: int,
    executor: Executor | None = None,
    *,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> FloatArray:
    """Returns of every table (tables x players), in table order; ``progress(k)`` after each
    chunk of k tables. ``chunk`` tables make one task (None: the tables shared evenly among the
    executor's workers, at most :data:`DEFAULT_CHUNK` a task)."""
    spec = GameSpec(game) if isinstance(game, str) else game
    runner = executor or SerialExecutor()
    if chunk is None:
        chunk = max(1, min(DEFAULT_CHUNK, -(-len(tables) // max(1, int(runner.workers)))))
    if isinstance(chunk, bool) or int(chunk) != chunk or chunk < 1:
        raise TournamentError(f"chunk must be a positive integer, got {chunk!r}")
    made = spec.make()
    players = made.info.players
    for name in {s for t in tables for s in t.bots if isinstance(s, str)}:
        make_bot(made, name)  # fail early, in the parent, on a bad spec
    for t in tables:
        task_seed(seed, *t.key)  # a bad seed or key fails here too
        if len(t.bots) != players:
            raise TournamentError(
                f"{made.info.title} seats {players} bots, table {t.key} has {len(t.bots)}"
            )
    tasks = [(spec, int(seed), tuple(tables[i : i + chunk])) for i in range(0, len(tables), chunk)]
    sizes = iter([len(t[2]) for t in tasks])

    def tick(_: int) -> None:
        if progress is not None:
            progress(next(sizes, 0))

    parts = runner.map(_play_chunk, tasks, tick)
    if not parts:
        return np.zeros((0, players), dtype=np.float64)
    return np.concatenate(parts, axis=0)
