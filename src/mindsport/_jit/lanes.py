"""Lanes of float64 for the compiled kernels: one value per game, several games per instruction.

A game of three or more teams is rated by a schedule of divisions, square roots and error
functions that each depend on the one before; one game alone leaves most of the processor idle.
The replay therefore lays out :data:`WIDTH` games that share no player side by side and runs
their schedules in lockstep on vectors (SIMD): one vector instruction does a step of every game.

This module gives numba a value type for such a vector, :class:`Lanes` (``WIDTH`` float64
lanes, an LLVM ``<WIDTH x double>``), and a mask type, :class:`LaneMask` (``WIDTH`` booleans).
Inside compiled code they behave like floats and booleans: ``+ - * /``, unary minus, ``abs``,
the comparisons (giving a mask), ``& | ~`` on masks, and ``math.sqrt``, ``math.exp`` and
``math.erfc``, so that plain scalar functions (the normal distribution of
:mod:`mindsport.rating.gaussian`) compile for lanes as they are.
Mixed with a float, the float stands in every lane.

Code written with the helpers below is generic: compiled with a float where it expects a
"prototype" (a zero of the lane type), it is ordinary scalar code; compiled with a
:class:`Lanes` zero (:func:`zeros`), the same source runs on every lane at once:

* :func:`where` picks per lane (``a if m else b`` for a boolean), :func:`invert` negates,
  :func:`any_lane` and :func:`all_lanes` reduce a mask;
* :func:`load` and :func:`store` move lane ``0..WIDTH-1`` of row ``i``, field ``f`` of a scratch
  array shaped ``(rows, fields, WIDTH)`` (``[i, f, 0]`` for a float prototype);
* :func:`gather` and :func:`scatter` do the same at a row that differs per lane;
* :func:`lanewise` makes, from a scalar function, one that recomputes the lanes of a mask (the
  rare cases, such as far tails, that a vector formula does not cover).

The exponential and the error function of a vector are glibc's vector math library
(``libmvec``: AVX-512, AVX2 or SSE4 variants, chosen by the processor) where it exists (x86-64
Linux, glibc 2.35 or later); they agree with the scalar ``exp`` and ``erfc`` to within a few
units in the last place, not bit for bit. Elsewhere each lane calls the scalar function, and
vectors still carry the rest of the arithmetic. :data:`LIBRARY` says which is in use.
"""

from __future__ import annotations

import ctypes.util
import math
import operator
import os
import platform
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic, models, overload, register_model

__all__ = [
    "LIBRARY",
    "PART",
    "WIDTH",
    "LaneMask",
    "Lanes",
    "all_lanes",
    "any_lane",
    "gather",
    "invert",
    "lane",
    "lanewise",
    "load",
    "part_zeros",
    "scatter",
    "store",
    "where",
    "width",
    "with_lane",
    "zeros",
]

# glibc's vector ABI names a variant by its instruction set: b SSE4, d AVX2, e AVX-512
_VARIANTS = (("avx512f", 8, "e"), ("avx2", 4, "d"), ("sse4.1", 2, "b"))
_PORTABLE_WIDTH = 4
_NATIVE = {letter: width for _, width, letter in _VARIANTS}
# a kernel's vector is this many of the library's: the processor overlaps their independent
# chains of dependent divisions and library calls (one alone leaves it waiting on latency)
_PARTS = 2


def _choose() -> tuple[int, str]:
    """The lane width and the vector math library of this machine.

    ``MINDSPORT_SIMD=portable`` in the environment takes the scalar functions lane by lane, as
    where the library is missing. The compiled kernels are cached with the width and library
    they were compiled for, so give such a run a numba cache of its own (``NUMBA_CACHE_DIR``).
    """
    if os.environ.get("MINDSPORT_SIMD", "") == "portable":
        return _PORTABLE_WIDTH, "portable"
    features = llvm.get_host_cpu_features()
    libc, version = platform.libc_ver()
    if platform.machine() in ("x86_64", "AMD64") and libc == "glibc":
        parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
        if parts >= (2, 35):
            try:
                llvm.load_library_permanently(ctypes.util.find_library("mvec") or "libmvec.so.1")
            except RuntimeError:
                pass
            else:
                for feature, width, letter in _VARIANTS:
                    if features.get(feature, False):
                        return width, f"libmvec-{letter}"
    return _PORTABLE_WIDTH, "portable"


