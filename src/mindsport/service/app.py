"""The HTTP service: a JSON API over :class:`mindsport.store.Store` and a leaderboard page.

Build it with :func:`create_app` (nothing is opened at import); run it with uvicorn, e.g.
``mindsport serve`` or ``python -m mindsport.service --db sqlite:///league.db``.

Routes (``{league}`` is a league name):

* ``GET /`` : the leaderboard page (``?league=&search=&offset=&player=``).
* ``GET /api/leagues`` : the leagues.
* ``POST /api/leagues/{league}/matches`` : one match object, a list of them, or
  ``{"matches": [...]}``; header ``X-API-Key`` (a key of that league) is required. One
  transaction: all or nothing. Identical re-posts are ignored; a known id with other data is 409.
* ``GET /api/leagues/{league}/leaderboard?offset=&limit=&search=``
* ``GET /api/leagues/{league}/players/{player}`` : rating, rank and history.
* ``POST /api/leagues/{league}/predict`` : ``{"teams": [["a"], ["b", "c"]], "allow_new": false}``.
* ``POST /api/leagues/{league}/matchmake`` : ``{"players": [...], "shape": "2v2"}``.

Errors: a malformed body is 422 naming the field (FastAPI's validation, or the match record's own
check); a missing key 401, a wrong key 403; an unknown league or player 404; a conflicting match
id 409; any other bad input (:class:`~mindsport.errors.MindsportError`) 400 with its text.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, Header, HTTPException, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from mindsport.errors import ConflictError, MindsportError, NotFoundError
from mindsport.match import InvalidMatchError, Match
from mindsport.service.page import render_page
from mindsport.store import Store

__all__ = ["MAX_BATCH", "create_app"]

#: most matches accepted in one request
MAX_BATCH = 10_000

LeagueName = Annotated[str, Path(min_length=1, max_length=100)]


class MatchIn(BaseModel):
    """A match as posted: like :class:`mindsport.history.Match`."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    time: datetime | float
    teams: list[list[str]] = Field(min_length=2)
    ranks: list[int | None] | None = None
    weights: list[list[float]] | None = None
    scores: list[float] | None = None

    def to_match(self) -> Match:
        return Match(self.id, self.time, self.teams, self.ranks, self.weights, self.scores)


class MatchBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    matches: list[MatchIn] = Field(max_length=MAX_BATCH)


class PredictIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    teams: list[list[str]] = Field(min_length=2, max_length=64)
    allow_new: bool = False


class MatchmakeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    players: list[str] = Field(max_length=512)
    shape: str = "1v1"
    allow_new: bool = False


def _writer(
    request: Request,
    league: LeagueName,
    x_api_key: Annotated[str | None, Header()] = None,
) -> str:
    """The league of a write request, once its ``X-API-Key`` is checked (401/403/404)."""
    st: Store = request.app.state.store
    valid = st.check_key(league, x_api_key)  # an unknown league is 404 first
    if not x_api_key:
        raise HTTPException(401, "header X-API-Key is required to write")
    if not valid:
        raise HTTPException(403, f"X-API-Key is not a write key of league {league!r}")
    return league


WriterLeague = Annotated[str, Depends(_writer)]


_MATCH_LIST = TypeAdapter(list[MatchIn])


def _parse_matches(body: Any) -> list[MatchIn]:
    """One match object, a list of them, or ``{"matches": [...]}``; 422 names the bad field."""
    try:
        if isinstance(body, list):
            return _MATCH_LIST.validate_python(body)
        if isinstance(body, dict) and "matches" in body:
            return MatchBatch.model_validate(body).matches
        return [MatchIn.model_validate(body)]
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]
        ) from exc


def _error(status: int, exc: Exception) -> JSONResponse:
    return JSONResponse(status_code=status, content={"detail": str(exc)})


