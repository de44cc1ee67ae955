"""Dou Dizhu (斗地主 / competitive 二打一): cards, deals, moves, game state, scoring, logs.

Seats: 0 landlord, 1 farmer 1 (下家), 2 farmer 2 (上家). Where things are:

* rules as values: :mod:`.cards`, :mod:`.kinds`, :mod:`.moves` (the rules and legal moves),
  :mod:`.deal`, :mod:`.scoring` (the scoring rules), :mod:`.state` (a game in progress);
* the game: :mod:`.game` (the contract's game, :func:`play` one deal, ``simulate`` many),
  :mod:`.record` (a finished game), :mod:`.logs` (records on disk), :mod:`.player` (what a
  bot is, for the game), :mod:`.bidding`;
* the engine: :mod:`.compiled` (the numba kernels: moves, planner, bots, game loop, PCG64) and
  :mod:`.engine` (many games at once from Python); :mod:`.planning` (hand plans);
* card tracking: :mod:`.tracking` (:class:`~.tracking.CardTracker`) and :mod:`.splits` (the
  exact distribution of the unseen cards);
* the bots: :mod:`mindsport.doudizhu.bots`, which import the game; no other module of the
  package imports them (the registry of :mod:`mindsport.games` names their factory).

May import: errors, files, belief, games and the command line's helpers (``cli.py``).

>>> import numpy as np
>>> from mindsport.doudizhu import deal, play, LINEAR
>>> from mindsport.doudizhu.bots import StrongBot, GreedyBot
>>> rng = np.random.default_rng(7)
>>> record = play(deal(rng), [StrongBot(), GreedyBot(), GreedyBot()], scoring=LINEAR, rng=rng)
>>> record.winner_side in ("landlord", "farmers")
True
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.doudizhu.cards import RANKS, CardError, format_counts, parse_counts
    from mindsport.doudizhu.deal import Deal, DealError, deal
    from mindsport.doudizhu.game import DouDizhuGame, play
    from mindsport.doudizhu.logs import (
        LogError,
        read_logs,
        read_score_table,
        write_logs,
        write_score_table,
    )
    from mindsport.doudizhu.moves import Kind, Move, MoveError, beats, legal_moves, parse_move
    from mindsport.doudizhu.record import GameRecord
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

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "RANKS": "mindsport.doudizhu.cards",
    "CardError": "mindsport.doudizhu.cards",
    "format_counts": "mindsport.doudizhu.cards",
    "parse_counts": "mindsport.doudizhu.cards",
    "Deal": "mindsport.doudizhu.deal",
    "DealError": "mindsport.doudizhu.deal",
    "deal": "mindsport.doudizhu.deal",
    "DouDizhuGame": "mindsport.doudizhu.game",
    "GameRecord": "mindsport.doudizhu.record",
    "play": "mindsport.doudizhu.game",
    "LogError": "mindsport.doudizhu.logs",
    "read_logs": "mindsport.doudizhu.logs",
    "read_score_table": "mindsport.doudizhu.logs",
    "write_logs": "mindsport.doudizhu.logs",
    "write_score_table": "mindsport.doudizhu.logs",
    "Kind": "mindsport.doudizhu.moves",
    "Move": "mindsport.doudizhu.moves",
    "MoveError": "mindsport.doudizhu.moves",
    "beats": "mindsport.doudizhu.moves",
    "legal_moves": "mindsport.doudizhu.moves",
    "parse_move": "mindsport.doudizhu.moves",
    "CCPC2016": "mindsport.doudizhu.scoring",
    "CLASSIC": "mindsport.doudizhu.scoring",
    "LINEAR": "mindsport.doudizhu.scoring",
    "SCORING_RULES": "mindsport.doudizhu.scoring",
    "Ccpc2016Scoring": "mindsport.doudizhu.scoring",
    "ClassicScoring": "mindsport.doudizhu.scoring",
    "LinearScoring": "mindsport.doudizhu.scoring",
    "Outcome": "mindsport.doudizhu.scoring",
    "ScoringRule": "mindsport.doudizhu.scoring",
    "GameState": "mindsport.doudizhu.state",
    "IllegalMoveError": "mindsport.doudizhu.state",
    "StateView": "mindsport.doudizhu.state",
}

lazy_exports(__name__, _EXPORTS)


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
