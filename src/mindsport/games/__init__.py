"""Games as one contract (OpenSpiel's shape): game factories, states, observations, bots, the
referee, external bots speaking JSON lines, and the registry of games by name.

Imports nothing game-specific: :mod:`.registry` imports a game's module when it is asked for.
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
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

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "TERMINAL": "mindsport.games.contract",
    "Bot": "mindsport.games.contract",
    "Game": "mindsport.games.contract",
    "GameInfo": "mindsport.games.contract",
    "IllegalMoveError": "mindsport.games.contract",
    "State": "mindsport.games.contract",
    "BotFailure": "mindsport.games.referee",
    "Forfeit": "mindsport.games.referee",
    "ForfeitReason": "mindsport.games.referee",
    "Playthrough": "mindsport.games.referee",
    "play_game": "mindsport.games.referee",
    "play_state": "mindsport.games.referee",
    "game_names": "mindsport.games.registry",
    "get_game": "mindsport.games.registry",
}

lazy_exports(__name__, _EXPORTS)


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
