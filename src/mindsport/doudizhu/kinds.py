"""The kinds of play and their shapes: the one table the engine and the typed API share.

:class:`Kind` lists the kinds in a fixed order; a kind's position in it is its *code* (0 =
``single`` ... 13 = ``rocket``), the number the compiled engine works with. The per-kind arrays
below are indexed by code:

* :data:`CHAIN_UNIT`: cards per chain rank of a chained kind (0 for a fixed-size kind), so a
  chain of n ranks has ``n * unit`` cards (a ``plane_single`` of n trios: 4n cards);
* :data:`FIXED_SIZE`: cards of a fixed-size kind (0 for chained kinds);
* :data:`WIDTH`: copies of each main rank (a pair straight: 2; a plane: 3; a four with two: 4);
* :data:`MIN_CHAIN` / :data:`MAX_CHAIN`: allowed chain lengths in ranks (straights 5-12, pair
  straights 3-10, planes 2-6, planes with single kickers 2-5 and with pair kickers 2-4, so
  that no play exceeds the landlord's 20 cards).
"""

from __future__ import annotations

from enum import Enum

import numpy as np

__all__ = [
    "BOMB",
    "CHAIN_UNIT",
    "FIXED_SIZE",
    "FOUR_TWO_PAIR",
    "FOUR_TWO_SINGLE",
    "KIND_CODE",
    "MAX_CHAIN",
    "MIN_CHAIN",
    "N_KINDS",
    "PAIR",
    "PAIR_STRAIGHT",
    "PASS",
    "PLANE",
    "PLANE_PAIR",
    "PLANE_SINGLE",
    "ROCKET",
    "SINGLE",
    "STRAIGHT",
    "TRIO",
    "TRIO_PAIR",
    "TRIO_SINGLE",
    "WIDTH",
    "Kind",
]


class Kind(Enum):
    """The kind of a play; the value is the public name, the position the engine's code."""

    SINGLE = "single"
    PAIR = "pair"
    TRIO = "trio"
    TRIO_SINGLE = "trio_single"
    TRIO_PAIR = "trio_pair"
    STRAIGHT = "straight"
    PAIR_STRAIGHT = "pair_straight"
    PLANE = "plane"
    PLANE_SINGLE = "plane_single"
    PLANE_PAIR = "plane_pair"
    FOUR_TWO_SINGLE = "four_two_single"
    FOUR_TWO_PAIR = "four_two_pair"
    BOMB = "bomb"
    ROCKET = "rocket"


#: Kind -> engine code (its position in :class:`Kind`).
KIND_CODE: dict[Kind, int] = {k: i for i, k in enumerate(Kind)}
N_KINDS = len(KIND_CODE)
SINGLE = KIND_CODE[Kind.SINGLE]
PAIR = KIND_CODE[Kind.PAIR]
TRIO = KIND_CODE[Kind.TRIO]
TRIO_SINGLE = KIND_CODE[Kind.TRIO_SINGLE]
TRIO_PAIR = KIND_CODE[Kind.TRIO_PAIR]
STRAIGHT = KIND_CODE[Kind.STRAIGHT]
PAIR_STRAIGHT = KIND_CODE[Kind.PAIR_STRAIGHT]
PLANE = KIND_CODE[Kind.PLANE]
PLANE_SINGLE = KIND_CODE[Kind.PLANE_SINGLE]
PLANE_PAIR = KIND_CODE[Kind.PLANE_PAIR]
FOUR_TWO_SINGLE = KIND_CODE[Kind.FOUR_TWO_SINGLE]
FOUR_TWO_PAIR = KIND_CODE[Kind.FOUR_TWO_PAIR]
BOMB = KIND_CODE[Kind.BOMB]
ROCKET = KIND_CODE[Kind.ROCKET]
#: The engine's code for a pass (no kind).
PASS = -1


def _table(values: dict[Kind, int]) -> np.ndarray:
    out = np.array([values.get(k, 0) for k in Kind], dtype=np.int64)
    out.setflags(write=False)
    return out


CHAIN_UNIT = _table(
    {
        Kind.STRAIGHT: 1,
        Kind.PAIR_STRAIGHT: 2,
        Kind.PLANE: 3,
        Kind.PLANE_SINGLE: 4,
        Kind.PLANE_PAIR: 5,
    }
)
FIXED_SIZE = _table(
    {
        Kind.SINGLE: 1,
        Kind.PAIR: 2,
        Kind.TRIO: 3,
        Kind.TRIO_SINGLE: 4,
        Kind.TRIO_PAIR: 5,
        Kind.FOUR_TWO_SINGLE: 6,
        Kind.FOUR_TWO_PAIR: 8,
        Kind.BOMB: 4,
        Kind.ROCKET: 2,
    }
)
WIDTH = _table(
    {
        Kind.SINGLE: 1,
        Kind.PAIR: 2,
        Kind.TRIO: 3,
        Kind.TRIO_SINGLE: 3,
        Kind.TRIO_PAIR: 3,
        Kind.STRAIGHT: 1,
        Kind.PAIR_STRAIGHT: 2,
        Kind.PLANE: 3,
        Kind.PLANE_SINGLE: 3,
        Kind.PLANE_PAIR: 3,
        Kind.FOUR_TWO_SINGLE: 4,
        Kind.FOUR_TWO_PAIR: 4,
        Kind.BOMB: 4,
        Kind.ROCKET: 1,
    }
)
MIN_CHAIN = _table(
    {
        Kind.STRAIGHT: 5,
        Kind.PAIR_STRAIGHT: 3,
        Kind.PLANE: 2,
        Kind.PLANE_SINGLE: 2,
        Kind.PLANE_PAIR: 2,
    }
)
MAX_CHAIN = _table(
    {
        Kind.STRAIGHT: 12,
        Kind.PAIR_STRAIGHT: 10,
        Kind.PLANE: 6,
        Kind.PLANE_SINGLE: 5,
        Kind.PLANE_PAIR: 4,
    }
)
