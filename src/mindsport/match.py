"""The match value type: one recorded game, who played in which team, and how the teams finished.

This module sits at the bottom of the package (beside :mod:`mindsport.errors`): the rating
models, the history tools, the store and the service all speak :class:`Match`, and it imports
nothing of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from mindsport.errors import MindsportError

__all__ = ["InvalidMatchError", "Match", "pair_outcome", "ranks_from_scores"]

#: the functions of this module that the rating kernels compile (see mindsport.rating.jit)
__kernels__ = ("pair_outcome",)

Time = datetime | float | int


class InvalidMatchError(MindsportError):
    """A match record is inconsistent (names the match id and the field)."""


def ranks_from_scores(scores: Sequence[float]) -> tuple[int, ...]:
    """Standard competition ranking (0 = best): higher score, better place; ties share a place.

    >>> ranks_from_scores([10, 30, 30, 5])
    (2, 0, 0, 3)
    """
    return tuple(sum(1 for other in scores if other > s) for s in scores)


def pair_outcome(ri: float | None, rj: float | None) -> float | None:
    """Outcome for team i against team j from their ranks: 1 ahead, 0.5 tie, 0 behind.

    ``None`` (or NaN, as in rank arrays) is an unranked team, which finished below every ranked
    team; two unranked teams are not compared (``None``). The compiled kernels compile this very
    function (NaN ranks).

    >>> pair_outcome(0, 1), pair_outcome(2, 2), pair_outcome(None, 3), pair_outcome(None, None)
    (1.0, 0.5, 0.0, None)
    """
    i_out = ri is None or ri != ri
    j_out = rj is None or rj != rj
    if i_out and j_out:
        return None
    if i_out:
        return 0.0
    if j_out:
        return 1.0
    return 1.0 if ri < rj else 0.5 if ri == rj else 0.0  # type: ignore[operator]


@dataclass(frozen=True, slots=True)
class Match:
    """A game result.

    ``teams`` are tuples of player ids; ``ranks`` (lower is better, equal is a tie, ``None`` is an
    unranked team that finished below every ranked one) may be omitted when ``scores`` are given.
    ``weights`` are partial-play fractions in [0, 1], one per player. ``time`` is a ``datetime``
    or any monotone number (seconds, days, a counter).

    >>> m = Match("g1", 3, [["ann", "bob"], ["cy"]], None, scores=[2, 5])
    >>> m.ranks
    (1, 0)
    >>> m.players
    ('ann', 'bob', 'cy')
    """

    id: str
    time: Time
    teams: tuple[tuple[str, ...], ...]
    ranks: tuple[int | None, ...]
    weights: tuple[tuple[float, ...], ...] | None = None
    scores: tuple[float, ...] | None = None

    def __init__(
        self,
        id: str,
        time: Time,
        teams: Sequence[Sequence[str]],
        ranks: Sequence[int | None] | None = None,
        weights: Sequence[Sequence[float]] | None = None,
        scores: Sequence[float] | None = None,
    ) -> None:
        def bad(field: str, why: str) -> InvalidMatchError:
            return InvalidMatchError(f"match {id!r}: {field}: {why}")

        if not isinstance(id, str) or not id:
            raise InvalidMatchError(f"match id must be a non-empty string, got {id!r}")
        if not isinstance(time, datetime) and (
            isinstance(time, bool) or not isinstance(time, int | float) or math.isnan(time)
        ):
            raise bad("time", f"expected a datetime or a number, got {time!r}")
        if isinstance(teams, str) or len(teams) < 2:
            raise bad("teams", f"need at least two teams, got {teams!r}")
        tteams: list[tuple[str, ...]] = []
        seen: set[str] = set()
        for t in teams:
            if isinstance(t, str) or len(t) == 0:
                raise bad("teams", f"each team is a non-empty list of player ids, got {t!r}")
            for p in t:
                if not isinstance(p, str) or not p:
                    raise bad("teams", f"player ids are non-empty strings, got {p!r}")
                if p in seen:
                    raise bad("teams", f"player {p!r} appears twice")
                seen.add(p)
            tteams.append(tuple(t))
        tscores: tuple[float, ...] | None = None
        if scores is not None:
            if len(scores) != len(tteams):
                raise bad("scores", f"{len(scores)} scores for {len(tteams)} teams")
            for s in scores:
                if isinstance(s, bool) or not isinstance(s, int | float) or not math.isfinite(s):
                    raise bad("scores", f"not a finite number: {s!r}")
            tscores = tuple(float(s) for s in scores)
        if ranks is None:
            if tscores is None:
                raise bad("ranks", "give ranks or scores")
            tranks: tuple[int | None, ...] = ranks_from_scores(tscores)
        else:
            if len(ranks) != len(tteams):
                raise bad("ranks", f"{len(ranks)} ranks for {len(tteams)} teams")
            for r in ranks:
                if r is not None and (isinstance(r, bool) or not isinstance(r, int)):
                    raise bad("ranks", f"ranks are integers or None, got {r!r}")
            if all(r is None for r in ranks):
                raise bad("ranks", "at least one team must be ranked")
            tranks = tuple(ranks)
        tweights: tuple[tuple[float, ...], ...] | None = None
        if weights is not None:
            if len(weights) != len(tteams):
                raise bad("weights", f"{len(weights)} weight lists for {len(tteams)} teams")
            wl = []
            for t, w in zip(tteams, weights, strict=True):
                if len(w) != len(t):
                    raise bad("weights", f"{len(w)} weights for team {list(t)}")
                for x in w:
                    if isinstance(x, bool) or not isinstance(x, int | float) or not 0 <= x <= 1:
                        raise bad("weights", f"weights lie in [0, 1], got {x!r}")
                wl.append(tuple(float(x) for x in w))
            tweights = tuple(wl)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "time", time)
        object.__setattr__(self, "teams", tuple(tteams))
        object.__setattr__(self, "ranks", tranks)
        object.__setattr__(self, "weights", tweights)
        object.__setattr__(self, "scores", tscores)

    @property
    def players(self) -> tuple[str, ...]:
        """Every player id, team by team."""
        return tuple(p for t in self.teams for p in t)

    def time_value(self) -> float:
        """``time`` as a number (POSIX seconds for datetimes), for elapsed-time computations."""
        t = self.time
        return t.timestamp() if isinstance(t, datetime) else float(t)
