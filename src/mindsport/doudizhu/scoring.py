"""Scoring rules: values (not flags) that turn a finished game into the three seats' scores.

Scores are returned in seat order (landlord, farmer1, farmer2) and always sum to zero.

* :data:`LINEAR` -- the papers' tournament score (the DIH paper §1.1.1, the equal-strength paper):
  the landlord gets ``+-(1 + bombs + rockets played)`` (a rocket counts like a bomb), so a game with
  one bomb scores in the levels ``(-2, -1, 1, 2)`` of the equal-strength paper's grade-difficulty
  index. The papers only record the landlord's score; we make the game zero-sum by giving each
  farmer minus half of it.
* :data:`CCPC2016` -- the 2016 competition rule as published: each defender (farmer) scores
  ``call x (+1 if the farmers won else -1) x 2 ** (bombs + rockets + spring + doubles[i])``,
  where ``doubles[i]`` counts the doublings on farmer i's own stake (his double, and the
  landlord's redouble against him); the landlord scores minus their sum, so the farmers' scores
  differ when only one of them doubled. The rules' worked example: bid 3, one bomb and one
  rocket, a reverse spring, farmer 1 doubles and the landlord redoubles: farmer 1 +96, farmer 2
  +24, landlord -120.
* :data:`CLASSIC` -- the stake is ``bid x 2 ** (bombs + rockets)``, doubled for a spring; the
  landlord wins or loses two stakes, each farmer one.

A spring (春天) is a landlord win in which no farmer played a card, or a farmer win in which the
landlord played only his opening lead (反春).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mindsport.errors import MindsportError

__all__ = [
    "CCPC2016",
    "CLASSIC",
    "LINEAR",
    "NO_DOUBLES",
    "SCORING_RULES",
    "Ccpc2016Scoring",
    "ClassicScoring",
    "LinearScoring",
    "Outcome",
    "ScoringRule",
    "check_doubles",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What scoring needs to know about a finished game (``call``: the landlord's bid, 1-3;
    ``doubles``: per farmer (farmer 1, farmer 2) the doublings announced on his stake before
    play, 0 to 2: his own double and the landlord's redouble against him; see
    :func:`check_doubles`)."""

    landlord_won: bool
    bombs: int = 0
    rockets: int = 0
    spring: bool = False
    call: int = 1
    doubles: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        check_doubles(self.doubles)


#: no doubling on either farmer's stake
NO_DOUBLES: tuple[int, int] = (0, 0)


def check_doubles(doubles: object) -> tuple[int, int]:
    """``doubles`` checked: a pair (farmer 1, farmer 2) of 0 (no doubling), 1 (the farmer
    doubled) or 2 (the farmer doubled and the landlord redoubled against him)."""
    if (
        not isinstance(doubles, tuple | list)
        or len(doubles) != 2
        or any(isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 2 for d in doubles)
    ):
        raise MindsportError(
            f"doubles {doubles!r}: give farmer 1's and farmer 2's doublings, each 0 (none), "
            "1 (he doubled) or 2 (he doubled and the landlord redoubled)"
        )
    return (int(doubles[0]), int(doubles[1]))


class ScoringRule(Protocol):
    """A scoring rule: ``name``, ``scores(outcome) -> (landlord, farmer1, farmer2)`` and
    ``problem(scores)``: what is wrong with three finite scores entered for one game under the
    rule (a director's result), or None when some game could have scored them."""

    @property
    def name(self) -> str: ...

    def scores(self, outcome: Outcome) -> tuple[float, float, float]: ...

    def problem(self, scores: tuple[float, float, float]) -> str | None: ...


def _zero_sum(scores: tuple[float, float, float]) -> str | None:
    landlord, f1, f2 = scores
    if abs(landlord + f1 + f2) > 1e-9 * max(1.0, abs(landlord)):
        return f"scores {list(scores)} do not add up to 0 (the landlord wins what the farmers lose)"
    return None


def _farmers_alike(scores: tuple[float, float, float]) -> str | None:
    why = _zero_sum(scores)
    if why is None and scores[1] != scores[2]:
        why = f"the farmers score {scores[1]} and {scores[2]}; they win or lose together"
    return why


def _ccpc2016_problem(scores: tuple[float, float, float]) -> str | None:
    why = _zero_sum(scores)
    if why is not None:
        return why
    _, f1, f2 = scores
    if f1 == 0 or f2 == 0 or (f1 > 0) != (f2 > 0):
        return (
            f"the farmers score {f1:g} and {f2:g}; under ccpc2016 they win or lose together, "
            "each a non-zero stake"
        )
    small, large = sorted((abs(f1), abs(f2)))
    if large / small not in (1.0, 2.0, 4.0):
        return (
            f"the farmers score {f1:g} and {f2:g}; under ccpc2016 their stakes differ only by "
            "their doublings (a factor 1, 2 or 4)"
        )
    for call in (1, 2, 3):
        power = small / call
        if power >= 1 and power.is_integer() and int(power) & (int(power) - 1) == 0:
            return None
    return (
        f"farmer score {small:g} is not a call (1, 2 or 3) times a power of two, as ccpc2016 "
        "scores are"
    )


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

    def problem(self, scores: tuple[float, float, float]) -> str | None:
        """Zero-sum, the farmers alike."""
        return _farmers_alike(scores)


@dataclass(frozen=True, slots=True)
class Ccpc2016Scoring:
    """2016 competition rule: farmer i = call x +-1 x 2^(bombs+rockets+spring+doubles[i]),
    the landlord minus their sum.

    >>> CCPC2016.scores(Outcome(landlord_won=True, bombs=1, spring=True, call=3))
    (24.0, -12.0, -12.0)
    >>> CCPC2016.scores(Outcome(False, bombs=1, rockets=1, spring=True, call=3, doubles=(2, 0)))
    (-120.0, 96.0, 24.0)
    """

    name: str = "ccpc2016"

    def scores(self, outcome: Outcome) -> tuple[float, float, float]:
        sign = -1.0 if outcome.landlord_won else 1.0
        power = outcome.bombs + outcome.rockets + int(outcome.spring)
        f1, f2 = (outcome.call * sign * 2.0 ** (power + d) for d in outcome.doubles)
        return (-(f1 + f2), f1, f2)

    def problem(self, scores: tuple[float, float, float]) -> str | None:
        """Zero-sum; the farmers on one side, each ``call x 2^k`` (call 1-3, k >= 0), their
        stakes a factor 1, 2 or 4 apart (their doublings).

        >>> CCPC2016.problem((-120.0, 96.0, 24.0)) is None
        True
        >>> CCPC2016.problem((-120.0, 100.0, 20.0))[:52]
        'the farmers score 100 and 20; under ccpc2016 their s'
        """
        return _ccpc2016_problem(scores)


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

    def problem(self, scores: tuple[float, float, float]) -> str | None:
        """Zero-sum, the farmers alike."""
        return _farmers_alike(scores)


LINEAR = LinearScoring()
CCPC2016 = Ccpc2016Scoring()
CLASSIC = ClassicScoring()
#: The built-in rules by name (for the command line and logs).
SCORING_RULES: dict[str, ScoringRule] = {r.name: r for r in (LINEAR, CCPC2016, CLASSIC)}
