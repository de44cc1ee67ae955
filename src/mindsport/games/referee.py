"""The referee: plays a game between bots through the game contract, and rules on forfeits.

At each turn the referee shows the player to move its observation and its legal actions,
takes the bot's answer and applies it. A bot that breaks down **forfeits** the game:

* ``timeout``: it did not answer within its time limit (external bots, :mod:`.external`);
* ``crash``: its program died, closed its output, or answered something that is not a reply;
* ``illegal``: its answer is not one of the legal actions.

A forfeit ends the game at once through ``state.forfeit(player)``: the player (and its side,
in a team game) loses as the game's rules score a loss at that point (Dou Dizhu: the side loses
under the scoring rule, with the bombs and rockets played so far and no spring; Luzhanqi: a
loss, -1). The record names the player, the reason and the details, and the referee logs it as
a warning on the ``mindsport.games`` logger. An exception raised inside an in-process bot is a
bug, not a forfeit: it propagates.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindsport.errors import MindsportError
from mindsport.games.contract import Bot, Game, State

__all__ = [
    "BotFailure",
    "Forfeit",
    "ForfeitReason",
    "Playthrough",
    "play_game",
    "play_state",
]

logger = logging.getLogger("mindsport.games")

#: turns after which a game that has not ended is stopped as broken (no game needs so many)
MAX_TURNS = 100_000


class ForfeitReason(enum.Enum):
    """Why a bot forfeited."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL = "illegal"


class BotFailure(Exception):
    """Raised by a bot that broke down (no answer in time, a dead program, a garbled reply);
    the referee turns it into a forfeit."""

    def __init__(self, reason: ForfeitReason, detail: str) -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A forfeit: who (player / seat), why, and the details (the bot's last words included)."""

    player: int
    reason: ForfeitReason
    detail: str

    def describe(self) -> str:
        return f"player {self.player} forfeited ({self.reason.value}): {self.detail}"

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "reason": self.reason.value, "detail": self.detail}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Forfeit:
        try:
            return cls(int(obj["player"]), ForfeitReason(obj["reason"]), str(obj["detail"]))
        except (KeyError, ValueError, TypeError) as exc:
            raise MindsportError(f"not a forfeit: {obj!r} ({exc})") from None


@dataclass(frozen=True)
class Playthrough:
    """A finished game as the referee saw it."""

    actions: tuple[tuple[int, Any], ...]  #: (player, action) in order
    returns: tuple[float, ...]
    forfeit: Forfeit | None
    bot_names: tuple[str, ...]
    seconds: tuple[float, ...]  #: thinking time per player
    decisions: tuple[int, ...]  #: decisions per player
    final: State = field(repr=False)

    @property
    def plies(self) -> int:
        return len(self.actions)


def play_state(
    state: State, bots: Sequence[Bot], rng: np.random.Generator, *, max_turns: int = MAX_TURNS
) -> Playthrough:
    """Play ``state`` to the end with ``bots[p]`` deciding for player ``p``."""
    n = len(bots)
    spent = [0.0] * n
    decisions = [0] * n
    actions: list[tuple[int, Any]] = []
    forfeit: Forfeit | None = None
    for _ in range(max_turns):
        if state.is_terminal():
            break
        player = state.current_player()
        if not 0 <= player < n:
            raise MindsportError(f"player {player} is to move but only {n} bots sit at the table")
        legal = list(state.legal_actions())
        bot = bots[player]
        start = time.perf_counter()
        try:
            action = bot.act(state.observation(player), legal, rng)
        except BotFailure as exc:
            forfeit = Forfeit(player, exc.reason, f"bot {bot.name!r}: {exc.detail}")
        spent[player] += time.perf_counter() - start
        decisions[player] += 1
        if forfeit is None and action not in legal:
            try:
                shown = state.action_to_string(action)
            except Exception:  # the answer may be of any type
                shown = repr(action)
            forfeit = Forfeit(
                player,
                ForfeitReason.ILLEGAL,
                f"bot {bot.name!r} played {shown!r}, which is not a legal action here",
            )
        if forfeit is not None:
            logger.warning("%s", forfeit.describe())
            state.forfeit(player)
            break
        state.apply_action(action)
        actions.append((player, action))
    else:
        raise MindsportError(f"the game did not end in {max_turns} turns")
    return Playthrough(
        actions=tuple(actions),
        returns=tuple(float(x) for x in state.returns()),
        forfeit=forfeit,
        bot_names=tuple(b.name for b in bots),
        seconds=tuple(spent),
        decisions=tuple(decisions),
        final=state,
    )


def play_game(
    game: Game,
    bots: Sequence[Bot],
    rng: np.random.Generator,
    chance: Any = None,
    *,
    max_turns: int = MAX_TURNS,
) -> Playthrough:
    """One game of ``game``: chance drawn from ``rng`` unless given, then :func:`play_state`."""
    if len(bots) != game.info.players:
        raise MindsportError(f"{game.info.title} needs {game.info.players} bots, got {len(bots)}")
    outcome = game.sample_chance(rng) if chance is None else chance
    return play_state(game.new_initial_state(outcome), bots, rng, max_turns=max_turns)
