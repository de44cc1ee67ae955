"""A finished Dou Dizhu game as a value: :class:`GameRecord` (deal, every action, outcome,
scores), and :func:`record_of` a finished game state.

Both game loops give these records (the referee's, move by move, and the compiled engine's),
and the logs (:mod:`.logs`) write and read them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.moves import Move
from mindsport.doudizhu.scoring import LINEAR, NO_DOUBLES, ScoringRule
from mindsport.doudizhu.state import LANDLORD, GameState
from mindsport.games.referee import Forfeit

__all__ = ["GameRecord", "record_of"]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game: deal, every action ``(seat, move or None for pass)``, the outcome.

    After a forfeit (:mod:`mindsport.games.referee`) ``forfeit`` says which seat broke down and
    why, ``winner`` is the first seat of the other side (0 for the landlord, 1 for the farmers)
    and the scores are the forfeiting side's loss.
    """

    deal: Deal
    moves: tuple[tuple[int, Move | None], ...]
    winner: int  # seat that went out first
    bombs: int
    rockets: int
    spring: bool
    scores: tuple[float, float, float]
    scoring: str = LINEAR.name
    call: int = 1
    doubles: tuple[int, int] = NO_DOUBLES
    forfeit: Forfeit | None = None

    @property
    def winner_side(self) -> str:
        """``"landlord"`` or ``"farmers"``."""
        return "landlord" if self.winner == LANDLORD else "farmers"

    @property
    def landlord_won(self) -> bool:
        return self.winner == LANDLORD

    @property
    def landlord_score(self) -> float:
        return self.scores[0]


def record_of(
    state: GameState,
    scoring: ScoringRule,
    call: int = 1,
    doubles: tuple[int, int] = NO_DOUBLES,
    forfeit: Any = None,
) -> GameRecord:
    """The record of a finished game state."""
    return GameRecord(
        deal=state.deal,
        moves=tuple(state.history),
        winner=state.winner,
        bombs=state.bombs,
        rockets=state.rockets,
        spring=state.spring(),
        scores=scoring.scores(replace(state.outcome(), call=call, doubles=doubles)),
        scoring=scoring.name,
        call=call,
        doubles=doubles,
        forfeit=forfeit,
    )
