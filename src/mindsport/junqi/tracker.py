"""Tracking what each enemy piece may be, from public information only.

Rows are the enemy's 25 pieces (in id order; removed pieces stay as rows: they still are of some
kind), columns the 12 kinds with the roster counts. Evidence used:

* setup rules: the flag only in a headquarters, mines only in the last two rows, no bomb in the
  front row;
* movement: a piece that moved is not a mine or the flag; a railway move that turned a corner (or
  was not a straight run through empty posts) was made by an engineer;
* collisions: the announced outcome leaves only the kinds that give it against our known piece;
* commanders: when a side's commander dies the referee shows its flag, so an enemy piece removed
  without that announcement is not the commander, one removed with it is, and the shown post
  holds the flag.

The same evidence feeds four estimators (:class:`BeliefMethod`): the fitted matrix (Sinkhorn),
seed 003's one-pass update, a row-only update (each row renormalised alone, no column counts),
and the uniform roster prior that ignores all evidence.
"""

from __future__ import annotations

import enum

import numpy as np
import numpy.typing as npt

from mindsport.belief.matrix import BeliefMatrix
from mindsport.belief.patent import PatentMatrix
from mindsport.errors import MindsportError
from mindsport.junqi.board import HEADQUARTERS, N_POSTS, depth_of, post_at
from mindsport.junqi.pieces import ROSTER, ROSTER_SIZE, Outcome, PieceKind, collide
from mindsport.junqi.rules import SETUP_CELLS, engineer_only_move
from mindsport.junqi.state import NO_PIECE, Event, Observation

__all__ = ["BeliefMethod", "EnemyTracker", "allowed_kinds"]

FloatArray = npt.NDArray[np.float64]
_COUNTS = [ROSTER[k] for k in PieceKind]
_PRIOR = np.asarray(_COUNTS, dtype=np.float64) / ROSTER_SIZE


class BeliefMethod(enum.Enum):
    FITTED = "fitted"
    PATENT = "patent"
    ROWWISE = "row-only"
    UNIFORM = "uniform"


def allowed_kinds(my_kind: PieceKind, outcome: Outcome, enemy_attacked: bool) -> list[PieceKind]:
    """Enemy kinds consistent with ``outcome`` against our ``my_kind``.

    ``enemy_attacked``: the enemy piece was the attacker (so it can move); otherwise we attacked
    it. Outcomes are from the attacker's point of view.
    """
    return list(_ALLOWED[(my_kind, outcome, enemy_attacked)])


def _allowed_table() -> dict[tuple[PieceKind, Outcome, bool], frozenset[PieceKind]]:
    table: dict[tuple[PieceKind, Outcome, bool], frozenset[PieceKind]] = {}
    for mine in PieceKind:
        for outcome in Outcome:
            table[(mine, outcome, True)] = frozenset(
                k for k in PieceKind if k.movable and collide(k, mine) is outcome
            )
            if mine.movable:
                table[(mine, outcome, False)] = frozenset(
                    k for k in PieceKind if collide(mine, k) is outcome
                )
    return table


_ALLOWED = _allowed_table()
_MOVABLE = frozenset(k for k in PieceKind if k.movable)


class _RowWise:
    """Prior times a 0/1 mask per row, each row renormalised alone."""

    def __init__(self, n_rows: int) -> None:
        self.mask = np.ones((n_rows, len(_COUNTS)))

    def only(self, row: int, columns: list[int]) -> None:
        keep = np.zeros(len(_COUNTS))
        keep[columns] = 1.0
        self.mask[row] *= keep

    def forbid(self, row: int, columns: list[int]) -> None:
        self.mask[row, columns] = 0.0

    @property
    def probabilities(self) -> FloatArray:
        p = self.mask * _PRIOR
        s = p.sum(axis=1, keepdims=True)
        return np.divide(p, s, out=np.zeros_like(p), where=s > 0)


