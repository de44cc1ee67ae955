"""AIVAT's action terms of Dou Dizhu games (Burch et al., AAAI 2018) for the decisions whose
move distribution the package knows: what :meth:`DouDizhuGame.decision_terms
<mindsport.doudizhu.game.DouDizhuGame.decision_terms>` gives the comparison of two bots
(:mod:`mindsport.games.compare`).

For each decision of a seat whose bot is ``random`` or ``level:N`` (``N < 100``), the move
distribution ``pi(a | s)`` is known exactly: ``1 - N/100`` spread uniformly over the legal
moves (and the pass when allowed), ``N/100`` on the strong bot's move, which is a function of
the seat's view. For a value function ``V`` fixed independently of the game, the term

    V(s, a_played) - sum_a pi(a | s) V(s, a)

has expectation zero given the position ``s``, whatever the other seats do; so has any sum of
such terms over a game. The value functions here are linear combinations of the position
features of :mod:`mindsport.doudizhu.compiled.values` (plan costs, cards left, the lead, bombs,
the end of the game) with fixed weights, :data:`VALUE_WEIGHTS`: one for the landlord's win
score, one for his score, fitted once on games no comparison plays
(``benchmarks/fit_action_values.py``). :func:`feature_terms` gives the terms of every feature
(games x seats x features, the landlord's side), :func:`decision_terms` those of the two value
functions; the comparison subtracts the latter with coefficient 1 (AIVAT).
Deterministic bots (``greedy``, ``strong``, ``level:100``) have no term (it is zero), and bots
whose policy is not known (``tracking``, external programs) none either: their decisions are
not valued, which leaves the sum's expectation zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu.compiled.values import FEATURE_NAMES, N_FEATURES
from mindsport.doudizhu.kinds import KIND_CODE
from mindsport.doudizhu.player import Bot, EngineBot, engine_code
from mindsport.doudizhu.record import GameRecord
from mindsport.errors import MindsportError
from mindsport.games.contract import MAX_PLAYOUTS

if TYPE_CHECKING:
    from mindsport.doudizhu.engine import Recorded

__all__ = [
    "FEATURE_NAMES",
    "VALUE_NAMES",
    "VALUE_WEIGHTS",
    "decision_terms",
    "feature_terms",
    "playout_row_terms",
    "policy_codes",
    "row_terms",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


#: the value functions of the action correction
VALUE_NAMES: tuple[str, ...] = ("win", "score")

#: their weights on :data:`FEATURE_NAMES` (the landlord's win score, his score under the linear
#: rule), fixed: fitted by ``benchmarks/fit_action_values.py`` (least squares, 4 pairs of
#: graded bots x 1,500 duplicate sets drawn on a key stream no comparison uses)
VALUE_WEIGHTS: tuple[tuple[float, ...], ...] = (
    (0.353387, -0.23196, -0.0246491, -0.0156118, 0.0027634, 0.00727264, -0.00615955,
     0.0045687, 0.0126822, 0.00682173, -0.00770949, 0.0192447, -0.010258, 0.0125678,
     0.0391149, -0.0416667),
    (0.819816, -0.332203, 0.60385, -0.0785288, 0.0256277, 0.0350559, -0.0310084, 0.020769,
     0.0807375, -0.055272, -0.190546, 0.110133, -0.146952, 0.0711968, 0.235212, -0.238115),
)  # fmt: skip


def policy_codes(seats: Sequence[Sequence[str | Bot]]) -> tuple[IntArray, IntArray]:
    """Engine codes and levels (G x 3) of the bots of each game's seats; code -1 where the
    bot has none (its policy is unknown: ``tracking``, an external program)."""
    codes = np.full((len(seats), 3), -1, np.int64)
    levels = np.zeros((len(seats), 3), np.int64)
    for g, lineup in enumerate(seats):
        if len(lineup) != 3:
            raise MindsportError(f"a Dou Dizhu game seats 3 bots, game {g} has {len(lineup)}")
        for seat, bot in enumerate(lineup):
            if isinstance(bot, str):
                found = engine_code(bot)
            else:
                found = bot.engine_code if isinstance(bot, EngineBot) else None
            if found is not None:
                codes[g, seat], levels[g, seat] = found
    return codes, levels


def _rows(records: Sequence[GameRecord]) -> tuple[IntArray, IntArray, IntArray]:
    """The deals (G x 3 x 15), the turns as engine rows (seat, kind, main, counts) and each
    game's first row (G + 1 bounds)."""
    deals = np.array([r.deal.counts() for r in records], dtype=np.int64).reshape(-1, 3, 15)
    starts = np.zeros(len(records) + 1, np.int64)
    np.cumsum([len(r.moves) for r in records], out=starts[1:])
    rows = np.zeros((int(starts[-1]), 18), np.int64)
    i = 0
    for record in records:
        for seat, move in record.moves:
            rows[i, 0] = seat
            if move is None:
                rows[i, 1] = -1
                rows[i, 2] = -1
            else:
                rows[i, 1] = KIND_CODE[move.kind]
                rows[i, 2] = move.main
                rows[i, 3:] = move.counts
            i += 1
    return deals, rows, starts


