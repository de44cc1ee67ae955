"""Lanes of float64 (:mod:`mindsport._jit.lanes`) against the scalar operations lane by lane.

* arithmetic, square root, absolute value, comparisons and selection are IEEE operations: every
  lane equals NumPy's result for its values bit for bit, special values included;
* the vector exponential and error function agree with the scalar ``math`` functions to a few
  units in the last place (exactly, lane by lane, where the library is missing);
* the generic helpers compile for a float prototype as plain scalar code and for a lane
  prototype as that code on every lane; a lane's result does not depend on the other lanes;
* ``MINDSPORT_SIMD=portable`` (each lane calls the scalar function) gives the same replay.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from typing import Any

import numba as nb
import numpy as np
import pytest

from mindsport._jit import lanes as simd
from mindsport._jit.lanes import WIDTH

SPECIAL = [0.0, -0.0, 1.0, -1.0, 5e-324, -2.5e-310, 1e308, -1e308, math.inf, -math.inf, math.nan]


def lanes_of(rng: np.random.Generator, rows: int) -> np.ndarray:
    """``(rows, 2, WIDTH)`` values: normal ones and, scattered, the special ones."""
    a = rng.normal(0.0, 3.0, (rows, 2, WIDTH))
    flat = a.reshape(-1)
    at = rng.choice(flat.size, size=min(flat.size // 3, 400), replace=False)
    flat[at] = rng.choice(SPECIAL, size=at.size)
    return a


@nb.njit
def _arithmetic(a: np.ndarray, out: np.ndarray) -> None:
    z = simd.zeros()
    for i in range(a.shape[0]):
        x = simd.load(z, a, i, 0, 0)
        y = simd.load(z, a, i, 1, 0)
        simd.store(z, out, i, 0, 0, x + y)
        simd.store(z, out, i, 1, 0, x - y)
        simd.store(z, out, i, 2, 0, x * y)
        simd.store(z, out, i, 3, 0, x / y)
        simd.store(z, out, i, 4, 0, -x)
        simd.store(z, out, i, 5, 0, abs(x))
        simd.store(z, out, i, 6, 0, math.sqrt(x))
        simd.store(z, out, i, 7, 0, 2.0 * x - y / 3.0)
        simd.store(z, out, i, 8, 0, simd.where(x > y, x, y))
        simd.store(z, out, i, 9, 0, simd.where((x >= y) & simd.invert(x == y), 1.0, 0.0))
        simd.store(z, out, i, 10, 0, simd.where((x < y) | (x != x), 1.0, 0.0))
        simd.store(z, out, i, 11, 0, simd.where(x <= 0.5, y, -1.0))


def test_lane_arithmetic_equals_numpy_bit_for_bit() -> None:
    a = lanes_of(np.random.default_rng(0), 64)
    out = np.empty((64, 12, WIDTH))
    _arithmetic(a, out)
    x, y = a[:, 0], a[:, 1]
    with np.errstate(all="ignore"):
        expected = [
            x + y, x - y, x * y, x / y, -x, np.abs(x), np.sqrt(x), 2.0 * x - y / 3.0,
            np.where(x > y, x, y), ((x >= y) & ~(x == y)).astype(float),
            ((x < y) | (x != x)).astype(float), np.where(x <= 0.5, y, -1.0),
        ]  # fmt: skip
    for f, e in enumerate(expected):
        got = out[:, f]
        assert np.array_equal(got.view(np.int64), np.asarray(e).view(np.int64)), f


@nb.njit
def _library(a: np.ndarray, out: np.ndarray) -> None:
    z = simd.zeros()
    for i in range(a.shape[0]):
        x = simd.load(z, a, i, 0, 0)
        simd.store(z, out, i, 0, 0, math.exp(x))
        simd.store(z, out, i, 1, 0, math.erfc(x))


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units in the last place of positive finite values (0 where equal; huge
    where one is NaN and the other not)."""
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    apart = np.abs(got.view(np.int64) - want.view(np.int64))
    return np.where(same, 0, np.where(np.isnan(got) | np.isnan(want), 2**62, apart))


