"""Riichi mahjong as a game of the shared contract (:mod:`mindsport.games.contract`).

Two games are registered: ``mahjong``, an east-south game (hanchan, 半荘), and
``mahjong-east``, an east-only game (tonpuu, 東風). Four players, seats 0..3 (seat 0 deals
first); the rules, the walls and the scoring are riichienv's engine under Tenhou's rule set.

The chance outcome is :class:`Walls`: a 64-bit seed from which riichienv shuffles the wall of
every hand of the game (hand ``k`` of the game from ``splitmix64(seed + k)``), so the same
``Walls`` deal the same tiles in every hand whoever sits where; duplicate mahjong plays one
``Walls`` in the four cyclic seat rotations (:mod:`.duplicate`).

Returns are each seat's final points minus the starting 25,000, in thousands (``score=
"points"``), or +1.5 / +0.5 / -0.5 / -1.5 by place (``score="placement"``). The record of a
game (:class:`MahjongRecord`, :meth:`MahjongGame.record`) gives each seat's final points and
place. Bots are made by :func:`mindsport.games.make_bot` (:mod:`mindsport.mahjong.bots`, which
this module does not import); ``cmd:COMMAND`` is a program speaking mjai
(:meth:`MahjongGame.external_bot`, :mod:`mindsport.mahjong.mjai`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindsport.errors import MindsportError
from mindsport.games.contract import Bot, GameInfo
from mindsport.games.referee import Forfeit, Playthrough
from mindsport.mahjong.state import SCORES, MahjongState, Move

__all__ = ["LENGTHS", "MahjongGame", "MahjongRecord", "Walls", "east_game"]

#: Game lengths: name -> (riichienv's game mode, title).
LENGTHS: dict[str, tuple[int, str]] = {
    "south": (2, "east-south (hanchan)"),
    "east": (1, "east-only (tonpuu)"),
}
_NAMES = {"south": "mahjong", "east": "mahjong-east"}
_SEED_LIMIT = 2**64


@dataclass(frozen=True, slots=True)
class Walls:
    """The chance outcome of a game: the seed (0 <= seed < 2**64) of every hand's wall."""

    seed: int

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer):
            raise MindsportError(f"walls are named by an integer seed, got {self.seed!r}")
        if not 0 <= int(self.seed) < _SEED_LIMIT:
            raise MindsportError(f"a walls seed is 0 <= seed < 2**64, got {self.seed}")


@dataclass(frozen=True, slots=True)
class MahjongRecord:
    """A finished game: its walls, length, the bots per seat, each seat's final ``points`` and
    ``placements`` (1..4), the riichi deposits left on the table, and the forfeit if any (the
    forfeiting seat paid a mangan's penalty and is fourth)."""

    walls: Walls
    length: str
    bots: tuple[str, ...]
    points: tuple[int, ...]
    placements: tuple[int, ...]
    riichi_sticks: int
    returns: tuple[float, ...]
    forfeit: Forfeit | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "walls": self.walls.seed,
            "length": self.length,
            "bots": list(self.bots),
            "points": list(self.points),
            "placements": list(self.placements),
            "riichi_sticks": self.riichi_sticks,
            "returns": list(self.returns),
            "forfeit": None if self.forfeit is None else self.forfeit.to_json(),
        }


class MahjongGame:
    """Riichi mahjong of ``length`` ``"south"`` (east-south, the default) or ``"east"``
    (east-only), returns scored as ``score`` (``"points"`` or ``"placement"``)."""

    def __init__(self, length: str = "south", score: str = "points") -> None:
        key = str(length).strip().lower()
        key = {"hanchan": "south", "east-south": "south", "tonpuu": "east"}.get(key, key)
        if key not in LENGTHS:
            raise MindsportError(
                f"unknown mahjong length {length!r}; use south (hanchan) or east (tonpuu)"
            )
        if score not in SCORES:
            raise MindsportError(f"unknown score {score!r}; use one of {', '.join(SCORES)}")
        self.length = key
        self.score = score

    @property
    def mode(self) -> int:
        """riichienv's game mode of this length."""
        return LENGTHS[self.length][0]

    @property
    def info(self) -> GameInfo:
        return GameInfo(
            name=_NAMES[self.length],
            title=f"Riichi mahjong, {LENGTHS[self.length][1]}",
            players=4,
            returns_sum=0.0 if self.score == "placement" else None,
            chance="the walls: a 64-bit seed of every hand's wall (riichienv's shuffle)",
            # fixed reference bots for the luck correction of games compare (the stronger first)
            references=(("level:100", "level:40"),),
        )

    def sample_chance(self, rng: np.random.Generator) -> Walls:
        return Walls(int(rng.integers(0, _SEED_LIMIT, dtype=np.uint64)))

    def new_initial_state(self, chance: Walls) -> MahjongState:
        if not isinstance(chance, Walls):
            raise MindsportError(f"a mahjong game starts from Walls, got {chance!r}")
        return MahjongState(int(chance.seed), self.mode, self.score)

    def action_to_string(self, action: Move) -> str:
        if not isinstance(action, Move):
            raise MindsportError(f"not a mahjong move: {action!r}")
        return action.text()

    def bot_names(self) -> Sequence[str]:
        return ("random", "level:N", "cmd:COMMAND")

    def record(self, result: Playthrough) -> MahjongRecord:
        """The record of a game the referee played."""
        state = result.final
        if not isinstance(state, MahjongState):
            raise MindsportError(f"not a mahjong game's end: {state!r}")
        return MahjongRecord(
            walls=Walls(state.seed),
            length=self.length,
            bots=result.bot_names,
            points=state.points(),
            placements=state.placements(),
            riichi_sticks=state.riichi_sticks,
            returns=tuple(float(r) for r in state.returns()),
            forfeit=result.forfeit,
        )

    def external_bot(self, command: str, time_limit: float) -> Bot:
        """A program speaking mjai (``cmd:COMMAND``): :class:`~mindsport.mahjong.mjai.MjaiBot`."""
        from mindsport.mahjong.mjai import MjaiBot

        return MjaiBot(command, self, time_limit=time_limit)

    def __repr__(self) -> str:
        return f"MahjongGame(length={self.length!r}, score={self.score!r})"


def east_game(score: str = "points") -> MahjongGame:
    """The east-only game (registered as ``mahjong-east``)."""
    return MahjongGame("east", score)