def create_app(database_url: str | None = None, *, store: Store | None = None) -> FastAPI:
    """The FastAPI application over the database at ``database_url`` (or an open ``store``).

    The store is opened here (tables created when missing) and closed at shutdown when the app
    opened it.
    """
    own = store is None
    st = Store(database_url) if store is None else store

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        if own:
            st.close()

    app = FastAPI(title="mindsport", lifespan=lifespan)
    app.state.store = st

    @app.exception_handler(InvalidMatchError)
    async def _invalid(_r: Request, exc: InvalidMatchError) -> JSONResponse:
        return _error(422, exc)

    @app.exception_handler(NotFoundError)
    async def _not_found(_r: Request, exc: NotFoundError) -> JSONResponse:
        return _error(404, exc)

    @app.exception_handler(ConflictError)
    async def _conflict(_r: Request, exc: ConflictError) -> JSONResponse:
        return _error(409, exc)

    @app.exception_handler(MindsportError)
    async def _bad(_r: Request, exc: MindsportError) -> JSONResponse:
        return _error(400, exc)

    @app.get("/api/leagues")
    def list_leagues() -> dict[str, Any]:
        return {
            "leagues": [
                {"name": lg.name, "model": lg.model, "params": lg.params, "matches": lg.matches}
                for lg in st.list_leagues()
            ]
        }

    @app.post("/api/leagues/{league}/matches")
    def post_matches(
        league: WriterLeague,
        body: Annotated[Any, Body()],
    ) -> dict[str, int]:
        items = _parse_matches(body)
        if len(items) > MAX_BATCH:
            raise HTTPException(
                422, f"body: at most {MAX_BATCH} matches per request, got {len(items)}"
            )
        return st.add_matches(league, [m.to_match() for m in items]).as_dict()

    @app.get("/api/leagues/{league}/leaderboard")
    def leaderboard(
        league: LeagueName,
        offset: Annotated[int, Query(ge=0)] = 0,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        search: Annotated[str | None, Query(max_length=200)] = None,
    ) -> dict[str, Any]:
        page = st.leaderboard(league, offset=offset, limit=limit, search=search or None)
        d = page.display
        return {
            "league": page.league,
            "display": None
            if d is None
            else {  # labels of the rating columns (exposed is what the board is sorted by)
                "mu": d.value_label,
                "sigma": d.deviation_label,
                "exposed": d.conservative,
            },
            "total": page.total,
            "offset": page.offset,
            "limit": page.limit,
            "search": search or "",
            "items": [
                {
                    "rank": e.rank,
                    "player": e.player,
                    "mu": e.mu,
                    "sigma": e.sigma,
                    "exposed": e.exposed,
                    "games": e.games,
                }
                for e in page.entries
            ],
        }

    @app.get("/api/leagues/{league}/players/{player:path}")
    def player(league: LeagueName, player: str) -> dict[str, Any]:
        rec = st.player(league, player)
        return {
            "league": rec.league,
            "player": rec.player,
            "rank": rec.rank,
            "mu": rec.state.mu,
            "sigma": rec.state.sigma,
            "exposed": rec.exposed,
            "games": rec.games,
            "history": [
                {"match_id": h.match_id, "seq": h.seq, "time": h.time, "mu": h.mu, "sigma": h.sigma}
                for h in rec.history
            ],
        }

    @app.post("/api/leagues/{league}/predict")
    def predict(league: LeagueName, body: PredictIn) -> dict[str, Any]:
        pr = st.predict(league, body.teams, allow_new=body.allow_new)
        return {
            "teams": pr.teams,
            "win_probability": pr.win_probability,
            "pairwise": pr.pairwise,
            "rank_probabilities": pr.rank_probabilities,
            "quality": pr.quality,
            "new_players": pr.new_players,
        }

    @app.post("/api/leagues/{league}/matchmake")
    def matchmake(league: LeagueName, body: MatchmakeIn) -> dict[str, Any]:
        plan = st.matchmake(league, body.players, body.shape, allow_new=body.allow_new)
        return {
            "shape": body.shape,
            "tables": [
                {"teams": [list(t) for t in tb.teams], "quality": tb.quality} for tb in plan.tables
            ],
            "waiting": list(plan.waiting),
            "worst_quality": plan.worst_quality,
            "exact": plan.exact,
        }

    @app.get("/", response_class=HTMLResponse)
    def page(
        league: str | None = None,
        search: Annotated[str, Query(max_length=200)] = "",
        offset: Annotated[int, Query(ge=0)] = 0,
        player: str | None = None,
    ) -> HTMLResponse:
        return HTMLResponse(render_page(st, league, search, offset, player))

    return app
