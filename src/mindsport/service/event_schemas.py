"""Request and response bodies of the event endpoints (requests strict: unknown fields refused,
every list bounded, see :mod:`mindsport.service.limits`).

Bots entered over HTTP are the built-in ones only (Dou Dizhu: ``random``, ``greedy``,
``strong``, ``tracking``, ``level:N``; Luzhanqi: ``random``, ``greedy``, ``belief...``), each
checked against the event's game: a bot that runs a program is for the director's own command
line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict

from mindsport.event.model import EVENT_NAME
from mindsport.service.limits import (
    MAX_BOARDS,
    MAX_DEALS,
    MAX_EVENT_HANDS,
    MAX_EVENT_NUMBER,
    MAX_HAND_LENGTH,
    MAX_PLAYERS,
    MAX_ROUND_TABLES,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_TIE_BREAKS,
    MAX_WHO_LENGTH,
    MAX_WHY_LENGTH,
)
from mindsport.service.schemas import LEAGUE_PATTERN, Id

if TYPE_CHECKING:
    from mindsport.event.model import EventSpec, LogEntry, Round, Standing
    from mindsport.event.storage import Amendment, EventState

__all__ = [
    "AmendIn",
    "AmendmentOut",
    "DeletedOut",
    "EventIn",
    "EventOut",
    "EventsOut",
    "FinishOut",
    "LogEntryOut",
    "PairIn",
    "PairOut",
    "PlayersIn",
    "RegisteredOut",
    "ReinstateIn",
    "ResultOut",
    "ResultsIn",
    "ResultsOut",
    "ScoresIn",
    "SheetOut",
    "StandingsOut",
    "UndoIn",
    "WithdrawIn",
    "WithdrawnOut",
]

_STRICT = ConfigDict(extra="forbid")
#: an answer read from the attributes of the event store's value of the same fields
_FROM_ATTRIBUTES = ConfigDict(from_attributes=True)
#: a built-in bot spec
BOT_PATTERN = (
    r"^(random|greedy|strong|tracking|level:(100|[1-9]?[0-9])"
    r"|belief|belief-patent|belief-rowonly|belief-nolook)$"
)

Number = (
    Annotated[
        float,
        Strict(),
        Field(ge=-float(MAX_EVENT_NUMBER), le=float(MAX_EVENT_NUMBER), allow_inf_nan=False),
    ]
    | Annotated[int, Strict(), Field(ge=-MAX_EVENT_NUMBER, le=MAX_EVENT_NUMBER)]
)
#: one board's scores, one per seat (three in Dou Dizhu, two in Luzhanqi; in mahjong the four
#: final points the scores are computed from)
Board = Annotated[list[Number], Field(min_length=2, max_length=4)]
Text = Annotated[
    str, Strict(), Field(min_length=1, max_length=MAX_WHO_LENGTH, pattern=r"^[^\x00-\x1f\x7f]+$")
]
Hand = Annotated[
    str,
    Strict(),
    Field(
        min_length=1,
        max_length=MAX_HAND_LENGTH,
        pattern=r"^\[[^\]]*\]\[[^\]]*\]\[[^\]]*\]$",
    ),
]


class EventIn(BaseModel):
    """A new event (admin key). ``hands``: a pool of hands in the notation
    ``[landlord][farmer1][farmer2]`` (an equal-strength format needs one); without it deals
    are dealt at random from ``seed``."""

    model_config = _STRICT
    name: Annotated[str, Strict(), Field(pattern=EVENT_NAME)]
    league: Annotated[str, Strict(), Field(pattern=LEAGUE_PATTERN)]
    format: Literal["duplicate", "equal-strength", "random"] = "duplicate"
    rounds: Annotated[int, Strict(), Field(ge=1, le=MAX_ROUNDS)] = 6
    deals: Annotated[int, Strict(), Field(ge=1, le=MAX_DEALS)] = 1
    scoring: Literal["field", "table"] = "field"
    game: Literal["doudizhu", "junqi", "mahjong", "mahjong-east"] = Field(
        "doudizhu",
        description="the game: doudizhu (tables of three), junqi (tables of two), mahjong "
        "(riichi, tables of four, east-south) or mahjong-east (east-only)",
    )
    rule: Literal["linear", "ccpc2016", "classic", "win", "wrc"] | None = Field(
        None,
        description="the game's scoring rule (Dou Dizhu: linear, ccpc2016, classic; Luzhanqi: "
        "win; mahjong: wrc, each seat's final points entered and scored by placement points "
        "and WRC uma; default the game's first): results are checked by it, bots play under it",
    )
    time_limit: Annotated[
        float,
        Field(
            ge=0.001,
            le=600.0,
            allow_inf_nan=False,
            description="seconds a bot entrant that runs a program may think per move",
        ),
    ] = 10.0
    late_points: Literal["zero", "mean"] = Field(
        "zero",
        description="rank points a late entrant starts with: zero, or each missed round's mean",
    )
    tie_breaks: Annotated[list[Literal["score", "opponents"]], Field(max_length=MAX_TIE_BREAKS)] = [
        "score",
        "opponents",
    ]
    seed: Annotated[int, Strict(), Field(ge=0, le=MAX_SEED)] = 0
    hands: Annotated[list[Hand], Field(max_length=MAX_EVENT_HANDS)] = []


class PlayerEntry(BaseModel):
    model_config = _STRICT
    name: Id
    bot: Annotated[str, Strict(), Field(pattern=BOT_PATTERN)] | None = None


class PlayersIn(BaseModel):
    """Players to register, all or none."""

    model_config = _STRICT
    players: Annotated[list[PlayerEntry], Field(min_length=1, max_length=MAX_PLAYERS)]


class WithdrawIn(BaseModel):
    model_config = _STRICT
    player: Id


class PairIn(BaseModel):
    """Pair the next round; ``tables`` seats tables by hand, the players left over paired
    among themselves (``rest`` ``pair``) or all on byes (``byes``)."""

    model_config = _STRICT
    rest: Literal["pair", "byes"] = "pair"
    tables: (
        Annotated[
            list[Annotated[list[Id], Field(min_length=2, max_length=4)]],
            Field(max_length=MAX_ROUND_TABLES),
        ]
        | None
    ) = None


class ScoresIn(BaseModel):
    """A table's whole result: ``scores[board]`` = [landlord, farmer 1, farmer 2]."""

    model_config = _STRICT
    scores: Annotated[list[Board], Field(min_length=1, max_length=MAX_BOARDS)]
    who: Text = "director"


