# mypy: allow-untyped-defs

"""NumPy's ``PCG64`` generator in numba, bit for bit.

A game's generator state is a uint64 array ``[state_hi, state_lo, inc_hi, inc_lo, has_uint32,
uinteger]`` (the fields of ``np.random.PCG64().state``). The kernels reproduce the NumPy
(>= 1.17, ``Generator``) algorithms the Python engine draws on:

* :func:`next_double` = ``Generator.random()``;
* :func:`bounded` = ``Generator.integers(n)`` (Lemire's method on 32-bit draws for ``n < 2**32``;
  no draw at all when ``n == 1``);
* :func:`shuffle54` = ``Generator.permutation(54)`` (Fisher-Yates with ``random_interval``).

The tests compare every one of them with NumPy's own output.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mindsport.errors import MindsportError

__all__ = [
    "bounded",
    "next_double",
    "next_uint32",
    "next_uint64",
    "seed_games",
    "seed_keys",
    "spawn_entropy",
    "state_array",
    "store_state",
]

_M32 = np.uint64(0xFFFFFFFF)
_MULT_HI = np.uint64(0x2360ED051FC65DA4)
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_S32 = np.uint64(32)
_S58 = np.uint64(58)
_S63 = np.uint64(63)
_S64 = np.uint64(64)
_S11 = np.uint64(11)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


def state_array(rng: np.random.Generator) -> np.ndarray:
    """The uint64 state array of a NumPy ``Generator`` backed by ``PCG64``."""
    st = rng.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise MindsportError(
            f"the Dou Dizhu engine draws on NumPy's PCG64 (np.random.default_rng), got a "
            f"{st['bit_generator']} generator"
        )
    s = int(st["state"]["state"])
    inc = int(st["state"]["inc"])
    mask = (1 << 64) - 1
    return np.array(
        [s >> 64, s & mask, inc >> 64, inc & mask, st["has_uint32"], st["uinteger"]],
        dtype=np.uint64,
    )


@njit(cache=True)
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    a_lo = a & _M32
    a_hi = a >> _S32
    b_lo = b & _M32
    b_hi = b >> _S32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> _S32) + (p1 & _M32) + (p2 & _M32)
    return p3 + (p1 >> _S32) + (p2 >> _S32) + (mid >> _S32)


@njit(cache=True)
def next_uint64(st: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """One PCG64 (XSL-RR 128/64) output: step the 128-bit LCG, then output the new state."""
    sh = st[0]
    sl = st[1]
    # state * MULT (mod 2**128)
    lo = sl * _MULT_LO
    hi = _mulhi(sl, _MULT_LO) + sl * _MULT_HI + sh * _MULT_LO
    # + inc
    nlo = lo + st[3]
    carry = _ONE if nlo < lo else _ZERO
    nhi = hi + st[2] + carry
    st[0] = nhi
    st[1] = nlo
    x = nhi ^ nlo
    rot = nhi >> _S58
    return (x >> rot) | (x << ((_S64 - rot) & _S63))


@njit(cache=True)
def next_uint32(st: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """NumPy's buffered 32-bit draw: low half of a 64-bit output, the high half kept."""
    if st[4] != _ZERO:
        st[4] = _ZERO
        return st[5]
    v = next_uint64(st)
    st[4] = _ONE
    st[5] = v >> _S32
    return v & _M32


