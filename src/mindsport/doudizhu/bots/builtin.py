"""The built-in bots: random, greedy, strong and the graded ``level:N`` family.

Each is a thin typed wrapper over one decision kernel of the compiled engine
(:func:`mindsport.doudizhu.compiled.bots.decide`, where the strong bot's rules are written
down): :meth:`act` hands the kernel the seat's view and the generator's state, and reads back
the move and the advanced state. The compiled game loop calls the same kernel, so a game plays
the same whether Python or the engine drives it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mindsport.doudizhu.kinds import KIND_CODE, PASS, Kind
from mindsport.doudizhu.moves import move_table
from mindsport.doudizhu.player import ENGINE_BOTS, LEVEL, Action
from mindsport.doudizhu.state import StateView
from mindsport.errors import InternalError, MindsportError

__all__ = ["GreedyBot", "LevelBot", "RandomBot", "StrongBot", "engine_decision"]

_KINDS = tuple(Kind)
# kernel codes (mindsport.doudizhu.compiled.bots)
_RANDOM, _GREEDY, _STRONG = ENGINE_BOTS["random"], ENGINE_BOTS["greedy"], ENGINE_BOTS["strong"]


def engine_decision(code: int, level: int, view: StateView, rng: np.random.Generator) -> Action:
    """The compiled bot ``code`` (``level`` for ``level:N``) deciding for ``view.seat``; draws
    on ``rng`` exactly as the compiled game loop draws on the game's generator."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.compiled.bots import Turn, decide_one
    from mindsport.doudizhu.compiled.rng import state_array, store_state

    ensure_compiled()
    prev = view.previous
    st = state_array(rng)
    out = np.zeros(15, np.int64)
    turn = Turn(
        code,
        level,
        view.seat,
        PASS if prev is None else KIND_CODE[prev.kind],
        -1 if prev is None else prev.main,
        0 if prev is None else prev.size,
        view.previous_player,
    )
    hand = np.array(view.hand, np.int64)
    unseen = np.array(view.unseen(), np.int64)
    kind, _ = decide_one(turn, hand, unseen, np.array(view.cards_left, np.int64), st, out)
    store_state(rng, st)
    if kind == PASS:
        return None
    move = move_table().find(_KINDS[int(kind)], out.tolist())
    if move is None:  # pragma: no cover - the kernels only choose moves of the table
        raise InternalError(f"the engine chose no move: kind {int(kind)}, counts {out.tolist()}")
    return move


class _EngineDecision:
    """The built-in bots' ``act``: the engine decides for ``engine_code``."""

    __slots__ = ()

    @property
    def engine_code(self) -> tuple[int, int]:  # pragma: no cover - every bot overrides it
        raise NotImplementedError

    def act(
        self, view: StateView, legal_actions: Sequence[Action], rng: np.random.Generator
    ) -> Action:
        code, level = self.engine_code
        return engine_decision(code, level, view, rng)


@dataclass(frozen=True, slots=True)
class RandomBot(_EngineDecision):
    """Uniformly random legal action, pass included when allowed."""

    name: str = "random"

    @property
    def engine_code(self) -> tuple[int, int]:
        return (_RANDOM, 0)


@dataclass(frozen=True, slots=True)
class GreedyBot(_EngineDecision):
    """Plays whenever it can: the lowest main rank (most cards on ties), bombs last."""

    name: str = "greedy"

    @property
    def engine_code(self) -> tuple[int, int]:
        return (_GREEDY, 0)


@dataclass(frozen=True, slots=True)
class StrongBot(_EngineDecision):
    """Plan-based heuristic bot (deterministic: draws nothing from ``rng``); its rules are in
    :mod:`mindsport.doudizhu.compiled.bots`."""

    name: str = "strong"

    @property
    def engine_code(self) -> tuple[int, int]:
        return (_STRONG, 0)


@dataclass(frozen=True, slots=True)
class LevelBot(_EngineDecision):
    """At each turn, plays the strong bot's move with probability ``level / 100``, otherwise a
    uniformly random legal action. Level 0 is the random bot, level 100 the strong bot, and
    the expected share of strong decisions grows linearly in between (strength is monotone).
    """

    level: int
    name: str = field(init=False)

    def __post_init__(self) -> None:
        if isinstance(self.level, bool) or not 0 <= self.level <= 100:
            raise MindsportError(f"level {self.level!r} is outside 0..100")
        object.__setattr__(self, "level", int(self.level))
        object.__setattr__(self, "name", f"level:{self.level}")

    @property
    def engine_code(self) -> tuple[int, int]:
        return (LEVEL, self.level)
