"""Reading nested lists and tuples in compiled code (numba): their lengths and the addresses of the
objects they hold, without touching those objects.

CPython lays out a tuple as its object header (reference count, type), its length, then the
pointers to its items; a list as the header, its length, then a pointer to its array of item
pointers. :func:`walk_teams` reads a list of matches' teams in those layouts (match -> team ->
player id: a list or tuple at each of the outer two levels) and returns the number of teams of
each match, the size of each team and the address of every player id, which
:class:`~mindsport.rating.replay.blocks.PlayerIndex` then looks up by identity. The ids
themselves are never read: counting a reference to each, as any pass in Python does, waits on
memory for about 100 ns per id when they are spread over a large heap (100,000 players).

:func:`available` checks the layout once per process, reading only inside objects it made, before
anything is walked; on another layout (another implementation or build of Python) it says no and
the callers take their Python path. A walk that meets something other than an exact ``list`` or
``tuple`` reports the match and reads nothing further; the caller then takes its Python path.
The kernels hold the GIL (unlike the other kernels), so no other thread changes a list under them.

An object of a class with ``__slots__`` (such as ``mindsport.match.Match``) keeps the value of
each slot as a pointer at a fixed offset after its header. :func:`slot_offsets` finds those
offsets on an object it makes and fills itself; :func:`walk_slots` then reads, in one compiled
pass over a list of such objects, the type of each (an exact instance, else the walk stops there)
and the addresses of the values of some slots: a list of matches read without a Python attribute
access per match.

A number is read the same way (:func:`read_numbers`): an exact ``float`` keeps its double after
its header; an exact ``int`` of CPython 3.11 keeps its signed count of 30-bit digits after its
header, then the digits. :func:`number_layout` checks both once per process on numbers it made
(None: another layout, such as 3.12's ints, and the callers convert in Python); ints of more
than two digits (beyond 2^60) are left to Python.

A string made apart from another with the same characters (``f"p{i}"`` for every appearance of a
player) is a different object with equal text. :func:`text_hash` and :func:`same_text` read the
characters of an exact ``str`` in CPython's compact ASCII layout (the object header, then the
characters, then a NUL), eight bytes at a time, so that
:class:`~mindsport.rating.replay.blocks.PlayerIndex` finds such copies in a compiled table too
(:mod:`mindsport._jit.id_table`); :func:`text_layout` checks that layout once per process on
strings it made (None: another layout, and copies go through the dict).
"""

from __future__ import annotations

import struct
import sys
import sysconfig
import types as types_
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = [
    "NumberLayout",
    "TextLayout",
    "available",
    "gather",
    "jit_holding_gil",
    "number_layout",
    "read_numbers",
    "same_text",
    "slot_offsets",
    "text_hash",
    "text_head",
    "text_layout",
    "text_length",
    "walk_groups",
    "walk_pairs",
    "walk_slots",
    "walk_teams",
]

#: byte offsets in an object: its type, its length (lists and tuples), its items (a tuple's
#: first item pointer; a list's pointer to its item pointers)
TYPE = 8
SIZE = 16
ITEMS = 24
WORD = 8

_jit = nb.njit(cache=True, fastmath=False, nogil=False, error_model="numpy")
#: the compile options of code that reads Python objects (the GIL held throughout)
jit_holding_gil = _jit

#: bits of the state byte of a str in CPython 3.11-3.13 (``interned:2, kind:3, compact:1,
#: ascii:1``): its characters follow the header (compact), one byte each, all ASCII
COMPACT = 0x20
ASCII = 0x40
#: multiplier of the text hash (2^64 / phi, as a signed 64-bit integer)
_MIX = -7046029254386353131


class TextLayout(NamedTuple):
    """Where an exact compact ASCII ``str`` keeps what :func:`text_hash` reads: the address of
    the ``str`` type, the offset of the state byte and of the characters, and the state bits
    that say "compact ASCII"."""

    str_type: int
    state: int
    data: int
    compact_ascii: int


