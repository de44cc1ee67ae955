"""The strong heuristic bot: plays by the best hand split, with end-game and team rules.

* Go out at once when the whole hand is one legal move.
* Leading: when at most one group of the plan is not unbeatable (no combination of the unseen
  cards beats it; checked with three groups or fewer left, or an opponent nearly out), play the
  biggest unbeatable group first and keep the lead to the end. Otherwise lead the plan's
  lowest group (more cards on ties), bombs last; when an opponent has one card, do not lead a
  single unless nothing else is left (then the highest single); with two cards left, avoid
  pairs likewise. A farmer whose partner has one card left leads his lowest single.
* Responding: to the partner's play, pass (unless going out). To an opponent's play, score
  every legal answer by how much it raises the plan cost of the remaining hand; bombs cost
  extra unless the game is urgent or the hand is nearly out; play the best answer when it does
  not break the plan too much. When the opponent who played (or, for the landlord, any farmer)
  holds one or two cards, passing is heavily penalised and bigger answers are preferred; a
  single (pair) when an opponent has one (two) cards left is answered with the smallest
  single (pair) that no unseen card can beat, else the biggest: a farmer with one or two cards
  is not let go out cheaply.
"""

from __future__ import annotations

import numpy as np

from mindsport.doudizhu.bots.fastplan import costs_after
from mindsport.doudizhu.bots.plan import Group, Planner
from mindsport.doudizhu.cards import Counts, format_counts
from mindsport.doudizhu.moves import Kind, Move, can_beat, legal_moves, moves_of_cards
from mindsport.doudizhu.state import StateView

__all__ = ["StrongBot"]

_PASS_MARGIN = 0.4  # play an answer whose plan-cost change is below this
_URGENT_PASS = 5.0  # pass score when an opponent is about to go out
_BOMB_PENALTY = 0.8
_BOMBS = (Kind.BOMB, Kind.ROCKET)
_ONE_MOVE_GROUPS = 5  # a hand that is one move splits into at most this many plan groups
_NEARLY_OUT = 1.6  # plan cost of a hand that goes out in about two plays


def _group_move(group: Group) -> Move:
    kind, main, counts = group
    if kind is Kind.PLANE_SINGLE:  # kickers may allow a higher reading: let Move decide
        return Move(kind, format_counts(counts))
    return Move(kind, format_counts(counts), main, counts)


class StrongBot:
    """Plan-based heuristic bot (deterministic: ignores ``rng``)."""

    name = "strong"

    def __init__(self) -> None:
        self.planner = Planner()

    def act(self, view: StateView, rng: np.random.Generator) -> Move | None:
        hand = view.hand
        if view.previous is None:
            return self._lead(view)
        moves = legal_moves(hand, view.previous)
        if not moves:
            return None
        size = sum(hand)
        for m in moves:
            if m.size == size:
                return m
        return self._respond(view, moves)

    # ------------------------------------------------------------------------------------
    def _danger(self, view: StateView) -> int:
        """Fewest cards held by an opponent."""
        left = view.cards_left
        return min(left[1], left[2]) if view.is_landlord else left[0]

    def _unbeatable(self, move: Move, unseen: Counts) -> bool:
        return not can_beat(unseen, move)

    def _lead(self, view: StateView) -> Move:
        plan = self.planner.plan(view.hand)
        if plan.plays == 1:
            return _group_move(plan.groups[0])
        if plan.plays <= _ONE_MOVE_GROUPS and max(view.hand) >= 3:
            # the whole hand may still be one move with kickers (e.g. a four with two)
            whole = moves_of_cards(view.hand)
            if whole:
                return whole[0]
        # (kind, main, size, group); plane_single mains are read by Move (highest reading)
        groups = [
            (k, _group_move(g).main if k is Kind.PLANE_SINGLE else m, sum(c), g)
            for g in plan.groups
            for k, m, c in (g,)
        ]
        danger = self._danger(view)
        partner = view.partner()
        if partner is not None and view.cards_left[partner] == 1:
            singles = [g for g in groups if g[0] is Kind.SINGLE]
            if singles:
                return _group_move(min(singles, key=lambda g: g[1])[3])
        if len(groups) <= 3 or danger <= 2:
            unseen = view.unseen()
            safe = [
                g
                for g in groups
                if g[0] not in _BOMBS and self._unbeatable(_group_move(g[3]), unseen)
            ]
            if safe and len(groups) - len(safe) <= 1:
                return _group_move(max(safe, key=lambda g: (g[2], g[1]))[3])
        normal = [g for g in groups if g[0] not in _BOMBS] or groups
        options = [
            g
            for g in normal
            if not (danger == 1 and g[0] is Kind.SINGLE) and not (danger == 2 and g[0] is Kind.PAIR)
        ]
        if options:
            chosen = min(options, key=lambda g: (g[1], -g[2]))
        elif danger == 1:  # only singles left: the highest first
            chosen = max(normal, key=lambda g: g[1])
        else:
            chosen = min(normal, key=lambda g: (g[1], -g[2]))
        return _group_move(chosen[3])

    def _respond(self, view: StateView, moves: list[Move]) -> Move | None:
        partner = view.partner()
        if partner is not None and view.previous_player == partner:
            return None
        danger = self._danger(view)
        prev = view.previous
        if prev is not None and (
            (danger == 1 and prev.kind is Kind.SINGLE) or (danger <= 2 and prev.kind is Kind.PAIR)
        ):
            same = [m for m in moves if m.kind is prev.kind]
            if same:  # stop the opponent: smallest unbeatable answer, else the biggest
                unseen = view.unseen()
                safe = [m for m in same if self._unbeatable(m, unseen)]
                return min(safe, key=lambda m: m.main) if safe else same[-1]
        urgent = danger <= 2 or view.cards_left[view.previous_player] <= 2
        hand = np.array(view.hand, dtype=np.int64)
        costs = costs_after(hand, np.array([m.counts for m in moves], dtype=np.int64))
        before = costs[0]
        best: Move | None = None
        best_score = _URGENT_PASS if urgent else _PASS_MARGIN
        for i, m in enumerate(moves):
            after = costs[i + 1]
            score = after - before
            if m.is_bomb and not urgent and after > _NEARLY_OUT:
                score += _BOMB_PENALTY
            if urgent:
                score -= 0.01 * m.main
            if score < best_score:
                best, best_score = m, score
        return best
