"""Riichi mahjong (four players, east-only or east-south) on riichienv's engine.

The rules, walls and scoring are riichienv's (``pip install 'mindsport[mahjong]'``); this
package puts them in the game contract. Where things are: :mod:`.tiles` (tile ids and mjai
names), :mod:`.state` (a game in progress, its moves and observations), :mod:`.game` (the
contract's games ``mahjong`` and ``mahjong-east``, the walls, the record of a game),
:mod:`.duplicate` (one set of walls in the four cyclic seat rotations), :mod:`.scoring` (a
game's score by placement points and uma, as the World Riichi Championship rules score it;
plain values), :mod:`.mjai` (external bots speaking mjai) and :mod:`.bots`, which import the
game; no other module of the package imports them (the registry of :mod:`mindsport.games`
names their factory). May import: errors and games.

>>> import numpy as np
>>> from mindsport.games import get_game, make_bot, play_game
>>> game = get_game("mahjong-east")
>>> bots = [make_bot(game, spec) for spec in ("level:100", "level:60", "level:20", "random")]
>>> result = play_game(game, bots, np.random.default_rng(7))
>>> record = game.record(result)
>>> sorted(record.placements)
[1, 2, 3, 4]
>>> sum(record.points) + 1000 * record.riichi_sticks
100000
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.mahjong.duplicate import (
        DuplicateResult,
        duplicate_tables,
        per_player,
        play_duplicate,
        rotations,
    )
    from mindsport.mahjong.game import LENGTHS, MahjongGame, MahjongRecord, Walls, east_game
    from mindsport.mahjong.state import MahjongObservation, MahjongState, Move, placements

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "DuplicateResult": "mindsport.mahjong.duplicate",
    "duplicate_tables": "mindsport.mahjong.duplicate",
    "per_player": "mindsport.mahjong.duplicate",
    "play_duplicate": "mindsport.mahjong.duplicate",
    "rotations": "mindsport.mahjong.duplicate",
    "LENGTHS": "mindsport.mahjong.game",
    "MahjongGame": "mindsport.mahjong.game",
    "MahjongRecord": "mindsport.mahjong.game",
    "Walls": "mindsport.mahjong.game",
    "east_game": "mindsport.mahjong.game",
    "MahjongObservation": "mindsport.mahjong.state",
    "MahjongState": "mindsport.mahjong.state",
    "Move": "mindsport.mahjong.state",
    "placements": "mindsport.mahjong.state",
}

lazy_exports(__name__, _EXPORTS)


__all__ = [
    "LENGTHS",
    "DuplicateResult",
    "MahjongGame",
    "MahjongObservation",
    "MahjongRecord",
    "MahjongState",
    "Move",
    "Walls",
    "duplicate_tables",
    "east_game",
    "per_player",
    "placements",
    "play_duplicate",
    "rotations",
]
