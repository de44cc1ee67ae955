"""Setting the slots of objects just made, in compiled code (numba): one pass over a million new
objects that stores each value's address in its slot and counts the new reference, as the slot's
own setter does, instead of one Python call per object and slot.

CPython 3.11 keeps an object's reference count in its first word, and a slot of a class with
``__slots__`` as a pointer at a fixed offset (:func:`mindsport._jit.layout.slot_offsets` finds
it). :func:`fill_slots` writes nothing until it has checked everything it will write to and read
from: the objects are exact instances of the class in an exact ``list``, none of their slots set
yet (a slot being set would have to give up its old value), and every column of values an exact
``list`` as long, with no empty entry. It then stores, for object ``i`` and slot ``j``, the
address of value ``i`` of column ``j`` (or of the one value shared by every object) and adds one
to that value's reference count, as ``setattr`` would (a value shared by all is counted once,
for all). :func:`listed` puts objects the caller holds into a new list the same way (a list of
the ids read from the slots of a million matches), the Nones it was made with given back.

Writing into objects is more than reading them: :func:`available` allows it only on CPython 3.11
(later versions have immortal objects, whose counts must not move) where the layouts of
:mod:`mindsport._jit.layout` hold, and after filling objects made here and checking that Python
reads back each value and counts each reference exactly as after ``setattr``
(``sys.getrefcount``). Elsewhere :func:`made` says no and the caller sets the slots in Python.
:func:`made` makes the objects itself, so they are new, distinct and empty.
The kernels hold the GIL, so no other thread sees an object half filled.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import cache
from itertools import repeat
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from mindsport._jit import layout
from mindsport._jit.layout import ITEMS, SIZE, TYPE, WORD, jit_holding_gil

__all__ = ["available", "fill_list", "fill_slots", "listed", "made"]


def _store_word(typingctx: Any, address: Any, value: Any) -> Any:
    """Typing and code of :func:`_put`: store a 64-bit word at an integer address."""
    if not isinstance(address, types.Integer) or not isinstance(value, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        pointer = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        builder.store(args[1], pointer)
        return context.get_dummy_value()

    return types.void(types.int64, types.int64), codegen


#: store a 64-bit word at an address (compiled code only)
_put: Callable[[int, int], None] = intrinsic(_store_word)  # type: ignore[assignment]
_word = layout._word


@jit_holding_gil
def fill_slots(
    objs: int,
    kind: int,
    offsets: np.ndarray,
    columns: np.ndarray,
    shared: np.ndarray,
    list_type: int,
) -> bool:
    """Set slot ``j`` (at byte ``offsets[j]``) of every object of the list at address ``objs``
    (distinct exact instances of the type at address ``kind``, as :func:`made` makes them) to
    item ``i`` of the list at address ``columns[j]``, or, where ``shared[j]``, to the object at
    address ``columns[j]`` itself; False, with nothing written, when anything is not as that
    needs (see the module)."""
    k = offsets.shape[0]
    if _word(objs + TYPE) != list_type:
        return False
    n = _word(objs + SIZE)
    base = _word(objs + ITEMS)
    items = np.zeros(k, np.int64)  # where each column's item pointers start
    for j in range(k):
        if shared[j]:
            if columns[j] == 0:
                return False
            continue
        if _word(columns[j] + TYPE) != list_type or _word(columns[j] + SIZE) != n:
            return False
        items[j] = _word(columns[j] + ITEMS)
        for i in range(n):
            if _word(items[j] + WORD * i) == 0:
                return False
    for i in range(n):
        obj = _word(base + WORD * i)
        if _word(obj + TYPE) != kind:
            return False
        for j in range(k):
            if _word(obj + offsets[j]) != 0:
                return False
    for i in range(n):
        obj = _word(base + WORD * i)
        for j in range(k):
            value = columns[j] if shared[j] else _word(items[j] + WORD * i)
            _put(obj + offsets[j], value)
            if not shared[j]:
                _put(value, _word(value) + 1)
    for j in range(k):
        if shared[j]:
            _put(columns[j], _word(columns[j]) + n)
    return True


def made(cls: type, names: Sequence[str], values: Sequence[Any], n: int) -> list[Any] | None:
    """``n`` new objects of class ``cls`` (made with ``object.__new__``, no ``__init__``) whose
    slots ``names`` are set in compiled code: slot ``names[j]`` of object ``i`` to
    ``values[j][i]`` where ``values[j]`` is a list (of ``n``), to None where it is None. None
    when that cannot be done here (or a value is neither): the caller then makes them in
    Python."""
    if n <= 0 or not available() or not all(v is None or type(v) is list for v in values):
        return None
    offsets = layout.slot_offsets(cls, tuple(names))
    if offsets is None:
        return None
    objs: list[Any] = list(map(object.__new__, repeat(cls, n)))  # distinct, slots empty
    columns = np.array([id(v) for v in values], np.int64)
    shared = np.array([v is None for v in values], np.bool_)
    if not fill_slots(id(objs), id(cls), offsets, columns, shared, id(list)):
        return None
    return objs


@jit_holding_gil
def fill_list(target: int, addresses: np.ndarray, none: int, list_type: int) -> bool:
    """Put the objects at ``addresses`` (live objects the caller holds) in the list at address
    ``target``, whose items are all None (the object at address ``none``) and as many: each
    counted once more, None once less for each; False, with nothing written, when the list is
    not such a list."""
    n = addresses.shape[0]
    if _word(target + TYPE) != list_type or _word(target + SIZE) != n:
        return False
    items = _word(target + ITEMS)
    for i in range(n):
        if _word(items + WORD * i) != none or addresses[i] == 0:
            return False
    for i in range(n):
        value = addresses[i]
        _put(items + WORD * i, value)
        _put(value, _word(value) + 1)
    _put(none, _word(none) - n)
    return True


def listed(addresses: np.ndarray) -> list[Any] | None:
    """A list of the objects at ``addresses`` (live objects the caller holds, such as the values
    of slots read by :func:`mindsport._jit.layout.walk_slots` from objects it holds), made in
    compiled code; None when that cannot be done here."""
    if not available():
        return None
    out: list[Any] = [None] * len(addresses)
    if not fill_list(id(out), np.ascontiguousarray(addresses, np.int64), id(None), id(list)):
        return None
    return out


class _Probe:
    __slots__ = ("a", "b", "c")
    a: object
    b: object
    c: object


@cache
def available() -> bool:
    """Whether slots and lists are filled here (CPython 3.11 with the layouts of
    :mod:`mindsport._jit.layout`, and a filling of objects and a list made here that Python reads
    and counts as after ``setattr`` and ``list.append``)."""
    if sys.version_info[:2] != (3, 11) or not layout.available():
        return False
    offsets = layout.slot_offsets(_Probe, ("a", "b", "c"))
    if offsets is None:
        return False
    n = 3
    objs = [object.__new__(_Probe) for _ in range(n)]
    firsts = [object() for _ in range(n)]
    seconds = [[i] for i in range(n)]
    common = object()
    before = [sys.getrefcount(v) for v in (*firsts, *seconds, common)]
    done = fill_slots(
        id(objs),
        id(_Probe),
        offsets,
        np.array([id(firsts), id(seconds), id(common)], np.int64),
        np.array([False, False, True]),
        id(list),
    )
    after = [sys.getrefcount(v) for v in (*firsts, *seconds, common)]
    listed_before = [sys.getrefcount(v) for v in firsts]
    again = [None] * n
    put = fill_list(id(again), np.array([id(v) for v in firsts], np.int64), id(None), id(list))
    listed_after = [sys.getrefcount(v) for v in firsts]
    return (
        bool(put)
        and again == firsts
        and listed_after == [b + 1 for b in listed_before]
        and bool(done)
        and [(o.a, o.b, o.c) for o in objs]
        == [(f, s, common) for f, s in zip(firsts, seconds, strict=True)]
        and after == [b + 1 for b in before[: 2 * n]] + [before[-1] + n]
    )
