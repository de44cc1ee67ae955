"""Dou Dizhu (斗地主 / competitive 二打一): cards, deals, moves, game state, scoring, logs.

Seats: 0 landlord, 1 farmer 1 (下家), 2 farmer 2 (上家). See :mod:`mindsport.doudizhu.moves`
for the rules, :mod:`mindsport.doudizhu.scoring` for the scoring rules and
:mod:`mindsport.doudizhu.bots` for the bots.

>>> import numpy as np
>>> from mindsport.doudizhu import deal, play, LINEAR
>>> from mindsport.doudizhu.bots import StrongBot, GreedyBot
>>> rng = np.random.default_rng(7)
>>> record = play(deal(rng), [StrongBot(), GreedyBot(), GreedyBot()], scoring=LINEAR, rng=rng)
>>> record.winner_side in ("landlord", "farmers")
True
"""

from mindsport.doudizhu.cards import RANKS, CardError, format_counts, parse_counts
from mindsport.doudizhu.deal import Deal, DealError, deal
from mindsport.doudizhu.game import DouDizhuGame, GameRecord, play
from mindsport.doudizhu.logs import (
    LogError,
    read_logs,
    read_score_table,
    write_logs,
    write_score_table,
)
from mindsport.doudizhu.moves import Kind, Move, MoveError, beats, legal_moves, parse_move
from mindsport.doudizhu.scoring import (
    CCPC2016,
    CLASSIC,
    LINEAR,
    SCORING_RULES,
    Ccpc2016Scoring,
    ClassicScoring,
    LinearScoring,
    Outcome,
    ScoringRule,
)
from mindsport.doudizhu.state import GameState, IllegalMoveError, StateView

__all__ = [
    "CCPC2016",
    "CLASSIC",
    "LINEAR",
    "RANKS",
    "SCORING_RULES",
    "CardError",
    "Ccpc2016Scoring",
    "ClassicScoring",
    "Deal",
    "DealError",
    "DouDizhuGame",
    "GameRecord",
    "GameState",
    "IllegalMoveError",
    "Kind",
    "LinearScoring",
    "LogError",
    "Move",
    "MoveError",
    "Outcome",
    "ScoringRule",
    "StateView",
    "beats",
    "deal",
    "format_counts",
    "legal_moves",
    "parse_counts",
    "parse_move",
    "play",
    "read_logs",
    "read_score_table",
    "write_logs",
    "write_score_table",
]
