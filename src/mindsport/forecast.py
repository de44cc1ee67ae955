"""Forecasts from a league's current ratings: the outcome probabilities and quality of a game
between given teams (:func:`predict`), and balanced tables from waiting players
(:func:`matchmake`).

The maths is the league's model's (:class:`~mindsport.store.league_model.LeagueModel`) and
:mod:`mindsport.matchmaking`'s; the ratings come from a :class:`~mindsport.store.Store` through
its reading methods (``states``, ``team_states``). This module sits above the store and below
the service and the command line.

**Roles.** In a league whose model rates roles (seats: ``cardplay``'s home and away, landlord and
farmers), ``predict`` and ``matchmake`` take ``roles`` in the shape of the teams (one role per
player, as a match carries them): each role's learned advantage (its prior before the league has
seen it) joins its team's performance, as in the rating. ``matchmake``'s roles are those of the
shape's seats; since a role changes the odds, each table is seated in the best way, which team
takes which roles among teams of the same size (home or away), and every table says its roles.
Within a team, which player holds which role does not change the model's odds. A league of a
model without roles refuses roles (a :class:`~mindsport.store.values.StoreError` saying so).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mindsport.errors import MindsportError
from mindsport.match import InvalidMatchError, check_roles, id_problem, normal_id
from mindsport.matchmaking import MAX_POOL, Pairing, Table, parse_shape
from mindsport.matchmaking import matchmake as seat
from mindsport.store.values import StoreError

if TYPE_CHECKING:
    from mindsport.store.facade import Store
    from mindsport.store.league_model import LeagueModel, PlayerState

#: most ways to give a table's role sets to its teams that matchmaking tries per table
MAX_ASSIGNMENTS = 720

__all__ = ["Prediction", "Seating", "matchmake", "predict", "seat_players", "seating"]


@dataclass(frozen=True, slots=True)
class Prediction:
    """Before a game: P(team i ahead of team j), P(team i finishes in place k), match quality."""

    teams: list[list[str]]
    win_probability: float | None
    pairwise: list[list[float | None]]
    rank_probabilities: list[list[float]] | None
    quality: float | None
    new_players: list[str]
    roles: list[list[str]] | None = None


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


def _role_ratings(
    store: Store, league: str, lm: LeagueModel, roles: Sequence[Sequence[str]]
) -> list[list[Any]]:
    """Per team, the ratings of its roles in ``league`` (see the module docstring)."""
    if not lm.has_roles:
        raise StoreError(
            f"roles: league {league!r} rates with model {lm.name!r}, which has no roles "
            "(seats); leave roles out, or use a league of a model that rates roles (cardplay)"
        )
    return lm.role_ratings(roles, store.role_states(league))


def predict(
    store: Store,
    league: str,
    teams: Sequence[Sequence[str]],
    *,
    roles: Sequence[Sequence[str]] | None = None,
    allow_new: bool = False,
) -> Prediction:
    """Win and place probabilities and match quality of a game between ``teams`` in
    ``league`` of ``store``; ``roles``: one role per player, in the shape of ``teams`` (a
    league whose model rates roles; see the module docstring).

    Unknown players raise :class:`~mindsport.errors.NotFoundError` unless ``allow_new`` (then
    they get the model's prior).
    """
    tlist = _check_teams(teams)
    rlist = None if roles is None else [list(r) for r in check_roles(roles, tlist)]
    known = store.states(league, [p for t in tlist for p in t])
    lm, states = store.team_states(league, tlist, allow_new=allow_new)
    virtual = None if rlist is None else _role_ratings(store, league, lm, rlist)
    n = len(states)
    pairwise: list[list[float | None]] = [
        [
            None
            if i == j
            else lm.win_probability(
                states[i], states[j], None if virtual is None else [virtual[i], virtual[j]]
            )
            for j in range(n)
        ]
        for i in range(n)
    ]
    try:
        quality: float | None = lm.quality(states, virtual)
    except MindsportError:
        quality = None
    rp = lm.rank_probabilities(states, virtual)
    ranks = None if rp is None else [[float(x) for x in row] for row in rp]
    return Prediction(
        tlist,
        pairwise[0][1] if n == 2 else None,
        pairwise,
        ranks,
        quality,
        [p for t in tlist for p in t if p not in known],
        rlist,
    )


def _shape_roles(sizes: Sequence[int], roles: Sequence[Sequence[str]]) -> list[list[str]]:
    """``roles`` of a table's seats: one list per team of the shape, one role per seat."""
    if isinstance(roles, str) or len(roles) != len(sizes):
        raise InvalidMatchError(
            f"roles: one list of roles per team of the shape ({len(sizes)}), got {roles!r}",
            "roles",
        )
    for k, (size, team) in enumerate(zip(sizes, roles, strict=True)):
        if isinstance(team, str) or len(team) != size:
            raise InvalidMatchError(
                f"roles: team {k + 1} of the shape has {size} seats, got roles {team!r}", "roles"
            )
    return [list(r) for r in check_roles(roles, roles)]


def _assignments(sizes: Sequence[int]) -> list[tuple[int, ...]]:
    """Every way to give the role sets of ``sizes``' seats to teams of the same sizes:
    ``perm[k]`` is the team seated at slot ``k``."""
    groups: dict[int, list[int]] = {}
    for k, size in enumerate(sizes):
        groups.setdefault(size, []).append(k)
    count = math.prod(math.factorial(len(g)) for g in groups.values())
    if count > MAX_ASSIGNMENTS:
        raise StoreError(
            f"roles: the shape's teams of equal size can take their roles in {count} ways, "
            f"at most {MAX_ASSIGNMENTS} are tried per table"
        )
    out: list[tuple[int, ...]] = []
    for choice in itertools.product(*(itertools.permutations(g) for g in groups.values())):
        perm = [0] * len(sizes)
        for slots, teams in zip(groups.values(), choice, strict=True):
            for slot, team in zip(slots, teams, strict=True):
                perm[slot] = team
        out.append(tuple(perm))
    return out


def _seated(
    teams: Sequence[Sequence[Any]],
    perms: list[tuple[int, ...]],
    quality: Callable[[list[Sequence[Any]]], float],
) -> tuple[float, tuple[int, ...]]:
    """The best quality of ``teams`` over the role assignments ``perms``, and the best one."""
    best_q, best = -math.inf, perms[0]
    for perm in perms:
        q = quality([teams[t] for t in perm])
        if q > best_q:
            best_q, best = q, perm
    return best_q, best


@dataclass(frozen=True, slots=True)
class Seating:
    """What a matchmaking search needs, read from the store (values only: it may be sent to
    another process): the league's model, the waiting players' ratings by id, the shape, and
    with roles the role sets, their ratings and the ways to give them to a table's teams."""

    model: LeagueModel
    pool: dict[str, PlayerState]
    shape: str | tuple[int, ...]
    roles: list[list[str]] | None = None
    virtual: list[list[Any]] | None = None
    perms: list[tuple[int, ...]] | None = None


def seating(
    store: Store,
    league: str,
    players: Sequence[str],
    shape: str | Sequence[int],
    *,
    roles: Sequence[Sequence[str]] | None = None,
    allow_new: bool = False,
) -> Seating:
    """The values :func:`seat_players` searches over (see :func:`matchmake`, which is
    ``seat_players(seating(...), deadline)``)."""
    sizes = parse_shape(shape)
    rlist = None if roles is None else _shape_roles(sizes, roles)
    perms = None if rlist is None else _assignments(sizes)
    players = _check_players(players)
    lm, states = store.team_states(league, [[p] for p in players], allow_new=allow_new)
    pool = {p: st[0] for p, st in zip(players, states, strict=True)}
    key = shape if isinstance(shape, str) else tuple(shape)
    if rlist is None:
        return Seating(lm, pool, key)
    return Seating(lm, pool, key, rlist, _role_ratings(store, league, lm, rlist), perms)


def seat_players(task: Seating, deadline: float | None = None) -> Pairing:
    """Balanced tables for ``task`` (:func:`seating`), the search bounded by ``deadline`` (a
    :func:`time.monotonic` value); no store needed."""
    lm, pool, shape = task.model, task.pool, task.shape
    if task.roles is None or task.perms is None:
        return seat(
            pool, shape, lambda teams: lm.quality(teams), strength=lm.exposed, deadline=deadline
        )
    virtual, perms = task.virtual, task.perms

    def quality(teams: list[Sequence[PlayerState]]) -> float:
        return lm.quality(teams, virtual)

    plan = seat(
        pool,
        shape,
        lambda teams: _seated(teams, perms, quality)[0],
        strength=lm.exposed,
        deadline=deadline,
    )
    roles_out = tuple(tuple(r) for r in task.roles)
    tables = []
    for tb in plan.tables:
        # the seating's best assignment of the role sets to its teams, in seat order
        q, perm = _seated([[pool[p] for p in team] for team in tb.teams], perms, quality)
        tables.append(Table(tuple(tb.teams[t] for t in perm), q, roles_out))
    return Pairing(tuple(tables), plan.waiting, plan.worst_quality, plan.exact)


def matchmake(
    store: Store,
    league: str,
    players: Sequence[str],
    shape: str | Sequence[int],
    *,
    roles: Sequence[Sequence[str]] | None = None,
    allow_new: bool = False,
    deadline: float | None = None,
) -> Pairing:
    """Balanced tables of ``shape`` from waiting ``players`` of ``league`` in ``store``
    (:mod:`mindsport.matchmaking`; ``deadline``, a :func:`time.monotonic` value, bounds the
    search). ``roles``: the roles of the shape's seats, one list per team (a league whose
    model rates roles; each table then takes the best assignment of roles to its teams, see
    the module docstring). Unknown players raise :class:`~mindsport.errors.NotFoundError`
    unless ``allow_new``. The same as ``seat_players(seating(...), deadline)``: the reading
    and the search may run in different processes."""
    task = seating(store, league, players, shape, roles=roles, allow_new=allow_new)
    return seat_players(task, deadline)
