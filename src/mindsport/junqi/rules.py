"""Settings, setups and move generation.

Setup rules (布阵): the 25 pieces fill the 25 non-camp posts of their half (camps start empty);
the flag stands in one of the two headquarters; mines only in the last two rows (depths 4-5);
no bomb in the front row (depth 0).

Moves: a piece that is not a mine or the flag, and not in a headquarters, moves one step along
a road to an empty post, or attacks an enemy piece there unless it is in a camp; on the railway
it may instead run any distance in a straight line through empty posts, ending on an empty post
or attacking the first enemy piece met; an engineer may turn corners on the railway. Nobody
enters an occupied camp.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mindsport.errors import MindsportError
from mindsport.junqi.board import (
    CAMPS,
    COLS,
    HEADQUARTERS,
    RAIL_NEIGHBOURS,
    RAILWAY_POSTS,
    RAYS,
    ROAD_NEIGHBOURS,
    post_at,
)
from mindsport.junqi.pieces import ROSTER, PieceKind

__all__ = [
    "SETUP_CELLS",
    "Rules",
    "Setup",
    "SetupError",
    "destinations",
    "engineer_only_move",
    "random_setup",
]

#: The 25 (depth, col) cells of a half that hold a piece at setup (all but the camps).
SETUP_CELLS: tuple[tuple[int, int], ...] = tuple(
    (d, c) for d in range(6) for c in range(COLS) if post_at(0, d, c) not in CAMPS
)
_HQ_CELLS = frozenset((d, c) for d, c in SETUP_CELLS if post_at(0, d, c) in HEADQUARTERS)


class SetupError(MindsportError):
    """A setup breaks the placement rules (names the cell and piece)."""


@dataclass(frozen=True)
class Rules:
    """Game settings.

    ``no_capture_limit``: the game is drawn after this many consecutive plies (single moves, either
    side) without any piece removed (common rule: 31). ``max_plies``: hard cap, drawn.
    ``reveal_flag_on_commander_death``: when a side's commander dies, the referee shows where
    that side's flag is.
    """

    no_capture_limit: int = 31
    max_plies: int = 2000
    reveal_flag_on_commander_death: bool = True

    def __post_init__(self) -> None:
        if self.no_capture_limit < 1:
            raise MindsportError(f"no_capture_limit must be >= 1, got {self.no_capture_limit}")
        if self.max_plies < 1:
            raise MindsportError(f"max_plies must be >= 1, got {self.max_plies}")


@dataclass(frozen=True)
class Setup:
    """One side's placement: (depth, col) -> kind, depth 0 = front row. Validated on creation."""

    cells: Mapping[tuple[int, int], PieceKind]

    def __post_init__(self) -> None:
        cells = dict(self.cells)
        object.__setattr__(self, "cells", cells)
        expected = set(SETUP_CELLS)
        if set(cells) != expected:
            missing = sorted(expected - set(cells))
            extra = sorted(set(cells) - expected)
            raise SetupError(
                f"setup must fill exactly the 25 non-camp cells; missing {missing}, "
                f"not allowed {extra} (camps start empty)"
            )
        counts = {k: 0 for k in PieceKind}
        for kind in cells.values():
            counts[PieceKind(kind)] += 1
        for kind, n in ROSTER.items():
            if counts[kind] != n:
                raise SetupError(f"setup has {counts[kind]} {kind.name} ({kind.chinese}), need {n}")
        for (d, c), kind in cells.items():
            if kind is PieceKind.FLAG and (d, c) not in _HQ_CELLS:
                raise SetupError(
                    f"FLAG at depth {d}, column {c}: the flag must be in a headquarters"
                )
            if kind is PieceKind.MINE and d < 4:
                raise SetupError(f"MINE at depth {d}, column {c}: mines only in the last two rows")
            if kind is PieceKind.BOMB and d == 0:
                raise SetupError(f"BOMB at depth 0, column {c}: no bomb in the front row")

    def kind_at(self, depth: int, col: int) -> PieceKind:
        return self.cells[(depth, col)]

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> Setup:
        """Parse six strings (front row first) of one-letter codes; camps written ``+``.

        Codes: ``9`` 司令, ``8`` 军长, ``7``..``2``, ``1`` 工兵, ``M`` mine, ``B`` bomb, ``F`` flag.
        """
        letters = {k.letter: k for k in PieceKind}
        if len(rows) != 6 or any(len(r) != COLS for r in rows):
            raise SetupError(f"setup needs 6 rows of 5 characters, got {list(rows)!r}")
        cells: dict[tuple[int, int], PieceKind] = {}
        for d, text in enumerate(rows):
            for c, ch in enumerate(text.upper()):
                if (d, c) not in set(SETUP_CELLS):
                    if ch != "+":
                        raise SetupError(f"cell depth {d}, column {c} is a camp: write '+'")
                    continue
                if ch not in letters:
                    raise SetupError(f"unknown piece code {ch!r} at depth {d}, column {c}")
                cells[(d, c)] = letters[ch]
        return cls(cells)

    def rows(self) -> list[str]:
        return [
            "".join(self.cells[(d, c)].letter if (d, c) in self.cells else "+" for c in range(COLS))
            for d in range(6)
        ]


