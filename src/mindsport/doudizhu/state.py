"""Game state (OpenSpiel style) and the per-seat view that bots see.

Seats: 0 landlord, 1 farmer 1 (下家, plays after the landlord), 2 farmer 2 (上家). The landlord
leads. A player either passes or beats the last play; after two passes in a row the player who
made the last play leads anew (any move, no pass). The first to empty the hand wins for the side.

Two ways to apply a move: :meth:`GameState.apply_action` checks everything (for outside input:
cards text, ``kind:cards`` or a :class:`Move`) and raises :class:`IllegalMoveError` naming the
move; :meth:`GameState.apply_unchecked` trusts the caller (bots choosing from legal moves).

The state follows the shared game contract (:mod:`mindsport.games.contract`): the deal is the
chance outcome, :meth:`GameState.observation` is a seat's :class:`StateView`, and
:meth:`GameState.forfeit` ends the game against a seat that broke down (its side loses, scored
by the scoring rule with the bombs and rockets played so far and no spring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mindsport.doudizhu.cards import DECK_COUNTS, N_RANKS, Counts, format_counts, parse_counts
from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.moves import Kind, Move, MoveError, beats, legal_moves, parse_move
from mindsport.doudizhu.scoring import LINEAR, Outcome, ScoringRule
from mindsport.games.contract import TERMINAL, IllegalMoveError

__all__ = ["LANDLORD", "TERMINAL", "GameState", "IllegalMoveError", "StateView", "action_text"]

LANDLORD = 0

Action = Move | None


def action_text(action: Action) -> str:
    """``kind:cards`` of a move, ``pass`` for a pass (what :func:`parse_move` reads back)."""
    return "pass" if action is None else f"{action.kind.value}:{action.cards}"


@dataclass(frozen=True, slots=True)
class StateView:
    """What one seat may know: own hand, the full public history, cards left per seat."""

    seat: int
    hand: Counts
    history: tuple[tuple[int, Action], ...]
    cards_left: tuple[int, int, int]
    previous: Move | None  # the play to beat; None when this seat leads
    previous_player: int  # who made ``previous`` (-1 when leading)
    kitty: Counts | None = None  # the landlord's public kitty, when the deal records it

    @property
    def hand_text(self) -> str:
        """Own hand as a card string."""
        return format_counts(self.hand)

    @property
    def is_landlord(self) -> bool:
        return self.seat == LANDLORD

    def partner(self) -> int | None:
        """The other farmer's seat, or None for the landlord."""
        return None if self.seat == LANDLORD else 3 - self.seat

    def played(self, seat: int) -> Counts:
        """Cards that ``seat`` has played so far."""
        counts = [0] * N_RANKS
        for who, move in self.history:
            if who == seat and move is not None:
                for r, n in enumerate(move.counts):
                    counts[r] += n
        return tuple(counts)

    def unseen(self) -> Counts:
        """Cards neither in this hand nor played: held by the two other seats."""
        counts = list(DECK_COUNTS)
        for _, move in self.history:
            if move is not None:
                for r, n in enumerate(move.counts):
                    counts[r] -= n
        return tuple(c - h for c, h in zip(counts, self.hand, strict=True))

    def legal_moves(self) -> list[Move]:
        """The moves this seat may make now (pass excluded; pass is allowed iff not leading)."""
        return legal_moves(self.hand, self.previous)

    @property
    def player(self) -> int:
        """The seat (the contract's name for it)."""
        return self.seat

    def to_json(self) -> dict[str, Any]:
        """The view as JSON (the external-bot protocol's ``observation``)."""
        return {
            "seat": self.seat,
            "hand": self.hand_text,
            "history": [[seat, action_text(m)] for seat, m in self.history],
            "cards_left": list(self.cards_left),
            "previous": None if self.previous is None else action_text(self.previous),
            "previous_player": self.previous_player,
            "kitty": None if self.kitty is None else format_counts(self.kitty),
        }


