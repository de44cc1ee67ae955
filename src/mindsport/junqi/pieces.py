"""Piece kinds, the roster, and the collision table of Luzhanqi (陆战棋).

Collision rules (attacker moves onto the defender's post):

* the flag (军旗) and mines (地雷) never move, so never attack;
* a bomb (炸弹) on either side: both pieces are removed (a bomb that hits the flag still takes it);
* a mine: an engineer (工兵) removes it and takes the post; any other attacker is removed and the
  mine stays;
* the flag: any attacker takes it (the game ends);
* otherwise by rank, 司令 > 军长 > 师长 > 旅长 > 团长 > 营长 > 连长 > 排长 > 工兵: the higher rank
  wins; equal ranks remove both.
"""

from __future__ import annotations

import enum

from mindsport.errors import MindsportError

__all__ = [
    "KIND_COUNT",
    "MOVABLE",
    "RANK",
    "ROSTER",
    "ROSTER_SIZE",
    "IllegalCollisionError",
    "Outcome",
    "PieceKind",
    "collide",
]


class PieceKind(enum.IntEnum):
    """The twelve kinds; the value is the kind's column in belief matrices."""

    COMMANDER = 0  # 司令
    GENERAL = 1  # 军长
    DIVISION = 2  # 师长
    BRIGADE = 3  # 旅长
    REGIMENT = 4  # 团长
    BATTALION = 5  # 营长
    COMPANY = 6  # 连长
    PLATOON = 7  # 排长
    ENGINEER = 8  # 工兵
    MINE = 9  # 地雷
    BOMB = 10  # 炸弹
    FLAG = 11  # 军旗

    @property
    def chinese(self) -> str:
        return _CHINESE[self]

    @property
    def letter(self) -> str:
        """One-letter code used in board renders and setup strings."""
        return _LETTER[self]

    @property
    def movable(self) -> bool:
        return self not in (PieceKind.MINE, PieceKind.FLAG)


_CHINESE = {
    PieceKind.COMMANDER: "司令",
    PieceKind.GENERAL: "军长",
    PieceKind.DIVISION: "师长",
    PieceKind.BRIGADE: "旅长",
    PieceKind.REGIMENT: "团长",
    PieceKind.BATTALION: "营长",
    PieceKind.COMPANY: "连长",
    PieceKind.PLATOON: "排长",
    PieceKind.ENGINEER: "工兵",
    PieceKind.MINE: "地雷",
    PieceKind.BOMB: "炸弹",
    PieceKind.FLAG: "军旗",
}
_LETTER = {
    PieceKind.COMMANDER: "9",
    PieceKind.GENERAL: "8",
    PieceKind.DIVISION: "7",
    PieceKind.BRIGADE: "6",
    PieceKind.REGIMENT: "5",
    PieceKind.BATTALION: "4",
    PieceKind.COMPANY: "3",
    PieceKind.PLATOON: "2",
    PieceKind.ENGINEER: "1",
    PieceKind.MINE: "M",
    PieceKind.BOMB: "B",
    PieceKind.FLAG: "F",
}

KIND_COUNT = len(PieceKind)

#: Pieces of each kind per side (25 in all).
ROSTER: dict[PieceKind, int] = {
    PieceKind.COMMANDER: 1,
    PieceKind.GENERAL: 1,
    PieceKind.DIVISION: 2,
    PieceKind.BRIGADE: 2,
    PieceKind.REGIMENT: 2,
    PieceKind.BATTALION: 2,
    PieceKind.COMPANY: 3,
    PieceKind.PLATOON: 3,
    PieceKind.ENGINEER: 3,
    PieceKind.MINE: 3,
    PieceKind.BOMB: 2,
    PieceKind.FLAG: 1,
}
ROSTER_SIZE = sum(ROSTER.values())

#: Rank of the fighting pieces (higher beats lower).
RANK: dict[PieceKind, int] = {
    PieceKind.COMMANDER: 9,
    PieceKind.GENERAL: 8,
    PieceKind.DIVISION: 7,
    PieceKind.BRIGADE: 6,
    PieceKind.REGIMENT: 5,
    PieceKind.BATTALION: 4,
    PieceKind.COMPANY: 3,
    PieceKind.PLATOON: 2,
    PieceKind.ENGINEER: 1,
}

MOVABLE = frozenset(k for k in PieceKind if k.movable)


class Outcome(enum.Enum):
    """What the referee announces after a collision."""

    ATTACKER_WINS = "attacker wins"
    DEFENDER_WINS = "defender wins"
    BOTH_REMOVED = "both removed"


class IllegalCollisionError(MindsportError):
    """A piece that cannot move was asked to attack."""


def collide(attacker: PieceKind, defender: PieceKind) -> Outcome:
    """The outcome of ``attacker`` moving onto ``defender``."""
    if not attacker.movable:
        raise IllegalCollisionError(f"a {attacker.name} ({attacker.chinese}) cannot attack")
    if defender is PieceKind.FLAG:
        return Outcome.BOTH_REMOVED if attacker is PieceKind.BOMB else Outcome.ATTACKER_WINS
    if attacker is PieceKind.BOMB or defender is PieceKind.BOMB:
        return Outcome.BOTH_REMOVED
    if defender is PieceKind.MINE:
        return Outcome.ATTACKER_WINS if attacker is PieceKind.ENGINEER else Outcome.DEFENDER_WINS
    ra, rd = RANK[attacker], RANK[defender]
    if ra > rd:
        return Outcome.ATTACKER_WINS
    if ra < rd:
        return Outcome.DEFENDER_WINS
    return Outcome.BOTH_REMOVED
