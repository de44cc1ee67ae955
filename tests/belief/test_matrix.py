"""BeliefMatrix against brute-force enumeration and hand-worked cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindsport.belief import (
    BeliefMatrix,
    InfeasibleObservationError,
    count_assignments,
    enumerate_marginals,
    exact_marginals,
)
from mindsport.errors import MindsportError


def test_uniform_start_is_the_count_proportions() -> None:
    m = BeliefMatrix(6, [1, 2, 3])
    np.testing.assert_allclose(m.probabilities, np.tile([1 / 6, 2 / 6, 3 / 6], (6, 1)))


def test_counts_must_match_rows() -> None:
    with pytest.raises(MindsportError, match="total 5 but there are 6 rows"):
        BeliefMatrix(6, [2, 3])


def test_forced_assignment_is_exact() -> None:
    # 3 rows, 1 x A and 2 x B; row 0 is not B -> row 0 is A, the others are B
    m = BeliefMatrix(3, [1, 2], column_labels=["A", "B"]).forbid(0, "B")
    np.testing.assert_allclose(m.probabilities, [[1, 0], [0, 1], [0, 1]], atol=1e-9)
    assert m.most_likely(0) == 0


def test_structural_zero_found() -> None:
    # rows 0 and 1 only A or B; A and B hold 2 together -> row 2 can be neither A nor B
    m = BeliefMatrix(4, [1, 1, 2]).only(0, [0, 1]).only(1, [0, 1])
    p = m.probabilities
    np.testing.assert_allclose(p[2], [0, 0, 1], atol=1e-9)
    np.testing.assert_allclose(p[0], [0.5, 0.5, 0], atol=1e-9)
    assert m.possible(3) == (2,)


def test_cards_two_opponents_void() -> None:
    # 5 unseen cards, left holds 2, right 3; left passed on a play showing a void in the rank
    # of cards 0 and 1 -> both are right's; the other three share left 2, right 1: 2/3 each.
    m = BeliefMatrix(5, [2, 3], column_labels=["left", "right"])
    m.forbid(0, "left").forbid(1, "left")
    p = m.probabilities
    np.testing.assert_allclose(p[:2], [[0, 1], [0, 1]], atol=1e-9)
    np.testing.assert_allclose(p[2:], np.tile([2 / 3, 1 / 3], (3, 1)), atol=1e-9)
    np.testing.assert_allclose(exact_marginals(m), p, atol=1e-9)
    # a card played by right: row removed, right's count drops
    m.remove(0, "right")
    assert m.column_counts == (2, 2) and m.n_rows == 4
    np.testing.assert_allclose(m.probabilities[0], [0, 1], atol=1e-9)
    np.testing.assert_allclose(m.probabilities[1:], np.tile([2 / 3, 1 / 3], (3, 1)), atol=1e-9)


def test_row_labels_follow_removal() -> None:
    m = BeliefMatrix(3, [1, 2], row_labels=["3h", "7s", "Qd"], column_labels=["left", "right"])
    m.remove(m.row_index("3h"), "right")
    assert m.row_labels == ("7s", "Qd") and m.row_index("Qd") == 1
    with pytest.raises(MindsportError, match="'3h'"):
        m.row_index("3h")


def test_cards_match_enumeration_support_and_sums() -> None:
    m = BeliefMatrix(8, [3, 5], column_labels=["left", "right"])
    for row in (0, 2, 5):
        m.forbid(row, "right")
    m.reweight(6, [0.2, 1.0])
    p = m.probabilities
    ex = enumerate_marginals(m)
    assert np.array_equal(p > 1e-12, ex > 1e-12)
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-8)
    np.testing.assert_allclose(p.sum(axis=0), [3, 5], atol=1e-8)


def test_infeasible_names_rows_and_columns_and_leaves_matrix_unchanged() -> None:
    m = BeliefMatrix(3, [1, 2], row_labels=["x", "y", "z"], column_labels=["flag", "mine"])
    m.only(0, "flag")
    before = m.weights.copy()
    with pytest.raises(InfeasibleObservationError) as info:
        m.only(1, "flag")
    text = str(info.value)
    assert "'x'" in text and "'y'" in text and "'flag'" in text and "hold 1" in text
    np.testing.assert_array_equal(m.weights, before)
    # a column needing more rows than can take it
    m2 = BeliefMatrix(4, [2, 2], column_labels=["A", "B"])
    m2.forbid(0, "B").forbid(1, "B")
    with pytest.raises(InfeasibleObservationError, match="'B' need 2 rows but only 1"):
        m2.forbid(2, "B")


def test_row_with_no_column_is_infeasible() -> None:
    with pytest.raises(InfeasibleObservationError, match="row 0"):
        BeliefMatrix(2, [1, 1]).forbid(0, [0, 1])


def test_copy_is_independent() -> None:
    m = BeliefMatrix(4, [2, 2])
    c = m.copy().forbid(0, 1)
    assert m.probabilities[0, 1] == pytest.approx(0.5)
    assert c.probabilities[0, 1] == pytest.approx(0.0)


def test_bad_inputs_name_them() -> None:
    m = BeliefMatrix(2, [1, 1], column_labels=["a", "b"])
    with pytest.raises(MindsportError, match="unknown column 'c'"):
        m.forbid(0, "c")
    with pytest.raises(MindsportError, match="row 5 out of range"):
        m.forbid(5, "a")
    with pytest.raises(MindsportError, match="factors"):
        m.reweight(0, [1.0, -1.0])


def _cross_ratio_ok(p: np.ndarray, w: np.ndarray) -> bool:
    """IPF keeps W's odds ratios: P = diag(x) W diag(y)."""
    n, k = p.shape
    for i in range(n):
        for l_ in range(i + 1, n):
            for j in range(k):
                for m in range(j + 1, k):
                    cells = [(i, j), (l_, m), (i, m), (l_, j)]
                    if all(p[c] > 1e-9 for c in cells):
                        lhs = p[i, j] * p[l_, m] * w[i, m] * w[l_, j]
                        rhs = p[i, m] * p[l_, j] * w[i, j] * w[l_, m]
                        if not math.isclose(lhs, rhs, rel_tol=1e-5):
                            return False
    return True


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_small_cases_against_enumeration(data: st.DataObject) -> None:
    n_cols = data.draw(st.integers(2, 3))
    counts = data.draw(st.lists(st.integers(0, 3), min_size=n_cols, max_size=n_cols))
    n = sum(counts)
    if n == 0 or n > 7:
        return
    m = BeliefMatrix(n, counts)
    for _ in range(data.draw(st.integers(0, 5))):
        row = data.draw(st.integers(0, n - 1))
        action = data.draw(st.sampled_from(["forbid", "reweight"]))
        try:
            if action == "forbid":
                m.forbid(row, [data.draw(st.integers(0, n_cols - 1))])
            else:
                f = data.draw(
                    st.lists(
                        st.sampled_from([0.25, 0.5, 1.0, 2.0]), min_size=n_cols, max_size=n_cols
                    )
                )
                m.reweight(row, f)
        except InfeasibleObservationError:
            return  # refusals are checked in test_refused_observation_really_is_impossible
    ex = enumerate_marginals(m)
    dp = exact_marginals(m)
    np.testing.assert_allclose(dp, ex, atol=1e-9)
    p = m.probabilities
    assert np.array_equal(p > 1e-9, ex > 1e-12), (p, ex)
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-7)
    np.testing.assert_allclose(p.sum(axis=0), counts, atol=1e-7)
    assert _cross_ratio_ok(p, m.weights)


