"""Two-player Luzhanqi (陆战棋): board, rules, referee, bots and belief tracking.

Where things are: :mod:`.board`, :mod:`.pieces`, :mod:`.rules` (setups, movement), :mod:`.state`
(a game in progress, observations), :mod:`.game` (the contract's game), :mod:`.referee`
(whole games and their record), :mod:`.player` (what a bot is, for the game), :mod:`.tracker`
(the enemy's pieces as a belief matrix) and :mod:`.bots`, which import the game; no other
module of the package imports them (the registry of :mod:`mindsport.games` names their
factory). May import: errors, belief, games and the command line's helpers (``cli.py``).

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

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.junqi.board import InvalidPostError, parse_post, post_at, post_name
    from mindsport.junqi.bots import BeliefBot, Bot, GreedyBot, RandomBot, make_bot
    from mindsport.junqi.game import LuzhanqiGame
    from mindsport.junqi.pieces import ROSTER, Outcome, PieceKind, collide
    from mindsport.junqi.referee import GameRecord, Referee, play_game
    from mindsport.junqi.rules import Rules, Setup, SetupError, random_setup
    from mindsport.junqi.state import Event, IllegalMoveError, Observation, State
    from mindsport.junqi.tracker import BeliefMethod, EnemyTracker

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "InvalidPostError": "mindsport.junqi.board",
    "parse_post": "mindsport.junqi.board",
    "post_at": "mindsport.junqi.board",
    "post_name": "mindsport.junqi.board",
    "BeliefBot": "mindsport.junqi.bots",
    "Bot": "mindsport.junqi.bots",
    "GreedyBot": "mindsport.junqi.bots",
    "RandomBot": "mindsport.junqi.bots",
    "make_bot": "mindsport.junqi.bots",
    "LuzhanqiGame": "mindsport.junqi.game",
    "ROSTER": "mindsport.junqi.pieces",
    "Outcome": "mindsport.junqi.pieces",
    "PieceKind": "mindsport.junqi.pieces",
    "collide": "mindsport.junqi.pieces",
    "GameRecord": "mindsport.junqi.referee",
    "Referee": "mindsport.junqi.referee",
    "play_game": "mindsport.junqi.referee",
    "Rules": "mindsport.junqi.rules",
    "Setup": "mindsport.junqi.rules",
    "SetupError": "mindsport.junqi.rules",
    "random_setup": "mindsport.junqi.rules",
    "Event": "mindsport.junqi.state",
    "IllegalMoveError": "mindsport.junqi.state",
    "Observation": "mindsport.junqi.state",
    "State": "mindsport.junqi.state",
    "BeliefMethod": "mindsport.junqi.tracker",
    "EnemyTracker": "mindsport.junqi.tracker",
}

lazy_exports(__name__, _EXPORTS)


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
