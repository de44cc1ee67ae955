"""The plain scalar functions of mindsport, compiled once for every kernel (numba).

:func:`mindsport.rating.jit.compile_functions` compiles the functions listed in the
``__kernels__`` of :mod:`mindsport.match` (a pair's outcome from ranks),
:mod:`mindsport.rating.gaussian` (normal distribution), :mod:`mindsport.rating.truncation`
(truncated-Gaussian moments) and :mod:`mindsport.rating.formulas` (the models' formulas). The
kernel modules take them from here, so each is compiled (and cached) once.
"""

from __future__ import annotations

from mindsport import match
from mindsport.rating import formulas, gaussian, truncation
from mindsport.rating.jit import compile_functions

__all__ = ["F"]

#: the compiled functions, by name
F = compile_functions(match, gaussian, truncation, formulas)