#: lanes of one vector of the library, and ``"libmvec-<variant>"`` or ``"portable"`` (each lane
#: calls the scalar function)
PART, LIBRARY = _choose()
#: lanes per vector of the kernels: several of the library's, whose chains of dependent
#: arithmetic the processor then overlaps
WIDTH = PART * _PARTS if LIBRARY != "portable" else PART


class Lanes(types.Type):
    """``width`` float64 lanes; ``library`` is part of the type so that code compiled for one
    vector math library is never taken from the cache for another."""

    def __init__(self, width: int, library: str) -> None:
        self.width = width
        self.library = library
        super().__init__(name=f"float64x{width}[{library}]")


class LaneMask(types.Type):
    """``width`` booleans, one per lane (of lanes for ``library``)."""

    def __init__(self, width: int, library: str) -> None:
        self.width = width
        self.library = library
        super().__init__(name=f"mask{width}[{library}]")


LANES = Lanes(WIDTH, LIBRARY)
PART_LANES = Lanes(PART, LIBRARY)


@register_model(Lanes)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm: Any, fe_type: Lanes) -> None:
        super().__init__(dmm, fe_type, ir.VectorType(ir.DoubleType(), fe_type.width))


@register_model(LaneMask)
class _MaskModel(models.PrimitiveModel):
    def __init__(self, dmm: Any, fe_type: LaneMask) -> None:
        super().__init__(dmm, fe_type, ir.VectorType(ir.IntType(1), fe_type.width))


def _vec(width: int) -> ir.VectorType:
    return ir.VectorType(ir.DoubleType(), width)


def _broadcast(builder: ir.IRBuilder, x: ir.Value, width: int) -> ir.Value:
    v = builder.insert_element(ir.Constant(_vec(width), ir.Undefined), x, _i32(0))
    return builder.shuffle_vector(
        v, v, ir.Constant(ir.VectorType(ir.IntType(32), width), [0] * width)
    )


def _i32(k: int) -> ir.Constant:
    return ir.Constant(ir.IntType(32), k)


def _as_lanes(
    context: Any, builder: ir.IRBuilder, ty: Any, val: ir.Value, lanes: Lanes
) -> ir.Value:
    """A lane vector from a lane vector or a number (the number in every lane)."""
    if isinstance(ty, Lanes):
        return val
    x = context.cast(builder, val, ty, types.float64)
    return _broadcast(builder, x, lanes.width)


def _lanes_of(a: Any, b: Any) -> Lanes | None:
    """The lane type of a binary operation on ``a`` and ``b`` (lanes with lanes or numbers)."""
    if isinstance(a, Lanes) and (isinstance(b, types.Number) or b == a):
        return a
    if isinstance(b, Lanes) and isinstance(a, types.Number):
        return b
    return None


# -------------------------------------------------------------------------------- arithmetic


def _binary(op: Any, emit: Any, mask: bool) -> None:
    """``op`` (an operator of two arguments) on lanes, or lanes and a number: ``emit(builder,
    x, y)`` on the two vectors; the result is a mask for a comparison (``mask``)."""

    @intrinsic
    def vop(typingctx: Any, a: Any, b: Any) -> Any:
        lanes = _lanes_of(a, b)
        if lanes is None:
            return None
        out = LaneMask(lanes.width, lanes.library) if mask else lanes

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
            x = _as_lanes(context, builder, sig.args[0], args[0], lanes)
            y = _as_lanes(context, builder, sig.args[1], args[1], lanes)
            return emit(builder, x, y)

        return out(a, b), codegen

    @overload(op)
    def ov(a, b):
        if _lanes_of(a, b) is not None:
            return lambda a, b: vop(a, b)
        return None


def _arithmetic(op: Any, instr: str) -> None:
    _binary(op, lambda builder, x, y: getattr(builder, instr)(x, y), False)


