"""Bots: random, greedy, and the belief bot of the Junqi patent, on the shared game contract.

A bot is asked for a move with ``act(observation, legal_actions, rng)``: only the player's
:class:`~mindsport.junqi.state.Observation` (enemy kinds hidden), the legal actions and the
generator to draw on. A bot keeps no game in progress that the observation does not carry:
the scoring bots keep one enemy tracker per player as a cache, brought up to date from the
observation's event log (and started afresh when the observation does not continue it), so a
bot object may play both sides and many games.

* :class:`RandomBot`: a uniformly random legal move.
* :class:`GreedyBot`: one ply, no look-ahead: attacks when the expected material gain is
  positive under a row-only estimate (setup and movement rules, collision outcomes, each row
  alone), otherwise advances.
* :class:`BeliefBot`: keeps the fitted :class:`~mindsport.belief.BeliefMatrix` (via
  :class:`~mindsport.junqi.tracker.EnemyTracker`) and, as the Junqi patent says, evaluates the
  current layer of moves plus the enemy's possible reply: the expected value of each move's
  collision under the matrix, minus the expected loss if the best-placed enemy piece (again weighted
  by what the matrix says it is) attacks the moved piece on its new post.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError
from mindsport.junqi.board import (
    CAMPS,
    HEADQUARTERS,
    RAILWAY_POSTS,
    RAYS,
    ROAD_NEIGHBOURS,
    col_of,
    row_of,
)
from mindsport.junqi.pieces import Outcome, PieceKind, collide
from mindsport.junqi.player import Bot
from mindsport.junqi.rules import Rules, rail_reach
from mindsport.junqi.state import NO_PIECE, Observation, decode_action
from mindsport.junqi.tracker import BeliefMethod, EnemyTracker

__all__ = [
    "BOT_NAMES",
    "GAIN",
    "VALUE",
    "BeliefBot",
    "Bot",
    "GreedyBot",
    "RandomBot",
    "make_bot",
]

FloatArray = npt.NDArray[np.float64]

#: Material value of each kind (the flag is the game).
VALUE: FloatArray = np.array([10.0, 8.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.5, 2.5, 2.5, 5.0, 1000.0])


def _gain_table() -> tuple[FloatArray, FloatArray]:
    """GAIN[a, d]: material swing for the attacker's side; WIN[a, d]: attacker survives."""
    gain = np.zeros((12, 12))
    win = np.zeros((12, 12))
    for a in PieceKind:
        if not a.movable:
            continue
        for d in PieceKind:
            out = collide(a, d)
            if out is Outcome.ATTACKER_WINS:
                gain[a, d] = VALUE[d]
                win[a, d] = 1.0
            elif out is Outcome.DEFENDER_WINS:
                gain[a, d] = -VALUE[a]
            else:
                gain[a, d] = VALUE[d] - VALUE[a]
    return gain, win


GAIN, SURVIVE = _gain_table()


class RandomBot:
    """Uniformly random legal move."""

    name = "random"

    def act(
        self, observation: Observation, legal_actions: Sequence[int], rng: np.random.Generator
    ) -> int:
        return int(legal_actions[int(rng.integers(len(legal_actions)))])


_FORWARD = (
    tuple(11 - row_of(p) for p in range(60)),
    tuple(row_of(p) for p in range(60)),
)
_DISTANCE = tuple(
    tuple(abs(row_of(a) - row_of(b)) + abs(col_of(a) - col_of(b)) for b in range(60))
    for a in range(60)
)


def _forward(player: int, post: int) -> int:
    """How far up the board ``post`` is for ``player`` (0 = own back row, 11 = enemy back row)."""
    return _FORWARD[player][post]


def _distance(a: int, b: int) -> int:
    return _DISTANCE[a][b]


def _attackers(board: Sequence[int], enemy: dict[int, int], target: int) -> list[tuple[int, bool]]:
    """Enemy pieces that could move onto ``target`` next: ``(id, only_if_engineer)``.

    ``board`` is the position after our move (``target`` holds our piece or is empty).
    """
    found: dict[int, bool] = {}
    for q in ROAD_NEIGHBOURS[target]:
        pid = board[q]
        if pid >= 0 and pid in enemy and q not in HEADQUARTERS:
            found[pid] = False
    if target in RAILWAY_POSTS:
        for ray in RAYS[target]:
            for q in ray:
                pid = board[q]
                if pid < 0:
                    continue
                if pid in enemy and pid not in found:
                    found[pid] = False
                break
        for q in rail_reach(board, target):  # an engineer may turn on the way
            pid = board[q]
            if pid >= 0 and pid in enemy and pid not in found:
                found[pid] = True
    return list(found.items())


