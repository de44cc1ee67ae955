"""What the store hands out and what it raises: the values its reads and writes return (a league,
a write's outcome, a leaderboard page, a player's record) and its errors.

Plain frozen dataclasses, importable without the database layer (no SQLAlchemy here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mindsport.errors import ConflictError, MindsportError
from mindsport.frames import frame
from mindsport.match import MAX_TIME, MIN_TIME
from mindsport.rating.registry import Display
from mindsport.rating.trueskill.seats import SeatEdge
from mindsport.store.league_model import PlayerState

__all__ = [
    "LATE_POLICIES",
    "MAX_LATE_AGE",
    "TIME_UNITS",
    "CurvePoint",
    "HistoryPoint",
    "IngestResult",
    "LatePolicy",
    "LeaderboardEntry",
    "LeaderboardPage",
    "League",
    "MatchConflictError",
    "MatchRefusedError",
    "PlayerRecord",
    "RoleAdvantage",
    "SeatEdge",
    "StoreError",
    "late_policy",
    "time_text",
    "time_unit",
]


class StoreError(MindsportError):
    """A store operation was given something it cannot use (names the input)."""


class MatchRefusedError(StoreError):
    """A match the store cannot take: ``match_id`` and ``field`` name it and what is wrong."""

    def __init__(self, message: str, match_id: str, field: str) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.field = field


class MatchConflictError(ConflictError):
    """A match id recorded (or repeated in the input) with other data (``field`` is ``id``)."""

    def __init__(self, message: str, match_id: str) -> None:
        super().__init__(message)
        self.match_id = match_id
        self.field = "id"


#: the late-result policies, by name (:mod:`mindsport.store.late` says what each does)
LATE_POLICIES = ("replay", "arrival", "refuse")
#: the largest ``refuse_older_than`` (days or time units): about 27 million years in days
MAX_LATE_AGE = 1e10


@dataclass(frozen=True, slots=True)
class LatePolicy:
    """How a league treats late results: ``policy`` one of :data:`LATE_POLICIES`;
    ``refuse_older_than`` (``refuse`` only, required there): the largest age accepted, in the
    league's time units (days for date and time values), at least 0 and at most
    :data:`MAX_LATE_AGE`."""

    policy: str = "replay"
    refuse_older_than: float | None = None

    def __post_init__(self) -> None:
        if self.policy not in LATE_POLICIES:
            raise StoreError(
                f"late-result policy {self.policy!r}: use one of {', '.join(LATE_POLICIES)}"
            )
        age = self.refuse_older_than
        if self.policy != "refuse":
            if age is not None:
                raise StoreError(
                    f"refuse_older_than={age!r} applies only to the policy 'refuse', "
                    f"not {self.policy!r}"
                )
            return
        if isinstance(age, bool) or not isinstance(age, int | float):
            raise StoreError(
                "the late-result policy 'refuse' needs refuse_older_than: the largest age of "
                "a match accepted (days for date and time values, else the time's own units)"
            )
        if not (math.isfinite(age) and 0 <= age <= MAX_LATE_AGE):
            raise StoreError(f"refuse_older_than={age!r}: give a number from 0 to {MAX_LATE_AGE:g}")
        object.__setattr__(self, "refuse_older_than", float(age))

    @classmethod
    def parse(cls, text: str) -> LatePolicy:
        """A policy from its text: ``replay``, ``arrival`` or ``refuse:AGE`` (e.g.
        ``refuse:30``)."""
        name, sep, age = text.strip().partition(":")
        if not sep:
            return cls(name)
        try:
            value = float(age)
        except ValueError:
            raise StoreError(
                f"late-result policy {text!r}: the age after 'refuse:' must be a number"
            ) from None
        return cls(name, value)

    def text(self) -> str:
        """The policy as :meth:`parse` reads it."""
        if self.refuse_older_than is None:
            return self.policy
        return f"{self.policy}:{self.refuse_older_than:g}"

    @property
    def by_arrival(self) -> bool:
        """Whether the league's ratings follow the order of arrival (``arrival``)."""
        return self.policy == "arrival"

    def check_model(self, smoothed: bool, model: str) -> None:
        """Refuse ``arrival`` for a whole-history model (``smoothed``): it re-derives every
        rating from the whole log, whatever the order of arrival."""
        if smoothed and self.by_arrival:
            raise StoreError(
                f"model {model!r} estimates skills from the whole history at once: the "
                "late-result policy 'arrival' does not apply to it (use 'replay' or 'refuse')"
            )


