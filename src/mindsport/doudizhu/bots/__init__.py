"""Dou Dizhu bots: random, greedy, the strong plan-based bot, the graded ``level`` family, the
tracking bot and external programs.

:func:`make_bot` builds one from a spec string: ``random``, ``greedy``, ``strong``,
``level:N`` (0 <= N <= 100), ``tracking`` (strong + card tracking + end-game look-ahead) or
``cmd:COMMAND`` (a program speaking the JSON-lines bot protocol on stdin/stdout, see
:mod:`mindsport.games.external`).
"""

from __future__ import annotations

from mindsport.doudizhu.bots.base import Action, Bot, EngineBot
from mindsport.doudizhu.bots.builtin import GreedyBot, LevelBot, RandomBot, StrongBot
from mindsport.doudizhu.bots.plan import Plan, Planner
from mindsport.doudizhu.bots.tracking import TrackingBot
from mindsport.errors import MindsportError

__all__ = [
    "Action",
    "Bot",
    "BotSpecError",
    "EngineBot",
    "GreedyBot",
    "LevelBot",
    "Plan",
    "Planner",
    "RandomBot",
    "StrongBot",
    "TrackingBot",
    "make_bot",
    "make_bots",
]

#: Seconds an external (``cmd:``) bot may think per move unless told otherwise.
DEFAULT_TIME_LIMIT = 10.0


class BotSpecError(MindsportError):
    """A bot spec string that names no bot."""


def make_bot(spec: str, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Bot:
    """Build a bot from ``random``, ``greedy``, ``strong``, ``tracking``, ``level:N`` or
    ``cmd:COMMAND`` (an external program; ``time_limit`` seconds per move)."""
    text = spec.strip()
    name, _, arg = text.partition(":")
    name = name.strip().lower()
    if name == "cmd":
        from mindsport.doudizhu.game import DouDizhuGame
        from mindsport.games.external import ExternalBot

        return ExternalBot(arg, DouDizhuGame(), time_limit=time_limit)
    lowered = text.lower()
    if lowered == "random":
        return RandomBot()
    if lowered == "greedy":
        return GreedyBot()
    if lowered == "strong":
        return StrongBot()
    if lowered == "tracking":
        return TrackingBot()
    if name == "level" and arg.strip().lstrip("-").isdigit():
        return LevelBot(int(arg))
    raise BotSpecError(
        f"unknown bot {spec!r}: use random, greedy, strong, tracking, level:N with N in 0..100 "
        "or cmd:COMMAND"
    )


def make_bots(specs: str, *, time_limit: float = DEFAULT_TIME_LIMIT) -> list[Bot]:
    """Three bots (landlord, farmer1, farmer2) from a comma-separated spec list (a command in
    double quotes may contain commas: ``cmd:"python bot.py --x 1,2",strong,strong``)."""
    from mindsport.games.specs import split_specs

    parts = split_specs(specs)
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3:
        raise BotSpecError(f"{specs!r}: give one bot or three (landlord,farmer1,farmer2)")
    return [make_bot(p, time_limit=time_limit) for p in parts]
