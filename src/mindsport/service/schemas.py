"""Request and response bodies of the HTTP API (pydantic models; they make the OpenAPI schema).

Requests are strict: ranks are integers (not strings, not booleans), numbers are finite and
within their ranges, lists and strings have maximum lengths (:mod:`mindsport.service.limits`),
ids follow :func:`mindsport.match.id_problem` (the schema's :data:`ID_PATTERN` states the same
rule), and unknown fields are refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict

from mindsport.match import ID_NOT_VISIBLE, ID_REFUSED, Match, text_problem
from mindsport.rating.registry import MODELS
from mindsport.store.values import MAX_LATE_AGE, LatePolicy, RoleAdvantage

if TYPE_CHECKING:
    from mindsport.store import LeaderboardPage, League, PlayerRecord
    from mindsport.store.keys import ApiKey
from mindsport.service.limits import (
    MAX_BATCH,
    MAX_EXPIRES_LENGTH,
    MAX_ID_LENGTH,
    MAX_LABEL,
    MAX_LABEL_LENGTH,
    MAX_LIMIT,
    MAX_LUCK,
    MAX_NAME_LENGTH,
    MAX_OFFSET,
    MAX_PARAM_ROWS,
    MAX_PARAM_VALUE,
    MAX_PARAMS,
    MAX_POOL,
    MAX_RANK,
    MAX_SCORE,
    MAX_SEARCH_LENGTH,
    MAX_SHAPE_LENGTH,
    MAX_TEAM_SIZE,
    MAX_TEAMS,
    MAX_TIME,
    MIN_TIME,
)

__all__ = [
    "ID_PATTERN",
    "LEAGUE_PATTERN",
    "DisplayOut",
    "ErrorOut",
    "KeyIn",
    "KeyOut",
    "KeysOut",
    "LateArrival",
    "LateOut",
    "LateRefuse",
    "LateReplay",
    "LeaderboardOut",
    "LeagueIn",
    "LeagueOut",
    "LeaguePatch",
    "LeaguesOut",
    "MatchBatch",
    "MatchIn",
    "MatchPost",
    "MatchesOut",
    "MatchmakeIn",
    "MatchmakeOut",
    "NewKeyOut",
    "PlayerOut",
    "PredictIn",
    "PredictOut",
    "RoleOut",
]

#: an id (:func:`mindsport.match.id_problem`, the same rule): no control character (C0, C1) and
#: no bidirectional control anywhere, and at least one visible character (not whitespace, not a
#: format character such as a zero-width one, not a combining mark: ``match.INVISIBLE``)
ID_PATTERN = f"^[^{ID_REFUSED}]*[^{ID_NOT_VISIBLE}][^{ID_REFUSED}]*$"
#: a search text: no control character (C0, C1)
SEARCH_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*$"
#: a model setting's name
PARAM_NAME_PATTERN = r"^[a-z_][a-z0-9_]*$"
#: a league name: letters, digits, '_', '.', '-', starting with a letter or digit
LEAGUE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"
#: a table shape: "AvB..." team sizes or "ffaN"
SHAPE_PATTERN = r"^(ffa[0-9]{1,2}|[0-9]{1,2}(v[0-9]{1,2}){1,15})$"


def _printable_text(value: str) -> str:
    why = text_problem(value)
    if why is not None:
        raise ValueError(f"text {why}")
    return value


def _iso_time(value: Any) -> Any:
    """A string time is an ISO 8601 date or datetime (numbers in strings are not times)."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                "expected an ISO 8601 datetime such as 2024-01-01T00:00:00Z, or a number"
            ) from None
    return value


