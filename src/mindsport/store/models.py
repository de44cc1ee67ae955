"""Rating models a league can use, behind one small adapter.

A league stores its model as a name plus JSON parameters (``{"model": "trueskill", "beta": 4.0}``).
:func:`build_model` turns that into a :class:`LeagueModel`, which converts between the model's own
rating values and the three columns the store keeps per player (``mu``, ``sigma``, ``extra``) and
exposes the few operations the store, the command line and the service need.

The adapters import the model modules lazily, so importing :mod:`mindsport.store` does no work.
Elo and Glicko-2 are offered when :mod:`mindsport.rating.elo` / :mod:`mindsport.rating.glicko2`
exist in this installation.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mindsport.errors import MindsportError

__all__ = [
    "MODEL_NAMES",
    "LeagueModel",
    "ModelFactory",
    "PlayerState",
    "UnknownModelError",
    "build_model",
    "default_factories",
]


class UnknownModelError(MindsportError):
    """A league names a rating model or a parameter this installation does not know."""


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player's rating as stored: ``mu``/``sigma`` plus model-specific extras (JSON)."""

    mu: float
    sigma: float
    extra: dict[str, Any] | None = None


class LeagueModel:
    """A rating model bound to its parameters, speaking :class:`PlayerState`.

    Subclasses override the conversions; the default suits any model whose ratings have ``mu``
    and ``sigma`` attributes and a ``rating(mu=..., sigma=...)`` constructor (TrueSkill).
    """

    def __init__(self, name: str, params: Mapping[str, Any], model: Any) -> None:
        self.name = name
        self.params = dict(params)
        self.model = model

    # conversions -------------------------------------------------------------------------
    def to_rating(self, state: PlayerState) -> Any:
        return self.model.rating(mu=state.mu, sigma=state.sigma)

    def to_state(self, rating: Any) -> PlayerState:
        return PlayerState(float(rating.mu), float(rating.sigma))

    def initial(self) -> PlayerState:
        return self.to_state(self.model.rating())

    def exposed(self, state: PlayerState) -> float:
        """The conservative leaderboard value (TrueSkill: mu - k*sigma)."""
        expose = getattr(self.model, "expose", None)
        if expose is not None:
            return float(expose(self.to_rating(state)))
        return state.mu - 3.0 * state.sigma

    # operations --------------------------------------------------------------------------
    def rate(
        self,
        teams: Sequence[Sequence[PlayerState]],
        ranks: Sequence[int | None],
        weights: Sequence[Sequence[float]] | None,
    ) -> list[list[PlayerState]]:
        groups = [tuple(self.to_rating(s) for s in team) for team in teams]
        kwargs: dict[str, Any] = {}
        if weights is not None:
            kwargs["weights"] = [tuple(w) for w in weights]
        new = self.model.rate(groups, ranks=list(ranks), **kwargs)
        return [[self.to_state(r) for r in team] for team in new]

    def win_probability(
        self, team_a: Sequence[PlayerState], team_b: Sequence[PlayerState]
    ) -> float:
        return float(
            self.model.win_probability(
                tuple(self.to_rating(s) for s in team_a), tuple(self.to_rating(s) for s in team_b)
            )
        )

    def quality(self, teams: Sequence[Sequence[PlayerState]]) -> float:
        fn = getattr(self.model, "quality", None)
        if fn is None:
            raise MindsportError(f"model {self.name!r} has no match quality")
        return float(fn([tuple(self.to_rating(s) for s in team) for team in teams]))

    def rank_probabilities(self, teams: Sequence[Sequence[PlayerState]]) -> Any:
        fn = getattr(self.model, "rank_probabilities", None)
        if fn is None:
            return None
        return fn([tuple(self.to_rating(s) for s in team) for team in teams])