class TableScores(BaseModel):
    model_config = _STRICT
    table: Annotated[int, Strict(), Field(ge=1, le=MAX_ROUND_TABLES)]
    scores: Annotated[list[Board], Field(min_length=1, max_length=MAX_BOARDS)]


class ResultsIn(BaseModel):
    """Whole results of many tables of one round, all or none."""

    model_config = _STRICT
    results: Annotated[list[TableScores], Field(min_length=1, max_length=MAX_ROUND_TABLES)]
    who: Text = "director"


class AmendIn(BaseModel):
    """A corrected result, with who corrects it and why (both logged)."""

    model_config = _STRICT
    scores: Annotated[list[Board], Field(min_length=1, max_length=MAX_BOARDS)]
    who: Text
    why: Annotated[
        str,
        Strict(),
        Field(min_length=1, max_length=MAX_WHY_LENGTH, pattern=r"^[^\x00-\x1f\x7f]+$"),
    ]


# -- answers ------------------------------------------------------------------------------------
Scores = list[list[float]]


class EventsOut(BaseModel):
    events: list[str]


class EventSettingsOut(BaseModel):
    """An event's settings (its pool of hands is counted in ``pool``, not listed)."""

    format: str
    rounds: int
    deals: int
    source: str
    scoring: str
    tie_breaks: list[str]
    seed: int
    game: str
    rule: str
    time_limit: float
    late_points: str


class EventPlayerOut(BaseModel):
    """A registered player: ``joined`` the first round the player may be seated in,
    ``withdrawn`` the first round the player is no longer seated in."""

    model_config = _FROM_ATTRIBUTES

    name: str
    number: int
    bot: str | None
    joined: int
    withdrawn: int | None


class TableStateOut(BaseModel):
    table: int
    players: list[str]
    scores: Scores | None = Field(description="the table's result, null until it is entered")


class RoundStateOut(BaseModel):
    round: int
    byes: list[str]
    tables: list[TableStateOut]


class AmendmentOut(BaseModel):
    round: int
    table: int
    old: Scores
    new: Scores
    who: str
    why: str
    at: str = Field(description="when, an ISO 8601 datetime")

    @classmethod
    def of(cls, a: Amendment) -> AmendmentOut:
        return cls(
            round=a.round,
            table=a.table,
            old=[list(x) for x in a.old],
            new=[list(x) for x in a.new],
            who=a.who,
            why=a.why,
            at=a.at.isoformat(),
        )


class ForfeitOut(BaseModel):
    """A bot entrant's forfeit of a board (``reason``: timeout, crash or illegal)."""

    model_config = _FROM_ATTRIBUTES

    round: int
    table: int
    board: int
    player: str
    reason: str
    detail: str


