"""Duplicate schedules: which bot sits where in a rotation, and the tables of a duplicate set.

Two bots, *first* and *second*, are compared on **duplicate sets**: one chance outcome (a deal,
the two setups) played once in every line-up of the game's **rotation**. A game's seats form
sides (:attr:`~mindsport.games.contract.GameInfo.sides`: Dou Dizhu's landlord, and its two
farmers together; by default every seat is a side of its own); a line-up hands each side to one
of the two bots, and the rotation is every line-up in which both bots play (``2**k - 2`` of
them for ``k`` sides). With two sides that is the classic duplicate pair: first against second,
then the same chance outcome with the sides swapped. Every seat is thus played equally often by
each bot on the same cards, so what the chance outcome gives a side cancels.

A bot's **score** in a game is the sum of the returns of the seats it holds; the game's
**margin** is the first bot's score minus the second's, and its **win score** is 1 when the
margin is positive, 1/2 when it is zero and 0 otherwise. The estimands are the mean margin and
the mean win score over the line-ups of the rotation, each line-up weighted equally.

Every table's generator is named by a spawn key under the run's seed
(:class:`~mindsport.games.many.Seeding`), so a set plays the same wherever it is played:

==========================  =============================================
key                         what it draws
==========================  =============================================
``(0, set)``                the chance outcome of the set
``(1, set, lineup)``        the game of the two bots in that line-up
``(2, set, pair, lineup)``  reference pair ``pair`` on the set's outcome
``(3, set, j)``             calibration outcome ``j`` of the set
``(4, set, j, pair, l)``    reference pair ``pair`` on that outcome
==========================  =============================================
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError
from mindsport.games.contract import GameInfo

__all__ = ["MAX_SIDES", "Rotation", "rotation", "win_scores"]

FloatArray = npt.NDArray[np.float64]

#: the most sides a rotation takes (2**8 - 2 = 254 line-ups per chance outcome)
MAX_SIDES = 8

# the spawn-key streams of a comparison (see the module's table)
CHANCE, PLAY, REFERENCE, CALIBRATION_CHANCE, CALIBRATION = 0, 1, 2, 3, 4


def _sides(info: GameInfo) -> tuple[tuple[int, ...], ...]:
    """The game's sides, checked to split its seats."""
    if info.sides is None:
        return tuple((s,) for s in range(info.players))
    seats = sorted(s for side in info.sides for s in side)
    if seats != list(range(info.players)) or any(not side for side in info.sides):
        raise MindsportError(
            f"{info.title}'s sides {info.sides!r} do not split its {info.players} seats"
        )
    return tuple(tuple(side) for side in info.sides)


@dataclass(frozen=True)
class Rotation:
    """The line-ups of a duplicate set: ``lineups[l][k]`` is 0 when the first bot holds side
    ``k`` in line-up ``l``, 1 when the second does."""

    players: int
    sides: tuple[tuple[int, ...], ...]
    lineups: tuple[tuple[int, ...], ...]

    def __len__(self) -> int:
        return len(self.lineups)

    def holder(self, lineup: int) -> tuple[int, ...]:
        """Per seat, which bot sits there (0 first, 1 second) in line-up ``lineup``."""
        seats = [0] * self.players
        for side, who in zip(self.sides, self.lineups[lineup], strict=True):
            for seat in side:
                seats[seat] = who
        return tuple(seats)

    def seating(self, lineup: int, first: str, second: str) -> tuple[str, ...]:
        """The bot specs per seat in line-up ``lineup``."""
        return tuple(first if who == 0 else second for who in self.holder(lineup))

    def margins(self, returns: npt.ArrayLike) -> FloatArray:
        """The first bot's score minus the second's, for returns shaped ``(..., lineups,
        players)`` (the last two axes: one game per line-up of this rotation)."""
        values = np.asarray(returns, dtype=np.float64)
        if values.shape[-2:] != (len(self), self.players):
            raise MindsportError(
                f"returns of shape {values.shape} are not one game per line-up "
                f"({len(self)} x {self.players})"
            )
        sign = np.array(
            [[1.0 if w == 0 else -1.0 for w in self.holder(m)] for m in range(len(self))]
        )
        out: FloatArray = (values * sign).sum(axis=-1)
        return out


def rotation(info: GameInfo) -> Rotation:
    """Every line-up of ``info``'s sides in which both bots play, in a fixed order (the first
    bot on the first side first).

    >>> from mindsport.games.contract import GameInfo
    >>> rotation(GameInfo("x", "X", 3, 0.0, "a deal", sides=((0,), (1, 2)))).lineups
    ((0, 1), (1, 0))
    >>> len(rotation(GameInfo("y", "Y", 4, 0.0, "tiles")))
    14
    """
    sides = _sides(info)
    if len(sides) < 2:
        raise MindsportError(f"{info.title} has one side: two bots cannot be compared on it")
    if len(sides) > MAX_SIDES:
        raise MindsportError(
            f"{info.title} has {len(sides)} sides; a duplicate rotation takes at most {MAX_SIDES}"
        )
    lineups = tuple(
        combo for combo in itertools.product((0, 1), repeat=len(sides)) if 0 in combo and 1 in combo
    )
    return Rotation(info.players, sides, lineups)


def win_scores(margins: npt.ArrayLike) -> FloatArray:
    """1 for a positive margin, 1/2 for zero, 0 for a negative one."""
    m = np.asarray(margins, dtype=np.float64)
    out: FloatArray = 0.5 * (np.sign(m) + 1.0)
    return out
