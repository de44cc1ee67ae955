"""The rating models by name: one registry that the command line, the store, the service,
``fit`` and ``evaluate`` all read.

Each :class:`ModelSpec` says what a model is called, which class builds it and which value type
its ratings have, its settings (:class:`~mindsport.rating.params.Param`: name, kind, default,
allowed range, help), the grid :func:`mindsport.history.fit` searches by default, and how a
rating is shown on a leaderboard (:class:`Display`: the value, the deviation if there is one,
and the conservative value the board is sorted by).

Each spec also says how the model estimates skills (:class:`Estimate`): **online** models update
ratings match by match (replayed one match ahead; store leagues keep them current), a
**whole-history** model estimates every player's skill through time from all the games at once
(:class:`~mindsport.rating.through_time.model.TrueSkillThroughTime`; ``fit`` and ``evaluate`` refit
it before each block of matches, see :mod:`mindsport.history.rolling`).

A model added to :data:`MODELS` appears everywhere: ``mindsport leagues create --model``,
``mindsport evaluate --models``, ``fit("name", ...)``, store leagues and the service. Its class
provides the model protocol (``rating``, ``rate``, ``win_probability``, ``expose``) and, for a
fast replay, a ``replayer()`` (:mod:`mindsport.rating.replay.replayers`).

>>> sorted(MODELS)  # doctest: +NORMALIZE_WHITESPACE
['cardplay', 'elo', 'fide', 'glicko2', 'pairwise', 'tenhou', 'tenhou-dan', 'trueskill',
 'trueskill-history']
>>> model_names(Estimate.WHOLE_HISTORY)
('trueskill-history',)
>>> build_model("glicko2", tau=0.3, period=7)
Glicko2(tau=0.3, ..., period=7.0)
>>> try:
...     build_model("trueskill", beta=-1)
... except ParameterError as exc:
...     print(exc)
model 'trueskill': beta must be a number in [0.001, 1e+06], got -1
>>> MODELS["trueskill"].display.conservative
'mu - 3 sigma'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any

from mindsport.rating.elo import model as elo
from mindsport.rating.glicko2 import model as glicko2
from mindsport.rating.params import Param, ParameterError
from mindsport.rating.rating import Rating
from mindsport.rating.tenhou import model as tenhou
from mindsport.rating.tenhou_dan import ladder as tenhou_ladder
from mindsport.rating.tenhou_dan import model as tenhou_dan
from mindsport.rating.through_time import model as through_time
from mindsport.rating.trueskill import cardplay, pairwise
from mindsport.rating.trueskill import model as trueskill

__all__ = [
    "MODELS",
    "Display",
    "Estimate",
    "ModelSpec",
    "UnknownModelError",
    "build_model",
    "default_grid",
    "get_spec",
    "model_names",
]


class UnknownModelError(ParameterError):
    """A rating model, or a setting of one, is not known by that name."""


class Estimate(Enum):
    """How a model estimates skills (see the module docstring)."""

    ONLINE = "online"
    WHOLE_HISTORY = "whole history"


@dataclass(frozen=True)
class Display:
    """How a rating is shown on a leaderboard.

    ``value``/``deviation``: the rating value's field shown as the skill and the one shown as
    its uncertainty (None: the model has none), with their labels; ``conservative``: the label
    of the value the board is sorted by (the model's ``expose``).
    """

    value: str
    value_label: str
    deviation: str | None
    deviation_label: str | None
    conservative: str
    #: the names of a ladder's levels, lowest first, when the value the board is sorted by is
    #: a position on a ladder whose whole part is the level (the Tenhou dan ladder); None for
    #: a rating shown as a number
    levels: tuple[str, ...] | None = None

    def shown(self, exposed: float) -> str:
        """The value the board is sorted by as the board shows it: the level's name on a
        ladder, else the number (two decimals).

        >>> MODELS["tenhou-dan"].display.shown(13.53), MODELS["elo"].display.shown(1512.345)
        ('四段', '1512.35')
        """
        if self.levels is None or not math.isfinite(exposed):
            return f"{exposed:.2f}"
        return self.levels[min(max(math.floor(exposed), 0), len(self.levels) - 1)]


@dataclass(frozen=True)
class ModelSpec:
    """A registered rating model (see the module docstring)."""

    name: str
    title: str
    cls: type
    value_type: type
    params: tuple[Param, ...]
    grid: Mapping[str, tuple[Any, ...]]
    display: Display
    summary: str
    #: builds the model from its settings (default: the class itself)
    factory: Callable[..., Any] | None = field(default=None, compare=False)
    #: updated match by match, or estimated from the whole history at once
    estimate: Estimate = Estimate.ONLINE

    def param(self, name: str) -> Param:
        """The setting ``name`` (else :class:`UnknownModelError` naming the known ones)."""
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params)
        raise UnknownModelError(f"model {self.name!r} has no parameter {name!r} (known: {known})")

    def check(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Settings given by name, checked and in their own types (``3.0`` -> ``3`` for an
        integer): a :class:`~mindsport.rating.params.ParameterError` names the parameter, the
        value and the allowed values."""
        out: dict[str, Any] = {}
        for name, value in params.items():
            p = self.param(name)
            v = p.normalise(value)
            if not p.ok(v):  # the value named as it was given
                raise ParameterError(
                    f"model {self.name!r}: {name} must be {p.allowed()}, got {value!r}"
                )
            out[name] = v
        return out

    def parse(self, name: str, text: str) -> Any:
        """A setting written as text on a command line, in its own type (checked later)."""
        return self.param(name).parse(text)

    def build(self, **params: Any) -> Any:
        """The model with these settings (others at their defaults)."""
        checked = self.check(params)
        make = self.factory if self.factory is not None else self.cls
        try:
            return make(**checked)
        except TypeError as exc:  # pragma: no cover - every parameter was checked above
            raise ParameterError(f"model {self.name!r}: {exc}") from None


def _fide(
    *,
    new_k: float = 40.0,
    new_games: int = 30,
    regular_k: float = 20.0,
    top_k: float = 10.0,
    threshold: float = 2400.0,
    **rest: Any,
) -> elo.Elo:
    return elo.Elo(k=elo.FideK(new_k, new_games, regular_k, top_k, threshold), **rest)


_GAUSSIAN = Display("mu", "mu", "sigma", "sigma", "mu - 3 sigma")

_SPECS = (
    ModelSpec(
        "trueskill",
        "TrueSkill",
        trueskill.TrueSkill,
        Rating,
        trueskill.PARAMS,
        {
            "beta": (2.0, 3.0, 25 / 6, 6.0, 9.0, 13.0, 18.0),
            "tau": (0.0, 0.04, 25 / 300, 0.2, 0.4, 0.7, 1.0),
            "draw_probability": (0.0, 0.1, 0.2, 0.3, 0.45),
        },
        _GAUSSIAN,
        "Bayesian skill by message passing on a factor graph (teams, ties, partial play)",
    ),
    ModelSpec(
        "elo",
        "Elo",
        elo.Elo,
        elo.EloRating,
        elo.PARAMS,
        {"k": (4.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0)},
        Display("rating", "rating", None, None, "rating"),
        "Elo with a constant K",
    ),
    ModelSpec(
        "fide",
        "Elo (FIDE K)",
        elo.Elo,
        elo.EloRating,
        tuple(p for p in elo.PARAMS if p.name != "k") + elo.FIDE_PARAMS,
        {},
        Display("rating", "rating", None, None, "rating"),
        "Elo with the FIDE K schedule (40 for new players, 20, 10 from 2400)",
        factory=_fide,
    ),
    ModelSpec(
        "glicko2",
        "Glicko-2",
        glicko2.Glicko2,
        glicko2.Glicko2Rating,
        glicko2.PARAMS,
        {
            "tau": (0.1, 0.2, 0.5, 0.8, 1.2, 1.8),
            "initial_rd": (100.0, 150.0, 250.0, 350.0, 500.0),
        },
        Display("rating", "rating", "rd", "RD", "rating - 2 RD"),
        "Glicko-2 (one game one rating period, or rating periods of a given length)",
    ),
    ModelSpec(
        "tenhou",
        "Tenhou R",
        tenhou.TenhouRating,
        tenhou.TenhouR,
        tenhou.PARAMS,
        {"prob_scale": (300.0, 450.0, 600.0, 900.0, 1300.0, 1900.0, 2763.0, 4000.0)},
        Display("rating", "R", None, None, "R"),
        "the Tenhou mahjong server's rating (placement bonus and table average)",
    ),
    ModelSpec(
        "pairwise",
        "Pairwise TrueSkill",
        pairwise.PairwiseTrueSkill,
        Rating,
        pairwise.PARAMS,
        {
            "beta": (25 / 6, 9.0, 14.0, 20.0, 30.0, 45.0),
            "tau": (0.0, 0.04, 25 / 300, 0.2),
            "draw_probability": (0.0, 0.1, 0.2, 0.3),
        },
        _GAUSSIAN,
        "the naive every-pair-repeated TrueSkill update (a baseline)",
    ),
    ModelSpec(
        "cardplay",
        "TrueSkill with roles and deal luck",
        cardplay.CardPlay,
        Rating,
        cardplay.PARAMS,
        {
            "beta": (2.0, 25 / 6, 6.0, 9.0),
            "role_sigma": (2.0, 25 / 6, 8.0),
            "luck_scale": (0.0, 3.0, 25 / 6 * 3**0.5, 12.0),
            "draw_probability": (0.0, 0.1, 0.2, 0.3, 0.45),
        },
        _GAUSSIAN,
        "TrueSkill with learned role (seat) advantages, deal luck as a known offset, "
        "duplicate deals compared across tables and score margins (on data without roles, "
        "deals or luck: TrueSkill with score margins)",
    ),
    ModelSpec(
        "trueskill-history",
        "Whole-history TrueSkill",
        through_time.TrueSkillThroughTime,
        Rating,
        through_time.PARAMS,
        {
            "sigma": (2.0, 4.0, 6.0, 25 / 3),
            "beta": (2.0, 3.0, 25 / 6, 6.0, 9.0, 13.0),
            "drift": (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5),
            "draw_probability": (0.0, 0.1, 0.2, 0.3),
        },
        _GAUSSIAN,
        "TrueSkill Through Time: each player's skill a chain through time, smoothed over all games",
        estimate=Estimate.WHOLE_HISTORY,
    ),
    ModelSpec(
        "tenhou-dan",
        "Tenhou dan ladder",
        tenhou_dan.TenhouDanLadder,
        tenhou_dan.TenhouDan,
        tenhou_dan.PARAMS,
        {"prob_scale": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)},
        Display("points", "pt", None, None, "dan", levels=tenhou_ladder.LEVEL_NAMES),
        "the Tenhou mahjong server's dan ladder (段位): points per place by room and game "
        "length, promotion and demotion (four-player tables)",
    ),
)