for _op, _instr in (
    (operator.add, "fadd"),
    (operator.sub, "fsub"),
    (operator.mul, "fmul"),
    (operator.truediv, "fdiv"),
):
    _arithmetic(_op, _instr)


def _unary(op: Any, kind: type, instr: str) -> Any:
    """``op`` (an operator of one argument) on values of type ``kind``: the LLVM instruction."""

    @intrinsic
    def vop(typingctx: Any, a: Any) -> Any:
        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
            return getattr(builder, instr)(args[0])

        return a(a), codegen

    @overload(op)
    def ov(a):
        if isinstance(a, kind):
            return lambda a: vop(a)
        return None

    return vop


_unary(operator.neg, Lanes, "fneg")  # registered as the overload of unary minus


def _llvm_unary(name: str) -> Any:
    @intrinsic
    def vop(typingctx: Any, a: Any) -> Any:
        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
            vt = _vec(a.width)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(vt, [vt]), f"llvm.{name}.v{a.width}f64"
            )
            return builder.call(fn, [args[0]])

        return a(a), codegen

    return vop


_sqrt = _llvm_unary("sqrt")
_fabs = _llvm_unary("fabs")


@overload(math.sqrt)
def _ov_sqrt(a):
    if isinstance(a, Lanes):
        return lambda a: _sqrt(a)
    return None


@overload(abs)
def _ov_abs(a):
    if isinstance(a, Lanes):
        return lambda a: _fabs(a)
    return None