class _ScoringBot:
    """Shared move scoring: expected collision value, optional reply threat, advance bonus."""

    name = "scoring"
    method = BeliefMethod.ROWWISE
    lookahead = False

    def __init__(
        self,
        advance: float = 0.05,
        attraction: float = 0.2,
        no_capture_limit: int = Rules().no_capture_limit,
        *,
        method: BeliefMethod | None = None,
        lookahead: bool | None = None,
        name: str | None = None,
    ) -> None:
        if method is not None:
            self.method = method
        if lookahead is not None:
            self.lookahead = lookahead
        if name is not None:
            self.name = name
        self.no_capture_limit = no_capture_limit
        self.advance = advance
        self.attraction = attraction
        self._trackers: dict[int, EnemyTracker] = {}

    def tracker(self, observation: Observation) -> EnemyTracker:
        """The tracker of ``observation.player``, brought up to date (a new one when the
        observation does not continue what it has seen: a new game)."""
        player = observation.player
        tracker = self._trackers.get(player)
        if tracker is None or not tracker.follows(observation):
            tracker = self._trackers[player] = EnemyTracker(player, self.method)
        tracker.update(observation)
        return tracker

    def act(
        self, observation: Observation, legal_actions: Sequence[int], rng: np.random.Generator
    ) -> int:
        tracker = self.tracker(observation)
        player = observation.player
        probs = tracker.probabilities
        row_of_id = tracker.row_of
        board = list(observation.board)
        enemy = observation.enemy
        own = observation.own
        flag = observation.enemy_flag
        legal = list(legal_actions)
        noise = rng.random(len(legal)) * 1e-3
        current = tuple(board)
        forward = _FORWARD[player]
        goals = self._goals(board, enemy, probs, flag, tracker)
        quiet = 0
        for event in reversed(observation.events):
            if event.outcome is not None:
                break
            quiet += 1
        # a draw by the no-capture rule is near: attacking becomes worth some risk
        urgency = 0.5 * max(0, quiet - (self.no_capture_limit - 10))
        own_flag = next((post for post, k in own.values() if k is PieceKind.FLAG), None)
        best, best_score = legal[0], -np.inf
        for i, action in enumerate(legal):
            s, t = decode_action(action)
            kind = own[board[s]][1]
            score = noise[i]
            survive = 1.0
            target_piece = board[t]
            if target_piece >= 0:
                score += urgency
                p = probs[row_of_id[target_piece]]
                score += float(p @ GAIN[kind])
                survive = float(p @ SURVIVE[kind])
            score += self.advance * (forward[t] - forward[s])
            for goal, weight in goals:
                score += weight * (_DISTANCE[s][goal] - _DISTANCE[t][goal])
            if self.lookahead:
                mover = board[s]
                board[s], board[t] = NO_PIECE, mover
                if survive > 0 and t not in CAMPS:
                    score -= survive * self._threat(board, enemy, probs, t, kind, row_of_id)
                if s not in CAMPS:
                    score += self._threat(current, enemy, probs, s, kind, row_of_id)
                if own_flag is not None:
                    score -= self._threat(board, enemy, probs, own_flag, PieceKind.FLAG, row_of_id)
                board[s], board[t] = mover, target_piece
            if score > best_score:
                best, best_score = action, score
        return int(best)

    def _goals(
        self,
        board: Sequence[int],
        enemy: dict[int, int],
        probs: FloatArray,
        flag: int | None,
        tracker: EnemyTracker,
    ) -> list[tuple[int, float]]:
        """Enemy headquarters to head for, weighted by the chance the flag is there."""
        if flag is not None:
            return [(flag, self.attraction)]
        goals = []
        for hq in HEADQUARTERS:
            pid = board[hq]
            if pid >= 0 and pid in enemy:
                p_flag = float(probs[tracker.row_of[pid], PieceKind.FLAG])
                if p_flag > 0:
                    goals.append((hq, self.attraction * p_flag))
        return goals

    def _threat(
        self,
        board: Sequence[int],
        enemy: dict[int, int],
        probs: FloatArray,
        target: int,
        kind: PieceKind,
        row_of_id: dict[int, int],
    ) -> float:
        """Expected material the enemy's best single reply wins by attacking ``target``."""
        threat = 0.0
        for pid, engineer_only in _attackers(board, enemy, target):
            q = probs[row_of_id[pid]]
            if engineer_only:
                g = float(q[PieceKind.ENGINEER] * GAIN[PieceKind.ENGINEER, kind])
            else:
                g = float(q @ GAIN[:, kind])
            threat = max(threat, g)
        return threat


class GreedyBot(_ScoringBot):
    """Attack when the expected gain is positive (row-only estimate), else advance."""

    name = "greedy"
    method = BeliefMethod.ROWWISE
    lookahead = False


class BeliefBot(_ScoringBot):
    """Fitted belief matrix + one-move look-ahead at the enemy's best reply (the Junqi patent)."""

    name = "belief"
    method = BeliefMethod.FITTED
    lookahead = True


def _variant(method: BeliefMethod, lookahead: bool, name: str) -> Callable[[], Bot]:
    def build() -> Bot:
        return BeliefBot(method=method, lookahead=lookahead, name=name)

    return build


#: Bot names for :func:`make_bot`. The ``belief-*`` variants are ablations of the belief bot:
#: the Junqi patent's one-pass matrix, the row-only estimate, or no look-ahead at the reply.
BOT_NAMES: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "belief": BeliefBot,
    "belief-patent": _variant(BeliefMethod.PATENT, True, "belief-patent"),
    "belief-rowonly": _variant(BeliefMethod.ROWWISE, True, "belief-rowonly"),
    "belief-nolook": _variant(BeliefMethod.FITTED, False, "belief-nolook"),
}


def make_bot(name: str) -> Bot:
    """The game's bot factory (the registry of :mod:`mindsport.games` names it
    ``"mindsport.junqi.bots:make_bot"``): a bot by name, see :data:`BOT_NAMES`: ``random``,
    ``greedy``, ``belief``, .... External programs (``cmd:COMMAND``) are made by
    :func:`mindsport.games.make_bot`."""
    try:
        build = BOT_NAMES[name.strip().lower()]
    except KeyError:
        choices = ", ".join([*sorted(BOT_NAMES), "cmd:COMMAND"])
        raise MindsportError(f"unknown bot {name!r}; choose from {choices}") from None
    return build()
