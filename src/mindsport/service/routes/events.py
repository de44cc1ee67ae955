"""Tournament events (:mod:`mindsport.event` over HTTP): ``/api/events/...`` and the pages
``/events/{event}`` and ``/events/{event}/rounds/{round}/sheet``.

Reads need no key. Creating an event needs an admin key; every other write needs a write key
of the event's league (or an admin key), checked before the body is read, as for matches.
Refusals map like the rest of the API: 400 bad input (a score not adding up, a round paired
before the previous one is complete, a player seated twice), 404 no such event, round, table or
player, 409 a result entered twice or a finished event.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse, Response

from mindsport.event.model import (
    DealSource,
    EventError,
    EventFormat,
    EventSpec,
    LatePoints,
    Scoring,
    TieBreak,
)
from mindsport.event.sheets import deal_sheet, deal_sheet_html, event_page_html
from mindsport.event.storage import EventState, EventStore
from mindsport.event.undo import delete as undo_delete
from mindsport.event.undo import reinstate as undo_reinstate
from mindsport.event.undo import unpair as undo_unpair
from mindsport.service.dependencies import ADMIN_KEY, EVENT_WRITE_KEY, EventName, RuntimeDep
from mindsport.service.event_schemas import (
    AmendIn,
    AmendmentOut,
    DeletedOut,
    EventIn,
    EventOut,
    EventsOut,
    FinishOut,
    LogEntryOut,
    PairIn,
    PairOut,
    PlayersIn,
    RegisteredOut,
    ReinstateIn,
    ResultOut,
    ResultsIn,
    ResultsOut,
    ScoresIn,
    SheetOut,
    StandingsOut,
    UndoIn,
    WithdrawIn,
    WithdrawnOut,
)
from mindsport.service.limits import MAX_ROUND_TABLES, MAX_ROUNDS
from mindsport.service.middleware import ApiRoute
from mindsport.service.refusals import page_responses, responses
from mindsport.service.runtime import Runtime

__all__ = ["router"]

router = APIRouter(route_class=ApiRoute, tags=["events"])

RoundNo = Annotated[int, Path(ge=1, le=MAX_ROUNDS)]
TableNo = Annotated[int, Path(ge=1, le=MAX_ROUND_TABLES)]


def _events(runtime: RuntimeDep) -> EventStore:
    return EventStore(runtime.store)


Events = Annotated[EventStore, Depends(_events)]


async def _state(runtime: Runtime, events: EventStore, event: str) -> EventState:
    return await runtime.run(events.get, event)


# -- reads -----------------------------------------------------------------------------------------
@router.get("/api/events")
async def list_events(runtime: RuntimeDep, events: Events) -> EventsOut:
    """The names of every event."""
    return EventsOut(events=await runtime.run(events.names))


@router.get("/api/events/{event}", responses=responses(404, 422))
async def get_event(event: EventName, runtime: RuntimeDep, events: Events) -> EventOut:
    """Settings, players, rounds with their tables and results, amendments."""
    return EventOut.of(await _state(runtime, events, event))


_CSV: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The standings: JSON, or CSV (?format=csv or Accept: text/csv)",
        "content": {"text/csv": {"schema": {"type": "string"}}},
    }
}


@router.get(
    "/api/events/{event}/standings",
    response_model=StandingsOut,
    responses={**_CSV, **responses(400, 404, 422)},
)
async def get_standings(
    event: EventName,
    request: Request,
    runtime: RuntimeDep,
    events: Events,
    after: Annotated[int | None, Query(ge=0, le=MAX_ROUNDS)] = None,
    format: Annotated[Literal["json", "csv"] | None, Query()] = None,
) -> Any:
    """Standings after the complete rounds, or after round ``after`` (rank points, then the
    tie-breaks), with a legend of every column; as CSV with ``format=csv`` or an ``Accept``
    header that prefers ``text/csv``."""
    from mindsport.event.exports import standings_csv

    state = await _state(runtime, events, event)
    rows = await runtime.run(state.standings, after)
    if format == "csv" or (format is None and _wants_csv(request.headers.get("accept", ""))):
        return Response(
            standings_csv(rows),
            media_type="text/csv",
            headers={"Content-Disposition": f'inline; filename="{event}-standings.csv"'},
        )
    return StandingsOut.of(state.spec, state.complete if after is None else after, rows)


def _wants_csv(accept: str) -> bool:
    """Whether an ``Accept`` header prefers CSV to JSON (the first of them it names, ``q``
    weights aside)."""
    for part in accept.split(","):
        media = part.split(";")[0].strip().lower()
        if media == "text/csv":
            return True
        if media in ("application/json", "*/*", "application/*"):
            return False
    return False


@router.get("/api/events/{event}/rounds/{round}/sheet", responses=responses(404, 422))
async def get_sheet(
    event: EventName, round: RoundNo, runtime: RuntimeDep, events: Events
) -> SheetOut:
    """The deal sheet of a round: who holds which seat's cards on every board."""
    state = await _state(runtime, events, event)
    return SheetOut.model_validate(deal_sheet(state, round))


@router.get(
    "/events/{event}/rounds/{round}/sheet",
    response_class=HTMLResponse,
    responses=page_responses(404, 422),
)
async def get_sheet_html(
    event: EventName, round: RoundNo, runtime: RuntimeDep, events: Events
) -> HTMLResponse:
    """The printable deal sheet of a round (one page per table)."""
    state = await _state(runtime, events, event)
    return HTMLResponse(deal_sheet_html(state, round))


