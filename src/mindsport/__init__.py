"""mindsport: ratings, fair tournaments, simulation and hidden-information inference.

>>> import mindsport as ms
>>> env = ms.TrueSkill()
>>> [(winner,), (loser,)] = env.rate([(env.rating(),), (env.rating(),)])
>>> winner.mu > 25 > loser.mu
True
"""

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from mindsport.errors import ConflictError, InternalError, MindsportError, NotFoundError

if TYPE_CHECKING:
    from mindsport.match import Match
    from mindsport.rating import (
        Elo,
        EloRating,
        FideK,
        Glicko2,
        Glicko2Rating,
        PairwiseTrueSkill,
        Rating,
        TenhouRating,
        TrueSkill,
        TrueSkillThroughTime,
    )


class _LazyPackage(types.ModuleType):
    """A package whose exports (``_EXPORTS``: name -> module) are imported on first use."""

    def __getattr__(self, name: str) -> Any:
        module = self.__dict__.get("_EXPORTS", {}).get(name)
        if module is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __setattr__(self, name: str, value: Any) -> None:
        # importing a submodule binds it to the package's attribute of its name; an export of
        # that name (the function ``deal`` of the module ``deal``) keeps the name, as it did
        # when packages imported their exports up front
        if (
            isinstance(value, types.ModuleType)
            and name in self.__dict__.get("_EXPORTS", {})
            and value.__name__ == f"{self.__name__}.{name}"
        ):
            return
        super().__setattr__(name, value)


def lazy_exports(package: str, exports: dict[str, str]) -> None:
    """Make the package ``package`` import its exports (name -> module) on first use, so that
    importing it (e.g. for the command line) loads no NumPy, engine or database layer."""
    module = sys.modules[package]
    module.__dict__["_EXPORTS"] = exports
    module.__class__ = _LazyPackage


lazy_exports(
    __name__,
    {
        "Match": "mindsport.match",
        **{
            name: "mindsport.rating"
            for name in (
                "Elo",
                "EloRating",
                "FideK",
                "Glicko2",
                "Glicko2Rating",
                "PairwiseTrueSkill",
                "Rating",
                "TenhouRating",
                "TrueSkill",
                "TrueSkillThroughTime",
            )
        },
    },
)

__version__ = "0.1.0"

__all__ = [
    "ConflictError",
    "Elo",
    "EloRating",
    "FideK",
    "Glicko2",
    "Glicko2Rating",
    "InternalError",
    "Match",
    "MindsportError",
    "NotFoundError",
    "PairwiseTrueSkill",
    "Rating",
    "TenhouRating",
    "TrueSkill",
    "TrueSkillThroughTime",
    "__version__",
]
