"""Dou Dizhu bots: random, greedy, the strong plan-based bot and the graded ``level`` family.

:func:`make_bot` builds one from a spec string: ``random``, ``greedy``, ``strong`` or
``level:N`` (0 <= N <= 100) or ``tracking`` (strong + card tracking + end-game look-ahead).
"""

from __future__ import annotations

from mindsport.doudizhu.bots.base import Bot
from mindsport.doudizhu.bots.graded import LevelBot
from mindsport.doudizhu.bots.plan import Plan, Planner
from mindsport.doudizhu.bots.simple import GreedyBot, RandomBot
from mindsport.doudizhu.bots.strong import StrongBot
from mindsport.doudizhu.bots.tracking import TrackingBot
from mindsport.errors import MindsportError

__all__ = [
    "Bot",
    "BotSpecError",
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


class BotSpecError(MindsportError):
    """A bot spec string that names no bot."""


def make_bot(spec: str) -> Bot:
    """Build a bot from ``random``, ``greedy``, ``strong``, ``tracking`` or ``level:N``."""
    text = spec.strip().lower()
    if text == "random":
        return RandomBot()
    if text == "greedy":
        return GreedyBot()
    if text == "strong":
        return StrongBot()
    if text == "tracking":
        return TrackingBot()
    name, _, arg = text.partition(":")
    if name == "level" and arg.strip().lstrip("-").isdigit():
        return LevelBot(int(arg))
    raise BotSpecError(
        f"unknown bot {spec!r}: use random, greedy, strong, tracking or level:N with N in 0..100"
    )


def make_bots(specs: str) -> list[Bot]:
    """Three bots (landlord, farmer1, farmer2) from a comma-separated spec list."""
    parts = [p for p in specs.split(",") if p.strip()]
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3:
        raise BotSpecError(f"{specs!r}: give one bot or three (landlord,farmer1,farmer2)")
    return [make_bot(p) for p in parts]
