"""Compiling with numba: the infrastructure of mindsport's compiled kernels, and no rating code.

* :mod:`.compiling`: the decorators every kernel uses (:data:`~.compiling.jit`,
  :data:`~.compiling.inline`) and :func:`~.compiling.compile_functions`, which compiles plain
  Python functions as written (one implementation for Python callers and kernels);
* :mod:`.lanes`: float64 lanes (SIMD vectors) as a numba value type, with the operations that let
  generic code run on one value or on several at once;
* :mod:`.layout`: reading CPython's lists and tuples (lengths, item addresses) in compiled code;
* :mod:`.id_table`: compiled look-ups of integer keys (object addresses) in an open-addressing
  table.

Each module loads numba when imported: import them from compiled code and lazily from Python
(``import mindsport`` loads no numba). This package imports nothing of mindsport (at most
:mod:`mindsport.errors`); the rating models (:mod:`mindsport.rating`) build on it.
"""