def _load_word(typingctx: Any, address: Any) -> Any:
    """Typing and code of :func:`_word`: load the 64-bit word at an integer address."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        pointer = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load(pointer)

    return types.int64(types.int64), codegen


#: the 64-bit word at an address (compiled code only)
_word: Callable[[int], int] = intrinsic(_load_word)  # type: ignore[assignment]


@_jit
def peek(address: int) -> int:
    """The 64-bit word at ``address`` (for the layout check)."""
    return _word(address)


@_jit
def _items(obj: int, tuple_type: int, list_type: int) -> tuple[int, int]:
    """Where the item pointers of ``obj`` start and how many there are; (0, -1) when ``obj`` is
    not an exact list or tuple."""
    kind = _word(obj + TYPE)
    if kind == tuple_type:
        return obj + ITEMS, _word(obj + SIZE)
    if kind == list_type:
        return _word(obj + ITEMS), _word(obj + SIZE)
    return 0, -1


@_jit
def gather(objs: np.ndarray, tuple_type: int, list_type: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Lists or tuples at the addresses ``objs``: the length of each and the addresses of their
    items, in order; and -1, or the position of the first that is neither a list nor a tuple
    (the arrays are then empty)."""
    n = objs.shape[0]
    counts = np.empty(n, np.int64)
    starts = np.empty(n, np.int64)
    total = 0
    for i in range(n):
        start, k = _items(objs[i], tuple_type, list_type)
        if k < 0:
            return np.empty(0, np.int64), np.empty(0, np.int64), i
        counts[i] = k
        starts[i] = start
        total += k
    leaves = np.empty(total, np.int64)
    q = 0
    for i in range(n):
        for j in range(counts[i]):
            leaves[q] = _word(starts[i] + WORD * j)
            q += 1
    return counts, leaves, -1


@_jit
def _listed(outer: int, tuple_type: int, list_type: int) -> tuple[np.ndarray, int]:
    """The addresses of the items of the list or tuple at ``outer``, and their number (-1, and
    no addresses, when it is neither)."""
    base, n = _items(outer, tuple_type, list_type)
    objs = np.empty(max(n, 0), np.int64)
    for i in range(n):
        objs[i] = _word(base + WORD * i)
    return objs, n


