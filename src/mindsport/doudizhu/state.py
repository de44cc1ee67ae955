"""Game state (OpenSpiel style) and the per-seat view that bots see.

Seats: 0 landlord, 1 farmer 1 (下家, plays after the landlord), 2 farmer 2 (上家). The landlord
leads. A player either passes or beats the last play; after two passes in a row the player who
made the last play leads anew (any move, no pass). The first to empty the hand wins for the side.

Two ways to apply a move: :meth:`GameState.apply_action` checks everything (for outside input:
cards text, ``kind:cards`` or a :class:`Move`) and raises :class:`IllegalMoveError` naming the
move; :meth:`GameState.apply_unchecked` trusts the caller (bots choosing from legal moves).
"""

from __future__ import annotations

from dataclasses import dataclass

from mindsport.doudizhu.cards import DECK_COUNTS, N_RANKS, Counts, format_counts, parse_counts
from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.moves import Kind, Move, MoveError, beats, legal_moves, parse_move
from mindsport.doudizhu.scoring import LINEAR, Outcome, ScoringRule
from mindsport.errors import MindsportError

__all__ = ["LANDLORD", "TERMINAL", "GameState", "IllegalMoveError", "StateView"]

LANDLORD = 0
#: ``current_player()`` of a finished game (OpenSpiel's convention).
TERMINAL = -4

Action = Move | None


class IllegalMoveError(MindsportError):
    """A move that the current player may not make now."""


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


class GameState:
    """A Dou Dizhu game in progress. Use :meth:`clone` before exploring."""

    __slots__ = (
        "_current",
        "_last",
        "_last_player",
        "bombs",
        "deal",
        "hands",
        "history",
        "plays",
        "rockets",
        "winner",
    )

    def __init__(self, deal: Deal) -> None:
        self.deal = deal
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
        """Checked move: a :class:`Move`, ``None``/``"pass"``, cards text or ``kind:cards``."""
        if self.winner >= 0:
            raise IllegalMoveError(f"the game is over; {action!r} cannot be played")
        prev = self.previous()
        if isinstance(action, str):
            try:
                move = parse_move(action, prev)
            except MoveError as exc:
                raise IllegalMoveError(str(exc)) from None
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
        """Landlord won and no farmer played, or farmers won and the landlord played once."""
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

    def returns(self, scoring: ScoringRule = LINEAR) -> tuple[float, float, float]:
        """Scores of (landlord, farmer1, farmer2) under ``scoring`` (zeros while playing)."""
        if self.winner < 0:
            return (0.0, 0.0, 0.0)
        return scoring.scores(self.outcome())

    def __str__(self) -> str:
        hands = "".join(f"[{format_counts(h)}]" for h in self.hands)
        return f"{hands} to move: {self.current_player()}"
