"""The Tenhou dan ladder's update of one table, compiled (numba), and the replay of many.

:func:`dan_update` is the one update of a table; :meth:`TenhouDanLadder.rate
<mindsport.rating.tenhou_dan.model.TenhouDanLadder.rate>` calls it through :func:`dan_game` for
one table and :func:`replay_dan` for every match of a block, carrying each player's state row
``(points, level)`` (:class:`~mindsport.rating.tenhou_dan.model.DanReplayer`). The tables are
those of :mod:`mindsport.rating.tenhou_dan.ladder`, handed over as arrays
(:class:`~mindsport.rating.tenhou_dan.model.LadderArrays`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindsport._jit.compiling import jit
from mindsport.rating.replay.block_kernel import block_sizes, load_match, store_slots
from mindsport.rating.replay.blocks import BlockArrays
from mindsport.rating.replay.replayers import Outputs
from mindsport.rating.tenhou.tenhou_kernel import (
    logistic_pairs,
    pack_table,
    place_span,
    unpack_table,
)


@jit
def table_room(state: np.ndarray, n: int, ladder: Any) -> int:
    """The room a table plays in: the ladder's own, or (``room`` -1, automatic) the highest
    room its lowest-ranked player may enter."""
    room = ladder.room
    if room >= 0:
        return room
    lowest = state[0, 1]
    for t in range(1, n):
        if state[t, 1] < lowest:
            lowest = state[t, 1]
    room = 0
    for r in range(ladder.room_from.shape[0]):
        if lowest >= ladder.room_from[r]:
            room = r
    return room


@jit
def ladder_position(points: float, level: float, ladder: Any) -> float:
    """A player's place on the ladder as one number: his level plus the share of the way to
    the next one (``level + points / target``; the level itself at the top)."""
    target = ladder.target[int(level)]
    if target > 0.0:
        return level + points / target
    return level


@jit
def dan_update(state: np.ndarray, rank: np.ndarray, ladder: Any, out: np.ndarray) -> None:
    """The ladder's update of one table of single players, all ranked: ``state`` rows
    ``(points, level)``; ``ladder``: the tables as arrays. Tied places share the mean of the
    points of the places they cover (each player with his own fourth place's loss)."""
    n = rank.shape[0]
    room = table_room(state, n, ladder)
    first = ladder.top[room, 0]
    second = ladder.top[room, 1]
    top = ladder.target.shape[0] - 1
    for t in range(n):
        points = state[t, 0]
        level = int(state[t, 1])
        out[t, 0] = points
        out[t, 1] = state[t, 1]
        if level >= top:  # 天鳳位: never lost, no more points
            continue
        ahead, tied = place_span(rank, t)
        gain = 0.0
        for j in range(1, tied + 1):
            place = ahead + j
            if place == 1:
                gain += first
            elif place == 2:
                gain += second
            elif place == 4:
                gain += ladder.last[level]
        points += gain / tied
        if points >= ladder.target[level]:
            level += 1
            points = ladder.base[level]
        elif points < 0.0:
            if ladder.demotes[level]:
                level -= 1
                points = ladder.base[level]
            else:
                points = 0.0
        out[t, 0] = points
        out[t, 1] = float(level)


@jit
def dan_game(buf: np.ndarray, ladder: Any, n: int) -> None:
    """:func:`dan_update` for one table packed in ``buf``: ranks, points, levels (``n`` each);
    the new points and levels overwrite the old."""
    out = np.empty((n, 2))
    dan_update(unpack_table(buf, n), buf[:n], ladder, out)
    pack_table(buf, out, n)


@jit
def replay_dan(
    table: np.ndarray,
    block: BlockArrays,
    ladder: Any,
    predict: bool,
    keep: bool,
    out: Outputs,
) -> int:
    """:func:`dan_update` for every match of a block (four single players a match, checked
    before); predictions: the logistic ``win_probability`` of
    :class:`~mindsport.rating.tenhou_dan.model.TenhouDanLadder` on the players' ladder
    positions."""
    team_ptr = block.team_ptr
    player_ptr = block.player_ptr
    players = block.players
    ranks = block.ranks
    n_matches = team_ptr.shape[0] - 1
    max_teams, _ = block_sizes(team_ptr, player_ptr)
    ptr = np.empty(max_teams + 1, np.int64)
    state = np.empty((max_teams, 2))
    new = np.empty((max_teams, 2))
    position = np.empty(max_teams)
    k = 0
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        s0 = player_ptr[t0]
        load_match(t0, n, s0, player_ptr, players, table, ptr, state)
        rank = ranks[t0 : t0 + n]
        if predict:
            for a in range(n):
                position[a] = ladder_position(state[a, 0], state[a, 1], ladder)
            k = logistic_pairs(position[:n], rank, ladder.prob_scale, out, k)
        dan_update(state[:n], rank, ladder, new)
        store_slots(table, players, s0, n, new, keep, out.post)
    return -1
