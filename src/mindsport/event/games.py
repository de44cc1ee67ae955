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
  +1 / -1, or 0 each for a draw.

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

__all__ = ["EVENT_GAMES", "TableGame", "table_game"]


@dataclass(frozen=True)
class TableGame:
    """How an event runs tables of one game: its registry ``name``, ``title``, the labels of
    its ``seats`` (the table size is their number), its scoring ``rules`` (the first is the
    default)."""

    name: str
    title: str
    seats: tuple[str, ...]
    rules: tuple[str, ...]

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

    # -- deals ---------------------------------------------------------------------------------
    def deal(self, rng: np.random.Generator) -> str:
        """A random deal (chance outcome) as text, drawn from ``rng``."""
        if self.name == "doudizhu":
            from mindsport.doudizhu import deal

            return str(deal(rng))
        from mindsport.junqi.rules import random_setup

        return _setups_text((random_setup(rng), random_setup(rng)))

    def chance(self, text: str) -> Any:
        """The game's chance outcome of a deal text (what its referee starts from)."""
        if self.name == "doudizhu":
            from mindsport.doudizhu import Deal

            return Deal.parse(text)
        from mindsport.junqi.rules import Setup

        sides = text.split("|")
        if len(sides) != 2:
            raise EventError(f"setups {text!r}: write SOUTH|NORTH, six rows each joined by /")
        try:
            return tuple(Setup.from_rows(side.split("/")) for side in sides)
        except ValueError as exc:
            raise EventError(f"setups {text!r}: {exc}") from None

    def hands(self, text: str) -> tuple[str, ...]:
        """What each seat holds in the deal ``text`` (its cards, or its setup), for the sheet."""
        if self.name == "doudizhu":
            from mindsport.doudizhu import Deal

            return tuple(Deal.parse(text).hands)
        return tuple(text.split("|"))

    # -- scores --------------------------------------------------------------------------------
    def problem(self, rule: str, row: tuple[float, ...]) -> str | None:
        """What is wrong with one board's finite scores under ``rule``, or None."""
        if self.name == "doudizhu":
            from mindsport.doudizhu.scoring import SCORING_RULES

            a, b, c = row
            return SCORING_RULES[rule].problem((a, b, c))
        if tuple(row) not in ((1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)):
            return (
                f"scores {list(row)}: a Luzhanqi board scores 1,-1 (south won), -1,1 (north "
                "won) or 0,0 (a draw)"
            )
        return None

    def game(self, rule: str) -> Game:
        """The game of the contract its bots play, under ``rule``."""
        from mindsport.games.registry import get_game

        if self.name == "doudizhu":
            return get_game("doudizhu", scoring=rule)
        return get_game(self.name)


def _setups_text(setups: tuple[Any, Any]) -> str:
    return "|".join("/".join(s.rows()) for s in setups)


#: the games events are run for, by name
EVENT_GAMES = {
    "doudizhu": TableGame(
        "doudizhu",
        "Dou Dizhu",
        ("landlord", "farmer1", "farmer2"),
        ("linear", "ccpc2016", "classic"),
    ),
    "junqi": TableGame("junqi", "Luzhanqi", ("south", "north"), ("win",)),
}


def table_game(name: object) -> TableGame:
    """The event game ``name``."""
    found = EVENT_GAMES.get(name) if isinstance(name, str) else None
    if found is None:
        raise EventError(f"game {name!r}: events are run for {', '.join(EVENT_GAMES)}")
    return found
