"""Scoring rules: values (not flags) that turn a finished game into the three seats' scores.

Scores are returned in seat order (landlord, farmer1, farmer2) and always sum to zero.

* :data:`LINEAR` -- the papers' tournament score (the DIH paper §1.1.1, the equal-strength paper):
  the landlord gets ``+-(1 + bombs + rockets played)`` (a rocket counts like a bomb), so a game with
  one bomb scores in the levels ``(-2, -1, 1, 2)`` of the equal-strength paper's grade-difficulty
  index. The papers only record the landlord's score; we make the game zero-sum by giving each
  farmer minus half of it.
* :data:`CCPC2016` -- each defender (farmer) scores ``call x (+1 if the farmers won else -1) x
  2 ** (bombs + rockets + spring + doubles)``; the landlord scores minus their sum.
* :data:`CLASSIC` -- the stake is ``bid x 2 ** (bombs + rockets)``, doubled for a spring; the
  landlord wins or loses two stakes, each farmer one.

A spring (春天) is a landlord win in which no farmer played a card, or a farmer win in which the
landlord played only his opening lead (反春).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "CCPC2016",
    "CLASSIC",
    "LINEAR",
    "SCORING_RULES",
    "Ccpc2016Scoring",
    "ClassicScoring",
    "LinearScoring",
    "Outcome",
    "ScoringRule",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What scoring needs to know about a finished game (``call``: the landlord's bid, 1-3;
    ``doubles``: doublings announced before play)."""

    landlord_won: bool
    bombs: int = 0
    rockets: int = 0
    spring: bool = False
    call: int = 1
    doubles: int = 0


class ScoringRule(Protocol):
    """A scoring rule: ``name`` and ``scores(outcome) -> (landlord, farmer1, farmer2)``."""

    @property
    def name(self) -> str: ...

    def scores(self, outcome: Outcome) -> tuple[float, float, float]: ...


@dataclass(frozen=True, slots=True)
class LinearScoring:
    """Landlord ``+-(1 + bombs + rockets)``, each farmer minus half of it.

    >>> LINEAR.scores(Outcome(landlord_won=False, bombs=1))
    (-2.0, 1.0, 1.0)
    """

    name: str = "linear"

    def scores(self, outcome: Outcome) -> tuple[float, float, float]:
        sign = 1.0 if outcome.landlord_won else -1.0
        landlord = sign * (1 + outcome.bombs + outcome.rockets)
        return (landlord, -landlord / 2, -landlord / 2)


@dataclass(frozen=True, slots=True)
class Ccpc2016Scoring:
    """2016 competition rule: defender = call x +-1 x 2^(bombs+rockets+spring+doubles).

    >>> CCPC2016.scores(Outcome(landlord_won=True, bombs=1, spring=True, call=3))
    (24.0, -12.0, -12.0)
    """

    name: str = "ccpc2016"

    def scores(self, outcome: Outcome) -> tuple[float, float, float]:
        call = outcome.call
        sign = -1.0 if outcome.landlord_won else 1.0
        power = outcome.bombs + outcome.rockets + int(outcome.spring) + outcome.doubles
        farmer = call * sign * 2.0**power
        return (-2 * farmer, farmer, farmer)


@dataclass(frozen=True, slots=True)
class ClassicScoring:
    """Stake = bid x 2^(bombs+rockets) (x2 for a spring); landlord +-2 stakes, farmers -+1.

    >>> CLASSIC.scores(Outcome(landlord_won=False, rockets=1))
    (-4.0, 2.0, 2.0)
    """

    name: str = "classic"

    def scores(self, outcome: Outcome) -> tuple[float, float, float]:
        bid = outcome.call
        stake = bid * 2.0 ** (outcome.bombs + outcome.rockets) * (2 if outcome.spring else 1)
        landlord = 2 * stake if outcome.landlord_won else -2 * stake
        return (landlord, -landlord / 2, -landlord / 2)


LINEAR = LinearScoring()
CCPC2016 = Ccpc2016Scoring()
CLASSIC = ClassicScoring()
#: The built-in rules by name (for the command line and logs).
SCORING_RULES: dict[str, ScoringRule] = {r.name: r for r in (LINEAR, CCPC2016, CLASSIC)}