# the pattern is the whole rule of id_problem but for lone surrogates, which never pass a str
# field (pydantic refuses them); ids are normalised to NFC where they are used (Match, the store)
Id = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)]
Team = Annotated[list[Id], Field(min_length=1, max_length=MAX_TEAM_SIZE)]
Teams = Annotated[list[Team], Field(min_length=2, max_length=MAX_TEAMS)]
Rank = Annotated[int, Strict(), Field(ge=0, le=MAX_RANK)]
Label = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_LABEL, pattern=ID_PATTERN)]
#: one role per player, in the shape of the teams (a league whose model rates roles)
Roles = Annotated[
    list[Annotated[list[Label], Field(min_length=1, max_length=MAX_TEAM_SIZE)]],
    Field(
        min_length=2,
        max_length=MAX_TEAMS,
        description="one role (seat) per player, in the shape of the teams; only for a league "
        "whose model rates roles (cardplay), else 400",
    ),
]
Score = Annotated[float, Strict(), Field(ge=-MAX_SCORE, le=MAX_SCORE, allow_inf_nan=False)]
Luck = Annotated[float, Strict(), Field(ge=-MAX_LUCK, le=MAX_LUCK, allow_inf_nan=False)]
Weight = Annotated[float, Strict(), Field(ge=0.0, le=1.0)]
Time = Annotated[
    Annotated[datetime, Strict()]
    | Annotated[float, Strict(), Field(ge=MIN_TIME, lt=MAX_TIME, allow_inf_nan=False)],
    BeforeValidator(_iso_time),
    Field(
        description=(
            "An ISO 8601 datetime (a naive one is UTC), between 1800-01-01 and 2200-01-01, "
            f"or a number in [{MIN_TIME}, {MAX_TIME}) on the same axis (POSIX seconds): "
            '"2024-01-01T00:00:00", "2024-01-01T00:00:00Z" and 1704067200 are one instant.'
        )
    ),
]
ParamName = Annotated[
    str, Field(min_length=1, max_length=MAX_NAME_LENGTH, pattern=PARAM_NAME_PATTERN)
]
_ParamNumber = Annotated[float, Strict(), Field(ge=-MAX_PARAM_VALUE, le=MAX_PARAM_VALUE)]
ParamValue = Annotated[
    Annotated[bool, Strict()]
    | _ParamNumber
    | Annotated[str, Strict(), Field(min_length=1, max_length=MAX_NAME_LENGTH, pattern=ID_PATTERN)]
    | Annotated[
        list[Annotated[list[_ParamNumber], Field(min_length=1, max_length=MAX_PARAM_ROWS)]],
        Field(min_length=1, max_length=MAX_PARAM_ROWS),
    ],
    Field(
        description="A boolean, a number (finite, at most 1e6 in magnitude), a short name, or "
        f"a table: at most {MAX_PARAM_ROWS} rows of at most {MAX_PARAM_ROWS} such numbers "
        "(Tenhou's placement bonuses). The model checks the value's kind and range (400)."
    ),
]
#: the schema of the names of a settings object: the whole rule of ParamName (pydantic states
#: the pattern of dict keys only as patternProperties, which leaves other names allowed)
_PARAM_NAMES = {
    "propertyNames": {"minLength": 1, "maxLength": MAX_NAME_LENGTH, "pattern": PARAM_NAME_PATTERN}
}
Params = Annotated[
    dict[
        ParamName,
        ParamValue,
    ],
    Field(max_length=MAX_PARAMS, json_schema_extra=_PARAM_NAMES),
]


def _registered_model(name: str) -> str:
    if name not in MODELS:
        raise ValueError(f"unknown model {name[:40]!r}; use one of {', '.join(sorted(MODELS))}")
    return name


#: the name of a registered model (:data:`mindsport.rating.registry.MODELS`): the schema lists them
ModelName = Annotated[
    str,
    Strict(),
    AfterValidator(_registered_model),
    Field(
        json_schema_extra={"enum": sorted(MODELS)},
        description="A registered model (mindsport.rating.registry.MODELS)",
    ),
]
Search = Annotated[
    str,
    Field(
        max_length=MAX_SEARCH_LENGTH,
        pattern=SEARCH_PATTERN,
        description=(
            "Keeps the players whose id contains this text, case-insensitively: Unicode case "
            "folding of the NFC forms (mindsport.match.search_key), alike on every database."
        ),
    ),
    AfterValidator(_printable_text),
]
Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET)]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]

