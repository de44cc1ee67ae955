"""Tiles as riichienv numbers them, and their mjai names.

A tile is an id 0..135 (four copies of each of the 34 kinds; kind = id // 4): 0-35 the
characters 1m..9m, 36-71 the circles 1p..9p, 72-107 the bamboos 1s..9s, 108-135 the honours
east, south, west, north, white, green, red. The red fives are the first copy of each five
(ids 16, 52 and 88), written ``5mr``, ``5pr``, ``5sr`` in mjai; honours are ``E S W N P F C``.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "HONOURS",
    "KINDS",
    "RED_FIVES",
    "is_honour",
    "is_terminal_or_honour",
    "kind_counts",
    "kind_name",
    "tile_name",
    "tiles_text",
]

#: Kinds of tiles.
KINDS = 34
#: mjai names of the honour kinds 27..33.
HONOURS = ("E", "S", "W", "N", "P", "F", "C")
#: Ids of the red fives (5m, 5p, 5s).
RED_FIVES = frozenset({16, 52, 88})
_SUITS = "mps"


def kind_name(kind: int) -> str:
    """The mjai name of a tile kind 0..33 (``"1m"``, ``"E"``)."""
    if not 0 <= kind < KINDS:
        raise ValueError(f"a tile kind is 0..33, got {kind!r}")
    if kind >= 27:
        return HONOURS[kind - 27]
    return f"{kind % 9 + 1}{_SUITS[kind // 9]}"


_TILE_NAMES = tuple(kind_name(t // 4) + ("r" if t in RED_FIVES else "") for t in range(4 * KINDS))


def tile_name(tile: int) -> str:
    """The mjai name of a tile id 0..135 (red fives end in ``r``)."""
    if not 0 <= tile < 4 * KINDS:
        raise ValueError(f"a tile id is 0..135, got {tile!r}")
    return _TILE_NAMES[tile]


def tiles_text(tiles: Iterable[int]) -> str:
    """Tile ids written as mjai names separated by spaces."""
    return " ".join(tile_name(t) for t in tiles)


def kind_counts(tiles: Iterable[int]) -> list[int]:
    """How many tiles of each of the 34 kinds ``tiles`` (ids) hold."""
    counts = [0] * KINDS
    for t in tiles:
        counts[t >> 2] += 1
    return counts


def is_honour(kind: int) -> bool:
    """A wind or dragon kind."""
    return kind >= 27


def is_terminal_or_honour(kind: int) -> bool:
    """A one, a nine or an honour kind."""
    return kind >= 27 or kind % 9 in (0, 8)
