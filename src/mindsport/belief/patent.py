"""The Junqi patent's update rule, kept as a baseline.

The patent (CN, "机器博弈优化方法") keeps an ``m x n`` matrix ``a`` scaled by 10000: rows are
enemy pieces (each row sums to 10000), columns are kinds (column ``h`` sums to
``count_h * 10000``). After a collision at row ``i1`` changes some cells of that row it does

* step 2, row update: the other cells of row ``i1`` take back or give out the difference in
  proportion to their values, so row ``i1`` again sums to 10000;
* step 3, column update: in every column ``j``, the cells of the *other* rows are rescaled in
  proportion to their values so that the column again sums to ``count_j * 10000``.

One row pass and one column pass per observation, not repeated: the column pass breaks the sums
of the other rows, and the patent never restores them. (The formulas are images missing from the
seed text; this is our reading of steps 2-3, the proportional redistribution they describe.)
An observation is applied as likelihood factors on the row, as in :class:`BeliefMatrix`
(``forbid`` = factor 0). The matrix does not detect impossible observations except a row that
becomes all zero.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from mindsport.belief.feasibility import InfeasibleObservationError
from mindsport.errors import MindsportError

__all__ = ["PatentMatrix"]

FloatArray = npt.NDArray[np.float64]
SCALE = 10_000.0


class PatentMatrix:
    """The patent's probability matrix with its one-pass row/column update (mutable).

    Same observation methods as :class:`~mindsport.belief.matrix.BeliefMatrix` (columns by index
    or label); :attr:`probabilities` is ``a / 10000``.
    """

    __slots__ = ("_a", "_column_labels", "_counts")

    def __init__(
        self,
        n_rows: int,
        column_counts: Sequence[int],
        *,
        column_labels: Sequence[Hashable] | None = None,
    ) -> None:
        counts = np.asarray([int(c) for c in column_counts], dtype=np.float64)
        if sum(counts) != n_rows or np.any(counts < 0):
            raise MindsportError(
                f"column counts {list(column_counts)} must be >= 0 and total {n_rows} rows"
            )
        self._counts = counts
        self._a: FloatArray = np.tile(counts / max(n_rows, 1) * SCALE, (n_rows, 1))
        self._column_labels = None if column_labels is None else list(column_labels)

    @property
    def n_rows(self) -> int:
        return int(self._a.shape[0])

    @property
    def n_columns(self) -> int:
        return int(self._a.shape[1])

    def copy(self) -> PatentMatrix:
        new = PatentMatrix.__new__(PatentMatrix)
        new._a = self._a.copy()
        new._counts = self._counts.copy()
        new._column_labels = None if self._column_labels is None else list(self._column_labels)
        return new

    def column_index(self, column: int | Hashable) -> int:
        if self._column_labels is not None and column in self._column_labels:
            return self._column_labels.index(column)
        if isinstance(column, int | np.integer) and 0 <= int(column) < self.n_columns:
            return int(column)
        raise MindsportError(f"unknown column {column!r}")

    def _cols(self, columns: Iterable[int | Hashable] | int | Hashable) -> list[int]:
        if isinstance(columns, str) or not isinstance(columns, Iterable):
            columns = [columns]
        return [self.column_index(c) for c in columns]

    def _update(self, row: int, factors: FloatArray) -> PatentMatrix:
        if not 0 <= row < self.n_rows:
            raise MindsportError(f"row {row} out of range ({self.n_rows} rows)")
        a = self._a
        new_row = a[row] * factors
        total = new_row.sum()
        if total <= 0:
            raise InfeasibleObservationError(f"row {row} can be of no column after this update")
        # step 2: the row gives out / takes back in proportion, back to SCALE
        a[row] = new_row * (SCALE / total)
        # step 3: each column's other rows are rescaled to restore the column total
        others = np.ones(self.n_rows, dtype=bool)
        others[row] = False
        rest = a[others].sum(axis=0)
        target = self._counts * SCALE - a[row]
        scale = np.divide(target, rest, out=np.zeros_like(rest), where=rest > 0)
        a[others] *= np.maximum(scale, 0.0)
        return self

    def forbid(self, row: int, columns: Iterable[int | Hashable] | int | Hashable) -> PatentMatrix:
        f = np.ones(self.n_columns)
        f[self._cols(columns)] = 0.0
        return self._update(row, f)

    def only(self, row: int, columns: Iterable[int | Hashable] | int | Hashable) -> PatentMatrix:
        f = np.zeros(self.n_columns)
        f[self._cols(columns)] = 1.0
        return self._update(row, f)

    def reveal(self, row: int, column: int | Hashable) -> PatentMatrix:
        return self.only(row, [column])

    def reweight(self, row: int, factors: Sequence[float] | FloatArray) -> PatentMatrix:
        f = np.asarray(factors, dtype=np.float64)
        if f.shape != (self.n_columns,) or np.any(f < 0):
            raise MindsportError(f"factors must be {self.n_columns} numbers >= 0, got {factors!r}")
        return self._update(row, f)

    def remove(self, row: int, column: int | Hashable) -> PatentMatrix:
        """Delete a row found to be of ``column``; columns are rescaled to the new counts."""
        col = self.column_index(column)
        if self._counts[col] < 1:
            raise InfeasibleObservationError(f"no row of column {column!r} is left")
        self._a = np.delete(self._a, row, axis=0)
        self._counts[col] -= 1
        rest = self._a.sum(axis=0)
        scale = np.divide(self._counts * SCALE, rest, out=np.zeros_like(rest), where=rest > 0)
        self._a *= scale
        return self

    @property
    def probabilities(self) -> FloatArray:
        p = self._a / SCALE
        p.flags.writeable = False
        return p

    def most_likely(self, row: int) -> int:
        return int(np.argmax(self._a[row]))