def late_policy(value: LatePolicy | str | None) -> LatePolicy:
    """A policy given as a :class:`LatePolicy`, its text (:meth:`LatePolicy.parse`) or ``None``
    (``replay``)."""
    if value is None:
        return LatePolicy()
    if isinstance(value, LatePolicy):
        return value
    if isinstance(value, str):
        return LatePolicy.parse(value)
    raise StoreError(f"late-result policy {value!r}: give 'replay', 'arrival' or 'refuse:AGE'")


#: what a league's numeric match times may mean: ``number`` (not said: shown as numbers),
#: ``seconds`` (POSIX seconds, since 1970-01-01 UTC: shown as dates; datetimes are stored so),
#: ``days`` or ``rounds`` (day or round numbers)
TIME_UNITS = ("number", "seconds", "days", "rounds")


def time_unit(value: str | None) -> str:
    """A league's time unit given by name (``None``: ``number``), else :class:`StoreError`
    naming the allowed ones."""
    if value is None:
        return "number"
    if isinstance(value, str) and value.strip().lower() in TIME_UNITS:
        return value.strip().lower()
    raise StoreError(f"time unit {value!r}: one of {', '.join(TIME_UNITS)}")


def _number(x: float) -> str:
    """A number written out in full: whole numbers without a fraction or an exponent."""
    x = float(x)
    if math.isfinite(x) and x.is_integer() and abs(x) < 1e18:
        return str(int(x))
    if math.isfinite(x) and abs(x) < 1e15:
        return f"{x:.6f}".rstrip("0").rstrip(".")
    return repr(x)


def time_text(t: float, unit: str) -> str:
    """A match time as a league of time unit ``unit`` shows it: a UTC date and time for
    ``seconds``, ``day N`` or ``round N``, else the number in full.

    >>> time_text(1795760000.0, "seconds"), time_text(3.0, "rounds")
    ('2026-11-27 06:13:20', 'round 3')
    >>> time_text(1795760000.0, "number"), time_text(2.5, "days")
    ('1795760000', 'day 2.5')
    """
    if unit == "seconds" and math.isfinite(t) and MIN_TIME <= t < MAX_TIME:
        when = datetime.fromtimestamp(t, UTC)
        return when.strftime("%Y-%m-%d %H:%M:%S.%f" if when.microsecond else "%Y-%m-%d %H:%M:%S")
    if unit == "days":
        return f"day {_number(t)}"
    if unit == "rounds":
        return f"round {_number(t)}"
    return _number(t)


@dataclass(frozen=True, slots=True)
class League:
    """A rating pool: its name, model name and model parameters, its number of matches, its
    policy for late results (:mod:`mindsport.store.late`) and what its numeric match times mean
    (``time_unit``, one of :data:`TIME_UNITS`: how they are shown, never how they are rated)."""

    name: str
    model: str
    params: dict[str, Any]
    matches: int
    late: LatePolicy = LatePolicy()
    #: being brought up to date after a late result (:mod:`mindsport.store.catchup`): the
    #: ratings shown are the last consistent ones until it is done
    updating: bool = False
    time_unit: str = "number"

    def as_dict(self) -> dict[str, Any]:
        """The league as ``GET /api/leagues`` and ``mindsport leagues list --json`` show it."""
        return {
            "name": self.name,
            "model": self.model,
            "params": dict(self.params),
            "matches": self.matches,
            "late": {"policy": self.late.policy, "refuse_older_than": self.late.refuse_older_than},
            "updating": self.updating,
            "time_unit": self.time_unit,
        }


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What a write did: new matches, identical re-posts ignored, matches replayed because late
    (none in a whole-history league: late results revise the smoothed past in place), and
    whether the league's re-rating was left to its catch-up."""

    added: int
    duplicates: int
    replayed: int
    #: the league's ratings are being brought up to date in the background (a late result whose
    #: re-rating is too long for one request, or a post while that runs:
    #: :mod:`mindsport.store.catchup`); its matches are recorded and will be rated
    updating: bool = False

    def as_dict(self) -> dict[str, int | bool]:
        return {
            "added": self.added,
            "duplicates": self.duplicates,
            "replayed": self.replayed,
            "updating": self.updating,
        }


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    player: str
    mu: float
    sigma: float
    exposed: float
    games: int


