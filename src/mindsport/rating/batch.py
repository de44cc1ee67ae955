"""Replaying long histories fast: matches as flat arrays, ratings as arrays, compiled kernels.

A :class:`MatchBlock` holds many matches in CSR layout (teams per match, player slots per team),
built from :class:`~mindsport.history.Match` objects (:func:`encode_matches`) or straight from a
long-format table without any per-match Python object (:func:`block_from_long_table`). A
:class:`BatchTrueSkill` keeps ``mu``/``sigma`` arrays indexed by player and feeds blocks through
the compiled kernel of :mod:`mindsport.rating.kernels`, in order, carrying ratings forward. The
result equals calling :meth:`TrueSkill.rate` match by match (tested to 1e-9).

>>> from mindsport.history import Match
>>> from mindsport.rating import TrueSkill
>>> index = PlayerIndex()
>>> block = encode_matches([Match("m1", 0, [["a"], ["b"]], [0, 1])], index)
>>> replayer = BatchTrueSkill(TrueSkill())
>>> _ = replayer.feed(block)
>>> replayer.ratings(index)["a"]
Rating(mu=29.396, sigma=7.171)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.match import Match
from mindsport.rating.rating import Rating
from mindsport.rating.trueskill import (
    ConvergenceError,
    InvalidGameError,
    TrueSkill,
    draw_margin,
)

__all__ = [
    "BatchInputError",
    "BatchTrueSkill",
    "MatchBlock",
    "PlayerIndex",
    "block_from_long_table",
    "encode_matches",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


class PlayerIndex:
    """Player id <-> dense integer index, growing as new players appear."""

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._index: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, player: object) -> bool:
        return player in self._index

    def get(self, player: str) -> int:
        """Index of ``player``, assigning the next one to a new player."""
        i = self._index.get(player)
        if i is None:
            i = len(self._ids)
            self._index[player] = i
            self._ids.append(player)
        return i

    def many(self, players: Sequence[str]) -> I64:
        """Indices of many players (vectorised over unique values)."""
        uniq, inverse = np.unique(np.asarray(players, dtype=object), return_inverse=True)
        codes = np.fromiter((self.get(str(p)) for p in uniq), dtype=np.int64, count=len(uniq))
        return codes[inverse]

    @property
    def ids(self) -> list[str]:
        """Player ids in index order."""
        return list(self._ids)


@dataclass(frozen=True)
class MatchBlock:
    """Matches in CSR layout.

    ``team_ptr[i]:team_ptr[i+1]`` are match ``i``'s teams; ``player_ptr[t]:player_ptr[t+1]``
    are team ``t``'s player slots; ``players``/``weights`` per slot; ``ranks`` per team (NaN
    for unranked); ``times`` per match.
    """

    team_ptr: I64
    player_ptr: I64
    players: I64
    weights: F64
    ranks: F64
    times: F64

    def __len__(self) -> int:
        return len(self.team_ptr) - 1

    def validate(self) -> None:
        """Raise :class:`BatchInputError` naming the first malformed match."""
        teams_per_match = np.diff(self.team_ptr)
        bad = np.flatnonzero(teams_per_match < 2)
        if len(bad):
            raise BatchInputError(f"match {int(bad[0])} of the block has fewer than two teams")
        if np.any(np.diff(self.player_ptr) < 1):
            raise BatchInputError("a team of the block has no players")
        if np.any(~np.isfinite(self.weights)) or np.any((self.weights < 0) | (self.weights > 1)):
            raise BatchInputError("weights must lie in [0, 1]")
        team_weight = np.add.reduceat(self.weights, self.player_ptr[:-1])
        if np.any(team_weight <= 0):
            raise BatchInputError("a team of the block has no player with positive weight")
        ranked = np.add.reduceat(np.isfinite(self.ranks).astype(np.int64), self.team_ptr[:-1])
        if np.any(ranked == 0):
            raise BatchInputError("a match of the block has no ranked team")
        if np.any(~np.isfinite(self.times)):
            raise BatchInputError("match times must be finite numbers")


class BatchInputError(MindsportError):
    """A block of matches is malformed (names the match or what is wrong)."""


def encode_matches(matches: Iterable[Match], index: PlayerIndex) -> MatchBlock:
    """Pack :class:`Match` objects into a block (``datetime`` times become POSIX seconds)."""
    team_ptr = [0]
    player_ptr = [0]
    players: list[int] = []
    weights: list[float] = []
    ranks: list[float] = []
    times: list[float] = []
    for m in matches:
        for k, team in enumerate(m.teams):
            for j, p in enumerate(team):
                players.append(index.get(p))
                weights.append(1.0 if m.weights is None else m.weights[k][j])
            player_ptr.append(len(players))
            r = m.ranks[k]
            ranks.append(math.nan if r is None else float(r))
        team_ptr.append(len(ranks))
        times.append(m.time_value())
    return MatchBlock(
        np.asarray(team_ptr, np.int64),
        np.asarray(player_ptr, np.int64),
        np.asarray(players, np.int64),
        np.asarray(weights, np.float64),
        np.asarray(ranks, np.float64),
        np.asarray(times, np.float64),
    )


def block_from_long_table(
    match_ids: Sequence[object],
    times: Sequence[float],
    players: Sequence[str],
    teams: Sequence[object],
    ranks: Sequence[float],
    index: PlayerIndex,
    weights: Sequence[float] | None = None,
) -> MatchBlock:
    """Build a block from long-format columns (one row per player, rows of a match together).

    Columns as in the CSV long format: ``match_id, time, player, team, rank[, weight]``. A
    match's rows must be contiguous and, within it, a team's rows contiguous (as written by
    :func:`mindsport.history.write_matches`). Vectorised: no Python object per match.
    """
    mid = np.asarray(match_ids)
    tid = np.asarray(teams)
    n = len(mid)
    if n == 0:
        empty = np.zeros(0, np.int64)
        return MatchBlock(
            np.zeros(1, np.int64),
            np.zeros(1, np.int64),
            empty,
            np.zeros(0),
            np.zeros(0),
            np.zeros(0),
        )
    new_match = np.ones(n, bool)
    new_match[1:] = mid[1:] != mid[:-1]
    new_team = new_match.copy()
    new_team[1:] |= tid[1:] != tid[:-1]
    team_starts = np.flatnonzero(new_team)
    match_starts = np.flatnonzero(new_match)
    player_ptr = np.append(team_starts, n).astype(np.int64)
    team_ptr = np.append(np.searchsorted(team_starts, match_starts), len(team_starts)).astype(
        np.int64
    )
    rank_col = np.asarray(ranks, dtype=np.float64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    return MatchBlock(
        team_ptr,
        player_ptr,
        index.many(players),
        w,
        rank_col[team_starts],
        np.asarray(times, dtype=np.float64)[match_starts],
    )


class BatchTrueSkill:
    """TrueSkill over arrays: feed blocks in time order; ratings are carried forward."""

    def __init__(self, env: TrueSkill, capacity: int = 1024) -> None:
        self.env = env
        self.mu = np.full(capacity, env.mu)
        self.sigma = np.full(capacity, env.sigma)
        self.last_time = np.full(capacity, np.nan)
        self._margins = np.zeros(0)

    def _grow(self, n_players: int) -> None:
        cap = len(self.mu)
        if n_players <= cap:
            return
        new = max(n_players, 2 * cap)
        self.mu = np.concatenate([self.mu, np.full(new - cap, self.env.mu)])
        self.sigma = np.concatenate([self.sigma, np.full(new - cap, self.env.sigma)])
        self.last_time = np.concatenate([self.last_time, np.full(new - cap, np.nan)])

    def _margins_for(self, max_size: int) -> F64:
        if len(self._margins) <= max_size:
            self._margins = np.array(
                [
                    0.0 if k == 0 else draw_margin(self.env.draw_probability, k, self.env.beta)
                    for k in range(2 * max_size + 2)
                ]
            )
        return self._margins

    def feed(self, block: MatchBlock) -> tuple[F64, F64]:
        """Rate every match of ``block``; return the pre-game ``mu``/``sigma`` per player slot."""
        pre_mu, pre_sigma, _, _ = self.feed_full(block)
        return pre_mu, pre_sigma

    def feed_full(self, block: MatchBlock) -> tuple[F64, F64, F64, F64]:
        """Rate every match of ``block``; return pre- and post-game ``mu``/``sigma`` per slot."""
        from mindsport.rating.kernels import replay_trueskill

        if len(block) == 0:
            return np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0)
        block.validate()
        if self.env.draw_probability == 0:
            self._refuse_ties(block)
        self._grow(int(block.players.max()) + 1)
        max_team = int(np.diff(block.player_ptr).max())
        margins = self._margins_for(max_team)
        pre_mu = np.empty(len(block.players))
        pre_sigma = np.empty(len(block.players))
        post_mu = np.empty(len(block.players))
        post_sigma = np.empty(len(block.players))
        env = self.env
        status = replay_trueskill(
            self.mu,
            self.sigma,
            self.last_time,
            block.team_ptr,
            block.player_ptr,
            block.players,
            block.weights,
            block.ranks,
            block.times,
            margins,
            env.sigma,
            env.beta,
            env.tau,
            env.drift,
            0.0 if env.sigma_floor is None else env.sigma_floor,
            env.tolerance,
            env.max_iterations,
            pre_mu,
            pre_sigma,
            post_mu,
            post_sigma,
        )
        if status < 0:
            raise ConvergenceError(f"match {-status - 1} of the block did not converge")
        return pre_mu, pre_sigma, post_mu, post_sigma

    @staticmethod
    def _refuse_ties(block: MatchBlock) -> None:
        """With ``draw_probability == 0`` a tie is impossible: name the first match with one."""
        match_of_team = np.repeat(np.arange(len(block)), np.diff(block.team_ptr))
        ranked = np.isfinite(block.ranks)
        keys = np.stack([match_of_team[ranked], block.ranks[ranked]], axis=1)
        order = np.lexsort((keys[:, 1], keys[:, 0]))
        k = keys[order]
        same = np.flatnonzero(np.all(k[1:] == k[:-1], axis=1))
        if len(same):
            index = int(k[same[0], 0])
            err = InvalidGameError(
                f"match {index} of the block has tied ranks, but "
                "draw_probability is 0 so a tie is impossible under this model"
            )
            err.match_index = index  # type: ignore[attr-defined]
            raise err

    def set_rating(self, i: int, rating: Rating) -> None:
        """Start player ``i`` from ``rating`` (e.g. a rating known before the history)."""
        self._grow(i + 1)
        self.mu[i] = rating.mu
        self.sigma[i] = rating.sigma

    def rating_of(self, i: int) -> Rating:
        """Rating of the player with index ``i``."""
        if i >= len(self.mu):
            return self.env.rating()
        return Rating(float(self.mu[i]), float(self.sigma[i]))

    def ratings(self, index: PlayerIndex) -> dict[str, Rating]:
        """Every indexed player's current rating."""
        return {p: self.rating_of(i) for i, p in enumerate(index.ids)}
