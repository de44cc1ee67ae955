"""The two-player Luzhanqi board: 12 rows x 5 columns of posts, roads, railways, camps, HQs.

Posts are numbered ``row * 5 + col`` with ``row`` 0..11 from north to south and ``col`` 0..4
from west to east. Player 0 (south) owns rows 6..11, player 1 (north) rows 0..5. A post's
*depth* counts from its owner's front row: depth 0 is the front row (rows 6 and 5), depth 5 the
back row (rows 11 and 0). Names are ``a1``..``e12``: the column letter and the row counted from
the south (``a1`` = row 11, col 0; ``e12`` = row 0, col 4). Columns are not mirrored between the
sides (the layout is symmetric).

Each half (depth, col), depth 0 = front:

```
depth 0   R  R  R  R  R      R = railway post (front railway)
depth 1   R  C  .  C  R      C = camp (行营): a piece there cannot be attacked
depth 2   R  .  C  .  R
depth 3   R  C  .  C  R
depth 4   R  R  R  R  R      (back railway)
depth 5   .  H  .  H  .      H = headquarters (大本营): a piece there never moves
```

Roads (one step): every orthogonal neighbour inside a half (6 x 5 grid: 24 + 25 = 49 edges),
every camp to its four diagonal neighbours (20 pairs, 16 distinct edges as the centre camp shares
one with each other camp), and the three crossings between the halves in columns a, c, e
(columns b and d are blocked by the mountains, 山界). 2 x 65 + 3 = 133 road edges.

Railways: the front and back rows (depths 0 and 4) and columns a and e between them form a
rectangle in each half (16 edges), and the three crossings join the two front rows (3 edges): 35
railway edges, 32 railway posts. A piece on the railway runs any distance in a straight line
along it through empty posts; only an engineer turns corners (at the rectangle's corners and at
the junctions of the crossings with the front rows).
"""

from __future__ import annotations

from mindsport.errors import MindsportError

__all__ = [
    "CAMPS",
    "COLS",
    "HEADQUARTERS",
    "N_POSTS",
    "RAILWAY_EDGES",
    "RAILWAY_POSTS",
    "RAIL_NEIGHBOURS",
    "RAYS",
    "ROAD_EDGES",
    "ROAD_NEIGHBOURS",
    "ROWS",
    "InvalidPostError",
    "col_of",
    "depth_of",
    "parse_post",
    "post_at",
    "post_name",
    "row_of",
    "side_of",
]

ROWS = 12
COLS = 5
N_POSTS = ROWS * COLS
_LETTERS = "abcde"

_CAMP_CELLS = ((1, 1), (1, 3), (2, 2), (3, 1), (3, 3))
_HQ_CELLS = ((5, 1), (5, 3))


class InvalidPostError(MindsportError):
    """A post name or index that is not on the board."""


def row_of(post: int) -> int:
    return post // COLS


def col_of(post: int) -> int:
    return post % COLS


def side_of(post: int) -> int:
    """The player whose half the post is in (0 = south, 1 = north)."""
    return 0 if post // COLS >= 6 else 1


def depth_of(post: int) -> int:
    """Distance from the owner's front row (0 = front, 5 = back row)."""
    r = post // COLS
    return r - 6 if r >= 6 else 5 - r


def post_at(player: int, depth: int, col: int) -> int:
    """The post of ``player``'s half at ``depth`` (0 = front) and column ``col``."""
    if player not in (0, 1) or not 0 <= depth < 6 or not 0 <= col < COLS:
        raise InvalidPostError(f"no post for player {player}, depth {depth}, column {col}")
    row = 6 + depth if player == 0 else 5 - depth
    return row * COLS + col


def post_name(post: int) -> str:
    return f"{_LETTERS[post % COLS]}{ROWS - post // COLS}"


def parse_post(name: str) -> int:
    """``"c3"`` -> post index."""
    text = name.strip().lower()
    if len(text) < 2 or text[0] not in _LETTERS or not text[1:].isdigit():
        raise InvalidPostError(f"{name!r} is not a post name (a1..e12)")
    number = int(text[1:])
    if not 1 <= number <= ROWS:
        raise InvalidPostError(f"{name!r} is not a post name (a1..e12)")
    return (ROWS - number) * COLS + _LETTERS.index(text[0])


def _build() -> tuple[
    frozenset[int],
    frozenset[int],
    frozenset[int],
    frozenset[tuple[int, int]],
    frozenset[tuple[int, int]],
]:
    camps = frozenset(post_at(p, d, c) for p in (0, 1) for d, c in _CAMP_CELLS)
    hqs = frozenset(post_at(p, d, c) for p in (0, 1) for d, c in _HQ_CELLS)
    rail_posts: set[int] = set()
    road: set[tuple[int, int]] = set()
    rail: set[tuple[int, int]] = set()

    def edge(a: int, b: int) -> tuple[int, int]:
        return (a, b) if a < b else (b, a)

    for p in (0, 1):
        for d in range(6):
            for c in range(COLS):
                here = post_at(p, d, c)
                if d in (0, 4) or (c in (0, 4) and d <= 4):
                    rail_posts.add(here)
                if c + 1 < COLS:
                    road.add(edge(here, post_at(p, d, c + 1)))
                if d + 1 < 6:
                    road.add(edge(here, post_at(p, d + 1, c)))
        for d, c in _CAMP_CELLS:
            for dd in (-1, 1):
                for dc in (-1, 1):
                    road.add(edge(post_at(p, d, c), post_at(p, d + dd, c + dc)))
        for d in (0, 4):
            for c in range(COLS - 1):
                rail.add(edge(post_at(p, d, c), post_at(p, d, c + 1)))
        for c in (0, 4):
            for d in range(4):
                rail.add(edge(post_at(p, d, c), post_at(p, d + 1, c)))
    for c in (0, 2, 4):
        e = edge(post_at(0, 0, c), post_at(1, 0, c))
        road.add(e)
        rail.add(e)
    return camps, hqs, frozenset(rail_posts), frozenset(road), frozenset(rail)


CAMPS, HEADQUARTERS, RAILWAY_POSTS, ROAD_EDGES, RAILWAY_EDGES = _build()


def _neighbours(edges: frozenset[tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    adj: list[list[int]] = [[] for _ in range(N_POSTS)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    return tuple(tuple(sorted(x)) for x in adj)


ROAD_NEIGHBOURS = _neighbours(ROAD_EDGES)
RAIL_NEIGHBOURS = _neighbours(RAILWAY_EDGES)


def _rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each post, the straight railway runs leaving it (one per direction that has one)."""
    out: list[tuple[tuple[int, ...], ...]] = []
    for post in range(N_POSTS):
        runs: list[tuple[int, ...]] = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            run: list[int] = []
            r, c, cur = row_of(post), col_of(post), post
            while True:
                r, c = r + dr, c + dc
                if not (0 <= r < ROWS and 0 <= c < COLS):
                    break
                nxt = r * COLS + c
                if (min(cur, nxt), max(cur, nxt)) not in RAILWAY_EDGES:
                    break
                run.append(nxt)
                cur = nxt
            if run:
                runs.append(tuple(run))
        out.append(tuple(runs))
    return tuple(out)


RAYS = _rays()
