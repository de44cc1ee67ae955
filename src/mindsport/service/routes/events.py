"""Tournament events (:mod:`mindsport.event` over HTTP): ``/api/events/...`` and the pages
``/events/{event}`` and ``/events/{event}/rounds/{round}/sheet``.

Reads need no key. Creating an event needs an admin key; every other write needs a write key
of the event's league (or an admin key), checked before the body is read, as for matches.
Refusals map like the rest of the API: 400 bad input (a score not adding up, a round paired
before the previous one is complete, a player seated twice), 404 no such event, round, table or
player, 409 a result entered twice or a finished event.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import HTMLResponse

from mindsport.event.model import DealSource, EventFormat, EventSpec, Scoring, TieBreak
from mindsport.event.sheets import deal_sheet, deal_sheet_html, event_page_html
from mindsport.event.store import Amendment, EventState, EventStore, spec_to_json
from mindsport.service.dependencies import ADMIN_KEY, EVENT_WRITE_KEY, EventName, RuntimeDep
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
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import responses
from mindsport.service.runtime import Runtime

__all__ = ["router"]

router = APIRouter(route_class=ApiRoute, tags=["events"])

RoundNo = Annotated[int, Path(ge=1, le=MAX_ROUNDS)]
TableNo = Annotated[int, Path(ge=1, le=MAX_ROUND_TABLES)]


def _events(runtime: RuntimeDep) -> EventStore:
    return EventStore(runtime.store)


Events = Annotated[EventStore, Depends(_events)]


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


async def _state(runtime: Runtime, events: EventStore, event: str) -> EventState:
    return await runtime.run(events.get, event)


# -- reads -----------------------------------------------------------------------------------------
@router.get("/api/events")
async def list_events(runtime: RuntimeDep, events: Events) -> dict[str, Any]:
    """The names of every event."""
    return {"events": await runtime.run(events.names)}


@router.get("/api/events/{event}", responses=responses(404, 422))
async def get_event(event: EventName, runtime: RuntimeDep, events: Events) -> dict[str, Any]:
    """Settings, players, rounds with their tables and results, amendments."""
    return _state_out(await _state(runtime, events, event))


@router.get("/api/events/{event}/standings", responses=responses(400, 404, 422))
async def get_standings(
    event: EventName,
    runtime: RuntimeDep,
    events: Events,
    after: Annotated[int | None, Query(ge=0, le=MAX_ROUNDS)] = None,
) -> dict[str, Any]:
    """Standings after the complete rounds, or after round ``after`` (rank points, then
    the tie-breaks)."""
    state = await _state(runtime, events, event)
    rows = await runtime.run(state.standings, after)
    return {
        "event": event,
        "after": state.complete if after is None else after,
        "standings": [dataclasses.asdict(s) for s in rows],
    }


@router.get("/api/events/{event}/rounds/{round}/sheet", responses=responses(404, 422))
async def get_sheet(
    event: EventName, round: RoundNo, runtime: RuntimeDep, events: Events
) -> dict[str, Any]:
    """The deal sheet of a round: who holds which seat's cards on every board."""
    state = await _state(runtime, events, event)
    return deal_sheet(state, round)


@router.get("/events/{event}/rounds/{round}/sheet", response_class=HTMLResponse)
async def get_sheet_html(
    event: EventName, round: RoundNo, runtime: RuntimeDep, events: Events
) -> HTMLResponse:
    """The printable deal sheet of a round (one page per table)."""
    state = await _state(runtime, events, event)
    return HTMLResponse(deal_sheet_html(state, round))


@router.get("/events/{event}", response_class=HTMLResponse)
async def event_page(event: EventName, runtime: RuntimeDep, events: Events) -> HTMLResponse:
    """The event page: rounds, tables, results in and missing, standings, paths."""
    return HTMLResponse(event_page_html(await _state(runtime, events, event)))


# -- writes ----------------------------------------------------------------------------------------
@router.post(
    "/api/events",
    status_code=201,
    responses=responses(400, 401, 403, 404, 409, 413, 422),
    dependencies=[ADMIN_KEY],
)
async def create_event(body: EventIn, runtime: RuntimeDep, events: Events) -> dict[str, Any]:
    """Create an event (admin key); its league must exist."""

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

    return _state_out(await runtime.run(make))


_WRITE = responses(400, 401, 403, 404, 409, 413, 422)


@router.post(
    "/api/events/{event}/players",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def register(
    event: EventName, body: PlayersIn, runtime: RuntimeDep, events: Events
) -> dict[str, Any]:
    """Register players, all or none (late entries join from the next round)."""
    added = await runtime.run(events.register, event, [(p.name, p.bot) for p in body.players])
    return {"registered": [p.name for p in added], "joined": added[0].joined}


@router.post("/api/events/{event}/withdrawals", responses=_WRITE, dependencies=[EVENT_WRITE_KEY])
async def withdraw(
    event: EventName, body: WithdrawIn, runtime: RuntimeDep, events: Events
) -> dict[str, Any]:
    """Withdraw a player from the next round on."""
    p = await runtime.run(events.withdraw, event, body.player)
    return {"player": p.name, "withdrawn": p.withdrawn}


@router.post(
    "/api/events/{event}/rounds",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def pair(
    event: EventName, body: PairIn, runtime: RuntimeDep, events: Events
) -> dict[str, Any]:
    """Pair the next round (Swiss tables of three, byes, deals); ``tables`` by hand."""
    r = await runtime.run(events.pair, event, body.tables)
    return {
        "round": r.number,
        "tables": [{"table": t.number, "players": list(t.players)} for t in r.tables],
        "byes": list(r.byes),
    }


@router.put(
    "/api/events/{event}/rounds/{round}/tables/{table}/result",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def enter_result(
    event: EventName,
    round: RoundNo,
    table: TableNo,
    body: ScoresIn,
    runtime: RuntimeDep,
    events: Events,
) -> dict[str, Any]:
    """A table's whole result, once (409 when it has one: amend it instead)."""
    res = await runtime.run(events.enter_result, event, round, table, body.scores, body.who)
    return {"round": res.round, "table": res.table, "scores": [list(x) for x in res.scores]}


@router.post(
    "/api/events/{event}/rounds/{round}/results",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def enter_results(
    event: EventName, round: RoundNo, body: ResultsIn, runtime: RuntimeDep, events: Events
) -> dict[str, Any]:
    """Whole results of many tables of a round, all or none (409 if one has a result)."""
    entries = [(round, r.table, r.scores) for r in body.results]
    done = await runtime.run(events.enter_results, event, entries, body.who)
    return {"round": round, "tables": [r.table for r in done]}


@router.post(
    "/api/events/{event}/rounds/{round}/tables/{table}/amendments",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def amend(
    event: EventName,
    round: RoundNo,
    table: TableNo,
    body: AmendIn,
    runtime: RuntimeDep,
    events: Events,
) -> dict[str, Any]:
    """Correct a table's result; logged with who, when, why, the old and new scores."""
    a = await runtime.run(events.amend, event, round, table, body.scores, body.who, body.why)
    return _amendment_out(a)


@router.post(
    "/api/events/{event}/finish",
    responses=responses(400, 401, 403, 404, 409, 422),
    dependencies=[EVENT_WRITE_KEY],
)
async def finish(event: EventName, runtime: RuntimeDep, events: Events) -> dict[str, Any]:
    """Write the event into its league as matches (idempotent) and close it."""
    return {"event": event, "added": await runtime.run(events.finish, event)}
