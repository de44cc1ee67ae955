"""The games of the package, by name: ``get_game("doudizhu")``, ``game_names()``.

Built-in games are listed here by the module and attribute of their factory and imported only
when asked for. A game of another package joins without any change here, through the entry
point group ``mindsport.games`` (``name = "package.module:factory"``): the referee, the
tournament runners and the command line find it like the built-in ones.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from mindsport.errors import MindsportError
from mindsport.games.contract import Game

__all__ = ["ENTRY_POINT_GROUP", "GameNotFoundError", "game_names", "get_game"]

ENTRY_POINT_GROUP = "mindsport.games"

_BUILTIN: dict[str, str] = {
    "doudizhu": "mindsport.doudizhu.game:DouDizhuGame",
    "junqi": "mindsport.junqi.game:LuzhanqiGame",
}


class GameNotFoundError(MindsportError):
    """A game name that no registered game has."""


def _factories() -> dict[str, str]:
    found = dict(_BUILTIN)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(point.name, point.value)
    return found


def game_names() -> list[str]:
    """Names of the registered games, sorted."""
    return sorted(_factories())


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    factory: Callable[..., Any] = getattr(importlib.import_module(module), attr)
    return factory


def get_game(name: str, **params: Any) -> Game:
    """A new game object: the factory registered as ``name`` called with ``params`` (e.g.
    ``get_game("doudizhu", scoring="ccpc2016")``)."""
    key = name.strip().lower()
    target = _BUILTIN.get(key) or _factories().get(key)
    if target is None:
        raise GameNotFoundError(f"unknown game {name!r}; games are {', '.join(game_names())}")
    game = _load(target)(**params)
    if not isinstance(game, Game):
        raise GameNotFoundError(f"{target} did not make a game (it lacks the game contract)")
    return game
