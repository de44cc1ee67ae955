"""Exact DP vs brute force, the patent's rule by hand, the sampler vs exact."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.belief import (
    BeliefMatrix,
    InfeasibleObservationError,
    PatentMatrix,
    enumerate_marginals,
    exact_marginals,
    mcmc_marginals,
)


def test_dp_matches_brute_force_weighted() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        counts = [int(c) for c in rng.integers(0, 3, size=4)]
        n = sum(counts)
        if n == 0 or n > 7:
            continue
        w = rng.random((n, 4)) * (rng.random((n, 4)) > 0.25)
        try:
            ex = enumerate_marginals(w, counts)
        except InfeasibleObservationError:
            with pytest.raises(InfeasibleObservationError):
                exact_marginals(w, counts)
            continue
        np.testing.assert_allclose(exact_marginals(w, counts), ex, atol=1e-9)


def test_hand_worked_permutation_case() -> None:
    # 3 rows, one of each column; row 0 is not column 0, row 1 not column 1.
    # consistent assignments: (1,0,2), (1,2,0), (2,0,1)
    m = BeliefMatrix(3, [1, 1, 1]).forbid(0, 0).forbid(1, 1)
    expected = np.array([[0, 2, 1], [2, 0, 1], [1, 1, 1]]) / 3
    np.testing.assert_allclose(enumerate_marginals(m), expected, atol=1e-12)
    np.testing.assert_allclose(exact_marginals(m), expected, atol=1e-12)
    # IPF is not exact here (max-entropy approximation), but close; marginals hold
    p = m.probabilities
    np.testing.assert_allclose(p.sum(axis=0), 1, atol=1e-8)
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-8)
    assert np.abs(p - expected).max() < 0.1


def test_patent_rule_by_hand() -> None:
    # same observations; the patent does one row pass and one column pass per observation.
    # after forbid(0, 0): r0 [0,1/2,1/2], r1 and r2 [1/2,1/4,1/4]
    # forbid(1, 1): r1 -> [2/3, 0, 1/3]; col 0 others scaled by (1-2/3)/(1/2); col 1 by
    # 1/(3/4); col 2 by (2/3)/(3/4)
    m = PatentMatrix(3, [1, 1, 1]).forbid(0, 0)
    np.testing.assert_allclose(
        m.probabilities, [[0, 0.5, 0.5], [0.5, 0.25, 0.25], [0.5, 0.25, 0.25]]
    )
    m.forbid(1, 1)
    expected = np.array([[0, 2 / 3, 4 / 9], [2 / 3, 0, 1 / 3], [1 / 3, 1 / 3, 2 / 9]])
    np.testing.assert_allclose(m.probabilities, expected, atol=1e-12)
    # columns are restored, rows are not: the flaw the fitted matrix fixes
    np.testing.assert_allclose(m.probabilities.sum(axis=0), 1, atol=1e-12)
    assert m.probabilities[0].sum() == pytest.approx(10 / 9)


def test_patent_remove_rescales_columns() -> None:
    m = PatentMatrix(4, [2, 2]).remove(0, 1)
    np.testing.assert_allclose(m.probabilities, np.tile([2 / 3, 1 / 3], (3, 1)))


def test_mcmc_within_stated_error() -> None:
    m = BeliefMatrix(6, [2, 2, 2])
    m.forbid(0, 0).forbid(1, 0).reweight(2, [3.0, 1.0, 0.5]).forbid(3, [1, 2])
    ex = exact_marginals(m)
    est = mcmc_marginals(m, rng=np.random.default_rng(5), steps=60_000, burn_in=2_000)
    assert est.max_stderr < 0.02
    assert np.all(np.abs(est.mean - ex) <= 5 * est.stderr + 0.01)


def test_mcmc_needs_three_cycles() -> None:
    # only two assignments, joined by a 3-cycle and no swap
    w = np.array([[1.0, 1, 0], [0, 1, 1], [1, 0, 1]])
    est = mcmc_marginals(w, [1, 1, 1], rng=np.random.default_rng(1), steps=20_000, burn_in=500)
    np.testing.assert_allclose(est.mean, exact_marginals(w, [1, 1, 1]), atol=0.05)