def _kernel_terms(
    deals: IntArray, rows: IntArray, starts: IntArray, codes: IntArray, levels: IntArray
) -> tuple[FloatArray, IntArray]:
    """The compiled kernel on games as rows (see :func:`feature_terms`)."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.compiled.values import decision_terms as kernel

    ensure_compiled()
    terms = np.zeros((len(codes), 3, N_FEATURES), np.float64)
    valued = np.zeros((len(codes), 3), np.int64)
    if len(codes):
        kernel(deals, rows, starts, codes, levels, terms, valued)
    return terms, valued


def feature_terms(
    records: Sequence[GameRecord], seats: Sequence[Sequence[str | Bot]]
) -> tuple[FloatArray, IntArray]:
    """The action terms of each game by the seat that decided (games x 3 x features, the
    features from the landlord's side: see the module) and the decisions valued per seat
    (games x 3), for ``records`` played by the bots
    ``seats[g]`` (specs or bot objects, per seat)."""
    if len(records) != len(seats):
        raise MindsportError(f"{len(records)} records but {len(seats)} line-ups")
    codes, levels = policy_codes(seats)
    return _kernel_terms(*_rows(records), codes, levels)


def _values(terms: FloatArray) -> FloatArray:
    """Feature terms (... x features) -> the terms of :data:`VALUE_WEIGHTS` (... x 2)."""
    out: FloatArray = terms @ np.asarray(VALUE_WEIGHTS, dtype=np.float64).T
    return out


def decision_terms(
    records: Sequence[GameRecord], seats: Sequence[Sequence[str | Bot]]
) -> tuple[FloatArray, IntArray]:
    """The action terms of the fixed value functions :data:`VALUE_WEIGHTS` (games x 3 seats x
    2: the win value, the score value; the landlord's side) and the decisions valued per
    seat, for ``records`` played by the bots ``seats[g]``."""
    terms, valued = feature_terms(records, seats)
    return _values(terms), valued


def row_terms(played: Recorded, codes: IntArray, levels: IntArray) -> tuple[FloatArray, IntArray]:
    """:func:`decision_terms` of games the engine kept as rows
    (:func:`mindsport.doudizhu.engine.play_rows`), played by the bots ``codes`` / ``levels``
    (G x 3, :func:`policy_codes`): no record objects."""
    terms, valued = _kernel_terms(played.deals, played.rows, played.starts, codes, levels)
    return _values(terms), valued


def playout_row_terms(
    played: Recorded, codes: IntArray, levels: IntArray, bases: npt.NDArray[np.uint64], k: int
) -> tuple[FloatArray, IntArray]:
    """:func:`row_terms` with value functions that play the game out: each the mean result of
    ``k`` playouts by the game's own bots from the position after the move
    (:mod:`mindsport.doudizhu.compiled.playouts`; half the landlord's win score and his score
    under the linear rule, as the comparison's orientation counts them); ``bases[g]``: game
    ``g``'s playout generator state (G x 6, keyed apart from the game's own generator: the
    values must not depend on the moves drawn)."""
    from mindsport.doudizhu.compiled import ensure_compiled
    from mindsport.doudizhu.compiled.playouts import N_VALUES, playout_terms

    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_PLAYOUTS:
        raise MindsportError(f"playouts must be an integer in 1..{MAX_PLAYOUTS}, got {k!r}")
    if bases.shape != (len(codes), 6):
        raise MindsportError(f"{len(codes)} games but playout states of shape {bases.shape}")
    ensure_compiled()
    terms = np.zeros((len(codes), 3, N_VALUES), np.float64)
    valued = np.zeros((len(codes), 3), np.int64)
    if len(codes):
        playout_terms(
            played.deals,
            played.rows,
            played.starts,
            (codes, levels),
            bases.copy(),
            k,
            terms,
            valued,
        )
    return terms, valued