@router.get("/events/{event}", response_class=HTMLResponse, responses=page_responses(404, 422))
async def event_page(event: EventName, runtime: RuntimeDep, events: Events) -> HTMLResponse:
    """The event page: rounds, tables, results in and missing, standings, paths."""
    return HTMLResponse(event_page_html(await _state(runtime, events, event)))


# -- writes ----------------------------------------------------------------------------------------
@router.post(
    "/api/events",
    status_code=201,
    responses=responses(400, 401, 403, 404, 408, 409, 413, 415, 422),
    dependencies=[ADMIN_KEY],
)
async def create_event(body: EventIn, runtime: RuntimeDep, events: Events) -> EventOut:
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
            game=body.game,
            rule=body.rule or "",
            time_limit=body.time_limit,
            late_points=LatePoints(body.late_points),
        )
        return events.create(spec)

    return EventOut.of(await runtime.run(make))


_WRITE = responses(400, 401, 403, 404, 408, 409, 413, 415, 422)


@router.post(
    "/api/events/{event}/players",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def register(
    event: EventName, body: PlayersIn, runtime: RuntimeDep, events: Events
) -> RegisteredOut:
    """Register players, all or none (late entries join from the next round)."""
    added = await runtime.run(events.register, event, [(p.name, p.bot) for p in body.players])
    return RegisteredOut(registered=[p.name for p in added], joined=added[0].joined)


@router.post("/api/events/{event}/withdrawals", responses=_WRITE, dependencies=[EVENT_WRITE_KEY])
async def withdraw(
    event: EventName, body: WithdrawIn, runtime: RuntimeDep, events: Events
) -> WithdrawnOut:
    """Withdraw a player from the next round on."""
    p = await runtime.run(events.withdraw, event, body.player)
    return WithdrawnOut(player=p.name, withdrawn=p.withdrawn)


@router.post(
    "/api/events/{event}/rounds",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def pair(event: EventName, body: PairIn, runtime: RuntimeDep, events: Events) -> PairOut:
    """Pair the next round (Swiss tables of three, byes, deals); ``tables`` by hand."""
    return PairOut.of(await runtime.run(events.pair, event, body.tables, body.rest))


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
) -> ResultOut:
    """A table's whole result, once (409 when it has one: amend it instead)."""
    res = await runtime.run(events.enter_result, event, round, table, body.scores, body.who)
    return ResultOut(round=res.round, table=res.table, scores=[list(x) for x in res.scores])


@router.post(
    "/api/events/{event}/rounds/{round}/results",
    status_code=201,
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def enter_results(
    event: EventName, round: RoundNo, body: ResultsIn, runtime: RuntimeDep, events: Events
) -> ResultsOut:
    """Whole results of many tables of a round, all or none (409 if one has a result)."""
    entries = [(round, r.table, r.scores) for r in body.results]
    done = await runtime.run(events.enter_results, event, entries, body.who)
    return ResultsOut(round=round, tables=[r.table for r in done])


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
) -> AmendmentOut:
    """Correct a table's result; logged with who, when, why, the old and new scores."""
    a = await runtime.run(events.amend, event, round, table, body.scores, body.who, body.why)
    return AmendmentOut.of(a)


@router.post(
    "/api/events/{event}/finish",
    responses=responses(400, 401, 403, 404, 409, 422),
    dependencies=[EVENT_WRITE_KEY],
)
async def finish(event: EventName, runtime: RuntimeDep, events: Events) -> FinishOut:
    """Write the event into its league as matches (idempotent) and close it."""
    return FinishOut(event=event, added=await runtime.run(events.finish, event))


@router.post(
    "/api/events/{event}/rounds/{round}/unpairing",
    responses=_WRITE,
    dependencies=[EVENT_WRITE_KEY],
)
async def unpair(
    event: EventName, round: RoundNo, body: UndoIn, runtime: RuntimeDep, events: Events
) -> LogEntryOut:
    """Undo the pairing of ``round``, the latest, while it has no result (logged)."""

    def undo() -> LogEntryOut:
        state = events.get(event)
        if round != len(state.rounds):
            raise EventError(
                f"round {round} is not the latest round of event {event!r} "
                f"({len(state.rounds)} paired); only the latest is unpaired"
            )
        return LogEntryOut.of(undo_unpair(events, event, body.who, body.why))

    return await runtime.run(undo)


@router.post("/api/events/{event}/reinstatements", responses=_WRITE, dependencies=[EVENT_WRITE_KEY])
async def reinstate(
    event: EventName, body: ReinstateIn, runtime: RuntimeDep, events: Events
) -> LogEntryOut:
    """Take back a withdrawal: the player plays again from the next round (logged)."""
    entry = await runtime.run(undo_reinstate, events, event, body.player, body.who, body.why)
    return LogEntryOut.of(entry)


@router.delete(
    "/api/events/{event}",
    responses=responses(401, 403, 404, 408, 409, 422),
    dependencies=[EVENT_WRITE_KEY],
)
async def delete_event(event: EventName, runtime: RuntimeDep, events: Events) -> DeletedOut:
    """Delete an event that has not finished, with everything it holds (409 when finished)."""
    state = await runtime.run(undo_delete, events, event)
    return DeletedOut(
        event=event,
        players=len(state.players),
        rounds=len(state.rounds),
        results=len(state.results),
    )
