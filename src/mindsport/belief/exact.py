"""Exact marginals of the distribution over consistent assignments (small cases).

The belief matrix describes a distribution over *assignments* ``s`` (row ``i`` -> column
``s(i)``) that use column ``j`` exactly ``counts[j]`` times and avoid zero-weight cells, each
with probability proportional to ``prod_i W[i, s(i)]`` (the observations' likelihoods). Its exact
marginals ``P(s(i) = j)`` are what the fitted matrix approximates.

* :func:`enumerate_marginals` lists every assignment (brute force; a handful of rows).
* :func:`exact_marginals` sums over the same assignments by dynamic programming over the vector
  of column counts used so far (forward-backward; states = prod(counts + 1)), exact and fast
  enough for a whole Luzhanqi army (25 rows x 12 kinds: ~5e5 states).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from mindsport.belief.feasibility import InfeasibleObservationError
from mindsport.belief.matrix import BeliefMatrix
from mindsport.errors import MindsportError

__all__ = ["count_assignments", "enumerate_marginals", "exact_marginals"]

FloatArray = npt.NDArray[np.float64]


def _unpack(
    source: BeliefMatrix | FloatArray, counts: Sequence[int] | None
) -> tuple[FloatArray, list[int]]:
    if isinstance(source, BeliefMatrix):
        return np.asarray(source.weights, dtype=np.float64), list(source.column_counts)
    if counts is None:
        raise MindsportError("counts are required when weights are given as an array")
    w = np.asarray(source, dtype=np.float64)
    if w.ndim != 2 or w.shape[1] != len(counts):
        raise MindsportError(f"weights of shape {w.shape} do not match {len(counts)} counts")
    if sum(counts) != w.shape[0]:
        raise MindsportError(f"counts {list(counts)} do not add up to {w.shape[0]} rows")
    return w, [int(c) for c in counts]


def enumerate_marginals(
    source: BeliefMatrix | FloatArray,
    counts: Sequence[int] | None = None,
    max_assignments: int = 2_000_000,
) -> FloatArray:
    """Exact marginals by listing every assignment (only for a few rows)."""
    w, cnt = _unpack(source, counts)
    n_rows, n_cols = w.shape
    allowed = [tuple(int(j) for j in np.flatnonzero(w[i] > 0)) for i in range(n_rows)]
    total = math.prod(len(a) for a in allowed)
    if total > max_assignments:
        raise MindsportError(
            f"{total} candidate assignments exceed max_assignments={max_assignments}; "
            "use exact_marginals"
        )
    marg = np.zeros((n_rows, n_cols))
    z = 0.0
    target = tuple(cnt)
    for combo in itertools.product(*allowed):
        used = [0] * n_cols
        for j in combo:
            used[j] += 1
        if tuple(used) != target:
            continue
        weight = math.prod(float(w[i, j]) for i, j in enumerate(combo))
        z += weight
        for i, j in enumerate(combo):
            marg[i, j] += weight
    if z <= 0:
        raise InfeasibleObservationError("no consistent assignment exists")
    return marg / z


def _shift_slices(ndim: int, axis: int) -> tuple[tuple[slice, ...], tuple[slice, ...]]:
    lo = [slice(None)] * ndim
    hi = [slice(None)] * ndim
    lo[axis] = slice(None, -1)
    hi[axis] = slice(1, None)
    return tuple(lo), tuple(hi)


def exact_marginals(
    source: BeliefMatrix | FloatArray,
    counts: Sequence[int] | None = None,
    max_states: int = 2_000_000,
) -> FloatArray:
    """Exact marginals by dynamic programming over the column counts used so far."""
    w, cnt = _unpack(source, counts)
    n_rows, n_cols = w.shape
    # rows with a single possible column are settled: take them out first
    single = [i for i in range(n_rows) if np.count_nonzero(w[i] > 0) == 1]
    if single:
        settled = np.zeros((n_rows, n_cols))
        reduced = list(cnt)
        for i in single:
            j = int(np.flatnonzero(w[i] > 0)[0])
            settled[i, j] = 1.0
            reduced[j] -= 1
        if min(reduced) < 0:
            raise InfeasibleObservationError("more rows are settled on a column than it holds")
        rest = [i for i in range(n_rows) if i not in set(single)]
        if rest:
            settled[rest] = exact_marginals(w[rest], reduced, max_states)
        elif any(reduced):
            raise InfeasibleObservationError("no consistent assignment exists")
        return settled
    active = [j for j in range(n_cols) if cnt[j] > 0]
    shape = tuple(cnt[j] + 1 for j in active)
    states = math.prod(shape)
    if states > max_states:
        raise MindsportError(f"{states} count states exceed max_states={max_states}")
    wa = w[:, active]
    nd = len(active)
    slices = [_shift_slices(nd, a) for a in range(nd)]
    forward = [np.zeros(shape)]
    forward[0][(0,) * nd] = 1.0
    for i in range(n_rows):
        f = forward[-1]
        nxt = np.zeros(shape)
        for a in range(nd):
            if wa[i, a] > 0:
                lo, hi = slices[a]
                nxt[hi] += wa[i, a] * f[lo]
        peak = nxt.max()
        if peak <= 0:
            raise InfeasibleObservationError(
                f"no consistent assignment exists for rows 0..{i} (row {i} cannot be placed)"
            )
        forward.append(nxt / peak)
    final = tuple(c for c in shape)
    if forward[-1][tuple(s - 1 for s in final)] <= 0:
        raise InfeasibleObservationError("no consistent assignment exists (counts cannot be met)")
    marg = np.zeros((n_rows, n_cols))
    back = np.zeros(shape)
    back[tuple(s - 1 for s in shape)] = 1.0
    for i in range(n_rows - 1, -1, -1):
        f = forward[i]
        row = np.zeros(nd)
        prev = np.zeros(shape)
        for a in range(nd):
            if wa[i, a] > 0:
                lo, hi = slices[a]
                row[a] = wa[i, a] * float(np.sum(f[lo] * back[hi]))
                prev[lo] += wa[i, a] * back[hi]
        total = row.sum()
        if total <= 0:
            raise InfeasibleObservationError("no consistent assignment exists")
        marg[i, active] = row / total
        peak = prev.max()
        back = prev / peak if peak > 0 else prev
    return marg


def count_assignments(
    source: BeliefMatrix | FloatArray, counts: Sequence[int] | None = None
) -> int:
    """Number of consistent assignments (cells with positive weight count once), by enumeration
    of the count states (exact integer arithmetic; small cases)."""
    w, cnt = _unpack(source, counts)
    n_rows, n_cols = w.shape
    ways: dict[tuple[int, ...], int] = {(0,) * n_cols: 1}
    for i in range(n_rows):
        nxt: dict[tuple[int, ...], int] = {}
        for state, k in ways.items():
            for j in range(n_cols):
                if w[i, j] > 0 and state[j] < cnt[j]:
                    s = (*state[:j], state[j] + 1, *state[j + 1 :])
                    nxt[s] = nxt.get(s, 0) + k
        ways = nxt
    return ways.get(tuple(cnt), 0)
