"""Forecasts from a league's current ratings: the outcome probabilities and quality of a game
between given teams (:func:`predict`), and balanced tables from waiting players
(:func:`matchmake`).

The maths is the league's model's (:class:`~mindsport.store.league_model.LeagueModel`) and
:mod:`mindsport.matchmaking`'s; the ratings come from a :class:`~mindsport.store.Store` through
its reading methods (``states``, ``team_states``). This module sits above the store and below
the service and the command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mindsport.errors import MindsportError
from mindsport.match import id_problem, normal_id
from mindsport.matchmaking import MAX_POOL, Pairing, parse_shape
from mindsport.matchmaking import matchmake as seat
from mindsport.store.values import StoreError

if TYPE_CHECKING:
    from mindsport.store.facade import Store

__all__ = ["Prediction", "matchmake", "predict"]


@dataclass(frozen=True, slots=True)
class Prediction:
    """Before a game: P(team i ahead of team j), P(team i finishes in place k), match quality."""

    teams: list[list[str]]
    win_probability: float | None
    pairwise: list[list[float | None]]
    rank_probabilities: list[list[float]] | None
    quality: float | None
    new_players: list[str]


def _check_teams(teams: Sequence[Sequence[str]]) -> list[list[str]]:
    """``teams`` as lists of ids in NFC (:func:`~mindsport.match.normal_id`), once there are
    two or more, none empty, every player id valid and no player twice (:class:`StoreError`
    naming what is wrong)."""
    if isinstance(teams, str) or len(teams) < 2:
        raise StoreError(f"teams: need at least two teams, got {teams!r}")
    seen: set[str] = set()
    out: list[list[str]] = []
    for t in teams:
        if isinstance(t, str) or len(t) == 0:
            raise StoreError(f"teams: each team is a non-empty list of player ids, got {t!r}")
        for p in t:
            why = id_problem(p)
            if why is not None:
                raise StoreError(f"teams: player id {p!r} {why}")
        team = [normal_id(p) for p in t]
        for p in team:
            if p in seen:
                raise StoreError(f"teams: player {p!r} appears twice")
            seen.add(p)
        out.append(team)
    return out


def _check_players(players: Sequence[str]) -> list[str]:
    """A pool of waiting players: a list of at most :data:`~mindsport.matchmaking.MAX_POOL`
    valid player ids, none twice (:class:`StoreError` naming what is wrong), in NFC."""
    if isinstance(players, str):
        raise StoreError(f"players: expected a list of player ids, got {players!r}")
    if len(players) > MAX_POOL:
        raise StoreError(f"players: {len(players)} players, at most {MAX_POOL}")
    seen: set[str] = set()
    out: list[str] = []
    for raw in players:
        why = id_problem(raw)
        if why is not None:
            raise StoreError(f"players: player id {raw!r} {why}")
        p = normal_id(raw)
        if p in seen:
            raise StoreError(f"players: player {p!r} appears twice")
        seen.add(p)
        out.append(p)
    return out


def predict(
    store: Store, league: str, teams: Sequence[Sequence[str]], *, allow_new: bool = False
) -> Prediction:
    """Win and place probabilities and match quality of a game between ``teams`` in
    ``league`` of ``store``.

    Unknown players raise :class:`~mindsport.errors.NotFoundError` unless ``allow_new`` (then
    they get the model's prior).
    """
    tlist = _check_teams(teams)
    known = store.states(league, [p for t in tlist for p in t])
    lm, states = store.team_states(league, tlist, allow_new=allow_new)
    n = len(states)
    pairwise: list[list[float | None]] = [
        [None if i == j else lm.win_probability(states[i], states[j]) for j in range(n)]
        for i in range(n)
    ]
    try:
        quality: float | None = lm.quality(states)
    except MindsportError:
        quality = None
    rp = lm.rank_probabilities(states)
    ranks = None if rp is None else [[float(x) for x in row] for row in rp]
    return Prediction(
        tlist,
        pairwise[0][1] if n == 2 else None,
        pairwise,
        ranks,
        quality,
        [p for t in tlist for p in t if p not in known],
    )


def matchmake(
    store: Store,
    league: str,
    players: Sequence[str],
    shape: str | Sequence[int],
    *,
    allow_new: bool = False,
    deadline: float | None = None,
) -> Pairing:
    """Balanced tables of ``shape`` from waiting ``players`` of ``league`` in ``store``
    (:mod:`mindsport.matchmaking`; ``deadline``, a :func:`time.monotonic` value, bounds the
    search). Unknown players raise :class:`~mindsport.errors.NotFoundError` unless
    ``allow_new``."""
    parse_shape(shape)
    players = _check_players(players)
    lm, states = store.team_states(league, [[p] for p in players], allow_new=allow_new)
    pool = {p: st[0] for p, st in zip(players, states, strict=True)}
    return seat(
        pool, shape, lambda teams: lm.quality(teams), strength=lm.exposed, deadline=deadline
    )
