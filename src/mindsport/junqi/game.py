"""Luzhanqi as a game of the shared contract (:mod:`mindsport.games.contract`), name ``junqi``.

Two players; the chance outcome is the pair of setups (:func:`~.rules.random_setup` for each
side, south first); returns are +1 / -1, or 0 each for a draw (they sum to zero). Actions are
ints ``source * 60 + target``, written ``a6-a7``. Its bots are made by
:func:`mindsport.games.make_bot`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mindsport.errors import MindsportError
from mindsport.games.contract import GameInfo
from mindsport.junqi.board import post_name
from mindsport.junqi.rules import Rules, Setup, random_setup
from mindsport.junqi.state import State, decode_action

__all__ = ["LuzhanqiGame"]

#: The built-in bots' names (made by :func:`mindsport.junqi.bots.make_bot`, which this module
#: does not import), and the external programs every game takes.
_BOT_NAMES = (
    "random",
    "greedy",
    "belief",
    "belief-patent",
    "belief-rowonly",
    "belief-nolook",
    "cmd:COMMAND",
)


class LuzhanqiGame:
    """Luzhanqi under ``rules`` (the no-capture draw limit, the ply cap, flag reveals)."""

    def __init__(self, rules: Rules | None = None, **settings: int | bool) -> None:
        self.rules = rules if rules is not None else Rules(**settings)  # type: ignore[arg-type]

    @property
    def info(self) -> GameInfo:
        return GameInfo(
            name="junqi",
            title="Luzhanqi",
            players=2,
            returns_sum=0.0,
            chance="the two setups (south's, north's), each a random legal setup",
            references=(("greedy", "random"),),
        )

    def sample_chance(self, rng: np.random.Generator) -> tuple[Setup, Setup]:
        return (random_setup(rng), random_setup(rng))

    def new_initial_state(self, chance: Sequence[Setup]) -> State:
        if len(chance) != 2 or not all(isinstance(s, Setup) for s in chance):
            raise MindsportError(f"a Luzhanqi game starts from two setups, got {chance!r}")
        return State(chance, self.rules)

    def action_to_string(self, action: int) -> str:
        source, target = decode_action(action)
        return f"{post_name(source)}-{post_name(target)}"

    def bot_names(self) -> Sequence[str]:
        return _BOT_NAMES

    def __repr__(self) -> str:
        return f"LuzhanqiGame({self.rules!r})"
