"""Game state in the OpenSpiel manner: ``legal_actions``, ``apply_action``, ``clone``, ...

Pieces are identified by the post they stood on at setup (every non-camp post holds a piece at
the start, so this id says nothing about the kind). An action is ``source * 60 + target``.

The state is the referee's full view. :meth:`State.observation` gives one player's view: own
pieces with kinds, enemy pieces as ids and posts only, and the public event log (every move with
its collision outcome, and flags revealed when a commander dies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindsport.errors import MindsportError
from mindsport.games.contract import TERMINAL, IllegalMoveError
from mindsport.junqi.board import (
    CAMPS,
    HEADQUARTERS,
    N_POSTS,
    InvalidPostError,
    parse_post,
    post_at,
    post_name,
)
from mindsport.junqi.pieces import Outcome, PieceKind, collide
from mindsport.junqi.rules import SETUP_CELLS, Rules, Setup, destinations, random_setup

__all__ = [
    "NO_PIECE",
    "TERMINAL",
    "Event",
    "IllegalMoveError",
    "Observation",
    "State",
    "decode_action",
    "encode_action",
]

NO_PIECE = -1


def encode_action(source: int, target: int) -> int:
    return source * N_POSTS + target


def decode_action(action: int) -> tuple[int, int]:
    return divmod(int(action), N_POSTS)


@dataclass(frozen=True, slots=True)
class Event:
    """One public move: who moved which piece where, and what the referee announced.

    ``defender`` is the attacked piece (``None`` for a quiet move); ``outcome`` the announced
    result; ``revealed_flags`` lists ``(player, post)`` of flags shown because that player's
    commander died in this move.
    """

    ply: int
    player: int
    piece: int
    source: int
    target: int
    defender: int | None = None
    outcome: Outcome | None = None
    revealed_flags: tuple[tuple[int, int], ...] = ()

    def describe(self) -> str:
        text = f"{self.ply:4d}. P{self.player} {post_name(self.source)}-{post_name(self.target)}"
        if self.outcome is not None:
            text += f"  x  {self.outcome.value}"
        for player, post in self.revealed_flags:
            text += f"  (P{player}'s commander died: flag at {post_name(post)})"
        return text


@dataclass(frozen=True)
class Observation:
    """What one player may see."""

    player: int
    ply: int
    board: tuple[int, ...]  # piece id per post, -1 empty
    own: dict[int, tuple[int, PieceKind]]  # id -> (post, kind), alive own pieces
    own_kinds: dict[int, PieceKind]  # id -> kind of every own piece, removed ones included
    enemy: dict[int, int]  # id -> post, alive enemy pieces
    enemy_flag: int | None  # post of the enemy flag if revealed
    events: tuple[Event, ...]
    legal_actions: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The view as JSON (the external-bot protocol's ``observation``): posts by name
        (``a1`` .. ``e12``), own pieces with their kinds, enemy pieces by id and post only,
        every public event with its announced outcome."""
        return {
            "player": self.player,
            "ply": self.ply,
            "own": {
                str(pid): {"post": post_name(post), "kind": kind.name.lower()}
                for pid, (post, kind) in self.own.items()
            },
            "enemy": {str(pid): post_name(post) for pid, post in self.enemy.items()},
            "enemy_flag": None if self.enemy_flag is None else post_name(self.enemy_flag),
            "events": [
                {
                    "ply": e.ply,
                    "player": e.player,
                    "piece": e.piece,
                    "move": f"{post_name(e.source)}-{post_name(e.target)}",
                    "defender": e.defender,
                    "outcome": None if e.outcome is None else e.outcome.value,
                    "revealed_flags": [[p, post_name(q)] for p, q in e.revealed_flags],
                }
                for e in self.events
            ],
        }