#: every registered model by name
MODELS: Mapping[str, ModelSpec] = MappingProxyType({s.name: s for s in _SPECS})


def model_names(estimate: Estimate | None = None) -> tuple[str, ...]:
    """The registered model names, in registration order (only those that estimate skills as
    ``estimate`` says, if given)."""
    return tuple(n for n, s in MODELS.items() if estimate is None or s.estimate is estimate)


def get_spec(name: str) -> ModelSpec:
    """The model registered as ``name`` (case and surrounding blanks ignored)."""
    if not isinstance(name, str):
        raise UnknownModelError(f"a model name is a string, got {name!r}")
    spec = MODELS.get(name.strip().lower())
    if spec is None:
        raise UnknownModelError(f"unknown model {name!r} (known: {', '.join(model_names())})")
    return spec


def build_model(name: str, **params: Any) -> Any:
    """The model registered as ``name`` with the given settings, checked against its spec."""
    return get_spec(name).build(**params)


def default_grid(factory: Any) -> dict[str, tuple[Any, ...]]:
    """The default fitting grid of a model name or of a registered model class."""
    if isinstance(factory, str):
        return dict(get_spec(factory).grid)
    for spec in MODELS.values():
        if spec.cls is factory and spec.factory is None:
            return dict(spec.grid)
    raise ParameterError(f"no default grid for {factory!r}: pass grid={{setting: values}}")
