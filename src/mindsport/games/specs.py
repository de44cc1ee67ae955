"""Bot spec lists: ``strong,level:40,cmd:"python my_bot.py --depth 2,3"``."""

from __future__ import annotations

from mindsport.errors import MindsportError

__all__ = ["SpecError", "split_specs"]


class SpecError(MindsportError):
    """A bot spec list that cannot be read (an unclosed quote, an empty list)."""


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of bot specs; commas inside double quotes do not split,
    and the quotes are dropped (so a command may contain commas).

    >>> split_specs('cmd:"python bot.py --x 1,2",strong, level:40')
    ['cmd:python bot.py --x 1,2', 'strong', 'level:40']
    """
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if quoted:
        raise SpecError(f"bot list {text!r} has an unclosed double quote")
    parts.append("".join(current).strip())
    parts = [p for p in parts if p]
    if not parts:
        raise SpecError(f"bot list {text!r} names no bot")
    return parts
