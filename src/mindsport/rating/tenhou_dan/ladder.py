"""The Tenhou dan ladder's published tables for four-player games, as values.

Tenhou (天鳳) ranks four-player players on a ladder of 21 levels: 新人 (new), 9級 to 1級 (kyu),
初段 to 十段 (dan) and 天鳳位 at the top. After every game a player's ladder points change by his
place: first and second gain points that depend on the room (一般 ippan, 上級 joukyuu, 特上
tokujou, 鳳凰 houou) and the game's length (東風 east-only, 東南 east-south: 1.5 times as
much), third gains nothing, fourth loses points that grow with his level (nothing up to 3級,
then 10/20 (東風) or 15/30 (東南) at 2級/1級, and at dan ``n`` ``20 + 10 n`` (東風) or
``30 + 15 n`` (東南)). Points reaching a level's target (昇段pt) promote to the next level,
which starts at its base points (初期pt, excess points dropped); points falling below 0 at a dan
demote to the previous level at its base points; kyu ranks (and 新人) are never lost, their
points stop at 0. 十段 promoted becomes 天鳳位, which is never lost and moves no more.

The tables (tenhou.net/man, as reproduced by the English riichi wiki page "Tenhou.net ranking"
and the Japanese Wikipedia article on Tenhou; the kyu targets are those in force since
2017-10-24): see docs/models.md.

>>> LEVEL_NAMES[0], LEVEL_NAMES[10], LEVEL_NAMES[-1]
('新人', '初段', '天鳳位')
>>> BASE[13], TARGET[13], LAST["hanchan"][13], LAST["tonpuu"][13]
(800.0, 1600.0, -90.0, -60.0)
>>> TOP["hanchan"]["houou"], TOP["tonpuu"]["ippan"]
((90.0, 45.0), (20.0, 10.0))
"""

from __future__ import annotations

__all__ = [
    "BASE",
    "DEMOTES",
    "FIRST_DAN",
    "LAST",
    "LENGTHS",
    "LEVEL_NAMES",
    "ROOMS",
    "ROOM_FROM",
    "TARGET",
    "TENHOU_I",
    "TOP",
]

#: the levels, lowest first: 新人, 9級 .. 1級, 初段 .. 十段, 天鳳位
LEVEL_NAMES: tuple[str, ...] = (
    "新人",
    *(f"{k}級" for k in range(9, 0, -1)),
    "初段",
    "二段",
    "三段",
    "四段",
    "五段",
    "六段",
    "七段",
    "八段",
    "九段",
    "十段",
    "天鳳位",
)
#: the index of 初段, the first dan (dan ``n`` is level ``FIRST_DAN + n - 1``)
FIRST_DAN = 10
#: the index of 天鳳位, the top (never lost, no more points)
TENHOU_I = len(LEVEL_NAMES) - 1

#: the rooms, lowest first, by their romanised names (一般, 上級, 特上, 鳳凰)
ROOMS: tuple[str, ...] = ("ippan", "joukyuu", "tokujou", "houou")
#: the least level that may play in each room (1級 for 上級, 四段 for 特上, 七段 for 鳳凰; Tenhou
#: asks a rating R of at least 1800 and 2000 for the last two as well)
ROOM_FROM: tuple[int, ...] = (0, 9, FIRST_DAN + 3, FIRST_DAN + 6)
#: the game lengths: 東南 (east-south, hanchan) and 東風 (east-only, tonpuu)
LENGTHS: tuple[str, ...] = ("hanchan", "tonpuu")

_KYU_TARGET = (20.0, 20.0, 20.0, 20.0, 40.0, 60.0, 80.0, 100.0, 100.0, 100.0)  # 新人 .. 1級

#: base points (初期pt) of each level: where a player starts after a promotion or demotion
BASE: tuple[float, ...] = (0.0,) * 10 + tuple(200.0 * d for d in range(1, 11)) + (0.0,)
#: target points (昇段pt) of each level: reaching them promotes (0 at 天鳳位: no promotion)
TARGET: tuple[float, ...] = _KYU_TARGET + tuple(400.0 * d for d in range(1, 11)) + (0.0,)
#: whether points below 0 lose the level (the dan; never a kyu rank, 新人 or 天鳳位)
DEMOTES: tuple[bool, ...] = (False,) * 10 + (True,) * 10 + (False,)
#: the fourth place's points at each level, by game length
LAST: dict[str, tuple[float, ...]] = {
    "hanchan": (0.0,) * 8
    + (-15.0, -30.0)
    + tuple(-(30.0 + 15.0 * d) for d in range(1, 11))
    + (0.0,),
    "tonpuu": (0.0,) * 8
    + (-10.0, -20.0)
    + tuple(-(20.0 + 10.0 * d) for d in range(1, 11))
    + (0.0,),
}
#: the first and second places' points by game length and room (third place: 0)
TOP: dict[str, dict[str, tuple[float, float]]] = {
    "hanchan": {
        "ippan": (30.0, 15.0),
        "joukyuu": (60.0, 15.0),
        "tokujou": (75.0, 30.0),
        "houou": (90.0, 45.0),
    },
    "tonpuu": {
        "ippan": (20.0, 10.0),
        "joukyuu": (40.0, 10.0),
        "tokujou": (50.0, 20.0),
        "houou": (60.0, 30.0),
    },
}
