"""Bot specs, the one parser of them: a list ``strong,level:40,cmd:"python my_bot.py --depth 2,3"``
(:func:`split_specs`) and one spec (:func:`parse_spec`: a game's built-in bot name, or
``cmd:COMMAND`` for an external program).

Double quotes group, and are dropped: a command may contain commas when it is quoted, and
``cmd:"python bot.py"`` names the program ``python bot.py`` whether it stands alone or in a
list. Registration (an event's players), play (:func:`mindsport.games.make_bot`) and the
command line all read specs here.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindsport.errors import MindsportError

__all__ = ["BotSpec", "SpecError", "parse_spec", "split_specs"]


class SpecError(MindsportError):
    """A bot spec list that cannot be read (an unclosed quote, an empty list)."""


def _unquoted(text: str) -> tuple[list[str], bool]:
    """``text`` split at the commas outside double quotes, the quotes dropped; and whether a
    quote was left open."""
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
    parts.append("".join(current).strip())
    return parts, quoted


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of bot specs; commas inside double quotes do not split,
    and the quotes are dropped (so a command may contain commas).

    >>> split_specs('cmd:"python bot.py --x 1,2",strong, level:40')
    ['cmd:python bot.py --x 1,2', 'strong', 'level:40']
    """
    parts, quoted = _unquoted(text)
    if quoted:
        raise SpecError(f"bot list {text!r} has an unclosed double quote")
    parts = [p for p in parts if p]
    if not parts:
        raise SpecError(f"bot list {text!r} names no bot")
    return parts


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One bot spec: ``text`` (stripped) and, for ``cmd:COMMAND``, the ``command`` (quotes
    dropped as in a list; None for a built-in name)."""

    text: str
    command: str | None = None

    @property
    def external(self) -> bool:
        """True for an external program (``cmd:``)."""
        return self.command is not None


def parse_spec(text: str) -> BotSpec:
    """One bot spec: a built-in name (left to the game's bot factory) or ``cmd:COMMAND``.

    >>> parse_spec(' cmd:"python bot.py" ')
    BotSpec(text='cmd:"python bot.py"', command='python bot.py')
    >>> parse_spec("level:40")
    BotSpec(text='level:40', command=None)
    """
    stripped = text.strip()
    name, colon, rest = stripped.partition(":")
    if not colon or name.strip().lower() != "cmd":
        return BotSpec(stripped)
    if rest.count('"') % 2:
        raise SpecError(f"bot {text!r} has an unclosed double quote")
    return BotSpec(stripped, rest.replace('"', "").strip())