_STRICT = ConfigDict(extra="forbid")
#: an answer read from the attributes of the store's value of the same fields
_FROM_ATTRIBUTES = ConfigDict(from_attributes=True)


class MatchIn(BaseModel):
    """A match as posted (see :class:`mindsport.match.Match`): ``ranks`` (lower is better, equal
    is a tie, null is unranked) or ``scores`` (higher is better) or both (then they must agree),
    ``weights`` (partial play in [0, 1], one per player) optional. Games of chance may add
    ``roles`` (one role per player, as ``teams``), ``deal`` (the id of the cards dealt) and
    ``luck`` (the deal's expected result, one number per team)."""

    model_config = _STRICT

    id: Id
    time: Time
    teams: Teams
    ranks: Annotated[list[Rank | None], Field(min_length=2, max_length=MAX_TEAMS)] | None = None
    weights: (
        Annotated[
            list[Annotated[list[Weight], Field(min_length=1, max_length=MAX_TEAM_SIZE)]],
            Field(min_length=2, max_length=MAX_TEAMS),
        ]
        | None
    ) = None
    scores: Annotated[list[Score], Field(min_length=2, max_length=MAX_TEAMS)] | None = None
    roles: (
        Annotated[
            list[Annotated[list[Label], Field(min_length=1, max_length=MAX_TEAM_SIZE)]],
            Field(min_length=2, max_length=MAX_TEAMS),
        ]
        | None
    ) = None
    deal: Label | None = None
    luck: Annotated[list[Luck], Field(min_length=2, max_length=MAX_TEAMS)] | None = None

    def to_match(self) -> Match:
        return Match(
            self.id,
            self.time,
            self.teams,
            self.ranks,
            self.weights,
            self.scores,
            roles=self.roles,
            deal=self.deal,
            luck=self.luck,
        )


class MatchBatch(BaseModel):
    """Several matches: ``{"matches": [...]}`` (a plain list of matches is accepted too)."""

    model_config = _STRICT

    matches: Annotated[list[MatchIn], Field(max_length=MAX_BATCH)]


#: the body of a post of matches: one match, a list of them, or ``{"matches": [...]}``
MatchPost = MatchIn | Annotated[list[MatchIn], Field(max_length=MAX_BATCH)] | MatchBatch


class MatchesOut(BaseModel):
    """What a post did: new matches stored, identical re-posts ignored, stored matches re-rated
    because the new ones came earlier in time, and whether the re-rating was left to the
    background."""

    model_config = _FROM_ATTRIBUTES

    added: int
    duplicates: int
    replayed: int
    updating: bool = Field(
        description="the league's re-rating after this post runs in the background (a late "
        "result whose re-rating is longer than one request may take, or any post while one "
        "runs): the matches are recorded and will be rated; the league shows updating until then"
    )


class PredictIn(BaseModel):
    model_config = _STRICT

    teams: Teams
    roles: Roles | None = None
    allow_new: Annotated[bool, Strict()] = False


class PredictOut(BaseModel):
    model_config = _FROM_ATTRIBUTES

    teams: list[list[str]]
    win_probability: float | None = Field(description="P(first team ahead), two teams only")
    pairwise: list[list[float | None]] = Field(description="P(team i ahead of team j)")
    rank_probabilities: list[list[float]] | None = Field(
        description="P(team i finishes in place k)"
    )
    quality: float | None
    new_players: list[str]
    roles: list[list[str]] | None = Field(description="the roles predicted with, if any")


class MatchmakeIn(BaseModel):
    model_config = _STRICT

    players: Annotated[list[Id], Field(max_length=MAX_POOL)]
    shape: Annotated[str, Strict(), Field(max_length=MAX_SHAPE_LENGTH, pattern=SHAPE_PATTERN)] = (
        "1v1"
    )
    roles: (
        Annotated[
            Roles,
            Field(
                description="the roles of the shape's seats, one list per team (a league whose "
                "model rates roles, else 400); each table takes the best assignment of these "
                "role sets to its teams"
            ),
        ]
        | None
    ) = None
    allow_new: Annotated[bool, Strict()] = False


