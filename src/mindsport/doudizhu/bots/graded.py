"""A family of bots of graded skill: one knob ``level`` from 0 (random) to 100 (strong)."""

from __future__ import annotations

import numpy as np

from mindsport.doudizhu.bots.simple import random_action
from mindsport.doudizhu.bots.strong import StrongBot
from mindsport.doudizhu.moves import Move
from mindsport.doudizhu.state import StateView
from mindsport.errors import MindsportError

__all__ = ["LevelBot"]


class LevelBot:
    """At each turn, plays the strong bot's move with probability ``level / 100``, otherwise a
    uniformly random legal action. Level 0 is the random bot, level 100 the strong bot, and
    the expected share of strong decisions grows linearly in between (strength is monotone).
    """

    def __init__(self, level: int) -> None:
        if not 0 <= level <= 100:
            raise MindsportError(f"level {level!r} is outside 0..100")
        self.level = int(level)
        self.name = f"level:{self.level}"
        self._strong = StrongBot()

    def act(self, view: StateView, rng: np.random.Generator) -> Move | None:
        if self.level >= 100 or (self.level > 0 and rng.random() * 100 < self.level):
            return self._strong.act(view, rng)
        return random_action(view, rng)
