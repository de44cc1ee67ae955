"""The ``mindsport`` command line: the root command (:mod:`~mindsport.cli.root`), the error
boundary and app settings every group shares (:mod:`~mindsport.cli.boundary`), the shared options
and parsers (:mod:`~mindsport.cli.options`), and one module per command group (``ratings``,
``history``, ``serve``, ``demo``, ``doudizhu``, ``games``, ``junqi``, ``tournament`` with
``tournament_generate``, ``event``).

The command line sits above every other part of mindsport and may import any of them; none of
them imports it, and it alone imports typer. Its modules import only typer and light values at
load time: NumPy, numba, SciPy, SQLAlchemy and the engines load inside the command bodies, so
that ``mindsport --help`` starts at once. :func:`main` is the console-script entry point
(``mindsport = "mindsport.cli:main"``).
"""

from __future__ import annotations

from mindsport.cli.root import app, main

__all__ = ["app", "main"]