class TableOut(BaseModel):
    model_config = _FROM_ATTRIBUTES

    teams: list[list[str]]
    quality: float
    roles: list[list[str]] | None = Field(
        description="each team's roles, when seated with roles (in the order of teams)"
    )


class MatchmakeOut(BaseModel):
    shape: str
    tables: list[TableOut]
    waiting: list[str]
    worst_quality: float | None
    exact: bool = Field(description="whether the seating is provably the best one")


class LeaderboardItem(BaseModel):
    model_config = _FROM_ATTRIBUTES

    rank: int
    player: str
    mu: float
    sigma: float
    exposed: float = Field(description="the conservative rating the board is sorted by")
    games: int
    level: str | None = Field(
        default=None,
        description="on a ladder (model tenhou-dan): the name of the player's level, the whole "
        "part of exposed (exposed = level + points / the level's target); otherwise null",
    )


class DisplayOut(BaseModel):
    """How the league's model shows a rating: the labels of the ``mu``, ``sigma`` and
    ``exposed`` columns (``sigma`` is null for a model without a deviation, such as Elo)."""

    mu: str
    sigma: str | None
    exposed: str


class RoleOut(BaseModel):
    """A role's (seat's) learned advantage: skill points it adds to its player's team (the
    model's own value, which depends on the prior's centring), and what the games identify:
    the role's edge against the average seat with its 95% interval."""

    model_config = _FROM_ATTRIBUTES

    role: str
    advantage: float = Field(
        description="the model's learned value of the role's virtual player (skill points; "
        "only differences between seats are identified, so it depends on the prior's centring)"
    )
    sigma: float = Field(
        description="the model's marginal deviation of that value (ignores the correlations "
        "between seats and with the players: not an interval for the seat's edge)"
    )
    vs_average: float | None = Field(
        default=None,
        description="the seat's edge against the average seat, in skill points at a table of "
        "equally rated players (null: the role is not a team's only role, or the games do "
        "not identify it yet); see seats",
    )
    vs_average_low: float | None = Field(
        default=None, description="lower end of the 95% interval of vs_average (null with it)"
    )
    vs_average_high: float | None = Field(
        default=None, description="upper end of the 95% interval of vs_average (null with it)"
    )

    @classmethod
    def of(cls, role: RoleAdvantage) -> RoleOut:
        return cls(
            role=role.role,
            advantage=role.advantage,
            sigma=role.sigma,
            vs_average=role.vs_average,
            vs_average_low=role.low,
            vs_average_high=role.high,
        )


class SeatEdgeOut(BaseModel):
    """A side (the roles one team holds: a seat, or Dou Dizhu's two farmers) against the
    average of the sides it was compared with."""

    model_config = _FROM_ATTRIBUTES

    side: str = Field(description="the side's roles, sorted and joined by +")
    roles: list[str] = Field(description="the side's roles")
    vs_average: float | None = Field(
        description="the side's edge against the average side, in skill points at a table of "
        "equally rated players (null: not identified by the games so far)"
    )
    low: float | None = Field(description="lower end of its 95% interval (null with vs_average)")
    high: float | None = Field(description="upper end of its 95% interval (null with vs_average)")
    teams: int = Field(description="teams that held the side in the matches compared")


