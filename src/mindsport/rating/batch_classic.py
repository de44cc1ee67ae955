"""Elo, Glicko-2 and Tenhou R over arrays: the compiled replay of :mod:`.kernels_classic`.

Like :class:`mindsport.rating.batch.BatchTrueSkill`: feed :class:`~mindsport.rating.batch.
MatchBlock`s in time order, the rating state (arrays indexed by player) is carried forward, and
the result equals calling the object model's ``rate`` match by match (tested to 1e-9).
``feed`` returns the pre-game state per player slot, ``feed_full`` the pre- and post-game state;
``ratings(index)`` returns the model's own rating values.

What is compiled (:func:`compiled_model`): :class:`~mindsport.rating.elo.Elo` with a constant
K or a :class:`~mindsport.rating.elo.FideK` schedule (any other callable K is not), every
``team_strength``/``multi_team``, weights and unranked teams; :class:`~mindsport.rating.glicko2.
Glicko2` (one game = one rating period, ``max_rd``, ``period`` with elapsed times);
:class:`~mindsport.rating.tenhou.TenhouRating`. Subclasses are not compiled.

>>> from mindsport.history import Match
>>> from mindsport.rating.batch import PlayerIndex, encode_matches
>>> index = PlayerIndex()
>>> block = encode_matches([Match("m1", 0, [["a"], ["b"]], [0, 1])], index)
>>> replayer = BatchElo(Elo(k=32))
>>> _ = replayer.feed(block)
>>> replayer.ratings(index)["a"]
EloRating(rating=1516.0, games=1, reached_2400=False)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mindsport.rating.batch import BatchInputError, MatchBlock, PlayerIndex
from mindsport.rating.elo import Elo, EloRating, FideK
from mindsport.rating.glicko2 import SCALE, Glicko2, Glicko2Rating
from mindsport.rating.tenhou import TenhouR, TenhouRating

__all__ = [
    "BatchElo",
    "BatchGlicko2",
    "BatchTenhou",
    "compiled_model",
    "logistic10_array",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
Arrays = tuple[NDArray[Any], ...]


def compiled_model(model: object) -> bool:
    """Whether :func:`mindsport.history.replay` can replay ``model`` with a kernel here."""
    t = type(model)
    if t is Elo:
        k = model.k  # type: ignore[attr-defined]
        if callable(k):
            return type(k) is FideK
        return isinstance(k, int | float) and not isinstance(k, bool)
    return t is Glicko2 or t is TenhouRating


def logistic10_array(x: F64) -> F64:
    """:func:`mindsport.rating.elo.logistic10` elementwise."""
    z = x * math.log(10.0)
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _check_structure(block: MatchBlock) -> None:
    """The shape checks every model needs (weights and times are the models' business)."""
    if np.any(np.diff(block.team_ptr) < 2):
        bad = int(np.flatnonzero(np.diff(block.team_ptr) < 2)[0])
        raise BatchInputError(f"match {bad} of the block has fewer than two teams")
    if np.any(np.diff(block.player_ptr) < 1):
        raise BatchInputError("a team of the block has no players")
    if np.any(~np.isfinite(block.weights)) or np.any((block.weights < 0) | (block.weights > 1)):
        raise BatchInputError("weights must lie in [0, 1]")
    ranked = np.add.reduceat(np.isfinite(block.ranks).astype(np.int64), block.team_ptr[:-1])
    if np.any(ranked == 0):
        raise BatchInputError("a match of the block has no ranked team")


def _singles_only(block: MatchBlock, model: str, ranked: bool) -> None:
    if np.any(np.diff(block.player_ptr) != 1):
        raise BatchInputError(f"{model} rates individual players only: teams of one player")
    if np.any(block.weights != 1):
        raise BatchInputError(f"{model} has no partial play: weights must be 1")
    if ranked and np.any(np.isnan(block.ranks)):
        raise BatchInputError(f"{model} needs every player ranked")


class _Batch:
    """State arrays indexed by player, grown on demand; rating values in and out."""

    #: name and dtype of each state array, in the order of the kernel's arguments
    fields: ClassVar[tuple[tuple[str, type], ...]] = ()

    def __init__(self, capacity: int) -> None:
        new = self._new_values()
        self.state: list[NDArray[Any]] = [
            np.full(capacity, v, dtype=dt) for v, (_, dt) in zip(new, self.fields, strict=True)
        ]

    def _new_values(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _value(self, values: tuple[Any, ...]) -> Any:
        raise NotImplementedError

    def _unpack(self, rating: Any) -> tuple[Any, ...]:
        raise NotImplementedError

    def _grow(self, n_players: int) -> None:
        cap = len(self.state[0])
        if n_players <= cap:
            return
        new = max(n_players, 2 * cap)
        self.state = [
            np.concatenate([a, np.full(new - cap, v, dtype=a.dtype)])
            for a, v in zip(self.state, self._new_values(), strict=True)
        ]

    def _slots(self, n: int) -> tuple[Arrays, Arrays]:
        pre: Arrays = tuple(np.empty(n, dtype=dt) for _, dt in self.fields)
        post: Arrays = tuple(np.empty(n, dtype=dt) for _, dt in self.fields)
        return pre, post

    def feed(self, block: MatchBlock) -> Arrays:
        """Rate every match of ``block``; return the pre-game state per player slot."""
        pre, _ = self.feed_full(block)
        return pre

    def feed_full(self, block: MatchBlock) -> tuple[Arrays, Arrays]:
        """Rate every match of ``block``; return the pre- and post-game state per slot.

        Each is a tuple of arrays, one per state field (see ``fields``).
        """
        pre, post = self._slots(len(block.players))
        if len(block) == 0:
            return pre, post
        _check_structure(block)
        self._check(block)
        self._grow(int(block.players.max()) + 1)
        self._run(block, pre, post)
        return pre, post

    def _check(self, block: MatchBlock) -> None:
        pass

    def _run(self, block: MatchBlock, pre: Arrays, post: Arrays) -> None:
        raise NotImplementedError

    def value_from(self, *values: Any) -> Any:
        """The rating value of one slot's state (one value per field)."""
        return self._value(values)

    def value_at(self, arrays: Arrays, s: int) -> Any:
        """The rating value held in per-slot ``arrays`` (from ``feed_full``) at slot ``s``."""
        return self._value(tuple(a[s].item() for a in arrays))

    def set_rating(self, i: int, rating: Any) -> None:
        """Start player ``i`` from ``rating`` (e.g. a rating known before the history)."""
        self._grow(i + 1)
        for a, v in zip(self.state, self._unpack(rating), strict=True):
            a[i] = v

    def rating_of(self, i: int) -> Any:
        """Rating of the player with index ``i``."""
        if i >= len(self.state[0]):
            return self._value(self._new_values())
        return self._value(tuple(a[i].item() for a in self.state))

    def ratings(self, index: PlayerIndex) -> dict[str, Any]:
        """Every indexed player's current rating."""
        return {p: self.rating_of(i) for i, p in enumerate(index.ids)}

    def pair_probabilities(self, block: MatchBlock, pre: Arrays, a: I64, b: I64) -> F64:
        """The model's ``win_probability`` of team ``a`` over team ``b`` (team indices of
        ``block``) from pre-game slot values ``pre``."""
        raise NotImplementedError


class BatchElo(_Batch):
    """Elo over arrays ``rating``, ``games``, ``reached_2400``."""

    fields = (("rating", np.float64), ("games", np.int64), ("reached_2400", np.bool_))

    def __init__(self, model: Elo, capacity: int = 1024) -> None:
        if not compiled_model(model):
            raise BatchInputError(f"no compiled Elo for {model!r} (K must be a number or FideK)")
        self.model = model
        super().__init__(capacity)

    def _new_values(self) -> tuple[Any, ...]:
        r = self.model.rating()
        return (r.rating, r.games, r.reached_2400)

    def _value(self, values: tuple[Any, ...]) -> EloRating:
        return EloRating(float(values[0]), int(values[1]), bool(values[2]))

    def _unpack(self, rating: Any) -> tuple[Any, ...]:
        return (rating.rating, rating.games, rating.reached_2400)

    def _run(self, block: MatchBlock, pre: Arrays, post: Arrays) -> None:
        from mindsport.rating.kernels_classic import replay_elo

        kernel: Any = replay_elo  # star-arguments: numba's stub types can't follow them

        m = self.model
        k = m.k
        if isinstance(k, FideK):
            k_mode, k_const = 1, 0.0
            fide = np.array([k.new_k, k.new_games, k.k, k.top_k, k.threshold], dtype=np.float64)
        else:
            k_mode, k_const = 0, float(k)  # type: ignore[arg-type]
            fide = np.zeros(5)
        kernel(
            *self.state,
            block.team_ptr,
            block.player_ptr,
            block.players,
            block.weights,
            block.ranks,
            k_mode,
            k_const,
            fide,
            float(m.scale),
            m.team_strength == "sum",
            m.multi_team == "sum",
            *pre,
            *post,
        )

    def pair_probabilities(self, block: MatchBlock, pre: Arrays, a: I64, b: I64) -> F64:
        if len(a) == 0:
            return np.zeros(0)
        starts = block.player_ptr[:-1]
        strength = np.add.reduceat(pre[0], starts)
        if self.model.team_strength != "sum":
            strength = strength / np.diff(block.player_ptr).astype(np.float64)
        return logistic10_array((strength[a] - strength[b]) / self.model.scale)


class BatchTenhou(_Batch):
    """Tenhou R over arrays ``rating``, ``games`` (one player per team, every team ranked)."""

    fields = (("rating", np.float64), ("games", np.int64))

    def __init__(self, model: TenhouRating, capacity: int = 1024) -> None:
        if not compiled_model(model):
            raise BatchInputError(f"no compiled Tenhou R for {model!r} (a subclass?)")
        self.model = model
        self._bonus = np.zeros((0, 0))
        super().__init__(capacity)

    def _new_values(self) -> tuple[Any, ...]:
        r = self.model.rating()
        return (r.rating, r.games)

    def _value(self, values: tuple[Any, ...]) -> TenhouR:
        return TenhouR(float(values[0]), int(values[1]))

    def _unpack(self, rating: Any) -> tuple[Any, ...]:
        return (rating.rating, rating.games)

    def _check(self, block: MatchBlock) -> None:
        _singles_only(block, "TenhouRating", ranked=True)

    def _bonus_table(self, max_n: int) -> F64:
        if self._bonus.shape[0] <= max_n:
            size = max(max_n + 1, 9)
            tab = np.zeros((size, size))
            for n in range(2, size):
                for place in range(1, n + 1):
                    tab[n, place] = self.model.bonus(place, n)
            self._bonus = tab
        return self._bonus

    def _run(self, block: MatchBlock, pre: Arrays, post: Arrays) -> None:
        from mindsport.rating.kernels_classic import replay_tenhou

        kernel: Any = replay_tenhou  # star-arguments: numba's stub types can't follow them

        m = self.model
        kernel(
            *self.state,
            block.team_ptr,
            block.player_ptr,
            block.players,
            block.ranks,
            self._bonus_table(int(np.diff(block.team_ptr).max())),
            float(m.divisor),
            float(m.adjust_games),
            float(m.adjust_step),
            float(m.adjust_floor),
            *pre,
            *post,
        )

    def pair_probabilities(self, block: MatchBlock, pre: Arrays, a: I64, b: I64) -> F64:
        if len(a) == 0:
            return np.zeros(0)
        r = pre[0][block.player_ptr[:-1]]
        return logistic10_array((r[a] - r[b]) / self.model.prob_scale)


class BatchGlicko2(_Batch):
    """Glicko-2 over arrays ``rating``, ``rd``, ``volatility`` (Glicko scale), one player per
    team, one game = one rating period.

    With the model's ``period`` set, ``feed`` takes the block's ``times`` and ``units`` (one
    per match; elapsed time is ``(time - previous time) / unit``) and applies idle periods as
    :func:`mindsport.history.replay` does by passing ``elapsed`` to :meth:`Glicko2.rate`.
    """

    fields = (("rating", np.float64), ("rd", np.float64), ("volatility", np.float64))

    def __init__(self, model: Glicko2, capacity: int = 1024) -> None:
        if not compiled_model(model):
            raise BatchInputError(f"no compiled Glicko-2 for {model!r} (a subclass?)")
        self.model = model
        super().__init__(capacity)
        self.last_time = np.full(capacity, np.nan)
        self.units: F64 | None = None

    def _new_values(self) -> tuple[Any, ...]:
        r = self.model.rating()
        return (r.rating, r.rd, r.volatility)

    def _value(self, values: tuple[Any, ...]) -> Glicko2Rating:
        return Glicko2Rating(float(values[0]), float(values[1]), float(values[2]))

    def _unpack(self, rating: Any) -> tuple[Any, ...]:
        return (rating.rating, rating.rd, rating.volatility)

    def _grow(self, n_players: int) -> None:
        cap = len(self.state[0])
        super()._grow(n_players)
        new = len(self.state[0])
        if new > cap:
            self.last_time = np.concatenate([self.last_time, np.full(new - cap, np.nan)])

    def _check(self, block: MatchBlock) -> None:
        _singles_only(block, "Glicko2", ranked=False)
        if self.model.period is not None and np.any(~np.isfinite(block.times)):
            raise BatchInputError("match times must be finite numbers")

    def feed_with_units(self, block: MatchBlock, units: F64 | None) -> tuple[Arrays, Arrays]:
        """:meth:`feed_full` with the time unit of each match (default 1)."""
        self.units = units
        try:
            return self.feed_full(block)
        finally:
            self.units = None

    def _run(self, block: MatchBlock, pre: Arrays, post: Arrays) -> None:
        from mindsport.rating.kernels_classic import replay_glicko2

        kernel: Any = replay_glicko2  # star-arguments: numba's stub types can't follow them

        m = self.model
        units = self.units if self.units is not None else np.ones(len(block))
        kernel(
            *self.state,
            self.last_time,
            block.team_ptr,
            block.player_ptr,
            block.players,
            block.ranks,
            block.times,
            np.asarray(units, dtype=np.float64),
            float(m.tau),
            float(m.epsilon),
            math.inf if m.max_rd is None else m.max_rd / SCALE,
            0.0 if m.period is None else float(m.period),
            2.0,
            *pre,
            *post,
        )

    def pair_probabilities(self, block: MatchBlock, pre: Arrays, a: I64, b: I64) -> F64:
        if len(a) == 0:
            return np.zeros(0)
        s = block.player_ptr[:-1]
        mu = (pre[0][s] - 1500.0) / SCALE
        phi = pre[1][s] / SCALE
        h = np.hypot(phi[a], phi[b])
        g = 1.0 / np.sqrt(1.0 + 3.0 * h * h / (math.pi * math.pi))
        x = g * (mu[a] - mu[b])
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
