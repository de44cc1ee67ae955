"""Request bodies of the event endpoints (strict: unknown fields refused, every list bounded,
see :mod:`mindsport.service.limits`).

Bots entered over HTTP are the built-in ones only (``random``, ``greedy``, ``strong``,
``tracking``, ``level:N``): a bot that runs a program is for the director's own command line.
"""

from __future__ import annotations

from typing import Annotated, Literal

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

__all__ = [
    "AmendIn",
    "EventIn",
    "PairIn",
    "PlayersIn",
    "ResultsIn",
    "ScoresIn",
    "WithdrawIn",
]

_STRICT = ConfigDict(extra="forbid")
#: a built-in bot spec
BOT_PATTERN = r"^(random|greedy|strong|tracking|level:(100|[1-9]?[0-9]))$"

Number = (
    Annotated[
        float,
        Strict(),
        Field(ge=-float(MAX_EVENT_NUMBER), le=float(MAX_EVENT_NUMBER), allow_inf_nan=False),
    ]
    | Annotated[int, Strict(), Field(ge=-MAX_EVENT_NUMBER, le=MAX_EVENT_NUMBER)]
)
Board = Annotated[list[Number], Field(min_length=3, max_length=3)]
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
    """Pair the next round; ``tables`` seats it by hand (the rest get byes)."""

    model_config = _STRICT
    tables: (
        Annotated[
            list[Annotated[list[Id], Field(min_length=3, max_length=3)]],
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