class LeaderboardOut(BaseModel):
    league: str
    display: DisplayOut | None = None
    total: int
    offset: int
    limit: int
    search: str
    items: list[LeaderboardItem]
    roles: list[RoleOut] = Field(
        default_factory=list,
        description="the league's learned role advantages, by role (a model that rates "
        "roles, such as cardplay, on matches carrying roles; otherwise empty)",
    )
    seats: list[SeatEdgeOut] = Field(
        default_factory=list,
        description="every side (a seat, or the roles one team holds together) against the "
        "average side, with its 95% interval: what the games identify about the roles "
        "(a model that rates roles, on matches carrying roles; otherwise empty)",
    )
    updating: bool = Field(
        description="the league is being brought up to date after a late result (its re-rating "
        "runs in the background in bounded pieces): the ratings shown are the last consistent "
        "ones until it is done"
    )

    @classmethod
    def of(cls, page: LeaderboardPage, search: str) -> LeaderboardOut:
        d = page.display
        return cls(
            league=page.league,
            display=None
            if d is None  # labels of the rating columns (exposed is what the board is sorted by)
            else DisplayOut(mu=d.value_label, sigma=d.deviation_label, exposed=d.conservative),
            total=page.total,
            offset=page.offset,
            limit=page.limit,
            search=search,
            items=[
                LeaderboardItem.model_validate(e).model_copy(
                    update={"level": None if d is None or d.levels is None else d.shown(e.exposed)}
                )
                for e in page.entries
            ],
            roles=[RoleOut.of(r) for r in page.roles],
            seats=[SeatEdgeOut.model_validate(e) for e in page.seats],
            updating=page.updating,
        )


class HistoryItem(BaseModel):
    model_config = _FROM_ATTRIBUTES

    match_id: str
    seq: int
    time: float
    mu: float
    sigma: float


class CurveItem(BaseModel):
    """A point of a whole-history league's smoothed skill curve: the skill at the time step
    starting at ``time`` (POSIX seconds for dated matches), given every game of the league."""

    model_config = _FROM_ATTRIBUTES

    time: float
    mu: float
    sigma: float


class PlayerOut(BaseModel):
    league: str
    player: str
    rank: int
    mu: float
    sigma: float
    exposed: float
    games: int
    history: list[HistoryItem] = Field(
        description="The rating after each of the player's games (online leagues; empty in a "
        "whole-history league)."
    )
    curve: list[CurveItem] = Field(
        description="The smoothed skill at each time step the player played in (whole-history "
        "leagues, model trueskill-history; empty in an online league)."
    )
    updating: bool = Field(
        description="the league is being brought up to date after a late result (its re-rating "
        "runs in the background in bounded pieces): the ratings shown are the last consistent "
        "ones until it is done"
    )

    @classmethod
    def of(cls, rec: PlayerRecord) -> PlayerOut:
        return cls(
            league=rec.league,
            player=rec.player,
            rank=rec.rank,
            mu=rec.state.mu,
            sigma=rec.state.sigma,
            exposed=rec.exposed,
            games=rec.games,
            history=[HistoryItem.model_validate(h) for h in rec.history],
            curve=[CurveItem.model_validate(c) for c in rec.curve],
            updating=rec.updating,
        )


class LateReplay(BaseModel):
    """Late results re-rate what depends on them (ratings: a replay in time order)."""

    model_config = _STRICT

    policy: Literal["replay"]

    def value(self) -> LatePolicy:
        return LatePolicy(self.policy)


class LateArrival(BaseModel):
    """Matches are rated in the order they arrive, a late one from its players' current
    ratings (ratings: a replay in arrival order). Not for a whole-history model (400)."""

    model_config = _STRICT

    policy: Literal["arrival"]

    def value(self) -> LatePolicy:
        return LatePolicy(self.policy)


class LateRefuse(BaseModel):
    """A post holding a match older than the league's latest time by more than
    ``refuse_older_than`` (days for date and time values, else the time's own units) is refused
    (409, nothing of it recorded); one within that age is replayed as under ``replay``."""

    model_config = _STRICT

    policy: Literal["refuse"]
    refuse_older_than: Annotated[float, Strict(), Field(ge=0, le=MAX_LATE_AGE, allow_inf_nan=False)]

    def value(self) -> LatePolicy:
        return LatePolicy(self.policy, self.refuse_older_than)


#: a league's policy for late results, as a body gives it
LateIn = Annotated[LateReplay | LateArrival | LateRefuse, Field(discriminator="policy")]


class LateOut(BaseModel):
    """A league's policy for late results (``refuse_older_than``: ``refuse`` only)."""

    policy: Literal["replay", "arrival", "refuse"]
    refuse_older_than: float | None = None


