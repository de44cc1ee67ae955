"""The game contract every game of the package follows, in the manner of OpenSpiel.

A **game** is a factory plus metadata (:class:`GameInfo`: name, number of players, what the
returns sum to, what chance decides). Chance is explicit: :meth:`Game.sample_chance` draws the
chance outcome (a Dou Dizhu deal, the two Luzhanqi setups) from a generator, and
:meth:`Game.new_initial_state` starts a game from a given one, so the same deal can be replayed
at many tables.

A **state** has ``current_player()`` (:data:`TERMINAL` once over), ``legal_actions()``,
``apply_action(action)`` (checked: an illegal action raises :class:`IllegalMoveError` naming
it), ``clone()``, ``is_terminal()``, ``returns()`` (one number per player), ``observation(p)``
(what player ``p`` may know, with ``to_json()``), ``action_to_string(action)`` and
``forfeit(player)`` (ends the game against a player that broke down, see
:mod:`mindsport.games.referee`).

A **bot** takes the generator at each decision: ``act(observation, legal_actions, rng)``
returns one of ``legal_actions``. Bots hold no game in progress: everything they need is in the
observation, so one bot object may sit in several seats and games.

The referee (:mod:`mindsport.games.referee`), the external-bot bridge
(:mod:`mindsport.games.external`), the tournament runners and the command line use only this
contract; games are found by name in :mod:`mindsport.games.registry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from mindsport.errors import MindsportError

__all__ = [
    "MAX_PLAYOUTS",
    "TERMINAL",
    "BatchGame",
    "Bot",
    "DecisionTerms",
    "DecisionValuer",
    "Game",
    "GameInfo",
    "IllegalMoveError",
    "Observation",
    "State",
]

#: ``current_player()`` of a finished game (OpenSpiel's ``kTerminalPlayerId``).
TERMINAL = -4
#: the most playouts per valued move :meth:`DecisionValuer.play_valued` is asked for
MAX_PLAYOUTS = 256


class IllegalMoveError(MindsportError):
    """An action the rules do not allow now; the message names the action and why."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game is: ``name`` (registry key), ``title``, ``players``, ``returns_sum`` (what
    the players' returns always add up to; None when the rules fix no sum) and ``chance`` (what
    the chance outcome is).

    Two optional facts serve the comparison of two bots (:mod:`mindsport.games.compare`):
    ``sides``, the seats that play as one side (Dou Dizhu: the landlord, and the two farmers
    together; None: every seat is its own side), which a duplicate rotation hands to one bot or
    the other as a whole; and ``references``, pairs of built-in bot specs (the stronger first)
    that are fixed for the game and play each chance outcome to value it (the luck
    correction's control variate; empty: the game offers none).
    """

    name: str
    title: str
    players: int
    returns_sum: float | None
    chance: str
    sides: tuple[tuple[int, ...], ...] | None = None
    references: tuple[tuple[str, str], ...] = ()


@runtime_checkable
class Observation(Protocol):
    """What one player may know; ``to_json()`` is sent to external bots."""

    @property
    def player(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...


@runtime_checkable
class State(Protocol):
    """A game in progress (mutable; :meth:`clone` copies)."""

    def current_player(self) -> int: ...

    def legal_actions(self) -> Sequence[Any]: ...

    def apply_action(self, action: Any) -> None: ...

    def clone(self) -> State: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> Sequence[float]: ...

    def observation(self, player: int) -> Observation: ...

    def action_to_string(self, action: Any) -> str: ...

    def forfeit(self, player: int) -> None: ...


@runtime_checkable
class Bot(Protocol):
    """A player: one of ``legal_actions`` for ``observation``, drawing only on ``rng``."""

    @property
    def name(self) -> str: ...

    def act(
        self, observation: Any, legal_actions: Sequence[Any], rng: np.random.Generator
    ) -> Any: ...


@runtime_checkable
class Game(Protocol):
    """A game: metadata, chance and initial states. Its bots are made by
    :func:`mindsport.games.make_bot` (the game names none of them: bots depend on games, never
    the reverse)."""

    @property
    def info(self) -> GameInfo: ...

    def sample_chance(self, rng: np.random.Generator) -> Any:
        """The chance outcome of a new game (a deal, the setups), drawn from ``rng``."""
        ...

    def new_initial_state(self, chance: Any) -> State: ...

    def action_to_string(self, action: Any) -> str:
        """An action's text (what external bots read and answer)."""
        ...

    def bot_names(self) -> Sequence[str]:
        """The spec strings of the built-in bots (metadata for help texts)."""
        ...


@runtime_checkable
class BatchGame(Protocol):
    """A game that can also play many independent games at once, at engine speed
    (:func:`mindsport.games.many.play_many` uses it when present; Dou Dizhu does it with its
    compiled engine).

    ``play_batch(chances, lineups, keys, seed, seeding, records)``: game ``g`` starts from
    ``chances[g]`` (None: drawn from the game's generator first), its players are the bots
    ``lineups[g]``, and it draws on the generator ``seeding.rng(seed, keys[g])``. Returns the
    returns (G x players), or the games' records when ``records``: the same the referee would
    give with that generator; ``None`` when some line-up has a bot it cannot play (then the
    referee plays them).
    """

    def play_batch(
        self,
        chances: Sequence[Any],
        lineups: Sequence[Sequence[Bot]],
        keys: Sequence[tuple[int, ...]],
        seed: int,
        seeding: Any,
        records: bool,
    ) -> np.ndarray | list[Any] | None: ...


class DecisionTerms(NamedTuple):
    """AIVAT's action terms of played games (:meth:`DecisionValuer.decision_terms`).

    ``returns[g]``: game ``g``'s returns (games x players). ``terms[g, p, k]``: the sum over
    the valued decisions of seat ``p`` in game ``g`` of ``phi_k(after the played move) -
    sum_a pi(a | s) phi_k(after a)``, for the game's value features ``phi_k`` and the known
    move distribution ``pi`` of the bot in seat ``p`` (games x players x features; zero for
    a bot whose policy is deterministic or unknown). ``valued[g, p]``: how many decisions
    were valued. ``orientation[q]``: player ``q``'s value is ``orientation[q]`` times the
    game's value (Dou Dizhu: the landlord +1, each farmer -1/2). ``values`` names the last
    axis of ``terms``: the value functions ``phi_k`` (fixed before any game is played), each
    ``"win"`` or ``"score"`` when, so oriented, it values the first bot's win score or margin
    of a comparison (:mod:`mindsport.games.compare.actions`).
    """

    returns: np.ndarray
    terms: np.ndarray
    valued: np.ndarray
    orientation: tuple[float, ...]
    values: tuple[str, ...] = ()


@runtime_checkable
class DecisionValuer(Protocol):
    """A game that knows the move distributions of some of its built-in bots and values their
    decisions (AIVAT's action terms; :mod:`mindsport.games.compare` uses them).

    ``decision_terms(records, seats)``: the terms of games the game's ``play_many(...,
    records=True)`` recorded, played by the bots ``seats[g]`` (spec strings or bot objects per
    seat); None when it values none of them.

    ``play_valued(tables, seed, seeding, playouts)``: play the
    :class:`~mindsport.games.many.Table` s as ``play_many(game, tables, seed, seeding=seeding)``
    would (the same games) and value them at once, without record objects (Dou Dizhu: on its
    compiled engine); with ``playouts`` > 0, each move valued by that many playouts of the
    game's own bots from the position after it; a :class:`DecisionTerms` whose ``valued`` is
    all zero when it values none of them, None when it cannot play them so (then record them
    and call ``decision_terms``, whose value functions play nothing out).
    """

    def decision_terms(
        self, records: Sequence[Any], seats: Sequence[Sequence[Any]]
    ) -> DecisionTerms | None: ...

    def play_valued(
        self, tables: Sequence[Any], seed: int, seeding: Any, playouts: int = 0
    ) -> DecisionTerms | None: ...
