"""Computations over a league's ratings: ``POST /api/leagues/{league}/predict`` (win and place
probabilities) and ``POST /api/leagues/{league}/matchmake`` (balanced tables).

Their cost grows fast with their input: they run at most
:data:`~mindsport.service.limits.COMPUTE_SLOTS` at a time (others wait, then 429), and a search
stops after :data:`~mindsport.service.limits.COMPUTE_SECONDS` with the best seating found.
"""

from __future__ import annotations

import time

from fastapi import APIRouter

from mindsport import forecast
from mindsport.service.dependencies import LeagueName, RuntimeDep
from mindsport.service.limits import COMPUTE_SECONDS
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import responses
from mindsport.service.schemas import MatchmakeIn, MatchmakeOut, PredictIn, PredictOut, TableOut

__all__ = ["router"]

router = APIRouter(route_class=ApiRoute, tags=["ratings"])


@router.post("/api/leagues/{league}/predict", responses=responses(400, 404, 413, 415, 422, 429))
async def predict(league: LeagueName, body: PredictIn, runtime: RuntimeDep) -> PredictOut:
    """Win and place probabilities and the match quality of a game between ``teams``."""
    st = runtime.store
    async with runtime.compute_slot():
        pr = await runtime.run(
            lambda: forecast.predict(st, league, body.teams, allow_new=body.allow_new)
        )
    return PredictOut.model_validate(pr)


@router.post("/api/leagues/{league}/matchmake", responses=responses(400, 404, 413, 415, 422, 429))
async def matchmake(league: LeagueName, body: MatchmakeIn, runtime: RuntimeDep) -> MatchmakeOut:
    """Balanced tables of ``shape`` from the waiting ``players`` (the worst table as good as
    possible); ``exact`` tells whether the seating is provably the best."""
    st = runtime.store
    async with runtime.compute_slot():
        deadline = time.monotonic() + COMPUTE_SECONDS
        plan = await runtime.run(
            lambda: forecast.matchmake(
                st, league, body.players, body.shape, allow_new=body.allow_new, deadline=deadline
            )
        )
    return MatchmakeOut(
        shape=body.shape,
        tables=[TableOut.model_validate(t) for t in plan.tables],
        waiting=list(plan.waiting),
        worst_quality=plan.worst_quality,
        exact=plan.exact,
    )