class GameState:
    """A Dou Dizhu game in progress. Use :meth:`clone` before exploring."""

    __slots__ = (
        "_current",
        "_last",
        "_last_player",
        "bombs",
        "deal",
        "forfeited",
        "hands",
        "history",
        "plays",
        "rockets",
        "scoring",
        "winner",
    )

    def __init__(self, deal: Deal, scoring: ScoringRule = LINEAR) -> None:
        self.deal = deal
        self.scoring = scoring
        self.forfeited = -1
        self.hands: list[list[int]] = [list(c) for c in deal.counts()]
        self._current = LANDLORD
        self._last: Move | None = None
        self._last_player = -1
        self.history: list[tuple[int, Action]] = []
        self.plays = [0, 0, 0]
        self.bombs = 0
        self.rockets = 0
        self.winner = -1

    def clone(self) -> GameState:
        other = GameState.__new__(GameState)
        other.deal = self.deal
        other.scoring = self.scoring
        other.forfeited = self.forfeited
        other.hands = [h.copy() for h in self.hands]
        other._current = self._current
        other._last = self._last
        other._last_player = self._last_player
        other.history = self.history.copy()
        other.plays = self.plays.copy()
        other.bombs = self.bombs
        other.rockets = self.rockets
        other.winner = self.winner
        return other

    def current_player(self) -> int:
        """Seat to move, or :data:`TERMINAL` when the game is over."""
        return TERMINAL if self.winner >= 0 else self._current

    def is_terminal(self) -> bool:
        return self.winner >= 0

    def previous(self) -> Move | None:
        """The play the current player must beat (None: the current player leads)."""
        return None if self._last_player in (-1, self._current) else self._last

    def legal_actions(self) -> list[Action]:
        """Legal moves of the current player; ``None`` (pass) last when passing is allowed."""
        if self.winner >= 0:
            return []
        prev = self.previous()
        actions: list[Action] = list(legal_moves(tuple(self.hands[self._current]), prev))
        if prev is not None:
            actions.append(None)
        return actions

    def observation(self, player: int) -> StateView:
        """What ``player`` may know (the contract's name for :meth:`view`)."""
        return self.view(player)

    def action_to_string(self, action: Action) -> str:
        """``kind:cards`` or ``pass``."""
        return action_text(action)

    def string_to_action(self, text: str) -> Action:
        """Read ``kind:cards``, bare cards (the kind of the play to beat first) or ``pass``."""
        try:
            return parse_move(text, self.previous())
        except MoveError as exc:
            raise IllegalMoveError(str(exc)) from None

    def forfeit(self, player: int) -> None:
        """End the game: ``player``'s side loses (the landlord, or the two farmers together).
        ``winner`` becomes the first seat of the other side (0, or 1 for the farmers)."""
        if self.winner >= 0:
            raise IllegalMoveError(f"the game is over; seat {player} cannot forfeit")
        if player not in (0, 1, 2):
            raise IllegalMoveError(f"seat {player!r} is not 0, 1 or 2")
        self.forfeited = player
        self.winner = 1 if player == LANDLORD else LANDLORD

    def view(self, seat: int | None = None) -> StateView:
        """What ``seat`` (default: the current player) may know."""
        seat = self._current if seat is None else seat
        prev = self.previous() if seat == self._current else None
        return StateView(
            seat=seat,
            hand=tuple(self.hands[seat]),
            history=tuple(self.history),
            cards_left=(sum(self.hands[0]), sum(self.hands[1]), sum(self.hands[2])),
            previous=prev,
            previous_player=self._last_player if prev is not None else -1,
            kitty=None if self.deal.kitty is None else parse_counts(self.deal.kitty),
        )

    def apply_action(self, action: Move | str | None) -> None:
        """Checked move: a :class:`Move`, ``None``/``"pass"``, cards text or ``kind:cards``;
        legal when it is in the hand and beats the play to beat (:func:`beats`)."""
        if self.winner >= 0:
            raise IllegalMoveError(f"the game is over; {action!r} cannot be played")
        prev = self.previous()
        if isinstance(action, str):
            move = self.string_to_action(action)
        elif action is not None:
            try:  # re-check: a Move built with an explicit main rank skips validation
                move = Move(action.kind, action.cards)
            except MoveError as exc:
                raise IllegalMoveError(str(exc)) from None
        else:
            move = None
        if move is None:
            if prev is None:
                raise IllegalMoveError("cannot pass when leading: a play is required")
        else:
            if prev is not None and not beats(move, prev):
                raise IllegalMoveError(
                    f'"{move.cards}" is not playable on {prev.kind.value} "{prev.cards}"'
                )
            hand = self.hands[self._current]
            if any(n > h for n, h in zip(move.counts, hand, strict=True)):
                raise IllegalMoveError(
                    f'"{move.cards}" is not in the hand "{format_counts(hand)}" of seat '
                    f"{self._current}"
                )
        self.apply_unchecked(move)

    def apply_unchecked(self, move: Move | None) -> None:
        """Apply a move known to be legal (no checks: the fast path for bots)."""
        seat = self._current
        self.history.append((seat, move))
        if move is not None:
            hand = self.hands[seat]
            left = 0
            for r in range(N_RANKS):
                hand[r] -= move.counts[r]
                left += hand[r]
            self._last = move
            self._last_player = seat
            self.plays[seat] += 1
            if move.kind is Kind.BOMB:
                self.bombs += 1
            elif move.kind is Kind.ROCKET:
                self.rockets += 1
            if left == 0:
                self.winner = seat
                return
        self._current = (seat + 1) % 3

    # Outcome ---------------------------------------------------------------------------------
    def landlord_won(self) -> bool:
        if self.winner < 0:
            raise IllegalMoveError("the game is not over")
        return self.winner == LANDLORD

    def spring(self) -> bool:
        """Landlord won and no farmer played, or farmers won and the landlord played once
        (never after a forfeit)."""
        if self.forfeited >= 0:
            return False
        if self.landlord_won():
            return self.plays[1] == 0 and self.plays[2] == 0
        return self.plays[0] == 1

    def outcome(self) -> Outcome:
        return Outcome(
            landlord_won=self.landlord_won(),
            bombs=self.bombs,
            rockets=self.rockets,
            spring=self.spring(),
        )

    def returns(self, scoring: ScoringRule | None = None) -> tuple[float, float, float]:
        """Scores of (landlord, farmer1, farmer2) under ``scoring`` (default: the state's rule;
        zeros while playing)."""
        if self.winner < 0:
            return (0.0, 0.0, 0.0)
        return (scoring or self.scoring).scores(self.outcome())

    def __str__(self) -> str:
        hands = "".join(f"[{format_counts(h)}]" for h in self.hands)
        return f"{hands} to move: {self.current_player()}"