class LogEntryOut(BaseModel):
    """An undo or correction (``action``: unpair, reinstate, league), who, when, why."""

    round: int | None
    player: str | None
    action: str
    detail: str
    who: str
    why: str
    at: str = Field(description="when, an ISO 8601 datetime")

    @classmethod
    def of(cls, e: LogEntry) -> LogEntryOut:
        return cls(
            round=e.round,
            player=e.player,
            action=e.action,
            detail=e.detail,
            who=e.who,
            why=e.why,
            at=e.at.isoformat(),
        )


class UndoIn(BaseModel):
    """Who undoes and why (both logged)."""

    model_config = _STRICT
    who: Text = "director"
    why: Annotated[
        str,
        Strict(),
        Field(min_length=1, max_length=MAX_WHY_LENGTH, pattern=r"^[^\x00-\x1f\x7f]+$"),
    ]


class ReinstateIn(UndoIn):
    player: Id


class DeletedOut(BaseModel):
    event: str
    players: int
    rounds: int
    results: int = Field(description="table results deleted with the event")


class EventOut(BaseModel):
    """Everything recorded about an event: settings, players, rounds with their tables and
    results, the number of complete rounds, amendments."""

    name: str
    league: str
    status: str
    settings: EventSettingsOut
    pool: int
    players: list[EventPlayerOut]
    rounds: list[RoundStateOut]
    complete: int
    amendments: list[AmendmentOut]
    forfeits: list[ForfeitOut]
    log: list[LogEntryOut] = Field(description="undos and corrections, oldest first")

    @classmethod
    def of(cls, state: EventState) -> EventOut:
        from mindsport.event.storage import spec_to_json

        def table(number: int, t: Any) -> TableStateOut:
            result = state.results.get((number, t.number))
            return TableStateOut(
                table=t.number,
                players=list(t.players),
                scores=None if result is None else [list(x) for x in result.scores],
            )

        return cls(
            name=state.spec.name,
            league=state.spec.league,
            status=str(state.status),
            settings=EventSettingsOut.model_validate(spec_to_json(state.spec)),
            pool=len(state.spec.pool),
            players=[EventPlayerOut.model_validate(p) for p in state.players],
            rounds=[
                RoundStateOut(
                    round=r.number, byes=list(r.byes), tables=[table(r.number, t) for t in r.tables]
                )
                for r in state.rounds
            ],
            complete=state.complete,
            amendments=[AmendmentOut.of(a) for a in state.amendments],
            forfeits=[ForfeitOut.model_validate(f) for f in state.forfeits],
            log=[LogEntryOut.of(e) for e in state.log],
        )


class StandingOut(BaseModel):
    """A player's line of the standings: place, rank points, then the tie-breaks."""

    place: int
    player: str
    rank_points: int
    score: float
    opponents: int
    rounds: int
    byes: int
    withdrawn: bool


class StandingsOut(BaseModel):
    """The standings, best first, with a legend of every column and the tie-break order (as
    CSV: ``?format=csv`` or ``Accept: text/csv``, the columns of the rows, one line each)."""

    event: str
    after: int = Field(description="the standings after this many rounds")
    tie_breaks: list[str] = Field(description="the tie-breaks after rank points, in order")
    legend: dict[str, str] = Field(description="what every column means, and the order")
    standings: list[StandingOut]

    @classmethod
    def of(cls, spec: EventSpec, after: int, rows: list[Standing]) -> StandingsOut:
        from mindsport.event.exports import standings_json

        return cls.model_validate(standings_json(spec, after, rows))


class SeatOut(BaseModel):
    seat: str
    player: str
    cards: str


class BoardOut(BaseModel):
    board: int
    deal: int
    rotation: int
    hand: str
    seats: list[SeatOut]


class SheetTableOut(BaseModel):
    table: int
    players: list[str]
    boards: list[BoardOut]


class SheetOut(BaseModel):
    """The deal sheet of a round: who holds which seat's cards on every board."""

    event: str
    round: int
    format: str
    game: str
    tables: list[SheetTableOut]
    byes: list[str]


class RegisteredOut(BaseModel):
    registered: list[str]
    joined: int = Field(description="the first round the new players may be seated in")


class WithdrawnOut(BaseModel):
    player: str
    withdrawn: int | None = Field(description="the first round the player is not seated in")


class SeatingOut(BaseModel):
    table: int
    players: list[str]


class PairOut(BaseModel):
    round: int
    tables: list[SeatingOut]
    byes: list[str]

    @classmethod
    def of(cls, r: Round) -> PairOut:
        tables = [SeatingOut(table=t.number, players=list(t.players)) for t in r.tables]
        return cls(round=r.number, tables=tables, byes=list(r.byes))


class ResultOut(BaseModel):
    round: int
    table: int
    scores: Scores


class ResultsOut(BaseModel):
    round: int
    tables: list[int]


class FinishOut(BaseModel):
    event: str
    added: int = Field(description="matches written into the league by this call")
