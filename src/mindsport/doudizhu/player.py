"""What a Dou Dizhu player is: the bot interface (the shared game contract's, with Dou Dizhu's
types), the engine-bot interface, and the names of the bots the compiled engine plays itself.

The game (:mod:`.game`) and the engine (:mod:`.engine`) read bots through these interfaces
only; the bots themselves (:mod:`mindsport.doudizhu.bots`) import the game, never the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from mindsport.doudizhu.moves import Move
from mindsport.doudizhu.state import StateView
from mindsport.errors import MindsportError

__all__ = [
    "ENGINE_BOTS",
    "LEVEL",
    "Action",
    "Bot",
    "EngineBot",
    "engine_code",
]

#: A Dou Dizhu action: a :class:`Move`, or ``None`` to pass.
Action = Move | None

#: kernel codes of the compiled bots (:mod:`mindsport.doudizhu.compiled.bots`) by name, and
#: the code of the graded ``level:N`` family
ENGINE_BOTS: dict[str, int] = {"random": 0, "greedy": 1, "strong": 2}
LEVEL = 3


@runtime_checkable
class Bot(Protocol):
    """A player: ``act(view, legal_actions, rng)`` returns one of ``legal_actions``.

    ``view`` holds only what the seat may know (own hand, the full public history, cards left
    per seat, the kitty when public); ``legal_actions`` are the seat's legal moves, with
    ``None`` (pass) last when passing is allowed; ``rng`` is the only source of randomness,
    handed over at each decision, so games replay from a seed.
    """

    @property
    def name(self) -> str:
        """Short name used in logs and tables."""
        ...

    def act(
        self, view: StateView, legal_actions: Sequence[Action], rng: np.random.Generator
    ) -> Action: ...


@runtime_checkable
class EngineBot(Protocol):
    """A bot the compiled engine plays itself: ``engine_code`` is its kernel code and level
    (:mod:`mindsport.doudizhu.compiled.bots`). Games whose three bots all have one run whole
    in the compiled game loop (:mod:`mindsport.doudizhu.engine`)."""

    @property
    def engine_code(self) -> tuple[int, int]: ...


def engine_code(spec: str) -> tuple[int, int] | None:
    """The kernel code and level of a built-in engine bot's spec (``random``, ``greedy``,
    ``strong``, ``level:N``); None for any other spec.

    >>> engine_code("level:40"), engine_code("Strong"), engine_code("tracking")
    ((3, 40), (2, 0), None)
    """
    text = spec.strip().lower()
    if text in ENGINE_BOTS:
        return ENGINE_BOTS[text], 0
    name, _, arg = text.partition(":")
    if name.strip() == "level" and arg.strip().lstrip("-").isdigit():
        level = int(arg)
        if not 0 <= level <= 100:
            raise MindsportError(f"level {level!r} is outside 0..100")
        return LEVEL, level
    return None
