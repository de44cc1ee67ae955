"""The bot interface."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from mindsport.doudizhu.moves import Move
from mindsport.doudizhu.state import StateView

__all__ = ["Bot"]


@runtime_checkable
class Bot(Protocol):
    """A player: ``act(view, rng)`` returns a legal :class:`Move` or ``None`` to pass.

    ``view`` holds only what the seat may know (own hand, the full public history, cards left
    per seat); ``rng`` is the only source of randomness, so games replay from a seed.
    """

    @property
    def name(self) -> str:
        """Short name used in logs and tables."""
        ...

    def act(self, view: StateView, rng: np.random.Generator) -> Move | None: ...
