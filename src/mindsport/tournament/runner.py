"""Games of any registered game in bulk, on any executor, reproducibly: the contract only.

A :class:`Table` names the chance outcome (a deal, the setups: a value of the game, never
its text), the bots (spec strings of the game's ``make_bot``) and a key. Table ``key`` of a run
seeded ``seed`` plays with the generator :func:`~.executors.task_rng` ``(seed, *key)``, so its
returns depend only on (seed, table), never on how tables are chunked or on which worker plays
them. :func:`play_tables` chunks the tables, maps the chunks on an executor and returns the
returns in table order.

A chunk is played through :mod:`mindsport.games` only: a game with a batch path
(:class:`~mindsport.games.contract.BatchGame`, e.g. Dou Dizhu's compiled engine) plays the whole
chunk at once; otherwise (or when a line-up has a bot the batch path cannot play, such as an
external program) the referee plays table after table. Bots are made once per chunk, and
external programs among them are closed at the end of the chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.games.contract import BatchGame, Bot, Game
from mindsport.games.referee import play_state
from mindsport.games.registry import get_game
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import Executor, SerialExecutor, task_rng

__all__ = ["DEFAULT_CHUNK", "GameSpec", "Table", "play_tables"]

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


@dataclass(frozen=True)
class Table:
    """One game: the chance outcome, the bot specs per seat, the seed key."""

    chance: Any
    bots: tuple[str, ...]
    key: tuple[int, ...]


def _close(bots: dict[str, Bot]) -> None:
    for bot in bots.values():
        close = getattr(bot, "close", None)
        if callable(close):
            close()


def _play_chunk(task: tuple[GameSpec, int, tuple[Table, ...]]) -> FloatArray:
    spec, seed, tables = task
    game = spec.make()
    if isinstance(game, BatchGame):
        fast = game.play_batch(
            [t.chance for t in tables], [t.bots for t in tables], [t.key for t in tables], seed
        )
        if fast is not None:
            return np.asarray(fast, dtype=np.float64)
    bots: dict[str, Bot] = {}
    out = np.zeros((len(tables), game.info.players), dtype=np.float64)
    try:
        for i, table in enumerate(tables):
            seats = []
            for name in table.bots:
                if name not in bots:
                    bots[name] = game.make_bot(name)
                seats.append(bots[name])
            rng = task_rng(seed, *table.key)
            result = play_state(game.new_initial_state(table.chance), seats, rng)
            out[i] = result.returns
    finally:
        _close(bots)
    return out


def play_tables(
    game: GameSpec | str,
    tables: Sequence[Table],
    seed: int,
    executor: Executor | None = None,
    *,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> FloatArray:
    """Returns of every table (tables x players), in table order; ``progress(k)`` after each
    chunk of k tables."""
    spec = GameSpec(game) if isinstance(game, str) else game
    if isinstance(chunk, bool) or int(chunk) != chunk or chunk < 1:
        raise TournamentError(f"chunk must be a positive integer, got {chunk!r}")
    made = spec.make()
    players = made.info.players
    for name in {s for t in tables for s in t.bots}:
        made.make_bot(name)  # fail early, in the parent, on a bad spec
    for t in tables:
        if len(t.bots) != players:
            raise TournamentError(
                f"{made.info.title} seats {players} bots, table {t.key} has {len(t.bots)}"
            )
    runner = executor or SerialExecutor()
    tasks = [(spec, int(seed), tuple(tables[i : i + chunk])) for i in range(0, len(tables), chunk)]
    sizes = iter([len(t[2]) for t in tasks])

    def tick(_: int) -> None:
        if progress is not None:
            progress(next(sizes, 0))

    parts = runner.map(_play_chunk, tasks, tick)
    if not parts:
        return np.zeros((0, players), dtype=np.float64)
    return np.concatenate(parts, axis=0)