@dataclass(frozen=True, slots=True)
class RoleAdvantage:
    """A role's (seat's) learned advantage in a league whose model rates roles (``cardplay``):
    the skill points its virtual player adds to its player's team, and their deviation (the
    model's internal values: they depend on the prior's centring, and the deviation ignores
    the correlations between seats). What the games identify is ``vs_average``: the role's
    edge against the average seat with its interval at 95% (``low``, ``high``), for a role that
    is a team's only role (a seat; None otherwise or while not identified; see
    :class:`SeatEdge` and :attr:`LeaderboardPage.seats`)."""

    role: str
    advantage: float
    sigma: float
    vs_average: float | None = None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """A page of a league's leaderboard. ``display``: how the league's model shows a rating
    (labels of ``mu``, ``sigma`` and ``exposed``; see :class:`mindsport.rating.Display`).
    ``roles``: the league's learned role advantages by role name (empty for a model without
    roles, or before a match with roles); ``seats``: what the games identify about them."""

    league: str
    total: int
    offset: int
    limit: int
    entries: list[LeaderboardEntry]
    display: Display | None = None
    roles: tuple[RoleAdvantage, ...] = ()
    #: the league is being brought up to date (:attr:`League.updating`)
    updating: bool = False
    #: every side (the roles one team holds: a seat, or Dou Dizhu's two farmers) against the
    #: average side, with its 95% interval (:mod:`mindsport.rating.trueskill.seats`)
    seats: tuple[SeatEdge, ...] = ()

    def to_frame(self) -> Any:
        """The page's entries as a pandas DataFrame: ``rank``, ``player``, ``mu``, ``sigma``,
        ``exposed`` and ``games`` (what ``mu``, ``sigma`` and ``exposed`` mean for the
        league's model: :attr:`display`; e.g. Elo's rating, no deviation)."""
        return frame(
            [
                {
                    "rank": e.rank,
                    "player": e.player,
                    "mu": e.mu,
                    "sigma": e.sigma,
                    "exposed": e.exposed,
                    "games": e.games,
                }
                for e in self.entries
            ],
            ("rank", "player", "mu", "sigma", "exposed", "games"),
        )


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    match_id: str
    seq: int
    time: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """A point of a whole-history league's smoothed skill curve: the player's skill (``mu``,
    ``sigma``) at the time step starting at ``time`` (on the match log's time axis: POSIX
    seconds for datetimes), given all the league's matches."""

    time: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player's rating in a league: rank, state, games, and how the rating went: ``history``
    (an online league: the rating after each match) or ``curve`` (a whole-history league: the
    smoothed skill at each time step he played in)."""

    league: str
    player: str
    rank: int
    state: PlayerState
    exposed: float
    games: int
    history: list[HistoryPoint] = field(default_factory=list)
    curve: list[CurvePoint] = field(default_factory=list)
    #: the league is being brought up to date (:attr:`League.updating`): the rating is the last
    #: consistent one, the history partly re-rated
    updating: bool = False

    def to_frame(self) -> Any:
        """How the rating went, as a pandas DataFrame: an online league's ``history`` (columns
        ``match_id``, ``seq``, ``time``, ``mu``, ``sigma``: the rating after each match), a
        whole-history league's ``curve`` (``time``, ``mu``, ``sigma``). ``time`` is on the match
        log's axis (POSIX seconds for datetimes)."""
        if self.curve:
            return frame(
                [{"time": c.time, "mu": c.mu, "sigma": c.sigma} for c in self.curve],
                ("time", "mu", "sigma"),
            )
        return frame(
            [
                {"match_id": h.match_id, "seq": h.seq, "time": h.time, "mu": h.mu, "sigma": h.sigma}
                for h in self.history
            ],
            ("match_id", "seq", "time", "mu", "sigma"),
        )
