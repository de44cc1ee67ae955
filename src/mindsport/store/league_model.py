"""A league's rating model: a registered model (:mod:`mindsport.rating.registry`) bound to the
league's settings, speaking the store's per-player columns.

The store keeps per player ``mu``, ``sigma`` and an ``extra`` JSON object (:class:`PlayerState`).
They hold the model's replay state (:class:`mindsport.rating.replay.replayers.ArrayReplayer`'s row):
``mu`` the rating value's first field (TrueSkill's mu, Elo's, Glicko-2's and Tenhou's rating),
``sigma`` the deviation the registry names for the model (TrueSkill's sigma, Glicko-2's RD; 0
for models without one), ``extra`` the other fields the replayer keeps (Elo's games and 2400 flag,
Glicko-2's volatility, the time of the last game when drift or rating periods use it).

A whole-history model (:class:`~mindsport.rating.registry.Estimate` ``WHOLE_HISTORY``, such as
``trueskill-history``) has no replay state: its ratings are ``Rating(mu, sigma)`` values stored
as ``mu`` and ``sigma``, each player's smoothed skill at his last time step, derived from the
league's whole match log at once (:meth:`LeagueModel.history`).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from mindsport.errors import MindsportError
from mindsport.rating.registry import Display, Estimate, ModelSpec, UnknownModelError

__all__ = ["LeagueModel", "LeagueModels", "PlayerState", "VirtualPlayers"]

#: a virtual player's stored state: (mu, sigma)
VirtualState = tuple[float, float]


@runtime_checkable
class VirtualPlayers(Protocol):
    """A replayer that rates virtual players besides the players (``cardplay``: the roles'
    advantages and duplicate deal sides), from what a match adds to its teams (roles, deal,
    luck, scores). A store keeps their states per league and loads them before rating."""

    def extend(self, base: Any, extras: Sequence[Any]) -> Any:
        """``base`` (a block of the players) with the virtual players of each match; ``extras``:
        per match ``(number of teams, roles, deal, luck, scores)``."""
        ...

    def virtual_states(self) -> dict[tuple[str, ...], VirtualState]:
        """Every virtual player's state by key (its kind first)."""
        ...

    def load_virtual(self, states: Mapping[tuple[str, ...], VirtualState]) -> None:
        """Set virtual players' states before feeding."""
        ...


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player's rating as stored: ``mu``/``sigma`` plus model-specific extras (JSON)."""

    mu: float
    sigma: float
    extra: dict[str, Any] | None = None


