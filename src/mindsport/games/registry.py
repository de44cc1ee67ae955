"""The games of the package and their bots, by name: ``get_game("doudizhu")``, ``game_names()``,
``make_bot(game, "level:40")``.

Built-in games are listed here by the module and attribute of their factory, and each game's
bot factory likewise (``"mindsport.doudizhu.bots:make_bot"``: a function of one built-in bot
spec); both are imported only when asked for, so no game module imports its bots and this
module imports no game. A game of another package joins without any change here, through the
entry point groups ``mindsport.games`` (``name = "package.module:factory"``) and
``mindsport.bots`` (``name = "package.module:bot_factory"``): the referee, the tournament
runners and the command line find it like the built-in ones.

:func:`make_bot` is the one way to a bot from a spec string: ``cmd:COMMAND`` is an external
program speaking the JSON-lines bot protocol (:mod:`mindsport.games.external`), or the game's
own protocol when the game has a method ``external_bot(command, time_limit)`` (riichi mahjong:
mjai); any other spec goes to the game's own bot factory.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from mindsport.errors import MindsportError
from mindsport.games.contract import Bot, Game
from mindsport.games.specs import parse_spec

__all__ = [
    "BOT_ENTRY_POINT_GROUP",
    "DEFAULT_TIME_LIMIT",
    "ENTRY_POINT_GROUP",
    "GameNotFoundError",
    "bot_factory",
    "game_names",
    "get_game",
    "make_bot",
]

ENTRY_POINT_GROUP = "mindsport.games"
BOT_ENTRY_POINT_GROUP = "mindsport.bots"

#: Seconds an external (``cmd:``) bot may think per move unless told otherwise.
DEFAULT_TIME_LIMIT = 10.0

_BUILTIN: dict[str, str] = {
    "doudizhu": "mindsport.doudizhu.game:DouDizhuGame",
    "junqi": "mindsport.junqi.game:LuzhanqiGame",
    "mahjong": "mindsport.mahjong.game:MahjongGame",
    "mahjong-east": "mindsport.mahjong.game:east_game",
}
_BUILTIN_BOTS: dict[str, str] = {
    "doudizhu": "mindsport.doudizhu.bots:make_bot",
    "junqi": "mindsport.junqi.bots:make_bot",
    "mahjong": "mindsport.mahjong.bots:make_bot",
    "mahjong-east": "mindsport.mahjong.bots:make_bot",
}


class GameNotFoundError(MindsportError):
    """A game name that no registered game has (or a game without a bot factory)."""


def _registered(builtin: dict[str, str], group: str) -> dict[str, str]:
    found = dict(builtin)
    for point in entry_points(group=group):
        found.setdefault(point.name, point.value)
    return found


def game_names() -> list[str]:
    """Names of the registered games, sorted."""
    return sorted(_registered(_BUILTIN, ENTRY_POINT_GROUP))


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    factory: Callable[..., Any] = getattr(importlib.import_module(module), attr)
    return factory


def get_game(name: str, **params: Any) -> Game:
    """A new game object: the factory registered as ``name`` called with ``params`` (e.g.
    ``get_game("doudizhu", scoring="ccpc2016")``)."""
    key = name.strip().lower()
    target = _BUILTIN.get(key) or _registered(_BUILTIN, ENTRY_POINT_GROUP).get(key)
    if target is None:
        raise GameNotFoundError(f"unknown game {name!r}; games are {', '.join(game_names())}")
    game = _load(target)(**params)
    if not isinstance(game, Game):
        raise GameNotFoundError(f"{target} did not make a game (it lacks the game contract)")
    return game


def bot_factory(name: str) -> Callable[[str], Bot]:
    """The bot factory of the game ``name``: built-in bot spec -> bot."""
    key = name.strip().lower()
    target = _BUILTIN_BOTS.get(key) or _registered(_BUILTIN_BOTS, BOT_ENTRY_POINT_GROUP).get(key)
    if target is None:
        raise GameNotFoundError(
            f"game {name!r} has no bot factory (entry point group {BOT_ENTRY_POINT_GROUP!r})"
        )
    return _load(target)


def make_bot(game: Game, spec: str, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Bot:
    """A bot of ``game`` from a spec: ``cmd:COMMAND`` (an external program, ``time_limit``
    seconds per move; see :mod:`mindsport.games.external`, or the game's
    ``external_bot(command, time_limit)`` when it has one) or one of the game's built-in
    bots (:meth:`~mindsport.games.contract.Game.bot_names`), made by its bot factory."""
    parsed = parse_spec(spec)
    if parsed.command is not None:
        own = getattr(game, "external_bot", None)
        if callable(own):  # a game whose programs speak its own protocol (mahjong: mjai)
            bot: Bot = own(parsed.command, time_limit)
            return bot
        from mindsport.games.external import ExternalBot

        return ExternalBot(parsed.command, game, time_limit=time_limit)
    return bot_factory(game.info.name)(parsed.text)