#: what a league's numeric match times mean (how they are shown, never how they are rated)
TimeUnit = Annotated[
    Literal["number", "seconds", "days", "rounds"],
    Field(
        description="what the league's numeric match times mean: number (not said), seconds "
        "since 1970-01-01 UTC (shown as dates; datetimes are stored so), days or rounds"
    ),
]


class LeagueOut(BaseModel):
    name: str
    model: str
    params: dict[str, Any]
    matches: int
    late: LateOut
    updating: bool = Field(
        description="the league is being brought up to date after a late result (its re-rating "
        "runs in the background in bounded pieces): the ratings shown are the last consistent "
        "ones until it is done"
    )
    time_unit: TimeUnit

    @classmethod
    def of(cls, league: League) -> LeagueOut:
        return cls.model_validate(league.as_dict())


class LeaguesOut(BaseModel):
    leagues: list[LeagueOut]


class LeagueIn(BaseModel):
    model_config = _STRICT

    name: Annotated[str, Strict(), Field(pattern=LEAGUE_PATTERN)]
    model: ModelName = "trueskill"
    params: Params = Field(default_factory=dict)
    #: the league's policy for late results (default: replay)
    late: LateIn = Field(default_factory=lambda: LateReplay(policy="replay"))
    time_unit: TimeUnit = "number"


class LeaguePatch(BaseModel):
    """A new model (its parameters start from ``params`` alone) or parameters merged into the
    current ones (a null value removes a parameter), and/or a new policy for late results
    (``late``: given alone, nothing is re-rated), and/or what the league's numeric times mean
    (``time_unit``: never re-rates)."""

    model_config = _STRICT

    model: ModelName | None = None
    params: (
        Annotated[
            dict[
                ParamName,
                ParamValue | None,
            ],
            Field(max_length=MAX_PARAMS, json_schema_extra=_PARAM_NAMES),
        ]
        | None
    ) = None
    late: LateIn | None = None
    time_unit: TimeUnit | None = None


class KeyIn(BaseModel):
    """A write key of ``league``, or with ``admin: true`` (and no league) an admin key."""

    model_config = _STRICT

    league: Annotated[str, Strict(), Field(pattern=LEAGUE_PATTERN)] | None = None
    admin: Annotated[bool, Strict()] = False
    expires: (
        Annotated[
            str,
            Strict(),
            Field(
                max_length=MAX_EXPIRES_LENGTH,
                pattern=r"^[0-9A-Za-z:.+ _-]+$",
                description='A duration ("90m", "12h", "30d", "2w") or an ISO 8601 date/datetime',
            ),
        ]
        | None
    ) = None
    label: (
        Annotated[str, Strict(), Field(max_length=MAX_LABEL_LENGTH, pattern=ID_PATTERN)] | None
    ) = None


class KeyOut(BaseModel):
    id: int
    role: str
    league: str | None
    prefix: str
    label: str | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    status: str = Field(description='"active", "revoked" or "expired"')

    @classmethod
    def fields_of(cls, key: ApiKey) -> dict[str, Any]:
        """The fields of a stored key's record (never the key itself)."""
        return {
            "id": key.id,
            "role": key.role.value,
            "league": key.league,
            "prefix": key.prefix,
            "label": key.label,
            "created_at": key.created_at,
            "expires_at": key.expires_at,
            "revoked_at": key.revoked_at,
            "status": key.status(),
        }

    @classmethod
    def of(cls, key: ApiKey) -> KeyOut:
        return cls(**cls.fields_of(key))


class NewKeyOut(KeyOut):
    key: str = Field(description="the key itself, shown this once (only its hash is stored)")

    @classmethod
    def issued(cls, key: str, record: ApiKey) -> NewKeyOut:
        return cls(**cls.fields_of(record), key=key)


class KeysOut(BaseModel):
    keys: list[KeyOut]


class ErrorOut(BaseModel):
    detail: Any = Field(
        description="the reason (text), or for 422 a list of {loc, msg, type} naming each field"
    )
