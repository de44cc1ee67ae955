"""Feasibility of a set of observations: does any assignment of rows to columns survive?

Rows must each take exactly one column, column ``j`` must be taken by exactly ``counts[j]`` rows,
and a row may only take a column whose weight is positive. This is a bipartite *b-matching*; it
exists exactly when Hall's condition holds (every set of rows can reach columns with enough room).
We find one by augmenting paths, and when none exists we read the violating set of rows off the
last failed search, so the error can say what is impossible.

A feasible assignment also tells which cells can appear in *some* consistent assignment: a cell
``(i, j)`` that is not used by the assignment can be used iff column ``j`` can pass a row on, step
by step, back to the column that row ``i`` leaves (a path in the "column graph"). Cells that no
consistent assignment uses are structural zeros; removing them makes Sinkhorn scaling converge
geometrically.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError

__all__ = ["InfeasibleObservationError", "assign", "hall_violation", "usable_cells"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class InfeasibleObservationError(MindsportError):
    """The observations leave no consistent assignment (Hall's condition fails); names the rows
    and columns involved."""


def _augment(
    row: int,
    allowed: list[list[int]],
    counts: Sequence[int],
    assignment: list[int],
    members: list[list[int]],
) -> tuple[bool, set[int], set[int]]:
    """Try to place ``row`` by one breadth-first augmenting path.

    Returns ``(placed, rows_seen, columns_seen)``; when not placed, the rows seen can only take
    the columns seen, and those are full.
    """
    parent_col: dict[int, int] = {}  # column -> row that reaches it
    parent_row: dict[int, int] = {row: -1}  # row -> column it was reached through
    queue = deque([row])
    while queue:
        r = queue.popleft()
        for col in allowed[r]:
            if col in parent_col:
                continue
            parent_col[col] = r
            if len(members[col]) < counts[col]:
                # augment along the path back to ``row``
                c = col
                while True:
                    rr = parent_col[c]
                    old = assignment[rr]
                    if old >= 0:
                        members[old].remove(rr)
                    assignment[rr] = c
                    members[c].append(rr)
                    if rr == row:
                        return True, set(), set()
                    c = old
            for nxt in members[col]:
                if nxt not in parent_row:
                    parent_row[nxt] = col
                    queue.append(nxt)
    return False, set(parent_row), set(parent_col)


def assign(
    weights: FloatArray,
    counts: Sequence[int],
    start: Sequence[int] | None = None,
) -> list[int] | tuple[set[int], set[int]]:
    """One consistent assignment (list: row -> column), or the Hall violation found.

    ``start`` is a previous assignment to repair (entries whose cell is now zero are dropped).
    On failure returns ``(rows, columns)``: these rows can only take these columns, which have
    room for fewer rows than that.
    """
    n_rows, n_cols = weights.shape
    positive = weights > 0
    if start is not None and len(start) == n_rows and n_rows:
        sigma = np.asarray(start, dtype=np.intp)
        if sigma.min() >= 0 and bool(np.all(positive[np.arange(n_rows), sigma])):
            used = np.bincount(sigma, minlength=n_cols)
            if all(int(used[j]) == int(counts[j]) for j in range(n_cols)):
                return [int(x) for x in sigma]  # still consistent: nothing to repair
    allowed: list[list[int]] = [[] for _ in range(n_rows)]
    for i, j in zip(*np.nonzero(positive), strict=True):
        allowed[int(i)].append(int(j))
    assignment = [-1] * n_rows
    members: list[list[int]] = [[] for _ in range(n_cols)]
    if start is not None:
        for i, col in enumerate(start):
            if col >= 0 and weights[i, col] > 0 and len(members[col]) < counts[col]:
                assignment[i] = col
                members[col].append(i)
    for i in range(n_rows):
        if assignment[i] < 0:
            placed, rows, cols = _augment(i, allowed, counts, assignment, members)
            if not placed:
                return rows, cols
    return assignment


def hall_violation(weights: FloatArray, counts: Sequence[int]) -> tuple[set[int], set[int]] | None:
    """The rows and columns of a Hall violation, or ``None`` if the observations are feasible."""
    result = assign(weights, counts)
    return result if isinstance(result, tuple) else None


def usable_cells(weights: FloatArray, assignment: Sequence[int]) -> BoolArray:
    """Cells used by at least one consistent assignment (given one consistent ``assignment``)."""
    n_rows, n_cols = weights.shape
    positive = weights > 0
    sigma = np.asarray(assignment, dtype=np.intp)
    # column graph: a -> b when a row now in column a may take column b
    reach = np.zeros((n_cols, n_cols), dtype=bool)
    for i in range(n_rows):
        reach[sigma[i]] |= positive[i]
    np.fill_diagonal(reach, True)
    # transitive closure (Floyd-Warshall on booleans; n_cols is small)
    for k in range(n_cols):
        reach |= reach[:, k : k + 1] & reach[k : k + 1, :]
    # cell (i, j) usable iff j == sigma(i) or j reaches sigma(i)
    usable = positive & reach[:, sigma].T
    return usable
