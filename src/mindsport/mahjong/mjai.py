"""External mahjong bots speaking mjai (the protocol of the mjai.app league and of Mortal).

A ``cmd:COMMAND`` bot of the mahjong games is an :class:`MjaiBot`: one program per seat it
holds, started at the seat's first decision and kept for the session (all the games it plays
until :meth:`MjaiBot.close`). The exchange (written out in ``docs/bots.md``):

* at each decision of its seat, mindsport writes **one line**: a JSON array of the mjai events
  the seat has not been sent yet, oldest first, as riichienv writes them (other seats' draws
  and hands hidden as ``"?"``), the last one calling for the decision. A game's first line
  starts with ``{"type": "start_game", "id": SEAT}``; each hand with ``start_kyoku``;
* the program answers **one line**: one mjai action, a JSON object: ``dahai`` (with ``pai``
  and ``tsumogiri``), ``reach``, ``chi`` / ``pon`` / ``daiminkan`` / ``ankan`` / ``kakan``
  (with ``pai`` and ``consumed``), ``hora``, ``ryukyoku`` (nine kinds of terminals), or
  ``{"type": "none"}`` to pass a call or a win.

The reply is matched to the legal actions by the engine itself
(``Observation.select_action_from_mjai``). The program forfeits as in the JSON-lines protocol
(:mod:`mindsport.games.external`, whose pipes, time limit and stderr logging it shares): no
complete line within the time limit (timeout), a program that exits or closes its output
(crash), a line that is not a JSON object with a ``type`` or an action that is not legal now
(illegal). The events after a seat's last decision of a game (the last win, ``end_game``) are
not sent: the next game's first line starts with ``start_game``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from mindsport.games.contract import Game
from mindsport.games.external import ExternalBot
from mindsport.games.referee import BotFailure
from mindsport.mahjong.state import MahjongObservation, Move, move_key

__all__ = ["MjaiBot"]


class MjaiBot:
    """A mahjong bot played by a program speaking mjai (see the module note): ``command`` is
    a command line (split like a shell would, no shell involved) or an argument list, ``game``
    the mahjong game it plays, ``time_limit`` the seconds it may take per decision."""

    def __init__(
        self,
        command: str | Sequence[str],
        game: Game,
        *,
        time_limit: float = 10.0,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self._game = game
        self._options: dict[str, Any] = {"time_limit": time_limit, "cwd": cwd, "env": env}
        # checks the command and the time limit now, before any game
        first = ExternalBot(command, self._game, name=name, **self._options)
        self.argv = first.argv
        self.time_limit = first.time_limit
        self.name = first.name
        self._seats: dict[int, ExternalBot] = {0: first}

    def _seat(self, seat: int) -> ExternalBot:
        found = self._seats.get(seat)
        if found is None:
            found = ExternalBot(self.argv, self._game, name=self.name, **self._options)
            self._seats[seat] = found
        return found

    def act(
        self,
        observation: MahjongObservation,
        legal_actions: Sequence[Move],
        rng: np.random.Generator,
    ) -> Move:
        seat = int(observation.player)
        program = self._seat(seat)
        events = observation.events()
        for event in events:
            if event.get("type") == "start_game":
                event.setdefault("id", seat)
        line = program.exchange(json.dumps(events, separators=(",", ":")).encode())
        text = line.decode("utf-8", "replace")
        try:
            reply = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            reply = None
        if not isinstance(reply, dict) or not isinstance(reply.get("type"), str):
            raise program.illegal(f"replied {text[:200]!r}, not an mjai action (a JSON object)")
        return _matched(program, observation, legal_actions, reply, text)

    def close(self) -> None:
        """Stop every seat's program and reap it (idempotent)."""
        for program in self._seats.values():
            program.close()

    def __enter__(self) -> MjaiBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MjaiBot({self.argv!r}, time_limit={self.time_limit:g})"


def _matched(
    program: ExternalBot,
    observation: MahjongObservation,
    legal_actions: Sequence[Move],
    reply: dict[str, Any],
    text: str,
) -> Move:
    """The legal move the mjai action ``reply`` names, or the illegal-move failure."""

    def failure() -> BotFailure:
        return program.illegal(f"played {text[:200]!r}, which is not a legal action here")

    try:
        action = observation.engine.select_action_from_mjai(reply)
    except Exception:  # the engine refuses a malformed event (a bad tile name, a bad field)
        raise failure() from None
    if action is None:
        raise failure()
    key = move_key(action, observation.engine.drawn_tile)
    for move in legal_actions:
        if move.key == key:
            return move
    for move in legal_actions:  # the same action told apart only by tsumogiri
        if move.key[:3] == key[:3]:
            return move
    raise failure()
