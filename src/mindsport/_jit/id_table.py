"""Compiled look-ups of integer keys in an open-addressing table (numba): the players of
:class:`~mindsport.rating.replay.blocks.PlayerIndex` by the addresses of their id objects.

A table of open addressing (linear probing) maps the memory address of an id object to the
player's index; 0 marks an empty slot (no object lives at address 0). The addresses come in as an
integer array, so a block of a million look-ups runs without a Python object per look-up and with
many of its memory accesses in flight at once, where a dict look-up per id waits for each in turn.
"""

from __future__ import annotations

import numpy as np

from mindsport._jit.compiling import jit

__all__ = ["find", "remember"]

# Fibonacci hashing: addresses are multiples of 16, so drop those bits, multiply by 2^64 / phi
# (as a signed 64-bit integer) and take the high bits
_SHIFT_ALIGN = 4
_GOLDEN = -7046029254386353131
_SHIFT_HIGH = 40


@jit
def _slot(address: int, mask: int) -> int:
    return ((address >> _SHIFT_ALIGN) * _GOLDEN >> _SHIFT_HIGH) & mask


@jit
def find(
    keys: np.ndarray, values: np.ndarray, addresses: np.ndarray, out: np.ndarray
) -> np.ndarray:
    """Write the value of every address found in the table to ``out``; return the positions of
    the addresses that are not in it (in increasing order)."""
    mask = keys.shape[0] - 1
    missed = np.empty(addresses.shape[0], np.int64)
    n_missed = 0
    for i in range(addresses.shape[0]):
        a = addresses[i]
        j = _slot(a, mask)
        while True:
            k = keys[j]
            if k == a:
                out[i] = values[j]
                break
            if k == 0:
                missed[n_missed] = i
                n_missed += 1
                break
            j = (j + 1) & mask
    return missed[:n_missed]


@jit
def remember(
    keys: np.ndarray, values: np.ndarray, addresses: np.ndarray, codes: np.ndarray
) -> None:
    """Put ``addresses[i] -> codes[i]`` into the table (which must have room)."""
    mask = keys.shape[0] - 1
    for i in range(addresses.shape[0]):
        a = addresses[i]
        j = _slot(a, mask)
        while keys[j] != 0 and keys[j] != a:
            j = (j + 1) & mask
        keys[j] = a
        values[j] = codes[i]
