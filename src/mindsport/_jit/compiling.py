"""Compiling with numba: the decorator every kernel uses, and plain functions compiled as written.

Scalar functions that Python code needs as well as the kernels (the normal distribution, the
truncated-Gaussian moments, a model's win probability) are written once, in plain Python, in the
module that owns them, and listed in that module's ``__kernels__``. :func:`compile_functions`
compiles those very functions: each is rebuilt over a copy of its module's globals in which the
names of the other listed functions refer to their compiled versions, so calls between them stay
compiled. Nothing is duplicated and Python callers never load numba.

Only the kernel modules import this module (numba is loaded on first use of a kernel, never by
``import mindsport``). ``cache=True`` keeps the machine code on disk.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba as nb

__all__ = ["compile_functions", "inline", "jit"]

#: the options of every compiled function in mindsport (no fast-math: results equal Python's)
jit: Callable[[Callable[..., Any]], Any] = nb.njit(
    cache=True, fastmath=False, nogil=True, error_model="numpy"
)


#: :data:`jit` for a small step of a hot loop: compiled into each caller (numba's own inlining),
#: so that the processor sees the steps of independent games as one stream it can overlap
inline: Callable[[Callable[..., Any]], Any] = nb.njit(
    cache=True, fastmath=False, nogil=True, error_model="numpy", inline="always"
)


def compile_functions(*modules: types.ModuleType) -> types.SimpleNamespace:
    """The functions named in each module's ``__kernels__``, compiled, as one namespace.

    The functions may call one another across the given modules (list a module after the
    modules it calls into, or together with them); names must be unique across the modules.
    """
    compiled: dict[str, Any] = {}
    spaces: list[dict[str, Any]] = []
    for module in modules:
        space = dict(vars(module))
        spaces.append(space)
        for name in module.__kernels__:
            if name in compiled:
                raise RuntimeError(f"kernel function {name!r} is defined twice")
            fn = getattr(module, name)
            copy = types.FunctionType(
                fn.__code__, space, fn.__name__, fn.__defaults__, fn.__closure__
            )
            copy.__qualname__ = fn.__qualname__
            copy.__module__ = fn.__module__
            copy.__doc__ = fn.__doc__
            compiled[name] = jit(copy)
    for space in spaces:
        space.update(compiled)
    return types.SimpleNamespace(**compiled)
