"""Many games of any game of the contract, reproducibly: the one "play many games" of the
package (the tournament runner, the simulations, the event play and the command line call it).

A :class:`Table` names the chance outcome (a deal, the setups; ``None``: drawn from the game's
generator first), the bots of the seats (spec strings for :func:`~.registry.make_bot`, or bot
objects) and a key. Table ``key`` of a run seeded ``seed`` plays with the generator
``seeding.rng(seed, key)`` (:class:`Seeding`), so what it gives depends only on (seed, table),
never on how tables are grouped or on which worker plays them.

:func:`play_many` plays a group of tables: a game with a batch path
(:class:`~mindsport.games.contract.BatchGame`, e.g. Dou Dizhu's compiled engine) plays them all
at once; otherwise (or when a line-up has a bot the batch path cannot play, such as an external
program) the referee plays table after table. Bots named by spec are made once per call, and
the external programs among them are closed at the end.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError
from mindsport.games.contract import BatchGame, Bot, Game
from mindsport.games.referee import Playthrough, play_state
from mindsport.games.registry import make_bot

__all__ = ["Seeding", "Table", "play_many"]

FloatArray = npt.NDArray[np.float64]


class Seeding(enum.Enum):
    """How a table's key and the run's seed make the table's generator.

    * ``SPAWN``: ``default_rng(SeedSequence(seed, spawn_key=key))``, the tournament's
      :func:`~mindsport.tournament.executors.task_rng`;
    * ``ENTROPY``: ``default_rng([seed, *key])``, game ``i`` of a simulation seeded ``seed``
      (key ``(i,)``).
    """

    SPAWN = "spawn"
    ENTROPY = "entropy"

    def rng(self, seed: int, key: Sequence[int]) -> np.random.Generator:
        if self is Seeding.SPAWN:
            return np.random.default_rng(
                np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))
            )
        return np.random.default_rng([int(seed), *(int(k) for k in key)])


@dataclass(frozen=True)
class Table:
    """One game: the chance outcome (None: drawn first from the table's generator), the bots
    per seat (spec strings or bot objects), the seed key."""

    chance: Any
    bots: tuple[str | Bot, ...]
    key: tuple[int, ...]


def _close(bots: dict[str, Bot]) -> None:
    for bot in bots.values():
        close = getattr(bot, "close", None)
        if callable(close):
            close()


def _record(game: Game, result: Playthrough) -> Any:
    """The game's record of a refereed game (its ``record(playthrough)``), else the
    playthrough itself."""
    record = getattr(game, "record", None)
    return record(result) if callable(record) else result


@overload
def play_many(
    game: Game,
    tables: Sequence[Table],
    seed: int,
    *,
    seeding: Seeding = ...,
    records: Literal[False] = ...,
) -> FloatArray: ...


@overload
def play_many(
    game: Game,
    tables: Sequence[Table],
    seed: int,
    *,
    seeding: Seeding = ...,
    records: Literal[True],
) -> list[Any]: ...


def play_many(
    game: Game,
    tables: Sequence[Table],
    seed: int,
    *,
    seeding: Seeding = Seeding.SPAWN,
    records: bool = False,
) -> FloatArray | list[Any]:
    """Play ``tables``: their returns (tables x players), or with ``records`` each game's
    record (the game's own record type; a :class:`~.referee.Playthrough` for a game without
    one), in table order."""
    made: dict[str, Bot] = {}
    try:
        lineups: list[list[Bot]] = []
        for table in tables:
            if len(table.bots) != game.info.players:
                raise MindsportError(
                    f"{game.info.title} seats {game.info.players} bots, table {table.key} has "
                    f"{len(table.bots)}"
                )
            seats = []
            for bot in table.bots:
                if isinstance(bot, str):
                    if bot not in made:
                        made[bot] = make_bot(game, bot)
                    bot = made[bot]
                seats.append(bot)
            lineups.append(seats)
        keys = [tuple(t.key) for t in tables]
        if isinstance(game, BatchGame):
            chances = [t.chance for t in tables]
            fast = game.play_batch(chances, lineups, keys, seed, seeding, records)
            if fast is not None:
                return fast if records else np.asarray(fast, dtype=np.float64)
        out: list[Any] = []
        returns = np.zeros((len(tables), game.info.players), dtype=np.float64)
        for i, (table, seats) in enumerate(zip(tables, lineups, strict=True)):
            rng = seeding.rng(seed, table.key)
            chance = game.sample_chance(rng) if table.chance is None else table.chance
            result = play_state(game.new_initial_state(chance), seats, rng)
            if records:
                out.append(_record(game, result))
            else:
                returns[i] = result.returns
    finally:
        _close(made)
    return out if records else returns