def random_setup(rng: np.random.Generator) -> Setup:
    """A uniformly shuffled legal setup (flag, then mines, then bombs, then the rest)."""
    free = list(SETUP_CELLS)
    cells: dict[tuple[int, int], PieceKind] = {}

    def place(kind: PieceKind, n: int, allowed: list[tuple[int, int]]) -> None:
        picks = rng.choice(len(allowed), size=n, replace=False)
        for i in picks:
            cell = allowed[int(i)]
            cells[cell] = kind
            free.remove(cell)

    place(PieceKind.FLAG, 1, sorted(_HQ_CELLS))
    place(PieceKind.MINE, ROSTER[PieceKind.MINE], [x for x in free if x[0] >= 4])
    place(PieceKind.BOMB, ROSTER[PieceKind.BOMB], [x for x in free if x[0] >= 1])
    rest = [k for k, n in ROSTER.items() for _ in range(n) if k not in _PLACED_FIRST]
    order = rng.permutation(len(free))
    remaining = list(free)
    for kind, i in zip(rest, order, strict=True):
        cells[remaining[int(i)]] = kind
    return Setup(cells)


_PLACED_FIRST = frozenset({PieceKind.FLAG, PieceKind.MINE, PieceKind.BOMB})


def rail_reach(board: Sequence[int], start: int) -> list[int]:
    """Posts an engineer on ``start`` reaches along the railway, turning anywhere.

    Breadth-first from ``start`` through empty posts: every empty post reached and every
    occupied post where the way is blocked, in the order they are met.
    """
    out: list[int] = []
    visited = {start}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        for q in RAIL_NEIGHBOURS[cur]:
            if q in visited:
                continue
            visited.add(q)
            out.append(q)
            if board[q] < 0:
                queue.append(q)
    return out


def destinations(
    board: Sequence[int],
    owner: Sequence[int],
    post: int,
    engineer: bool,
) -> list[int]:
    """Posts the piece on ``post`` may move to or attack (it must be able to move).

    ``board[p]`` is the piece id on post ``p`` or -1; ``owner[piece]`` its player.
    """
    me = owner[board[post]]
    out: list[int] = []
    seen: set[int] = set()
    for q in ROAD_NEIGHBOURS[post]:
        occ = board[q]
        if occ < 0 or (owner[occ] != me and q not in CAMPS):
            out.append(q)
            seen.add(q)
    if post in RAILWAY_POSTS:
        if engineer:
            for q in rail_reach(board, post):
                occ = board[q]
                if q not in seen and (occ < 0 or owner[occ] != me):
                    out.append(q)
                    seen.add(q)
        else:
            for ray in RAYS[post]:
                for q in ray:
                    occ = board[q]
                    if occ < 0:
                        if q not in seen:
                            out.append(q)
                            seen.add(q)
                        continue
                    if owner[occ] != me and q not in seen:
                        out.append(q)
                        seen.add(q)
                    break
    return out


def engineer_only_move(board: Sequence[int], source: int, target: int) -> bool:
    """Whether moving ``source`` -> ``target`` on the board *before* the move needs an engineer
    (not a road step, not a straight railway run through empty posts)."""
    if target in ROAD_NEIGHBOURS[source]:
        return False
    for ray in RAYS[source]:
        for q in ray:
            if q == target:
                return False
            if board[q] >= 0:
                break
    return True
