"""Compiled look-ups of integer keys in an open-addressing table (numba): the players of
:class:`~mindsport.rating.replay.blocks.PlayerIndex` by the addresses of their id objects.

A table of open addressing (linear probing) maps the memory address of an id object to the
player's index; 0 marks an empty slot (no object lives at address 0). The addresses come in as an
integer array, so a block of a million look-ups runs without a Python object per look-up and with
many of its memory accesses in flight at once, where a dict look-up per id waits for each in turn.

A second table finds ids by their text (:func:`find_text`, :func:`remember_text`): the hash of
the characters (:func:`mindsport._jit.layout.text_hash`) -> the address of the player's own id
object and the player's index, the characters compared in compiled code. It finds an id made
apart from the player's own string (``f"p{i}"`` built for every appearance) without a dict
look-up, which hashes the new string and compares it with the key object, each a wait on memory.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mindsport._jit.compiling import jit
from mindsport._jit.layout import (
    TextLayout,
    jit_holding_gil,
    same_text,
    text_hash,
    text_head,
    text_length,
)

__all__ = ["TextTable", "find", "find_text", "remember", "remember_text", "text_table"]

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


#: a slot of the text table: the text's hash (0: empty), the address of the player's own id
#: string, the player's index and the text's length packed (index + length << 40), the first
#: eight characters; one 32-byte row, so a probe reads one cache line
HASH, OBJECT, CODE_LENGTH, HEAD = 0, 1, 2, 3
_LENGTH_SHIFT = 40
_CODE_MASK = (1 << _LENGTH_SHIFT) - 1


class TextTable(NamedTuple):
    """Open addressing by the hash of an id's characters: ``slots`` is ``(size, 4)`` (see
    :data:`HASH`), ``size`` a power of two; the id strings it names are alive as long as it is
    used. Texts shorter than nine characters are compared within the slot."""

    slots: np.ndarray


def text_table(size: int) -> TextTable:
    """An empty text table of ``size`` slots (a power of two)."""
    return TextTable(np.zeros((size, 4), np.int64))


@jit_holding_gil
def remember_text(
    table: TextTable, addresses: np.ndarray, codes: np.ndarray, layout: TextLayout
) -> None:
    """Put the strings at ``addresses`` (distinct texts) with their ``codes`` into the table
    (which must have room); strings not in the compact ASCII layout, or longer than 2^23
    characters, are left out."""
    slots = table.slots
    mask = slots.shape[0] - 1
    for i in range(addresses.shape[0]):
        a = addresses[i]
        n = text_length(a, layout)
        if n < 0 or n >= 1 << 23:
            continue
        h = text_hash(a, n, layout)
        j = _slot(h, mask)
        while slots[j, HASH] != 0:
            j = (j + 1) & mask
        slots[j, HASH] = h
        slots[j, OBJECT] = a
        slots[j, CODE_LENGTH] = codes[i] | (n << _LENGTH_SHIFT)
        slots[j, HEAD] = text_head(a, n, layout)


@jit_holding_gil
def find_text(
    table: TextTable,
    addresses: np.ndarray,
    positions: np.ndarray,
    out: np.ndarray,
    layout: TextLayout,
) -> np.ndarray:
    """Write the code of every string at ``addresses[positions]`` whose text is in the table to
    ``out`` (at its position); return the positions not found (in order).

    Two passes: the strings' lengths, hashes and first characters (read in order), then the
    probes of the table, whose waits on memory the processor overlaps when nothing else comes
    between them."""
    slots = table.slots
    mask = slots.shape[0] - 1
    m = positions.shape[0]
    lengths = np.empty(m, np.int64)
    hashes = np.empty(m, np.int64)
    heads = np.empty(m, np.int64)
    for q in range(m):
        a = addresses[positions[q]]
        n = text_length(a, layout)
        lengths[q] = n
        if 0 <= n < 1 << 23:
            hashes[q] = text_hash(a, n, layout)
            heads[q] = text_head(a, n, layout)
    missed = np.empty(m, np.int64)
    n_missed = 0
    for q in range(m):
        i = positions[q]
        a = addresses[i]
        n = lengths[q]
        found = False
        if 0 <= n < 1 << 23:
            h = hashes[q]
            head = heads[q]
            j = _slot(h, mask)
            while slots[j, HASH] != 0:
                packed = slots[j, CODE_LENGTH]
                if (
                    slots[j, HASH] == h
                    and packed >> _LENGTH_SHIFT == n
                    and slots[j, HEAD] == head
                    and (n <= 8 or same_text(a, slots[j, OBJECT], n, layout))
                ):
                    out[i] = packed & _CODE_MASK
                    found = True
                    break
                j = (j + 1) & mask
        if not found:
            missed[n_missed] = i
            n_missed += 1
    return missed[:n_missed]
