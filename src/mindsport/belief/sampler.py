"""Monte Carlo marginals: a Metropolis chain over consistent assignments.

The state is an assignment (row -> column) with the right column counts. A move picks two rows
and swaps their columns, or three rows and rotates them (a 3-cycle, needed when every pairwise
swap lands on a forbidden cell); it is accepted with probability
``min(1, prod W[new] / prod W[old])``. Both moves are symmetric, so the chain's stationary law is
the one :mod:`mindsport.belief.exact` computes. Caveat: with many forbidden cells, swaps and
3-cycles may not connect every pair of assignments (a longer cycle may be needed); then the chain
is not irreducible and the estimate is biased. The stated error is the batch-means standard
error, which measures sampling noise only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mindsport.belief.exact import _unpack
from mindsport.belief.feasibility import InfeasibleObservationError, assign
from mindsport.belief.matrix import BeliefMatrix
from mindsport.errors import MindsportError

__all__ = ["MarginalEstimate", "mcmc_marginals"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class MarginalEstimate:
    """Estimated marginals with their batch-means standard errors."""

    mean: FloatArray
    stderr: FloatArray
    acceptance: float
    steps: int

    @property
    def max_stderr(self) -> float:
        return float(self.stderr.max())


def mcmc_marginals(
    source: BeliefMatrix | FloatArray,
    counts: Sequence[int] | None = None,
    *,
    rng: np.random.Generator,
    steps: int = 200_000,
    burn_in: int = 10_000,
    batches: int = 20,
) -> MarginalEstimate:
    """Estimate the marginals by a Metropolis chain (see the module note)."""
    w, cnt = _unpack(source, counts)
    n_rows, n_cols = w.shape
    if steps < batches or batches < 2:
        raise MindsportError(f"need steps >= batches >= 2, got steps={steps}, batches={batches}")
    start = assign(w, cnt)
    if isinstance(start, tuple):
        raise InfeasibleObservationError("no consistent assignment exists")
    sigma = np.asarray(start, dtype=np.intp)
    if n_rows < 2:
        mean = np.zeros((n_rows, n_cols))
        mean[np.arange(n_rows), sigma] = 1.0
        return MarginalEstimate(mean, np.zeros_like(mean), 1.0, 0)
    wl = w.tolist()
    s = sigma.tolist()
    per_batch = steps // batches
    total = burn_in + per_batch * batches
    picks = rng.integers(0, n_rows, size=(total, 3))
    kinds = rng.random(total) < 0.5
    accept_u = rng.random(total)
    acc = np.zeros((batches, n_rows, n_cols))
    occupancy = np.zeros((n_rows, n_cols))
    accepted = 0
    rows = np.arange(n_rows)
    for t in range(total):
        a, b, c = int(picks[t, 0]), int(picks[t, 1]), int(picks[t, 2])
        if kinds[t] or n_rows < 3:
            if a != b and s[a] != s[b]:
                ja, jb = s[a], s[b]
                old = wl[a][ja] * wl[b][jb]
                new = wl[a][jb] * wl[b][ja]
                if new > 0 and (new >= old or accept_u[t] * old < new):
                    s[a], s[b] = jb, ja
                    accepted += 1
        elif a != b and b != c and a != c:
            ja, jb, jc = s[a], s[b], s[c]
            old = wl[a][ja] * wl[b][jb] * wl[c][jc]
            new = wl[a][jb] * wl[b][jc] * wl[c][ja]
            if new > 0 and (new >= old or accept_u[t] * old < new):
                s[a], s[b], s[c] = jb, jc, ja
                accepted += 1
        if t >= burn_in:
            occupancy[rows, s] += 1.0
            k = t - burn_in + 1
            if k % per_batch == 0:
                acc[k // per_batch - 1] = occupancy / per_batch
                occupancy[:] = 0.0
    mean = acc.mean(axis=0)
    stderr = acc.std(axis=0, ddof=1) / np.sqrt(batches)
    return MarginalEstimate(mean, stderr, accepted / total, total)
