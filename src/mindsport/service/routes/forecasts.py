"""Computations over a league's ratings: ``POST /api/leagues/{league}/predict`` (win and place
probabilities) and ``POST /api/leagues/{league}/matchmake`` (balanced tables).

Their cost grows fast with their input: requests with a key (a write key of the league, or an
admin key, in X-API-Key) run at most :data:`~mindsport.service.limits.COMPUTE_SLOTS` at a time
(others wait, then 429); requests without one run in a smaller pool of their own,
:data:`~mindsport.service.limits.ANONYMOUS_COMPUTE_SLOTS` at a time with at most
:data:`~mindsport.service.limits.ANONYMOUS_COMPUTE_QUEUE` waiting (429 beyond, before the body
is read, after a pause of :data:`~mindsport.service.limits.ANONYMOUS_REFUSAL_SECONDS`), so that
anonymous loops never take the slots of key holders; and together they take at most
:data:`~mindsport.service.limits.ANONYMOUS_CPU_SHARE` CPU seconds per second (an anonymous
computation waits until that budget is no longer overdrawn, 429 with Retry-After when that would
take longer than :data:`~mindsport.service.limits.COMPUTE_WAIT_SECONDS`), so that they cannot
take the writers' share of the server's interpreter; their searches run in a worker process when
the app has one (:mod:`mindsport.service.computing`). A search stops after
:data:`~mindsport.service.limits.COMPUTE_SECONDS` with the best seating found. A key sent must
be valid (403 otherwise).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter

from mindsport import forecast
from mindsport.service.dependencies import LEAGUE_KEY_IF_ANY, LeagueName, RuntimeDep
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import responses
from mindsport.service.schemas import MatchmakeIn, MatchmakeOut, PredictIn, PredictOut, TableOut

__all__ = ["router"]

router = APIRouter(route_class=ApiRoute, tags=["ratings"])

#: whether the request has a key (checked): it computes in the slots of key holders
Keyed = Annotated[bool, LEAGUE_KEY_IF_ANY]


_ANSWERS = responses(400, 401, 403, 404, 408, 413, 415, 422, 429)


@router.post("/api/leagues/{league}/predict", responses=_ANSWERS)
async def predict(
    league: LeagueName, body: PredictIn, runtime: RuntimeDep, keyed: Keyed
) -> PredictOut:
    """Win and place probabilities and the match quality of a game between ``teams``, with
    their players' ``roles`` (seats) in a league whose model rates roles (cardplay)."""
    st = runtime.store
    pr = await runtime.compute(
        lambda: forecast.predict(
            st, league, body.teams, roles=body.roles, allow_new=body.allow_new
        ),
        anonymous=not keyed,
    )
    return PredictOut.model_validate(pr)


@router.post("/api/leagues/{league}/matchmake", responses=_ANSWERS)
async def matchmake(
    league: LeagueName, body: MatchmakeIn, runtime: RuntimeDep, keyed: Keyed
) -> MatchmakeOut:
    """Balanced tables of ``shape`` from the waiting ``players`` (the worst table as good as
    possible); ``exact`` tells whether the seating is provably the best. With ``roles`` (the
    shape's seats, in a league whose model rates roles) each table takes the best assignment of
    the role sets to its teams, and says it."""
    st = runtime.store
    plan = await runtime.matchmake(
        lambda: forecast.seating(
            st, league, body.players, body.shape, roles=body.roles, allow_new=body.allow_new
        ),
        anonymous=not keyed,
    )
    return MatchmakeOut(
        shape=body.shape,
        tables=[TableOut.model_validate(t) for t in plan.tables],
        waiting=list(plan.waiting),
        worst_quality=plan.worst_quality,
        exact=plan.exact,
    )