def _library_unary(fn: Any, name: str) -> Any:
    """``fn`` (a function of ``math``) on lanes: the vector math library's ``name``, or the
    scalar function lane by lane."""

    @intrinsic
    def vop(typingctx: Any, a: Any) -> Any:
        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
            vt = _vec(a.width)
            if a.library.startswith("libmvec-"):
                # the library's vectors hold NATIVE lanes: a wider vector is done in parts
                letter = a.library[-1]
                native = _NATIVE[letter]
                part = _vec(native)
                symbol = f"_ZGV{letter}N{native}v_{name}"
                callee = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(part, [part]), symbol
                )
                if a.width == native:
                    return builder.call(callee, [args[0]])
                out = ir.Constant(vt, ir.Undefined)
                for p in range(a.width // native):
                    idx = ir.Constant(
                        ir.VectorType(ir.IntType(32), native),
                        list(range(p * native, (p + 1) * native)),
                    )
                    y = builder.call(callee, [builder.shuffle_vector(args[0], args[0], idx)])
                    for q in range(native):
                        out = builder.insert_element(
                            out, builder.extract_element(y, _i32(q)), _i32(p * native + q)
                        )
                return out
            scalar = context.get_function(fn, types.float64(types.float64))
            out = ir.Constant(vt, ir.Undefined)
            for k in range(a.width):
                x = builder.extract_element(args[0], _i32(k))
                out = builder.insert_element(out, scalar(builder, [x]), _i32(k))
            return out

        return a(a), codegen

    @overload(fn)
    def ov(a):
        if isinstance(a, Lanes):
            return lambda a: vop(a)
        return None

    return vop


# registered as overloads of math.exp and math.erfc
_library_unary(math.exp, "exp")
_library_unary(math.erfc, "erfc")


# ------------------------------------------------------------------------------- comparisons


def _comparison(op: Any, pred: str) -> None:
    def emit(builder: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
        if pred == "!=":  # true for NaN, as for floats
            return builder.fcmp_unordered(pred, x, y)
        return builder.fcmp_ordered(pred, x, y)

    _binary(op, emit, True)


for _op, _pred in (
    (operator.gt, ">"),
    (operator.ge, ">="),
    (operator.lt, "<"),
    (operator.le, "<="),
    (operator.eq, "=="),
    (operator.ne, "!="),
):
    _comparison(_op, _pred)


def _mask_binary(op: Any, instr: str) -> None:
    @intrinsic
    def mop(typingctx: Any, a: Any, b: Any) -> Any:
        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
            return getattr(builder, instr)(args[0], args[1])

        return a(a, b), codegen

    @overload(op)
    def ov(a, b):
        if isinstance(a, LaneMask) and a == b:
            return lambda a, b: mop(a, b)
        return None


_mask_binary(operator.and_, "and_")
_mask_binary(operator.or_, "or_")


_mask_not = _unary(operator.invert, LaneMask, "not_")


@intrinsic
def _mask_bits(typingctx: Any, m: Any) -> Any:
    """The mask as an integer, lane ``k`` in bit ``k``."""

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        bits = builder.bitcast(args[0], ir.IntType(m.width))
        return builder.zext(bits, ir.IntType(64))

    return types.int64(m), codegen


# ------------------------------------------------------------------------ generic helpers


def where(m: Any, a: Any, b: Any) -> Any:
    """Per lane: ``a`` where ``m`` holds, else ``b`` (for a boolean ``m``: ``a if m else b``)."""
    return a if m else b


@intrinsic
def _select(typingctx: Any, m: Any, a: Any, b: Any) -> Any:
    lanes = Lanes(m.width, m.library)

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        x = _as_lanes(context, builder, sig.args[1], args[1], lanes)
        y = _as_lanes(context, builder, sig.args[2], args[2], lanes)
        return builder.select(args[0], x, y)

    return lanes(m, a, b), codegen


@intrinsic
def _select_float(typingctx: Any, m: Any, a: Any, b: Any) -> Any:
    """``a if m else b`` as floats, without a branch."""

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        x = context.cast(builder, args[1], sig.args[1], types.float64)
        y = context.cast(builder, args[2], sig.args[2], types.float64)
        return builder.select(args[0], x, y)

    return types.float64(m, a, b), codegen


@overload(where, inline="always")
def _ov_where(m, a, b):
    if isinstance(m, LaneMask):
        return lambda m, a, b: _select(m, a, b)
    if isinstance(m, types.Boolean) and isinstance(a, types.Number) and isinstance(b, types.Number):
        return lambda m, a, b: _select_float(m, a, b)
    return None


def width(proto: Any) -> int:
    """The lanes of ``proto``: 1 for a float."""
    return 1


@overload(width, inline="always")
def _ov_width(proto):
    n = proto.width if isinstance(proto, Lanes) else 1
    if isinstance(proto, (Lanes, types.Float)):
        return lambda proto: n
    return None


def invert(m: Any) -> Any:
    """Per lane: not ``m`` (a boolean: ``not m``; ``~`` would turn a boolean into an integer)."""
    return not m


@overload(invert, inline="always")
def _ov_invert_generic(m):
    if isinstance(m, LaneMask):
        return lambda m: _mask_not(m)
    if isinstance(m, types.Boolean):
        return lambda m: not m
    return None


def any_lane(m: Any) -> bool:
    """Whether ``m`` holds in some lane (a boolean: itself)."""
    return bool(m)


def all_lanes(m: Any) -> bool:
    """Whether ``m`` holds in every lane (a boolean: itself)."""
    return bool(m)


@overload(any_lane, inline="always")
def _ov_any(m):
    if isinstance(m, LaneMask):
        return lambda m: _mask_bits(m) != 0
    if isinstance(m, types.Boolean):
        return lambda m: m
    return None


@overload(all_lanes, inline="always")
def _ov_all(m):
    if isinstance(m, LaneMask):
        full = (1 << m.width) - 1
        return lambda m: _mask_bits(m) == full
    if isinstance(m, types.Boolean):
        return lambda m: m
    return None


def zeros() -> Any:
    """A vector of :data:`WIDTH` zeros: the prototype of generic lane code (compiled code
    only)."""
    raise TypeError("lanes exist in compiled code only")


def part_zeros() -> Any:
    """A vector of :data:`PART` zeros, one vector of the library: for a few values at once
    (compiled code only)."""
    raise TypeError("lanes exist in compiled code only")


def _constant_zeros(lanes: Lanes) -> Any:
    @intrinsic
    def make(typingctx: Any) -> Any:
        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
            return ir.Constant(_vec(lanes.width), [0.0] * lanes.width)

        return lanes(), codegen

    return make


_zeros = _constant_zeros(LANES)
_part_zeros = _constant_zeros(PART_LANES)


@overload(zeros)
def _ov_zeros():
    return lambda: _zeros()


@overload(part_zeros)
def _ov_part_zeros():
    return lambda: _part_zeros()


def lane(v: Any, k: int) -> Any:
    """Lane ``k`` of ``v`` (a float or a boolean: itself)."""
    return v


def with_lane(v: Any, k: int, x: Any) -> Any:
    """``v`` with lane ``k`` replaced by ``x`` (a float: ``x``)."""
    return x


@intrinsic
def _extract(typingctx: Any, v: Any, k: Any) -> Any:
    out = types.boolean if isinstance(v, LaneMask) else types.float64

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        return builder.extract_element(args[0], args[1])

    return out(v, k), codegen


@intrinsic
def _insert(typingctx: Any, v: Any, k: Any, x: Any) -> Any:
    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        val = context.cast(builder, args[2], sig.args[2], types.float64)
        return builder.insert_element(args[0], val, args[1])

    return v(v, k, x), codegen


@overload(lane, inline="always")
def _ov_lane(v, k):
    if isinstance(v, (Lanes, LaneMask)):
        return lambda v, k: _extract(v, k)
    if isinstance(v, (types.Number, types.Boolean)):
        return lambda v, k: v
    return None


@overload(with_lane, inline="always")
def _ov_with_lane(v, k, x):
    if isinstance(v, Lanes):
        return lambda v, k, x: _insert(v, k, x)
    if isinstance(v, types.Number):
        return lambda v, k, x: x
    return None


# ----------------------------------------------------------------------- scratch arrays


def load(proto: Any, arr: Any, i: int, f: int, k: int) -> Any:
    """Lanes ``k, k+1, ...`` of row ``i``, field ``f`` of ``arr`` (shaped ``(rows, fields,
    lanes)``): as many as ``proto`` has, or ``arr[i, f, k]`` for a float ``proto``."""
    return arr[i, f, k]


def store(proto: Any, arr: Any, i: int, f: int, k: int, v: Any) -> None:
    """Write ``v`` to lanes ``k, k+1, ...`` of row ``i``, field ``f`` of ``arr`` (see
    :func:`load`)."""
    arr[i, f, k] = v


def gather(proto: Any, arr: Any, index: Any, r: int, g: int, f: int, k: int) -> Any:
    """Lane ``q`` of the result is ``arr[index[r, g, k + q], f, k + q]``: a row that differs per
    lane, named by field ``g`` of an integer scratch array."""
    return arr[index[r, g, k], f, k]


def scatter(proto: Any, arr: Any, index: Any, r: int, g: int, f: int, k: int, v: Any) -> None:
    """Write lane ``q`` of ``v`` to ``arr[index[r, g, k + q], f, k + q]`` (see :func:`gather`)."""
    arr[index[r, g, k], f, k] = v


def _pointer(context, builder, aty, ary, i, f, k, width):
    arr = context.make_array(aty)(context, builder, ary)
    ptr = cgutils.get_item_pointer(context, builder, aty, arr, [i, f, k], wraparound=False)
    return builder.bitcast(ptr, _vec(width).as_pointer())


def _indices(context, builder, sig, args, first):
    return [
        context.cast(builder, args[q], sig.args[q], types.intp) for q in range(first, first + 3)
    ]


@intrinsic
def _vload(typingctx: Any, proto: Any, arr: Any, i: Any, f: Any, k: Any) -> Any:
    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        i_, f_, k_ = _indices(context, builder, sig, args, 2)
        ptr = _pointer(context, builder, arr, args[1], i_, f_, k_, proto.width)
        return builder.load(ptr, align=8)

    return proto(proto, arr, i, f, k), codegen


@intrinsic
def _vstore(typingctx: Any, proto: Any, arr: Any, i: Any, f: Any, k: Any, v: Any) -> Any:
    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> ir.Value:
        i_, f_, k_ = _indices(context, builder, sig, args, 2)
        ptr = _pointer(context, builder, arr, args[1], i_, f_, k_, proto.width)
        builder.store(args[5], ptr, align=8)
        return context.get_dummy_value()

    return types.none(proto, arr, i, f, k, v), codegen


def _is_scratch(arr: Any) -> bool:
    return (
        isinstance(arr, types.Array)
        and arr.ndim == 3
        and arr.dtype == types.float64
        and arr.layout == "C"
    )


@overload(load, inline="always")
def _ov_load(proto, arr, i, f, k):
    if isinstance(proto, Lanes) and _is_scratch(arr):
        return lambda proto, arr, i, f, k: _vload(proto, arr, i, f, k)
    if isinstance(proto, types.Float):
        return lambda proto, arr, i, f, k: arr[i, f, k]
    return None


@overload(store, inline="always")
def _ov_store(proto, arr, i, f, k, v):
    if isinstance(proto, Lanes) and _is_scratch(arr):
        return lambda proto, arr, i, f, k, v: _vstore(proto, arr, i, f, k, v)
    if isinstance(proto, types.Float):

        def impl(proto, arr, i, f, k, v):
            arr[i, f, k] = v

        return impl
    return None


@overload(gather)
def _ov_gather(proto, arr, index, r, g, f, k):
    if isinstance(proto, Lanes):
        width = proto.width

        def impl(proto, arr, index, r, g, f, k):
            v = proto
            for q in range(width):
                v = _insert(v, q, arr[index[r, g, k + q], f, k + q])
            return v

        return impl
    return None


@overload(gather, inline="always")
def _ov_gather_float(proto, arr, index, r, g, f, k):
    if isinstance(proto, types.Float):
        return lambda proto, arr, index, r, g, f, k: arr[index[r, g, k], f, k]
    return None


@overload(scatter)
def _ov_scatter(proto, arr, index, r, g, f, k, v):
    if isinstance(proto, Lanes):
        width = proto.width

        def impl(proto, arr, index, r, g, f, k, v):
            for q in range(width):
                arr[index[r, g, k + q], f, k + q] = _extract(v, q)

        return impl
    return None


@overload(scatter, inline="always")
def _ov_scatter_float(proto, arr, index, r, g, f, k, v):
    if isinstance(proto, types.Float):

        def impl(proto, arr, index, r, g, f, k, v):
            arr[index[r, g, k], f, k] = v

        return impl
    return None


# ----------------------------------------------------------------------------- fix-ups


def lanewise(fn: Any) -> Any:
    """A generic function ``g(m, a, b, c, r0, r1)`` for the compiled scalar function ``fn`` of
    three arguments that returns two floats: ``(r0, r1)``, except in the lanes where ``m``
    holds, which get ``fn(a, b, c)`` of those lanes' values (``c`` may be a mask; for a
    boolean ``m``: ``fn(a, b, c) if m else (r0, r1)``). Made once per ``fn``, at import: the
    kernels then call ``fn`` as a known function, which numba can cache."""

    def g(m: Any, a: Any, b: Any, c: Any, r0: Any, r1: Any) -> tuple[Any, Any]:
        if m:
            return fn(a, b, c)
        return r0, r1

    @overload(g)
    def ov(m, a, b, c, r0, r1):
        if isinstance(m, LaneMask):
            width = m.width

            def impl(m, a, b, c, r0, r1):
                bits = _mask_bits(m)
                if bits == 0:
                    return r0, r1
                for k in range(width):
                    if (bits >> k) & 1:
                        x0, x1 = fn(_extract(a, k), _extract(b, k), _extract(c, k))
                        r0 = _insert(r0, k, x0)
                        r1 = _insert(r1, k, x1)
                return r0, r1

            return impl
        if isinstance(m, types.Boolean):

            def impl1(m, a, b, c, r0, r1):
                if m:
                    return fn(a, b, c)
                return r0, r1

            return impl1
        return None

    g.__name__ = f"lanewise_{getattr(fn, '__name__', 'fn')}"
    g.__qualname__ = g.__name__
    return g
