"""The bot interface of Dou Dizhu (the shared game contract's, with Dou Dizhu's types)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from mindsport.doudizhu.moves import Move
from mindsport.doudizhu.state import StateView

__all__ = ["Action", "Bot", "EngineBot"]

#: A Dou Dizhu action: a :class:`Move`, or ``None`` to pass.
Action = Move | None


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
    in the compiled game loop (:mod:`mindsport.doudizhu.batch`)."""

    @property
    def engine_code(self) -> tuple[int, int]: ...
