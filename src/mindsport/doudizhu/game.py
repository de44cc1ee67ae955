"""Dou Dizhu as a game of the shared contract, and whole games: :func:`play`, :class:`GameRecord`.

:class:`DouDizhuGame` is the game factory of :mod:`mindsport.games` (name ``doudizhu``): three
players (landlord, farmer 1, farmer 2), the deal as chance outcome (:func:`~.deal.deal`,
seed 001's Algorithm 2), returns under a scoring rule (they sum to zero).

:func:`play` plays one deal. When the three bots are built-in bots of the compiled engine
(:class:`~mindsport.doudizhu.bots.EngineBot`), the engine's game loop plays the whole game in
one call; otherwise the referee of :mod:`mindsport.games.referee` asks each bot in turn. Both
give the same game for the same bots and generator (the built-in bots are the engine's
decision kernel either way), and both draw the same numbers from ``rng``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mindsport.doudizhu.bots.base import Bot, EngineBot
from mindsport.doudizhu.deal import Deal, deal
from mindsport.doudizhu.moves import Move
from mindsport.doudizhu.scoring import LINEAR, SCORING_RULES, ScoringRule
from mindsport.doudizhu.state import LANDLORD, GameState, action_text
from mindsport.errors import MindsportError
from mindsport.games.contract import GameInfo
from mindsport.games.referee import Forfeit, play_state

__all__ = ["DouDizhuGame", "GameRecord", "play", "record_of"]

_MAX_TURNS = 1000


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
    doubles: int = 0
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


def _scoring(rule: ScoringRule | str) -> ScoringRule:
    if not isinstance(rule, str):
        return rule
    found = SCORING_RULES.get(rule.strip().lower())
    if found is None:
        raise MindsportError(f"unknown scoring {rule!r}; use one of {', '.join(SCORING_RULES)}")
    return found


class DouDizhuGame:
    """Dou Dizhu under a scoring rule (a rule value or its name: linear, ccpc2016, classic)."""

    def __init__(self, scoring: ScoringRule | str = LINEAR) -> None:
        self.scoring = _scoring(scoring)

    @property
    def info(self) -> GameInfo:
        return GameInfo(
            name="doudizhu",
            title="Dou Dizhu",
            players=3,
            returns_sum=0.0,
            chance="the deal: [landlord][farmer1][farmer2] (seed 001's Algorithm 2)",
        )

    def sample_chance(self, rng: np.random.Generator) -> Deal:
        return deal(rng)

    def new_initial_state(self, chance: Deal) -> GameState:
        if not isinstance(chance, Deal):
            raise MindsportError(f"a Dou Dizhu game starts from a Deal, got {chance!r}")
        return GameState(chance, self.scoring)

    def action_to_string(self, action: Move | None) -> str:
        return action_text(action)

    def make_bot(self, spec: str, *, time_limit: float = 10.0) -> Bot:
        from mindsport.doudizhu.bots import make_bot

        return make_bot(spec, time_limit=time_limit)

    def bot_names(self) -> Sequence[str]:
        return ("random", "greedy", "strong", "tracking", "level:N", "cmd:COMMAND")

    def play_batch(
        self,
        chances: Sequence[Deal],
        lineups: Sequence[tuple[str, ...]],
        keys: Sequence[tuple[int, ...]],
        seed: int,
    ) -> np.ndarray | None:
        """Many games on the compiled engine (see :class:`~mindsport.games.contract.BatchGame`);
        None when a line-up has a bot without an engine code."""
        from mindsport.doudizhu.batch import keyed_returns, lineup_codes

        found = lineup_codes(lineups)
        if found is None:
            return None
        return keyed_returns(chances, found[0], found[1], seed, keys, self.scoring)

    def __repr__(self) -> str:
        return f"DouDizhuGame(scoring={self.scoring.name!r})"


def record_of(
    state: GameState, scoring: ScoringRule, call: int = 1, doubles: int = 0, forfeit: Any = None
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
    A bot that answers an illegal move (or, for an external bot, times out or crashes)
    forfeits: see :class:`GameRecord`.
    """
    if len(players) != 3:
        raise MindsportError(f"a game needs 3 players, got {len(players)}")
    rng = np.random.default_rng() if rng is None else rng
    if all(isinstance(p, EngineBot) for p in players):
        from mindsport.doudizhu.batch import play_one

        return play_one(deal, players, scoring, rng, call=call, doubles=doubles)
    result = play_state(GameState(deal, scoring), players, rng, max_turns=_MAX_TURNS)
    state = result.final
    assert isinstance(state, GameState)
    return record_of(state, scoring, call, doubles, result.forfeit)