def test_vector_exp_and_erfc_agree_with_math_within_a_few_ulps() -> None:
    rng = np.random.default_rng(1)
    values = np.concatenate(
        [
            np.linspace(-40.0, 40.0, 4001),
            rng.normal(0.0, 2.0, 4000),
            np.linspace(-745.0, 709.0, 999),
            np.array(SPECIAL),
        ]
    )
    values = np.resize(values, (values.size + WIDTH - 1) // WIDTH * WIDTH)
    a = np.zeros((values.size // WIDTH, 1, WIDTH))
    a[:, 0] = values.reshape(-1, WIDTH)
    out = np.empty((a.shape[0], 2, WIDTH))
    _library(a, out)
    x = a[:, 0].reshape(-1)
    want_exp = np.array([math.exp(v) if not v > 709.7 else math.inf for v in x])
    want_erfc = np.array([math.erfc(v) for v in x])
    got_exp, got_erfc = out[:, 0].reshape(-1), out[:, 1].reshape(-1)
    for got, want in ((got_exp, want_exp), (got_erfc, want_erfc)):
        assert np.array_equal(np.isnan(got), np.isnan(want))
        normal = want > 1e-300  # below, subnormal results: compared absolutely
        tiny = want <= 1e-300
        assert ulps(got[normal], want[normal]).max() <= 4
        assert np.abs(got[tiny] - want[tiny]).max() <= 1e-310
    if simd.LIBRARY == "portable":
        assert np.array_equal(got_erfc, want_erfc, equal_nan=True)


@nb.njit
def _generic(proto: Any, a: np.ndarray, out: np.ndarray, k: int) -> None:
    """The same source for a float and a lane prototype: a small formula with a branch taken
    per lane by ``where`` and a reduction."""
    x = simd.load(proto, a, 0, 0, k)
    y = simd.load(proto, a, 0, 1, k)
    r = simd.where(x > 0.0, math.sqrt(x) * y, x * x - y)
    if simd.any_lane(r > 1e6):
        r = simd.where(r > 1e6, 1e6, r)
    simd.store(proto, out, 0, 0, k, r)
    simd.store(proto, out, 0, 1, k, simd.where(simd.all_lanes(x == x), 1.0, 0.0) + 0.0 * r)


@nb.njit
def _generic_on_lanes(a: np.ndarray, out: np.ndarray) -> None:
    _generic(simd.zeros(), a, out, 0)


def test_generic_code_on_lanes_equals_the_scalar_code_on_each_lane() -> None:
    a = lanes_of(np.random.default_rng(2), 1)
    a[0, 0, 0] = 1e9  # one lane over the cap
    vec = np.empty((1, 2, WIDTH))
    _generic_on_lanes(a, vec)
    one = np.empty((1, 2, WIDTH))
    for k in range(WIDTH):
        _generic(0.0, a, one, k)
    assert np.array_equal(vec[:, 0].view(np.int64), one[:, 0].view(np.int64))


@nb.njit
def _lanes(a: np.ndarray) -> tuple[bool, bool, bool, float, float]:
    z = simd.zeros()
    x = simd.load(z, a, 0, 0, 0)
    m = x > 0.0
    y = simd.with_lane(x, 1, 42.0)
    return simd.any_lane(m), simd.all_lanes(m), simd.lane(m, 0), simd.lane(y, 1), simd.lane(y, 0)


def test_reductions_and_lane_access() -> None:
    a = np.ones((1, 1, WIDTH))
    a[0, 0, 0] = -1.0
    assert _lanes(a) == (True, False, False, 42.0, -1.0)
    a[0, 0, 0] = 1.0
    assert _lanes(a)[:3] == (True, True, True)
    assert _lanes(-a)[:3] == (False, False, False)


@nb.njit
def _gather_scatter(arr: np.ndarray, index: np.ndarray, out: np.ndarray) -> None:
    z = simd.zeros()
    v = simd.gather(z, arr, index, 0, 0, 0, 0)
    simd.scatter(z, out, index, 0, 1, 0, 0, v * 2.0)


def test_gather_and_scatter_read_and_write_a_row_per_lane() -> None:
    rng = np.random.default_rng(3)
    arr = rng.normal(size=(5, 1, WIDTH))
    index = np.zeros((1, 2, WIDTH), np.int64)
    index[0, 0] = rng.integers(0, 5, WIDTH)
    index[0, 1] = rng.integers(0, 5, WIDTH)
    out = np.zeros((5, 1, WIDTH))
    _gather_scatter(arr, index, out)
    lanes_ = np.arange(WIDTH)
    picked = arr[index[0, 0], 0, lanes_]
    expected = np.zeros_like(out)
    expected[index[0, 1], 0, lanes_] = picked * 2.0
    assert np.array_equal(out, expected)


@nb.njit
def _scalar_pair(a: float, b: float, flip: bool) -> tuple[float, float]:
    return (b, a) if flip else (a + b, a - b)


_pair_lanewise = simd.lanewise(_scalar_pair)


@nb.njit
def _fix(a: np.ndarray, out: np.ndarray) -> None:
    z = simd.zeros()
    x = simd.load(z, a, 0, 0, 0)
    y = simd.load(z, a, 0, 1, 0)
    r0, r1 = _pair_lanewise(x > 0.0, x, y, y > x, z - 1.0, z - 2.0)
    simd.store(z, out, 0, 0, 0, r0)
    simd.store(z, out, 0, 1, 0, r1)


def test_lanewise_recomputes_exactly_the_lanes_of_its_mask() -> None:
    a = np.random.default_rng(4).normal(size=(1, 2, WIDTH))
    out = np.empty((1, 2, WIDTH))
    _fix(a, out)
    for k in range(WIDTH):
        x, y = a[0, 0, k], a[0, 1, k]
        want = _scalar_pair(x, y, y > x) if x > 0.0 else (-1.0, -2.0)
        assert (out[0, 0, k], out[0, 1, k]) == want, k


@pytest.mark.slow  # compiles every replay kernel afresh in a child process (minutes)
def test_a_portable_build_gives_the_same_replay(tmp_path: Any) -> None:
    """Without the vector library each lane calls the scalar functions: the replay of games of
    four teams still agrees with rate() one game at a time."""
    code = textwrap.dedent(
        """
        import numpy as np
        from mindsport._jit import lanes as simd
        from mindsport.rating import TrueSkill
        from mindsport.rating.replay.blocks import PlayerIndex, encode_matches
        from mindsport.match import Match
        assert (simd.LIBRARY, simd.WIDTH) == ("portable", 4), (simd.LIBRARY, simd.WIDTH)
        rng = np.random.default_rng(5)
        model = TrueSkill()
        ms = [Match(f"m{i}", float(i), [[f"p{4 * i + j}"] for j in range(4)],
                    [int(r) for r in rng.permutation(4)]) for i in range(40)]
        index = PlayerIndex()
        rep = model.replayer()
        rep.feed(encode_matches(ms, index), predict=True, keep=True)
        for m in ms:
            new = model.rate([[model.rating()] for _ in range(4)], list(m.ranks))
            for team, (r,) in zip(m.teams, new):
                got = rep.value(index.get(team[0]))
                assert abs(got.mu - r.mu) <= 1e-12 and abs(got.sigma - r.sigma) <= 1e-12
        print("ok")
        """
    )
    # compiled kernels are cached with their lane width: a cache of its own
    env = dict(os.environ, MINDSPORT_SIMD="portable", NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("k", [0, WIDTH // 2])
def test_load_and_store_start_at_the_given_lane(k: int) -> None:
    arr = np.arange(2 * WIDTH, dtype=np.float64).reshape(1, 1, 2 * WIDTH)
    out = np.zeros_like(arr)
    _copy_from(arr, out, k)
    expected = np.zeros_like(arr)
    expected[0, 0, k : k + WIDTH] = arr[0, 0, k : k + WIDTH] + 1.0
    assert np.array_equal(out, expected)


@nb.njit
def _copy_from(arr: np.ndarray, out: np.ndarray, k: int) -> None:
    z = simd.zeros()
    simd.store(z, out, 0, 0, k, simd.load(z, arr, 0, 0, k) + 1.0)
