"""Compiled passes over a block of matches that every replayer shares (numba).

:func:`check_block` validates a :class:`~mindsport.rating.replay.blocks.MatchBlock` in one pass,
:func:`count_pairs` counts the decided pairs of teams of each match (where the predictions go),
:func:`first_tie` finds the first match with a tie, :func:`block_sizes` the largest match.
:func:`load_match` reads a match's players' state rows into slot rows for an update and
:func:`store_slots` writes the new rows back. :func:`team_pointers` reads the team sizes at the
start of one game packed for a model's ``rate`` (TrueSkill, pairwise TrueSkill, Elo).
"""

from __future__ import annotations

import math

import numpy as np

from mindsport._jit.compiling import jit

__all__ = [
    "PROBLEMS",
    "block_sizes",
    "check_block",
    "count_pairs",
    "first_tie",
    "load_match",
    "store_slots",
    "team_pointers",
]

#: what :func:`check_block`'s codes mean
PROBLEMS = (
    "",
    "has fewer than two teams",
    "has a team without players",
    "has a weight outside [0, 1]",
    "has a team without a player of positive weight",
    "has no ranked team",
    "has a time that is not a finite number",
)


@jit
def check_block(
    team_ptr: np.ndarray,
    player_ptr: np.ndarray,
    weights: np.ndarray,
    ranks: np.ndarray,
    times: np.ndarray,
    present: bool,
    check_times: bool,
) -> tuple[int, int]:
    """``(match, problem)`` of the first malformed match (``(-1, 0)``: none); the problem is
    an index into :data:`PROBLEMS`."""
    for i in range(team_ptr.shape[0] - 1):
        t0 = team_ptr[i]
        t1 = team_ptr[i + 1]
        if t1 - t0 < 2:
            return i, 1
        ranked = False
        for t in range(t0, t1):
            s0 = player_ptr[t]
            s1 = player_ptr[t + 1]
            if s1 <= s0:
                return i, 2
            positive = False
            for s in range(s0, s1):
                w = weights[s]
                if not (w >= 0.0 and w <= 1.0):
                    return i, 3
                if w > 0.0:
                    positive = True
            if present and not positive:
                return i, 4
            if not math.isnan(ranks[t]):
                ranked = True
        if not ranked:
            return i, 5
        if check_times and not math.isfinite(times[i]):
            return i, 6
    return -1, 0


@jit
def count_pairs(team_ptr: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """``pair_ptr``: decided pairs of teams (both ranked, or one unranked) per match, cumulated."""
    n_matches = team_ptr.shape[0] - 1
    out = np.zeros(n_matches + 1, np.int64)
    for i in range(n_matches):
        t0 = team_ptr[i]
        n = team_ptr[i + 1] - t0
        k = 0
        for a in range(n):
            for b in range(a + 1, n):
                if not (math.isnan(ranks[t0 + a]) and math.isnan(ranks[t0 + b])):
                    k += 1
        out[i + 1] = out[i] + k
    return out


@jit
def first_tie(team_ptr: np.ndarray, ranks: np.ndarray) -> int:
    """The first match with two ranked teams of equal rank (-1: none)."""
    for i in range(team_ptr.shape[0] - 1):
        for a in range(team_ptr[i], team_ptr[i + 1]):
            for b in range(a + 1, team_ptr[i + 1]):
                if ranks[a] == ranks[b]:  # NaN (unranked) equals nothing
                    return i
    return -1


@jit
def block_sizes(team_ptr: np.ndarray, player_ptr: np.ndarray) -> tuple[int, int]:
    """The most teams and the most player slots of a match of the block (at least 2 each): the
    size of a kernel's scratch arrays."""
    max_teams = 2
    max_slots = 2
    for i in range(team_ptr.shape[0] - 1):
        max_teams = max(max_teams, team_ptr[i + 1] - team_ptr[i])
        max_slots = max(max_slots, player_ptr[team_ptr[i + 1]] - player_ptr[team_ptr[i]])
    return max_teams, max_slots


@jit
def load_match(
    t0: int,
    n: int,
    s0: int,
    player_ptr: np.ndarray,
    players: np.ndarray,
    table: np.ndarray,
    ptr: np.ndarray,
    rows: np.ndarray,
) -> int:
    """A match's ``n`` teams from ``t0`` (slots from ``s0``) for an update: its teams' slot
    pointers counted from 0 into ``ptr``, its players' rows of ``table`` (as many columns as
    ``rows`` has) into ``rows``. Returns the number of slots."""
    for t in range(n + 1):
        ptr[t] = player_ptr[t0 + t] - s0
    ns = ptr[n]
    width = rows.shape[1]
    for q in range(ns):
        p = players[s0 + q]
        for c in range(width):
            rows[q, c] = table[p, c]
    return ns


@jit
def team_pointers(buf: np.ndarray, teams: int) -> np.ndarray:
    """The team pointers (``teams + 1``) of one packed game whose buffer starts with the
    ``teams`` team sizes."""
    ptr = np.empty(teams + 1, np.int64)
    ptr[0] = 0
    for t in range(teams):
        ptr[t + 1] = ptr[t] + int(buf[t])
    return ptr


@jit
def store_slots(
    table: np.ndarray,
    players: np.ndarray,
    s0: int,
    ns: int,
    out: np.ndarray,
    keep: bool,
    post: np.ndarray,
) -> None:
    """The new rows ``out`` of the ``ns`` slots from ``s0`` to their players' rows of ``table``
    (and, with ``keep``, to the slots' rows of ``post``)."""
    width = out.shape[1]
    for q in range(ns):
        p = players[s0 + q]
        for c in range(width):
            table[p, c] = out[q, c]
        if keep:
            for c in range(post.shape[1]):
                post[s0 + q, c] = out[q, c]