class LeagueModel:
    """A registered model with a league's settings: conversions between its rating values, its
    replay state and the stored columns, and the predictions the store serves."""

    def __init__(self, spec: ModelSpec, params: Mapping[str, Any]) -> None:
        self.spec = spec
        self.name = spec.name
        self.params = dict(params)
        self.model = spec.build(**self.params)
        #: whether the model estimates skills from the whole history at once (no replay state)
        self.smoothed = spec.estimate is Estimate.WHOLE_HISTORY
        #: whether the model rates virtual players (:class:`VirtualPlayers`)
        self.virtual = False
        self.fields: tuple[str, ...] = ("mu", "sigma")
        self.stored: tuple[str, ...] = self.fields
        self.n_value: int = 2
        self._casts: list[type] = [float, float]
        #: a whole-history model's convergence tolerance: a stored curve is rewritten when it
        #: moves by more (0 for an online model)
        self.tolerance = 0.0
        if self.smoothed:  # a rating is its mu and sigma, no replay state
            self.tolerance = float(getattr(self.model, "tolerance", 0.0))
            prior = self.model.rating()
            self._new_row: tuple[float, ...] = (float(prior.mu), float(prior.sigma))
            self.sigma_col: int | None = 1
            self.extra_cols: tuple[int, ...] = ()
            return
        probe = self.replayer()
        for attr in ("fields", "stored", "new_state", "make", "set_state", "table"):
            if not hasattr(probe, attr):
                raise MindsportError(
                    f"model {spec.name!r}: its replayer keeps no state rows a store can hold"
                )
        self.virtual = isinstance(probe, VirtualPlayers)
        # rating values are made and taken apart by a replayer's ``make``/``unpack``, which
        # read none of its state: one replayer serves every conversion
        self._values = probe
        self.fields = probe.fields
        self.stored = probe.stored
        self.n_value = probe.n_value
        self._new_row = tuple(probe.new_state())
        dev = spec.display.deviation
        self.sigma_col = self.fields.index(dev) if dev is not None else None
        self.extra_cols = tuple(
            i for i, f in enumerate(self.stored) if i != 0 and i != self.sigma_col
        )
        new_value = probe.make(*self._new_row[: self.n_value])
        self._casts = [
            type(getattr(new_value, f)) if i < self.n_value else float
            for i, f in enumerate(self.fields)
        ]

    @property
    def display(self) -> Display:
        """How the model's ratings are shown on a leaderboard."""
        return self.spec.display

    def replayer(self) -> Any:
        """A fresh replayer of the model (its state starts empty)."""
        return self.model.replayer()

    def history(self, matches: Sequence[Any]) -> Any:
        """A whole-history model's settled graph of ``matches``
        (:class:`~mindsport.rating.through_time.SkillHistory`: ``add`` more results, read
        ``curve(player)``)."""
        if not self.smoothed:
            raise MindsportError(f"model {self.name!r} rates online: it keeps no whole history")
        return self.model.history(matches)

    # conversions -------------------------------------------------------------------------
    def row(self, state: PlayerState) -> list[float]:
        """The replay state row of a stored player."""
        row = list(self._new_row)
        row[0] = float(state.mu)
        if self.sigma_col is not None:
            row[self.sigma_col] = float(state.sigma)
        extra = state.extra or {}
        for i in self.extra_cols:
            v = extra.get(self.fields[i])
            if v is not None:
                row[i] = float(v)
        return row

    def state(self, row: Sequence[float]) -> PlayerState:
        """The stored columns of a replay state row."""
        extra = None
        if self.extra_cols:
            extra = {}
            for i in self.extra_cols:
                v = row[i]
                if not math.isnan(v):
                    extra[self.fields[i]] = self._casts[i](v)
        sigma = 0.0 if self.sigma_col is None else float(row[self.sigma_col])
        return PlayerState(float(row[0]), sigma, extra)

    def to_rating(self, state: PlayerState) -> Any:
        """The model's rating value of a stored player."""
        if self.smoothed:
            return self.model.rating(float(state.mu), float(state.sigma))
        return self._values.make(*self.row(state)[: self.n_value])

    def to_state(self, rating: Any) -> PlayerState:
        """The stored columns of a rating value (hidden state at its new-player value)."""
        if self.smoothed:
            mu, sigma = getattr(rating, "mu", None), getattr(rating, "sigma", None)
            if not isinstance(mu, float) or not isinstance(sigma, float):
                raise MindsportError(f"{rating!r} is not a rating of model {self.name!r}")
            return PlayerState(mu, sigma)
        values = self._values.unpack(rating)
        if values is None:
            raise MindsportError(f"{rating!r} is not a rating of model {self.name!r}")
        return self.state([*values, *self._new_row[self.n_value :]])

    def initial(self) -> PlayerState:
        return self.state(self._new_row)

    def exposed(self, state: PlayerState) -> float:
        """The conservative leaderboard value (the model's ``expose``)."""
        return float(self.model.expose(self.to_rating(state)))

    # operations --------------------------------------------------------------------------
    @property
    def has_roles(self) -> bool:
        """Whether the model rates roles (seats): ``cardplay``'s role advantages."""
        return self.virtual and hasattr(self.model, "role_rating")

    def role_ratings(
        self, roles: Sequence[Sequence[str]], learned: Mapping[str, VirtualState]
    ) -> list[list[Any]]:
        """Per team, the ratings of its roles: the ``learned`` advantage ``(mu, sigma)`` of a
        role the league has seen, else the model's prior for a role."""
        if not self.has_roles:
            raise MindsportError(
                f"model {self.name!r} has no roles (seats): only a model that rates roles "
                "(cardplay) takes them"
            )
        prior = self.model.role_rating()
        make = type(prior)
        return [[make(*learned[r]) if r in learned else prior for r in team] for team in roles]

    def _teams(self, teams: Sequence[Sequence[PlayerState]]) -> list[tuple[Any, ...]]:
        return [tuple(self.to_rating(s) for s in team) for team in teams]

    def _virtual(self, virtual: Sequence[Sequence[Any]] | None) -> dict[str, Any]:
        return {} if virtual is None else {"virtual": virtual}

    def win_probability(
        self,
        team_a: Sequence[PlayerState],
        team_b: Sequence[PlayerState],
        virtual: Sequence[Sequence[Any]] | None = None,
    ) -> float:
        """P(``team_a`` ahead of ``team_b``); ``virtual``: the two teams' role ratings
        (:meth:`role_ratings`; a model with roles only)."""
        a, b = self._teams([team_a, team_b])
        return float(self.model.win_probability(a, b, **self._virtual(virtual)))

    def quality(
        self,
        teams: Sequence[Sequence[PlayerState]],
        virtual: Sequence[Sequence[Any]] | None = None,
    ) -> float:
        """The model's match quality; for a model without one, the worst pair's
        ``1 - |2p - 1|`` (1 for a coin flip). ``virtual``: per team, its role ratings."""
        fn = getattr(self.model, "quality", None)
        if fn is not None:
            return float(fn(self._teams(teams), **self._virtual(virtual)))
        worst = 1.0
        for i in range(len(teams)):
            for j in range(i + 1, len(teams)):
                p = self.win_probability(teams[i], teams[j])
                worst = min(worst, 1.0 - abs(2.0 * p - 1.0))
        return worst

    def rank_probabilities(
        self,
        teams: Sequence[Sequence[PlayerState]],
        virtual: Sequence[Sequence[Any]] | None = None,
    ) -> Any:
        fn = getattr(self.model, "rank_probabilities", None)
        if fn is None:
            return None
        return fn(self._teams(teams), **self._virtual(virtual))


class LeagueModels:
    """The rating models leagues may use (``specs``, by name) and the model object of each
    league setting asked for, built once (thread-safe)."""

    def __init__(self, specs: Mapping[str, ModelSpec]) -> None:
        self.specs: Mapping[str, ModelSpec] = dict(specs)
        self._cache: dict[str, LeagueModel] = {}
        self._lock = threading.Lock()

    def model_for(self, model: str, params: Mapping[str, Any]) -> LeagueModel:
        """The (cached) model object of a league's settings; an unknown model name raises
        :class:`~mindsport.rating.registry.UnknownModelError`, bad settings the model's error."""
        key = json.dumps([model, dict(params)], sort_keys=True)
        with self._lock:
            cached = self._cache.get(key)
        if cached is None:
            spec = self.specs.get(model) if isinstance(model, str) else None
            if spec is None:
                known = ", ".join(self.specs)
                raise UnknownModelError(f"unknown model {model!r} (known: {known})")
            cached = LeagueModel(spec, params)
            with self._lock:
                self._cache[key] = cached
        return cached
