"""Discrimination of an initial hand (DIH, the DIH paper), exact and in polynomial time.

DIH(scores, probs, n, m, r) is the probability that, when ``n`` players each play ``m``
independent rounds whose scores follow (``scores``, ``probs``), the best ``r`` totals are
pairwise distinct: X(1) > X(2) > ... > X(r) for the order statistics X(1) >= X(2) >= ...

Method. Let v_1 > v_2 > ... > v_K be the support of one player's total (exact lattice
convolution, :func:`~mindsport.tournament.distribution.total_distribution`) with
probabilities p_j and S_j = P(X <= v_j). Scan the values from the top. With c players already
placed strictly above v_j, the other n - c are i.i.d. on {X <= v_j}, and the number of them
at exactly v_j is Binomial(n - c, q_j), q_j = p_j / S_j. The positions c+1, ..., c+k then hold
the value v_j. Positions 1..r are pairwise distinct iff no value holds two positions that are
both <= r, i.e. iff every value met while c <= r - 2 holds at most one player. Once c = r - 1
the event is decided (the value holding place r may be shared with places r+1, ...), so the
state is c in 0..r-2 plus an absorbing "decided" state:

* k = 0 (probability (1 - q)^(n-c)): stay at c;
* k = 1 (probability (n-c) q (1 - q)^(n-c-1)): move to c + 1, or to "decided" if c + 1 = r - 1;
* k >= 2: the event fails.

The cost is O(K r) after the convolution. The scan runs in log space (binomial terms from
``log1p``, sums by ``logaddexp``) and every sum is of non-negative terms, so tiny probabilities
keep their relative accuracy and :func:`log_discrimination` stays finite where the DIH itself
underflows to 0.0. Requiring also X(r) > X(r + 1) (each of the r prizes decided on the score
alone) is the same quantity with ``top = r + 1`` when r < n.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from mindsport.tournament.distribution import total_distribution
from mindsport.tournament.errors import TournamentError

__all__ = [
    "discrimination",
    "discrimination_curve",
    "discrimination_of_total",
    "log_discrimination",
    "log_discrimination_of_total",
]


def _check_counts(players: int, top: int) -> tuple[int, int]:
    for name, value in (("players", players), ("top", top)):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise TournamentError(f"{name} must be a positive integer, got {value!r}")
    if top > players:
        raise TournamentError(f"top ({top}) exceeds players ({players})")
    return int(players), int(top)


def log_discrimination_of_total(
    values: npt.ArrayLike, probs: npt.ArrayLike, players: int, top: int
) -> float:
    """Natural log of the DIH for a distribution of the total; ``-inf`` when it is exactly 0.

    The whole scan runs in log space, so even probabilities far below the smallest float
    (a national event asking for a hundred distinct places) come out as finite logs.

    >>> round(log_discrimination_of_total([2, 0, -2], [0.16, 0.48, 0.36], 9, 2), 6)
    -1.026775
    """
    n, r = _check_counts(players, top)
    if r == 1:
        return 0.0
    v = np.asarray(values, dtype=np.float64).ravel()
    p = np.asarray(probs, dtype=np.float64).ravel()
    if v.size != p.size:
        raise TournamentError(f"values and probs differ in length ({v.size} vs {p.size})")
    if np.any(~np.isfinite(p)) or np.any(p < 0) or not p.sum() > 0:
        raise TournamentError(f"probs must be non-negative with a positive sum: {p.tolist()}")
    keep = p > 0
    v, p = v[keep], p[keep]
    order = np.argsort(-v, kind="stable")
    p = p[order] / p.sum()
    # S_j = P(X <= v_j): from the bottom where small, as 1 - (upper tail) where close to 1
    upper = np.concatenate(([0.0], np.cumsum(p)[:-1]))  # P(X > v_j), accurate when small
    lower = np.cumsum(p[::-1])[::-1]  # P(X <= v_j), accurate when small
    survival = np.where(upper < 0.5, 1.0 - upper, lower)
    q = np.minimum(p / survival, 1.0)
    last = q >= 1.0
    log_q = np.log(q)
    log1mq = np.log1p(-np.where(last, 0.0, q))

    states = r - 1  # c = 0 .. r-2 players placed, each alone on its value
    m = (n - np.arange(states)).astype(np.float64)  # players still to place in state c
    log_m = np.log(m)
    alive = np.full(states, -np.inf)
    alive[0] = 0.0
    decided = -np.inf
    for j in range(p.size):
        if last[j]:  # all remaining players sit at v_j: only a single one is allowed
            moved = np.where(m == 1.0, alive, -np.inf)
            decided = np.logaddexp(decided, moved[-1])
            break
        log_stay = m * log1mq[j]
        log_move = log_m + log_q[j] + (m - 1.0) * log1mq[j]
        moved = alive + log_move
        decided = np.logaddexp(decided, moved[-1])
        alive = alive + log_stay
        alive[1:] = np.logaddexp(alive[1:], moved[:-1])
    return float(min(decided, 0.0))


def discrimination_of_total(
    values: npt.ArrayLike, probs: npt.ArrayLike, players: int, top: int
) -> float:
    """DIH for an already computed distribution of the total (any order, probabilities >= 0).

    >>> round(discrimination_of_total([2, 0, -2], [0.16, 0.48, 0.36], 9, 2), 5)
    0.35816
    """
    return float(np.exp(log_discrimination_of_total(values, probs, players, top)))


def log_discrimination(
    scores: npt.ArrayLike, probs: npt.ArrayLike, players: int, rounds: int, top: int
) -> float:
    """Natural log of :func:`discrimination` (finite even where the DIH underflows to 0.0)."""
    _check_counts(players, top)
    values, p = total_distribution(scores, probs, rounds)
    return log_discrimination_of_total(values, p, players, top)


def discrimination(
    scores: npt.ArrayLike, probs: npt.ArrayLike, players: int, rounds: int, top: int
) -> float:
    """DIH (the DIH paper): P(X(1) > X(2) > ... > X(top)) for ``players`` i.i.d. totals of
    ``rounds``.

    Exact, O(K * top) after an O(K^2) lattice convolution (K = number of possible totals).
    The worked example of the DIH paper (its Table 2 prints the 2-round distribution reversed):

    >>> round(discrimination([-2, -1, 1, 2], [0, 0.6, 0.4, 0], players=9, rounds=2, top=2), 5)
    0.35816
    """
    _check_counts(players, top)
    values, p = total_distribution(scores, probs, rounds)
    return discrimination_of_total(values, p, players, top)


def discrimination_curve(
    scores: npt.ArrayLike,
    probs: npt.ArrayLike,
    players: int,
    rounds: Iterable[int],
    top: int,
) -> list[tuple[int, float]]:
    """DIH for each number of rounds in ``rounds``: ``[(m, DIH), ...]`` in the given order.

    >>> [(m, round(d, 3)) for m, d in discrimination_curve([-1, 1], [0.5, 0.5], 4, [1, 2], 2)]
    [(1, 0.25), (2, 0.453)]
    """
    _check_counts(players, top)
    return [(int(m), discrimination(scores, probs, players, m, top)) for m in rounds]
