"""The tracking bot: :class:`StrongBot` plus card tracking and an end-game look-ahead.

Before the end game it plays exactly as :class:`~mindsport.doudizhu.bots.StrongBot`. In the end
game (the two other seats hold at most ``endgame_cards`` cards together, or one of them holds at
most ``danger_cards``) it

1. updates a :class:`~mindsport.doudizhu.tracking.CardTracker` for its seat (incrementally,
   one tracker per seat, so one instance may sit in several seats of a game),
2. draws ``samples`` opponent hands from the tracker (exact draws, hard evidence always
   respected, passes read as soft evidence),
3. scores up to ``max_candidates`` candidate actions (the strong bot's choice, pass when allowed,
   the lowest and highest play of each kind, every bomb) by playing each sampled deal out to the
   end with :class:`StrongBot` policies in all three seats (perfect-information Monte Carlo,
   the same sampled deals for every candidate so the comparison is paired), and
4. plays the candidate with the best mean score for its seat under ``scoring`` among those
   whose mean gain over the strong bot's own choice (paired, on the same sampled deals) exceeds
   ``margin + confidence * standard error``; when none does (ties included) it plays the strong
   choice, so the bot only departs from it when the look-ahead says it pays.

Everything random comes from the ``rng`` passed to :meth:`TrackingBot.act`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mindsport.doudizhu.bots.builtin import StrongBot
from mindsport.doudizhu.cards import N_RANKS, Counts, format_counts
from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.moves import Move, legal_moves
from mindsport.doudizhu.scoring import LINEAR, ScoringRule
from mindsport.doudizhu.state import GameState, StateView
from mindsport.doudizhu.tracking import CardTracker, PassModel, TrackingError

__all__ = ["TrackingBot"]

_MAX_TURNS = 400


class TrackingBot:
    """Strong bot + card tracker + sampled end-game look-ahead (see the module note)."""

    name = "tracking"

    def __init__(
        self,
        *,
        samples: int = 16,
        max_candidates: int = 8,
        endgame_cards: int = 20,
        danger_cards: int = 6,
        margin: float = 0.0,
        confidence: float = 1.0,
        scoring: ScoringRule = LINEAR,
        pass_model: PassModel | None = None,
        kitty: str | Sequence[int] | None = None,
    ) -> None:
        if samples < 1 or max_candidates < 2:
            raise TrackingError(
                f"need samples >= 1 and max_candidates >= 2, got {samples}, {max_candidates}"
            )
        self.strong = StrongBot()
        self.samples = int(samples)
        self.max_candidates = int(max_candidates)
        self.endgame_cards = int(endgame_cards)
        self.danger_cards = int(danger_cards)
        self.margin = float(margin)
        self.confidence = float(confidence)
        self.scoring = scoring
        self.pass_model = pass_model
        self._kitty: str | Sequence[int] | None = kitty
        self._trackers: dict[int, CardTracker] = {}
        self.lookaheads = 0  # decisions made by look-ahead (diagnostics)
        self.deviations = 0  # ... of which differed from the strong bot's choice

    def set_kitty(self, kitty: str | Sequence[int] | None) -> None:
        """The landlord's public kitty for the games to come, until set again. Without it the
        bot reads the kitty from the view (deals made by :func:`~mindsport.doudizhu.deal`
        record it); when neither knows it, the tracker uses the other evidence only."""
        self._kitty = kitty
        self._trackers.clear()

    def tracker(self, view: StateView) -> CardTracker:
        """The tracker of ``view.seat``, brought up to date with ``view``."""
        t = self._trackers.get(view.seat)
        if t is None or not t.follows(view):
            kitty = self._kitty if self._kitty is not None else view.kitty
            t = CardTracker.from_view(view, kitty=kitty, pass_model=self.pass_model)
            self._trackers[view.seat] = t
        else:
            t.update(view)
        return t

    def _endgame(self, view: StateView) -> bool:
        left = [view.cards_left[s] for s in range(3) if s != view.seat]
        return sum(left) <= self.endgame_cards or min(left) <= self.danger_cards

    def act(
        self,
        view: StateView,
        legal_actions: Sequence[Move | None],
        rng: np.random.Generator,
    ) -> Move | None:
        base = self.strong.act(view, legal_actions, rng)
        if not self._endgame(view):
            return base
        candidates = self._candidates(view, base)
        if len(candidates) < 2:
            return base
        tracker = self.tracker(view)
        worlds = tracker.sample_hands(rng, self.samples)
        scores = np.zeros((len(worlds), len(candidates)))
        for w, hands in enumerate(worlds):
            state = _world_state(view, hands)
            for i, move in enumerate(candidates):
                scores[w, i] = self._playout(state, move, view.seat, rng)
        self.lookaheads += 1
        # paired comparison with the strong choice (column 0) on the same sampled deals
        diff = scores - scores[:, :1]
        gain = diff.mean(axis=0)
        se = diff.std(axis=0, ddof=1) / np.sqrt(len(worlds)) if len(worlds) > 1 else 0 * gain
        ok = gain > self.margin + self.confidence * se
        if not ok.any():
            return base
        best = int(np.argmax(np.where(ok, gain, -np.inf)))
        self.deviations += 1
        return candidates[best]

    def _candidates(self, view: StateView, base: Move | None) -> list[Move | None]:
        """The strong choice first, then pass, bombs, the extremes of each kind, the rest."""
        moves = legal_moves(view.hand, view.previous)
        size = sum(view.hand)
        if any(m.size == size for m in moves):  # going out: nothing to think about
            return [base]
        out: list[Move | None] = [base]
        if view.previous is not None and base is not None:
            out.append(None)
        by_kind: dict[tuple[str, int], list[Move]] = {}
        for m in moves:
            by_kind.setdefault((m.kind.value, m.size), []).append(m)
        extra: list[Move] = [m for m in moves if m.is_bomb]
        for group in by_kind.values():
            lo = min(group, key=lambda m: m.main)
            hi = max(group, key=lambda m: m.main)
            extra.extend((lo, hi))
        extra.extend(moves)
        for m in extra:
            if len(out) >= self.max_candidates:
                break
            if m not in out:
                out.append(m)
        return out

    def _playout(
        self, state: GameState, move: Move | None, seat: int, rng: np.random.Generator
    ) -> float:
        """Play ``move`` then strong moves for everyone to the end; the final score of ``seat``."""
        st = state.clone()
        st.apply_unchecked(move)
        for _ in range(_MAX_TURNS):
            if st.is_terminal():
                break
            st.apply_unchecked(self.strong.act(st.view(), (), rng))
        return st.returns(self.scoring)[seat]


def _world_state(view: StateView, hands: tuple[Counts, Counts, Counts]) -> GameState:
    """The game as it would stand now had the deal been ``hands`` (current hands by seat)."""
    initial: list[str] = []
    for s in range(3):
        played = view.played(s)
        initial.append(format_counts([hands[s][r] + played[r] for r in range(N_RANKS)]))
    state = GameState(Deal(*initial))
    for _, action in view.history:
        state.apply_unchecked(action)
    return state
