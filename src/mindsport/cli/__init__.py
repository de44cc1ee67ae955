"""The ``mindsport`` command line: the root command (:mod:`~mindsport.cli.root`), the error
boundary and app settings every group shares (:mod:`~mindsport.cli.boundary`), and one module
per command group.

The command line sits above every domain package and may import any of them; no domain package
imports it (or typer). Its modules import only typer and light values at load time: NumPy,
numba, SciPy, SQLAlchemy and the engines load inside the command bodies, so that
``mindsport --help`` starts at once. ``main`` is the console-script entry point.
"""

from __future__ import annotations

from mindsport.cli.root import app, main

__all__ = ["app", "main"]
