"""The values of an event: its settings, players, rounds, tables, boards and results.

Everything here is a frozen value; :mod:`mindsport.event.storage` keeps them in the database and
:mod:`mindsport.event.pairing`, :mod:`mindsport.event.deals` and
:mod:`mindsport.event.standings` compute on them.

A round seats the players at tables of the game's size (three for Dou Dizhu, two for Luzhanqi,
four for mahjong: :mod:`mindsport.event.games`). Each table plays ``deals`` deals; each deal is
played once in each seat rotation, so over the n *boards* of a deal every player of the table
holds every seat's cards (setup, or seat on the walls) once (duplicate play at the table).
Board ``n * d + k`` of a table is deal ``d`` in rotation ``k``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from mindsport.event.errors import EventError
from mindsport.frames import frame
from mindsport.match import id_problem, normal_id

__all__ = [
    "EVENT_NAME",
    "MAX_DEALS",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "Board",
    "BoardForfeit",
    "DealSource",
    "EventError",
    "EventFormat",
    "EventSpec",
    "EventStatus",
    "LatePoints",
    "LogEntry",
    "Player",
    "Result",
    "Round",
    "Scoring",
    "Seat",
    "Standing",
    "Standings",
    "Table",
    "TieBreak",
    "check_event_name",
    "check_player_name",
]

#: an event name: letters, digits, '_', '.', '-', starting with a letter or digit
EVENT_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"
_EVENT_NAME = re.compile(EVENT_NAME)
E = TypeVar("E", bound=StrEnum)
#: most rounds, deals per round and players an event may have
MAX_ROUNDS = 50
#: the per-move time limit of bot entrants that run a program: default and bounds, in seconds
TIME_LIMIT = 10.0
MAX_TIME_LIMIT = 600.0
MAX_DEALS = 12
MAX_PLAYERS = 3000
#: the seats of a Dou Dizhu deal, in the order of its notation and of a board's scores
SEATS = ("landlord", "farmer1", "farmer2")


class EventFormat(StrEnum):
    """How deals are shared between the tables of a round.

    * ``duplicate``: every table plays the same deals (the papers' 复式 Swiss events);
    * ``equal-strength``: every table plays different deals, all of equal strength (a GDI
      within epsilon of one centre);
    * ``random``: every table plays its own independently dealt deals.
    """

    DUPLICATE = "duplicate"
    EQUAL_STRENGTH = "equal-strength"
    RANDOM = "random"


class DealSource(StrEnum):
    """Where the deals come from: dealt at random from the event's seed, or a pool of hands
    fixed at creation (a hand library's hands ranked by DIH, highest first, or its
    equal-strength hands by GDI, nearest the centre first, or hands listed by the director)."""

    RANDOM = "random"
    POOL = "pool"


class Scoring(StrEnum):
    """How a round's scores become rank points R = 2 (n - place + 1), ties sharing the best
    place: ``field`` ranks every player seated in the round (n = the players seated; the
    duplicate comparison of the papers), ``table`` ranks the three players of each table
    (n = 3: 6, 4, 2 points)."""

    FIELD = "field"
    TABLE = "table"


class TieBreak(StrEnum):
    """Order of players with equal rank points: ``score`` (total game score, higher first),
    ``opponents`` (sum of the final rank points of everyone met, higher first; Buchholz)."""

    SCORE = "score"
    OPPONENTS = "opponents"


class LatePoints(StrEnum):
    """The rank points a late entrant starts with: ``zero`` (nothing for the rounds missed) or
    ``mean`` (for each round missed, the round's mean, what a bye earns: n + 1 over a field of
    n, the mean of a table with table scoring)."""

    ZERO = "zero"
    MEAN = "mean"


class EventStatus(StrEnum):
    OPEN = "open"
    FINISHED = "finished"


def check_event_name(name: object) -> str:
    if not isinstance(name, str) or not _EVENT_NAME.match(name):
        raise EventError(
            f"event name {name!r}: use 1-100 letters, digits, '_', '.' or '-', starting with a "
            "letter or digit"
        )
    return name


def check_player_name(name: object) -> str:
    why = id_problem(name)
    if why is not None:
        raise EventError(f"player {name!r}: {why}")
    assert isinstance(name, str)
    return normal_id(name)


def _count(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EventError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value


@dataclass(frozen=True)
class EventSpec:
    """What an event is. ``pool``: the hands of a ``pool`` deal source, in the order they are
    used (duplicate: round r plays hands ``r * deals ...``; equal-strength: each round draws
    its deals from the pool without replacement). ``league``: the rating league the final
    results go to (its write key enters results). ``rule``: the game's scoring rule, by which
    every board's scores are checked and bots play (Dou Dizhu: ``linear``, ``ccpc2016`` or
    ``classic``, :mod:`mindsport.doudizhu.scoring`; Luzhanqi: ``win``; mahjong: ``wrc``;
    empty: the game's default, see :mod:`mindsport.event.games`). ``game``: ``doudizhu``
    (tables of three), ``junqi`` (Luzhanqi, tables of two), ``mahjong`` or ``mahjong-east``
    (riichi mahjong, east-south or east-only, tables of four). ``time_limit``: the seconds a
    bot entrant that runs a program (``cmd:``) may think per move before it forfeits the board.
    ``late_points``: what a late entrant starts with (:class:`LatePoints`)."""

    name: str
    league: str
    format: EventFormat = EventFormat.DUPLICATE
    rounds: int = 6
    deals: int = 1
    source: DealSource = DealSource.RANDOM
    scoring: Scoring = Scoring.FIELD
    tie_breaks: tuple[TieBreak, ...] = (TieBreak.SCORE, TieBreak.OPPONENTS)
    seed: int = 0
    pool: tuple[str, ...] = ()
    game: str = "doudizhu"
    rule: str = ""
    time_limit: float = TIME_LIMIT
    late_points: LatePoints = LatePoints.ZERO

    def __post_init__(self) -> None:
        check_event_name(self.name)
        object.__setattr__(self, "format", _enum(EventFormat, self.format, "format"))
        object.__setattr__(self, "source", _enum(DealSource, self.source, "source"))
        object.__setattr__(self, "scoring", _enum(Scoring, self.scoring, "scoring"))
        object.__setattr__(self, "late_points", _enum(LatePoints, self.late_points, "late points"))
        breaks = tuple(_enum(TieBreak, t, "tie break") for t in self.tie_breaks)
        if len(set(breaks)) != len(breaks):
            raise EventError(f"tie breaks {[str(t) for t in breaks]} name one twice")
        object.__setattr__(self, "tie_breaks", breaks)
        _count("rounds", self.rounds, 1, MAX_ROUNDS)
        _count("deals", self.deals, 1, MAX_DEALS)
        _count("seed", self.seed, 0, 2**63 - 1)
        from mindsport.event.games import table_game  # plain values: no NumPy loaded

        game = table_game(self.game)
        object.__setattr__(self, "rule", game.rule(self.rule))
        if not game.pools and (self.pool or self.source is DealSource.POOL):
            raise EventError(
                f"a pool of hands is for Dou Dizhu events; {game.title} events deal at random"
            )
        limit = self.time_limit
        if (
            isinstance(limit, bool)
            or not isinstance(limit, int | float)
            or not 0.001 <= limit <= MAX_TIME_LIMIT
        ):
            raise EventError(
                f"time limit {limit!r}: give the seconds a bot may think per move, 0.001 to "
                f"{MAX_TIME_LIMIT:g}"
            )
        object.__setattr__(self, "time_limit", float(limit))
        if self.source is DealSource.POOL and not self.pool:
            raise EventError("deal source 'pool' needs the hands of the pool")
        if self.source is DealSource.RANDOM and self.pool:
            raise EventError("a pool of hands was given with deal source 'random'")
        if self.source is DealSource.POOL and self.format is EventFormat.RANDOM:
            raise EventError("format 'random' deals at random; it takes no pool of hands")
        if self.format is EventFormat.EQUAL_STRENGTH and self.source is not DealSource.POOL:
            raise EventError(
                "format 'equal-strength' needs a pool of equal-strength hands (a hand library "
                "selected by GDI)"
            )
        if len(set(self.pool)) != len(self.pool):
            raise EventError("the pool of hands lists a hand twice")
        if self.format is EventFormat.DUPLICATE and self.pool:
            need = self.rounds * self.deals
            if len(self.pool) < need:
                raise EventError(
                    f"the pool holds {len(self.pool)} hands; a duplicate event of {self.rounds} "
                    f"rounds with {self.deals} deals each needs {need}"
                )

    @property
    def size(self) -> int:
        """Players at a table (three for Dou Dizhu, two for Luzhanqi, four for mahjong)."""
        from mindsport.event.games import table_game

        return table_game(self.game).size

    @property
    def boards(self) -> int:
        """Boards each table plays in a round (every deal in every seat rotation)."""
        return self.size * self.deals


def _enum(kind: type[E], value: object, name: str) -> E:
    names = ", ".join(str(v) for v in kind)
    if not isinstance(value, str):
        raise EventError(f"{name} {value!r}: use one of {names}")
    try:
        return kind(value)
    except ValueError:
        raise EventError(f"{name} {value!r}: use one of {names}") from None


@dataclass(frozen=True)
class Player:
    """A registered player: ``number`` is the registration order (1 first), ``bot`` a bot
    spec for a bot entrant (e.g. ``level:40``), ``joined`` the first round the player may be
    seated in (a late entry), ``withdrawn`` the first round the player is no longer seated in."""

    name: str
    number: int
    bot: str | None = None
    joined: int = 1
    withdrawn: int | None = None

    def active_in(self, round_number: int) -> bool:
        return self.joined <= round_number and (
            self.withdrawn is None or round_number < self.withdrawn
        )


@dataclass(frozen=True)
class Seat:
    """Who holds which cards (or setup) on one board: ``seat`` numbered as the game numbers
    its players (Dou Dizhu: 0 landlord, 1 farmer 1, 2 farmer 2; Luzhanqi: 0 south, 1 north;
    mahjong: 0 east, 1 south, 2 west, 3 north)."""

    seat: int
    player: str


@dataclass(frozen=True)
class Board:
    """One game of a table: deal ``deal`` (0-based) played in rotation ``rotation``."""

    number: int
    deal: int
    rotation: int
    hand: str
    seats: tuple[Seat, ...]


@dataclass(frozen=True)
class Table:
    """A table of a round: its players (in pairing order; three for Dou Dizhu, two for
    Luzhanqi) and the deals it plays."""

    round: int
    number: int
    players: tuple[str, ...]
    deals: tuple[str, ...]

    def boards(self) -> tuple[Board, ...]:
        """Every board: with n players, deal d in rotation k is board n d + k, seat s held by
        the player at position (s + k) mod n, so each player holds each seat once per deal."""
        n = len(self.players)
        return tuple(
            Board(
                n * d + k,
                d,
                k,
                hand,
                tuple(Seat(s, self.players[(s + k) % n]) for s in range(n)),
            )
            for d, hand in enumerate(self.deals)
            for k in range(n)
        )


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]


@dataclass(frozen=True)
class Result:
    """A table's result: ``scores[board][seat]`` (Dou Dizhu: landlord, farmer 1, farmer 2)
    for every board of the table, entered as a whole (mahjong: the scores computed from the
    final points entered)."""

    round: int
    table: int
    scores: tuple[tuple[float, ...], ...]

    def player_scores(self, table: Table) -> dict[str, float]:
        """Each player's game score over the table's boards."""
        totals = dict.fromkeys(table.players, 0.0)
        for board, row in zip(table.boards(), self.scores, strict=True):
            for seat in board.seats:
                totals[seat.player] += row[seat.seat]
        return totals


@dataclass(frozen=True)
class BoardForfeit:
    """A bot entrant that forfeited a board while the event's bots played: where (round,
    table, board numbered from 1 as on the sheet), who (the entrant) and why (``reason``:
    ``timeout``, ``crash`` or ``illegal``; ``detail``: what the referee saw)."""

    round: int
    table: int
    board: int
    player: str
    reason: str
    detail: str


@dataclass(frozen=True)
class LogEntry:
    """An undo or correction, logged like an amendment: ``action`` (``unpair``,
    ``reinstate``, ``league``: a finished event's league brought up to date after a
    correction), the round or player it concerns, what was done (``detail``), who, when, why."""

    action: str
    round: int | None
    player: str | None
    detail: str
    who: str
    why: str
    at: datetime


@dataclass(frozen=True)
class Standing:
    """A player's line of the standings after ``rounds`` complete rounds."""

    place: int
    player: str
    rank_points: int
    score: float
    opponents: int
    rounds: int
    byes: int
    withdrawn: bool


_STANDING_COLUMNS = (
    "place",
    "player",
    "rank_points",
    "score",
    "opponents",
    "rounds",
    "byes",
    "withdrawn",
)


class Standings(list[Standing]):
    """The standings, best first: a list of :class:`Standing` that also gives itself as a
    table."""

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per player in order: ``place``, ``player``,
        ``rank_points``, ``score``, ``opponents`` (the rank points of everyone met), ``rounds``,
        ``byes``, ``withdrawn``."""
        return frame(
            [{c: getattr(s, c) for c in _STANDING_COLUMNS} for s in self], _STANDING_COLUMNS
        )
