"""Ratings of a league's players: ``GET /api/leagues/{league}/leaderboard`` (players by the
model's conservative rating) and ``GET /api/leagues/{league}/players/{player}`` (a player's
rating and history, or smoothed skill curve)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from mindsport.service.dependencies import LeagueName, PlayerId, RuntimeDep
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import responses
from mindsport.service.schemas import LeaderboardOut, Limit, Offset, PlayerOut, Search

__all__ = ["router"]

router = APIRouter(route_class=ApiRoute, tags=["ratings"])


@router.get("/api/leagues/{league}/leaderboard", responses=responses(404, 422))
async def leaderboard(
    league: LeagueName,
    runtime: RuntimeDep,
    offset: Annotated[Offset, Query()] = 0,
    limit: Annotated[Limit, Query()] = 50,
    search: Annotated[Search | None, Query()] = None,
) -> LeaderboardOut:
    """Players by the model's conservative rating (best first), with their overall rank;
    ``search`` keeps ids containing it (case-insensitive)."""
    st = runtime.store
    page = await runtime.run(
        lambda: st.leaderboard(league, offset=offset, limit=limit, search=search or None)
    )
    return LeaderboardOut.of(page, search or "")


@router.get("/api/leagues/{league}/players/{player:path}", responses=responses(404, 422))
async def player(league: LeagueName, player: PlayerId, runtime: RuntimeDep) -> PlayerOut:
    """A player's rating, overall rank and rating after each of their games (``history``),
    or in a whole-history league the smoothed skill curve (``curve``: the skill at each
    time step the player played in, given every game of the league)."""
    return PlayerOut.of(await runtime.run(runtime.store.player, league, player))
