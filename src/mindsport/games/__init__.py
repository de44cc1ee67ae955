"""Games as one contract (OpenSpiel's shape): the contract (game factories, states,
observations, bots), the referee, external bots speaking JSON lines, the registry of games and
their bot factories by name, bots from spec strings (:func:`make_bot`, :mod:`.specs`), and
many games at once (:func:`play_many`).

May import: errors, files and the command line's helpers (``games/cli.py``). Imports nothing
game-specific: :mod:`.registry` imports a game's module, or its bot factory, when it is asked
for (by name, as a string), so the game packages (doudizhu, junqi) sit above this one and bots
depend on games, never the reverse.
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.games.contract import TERMINAL, Bot, Game, GameInfo, IllegalMoveError, State
    from mindsport.games.many import Seeding, Table, play_many
    from mindsport.games.referee import (
        BotFailure,
        Forfeit,
        ForfeitReason,
        Playthrough,
        play_game,
        play_state,
    )
    from mindsport.games.registry import game_names, get_game, make_bot

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "TERMINAL": "mindsport.games.contract",
    "Bot": "mindsport.games.contract",
    "Game": "mindsport.games.contract",
    "GameInfo": "mindsport.games.contract",
    "IllegalMoveError": "mindsport.games.contract",
    "State": "mindsport.games.contract",
    "Seeding": "mindsport.games.many",
    "Table": "mindsport.games.many",
    "play_many": "mindsport.games.many",
    "BotFailure": "mindsport.games.referee",
    "Forfeit": "mindsport.games.referee",
    "ForfeitReason": "mindsport.games.referee",
    "Playthrough": "mindsport.games.referee",
    "play_game": "mindsport.games.referee",
    "play_state": "mindsport.games.referee",
    "game_names": "mindsport.games.registry",
    "get_game": "mindsport.games.registry",
    "make_bot": "mindsport.games.registry",
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
    "Seeding",
    "State",
    "Table",
    "game_names",
    "get_game",
    "make_bot",
    "play_game",
    "play_many",
    "play_state",
]
