"""Duplicate mahjong: one set of walls played in the four cyclic seat rotations, as the
mjai.app league plays its matches, so that every player plays every seat on the same tiles.

The walls are the game's chance outcome (:class:`~mindsport.mahjong.game.Walls`), so a
duplicate set is four :class:`~mindsport.games.many.Table` s with the same chance and rotated
bots (:func:`duplicate_tables`): any code that plays tables (:func:`mindsport.games.play_many`,
the tournament runner on any executor) plays them, and :func:`per_player` turns the four
games' seat results back into the players'. :func:`play_duplicate` does both for one set.

Rotation ``k`` seats player ``i`` at seat ``(i + k) % 4``: in rotation 0 the players sit in
their given order, and each player deals first (seat 0) in exactly one rotation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError
from mindsport.games.contract import Bot
from mindsport.games.many import Seeding, Table, play_many
from mindsport.mahjong.game import MahjongGame, MahjongRecord, Walls

__all__ = ["DuplicateResult", "duplicate_tables", "per_player", "play_duplicate", "rotations"]

T = TypeVar("T")
FloatArray = npt.NDArray[np.float64]


def rotations(players: Sequence[T]) -> list[tuple[T, ...]]:
    """The cyclic seatings of ``players``: seating ``k`` has player ``i`` at seat
    ``(i + k) % n``.

    >>> rotations("ABCD")
    [('A', 'B', 'C', 'D'), ('D', 'A', 'B', 'C'), ('C', 'D', 'A', 'B'), ('B', 'C', 'D', 'A')]
    """
    n = len(players)
    return [tuple(players[(s - k) % n] for s in range(n)) for k in range(n)]


def duplicate_tables(
    walls: Walls, bots: Sequence[str | Bot], key: Sequence[int] = ()
) -> list[Table]:
    """The four tables of a duplicate set: ``walls`` in every rotation of ``bots``, table
    ``k``'s key ``(*key, k)``."""
    if len(bots) != 4:
        raise MindsportError(f"duplicate mahjong seats 4 bots, got {len(bots)}")
    return [
        Table(walls, seating, (*(int(x) for x in key), k))
        for k, seating in enumerate(rotations(list(bots)))
    ]


def per_player(by_seat: Sequence[Sequence[float]] | FloatArray) -> FloatArray:
    """Rotation x seat results of a duplicate set -> rotation x player results (player ``i``
    sat at seat ``(i + k) % 4`` in rotation ``k``)."""
    table = np.asarray(by_seat, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] != table.shape[1]:
        raise MindsportError(f"a duplicate set's results are n x n, got shape {table.shape}")
    n = table.shape[0]
    return np.array([[table[k, (i + k) % n] for i in range(n)] for k in range(n)])


@dataclass(frozen=True)
class DuplicateResult:
    """A duplicate set: the walls, the four games' records (rotation order), and per rotation
    and player the final ``points`` and ``placements``."""

    walls: Walls
    records: tuple[MahjongRecord, ...]
    points: FloatArray  #: rotation x player
    placements: FloatArray  #: rotation x player

    @property
    def mean_points(self) -> FloatArray:
        """Each player's mean final points over the four rotations."""
        return np.asarray(self.points.mean(axis=0))

    @property
    def mean_placement(self) -> FloatArray:
        """Each player's mean place (1 best) over the four rotations."""
        return np.asarray(self.placements.mean(axis=0))


def play_duplicate(
    game: MahjongGame,
    walls: Walls,
    bots: Sequence[str | Bot],
    seed: int,
    *,
    key: Sequence[int] = (),
) -> DuplicateResult:
    """Play ``walls`` in the four rotations of ``bots`` (in this process); rotation ``k``
    plays with the generator ``Seeding.SPAWN.rng(seed, (*key, k))``."""
    tables = duplicate_tables(walls, bots, key)
    records = play_many(game, tables, seed, seeding=Seeding.SPAWN, records=True)
    found = tuple(r for r in records if isinstance(r, MahjongRecord))
    if len(found) != len(tables):
        raise MindsportError("the duplicate set's games gave no mahjong records")
    return DuplicateResult(
        walls=walls,
        records=found,
        points=per_player([r.points for r in found]),
        placements=per_player([r.placements for r in found]),
    )
