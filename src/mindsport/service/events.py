"""The event endpoints (:mod:`mindsport.event` over HTTP), mounted by :func:`create_app`.

Reads need no key. Creating an event needs an admin key; every other write needs a write key
of the event's league (or an admin key), checked before the body is read, as for matches.
Refusals map like the rest of the API: 400 bad input (a score not adding up, a round paired
before the previous one is complete, a player seated twice), 404 no such event, round, table or
player, 409 a result entered twice or a finished event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from mindsport.event.model import (
    EVENT_NAME,
    DealSource,
    EventFormat,
    EventSpec,
    Scoring,
    TieBreak,
)
from mindsport.event.sheets import deal_sheet, deal_sheet_html, event_page_html
from mindsport.event.store import Amendment, EventState, EventStore, spec_to_json
from mindsport.service.event_schemas import (
    AmendIn,
    EventIn,
    PairIn,
    PlayersIn,
    ResultsIn,
    ScoresIn,
    WithdrawIn,
)
from mindsport.service.limits import MAX_ROUND_TABLES, MAX_ROUNDS
from mindsport.store import Store

__all__ = ["event_router"]

EventName = Annotated[str, Path(pattern=EVENT_NAME, description="An event name")]
RoundNo = Annotated[int, Path(ge=1, le=MAX_ROUNDS)]
TableNo = Annotated[int, Path(ge=1, le=MAX_ROUND_TABLES)]
KeyHeader = Annotated[
    str | None,
    Header(
        alias="X-API-Key",
        description="A write key of the event's league, or an admin key",
        max_length=200,
    ),
]

Run = Callable[..., Awaitable[Any]]
BodyOf = Callable[[Request, type[BaseModel]], Awaitable[Any]]


def _body_doc(model: type[BaseModel]) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


def _amendment_out(a: Amendment) -> dict[str, Any]:
    return {
        "round": a.round,
        "table": a.table,
        "old": [list(x) for x in a.old],
        "new": [list(x) for x in a.new],
        "who": a.who,
        "why": a.why,
        "at": a.at.isoformat(),
    }


def _state_out(state: EventState) -> dict[str, Any]:
    return {
        "name": state.spec.name,
        "league": state.spec.league,
        "status": str(state.status),
        "settings": {k: v for k, v in spec_to_json(state.spec).items() if k != "pool"},
        "pool": len(state.spec.pool),
        "players": [
            {
                "name": p.name,
                "number": p.number,
                "bot": p.bot,
                "joined": p.joined,
                "withdrawn": p.withdrawn,
            }
            for p in state.players
        ],
        "rounds": [
            {
                "round": r.number,
                "byes": list(r.byes),
                "tables": [
                    {
                        "table": t.number,
                        "players": list(t.players),
                        "scores": None
                        if (r.number, t.number) not in state.results
                        else [list(x) for x in state.results[(r.number, t.number)].scores],
                    }
                    for t in r.tables
                ],
            }
            for r in state.rounds
        ],
        "complete": state.complete,
        "amendments": [_amendment_out(a) for a in state.amendments],
    }


def event_router(store: Store, run: Run, body_of: BodyOf, admin: Any) -> APIRouter:
    """The event endpoints over ``store``: ``run(fn, *args)`` runs store calls off the event
    loop, ``body_of`` reads a bounded, strict body, ``admin`` is the admin-key dependency."""
    events = EventStore(store)
    router = APIRouter(tags=["events"])

    async def writer(event: EventName, x_api_key: KeyHeader = None) -> None:
        """A write key of the event's league (checked before the body is read)."""
        league = await run(events.league_of, event)
        await run(store.authorize, x_api_key, league)

    Writer = Depends(writer)

    @router.get("/api/events")
    async def list_events() -> dict[str, Any]:
        """The names of every event."""
        return {"events": await run(events.names)}

    @router.post(
        "/api/events", status_code=201, openapi_extra=_body_doc(EventIn), dependencies=[admin]
    )
    async def create_event(request: Request) -> dict[str, Any]:
        """Create an event (admin key); its league must exist."""
        body: EventIn = await body_of(request, EventIn)

        def make() -> EventState:
            from mindsport.event.deals import check_hands

            pool = check_hands(body.hands)
            spec = EventSpec(
                name=body.name,
                league=body.league,
                format=EventFormat(body.format),
                rounds=body.rounds,
                deals=body.deals,
                source=DealSource.POOL if pool else DealSource.RANDOM,
                scoring=Scoring(body.scoring),
                tie_breaks=tuple(TieBreak(t) for t in body.tie_breaks),
                seed=body.seed,
                pool=pool,
            )
            return events.create(spec)

        return _state_out(await run(make))

    @router.get("/api/events/{event}")
    async def get_event(event: EventName) -> dict[str, Any]:
        """Settings, players, rounds with their tables and results, amendments."""
        return _state_out(await run(events.get, event))

    @router.get("/api/events/{event}/standings")
    async def get_standings(
        event: EventName, after: Annotated[int | None, Query(ge=0, le=MAX_ROUNDS)] = None
    ) -> dict[str, Any]:
        """Standings after the complete rounds, or after round ``after`` (rank points, then
        the tie-breaks)."""
        state = await run(events.get, event)
        rows = await run(state.standings, after)
        return {
            "event": event,
            "after": state.complete if after is None else after,
            "standings": [dataclasses.asdict(s) for s in rows],
        }

    @router.get("/api/events/{event}/rounds/{round}/sheet")
    async def get_sheet(event: EventName, round: RoundNo) -> dict[str, Any]:
        """The deal sheet of a round: who holds which seat's cards on every board."""
        state = await run(events.get, event)
        return deal_sheet(state, round)

    @router.get("/events/{event}/rounds/{round}/sheet", response_class=HTMLResponse)
    async def get_sheet_html(event: EventName, round: RoundNo) -> HTMLResponse:
        """The printable deal sheet of a round (one page per table)."""
        state = await run(events.get, event)
        return HTMLResponse(deal_sheet_html(state, round))

    @router.get("/events/{event}", response_class=HTMLResponse)
    async def event_page(event: EventName) -> HTMLResponse:
        """The event page: rounds, tables, results in and missing, standings, paths."""
        return HTMLResponse(event_page_html(await run(events.get, event)))

    @router.post(
        "/api/events/{event}/players",
        status_code=201,
        openapi_extra=_body_doc(PlayersIn),
        dependencies=[Writer],
    )
    async def register(request: Request, event: EventName) -> dict[str, Any]:
        """Register players, all or none (late entries join from the next round)."""
        body: PlayersIn = await body_of(request, PlayersIn)
        added = await run(events.register, event, [(p.name, p.bot) for p in body.players])
        return {"registered": [p.name for p in added], "joined": added[0].joined}

    @router.post(
        "/api/events/{event}/withdrawals",
        openapi_extra=_body_doc(WithdrawIn),
        dependencies=[Writer],
    )
    async def withdraw(request: Request, event: EventName) -> dict[str, Any]:
        """Withdraw a player from the next round on."""
        body: WithdrawIn = await body_of(request, WithdrawIn)
        p = await run(events.withdraw, event, body.player)
        return {"player": p.name, "withdrawn": p.withdrawn}

    @router.post(
        "/api/events/{event}/rounds",
        status_code=201,
        openapi_extra=_body_doc(PairIn),
        dependencies=[Writer],
    )
    async def pair(request: Request, event: EventName) -> dict[str, Any]:
        """Pair the next round (Swiss tables of three, byes, deals); ``tables`` by hand."""
        body: PairIn = await body_of(request, PairIn)
        r = await run(events.pair, event, body.tables)
        return {
            "round": r.number,
            "tables": [{"table": t.number, "players": list(t.players)} for t in r.tables],
            "byes": list(r.byes),
        }

    @router.put(
        "/api/events/{event}/rounds/{round}/tables/{table}/result",
        status_code=201,
        openapi_extra=_body_doc(ScoresIn),
        dependencies=[Writer],
    )
    async def enter_result(
        request: Request, event: EventName, round: RoundNo, table: TableNo
    ) -> dict[str, Any]:
        """A table's whole result, once (409 when it has one: amend it instead)."""
        body: ScoresIn = await body_of(request, ScoresIn)
        res = await run(events.enter_result, event, round, table, body.scores, body.who)
        return {"round": res.round, "table": res.table, "scores": [list(x) for x in res.scores]}

    @router.post(
        "/api/events/{event}/rounds/{round}/results",
        status_code=201,
        openapi_extra=_body_doc(ResultsIn),
        dependencies=[Writer],
    )
    async def enter_results(request: Request, event: EventName, round: RoundNo) -> dict[str, Any]:
        """Whole results of many tables of a round, all or none (409 if one has a result)."""
        body: ResultsIn = await body_of(request, ResultsIn)
        entries = [(round, r.table, r.scores) for r in body.results]
        done = await run(events.enter_results, event, entries, body.who)
        return {"round": round, "tables": [r.table for r in done]}

    @router.post(
        "/api/events/{event}/rounds/{round}/tables/{table}/amendments",
        status_code=201,
        openapi_extra=_body_doc(AmendIn),
        dependencies=[Writer],
    )
    async def amend(
        request: Request, event: EventName, round: RoundNo, table: TableNo
    ) -> dict[str, Any]:
        """Correct a table's result; logged with who, when, why, the old and new scores."""
        body: AmendIn = await body_of(request, AmendIn)
        a = await run(events.amend, event, round, table, body.scores, body.who, body.why)
        return _amendment_out(a)

    @router.post("/api/events/{event}/finish", dependencies=[Writer])
    async def finish(event: EventName) -> dict[str, Any]:
        """Write the event into its league as matches (idempotent) and close it."""
        added = await run(events.finish, event)
        return {"event": event, "added": added}

    return router