@_jit
def walk_pairs(outer: int, tuple_type: int, list_type: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A list (at address ``outer``) of lists or tuples: the length of each and the addresses of
    their items, in order; and -1, or the position of the first item that is neither a list nor
    a tuple (the arrays are then empty)."""
    objs, n = _listed(outer, tuple_type, list_type)
    if n < 0:
        return np.empty(0, np.int64), np.empty(0, np.int64), 0
    return gather(objs, tuple_type, list_type)


@_jit
def walk_teams(
    outer: int, tuple_type: int, list_type: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A list (at address ``outer``) of matches, each a list or tuple of teams, each a list or
    tuple of player ids: the number of teams of each match, the size of each team and the
    address of every id, in order; and -1, or the position of the first match with something
    other than a list or tuple (the arrays are then empty)."""
    objs, n = _listed(outer, tuple_type, list_type)
    if n < 0:
        empty = np.empty(0, np.int64)
        return empty, empty, empty, 0
    return walk_groups(objs, tuple_type, list_type)


@_jit
def walk_groups(
    objs: np.ndarray, tuple_type: int, list_type: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`walk_teams` of the matches' lists or tuples of teams at the addresses ``objs``."""
    teams_per_match, teams, bad = gather(objs, tuple_type, list_type)
    if bad >= 0:
        return teams_per_match, teams, teams, bad
    sizes, leaves, bad_team = gather(teams, tuple_type, list_type)
    if bad_team >= 0:  # the match holding that team
        at = int(np.searchsorted(np.cumsum(teams_per_match), bad_team, side="right"))
        return np.empty(0, np.int64), sizes, leaves, at
    return teams_per_match, sizes, leaves, -1


@_jit
def walk_slots(
    outer: int, kind: int, offsets: np.ndarray, list_type: int
) -> tuple[np.ndarray, int]:
    """A list (at address ``outer``) of objects of the type at address ``kind`` (exact
    instances, not subclasses): the addresses of the values at the byte ``offsets`` of each
    object, one row per object; and -1, or the position of the first item of another type or
    with an empty slot among them (never set: Python raises on reading it), or 0 when ``outer``
    is not a list (the array is then empty)."""
    k = offsets.shape[0]
    if _word(outer + TYPE) != list_type:
        return np.empty((0, k), np.int64), 0
    base = _word(outer + ITEMS)
    n = _word(outer + SIZE)
    out = np.empty((n, k), np.int64)
    for i in range(n):
        obj = _word(base + WORD * i)
        if _word(obj + TYPE) != kind:
            return np.empty((0, k), np.int64), i
        for j in range(k):
            value = _word(obj + offsets[j])
            if value == 0:
                return np.empty((0, k), np.int64), i
            out[i, j] = value
    return out, -1


@cache
def slot_offsets(cls: type, names: tuple[str, ...]) -> np.ndarray | None:
    """The byte offsets of the slots ``names`` in the objects of ``cls`` (a class whose own
    ``__slots__`` hold them), found on an object made here whose slots hold objects made here
    and read back by :func:`walk_slots`; None when lists and tuples are not read here or a slot
    is not found once, where the check expects it."""
    if not available():
        return None
    descriptors = [cls.__dict__.get(name) for name in names]
    if not all(isinstance(d, types_.MemberDescriptorType) for d in descriptors):
        return None
    probe: object = object.__new__(cls)
    marks = [object() for _ in names]
    for descriptor, mark in zip(descriptors, marks, strict=True):
        descriptor.__set__(probe, mark)  # type: ignore[union-attr]
    size = getattr(cls, "__basicsize__", 0)
    words = [peek(id(probe) + WORD * j) for j in range(size // WORD)]
    offsets = []
    for mark in marks:
        at = [j for j, w in enumerate(words) if w == id(mark)]
        if len(at) != 1 or at[0] < 2:  # (the header: reference count, type)
            return None
        offsets.append(WORD * at[0])
    found = np.array(offsets, np.int64)
    probes = [probe]
    read, bad = walk_slots(id(probes), id(cls), found, id(list))
    if bad != -1 or read.tolist() != [[id(m) for m in marks]]:
        return None
    return found


@cache
def available() -> bool:
    """Whether this Python lays out lists and tuples as the walks read them (checked once, reading
    only inside objects made here, before any pointer read from memory is followed)."""
    if (
        sys.implementation.name != "cpython"
        or struct.calcsize("P") != WORD
        or sysconfig.get_config_var("Py_GIL_DISABLED")
    ):
        return False
    item = object()
    probe_tuple = (item, None)
    probe_list = [item, None, None]
    if (
        peek(id(probe_tuple) + TYPE) != id(tuple)
        or peek(id(probe_tuple) + SIZE) != 2
        or peek(id(probe_tuple) + ITEMS) != id(item)
        or peek(id(probe_list) + TYPE) != id(list)
        or peek(id(probe_list) + SIZE) != 3
    ):
        return False
    if peek(peek(id(probe_list) + ITEMS)) != id(item):
        return False
    groups = [[(item, None), [None]], ((probe_tuple,),)]
    tpm, sizes, leaves, bad = walk_teams(id(groups), id(tuple), id(list))
    return (
        bad == -1
        and tpm.tolist() == [2, 1]
        and sizes.tolist() == [2, 1, 1]
        and leaves.tolist() == [id(item), id(None), id(None), id(probe_tuple)]
    )


@_jit
def text_length(obj: int, layout: TextLayout) -> int:
    """The length of the string at address ``obj`` if it is an exact ``str`` in the compact ASCII
    layout, else -1."""
    if _word(obj + TYPE) != layout.str_type:
        return -1
    if (_word(obj + layout.state) & layout.compact_ascii) != layout.compact_ascii:
        return -1
    return _word(obj + SIZE)


@_jit
def _chunk(obj: int, i: int, n: int, layout: TextLayout) -> int:
    """The ``i``-th eight characters of a compact ASCII string of length ``n`` as a word (the
    bytes past its end, NUL and padding within its allocation, masked out)."""
    w = _word(obj + layout.data + WORD * i)
    rest = n - WORD * i
    if rest < WORD:
        w &= (1 << (8 * rest)) - 1
    return w


@_jit
def text_head(obj: int, n: int, layout: TextLayout) -> int:
    """The first eight characters of a compact ASCII string of length ``n`` as a word (0 for
    the empty string)."""
    return _chunk(obj, 0, n, layout) if n > 0 else 0


@_jit
def text_hash(obj: int, n: int, layout: TextLayout) -> int:
    """A nonzero hash of the characters of a compact ASCII string of length ``n``."""
    h = n * _MIX + 1
    for i in range((n + WORD - 1) // WORD):
        h = (h ^ _chunk(obj, i, n, layout)) * _MIX
        h ^= h >> 29
    return h | 1


@_jit
def same_text(a: int, b: int, n: int, layout: TextLayout) -> bool:
    """Whether the compact ASCII strings at ``a`` and ``b``, both of length ``n``, hold the same
    characters."""
    for i in range((n + WORD - 1) // WORD):
        if _chunk(a, i, n, layout) != _chunk(b, i, n, layout):
            return False
    return True


@cache
def text_layout() -> TextLayout | None:
    """The layout of compact ASCII strings in this Python, checked on strings made here (None:
    lists and tuples are not read here, or strings are laid out otherwise)."""
    if not available() or sys.byteorder != "little":
        return None
    data = sys.getsizeof("") - 1  # the header of a compact ASCII str, before the NUL
    plain = "".join(["mindsport", "-probe-", "text"])  # made at run time: not interned
    other = "".join(["mindsport", "-probe-", "t\u00e9xt"])
    if peek(id(plain) + SIZE) != len(plain) or data % WORD:
        return None
    state = WORD * 4  # after the header, the length and the cached hash
    bits = peek(id(plain) + state) & 0xFF
    other_bits = peek(id(other) + state) & 0xFF
    if bits & (COMPACT | ASCII) != COMPACT | ASCII or other_bits & (COMPACT | ASCII) != COMPACT:
        return None
    layout = TextLayout(id(str), state, data, COMPACT | ASCII)
    n = len(plain)
    copy = "".join(["mindsport-probe-", "text"])
    differs = "".join(["mindsport-probe-", "texT"])
    if (
        text_length(id(plain), layout) != n
        or text_length(id(other), layout) != -1
        or peek(id(plain) + data) != int.from_bytes(plain[:WORD].encode(), "little")
        or not same_text(id(plain), id(copy), n, layout)
        or text_hash(id(plain), n, layout) != text_hash(id(copy), n, layout)
        or same_text(id(plain), id(differs), n, layout)
    ):
        return None
    return layout


class NumberLayout(NamedTuple):
    """Where an exact ``float`` keeps its value and an exact ``int`` its digits: the addresses of
    the two types, the offset of a float's double, of an int's signed digit count and of its
    first digit."""

    float_type: int
    int_type: int
    float_value: int
    int_size: int
    int_digits: int


#: bits of one digit of a CPython int
_DIGIT_BITS = 30


@_jit
def read_numbers(objs: np.ndarray, layout: NumberLayout) -> tuple[np.ndarray, np.ndarray, int]:
    """The numbers at the addresses ``objs``: for each, its raw word (an exact float: the bits
    of its double; an exact int of at most two digits: its value) and whether it is an int;
    and -1, or the position of the first object that is neither (the arrays are then empty).
    An int's digits are read as one word: its allocation holds at least two digits' room."""
    n = objs.shape[0]
    raw = np.empty(n, np.int64)
    is_int = np.zeros(n, np.bool_)
    mask = (1 << _DIGIT_BITS) - 1
    for i in range(n):
        obj = objs[i]
        kind = _word(obj + TYPE)
        if kind == layout.float_type:
            raw[i] = _word(obj + layout.float_value)
        elif kind == layout.int_type:
            size = _word(obj + layout.int_size)
            if size < -2 or size > 2:
                return np.empty(0, np.int64), np.empty(0, np.bool_), i
            digits = _word(obj + layout.int_digits)
            value = 0
            if size != 0:
                value = digits & mask
            if size == 2 or size == -2:
                value += ((digits >> 32) & mask) << _DIGIT_BITS
            raw[i] = -value if size < 0 else value
            is_int[i] = True
        else:
            return np.empty(0, np.int64), np.empty(0, np.bool_), i
    return raw, is_int, -1


@cache
def number_layout() -> NumberLayout | None:
    """The layout of exact floats and small ints in this Python, checked on numbers made here
    (None: lists and tuples are not read here, or numbers are laid out otherwise)."""
    if not available() or sys.byteorder != "little":
        return None
    layout = NumberLayout(id(float), id(int), 2 * WORD, 2 * WORD, 3 * WORD)
    # made at run time, not constants: the ints span zero, one and two digits, both signs
    ints = [int(x) for x in ("0", "7", "-7", "256", "1073741823", "1073741824", "-123456789012")]
    ints += [int("1152921504606846975"), -int("1152921504606846975")]  # 2^60 - 1
    floats = [float(x) for x in ("1.5", "-0.0", "1e300", "-2.5e-310", "1700000000.25")]
    probes = ints + floats
    raw, is_int, bad = read_numbers(np.array([id(x) for x in probes], np.int64), layout)
    if bad != -1 or is_int.tolist() != [True] * len(ints) + [False] * len(floats):
        return None
    got_ints = raw[: len(ints)].tolist()
    got_floats = raw[len(ints) :].view(np.float64).tolist()
    if got_ints != ints or [struct.pack("<d", x) for x in got_floats] != [
        struct.pack("<d", x) for x in floats
    ]:
        return None
    big = [int("1152921504606846976")]  # 2^60: three digits, left to Python
    _, _, bad = read_numbers(np.array([id(x) for x in big], np.int64), layout)
    return layout if bad == 0 else None