@njit(cache=True)
def next_double(st: np.ndarray) -> float:  # pragma: no cover - compiled
    """``Generator.random()``."""
    return float(next_uint64(st) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def bounded(st: np.ndarray, n: int) -> np.int64:  # pragma: no cover - compiled
    """``Generator.integers(n)`` for 1 <= n < 2**32 (Lemire's rejection on 32-bit draws)."""
    if n <= 1:
        return np.int64(0)
    rng_excl = np.uint64(n)
    m = next_uint32(st) * rng_excl
    leftover = m & _M32
    if leftover < rng_excl:
        threshold = (_M32 - (rng_excl - _ONE)) % rng_excl
        while leftover < threshold:
            m = next_uint32(st) * rng_excl
            leftover = m & _M32
    return np.int64(m >> _S32)


@njit(cache=True)
def random_interval(st: np.ndarray, mx: int) -> np.int64:  # pragma: no cover - compiled
    """NumPy's ``random_interval``: uniform in ``0..mx`` by masked rejection (mx < 2**32)."""
    if mx == 0:
        return np.int64(0)
    mask = np.uint64(mx)
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    top = np.uint64(mx)
    value = next_uint32(st) & mask
    while value > top:
        value = next_uint32(st) & mask
    return np.int64(value)


@njit(cache=True)
def permutation(st: np.ndarray, n: int) -> np.ndarray:  # pragma: no cover - compiled
    """``Generator.permutation(n)``."""
    arr = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = random_interval(st, i)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
    return arr


# SeedSequence ([seed, index] entropy) and PCG64 seeding -------------------------------------
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_L = np.uint64(0xCA01F9DD)
_MIX_R = np.uint64(0x4973F715)
_S16 = np.uint64(16)


def int_words(n: int) -> np.ndarray:
    """NumPy SeedSequence's 32-bit words of a non-negative int (``[0]`` for 0)."""
    if n < 0:
        raise ValueError(f"seeds must be non-negative, got {n}")
    words = [0] if n == 0 else []
    while n > 0:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
    return np.array(words, dtype=np.uint64)


@njit(cache=True)
def _hashmix(value, hc):  # pragma: no cover - compiled
    value = (value ^ hc[0]) & _M32
    hc[0] = (hc[0] * _MULT_A) & _M32
    value = (value * hc[0]) & _M32
    return value ^ (value >> _S16)


@njit(cache=True)
def _mix(x, y):  # pragma: no cover - compiled
    result = (_MIX_L * x - _MIX_R * y) & _M32
    return result ^ (result >> _S16)


@njit(cache=True)
def _step(st):  # pragma: no cover - compiled
    sh = st[0]
    sl = st[1]
    lo = sl * _MULT_LO
    hi = _mulhi(sl, _MULT_LO) + sl * _MULT_HI + sh * _MULT_LO
    nlo = lo + st[3]
    carry = _ONE if nlo < lo else _ZERO
    st[0] = hi + st[2] + carry
    st[1] = nlo


@njit(cache=True)
def _seed_state(entropy, ne, pool, hc, words, st):  # pragma: no cover - compiled
    """``st`` = PCG64 state seeded by NumPy's SeedSequence from the assembled ``entropy[:ne]``
    (pool mixing, ``generate_state(4, uint64)``, PCG64 ``srandom``)."""
    hc[0] = _INIT_A
    for i in range(4):
        pool[i] = _hashmix(entropy[i] if i < ne else _ZERO, hc)
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hc))
    for i_src in range(4, ne):
        for i_dst in range(4):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(entropy[i_src], hc))
    h = _INIT_B
    for i in range(8):
        v = (pool[i % 4] ^ h) & _M32
        h = (h * _MULT_B) & _M32
        v = (v * h) & _M32
        words[i] = v ^ (v >> _S16)
    # uint64 words (little-endian pairs): seed = (w0, w1) as (high, low), inc = (w2, w3)
    s_hi = words[0] | (words[1] << _S32)
    s_lo = words[2] | (words[3] << _S32)
    i_hi = words[4] | (words[5] << _S32)
    i_lo = words[6] | (words[7] << _S32)
    st[0] = _ZERO
    st[1] = _ZERO
    st[2] = (i_hi << _ONE) | (i_lo >> _S63)  # inc = (initseq << 1) | 1
    st[3] = (i_lo << _ONE) | _ONE
    _step(st)
    lo = st[1] + s_lo
    carry = _ONE if lo < st[1] else _ZERO
    st[0] = st[0] + s_hi + carry
    st[1] = lo
    _step(st)
    st[4] = _ZERO
    st[5] = _ZERO


@njit(cache=True)
def seed_games(seed_words, start, out):  # pragma: no cover - compiled
    """``out[g]`` = state array of ``np.random.default_rng([seed, start + g])``."""
    ns = seed_words.shape[0]
    entropy = np.zeros(ns + 2, np.uint64)
    pool = np.zeros(4, np.uint64)
    hc = np.zeros(1, np.uint64)
    words = np.zeros(8, np.uint64)
    for g in range(out.shape[0]):
        for k in range(ns):
            entropy[k] = seed_words[k]
        idx = np.uint64(start + g)
        ne = ns
        if idx == _ZERO:
            entropy[ne] = _ZERO
            ne += 1
        while idx > _ZERO:
            entropy[ne] = idx & _M32
            ne += 1
            idx = idx >> _S32
        _seed_state(entropy, ne, pool, hc, words, out[g])


@njit(cache=True)
def seed_keys(entropy, lengths, out):  # pragma: no cover - compiled
    """``out[g]`` = state array of a PCG64 generator seeded by the SeedSequence whose assembled
    entropy (32-bit words) is ``entropy[g, :lengths[g]]``."""
    pool = np.zeros(4, np.uint64)
    hc = np.zeros(1, np.uint64)
    words = np.zeros(8, np.uint64)
    row = np.zeros(entropy.shape[1], np.uint64)
    for g in range(out.shape[0]):
        for k in range(lengths[g]):
            row[k] = np.uint64(entropy[g, k])
        _seed_state(row, lengths[g], pool, hc, words, out[g])


def spawn_entropy(seed: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Assembled SeedSequence entropy of ``SeedSequence(seed, spawn_key=key)`` for each row of
    ``keys`` (G x K non-negative ints below 2**32): the seed's 32-bit words padded with zeros
    to the pool size (4), then one word per key element -- NumPy's own assembly.

    Returns ``(words, lengths)`` for :func:`seed_keys`.
    """
    seed_words = int_words(int(seed))
    keys = np.asarray(keys, dtype=np.int64)
    if keys.ndim != 2 or (keys.size and (keys.min() < 0 or keys.max() >= 2**32)):
        raise ValueError("keys must be a 2-d array of integers in 0 .. 2**32 - 1")
    head = max(4, seed_words.size) if keys.shape[1] else seed_words.size
    words = np.zeros((keys.shape[0], head + keys.shape[1]), np.uint32)
    words[:, : seed_words.size] = seed_words.astype(np.uint32)
    words[:, head:] = keys.astype(np.uint32)
    return words, np.full(keys.shape[0], words.shape[1], np.int64)


def store_state(rng: np.random.Generator, st: np.ndarray) -> None:
    """Set a NumPy ``Generator`` (PCG64) to the state array ``st`` (inverse of
    :func:`state_array`)."""
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {
            "state": (int(st[0]) << 64) | int(st[1]),
            "inc": (int(st[2]) << 64) | int(st[3]),
        },
        "has_uint32": int(st[4]),
        "uinteger": int(st[5]),
    }
