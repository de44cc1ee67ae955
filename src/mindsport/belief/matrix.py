"""The belief matrix: rows are hidden items, columns are types, cells are probabilities.

A :class:`BeliefMatrix` holds *evidence weights* ``W`` (start: all ones) and the known column
counts ``c``. Observations multiply a row of ``W`` by likelihood factors (zero = impossible).
The probabilities are the matrix ``P = diag(x) W diag(y)`` whose rows sum to 1 and whose columns
sum to ``c``: iterative proportional fitting (Sinkhorn scaling), the maximum-entropy (minimum
Kullback-Leibler) matrix with those marginals. This is the Junqi patent's row/column update done
right: the patent makes one row pass and one column pass per observation (see
:mod:`mindsport.belief.patent`); here the two passes alternate until both marginals hold within
``tolerance``. It is an approximation of the exact marginals of the uniform-weighted set of
consistent assignments (:mod:`mindsport.belief.exact`), usually a good one.

Style: the matrix is *mutable*; every observation method changes it in place and returns
``self`` (so calls chain). Take :meth:`BeliefMatrix.copy` before a hypothetical update. An
observation that would leave no consistent assignment raises
:class:`~mindsport.belief.feasibility.InfeasibleObservationError` and leaves the matrix as it was.

>>> m = BeliefMatrix(3, [1, 2], column_labels=["flag", "mine"])
>>> _ = m.forbid(0, ["mine"])
>>> m.most_likely(0)
0
>>> [round(float(p), 3) for p in m.probabilities[1]]
[0.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from mindsport.belief.feasibility import InfeasibleObservationError, assign, usable_cells
from mindsport.errors import MindsportError

__all__ = ["BeliefMatrix", "InfeasibleObservationError", "sinkhorn"]

FloatArray = npt.NDArray[np.float64]
ColumnRef = int | Hashable


def sinkhorn(
    weights: FloatArray,
    counts: FloatArray,
    tolerance: float = 1e-9,
    max_iterations: int = 10_000,
) -> tuple[FloatArray, int, float]:
    """Scale ``weights`` to row sums 1 and column sums ``counts``.

    Returns ``(probabilities, iterations, residual)`` where the residual is the largest absolute
    deviation of a row or column sum from its target. Rows or columns that are all zero stay zero.
    """
    p, iterations, residual, _ = _sinkhorn(weights, counts, tolerance, max_iterations, None)
    return p, iterations, residual


def _sinkhorn(
    weights: FloatArray,
    counts: FloatArray,
    tolerance: float,
    max_iterations: int,
    y_start: FloatArray | None,
) -> tuple[FloatArray, int, float, FloatArray]:
    """Sinkhorn iterations from column scalings ``y_start`` (warm start); also returns ``y``."""
    w = np.asarray(weights, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    n_rows = w.shape[0]
    if y_start is not None and y_start.shape == (w.shape[1],):
        y = np.where(y_start > 0, y_start, 1.0)
    else:
        y = np.ones(w.shape[1])
    x = np.ones(n_rows)
    residual = np.inf
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007
        wy = w @ y
        x = np.divide(1.0, wy, out=np.zeros(n_rows), where=wy > 0)
        wx = w.T @ x
        y = np.divide(c, wx, out=np.zeros_like(c), where=wx > 0)
        # columns now exact; measure rows
        row_sums = x * (w @ y)
        residual = float(np.max(np.abs(row_sums - 1.0))) if n_rows else 0.0
        if residual <= tolerance:
            break
    p = x[:, None] * w * y[None, :]
    col_res = float(np.max(np.abs(p.sum(axis=0) - c))) if p.size else 0.0
    return p, iterations, max(residual, col_res), y


class BeliefMatrix:
    """Probabilities of hidden rows (pieces, cards) being of each column (kind, holder).

    ``column_counts[j]`` rows are of column ``j``; the counts must add up to ``n_rows``.
    ``row_labels`` / ``column_labels`` are optional names used in error messages; columns may be
    addressed by index or by label. Removing a row (:meth:`remove`) shifts later rows up by one
    (their labels move with them).
    """

    __slots__ = (
        "_assignment",
        "_cache",
        "_column_labels",
        "_counts",
        "_row_labels",
        "_weights",
        "_y",
        "iterations",
        "max_iterations",
        "residual",
        "tolerance",
    )

    def __init__(
        self,
        n_rows: int,
        column_counts: Sequence[int],
        *,
        row_labels: Sequence[Hashable] | None = None,
        column_labels: Sequence[Hashable] | None = None,
        tolerance: float = 1e-9,
        max_iterations: int = 10_000,
    ) -> None:
        counts = [int(c) for c in column_counts]
        if n_rows < 0:
            raise MindsportError(f"n_rows must be >= 0, got {n_rows}")
        if any(c < 0 for c in counts):
            raise MindsportError(f"column counts must be >= 0, got {counts}")
        if sum(counts) != n_rows:
            raise MindsportError(
                f"column counts {counts} total {sum(counts)} but there are {n_rows} rows"
            )
        if row_labels is not None and len(row_labels) != n_rows:
            raise MindsportError(f"{len(row_labels)} row labels for {n_rows} rows")
        if column_labels is not None and len(column_labels) != len(counts):
            raise MindsportError(f"{len(column_labels)} column labels for {len(counts)} columns")
        if not tolerance > 0:
            raise MindsportError(f"tolerance must be > 0, got {tolerance}")
        self._weights: FloatArray = np.ones((n_rows, len(counts)))
        self._weights[:, np.asarray(counts) == 0] = 0.0
        self._counts = np.asarray(counts, dtype=np.int64)
        self._row_labels: list[Hashable] | None = None if row_labels is None else list(row_labels)
        self._column_labels: list[Hashable] | None = (
            None if column_labels is None else list(column_labels)
        )
        self.tolerance = float(tolerance)
        self.max_iterations = int(max_iterations)
        self._cache: FloatArray | None = None
        self._y: FloatArray | None = None  # column scalings of the last fit (warm start)
        self.iterations = 0
        self.residual = 0.0
        first = assign(self._weights, self._counts.tolist())
        self._assignment: list[int] = first if isinstance(first, list) else []

    # ------------------------------------------------------------------ basics
    @property
    def n_rows(self) -> int:
        return int(self._weights.shape[0])

    @property
    def n_columns(self) -> int:
        return int(self._weights.shape[1])

    @property
    def column_counts(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self._counts)

    @property
    def weights(self) -> FloatArray:
        """The evidence weights (a read-only copy)."""
        w = self._weights.copy()
        w.flags.writeable = False
        return w

    @property
    def row_labels(self) -> tuple[Hashable, ...]:
        return (
            tuple(self._row_labels) if self._row_labels is not None else tuple(range(self.n_rows))
        )

    def row_index(self, label: Hashable) -> int:
        """Current index of the row labelled ``label`` (rows shift when one is removed)."""
        if self._row_labels is None:
            raise MindsportError("this matrix has no row labels")
        try:
            return self._row_labels.index(label)
        except ValueError:
            raise MindsportError(f"no row labelled {label!r}") from None

    def copy(self) -> BeliefMatrix:
        """An independent copy (observations on it leave this matrix unchanged)."""
        new = BeliefMatrix.__new__(BeliefMatrix)
        new._weights = self._weights.copy()
        new._counts = self._counts.copy()
        new._row_labels = None if self._row_labels is None else list(self._row_labels)
        new._column_labels = None if self._column_labels is None else list(self._column_labels)
        new.tolerance = self.tolerance
        new.max_iterations = self.max_iterations
        new._cache = None if self._cache is None else self._cache.copy()
        new._y = None if self._y is None else self._y.copy()
        new.iterations = self.iterations
        new.residual = self.residual
        new._assignment = list(self._assignment)
        return new

    def __repr__(self) -> str:
        return f"BeliefMatrix(n_rows={self.n_rows}, column_counts={list(self.column_counts)})"

    # ------------------------------------------------------------- naming
    def _row_name(self, row: int) -> str:
        if self._row_labels is not None:
            return f"row {row} ({self._row_labels[row]!r})"
        return f"row {row}"

    def _col_name(self, col: int) -> str:
        if self._column_labels is not None:
            return f"{self._column_labels[col]!r}"
        return f"column {col}"

    def _row(self, row: int) -> int:
        if not isinstance(row, int | np.integer) or not 0 <= int(row) < self.n_rows:
            raise MindsportError(f"row {row!r} out of range (matrix has {self.n_rows} rows)")
        return int(row)

    def column_index(self, column: ColumnRef) -> int:
        """Index of a column given by index or label."""
        if self._column_labels is not None and not isinstance(column, int | np.integer):
            try:
                return self._column_labels.index(column)
            except ValueError:
                raise MindsportError(
                    f"unknown column {column!r}; columns are {self._column_labels}"
                ) from None
        if self._column_labels is not None and column in self._column_labels:
            return self._column_labels.index(column)
        if isinstance(column, int | np.integer) and 0 <= int(column) < self.n_columns:
            return int(column)
        raise MindsportError(f"column {column!r} out of range ({self.n_columns} columns)")

    def _cols(self, columns: Iterable[ColumnRef] | ColumnRef) -> list[int]:
        if isinstance(columns, str) or not isinstance(columns, Iterable):
            columns = [columns]
        return [self.column_index(c) for c in columns]

    # ------------------------------------------------------------- observations
    def _commit(self, weights: FloatArray, what: str) -> BeliefMatrix:
        result = assign(weights, self._counts.tolist(), self._assignment)
        if isinstance(result, tuple):
            rows, cols = result
            raise InfeasibleObservationError(self._describe_violation(what, rows, cols))
        self._weights = weights
        self._assignment = result
        self._cache = None
        return self

    def _describe_violation(self, what: str, rows: set[int], cols: set[int]) -> str:
        room = int(sum(self._counts[c] for c in cols))
        row_names = ", ".join(self._row_name(r) for r in sorted(rows))
        if not cols:
            return f"{what} is impossible: {row_names} can be of no column"
        col_names = ", ".join(self._col_name(c) for c in sorted(cols))
        other_cols = sorted(set(range(self.n_columns)) - cols)
        text = (
            f"{what} is impossible: {len(rows)} rows ({row_names}) can only be of "
            f"{col_names}, which hold {room} in total"
        )
        if other_cols:
            need = int(sum(self._counts[c] for c in other_cols))
            others = ", ".join(self._col_name(c) for c in other_cols)
            text += (
                f"; equivalently {others} need {need} rows but only "
                f"{self.n_rows - len(rows)} other rows can take them"
            )
        return text

    def forbid(self, row: int, columns: Iterable[ColumnRef] | ColumnRef) -> BeliefMatrix:
        """Row ``row`` is none of ``columns``."""
        r = self._row(row)
        cols = self._cols(columns)
        w = self._weights.copy()
        w[r, cols] = 0.0
        names = ", ".join(self._col_name(c) for c in cols)
        return self._commit(w, f"forbidding {names} for {self._row_name(r)}")

    def only(self, row: int, columns: Iterable[ColumnRef] | ColumnRef) -> BeliefMatrix:
        """Row ``row`` is one of ``columns``."""
        r = self._row(row)
        cols = self._cols(columns)
        w = self._weights.copy()
        keep = np.zeros(self.n_columns, dtype=bool)
        keep[cols] = True
        w[r, ~keep] = 0.0
        names = ", ".join(self._col_name(c) for c in cols)
        return self._commit(w, f"restricting {self._row_name(r)} to {names}")

    def reveal(self, row: int, column: ColumnRef) -> BeliefMatrix:
        """Row ``row`` is known to be of ``column``."""
        return self.only(row, [column])

    def reweight(self, row: int, factors: Sequence[float] | FloatArray) -> BeliefMatrix:
        """Multiply row ``row`` by likelihood ``factors`` (one per column, >= 0, not all zero)."""
        r = self._row(row)
        f = np.asarray(factors, dtype=np.float64)
        if f.shape != (self.n_columns,) or not np.all(np.isfinite(f)) or np.any(f < 0):
            raise MindsportError(
                f"factors for {self._row_name(r)} must be {self.n_columns} finite numbers >= 0, "
                f"got {factors!r}"
            )
        w = self._weights.copy()
        w[r] *= f
        scale = w[r].max()
        if scale > 0:
            w[r] /= scale  # keep weights O(1); scaling a row does not change the fit
        return self._commit(w, f"reweighting {self._row_name(r)} by {f.tolist()}")

    def remove(self, row: int, column: ColumnRef) -> BeliefMatrix:
        """Delete row ``row``, which turned out to be of ``column`` (its count drops by one).

        Later rows shift up by one.
        """
        r = self._row(row)
        col = self.column_index(column)
        if self._weights[r, col] <= 0:
            raise InfeasibleObservationError(
                f"removing {self._row_name(r)} as {self._col_name(col)} is impossible: "
                f"that cell was ruled out"
            )
        w = np.delete(self._weights, r, axis=0)
        counts = self._counts.copy()
        counts[col] -= 1
        if counts[col] == 0:
            w[:, col] = 0.0
        start = self._assignment[:r] + self._assignment[r + 1 :]
        result = assign(w, counts.tolist(), start)
        if isinstance(result, tuple):
            rows, cols = result
            old_counts = self._counts
            self._counts = counts  # for the message only
            try:
                text = self._describe_violation(
                    f"removing {self._row_name(r)} as {self._col_name(col)}",
                    {x + (x >= r) for x in rows},
                    cols,
                )
            finally:
                self._counts = old_counts
            raise InfeasibleObservationError(text)
        self._weights = w
        self._counts = counts
        self._assignment = result
        if self._row_labels is not None:
            del self._row_labels[r]
        self._cache = None
        return self

    # ------------------------------------------------------------- results
    def fit(self) -> FloatArray:
        """Run the fit now (structural zeros removed, then Sinkhorn) and return the matrix."""
        if self._cache is None:
            if self.n_rows == 0:
                self._cache = np.zeros_like(self._weights)
                self.iterations, self.residual = 0, 0.0
            else:
                mask = usable_cells(self._weights, self._assignment)
                p, it, res, y = _sinkhorn(
                    np.where(mask, self._weights, 0.0),
                    self._counts.astype(np.float64),
                    self.tolerance,
                    self.max_iterations,
                    self._y,
                )
                self._cache, self.iterations, self.residual, self._y = p, it, res, y
        return self._cache

    @property
    def probabilities(self) -> FloatArray:
        """The fitted matrix (rows x columns; rows sum to 1, columns to the counts). Read-only."""
        p = self.fit().copy()
        p.flags.writeable = False
        return p

    def most_likely(self, row: int) -> int:
        """Index of the most probable column of ``row`` (lowest index on ties)."""
        r = self._row(row)
        return int(np.argmax(self.fit()[r]))

    def possible(self, row: int) -> tuple[int, ...]:
        """Columns still possible for ``row`` in some consistent assignment."""
        r = self._row(row)
        return tuple(int(j) for j in np.flatnonzero(self.fit()[r] > 0))
