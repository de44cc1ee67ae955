"""The referee: holds the true position, tells each side only what the rules let it know.

Each player gets an :class:`~mindsport.junqi.state.Observation` (own kinds, enemy ids and posts
only); after every move the referee announces the public :class:`~mindsport.junqi.state.Event`:
the move, and for a collision only *attacker wins* / *defender wins* / *both removed* (plus the
flag's post when a commander dies). Identities are never announced. Games are run by the shared
referee of :mod:`mindsport.games.referee` (forfeits included); this module adds Luzhanqi's
record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mindsport.errors import MindsportError
from mindsport.games.referee import Forfeit, play_state
from mindsport.junqi.player import Bot
from mindsport.junqi.rules import Rules, Setup, random_setup
from mindsport.junqi.state import Event, Observation, State

__all__ = ["GameRecord", "Referee", "play_game"]


@dataclass(frozen=True)
class GameRecord:
    """A finished game as the referee saw it (``forfeit``: who broke down, if anyone)."""

    setups: tuple[Setup, Setup] | None  # None for a game from a custom position
    events: tuple[Event, ...]
    winner: int | None
    reason: str
    returns: tuple[float, float]
    bot_names: tuple[str, str]
    move_seconds: tuple[float, float]  # total thinking time per player
    moves: tuple[int, int]  # moves made per player
    final: State = field(repr=False)
    forfeit: Forfeit | None = None

    @property
    def plies(self) -> int:
        return len(self.events)

    def seconds_per_move(self, player: int) -> float:
        return self.move_seconds[player] / max(1, self.moves[player])


class Referee:
    """Runs one game: the only holder of the true state."""

    def __init__(self, state: State) -> None:
        self._state = state

    @property
    def state(self) -> State:
        """The full state (the referee's view; never hand it to a bot)."""
        return self._state

    def observation(self, player: int) -> Observation:
        return self._state.observation(player)

    def submit(self, player: int, action: int) -> Event:
        """Play ``player``'s move and return the public announcement."""
        if player != self._state.current_player():
            raise MindsportError(
                f"player {player} moved out of turn (it is {self._state.current_player()}'s)"
            )
        self._state.apply_action(action)
        return self._state.events[-1]

    def play(self, bots: Sequence[Bot], rng: np.random.Generator) -> GameRecord:
        """Play to the end, ``bots[p]`` deciding for player ``p`` and drawing on ``rng``."""
        if len(bots) != 2:
            raise MindsportError(f"need two bots, got {len(bots)}")
        result = play_state(self._state, bots, rng)
        state = self._state
        r = state.returns()
        return GameRecord(
            setups=state.setups,
            events=state.events,
            winner=state.winner,
            reason=state.reason,
            returns=(r[0], r[1]),
            bot_names=(bots[0].name, bots[1].name),
            move_seconds=(result.seconds[0], result.seconds[1]),
            moves=(result.decisions[0], result.decisions[1]),
            final=state,
            forfeit=result.forfeit,
        )


def play_game(
    bots: Sequence[Bot],
    rng: np.random.Generator,
    rules: Rules | None = None,
    setups: Sequence[Setup] | None = None,
) -> GameRecord:
    """Play one game; random legal setups (drawn from ``rng``) unless ``setups`` are given."""
    if setups is None:
        setups = (random_setup(rng), random_setup(rng))
    return Referee(State(setups, rules)).play(bots, rng)
