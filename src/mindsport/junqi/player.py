"""What a Luzhanqi player is: the bot interface (the shared game contract's, with Luzhanqi's
types). The game and the referee read bots through it only; the bots
(:mod:`mindsport.junqi.bots`) import the game's modules, never the reverse."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from mindsport.junqi.state import Observation

__all__ = ["Bot"]


class Bot(Protocol):
    """A Luzhanqi player: one of ``legal_actions`` (ints) for ``observation``."""

    @property
    def name(self) -> str: ...

    def act(
        self, observation: Observation, legal_actions: Sequence[int], rng: np.random.Generator
    ) -> int: ...
