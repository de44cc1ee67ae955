"""Dou Dizhu bots: random, greedy, the strong plan-based bot, the graded ``level`` family and
the tracking bot. Bots import the game's modules, never the reverse.

:func:`make_bot` is the game's bot factory (the registry of :mod:`mindsport.games` names it
``"mindsport.doudizhu.bots:make_bot"``): ``random``, ``greedy``, ``strong``, ``level:N``
(0 <= N <= 100) or ``tracking`` (strong + card tracking + end-game look-ahead). External
programs (``cmd:COMMAND``, the JSON-lines bot protocol of :mod:`mindsport.games.external`) are
made by :func:`mindsport.games.make_bot` for every game; :func:`make_bots` reads a list of
either kind.
"""

from __future__ import annotations

from collections.abc import Callable

from mindsport.doudizhu.bots.builtin import GreedyBot, LevelBot, RandomBot, StrongBot
from mindsport.doudizhu.bots.tracking import TrackingBot
from mindsport.doudizhu.game import DouDizhuGame
from mindsport.doudizhu.player import Action, Bot, EngineBot, engine_code
from mindsport.errors import MindsportError
from mindsport.games.registry import DEFAULT_TIME_LIMIT
from mindsport.games.registry import make_bot as make_game_bot
from mindsport.games.specs import split_specs

__all__ = [
    "Action",
    "Bot",
    "BotSpecError",
    "EngineBot",
    "GreedyBot",
    "LevelBot",
    "RandomBot",
    "StrongBot",
    "TrackingBot",
    "make_bot",
    "make_bots",
]


class BotSpecError(MindsportError):
    """A bot spec string that names no bot."""


_ENGINE_CLASSES: dict[int, Callable[[], Bot]] = {0: RandomBot, 1: GreedyBot, 2: StrongBot}


def make_bot(spec: str) -> Bot:
    """A built-in bot from ``random``, ``greedy``, ``strong``, ``tracking`` or ``level:N``."""
    found = engine_code(spec)
    if found is not None:
        code, level = found
        return _ENGINE_CLASSES[code]() if code in _ENGINE_CLASSES else LevelBot(level)
    if spec.strip().lower() == "tracking":
        return TrackingBot()
    raise BotSpecError(
        f"unknown bot {spec!r}: use random, greedy, strong, tracking, level:N with N in 0..100 "
        "or cmd:COMMAND"
    )


def make_bots(specs: str, *, time_limit: float = DEFAULT_TIME_LIMIT) -> list[Bot]:
    """Three bots (landlord, farmer1, farmer2) from a comma-separated spec list, built-in names
    or ``cmd:COMMAND`` (a command in double quotes may contain commas:
    ``cmd:"python bot.py --x 1,2",strong,strong``); ``time_limit`` seconds per move for the
    external programs."""
    parts = split_specs(specs)
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3:
        raise BotSpecError(f"{specs!r}: give one bot or three (landlord,farmer1,farmer2)")
    game = DouDizhuGame()
    return [make_game_bot(game, p, time_limit=time_limit) for p in parts]
