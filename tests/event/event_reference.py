"""Brute-force references for events, written from the rules and nothing else:

* a board's seat holder: on board 3d + k of a table (a, b, c), seat s (0 landlord, 1 farmer 1,
  2 farmer 2) is held by the player at position (s + k) mod 3;
* rank points of a round: R = 2 (n - place + 1), place = 1 + the number of players with a
  strictly higher round score; a bye earns n + 1 over a field of n (4 at a table of three);
* standings: total rank points, then total score, then the sum of the final rank points of every
  opponent met; place = 1 + the number of players strictly better on that triple;
* whether a repeat-free split into tables of three exists: every split enumerated.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PlayedTable:
    players: tuple[str, ...]
    scores: list[list[float]]  # scores[board][seat]


@dataclass
class PlayedRound:
    tables: list[PlayedTable]
    byes: list[str] = field(default_factory=list)


def holder(players: Sequence[str], board: int, seat: int) -> str:
    n = len(players)
    return players[(seat + board % n) % n]


def round_scores(r: PlayedRound) -> dict[str, float]:
    out: dict[str, float] = {}
    for t in r.tables:
        for b, row in enumerate(t.scores):
            for s in range(len(t.players)):
                p = holder(t.players, b, s)
                out[p] = out.get(p, 0.0) + row[s]
    return out


def brute_standings(
    players: Iterable[str], rounds: Sequence[PlayedRound], scoring: str = "field"
) -> dict[str, tuple[int, int, float, int]]:
    """``{player: (place, rank points, score, opponents' rank points)}``."""
    names = list(players)
    rp = dict.fromkeys(names, 0)
    score = dict.fromkeys(names, 0.0)
    met: dict[str, list[str]] = {p: [] for p in names}
    for r in rounds:
        s = round_scores(r)
        if scoring == "field":
            n = len(s)
            for p in s:
                place = 1 + sum(1 for q in s if s[q] > s[p])
                rp[p] += 2 * (n - place + 1)
            bye = n + 1
        else:
            for t in r.tables:
                for p in t.players:
                    place = 1 + sum(1 for q in t.players if s[q] > s[p])
                    rp[p] += 2 * (len(t.players) - place + 1)
            bye = len(r.tables[0].players) + 1
        for p in s:
            score[p] += s[p]
        for p in r.byes:
            rp[p] += bye
        for t in r.tables:
            for p in t.players:
                met[p].extend(q for q in t.players if q != p)
    opp = {p: sum(rp[q] for q in met[p]) for p in names}
    key = {p: (rp[p], round(score[p], 9), opp[p]) for p in names}
    return {
        p: (1 + sum(1 for q in names if key[q] > key[p]), rp[p], score[p], opp[p]) for p in names
    }


def repeats(rounds: Sequence[PlayedRound]) -> int:
    """Pairs of players seated together in more than one round (counted per extra meeting)."""
    seen: dict[frozenset[str], int] = {}
    for r in rounds:
        for t in r.tables:
            for a, b in itertools.combinations(t.players, 2):
                key = frozenset((a, b))
                seen[key] = seen.get(key, 0) + 1
    return sum(c - 1 for c in seen.values() if c > 1)


def repeat_free_split_exists(players: Sequence[str], met: set[frozenset[str]]) -> bool:
    """Whether ``players`` (a multiple of three) split into tables with no pair in ``met``."""
    if not players:
        return True
    first, rest = players[0], list(players[1:])
    for a, b in itertools.combinations(rest, 2):
        if {frozenset((first, a)), frozenset((first, b)), frozenset((a, b))} & met:
            continue
        left = [p for p in rest if p not in (a, b)]
        if repeat_free_split_exists(left, met):
            return True
    return False


def board_scores(rng: random.Random, boards: int) -> list[list[float]]:
    out = []
    for _ in range(boards):
        landlord = rng.choice([-4, -2, -1, 1, 2, 4])
        out.append([landlord, -landlord / 2, -landlord / 2])
    return out


def text(scores: list[list[float]]) -> str:
    return ";".join(",".join(f"{x:g}" for x in row) for row in scores)


def check_sheet(sheet: dict[str, Any], deals: int) -> None:
    """Seats rotate (each player holds each seat once per deal); one set of deals a round."""
    hands = None
    for t in sheet["tables"]:
        assert len(t["boards"]) == 3 * deals
        for b, board in enumerate(t["boards"]):
            seats = [s["player"] for s in board["seats"]]
            assert seats == [holder(t["players"], b, s) for s in range(3)]
        for d in range(deals):
            three = t["boards"][3 * d : 3 * d + 3]
            assert len({x["hand"] for x in three}) == 1
            for s in range(3):
                assert {x["seats"][s]["player"] for x in three} == set(t["players"])
        mine = [t["boards"][3 * d]["hand"] for d in range(deals)]
        hands = hands or mine
        assert mine == hands  # duplicate: every table the same deals


def played_round(sheet: dict[str, Any], scores: list[list[list[float]]]) -> PlayedRound:
    return PlayedRound(
        [PlayedTable(tuple(t["players"]), s) for t, s in zip(sheet["tables"], scores, strict=True)],
        list(sheet["byes"]),
    )


def league_is_a_fresh_finish(store: Any, event: str, league: str, tables: int) -> None:
    """The league holds the event's matches once each, as the corrected event gives them, and
    its ratings equal those of a new league the corrected event is finished into."""
    from mindsport.event.storage import EventStore, league_matches

    want = league_matches(EventStore(store).get(event))
    got = store.matches(league)
    assert len(got) == tables

    def key(m: Any) -> tuple[Any, ...]:
        return (m.id, [list(t) for t in m.teams], list(m.ranks), list(m.scores or []))

    assert sorted(map(key, got)) == sorted(map(key, want))
    store.create_league("fresh-" + league)
    store.add_matches("fresh-" + league, want)
    assert store.ratings(league) == store.ratings("fresh-" + league)
