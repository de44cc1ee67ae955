"""Two-player Luzhanqi (陆战棋): board, rules, referee, bots and belief tracking.

>>> import numpy as np
>>> from mindsport.junqi import State
>>> state = State.new_game(np.random.default_rng(0))
>>> state.current_player(), state.is_terminal()
(0, False)
>>> state.action_to_string(state.legal_actions()[0])
'a6-a7'

Bots play through the referee, which shows each side only its own kinds and collision outcomes:

>>> from mindsport.junqi import make_bot, play_game
>>> rng = np.random.default_rng(1)
>>> record = play_game([make_bot("greedy"), make_bot("random")], rng)
>>> record.winner in (0, 1, None), record.plies > 0
(True, True)
"""

from mindsport.junqi.board import InvalidPostError, parse_post, post_at, post_name
from mindsport.junqi.bots import BeliefBot, Bot, GreedyBot, RandomBot, make_bot
from mindsport.junqi.game import LuzhanqiGame
from mindsport.junqi.pieces import ROSTER, Outcome, PieceKind, collide
from mindsport.junqi.referee import GameRecord, Referee, play_game
from mindsport.junqi.rules import Rules, Setup, SetupError, random_setup
from mindsport.junqi.state import Event, IllegalMoveError, Observation, State
from mindsport.junqi.tracker import BeliefMethod, EnemyTracker

__all__ = [
    "ROSTER",
    "BeliefBot",
    "BeliefMethod",
    "Bot",
    "EnemyTracker",
    "Event",
    "GameRecord",
    "GreedyBot",
    "IllegalMoveError",
    "InvalidPostError",
    "LuzhanqiGame",
    "Observation",
    "Outcome",
    "PieceKind",
    "RandomBot",
    "Referee",
    "Rules",
    "Setup",
    "SetupError",
    "State",
    "collide",
    "make_bot",
    "parse_post",
    "play_game",
    "post_at",
    "post_name",
    "random_setup",
]