class _EloModel(LeagueModel):
    """Elo: ``mu`` = rating, ``sigma`` = 0, games and the 2400 flag kept in ``extra``."""

    def to_rating(self, state: PlayerState) -> Any:
        extra = state.extra or {}
        return self.model.rating(
            state.mu,
            games=int(extra.get("games", 0)),
            reached_2400=bool(extra.get("reached_2400", state.mu >= 2400)),
        )

    def to_state(self, rating: Any) -> PlayerState:
        return PlayerState(
            float(rating.rating),
            0.0,
            {"games": int(rating.games), "reached_2400": bool(rating.reached_2400)},
        )

    def quality(self, teams: Sequence[Sequence[PlayerState]]) -> float:
        """Two teams: 1 - |2p - 1| (1 for a coin flip); more teams: the worst pair."""
        worst = 1.0
        for i in range(len(teams)):
            for j in range(i + 1, len(teams)):
                p = self.win_probability(teams[i], teams[j])
                worst = min(worst, 1.0 - abs(2.0 * p - 1.0))
        return worst


class _GlickoModel(_EloModel):
    """Glicko-2: ``mu`` = rating, ``sigma`` = RD, volatility kept in ``extra``."""

    def to_rating(self, state: PlayerState) -> Any:
        vol = (state.extra or {}).get("volatility")
        return self.model.rating(rating=state.mu, rd=state.sigma, volatility=vol)

    def to_state(self, rating: Any) -> PlayerState:
        return PlayerState(
            float(rating.rating), float(rating.rd), {"volatility": float(rating.volatility)}
        )


#: builds a :class:`LeagueModel` from JSON parameters
ModelFactory = Callable[[Mapping[str, Any]], LeagueModel]

MODEL_NAMES = ("trueskill", "elo", "glicko2")
_TRUESKILL_PARAMS = ("mu", "sigma", "beta", "tau", "draw_probability", "sigma_floor")


def _check_params(name: str, params: Mapping[str, Any], allowed: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in params.items():
        if key not in allowed:
            raise UnknownModelError(
                f"model {name!r} has no parameter {key!r} (known: {', '.join(allowed)})"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise UnknownModelError(f"model {name!r}: parameter {key!r} must be a number")
        if not math.isfinite(value):
            raise UnknownModelError(f"model {name!r}: parameter {key!r} must be finite")
        out[key] = float(value)
    return out


def _import(module: str, attr: str, name: str) -> Any:
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise UnknownModelError(
            f"rating model {name!r} is not available in this installation ({module})"
        ) from exc
    try:
        return getattr(mod, attr)
    except AttributeError as exc:
        raise UnknownModelError(f"rating model {name!r}: {module}.{attr} is missing") from exc


def _trueskill(params: Mapping[str, Any]) -> LeagueModel:
    p = _check_params("trueskill", params, _TRUESKILL_PARAMS)
    cls = _import("mindsport.rating.trueskill", "TrueSkill", "trueskill")
    try:
        model = cls(**p)
    except (TypeError, ValueError) as exc:
        raise UnknownModelError(f"model 'trueskill': bad parameters {p}: {exc}") from exc
    return LeagueModel("trueskill", p, model)


def _elo(params: Mapping[str, Any]) -> LeagueModel:
    cls = _import("mindsport.rating.elo", "Elo", "elo")
    try:
        model = cls(**dict(params))
    except (TypeError, ValueError) as exc:
        raise UnknownModelError(f"model 'elo': bad parameters {dict(params)}: {exc}") from exc
    return _EloModel("elo", params, model)


def _glicko2(params: Mapping[str, Any]) -> LeagueModel:
    cls = _import("mindsport.rating.glicko2", "Glicko2", "glicko2")
    try:
        model = cls(**dict(params))
    except (TypeError, ValueError) as exc:
        raise UnknownModelError(f"model 'glicko2': bad parameters {dict(params)}: {exc}") from exc
    return _GlickoModel("glicko2", params, model)


def default_factories() -> dict[str, ModelFactory]:
    """The models every store knows (a fresh dict: callers may add their own)."""
    return {"trueskill": _trueskill, "elo": _elo, "glicko2": _glicko2}


def build_model(
    name: str,
    params: Mapping[str, Any],
    factories: Mapping[str, ModelFactory] | None = None,
) -> LeagueModel:
    """The league model called ``name`` with ``params``; unknown names raise a clear error."""
    table = default_factories() if factories is None else factories
    factory = table.get(name)
    if factory is None:
        raise UnknownModelError(
            f"unknown rating model {name!r} (known: {', '.join(sorted(table))})"
        )
    return factory(params)
