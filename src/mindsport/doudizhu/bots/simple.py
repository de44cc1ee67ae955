"""Baseline bots: uniformly random, and greedy (always the smallest legal play)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mindsport.doudizhu.moves import Move, legal_moves
from mindsport.doudizhu.state import StateView

__all__ = ["GreedyBot", "RandomBot", "random_action"]


def random_action(view: StateView, rng: np.random.Generator) -> Move | None:
    """A uniformly random legal action (pass counts as one action when allowed)."""
    moves = legal_moves(view.hand, view.previous)
    n = len(moves) + (0 if view.previous is None else 1)
    i = int(rng.integers(n))
    return moves[i] if i < len(moves) else None


@dataclass(frozen=True, slots=True)
class RandomBot:
    """Uniformly random legal action, pass included when allowed."""

    name: str = "random"

    def act(self, view: StateView, rng: np.random.Generator) -> Move | None:
        return random_action(view, rng)


def _smallest_key(move: Move) -> tuple[bool, int, int]:
    return (move.is_bomb, move.main, -move.size)


@dataclass(frozen=True, slots=True)
class GreedyBot:
    """Plays whenever it can: the lowest main rank (most cards on ties), bombs last."""

    name: str = "greedy"

    def act(self, view: StateView, rng: np.random.Generator) -> Move | None:
        moves = legal_moves(view.hand, view.previous)
        if not moves:
            return None
        return min(moves, key=_smallest_key)
