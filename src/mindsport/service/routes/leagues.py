"""Leagues: ``GET /api/leagues``; with an admin key ``POST /api/leagues`` (create) and
``PATCH /api/leagues/{league}`` (change the model or its parameters, re-rating the matches, or
the policy for late results, re-rating nothing)."""

from __future__ import annotations

from fastapi import APIRouter

from mindsport.service.dependencies import ADMIN_KEY, LeagueName, RuntimeDep
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import responses
from mindsport.service.schemas import LeagueIn, LeagueOut, LeaguePatch, LeaguesOut

__all__ = ["router"]

router = APIRouter(route_class=ApiRoute)


@router.get("/api/leagues", tags=["leagues"])
async def list_leagues(runtime: RuntimeDep) -> LeaguesOut:
    """Every league with its model, parameters and number of matches."""
    got = await runtime.run(runtime.store.list_leagues)
    return LeaguesOut(leagues=[LeagueOut.of(lg) for lg in got])


@router.post(
    "/api/leagues",
    status_code=201,
    responses=responses(400, 401, 403, 408, 409, 413, 415, 422),
    dependencies=[ADMIN_KEY],
    tags=["admin"],
)
async def create_league(body: LeagueIn, runtime: RuntimeDep) -> LeagueOut:
    """Create a league (admin key), with its policy for late results (``late``; default
    ``replay``) and what its numeric times mean (``time_unit``; default ``number``)."""
    st = runtime.store

    def create() -> LeagueOut:
        lg = st.create_league(
            body.name, body.model, body.params, late=body.late.value(), time_unit=body.time_unit
        )
        return LeagueOut.of(lg)

    return await runtime.run(create)


@router.patch(
    "/api/leagues/{league}",
    responses=responses(400, 401, 403, 404, 408, 413, 415, 422),
    dependencies=[ADMIN_KEY],
    tags=["admin"],
)
async def configure_league(league: LeagueName, body: LeaguePatch, runtime: RuntimeDep) -> LeagueOut:
    """Change a league's model or parameters and re-rate its matches, and/or its policy for
    late results (given alone, nothing is re-rated), and/or what its numeric times mean
    (``time_unit``: never re-rates) (admin key)."""
    st = runtime.store
    late = None if body.late is None else body.late.value()

    def change() -> LeagueOut:
        if body.model is None and body.params is None:
            # the policy or the time unit alone (or nothing): no re-rating
            st.update_league(league, late=late, time_unit=body.time_unit)
            return LeagueOut.of(st.get_league(league))
        current = st.get_league(league)
        same = body.model is None or body.model == current.model
        params = dict(current.params) if same else {}
        for name, value in (body.params or {}).items():
            if value is None:
                params.pop(name, None)
            else:
                params[name] = value
        st.update_league(
            league, model=body.model, params=params, late=late, time_unit=body.time_unit
        )
        return LeagueOut.of(st.get_league(league))

    return await runtime.run(change)