class EnemyTracker:
    """Belief about the enemy's pieces for ``player``, fed with observations.

    Assumes the game started from setups (every non-camp post filled, piece id = first post) and,
    unless ``commander_reveals_flag`` is false, the rule that a dead commander shows the flag
    (:class:`~mindsport.junqi.rules.Rules`).
    """

    def __init__(
        self,
        player: int,
        method: BeliefMethod = BeliefMethod.FITTED,
        commander_reveals_flag: bool = True,
    ) -> None:
        self.commander_reveals_flag = commander_reveals_flag
        self.player = player
        self.enemy = 1 - player
        self.method = method
        # every non-camp post holds a piece at the start, and a piece's id is its first post
        self.ids: tuple[int, ...] = tuple(sorted(post_at(self.enemy, d, c) for d, c in SETUP_CELLS))
        self.row_of = {pid: i for i, pid in enumerate(self.ids)}
        self._board = [NO_PIECE] * N_POSTS
        for side in (0, 1):
            for d, c in SETUP_CELLS:
                post = post_at(side, d, c)
                self._board[post] = post
        self._cursor = 0
        self._own_kinds: dict[int, PieceKind] | None = None
        self._last: Event | None = None
        self.collisions = 0
        n = len(self.ids)
        labels = list(PieceKind)
        self._fitted: BeliefMatrix | None = None
        self._patent: PatentMatrix | None = None
        self._rowwise: _RowWise | None = None
        if method is BeliefMethod.FITTED:
            self._fitted = BeliefMatrix(n, _COUNTS, column_labels=labels)
        elif method is BeliefMethod.PATENT:
            self._patent = PatentMatrix(n, _COUNTS, column_labels=labels)
        elif method is BeliefMethod.ROWWISE:
            self._rowwise = _RowWise(n)
        for pid in self.ids:
            banned = []
            if pid not in HEADQUARTERS:
                banned.append(PieceKind.FLAG)
            if depth_of(pid) < 4:
                banned.append(PieceKind.MINE)
            if depth_of(pid) == 0:
                banned.append(PieceKind.BOMB)
            if banned:
                self._forbid(self.row_of[pid], banned)

    # ------------------------------------------------------------ backend dispatch
    def _forbid(self, row: int, kinds: list[PieceKind]) -> None:
        cols = [int(k) for k in kinds]
        if self._fitted is not None:
            self._fitted.forbid(row, cols)
        elif self._patent is not None:
            self._patent.forbid(row, cols)
        elif self._rowwise is not None:
            self._rowwise.forbid(row, cols)

    def _only(self, row: int, kinds: list[PieceKind]) -> None:
        cols = [int(k) for k in kinds]
        if self._fitted is not None:
            self._fitted.only(row, cols)
        elif self._patent is not None:
            self._patent.only(row, cols)
        elif self._rowwise is not None:
            self._rowwise.only(row, cols)

    @property
    def events_seen(self) -> int:
        """How many public events have been taken in."""
        return self._cursor

    @property
    def matrix(self) -> BeliefMatrix | None:
        """The fitted :class:`BeliefMatrix` (``None`` for the other methods)."""
        return self._fitted

    @property
    def probabilities(self) -> FloatArray:
        """Rows = enemy piece ids (:attr:`ids` order), columns = :class:`PieceKind`."""
        if self._fitted is not None:
            return np.asarray(self._fitted.probabilities)
        if self._patent is not None:
            return np.asarray(self._patent.probabilities)
        if self._rowwise is not None:
            return self._rowwise.probabilities
        return np.tile(_PRIOR, (len(self.ids), 1))

    def predicted(self, piece: int) -> PieceKind:
        return PieceKind(int(np.argmax(self.probabilities[self.row_of[piece]])))

    # ------------------------------------------------------------ evidence
    def follows(self, observation: Observation) -> bool:
        """Whether ``observation`` continues what the tracker has seen (same player, same own
        setup, the events seen so far still there): else it is a new game."""
        if observation.player != self.player or len(observation.events) < self._cursor:
            return False
        if self._own_kinds is not None and observation.own_kinds != self._own_kinds:
            return False
        return self._cursor == 0 or observation.events[self._cursor - 1] == self._last

    def update(self, observation: Observation) -> None:
        """Take in the public events not seen yet."""
        if observation.player != self.player:
            raise MindsportError(
                f"observation is player {observation.player}'s, tracker is player {self.player}'s"
            )
        events = observation.events
        for event in events[self._cursor :]:
            self._event(event, observation.own_kinds)
        self._cursor = len(events)
        self._own_kinds = dict(observation.own_kinds)
        self._last = events[-1] if events else None

    def _event(self, event: Event, own_kinds: dict[int, PieceKind]) -> None:
        board = self._board
        enemy_piece: int | None = None
        allowed: set[PieceKind] | None = None
        if event.player == self.enemy:
            enemy_piece = event.piece
            allowed = set(_MOVABLE)
            if engineer_only_move(board, event.source, event.target):
                allowed = {PieceKind.ENGINEER}
            if event.outcome is not None and event.defender is not None:
                mine = own_kinds[event.defender]
                allowed &= _ALLOWED[(mine, event.outcome, True)]
        elif event.defender is not None and event.outcome is not None:
            enemy_piece = event.defender
            mine = own_kinds[event.piece]
            allowed = set(_ALLOWED[(mine, event.outcome, False)])
        # board bookkeeping
        removed: list[int] = []
        if event.outcome is None:
            board[event.target], board[event.source] = event.piece, NO_PIECE
        else:
            self.collisions += 1
            board[event.source] = NO_PIECE
            assert event.defender is not None
            if event.outcome is Outcome.ATTACKER_WINS:
                board[event.target] = event.piece
                removed = [event.defender]
            elif event.outcome is Outcome.DEFENDER_WINS:
                removed = [event.piece]
            else:
                board[event.target] = NO_PIECE
                removed = [event.piece, event.defender]
        enemy_flag = [post for side, post in event.revealed_flags if side == self.enemy]
        if (
            self.commander_reveals_flag
            and enemy_piece is not None
            and enemy_piece in removed
            and allowed is not None
        ):
            if enemy_flag:
                allowed &= {PieceKind.COMMANDER}
            else:
                allowed.discard(PieceKind.COMMANDER)
        if enemy_piece is not None and allowed is not None:
            row = self.row_of[enemy_piece]
            self._only(row, sorted(allowed))
        for post in enemy_flag:
            flag_piece = board[post]
            if flag_piece >= 0 and flag_piece in self.row_of:
                self._only(self.row_of[flag_piece], [PieceKind.FLAG])
