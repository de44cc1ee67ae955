"""The games an event is run for, each with its own table size, seats, deals and scoring.

An event's tables play boards of one game of the contract (:mod:`mindsport.games`): a *deal*
is the game's chance outcome written as text (stored with the table, printed on the sheet),
and each deal is played once in each seat rotation, so every player of a table holds every
seat's cards (or setup) once. What differs between games is here:

* ``doudizhu``: tables of three (landlord, farmer 1, farmer 2), a deal
  ``[landlord][farmer1][farmer2]``; the scoring rules ``linear`` (default), ``ccpc2016``,
  ``classic`` (:mod:`mindsport.doudizhu.scoring`), a board's scores checked by its rule;
* ``junqi`` (Luzhanqi): tables of two (south, who moves first, and north), a deal the two
  setups ``SOUTH|NORTH``, each six rows of five codes (front row first, camps ``+``) joined by
  ``/`` (:meth:`mindsport.junqi.rules.Setup.from_rows`); one rule, ``win``: a board scores
  +1 / -1, or 0 each for a draw;
* ``mahjong`` (riichi mahjong, east-south: the WRC's hanchan) and ``mahjong-east`` (east-only):
  tables of four (east, south, west, north; east deals first), a deal the walls, written as
  their seed (:class:`mindsport.mahjong.Walls`, a whole number below 2**64); one rule, ``wrc``:
  what the table enters is each seat's final points, and a board's scores are computed from
  them by placement points and uma as the World Riichi Championship rules score a session
  (:mod:`mindsport.mahjong.scoring`). Each board is a match of the league of its own.

Nothing here is imported at the package's import: each game's modules load when an event of
that game needs them (the command line's ``--help`` loads none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mindsport.event.errors import EventError

if TYPE_CHECKING:
    import numpy as np

    from mindsport.games.contract import Game

__all__ = [
    "EVENT_GAMES",
    "DouDizhuTables",
    "JunqiTables",
    "MahjongTables",
    "TableGame",
    "table_game",
]


@dataclass(frozen=True)
class TableGame:
    """How an event runs tables of one game: its registry ``name``, ``title``, the labels of
    its ``seats`` (the table size is their number), its scoring ``rules`` (the first is the
    default). Each game is a subclass holding its own deals and scoring rules."""

    name: str
    title: str
    seats: tuple[str, ...]
    rules: tuple[str, ...]
    #: what a table enters, one per seat and board (the scores, or what they are computed from)
    entries: str = "scores"
    #: the heading of a seat's box on the printed sheet
    box: str = "score"
    #: what every board's entries add up to, as the deal sheet says it
    sums: str = "Every board's scores add up to zero."
    #: whether each board (not each table) is a match of the league
    board_matches: bool = False
    #: the simulation's graded bots, weakest first (empty: ``level:0`` ... ``level:100``)
    graded: tuple[str, ...] = ()

    #: whether events of the game take pools of hands (and the equal-strength format)
    pools: bool = False

    @property
    def size(self) -> int:
        return len(self.seats)

    def rule(self, rule: object) -> str:
        """``rule`` checked (None or empty: the default)."""
        if rule is None or rule == "":
            return self.rules[0]
        if not isinstance(rule, str) or rule not in self.rules:
            raise EventError(
                f"scoring rule {rule!r}: {self.title} events use {', '.join(self.rules)}"
            )
        return rule

    # -- deals (each game's own) ---------------------------------------------------------------
    def deal(self, rng: np.random.Generator) -> str:
        """A random deal (chance outcome) as text, drawn from ``rng``."""
        raise NotImplementedError

    def chance(self, text: str) -> Any:
        """The game's chance outcome of a deal text (what its referee starts from)."""
        raise NotImplementedError

    def hands(self, text: str) -> tuple[str, ...]:
        """What each seat holds in the deal ``text`` (its cards, or its setup), for the sheet."""
        raise NotImplementedError

    # -- scores --------------------------------------------------------------------------------
    def problem(self, rule: str, row: tuple[float, ...]) -> str | None:
        """What is wrong with one board's finite scores under ``rule``, or None."""
        raise NotImplementedError

    def score(self, rule: str, row: tuple[float, ...]) -> tuple[float, ...]:
        """One board's scores from what the table entered (checked by :meth:`problem`): here
        the entries themselves."""
        return row

    def entered(self, returns: tuple[float, ...]) -> tuple[float, ...]:
        """What a table would enter for a board its bots played, from the game's returns: here
        the returns themselves."""
        return returns

    def params(self, rule: str) -> tuple[tuple[str, Any], ...]:
        """The registry's parameters of the game its bots play under ``rule`` (picklable, for
        :class:`mindsport.tournament.runner.GameSpec`)."""
        return ()

    def game(self, rule: str) -> Game:
        """The game of the contract its bots play, under ``rule``."""
        from mindsport.games.registry import get_game

        return get_game(self.name, **dict(self.params(rule)))


