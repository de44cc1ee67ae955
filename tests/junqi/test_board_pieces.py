"""Board adjacency counted by hand; the collision table typed from the rules."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from mindsport.junqi.board import (
    CAMPS,
    HEADQUARTERS,
    RAILWAY_EDGES,
    RAILWAY_POSTS,
    RAYS,
    ROAD_EDGES,
    ROAD_NEIGHBOURS,
    InvalidPostError,
    parse_post,
    post_at,
    post_name,
)
from mindsport.junqi.pieces import ROSTER, IllegalCollisionError, Outcome, PieceKind, collide


def names(posts: Iterable[int]) -> set[str]:
    return {post_name(p) for p in posts}


def test_counts() -> None:
    # per half: 6x5 grid = 6*4 horizontal + 5*5 vertical = 49 roads, 16 camp diagonals;
    # 3 crossings (columns a, c, e) -> 2*65 + 3
    assert len(ROAD_EDGES) == 133
    # per half: rows 0 and 4 (4+4), columns a and e (4+4) = 16; plus 3 crossings
    assert len(RAILWAY_EDGES) == 35
    assert len(RAILWAY_POSTS) == 32  # 16 per half: 5 + 5 + 3 + 3
    assert len(CAMPS) == 10 and len(HEADQUARTERS) == 4
    assert RAILWAY_EDGES <= ROAD_EDGES


def test_named_posts() -> None:
    assert names(CAMPS) == {"b5", "d5", "c4", "b3", "d3", "b8", "d8", "c9", "b10", "d10"}
    assert names(HEADQUARTERS) == {"b1", "d1", "b12", "d12"}
    assert parse_post("a1") == post_at(0, 5, 0)
    assert parse_post("E12") == post_at(1, 5, 4)
    for p in range(60):
        assert parse_post(post_name(p)) == p
    with pytest.raises(InvalidPostError, match="'f3'"):
        parse_post("f3")


@pytest.mark.parametrize(
    ("post", "neighbours"),
    [
        ("c4", {"b5", "c5", "d5", "b4", "d4", "b3", "c3", "d3"}),  # centre camp: 8
        ("b5", {"a6", "b6", "c6", "a5", "c5", "a4", "b4", "c4"}),  # camp: 8
        ("b1", {"a1", "c1", "b2"}),  # headquarters: 3
        ("a6", {"a7", "b6", "a5", "b5"}),  # front corner: crossing + camp diagonal
        ("b6", {"a6", "c6", "b5"}),  # front, column b: mountain, no crossing
        ("c6", {"b6", "d6", "c5", "c7", "b5", "d5"}),  # front centre: crossing, 2 camps
        ("a2", {"a3", "b2", "a1", "b3"}),
        ("c2", {"b2", "d2", "c3", "c1", "b3", "d3"}),
    ],
)
def test_road_neighbours(post: str, neighbours: set[str]) -> None:
    assert names(ROAD_NEIGHBOURS[parse_post(post)]) == neighbours


def test_rays_from_front_corner() -> None:
    rays = [[post_name(p) for p in ray] for ray in RAYS[parse_post("a6")]]
    assert sorted(rays) == sorted(
        [
            ["a7", "a8", "a9", "a10", "a11"],
            ["a5", "a4", "a3", "a2"],
            ["b6", "c6", "d6", "e6"],
        ]
    )
    # the middle crossing is a straight run of one step; column c has no railway behind it
    assert sorted([post_name(p) for p in r] for r in RAYS[parse_post("c6")]) == sorted(
        [["c7"], ["b6", "a6"], ["d6", "e6"]]
    )


def test_roster() -> None:
    assert sum(ROSTER.values()) == 25
    assert ROSTER[PieceKind.COMPANY] == ROSTER[PieceKind.ENGINEER] == ROSTER[PieceKind.MINE] == 3


# Attackers (rows, movable kinds) x defenders (columns in PieceKind order:
# 司令 军长 师长 旅长 团长 营长 连长 排长 工兵 地雷 炸弹 军旗):
# A = attacker wins, D = defender wins, B = both removed. Typed from the rules.
TABLE = {
    PieceKind.COMMANDER: "BAAAAAAAADBA",
    PieceKind.GENERAL: "DBAAAAAAADBA",
    PieceKind.DIVISION: "DDBAAAAAADBA",
    PieceKind.BRIGADE: "DDDBAAAAADBA",
    PieceKind.REGIMENT: "DDDDBAAAADBA",
    PieceKind.BATTALION: "DDDDDBAAADBA",
    PieceKind.COMPANY: "DDDDDDBAADBA",
    PieceKind.PLATOON: "DDDDDDDBADBA",
    PieceKind.ENGINEER: "DDDDDDDDBABA",
    PieceKind.BOMB: "BBBBBBBBBBBB",
}
CODE = {"A": Outcome.ATTACKER_WINS, "D": Outcome.DEFENDER_WINS, "B": Outcome.BOTH_REMOVED}


def test_collision_table() -> None:
    for attacker, row in TABLE.items():
        for defender, code in zip(PieceKind, row, strict=True):
            assert collide(attacker, defender) is CODE[code], (attacker, defender)


@pytest.mark.parametrize("kind", [PieceKind.MINE, PieceKind.FLAG])
def test_immovable_cannot_attack(kind: PieceKind) -> None:
    with pytest.raises(IllegalCollisionError, match=kind.name):
        collide(kind, PieceKind.ENGINEER)
