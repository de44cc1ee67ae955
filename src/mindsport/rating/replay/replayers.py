"""Replaying many matches through a model: the replayer protocol and its implementations.

A *replayer* keeps every player's rating state in arrays indexed by player
(:class:`~mindsport.rating.replay.blocks.PlayerIndex`) and rates blocks of matches
(:class:`~mindsport.rating.replay.blocks.MatchBlock`) in order, carrying the state forward. For each
block it returns a :class:`Fed`: the state of every player slot after its match (when history is
kept) and the pre-game prediction of every pair of teams whose order the result decides (when
predictions are wanted). The replay engine (:func:`mindsport.history.replay`) and the store drive
replayers; they never look at the model's class.

A model provides its replayer with a ``replayer()`` method. The built-in models return a
compiled one (:class:`ArrayReplayer` subclasses running the model's own compiled update, so the
numbers are those of ``model.rate`` match by match); :class:`ObjectReplayer` calls
``model.rate`` match by match and serves every other model (any object with ``rating``,
``rate`` and ``win_probability``). A new kind of model (say one that smooths past ratings with
all later games) brings its own replayer: it may keep whatever state it needs, and
:meth:`Replayer.finish` lets it revise the per-slot history once every block was fed.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.match import Match, pair_outcome
from mindsport.rating.replay.blocks import BatchInputError, MatchBlock, PlayerIndex, encode_matches

__all__ = [
    "ArrayReplayer",
    "Fed",
    "ObjectReplayer",
    "Outputs",
    "Replayer",
    "block_kernels",
    "compiled_unless_changed",
    "pair_forecast",
    "pair_probability",
    "refusal",
    "refuse_teams",
    "replayer_for",
    "with_match_index",
]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


@functools.cache
def block_kernels() -> Any:
    """:mod:`mindsport.rating.replay.block_kernel` (numba is loaded on first use)."""
    from mindsport.rating.replay import block_kernel

    return block_kernel


@dataclass(frozen=True)
class Fed:
    """What a block of matches produced.

    ``post``: per player slot, the state after the match, in the replayer's layout (None when
    history is not kept). ``pair_ptr[i]:pair_ptr[i+1]`` (None without predictions) are match
    ``i``'s decided pairs of teams ``pair_a < pair_b`` (indices within the match), ``prob`` the
    pre-game probability that ``pair_a`` finishes ahead (draws taken out), ``outcome`` 1, 0.5
    or 0 as it finished, ``draw`` the pre-game probability of a draw (NaN: the model predicts
    no draw probability of its own, e.g. Elo's expected score).
    """

    post: NDArray[Any] | None
    pair_ptr: I64 | None
    pair_a: NDArray[np.int32]
    pair_b: NDArray[np.int32]
    prob: F64
    outcome: F64
    draw: F64


class Outputs(NamedTuple):
    """What a compiled replay writes, by name: per player slot the state after its match
    (``post``, with ``keep``), per decided pair of teams (with ``predict``) the teams, the
    pre-game probability, the outcome and the draw probability (see :class:`Fed`; a kernel of a
    model without draws leaves ``draw`` NaN)."""

    post: NDArray[np.float64]
    pair_a: NDArray[np.int32]
    pair_b: NDArray[np.int32]
    prob: F64
    outcome: F64
    draw: F64


@runtime_checkable
class Replayer(Protocol):
    """What the replay engine and the store need from a model's replayer."""

    #: names of the per-player state columns (the value's fields first)
    fields: tuple[str, ...]
    #: False for :class:`ObjectReplayer` (``model.rate`` match by match)
    compiled: bool

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` can start a player (an initial rating)."""
        ...

    def set_value(self, i: int, value: Any) -> None:
        """Start player ``i`` from the rating ``value``."""
        ...

    def value(self, i: int) -> Any:
        """Player ``i``'s current rating (the model's value type)."""
        ...

    def feed(self, block: MatchBlock, *, predict: bool, keep: bool) -> Fed:
        """Rate every match of ``block`` in order (errors carry the match's ``match_index``)."""
        ...

    def values(self, post: NDArray[Any], start: int, stop: int) -> list[Any]:
        """The rating values held in the per-slot ``post`` of a :class:`Fed` at slots
        ``start:stop``."""
        ...

    def encode(
        self, matches: list[Match], index: PlayerIndex, time_unit: float | None
    ) -> MatchBlock:
        """A chunk of matches as a block (a replayer needing more inputs per match, say a role
        per player, encodes them here into its own kind of block)."""
        ...

    def finish(self, fed: list[Fed]) -> list[Fed]:
        """Called once after the last block with everything fed; may revise it."""
        ...


def pair_probability(model: Any, team_a: Any, team_b: Any) -> float:
    """Probability that ``team_a`` finishes ahead of ``team_b``, draws excluded.

    Uses ``model.outcome_probabilities`` (win, draw, loss) when the model has it, normalising
    away the draw; otherwise ``model.win_probability``.
    """
    return pair_forecast(model, team_a, team_b)[0]


def pair_forecast(model: Any, team_a: Any, team_b: Any) -> tuple[float, float]:
    """:func:`pair_probability` and the probability of a draw (NaN when the model has no
    ``outcome_probabilities``)."""
    op = getattr(model, "outcome_probabilities", None)
    if op is not None:
        win, draw, loss = op(team_a, team_b)
        s = win + loss
        return (0.5 if s <= 0 else win / s), float(draw)
    return float(model.win_probability(team_a, team_b)), math.nan


def _rank(x: float) -> float | int | None:
    """A block rank as the model's ``rate`` would have been given it."""
    if math.isnan(x):
        return None
    return int(x) if x.is_integer() else x


E = TypeVar("E", bound=Exception)


def with_match_index(exc: E, k: int) -> E:
    exc.match_index = k  # type: ignore[attr-defined]
    return exc


def _accepts_elapsed(model: Any) -> bool:
    """Whether ``model.rate`` takes elapsed times and uses them (drift, rating periods)."""
    try:
        sig = inspect.signature(model.rate)
    except (TypeError, ValueError):
        return False
    return (
        "elapsed" in sig.parameters
        and bool(getattr(model, "drift", True))
        and getattr(model, "period", True) is not None
    )


def refusal(model: Any, block: MatchBlock, k: int, predict: bool, elapsed: bool) -> MindsportError:
    """The error ``model.rate`` (and before it the predictions, as the replay makes them)
    raises for match ``k`` of the block: shape errors do not depend on rating values, so the
    match is put to the model with new players' ratings."""
    t0, t1 = int(block.team_ptr[k]), int(block.team_ptr[k + 1])
    teams = [
        tuple(model.rating() for _ in range(block.player_ptr[t], block.player_ptr[t + 1]))
        for t in range(t0, t1)
    ]
    ranks = [_rank(float(r)) for r in block.ranks[t0:t1]]
    w = [
        tuple(block.weights[block.player_ptr[t] : block.player_ptr[t + 1]].tolist())
        for t in range(t0, t1)
    ]
    try:
        if predict:
            for a in range(len(teams)):
                for b in range(a + 1, len(teams)):
                    if pair_outcome(ranks[a], ranks[b]) is not None:
                        pair_probability(model, teams[a], teams[b])
        kwargs: dict[str, Any] = {}
        if elapsed:
            kwargs["elapsed"] = [tuple(0.0 for _ in t) for t in teams]
        weights = None if all(x == 1.0 for ws in w for x in ws) else w
        model.rate(teams, ranks, weights, **kwargs)
    except MindsportError as exc:
        return with_match_index(exc, k)
    return with_match_index(BatchInputError(f"match {k} of the block cannot be rated"), k)


class _Defaults:
    """What most replayers do about encoding and finishing."""

    def encode(
        self, matches: list[Match], index: PlayerIndex, time_unit: float | None
    ) -> MatchBlock:
        return encode_matches(matches, index, time_unit)

    def finish(self, fed: list[Fed]) -> list[Fed]:
        return fed


class ArrayReplayer(_Defaults):
    """A compiled replayer: every player's state is a row of a float table, and a kernel runs
    the model's own update over a block.

    Subclasses name the state columns (``fields``; the first ``n_value`` make the rating value)
    and give the conversions (:meth:`new_state`, :meth:`make`, :meth:`unpack`), the model's own
    checks of a block (:meth:`check`) and the kernel call (:meth:`run`). ``stored``: the columns
    a store keeps per player (the value's, and hidden ones the model's settings use).
    """

    fields: tuple[str, ...] = ()
    n_value: ClassVar[int] = 1
    compiled: bool = True

    def __init__(self, model: Any, capacity: int = 1024) -> None:
        self.model = model
        self.stored: tuple[str, ...] = self.fields[: self.n_value]
        self.table = np.empty((max(capacity, 1), self.width))
        self.table[:, : len(self.fields)] = self.new_state()
        self.table[:, len(self.fields) :] = 0.0

    def new_state(self) -> tuple[float, ...]:
        """A new player's row."""
        raise NotImplementedError

    def make(self, *values: Any) -> Any:
        """The rating value from the value columns."""
        raise NotImplementedError

    def unpack(self, value: Any) -> tuple[float, ...] | None:
        """The value columns of ``value`` (None: not a value this replayer can take)."""
        raise NotImplementedError

    @property
    def width(self) -> int:
        """Columns of the table: the fields, padded to 2, 4 or 8 so that a row never straddles
        two cache lines (one memory access per player)."""
        n = len(self.fields)
        return 2 if n <= 2 else 4 if n <= 4 else 8 if n <= 8 else n

    def _grow(self, n_players: int) -> None:
        cap = len(self.table)
        if n_players > cap:
            new = np.zeros((max(n_players, 2 * cap), self.width))
            new[:cap] = self.table
            new[cap:, : len(self.fields)] = self.new_state()
            self.table = new

    def state_of(self, i: int) -> tuple[float, ...]:
        """Player ``i``'s row (a new player's beyond the table)."""
        if i >= len(self.table):
            return self.new_state()
        return tuple(self.table[i, : len(self.fields)].tolist())

    def set_state(self, i: int, state: Sequence[float]) -> None:
        """Set player ``i``'s whole row."""
        self._grow(i + 1)
        self.table[i, : len(self.fields)] = state

    def accepts(self, value: Any) -> bool:
        return self.unpack(value) is not None

    def set_value(self, i: int, value: Any) -> None:
        fields = self.unpack(value)
        if fields is None:
            raise MindsportError(f"{value!r} is not a rating of {self.model!r}")
        self.set_state(i, (*fields, *self.state_of(i)[self.n_value :]))

    def value(self, i: int) -> Any:
        return self.make(*self.state_of(i)[: self.n_value])

    def values(self, post: NDArray[Any], start: int, stop: int) -> list[Any]:
        cols = post[start:stop, : self.n_value].T.tolist()
        return list(map(self.make, *cols))

    def check(self, block: MatchBlock, predict: bool) -> None:
        """Raise (with ``match_index``) for the first match the model refuses."""
        block.validate()

    def kernel(self) -> Any:
        """The compiled replay ``kernel(table, block.arrays, settings, predict, keep, out)``
        (``out``: :class:`Outputs`): it rates the block's matches in order and returns -1, or
        the index of a match it could not rate."""
        raise NotImplementedError

    def settings(self, block: MatchBlock) -> Any:
        """The model's settings as its kernel takes them (by default the model's ``_settings``:
        one record of named fields)."""
        return self.model._settings

    def failure(self, k: int) -> Exception:
        """The error for match ``k``, which the kernel could not rate (a
        :class:`~mindsport.errors.MindsportError` when the input is at fault, an
        :class:`~mindsport.errors.InternalError` when the algorithm is)."""
        return BatchInputError(f"match {k} of the block cannot be rated")

    def outputs(self, fed: Fed) -> Outputs:
        """Where the kernel writes what ``fed`` holds (``post`` empty when no history is kept)."""
        post = fed.post if fed.post is not None else self.table[:0]
        return Outputs(post, fed.pair_a, fed.pair_b, fed.prob, fed.outcome, fed.draw)

    def run(self, block: MatchBlock, fed: Fed, predict: bool, keep: bool) -> None:
        """Rate the block with the kernel, into ``fed``."""
        out = self.outputs(fed)
        bad = int(self.kernel()(self.table, block.arrays, self.settings(block), predict, keep, out))
        if bad >= 0:
            raise with_match_index(self.failure(bad), bad)

    def feed(self, block: MatchBlock, *, predict: bool, keep: bool) -> Fed:
        n_slots = len(block.players)
        post = np.empty((n_slots if keep else 0, max(len(self.stored), self.n_value)))
        pair_ptr = block_kernels().count_pairs(block.team_ptr, block.ranks) if predict else None
        n_pairs = 0 if pair_ptr is None else int(pair_ptr[-1])
        fed = Fed(
            post if keep else None,
            pair_ptr,
            np.empty(n_pairs, np.int32),
            np.empty(n_pairs, np.int32),
            np.empty(n_pairs),
            np.empty(n_pairs),
            np.full(n_pairs, np.nan),
        )
        if len(block) == 0:
            return fed
        self.check(block, predict)
        self._grow(int(block.players.max()) + 1)
        self.run(block, fed, predict, keep)
        return fed


class ObjectReplayer(_Defaults):
    """``model.rate`` match by match: the replayer of any model without a compiled one.

    Before each match the predictions come from ``model.outcome_probabilities`` or
    ``model.win_probability``; when ``model.rate`` takes ``elapsed`` and the model uses it
    (TrueSkill's ``drift``, Glicko-2's ``period``), the time since each player's previous match
    is passed (0 for a first match; a player's time moves only when he plays with a positive
    weight).
    """

    fields: tuple[str, ...] = ("value", "last_played")
    compiled: bool = False

    def __init__(self, model: Any, capacity: int = 1024) -> None:
        self.model = model
        self.ratings: list[Any] = []
        self.last: list[float] = []

    def _grow(self, n_players: int) -> None:
        while len(self.ratings) < n_players:
            self.ratings.append(self.model.rating())
            self.last.append(math.nan)

    def accepts(self, value: Any) -> bool:
        return True

    def set_value(self, i: int, value: Any) -> None:
        self._grow(i + 1)
        self.ratings[i] = value

    def value(self, i: int) -> Any:
        self._grow(i + 1)
        return self.ratings[i]

    def values(self, post: NDArray[Any], start: int, stop: int) -> list[Any]:
        return list(post[start:stop])

    def feed(self, block: MatchBlock, *, predict: bool, keep: bool) -> Fed:
        block.validate()
        if len(block):
            self._grow(int(block.players.max()) + 1)
        model = self.model
        ratings, last = self.ratings, self.last
        use_elapsed = _accepts_elapsed(model)
        post = np.empty(len(block.players) if keep else 0, dtype=object)
        pair_ptr = [0]
        pair_a: list[int] = []
        pair_b: list[int] = []
        prob: list[float] = []
        outcome: list[float] = []
        draw: list[float] = []
        team_ptr = block.team_ptr.tolist()
        player_ptr = block.player_ptr.tolist()
        players = block.players.tolist()
        weights = block.weights.tolist()
        all_ranks = [_rank(r) for r in block.ranks.tolist()]
        times = block.times.tolist()
        for k in range(len(block)):
            t0, t1 = team_ptr[k], team_ptr[k + 1]
            slots = [range(player_ptr[t], player_ptr[t + 1]) for t in range(t0, t1)]
            teams = [tuple(ratings[players[s]] for s in sl) for sl in slots]
            ranks = all_ranks[t0:t1]
            try:
                if predict:
                    for a in range(len(teams)):
                        for b in range(a + 1, len(teams)):
                            o = pair_outcome(ranks[a], ranks[b])
                            if o is not None:
                                pair_a.append(a)
                                pair_b.append(b)
                                p, d = pair_forecast(model, teams[a], teams[b])
                                prob.append(p)
                                draw.append(d)
                                outcome.append(o)
                    pair_ptr.append(len(prob))
                w = [tuple(weights[s] for s in sl) for sl in slots]
                kwargs: dict[str, Any] = {}
                if use_elapsed:
                    now = times[k]
                    kwargs["elapsed"] = [
                        tuple(
                            0.0
                            if math.isnan(last[players[s]])
                            else max(0.0, now - last[players[s]])
                            for s in sl
                        )
                        for sl in slots
                    ]
                full = all(x == 1.0 for ws in w for x in ws)
                new = model.rate(teams, ranks, None if full else w, **kwargs)
            except MindsportError as exc:
                raise with_match_index(exc, k) from None
            for sl, team in zip(slots, new, strict=True):
                vals = list(team.values()) if isinstance(team, Mapping) else list(team)
                for s, v in zip(sl, vals, strict=True):
                    p = players[s]
                    ratings[p] = v
                    if weights[s] > 0:
                        last[p] = times[k]
                    if keep:
                        post[s] = v
        return Fed(
            post if keep else None,
            np.asarray(pair_ptr, np.int64) if predict else None,
            np.asarray(pair_a, np.int32),
            np.asarray(pair_b, np.int32),
            np.asarray(prob, np.float64),
            np.asarray(outcome, np.float64),
            np.asarray(draw, np.float64),
        )


def compiled_unless_changed(model: Any, owner: Any, compiled: Callable[[Any], Any]) -> Any:
    """``compiled(model)``, the model's compiled replay, unless ``model`` is of a subclass of
    ``owner`` that changes ``rate``: the kernel would not see the change, so such a model is
    replayed by its own ``rate``, match by match (:class:`ObjectReplayer`)."""
    if type(model).rate is not owner.rate:
        return ObjectReplayer(model)
    return compiled(model)


def replayer_for(model: Any) -> Replayer:
    """The model's own replayer (``model.replayer()``), else :class:`ObjectReplayer`."""
    make = getattr(model, "replayer", None)
    if make is None:
        return ObjectReplayer(model)
    replayer: Replayer = make()
    return replayer


def refuse_teams(model: Any, block: MatchBlock, predict: bool, ranked: bool) -> None:
    """For models of single players: refuse (with the model's own error, see :func:`refusal`)
    the first match with a team of several players, a weight other than 1 or, with ``ranked``,
    an unranked team."""
    bad = np.diff(block.player_ptr) != 1
    if len(block.weights):
        bad |= np.logical_or.reduceat(block.weights != 1.0, block.player_ptr[:-1])
    if ranked:
        bad |= np.isnan(block.ranks)
    at = block.first(bad)
    if at is not None:
        raise refusal(model, block, at, predict, False)