def test_refused_observation_really_is_impossible() -> None:
    rng = np.random.default_rng(7)
    refused = 0
    for _ in range(200):
        counts = list(rng.integers(0, 3, size=3))
        n = int(sum(counts))
        if n == 0:
            continue
        m = BeliefMatrix(n, counts)
        for _ in range(4):
            row, col = int(rng.integers(n)), int(rng.integers(3))
            w = np.array(m.weights)
            try:
                m.forbid(row, [col])
            except InfeasibleObservationError:
                refused += 1
                w[row, col] = 0.0
                assert count_assignments(w, counts) == 0
            else:
                assert count_assignments(m.weights, counts) > 0
    assert refused > 0


def test_fit_reports_convergence() -> None:
    m = BeliefMatrix(25, [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 1], tolerance=1e-10)
    for row in range(23):
        m.forbid(row, [11])
    for row in range(15):
        m.forbid(row, [9, 10])
    p = m.probabilities
    assert m.residual <= 1e-9 and m.iterations >= 1
    np.testing.assert_allclose(p[23:, 11], 0.5, atol=1e-9)
    np.testing.assert_allclose(exact_marginals(m)[23:, 11], 0.5, atol=1e-12)


def test_count_assignments_multinomial() -> None:
    assert count_assignments(np.ones((6, 3)), [1, 2, 3]) == math.factorial(6) // (1 * 2 * 6)
