"""Playing whole games: :func:`play` and the :class:`GameRecord` it returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from mindsport.doudizhu.bots.base import Bot
from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.moves import Move, beats
from mindsport.doudizhu.scoring import LINEAR, ScoringRule
from mindsport.doudizhu.state import LANDLORD, GameState, IllegalMoveError
from mindsport.errors import MindsportError

__all__ = ["GameRecord", "play"]

_MAX_TURNS = 1000


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game: deal, every action ``(seat, move or None for pass)``, the outcome."""

    deal: Deal
    moves: tuple[tuple[int, Move | None], ...]
    winner: int  # seat that went out first
    bombs: int
    rockets: int
    spring: bool
    scores: tuple[float, float, float]
    scoring: str = LINEAR.name
    call: int = 1
    doubles: int = 0

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


def play(
    deal: Deal,
    players: Sequence[Bot],
    scoring: ScoringRule = LINEAR,
    rng: np.random.Generator | None = None,
    call: int = 1,
    doubles: int = 0,
) -> GameRecord:
    """Play one game between three bots (seat order landlord, farmer1, farmer2).

    ``call`` (the landlord's bid, 1-3) and ``doubles`` (doublings announced before play) enter
    the score under :data:`CCPC2016` and :data:`CLASSIC`; bidding itself is not simulated.

    Each bot move is checked cheaply (in hand, beats the play to beat, no pass when leading);
    a bot that breaks the rules raises :class:`IllegalMoveError`.
    """
    if len(players) != 3:
        raise MindsportError(f"a game needs 3 players, got {len(players)}")
    rng = np.random.default_rng() if rng is None else rng
    state = GameState(deal)
    for _ in range(_MAX_TURNS):
        if state.is_terminal():
            break
        seat = state.current_player()
        view = state.view(seat)
        move = players[seat].act(view, rng)
        prev = view.previous
        if move is None:
            if prev is None:
                raise IllegalMoveError(f"bot {players[seat].name!r} passed while leading")
        else:
            hand = view.hand
            if any(n > h for n, h in zip(move.counts, hand, strict=True)) or (
                prev is not None and not beats(move, prev)
            ):
                raise IllegalMoveError(
                    f"bot {players[seat].name!r} played {move} illegally on {prev} "
                    f"from {view.hand_text}"
                )
        state.apply_unchecked(move)
    if not state.is_terminal():  # pragma: no cover - every trick ends after two passes
        raise MindsportError(f"game {deal} did not end in {_MAX_TURNS} turns")
    return GameRecord(
        deal=deal,
        moves=tuple(state.history),
        winner=state.winner,
        bombs=state.bombs,
        rockets=state.rockets,
        spring=state.spring(),
        scores=scoring.scores(replace(state.outcome(), call=call, doubles=doubles)),
        scoring=scoring.name,
        call=call,
        doubles=doubles,
    )