@dataclass(frozen=True)
class DouDizhuTables(TableGame):
    """Dou Dizhu: a deal is ``[landlord][farmer1][farmer2]``; the scoring rule is a parameter of
    the game the bots play; a board's scores are checked by the rule."""

    pools: bool = True

    def deal(self, rng: np.random.Generator) -> str:
        from mindsport.doudizhu import deal

        return str(deal(rng))

    def chance(self, text: str) -> Any:
        from mindsport.doudizhu import Deal

        return Deal.parse(text)

    def hands(self, text: str) -> tuple[str, ...]:
        from mindsport.doudizhu import Deal

        return tuple(Deal.parse(text).hands)

    def problem(self, rule: str, row: tuple[float, ...]) -> str | None:
        from mindsport.doudizhu.scoring import SCORING_RULES

        a, b, c = row
        return SCORING_RULES[rule].problem((a, b, c))

    def params(self, rule: str) -> tuple[tuple[str, Any], ...]:
        return (("scoring", rule),)


@dataclass(frozen=True)
class JunqiTables(TableGame):
    """Luzhanqi: a deal is the two setups ``SOUTH|NORTH``; a board scores +1 / -1 or 0 each."""

    def deal(self, rng: np.random.Generator) -> str:
        from mindsport.junqi.rules import random_setup

        return "|".join("/".join(s.rows()) for s in (random_setup(rng), random_setup(rng)))

    def chance(self, text: str) -> Any:
        from mindsport.junqi.rules import Setup

        sides = text.split("|")
        if len(sides) != 2:
            raise EventError(f"setups {text!r}: write SOUTH|NORTH, six rows each joined by /")
        try:
            return tuple(Setup.from_rows(side.split("/")) for side in sides)
        except ValueError as exc:
            raise EventError(f"setups {text!r}: {exc}") from None

    def hands(self, text: str) -> tuple[str, ...]:
        return tuple(text.split("|"))

    def problem(self, rule: str, row: tuple[float, ...]) -> str | None:
        if tuple(row) not in ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)):
            return (
                f"scores {list(row)}: a Luzhanqi board scores 1,-1 (south won), -1,1 (north "
                "won) or 0,0 (a draw)"
            )
        return None


@dataclass(frozen=True)
class MahjongTables(TableGame):
    """Riichi mahjong: a deal is the walls' seed; the table enters final points, scored by
    placement points and uma as the WRC rules score a session; each board is a match."""

    entries: str = "final points"
    box: str = "final points"
    sums: str = (
        "Enter each seat's final points: whole hundreds, summing to 4 x 30,000 less the riichi "
        "deposits left on the table; the scores (placement points and WRC uma) are computed."
    )
    board_matches: bool = True

    def deal(self, rng: np.random.Generator) -> str:
        from numpy import uint64

        return str(int(rng.integers(0, _WALLS_LIMIT, dtype=uint64)))

    def chance(self, text: str) -> Any:
        return _walls(text)

    def hands(self, text: str) -> tuple[str, ...]:
        return (f"walls {_walls(text).seed}",) * self.size  # the four seats share the walls

    def problem(self, rule: str, row: tuple[float, ...]) -> str | None:
        from mindsport.mahjong.scoring import WRC

        return WRC.problem(row)

    def score(self, rule: str, row: tuple[float, ...]) -> tuple[float, ...]:
        from mindsport.mahjong.scoring import WRC

        return WRC.scores(row)

    def entered(self, returns: tuple[float, ...]) -> tuple[float, ...]:
        """The final points: riichienv's games start from 25,000 and return (points - 25,000)
        / 1,000; the points each seat won or lost are put on the WRC's start of 30,000 (riichi
        deposits left on the table stay left)."""
        from mindsport.mahjong.scoring import WRC

        return tuple(float(WRC.start + round(1000 * r)) for r in returns)


def _walls(text: str) -> Any:
    """The walls of a deal text: their seed, a whole number from 0 to 2**64 - 1."""
    from mindsport.mahjong.game import Walls

    digits = text.strip() if isinstance(text, str) else ""
    if not digits.isascii() or not digits.isdigit() or int(digits) >= _WALLS_LIMIT:
        raise EventError(
            f"walls {text!r}: write the walls' seed, a whole number from 0 to 2**64 - 1"
        )
    return Walls(int(digits))


#: the walls' seeds are below this
_WALLS_LIMIT = 2**64
_MAHJONG_SEATS = ("east", "south", "west", "north")
#: the games events are run for, by name
EVENT_GAMES: dict[str, TableGame] = {
    "doudizhu": DouDizhuTables(
        "doudizhu",
        "Dou Dizhu",
        ("landlord", "farmer1", "farmer2"),
        ("linear", "ccpc2016", "classic"),
    ),
    "junqi": JunqiTables(
        "junqi", "Luzhanqi", ("south", "north"), ("win",), graded=("random", "greedy")
    ),
    "mahjong": MahjongTables("mahjong", "Riichi mahjong (east-south)", _MAHJONG_SEATS, ("wrc",)),
    "mahjong-east": MahjongTables(
        "mahjong-east", "Riichi mahjong (east-only)", _MAHJONG_SEATS, ("wrc",)
    ),
}


def table_game(name: object) -> TableGame:
    """The event game ``name``."""
    found = EVENT_GAMES.get(name) if isinstance(name, str) else None
    if found is None:
        raise EventError(f"game {name!r}: events are run for {', '.join(EVENT_GAMES)}")
    return found
