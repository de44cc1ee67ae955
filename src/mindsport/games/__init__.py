"""Games as one contract (OpenSpiel's shape): game factories, states, observations, bots, the
referee, external bots speaking JSON lines, and the registry of games by name.

Imports nothing game-specific: :mod:`.registry` imports a game's module when it is asked for.
"""

from mindsport.games.contract import TERMINAL, Bot, Game, GameInfo, IllegalMoveError, State
from mindsport.games.referee import (
    BotFailure,
    Forfeit,
    ForfeitReason,
    Playthrough,
    play_game,
    play_state,
)
from mindsport.games.registry import game_names, get_game

__all__ = [
    "TERMINAL",
    "Bot",
    "BotFailure",
    "Forfeit",
    "ForfeitReason",
    "Game",
    "GameInfo",
    "IllegalMoveError",
    "Playthrough",
    "State",
    "game_names",
    "get_game",
    "play_game",
    "play_state",
]