class State:
    """A Luzhanqi game in progress (mutable; :meth:`clone` copies)."""

    __slots__ = (
        "_board",
        "_current",
        "_events",
        "_kind",
        "_legal",
        "_owner",
        "_post_of",
        "_quiet",
        "_reason",
        "_revealed_flag",
        "_winner",
        "ply",
        "rules",
        "setups",
    )

    def __init__(self, setups: Sequence[Setup], rules: Rules | None = None) -> None:
        if len(setups) != 2:
            raise MindsportError(f"need two setups, got {len(setups)}")
        pieces = {
            post_at(player, d, c): (player, setup.kind_at(d, c))
            for player, setup in enumerate(setups)
            for d, c in SETUP_CELLS
        }
        self._init(pieces, rules, 0)
        self.setups: tuple[Setup, Setup] | None = (setups[0], setups[1])

    @classmethod
    def from_position(
        cls,
        pieces: Mapping[int, tuple[int, PieceKind]],
        to_move: int = 0,
        rules: Rules | None = None,
    ) -> State:
        """A custom position (puzzles, tests): post -> (player, kind). Setup rules are not
        checked, but pieces may not stand in camps twice (one per post by construction) and each
        player needs a flag. Piece ids are the posts given."""
        for post, (player, kind) in pieces.items():
            if not 0 <= post < N_POSTS or player not in (0, 1):
                raise MindsportError(f"bad piece {post!r}: {(player, kind)!r}")
            PieceKind(kind)
        for player in (0, 1):
            flags = sum(1 for pl, k in pieces.values() if pl == player and k is PieceKind.FLAG)
            if flags != 1:
                raise MindsportError(f"player {player} has {flags} flags in the position, need 1")
        state = cls.__new__(cls)
        state._init(pieces, rules, to_move)
        state.setups = None
        return state

    def _init(
        self, pieces: Mapping[int, tuple[int, PieceKind]], rules: Rules | None, to_move: int
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        self._board = [NO_PIECE] * N_POSTS
        self._kind: list[PieceKind | None] = [None] * N_POSTS
        self._owner = [NO_PIECE] * N_POSTS
        self._post_of = [NO_PIECE] * N_POSTS
        for post, (player, kind) in pieces.items():
            self._board[post] = post
            self._kind[post] = PieceKind(kind)
            self._owner[post] = player
            self._post_of[post] = post
        self._current = to_move
        self.ply = 0
        self._quiet = 0
        self._events: list[Event] = []
        self._winner: int | None = None
        self._reason = ""
        self._revealed_flag: list[int | None] = [None, None]
        self._legal: list[int] = []
        self._after_move()

    @classmethod
    def new_game(cls, rng: np.random.Generator, rules: Rules | None = None) -> State:
        """Both sides set up at random (legal setups)."""
        return cls((random_setup(rng), random_setup(rng)), rules)

    # ---------------------------------------------------------------- queries
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self._current

    def is_terminal(self) -> bool:
        return bool(self._reason)

    @property
    def winner(self) -> int | None:
        return self._winner

    @property
    def reason(self) -> str:
        """Why the game ended ("" while it goes on)."""
        return self._reason

    def returns(self) -> tuple[float, float]:
        """+1 for the winner, -1 for the loser, 0 each for a draw (or while playing)."""
        if self._winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self._winner == 0 else (-1.0, 1.0)

    def forfeit(self, player: int) -> None:
        """End the game: ``player`` broke down (see :mod:`mindsport.games.referee`) and loses."""
        if self.is_terminal():
            raise IllegalMoveError(f"the game is over ({self._reason}); no forfeit now")
        if player not in (0, 1):
            raise IllegalMoveError(f"player must be 0 or 1, got {player!r}")
        self._winner = 1 - player
        self._reason = f"player {player} forfeited"
        self._legal = []

    def legal_actions(self, player: int | None = None) -> list[int]:
        if self.is_terminal():
            return []
        if player is None or player == self._current:
            return list(self._legal)
        return self._actions_for(player)

    def piece_at(self, post: int) -> int:
        return self._board[post]

    def kind_of(self, piece: int) -> PieceKind:
        kind = self._kind[piece]
        if kind is None:
            raise MindsportError(f"no piece with id {piece}")
        return kind

    def owner_of(self, piece: int) -> int:
        return self._owner[piece]

    def post_of(self, piece: int) -> int:
        """Current post of a piece, -1 once removed."""
        return self._post_of[piece]

    @property
    def board(self) -> tuple[int, ...]:
        return tuple(self._board)

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    def alive(self, player: int) -> list[int]:
        return [
            pid for pid in range(N_POSTS) if self._owner[pid] == player and self._post_of[pid] >= 0
        ]

    # ---------------------------------------------------------------- moves
    def _actions_for(self, player: int) -> list[int]:
        out: list[int] = []
        board, owner, kind = self._board, self._owner, self._kind
        for post in range(N_POSTS):
            pid = board[post]
            if pid < 0 or owner[pid] != player or post in HEADQUARTERS:
                continue
            k = kind[pid]
            if k is PieceKind.MINE or k is PieceKind.FLAG:
                continue
            base = post * N_POSTS
            for q in destinations(board, owner, post, k is PieceKind.ENGINEER):
                out.append(base + q)
        out.sort()
        return out

    def action_to_string(self, action: int) -> str:
        s, t = decode_action(action)
        return f"{post_name(s)}-{post_name(t)}"

    def string_to_action(self, text: str) -> int:
        parts = text.replace(" ", "").split("-")
        if len(parts) != 2:
            raise IllegalMoveError(f"move {text!r} is not written like 'a6-a7'")
        try:
            return encode_action(parse_post(parts[0]), parse_post(parts[1]))
        except InvalidPostError as exc:
            raise IllegalMoveError(f"move {text!r}: {exc}") from None

    def _illegal(self, action: int, why: str) -> IllegalMoveError:
        try:
            move = self.action_to_string(action)
        except (IndexError, ValueError):
            move = repr(action)
        return IllegalMoveError(
            f"move {move} (action {action}) is illegal at ply {self.ply} for player "
            f"{self._current}: {why}"
        )

    def apply_action(self, action: int) -> None:
        """Play a move (checked: raises :class:`IllegalMoveError` naming move and position)."""
        if self.is_terminal():
            raise self._illegal(action, f"the game is over ({self._reason})")
        if not isinstance(action, int | np.integer) or not 0 <= int(action) < N_POSTS * N_POSTS:
            raise IllegalMoveError(f"action {action!r} is not in 0..{N_POSTS * N_POSTS - 1}")
        action = int(action)
        if action not in self._legal:
            s, t = decode_action(action)
            pid = self._board[s]
            if pid < 0:
                why = f"no piece on {post_name(s)}"
            elif self._owner[pid] != self._current:
                why = f"the piece on {post_name(s)} is not player {self._current}'s"
            elif s in HEADQUARTERS:
                why = f"a piece in the headquarters {post_name(s)} cannot move"
            elif not self.kind_of(pid).movable:
                why = f"a {self.kind_of(pid).name} cannot move"
            elif t in CAMPS and self._board[t] >= 0:
                why = f"{post_name(t)} is an occupied camp"
            elif self._board[t] >= 0 and self._owner[self._board[t]] == self._current:
                why = f"{post_name(t)} holds the player's own piece"
            else:
                why = f"{post_name(t)} cannot be reached from {post_name(s)}"
            raise self._illegal(action, why)
        self._apply(action)

    def _apply(self, action: int) -> None:
        s, t = decode_action(action)
        board = self._board
        pid = board[s]
        player = self._current
        defender = board[t]
        outcome: Outcome | None = None
        removed: list[int] = []
        flag_taken = False
        if defender < 0:
            board[t], board[s] = pid, NO_PIECE
            self._post_of[pid] = t
        else:
            a_kind, d_kind = self.kind_of(pid), self.kind_of(defender)
            outcome = collide(a_kind, d_kind)
            flag_taken = d_kind is PieceKind.FLAG
            board[s] = NO_PIECE
            if outcome is Outcome.ATTACKER_WINS:
                removed = [defender]
                board[t] = pid
                self._post_of[pid] = t
            elif outcome is Outcome.DEFENDER_WINS:
                removed = [pid]
            else:
                removed = [pid, defender]
                board[t] = NO_PIECE
            for r in removed:
                self._post_of[r] = NO_PIECE
        revealed: list[tuple[int, int]] = []
        if self.rules.reveal_flag_on_commander_death:
            for r in removed:
                if self._kind[r] is PieceKind.COMMANDER:
                    side = self._owner[r]
                    flag = self._flag_post(side)
                    if flag is not None:
                        self._revealed_flag[side] = flag
                        revealed.append((side, flag))
        self.ply += 1
        self._quiet = 0 if removed else self._quiet + 1
        self._events.append(
            Event(
                self.ply,
                player,
                pid,
                s,
                t,
                None if defender < 0 else defender,
                outcome,
                tuple(revealed),
            )
        )
        self._current = 1 - player
        if flag_taken:
            self._winner = player
            self._reason = f"player {player} captured the flag"
            self._legal = []
            return
        self._after_move()

    def _flag_post(self, player: int) -> int | None:
        for pid in range(N_POSTS):
            if self._owner[pid] == player and self._kind[pid] is PieceKind.FLAG:
                post = self._post_of[pid]
                return post if post >= 0 else None
        return None

    def _after_move(self) -> None:
        self._legal = self._actions_for(self._current)
        if not self._legal:
            self._winner = 1 - self._current
            self._reason = f"player {self._current} has no movable piece"
        elif self._quiet >= self.rules.no_capture_limit:
            self._reason = f"draw: {self._quiet} plies without a capture"
            self._legal = []
        elif self.ply >= self.rules.max_plies:
            self._reason = f"draw: {self.ply} plies played (max_plies)"
            self._legal = []

    # ---------------------------------------------------------------- copies and views
    def clone(self) -> State:
        new = State.__new__(State)
        new.rules = self.rules
        new.setups = self.setups
        new._board = list(self._board)
        new._kind = list(self._kind)
        new._owner = list(self._owner)
        new._post_of = list(self._post_of)
        new._current = self._current
        new.ply = self.ply
        new._quiet = self._quiet
        new._events = list(self._events)
        new._winner = self._winner
        new._reason = self._reason
        new._revealed_flag = list(self._revealed_flag)
        new._legal = list(self._legal)
        return new

    def observation(self, player: int) -> Observation:
        """``player``'s view: enemy kinds hidden."""
        if player not in (0, 1):
            raise MindsportError(f"player must be 0 or 1, got {player}")
        own: dict[int, tuple[int, PieceKind]] = {}
        enemy: dict[int, int] = {}
        own_kinds = {pid: self.kind_of(pid) for pid in range(N_POSTS) if self._owner[pid] == player}
        for pid in range(N_POSTS):
            post = self._post_of[pid]
            if post < 0:
                continue
            if self._owner[pid] == player:
                own[pid] = (post, self.kind_of(pid))
            else:
                enemy[pid] = post
        legal = tuple(self._legal) if player == self._current else ()
        return Observation(
            player,
            self.ply,
            tuple(self._board),
            own,
            own_kinds,
            enemy,
            self._revealed_flag[1 - player],
            tuple(self._events),
            legal,
        )

    def __str__(self) -> str:
        lines = []
        for row in range(12):
            cells = []
            for col in range(5):
                post = row * 5 + col
                pid = self._board[post]
                if pid < 0:
                    cells.append(" + " if post in CAMPS else " . ")
                else:
                    k = self.kind_of(pid)
                    cells.append(f"{'ab'[self._owner[pid]]}{k.letter} ")
            lines.append(f"{12 - row:2d} " + "".join(cells))
        lines.append("    a  b  c  d  e")
        return "\n".join(lines)
