"""Chronological replay of a match history through a rating model.

:func:`replay` feeds the matches, in the order given, to the model's *replayer*
(:mod:`mindsport.rating.replay.replayers`): the model's own ``replayer()`` (compiled for the
built-in models: the same update as ``model.rate``), else ``model.rate`` match by match. A
player's first match starts from ``model.rating()``. Before each match the model predicts every
pair of teams whose order the result decides (see :class:`MatchPrediction`).

The loop is the one replay driver (:func:`mindsport.rating.replay.driver.drive`, which the store
runs too): matches are encoded in chunks into flat arrays (the replayer's ``encode``, by default
:func:`mindsport.rating.replay.blocks.encode_matches`) and fed block by block; predictions and
the per-match history stay arrays, and :class:`Replay`'s ``ratings``, ``predictions`` and
``history`` build Python objects only for the items that are read.

Elapsed time: models that use it (TrueSkill's ``drift``, Glicko-2's ``period``) get the time since
each player's previous match (0 for a first match), in ``time_unit``s: days for ``datetime``
times, the raw difference for numeric times, unless given.

:func:`mindsport.history.evaluate`, ``fit`` and the rolling refits of a whole-history model rate
through :func:`replay`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from mindsport.errors import MindsportError
from mindsport.frames import frame, value_fields
from mindsport.match import Match, pair_outcome
from mindsport.rating.replay.blocks import MatchBlock, PlayerIndex, match_ids, only_matches
from mindsport.rating.replay.driver import Chunk, drive, named_by
from mindsport.rating.replay.replayers import (
    Fed,
    ObjectReplayer,
    Replayer,
    pair_probability,
    replayer_for,
)

__all__ = [
    "History",
    "MatchPrediction",
    "Predictions",
    "Ratings",
    "Replay",
    "pair_outcome",
    "pair_probability",
    "replay",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MatchPrediction:
    """Pre-game predictions for one match.

    ``pairs``: ``(i, j, p, outcome)`` for every pair of teams ``i < j`` whose relative order the
    result tells (both ranked, or exactly one unranked): ``p`` is the model's probability that
    team ``i`` finishes ahead of team ``j`` given that one of them does (draw-free), ``outcome`` is
    1.0 if ``i`` finished ahead, 0.0 if behind, 0.5 for a tie. ``draws``: the model's
    probability of a draw for each pair, in the order of ``pairs`` (empty when the model
    predicts no draw probability of its own, e.g. Elo's expected score).
    """

    index: int
    match_id: str
    pairs: tuple[tuple[int, int, float, float], ...]
    draws: tuple[float, ...] = ()


class _Lazy(Sequence[T]):
    """A sequence whose items are built when read (``_item``), ``len`` given by ``_n``."""

    _what = "item"

    def _item(self, i: int) -> T:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self._item(k) for k in range(*i.indices(len(self)))]
        n = len(self)
        k = i + n if i < 0 else i
        if not 0 <= k < n:
            raise IndexError(f"{self._what} index {i} out of range ({n} matches)")
        return self._item(k)

    def __iter__(self) -> Iterator[T]:
        for k in range(len(self)):
            yield self._item(k)


class Predictions(_Lazy[MatchPrediction]):
    """One :class:`MatchPrediction` per match, built when read from the arrays below.

    ``pair_ptr[i]:pair_ptr[i+1]`` index match ``i``'s pairs in ``pair_a``, ``pair_b``, ``prob``,
    ``outcome`` and ``draw`` (NaN where the model predicts no draw probability); ``match_ids[i]``
    is its id.
    """

    _what = "prediction"

    def __init__(
        self,
        match_ids: Sequence[str],
        pair_ptr: NDArray[np.int64],
        pair_a: NDArray[np.int32],
        pair_b: NDArray[np.int32],
        prob: NDArray[np.float64],
        outcome: NDArray[np.float64],
        draw: NDArray[np.float64] | None = None,
    ) -> None:
        self.match_ids = match_ids
        self.pair_ptr = pair_ptr
        self.pair_a = pair_a
        self.pair_b = pair_b
        self.prob = prob
        self.outcome = outcome
        self.draw = np.full(len(prob), np.nan) if draw is None else draw

    @classmethod
    def of(cls, items: Iterable[MatchPrediction]) -> Predictions:
        """The arrays of a sequence of :class:`MatchPrediction` (indices must be 0, 1, ...)."""
        preds = list(items)
        ptr = np.zeros(len(preds) + 1, np.int64)
        np.cumsum([len(mp.pairs) for mp in preds], out=ptr[1:])
        pairs = [p for mp in preds for p in mp.pairs]
        cols = list(zip(*pairs, strict=True)) if pairs else [(), (), (), ()]
        draws = [
            d for mp in preds for d in (mp.draws if mp.draws else (float("nan"),) * len(mp.pairs))
        ]
        return cls(
            [mp.match_id for mp in preds],
            ptr,
            np.asarray(cols[0], np.int32),
            np.asarray(cols[1], np.int32),
            np.asarray(cols[2], np.float64),
            np.asarray(cols[3], np.float64),
            np.asarray(draws, np.float64),
        )

    def __len__(self) -> int:
        return len(self.match_ids)

    def _item(self, i: int) -> MatchPrediction:
        a, b = int(self.pair_ptr[i]), int(self.pair_ptr[i + 1])
        pairs = tuple(
            zip(
                self.pair_a[a:b].tolist(),
                self.pair_b[a:b].tolist(),
                self.prob[a:b].tolist(),
                self.outcome[a:b].tolist(),
                strict=True,
            )
        )
        d = self.draw[a:b]
        draws = () if np.isnan(d).any() else tuple(d.tolist())
        return MatchPrediction(i, self.match_ids[i], pairs, draws)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Predictions({len(self)} matches, {len(self.prob)} pairs)"

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per predicted pair: ``match_index``, ``match_id``,
        ``team_a``, ``team_b`` (indices within the match), ``p`` (``team_a`` ahead, draws taken
        out), ``outcome`` (1, 0.5, 0) and ``draw`` (the model's draw probability; NaN when it
        predicts none)."""
        counts = np.diff(self.pair_ptr)
        index = np.repeat(np.arange(len(self), dtype=np.int64), counts)
        ids = np.asarray(self.match_ids, dtype=object)
        return frame(
            {
                "match_index": index,
                "match_id": ids[index] if len(index) else np.zeros(0, object),
                "team_a": self.pair_a,
                "team_b": self.pair_b,
                "p": self.prob,
                "outcome": self.outcome,
                "draw": self.draw,
            },
            _PREDICTION_COLUMNS,
        )


_PREDICTION_COLUMNS = ("match_index", "match_id", "team_a", "team_b", "p", "outcome", "draw")


class History(_Lazy[tuple[str, dict[str, Any]]]):
    """``(match_id, {player: rating after the match})`` per match, built when read.

    Kept as the replayer's per-slot state arrays of each chunk of matches.
    """

    _what = "history"

    def __init__(
        self,
        match_ids: Sequence[str],
        index: PlayerIndex,
        replayer: Replayer,
        chunks: Sequence[tuple[int, MatchBlock, NDArray[Any]]],
    ) -> None:
        self.match_ids = match_ids
        self._ids = index.ids
        self._replayer = replayer
        self._chunks = list(chunks)  # (first match, block, post arrays)
        self._starts = [c[0] for c in self._chunks]

    def __len__(self) -> int:
        return len(self.match_ids)

    def _item(self, i: int) -> tuple[str, dict[str, Any]]:
        c = bisect_right(self._starts, i) - 1
        first, block, post = self._chunks[c]
        k = i - first
        s0 = int(block.player_ptr[block.team_ptr[k]])
        s1 = int(block.player_ptr[block.team_ptr[k + 1]])
        names = map(self._ids.__getitem__, block.players[s0:s1].tolist())
        values = self._replayer.values(post, s0, s1)
        return self.match_ids[i], dict(zip(names, values, strict=True))

    def __repr__(self) -> str:
        return f"History({len(self)} matches)"

    def to_frame(self) -> Any:
        """A pandas DataFrame of the skill history, one row per player per match:
        ``match_index``, ``match_id``, ``player`` and the fields of his rating after the match
        (``mu`` and ``sigma`` for TrueSkill, ``rating`` ... for Elo and Glicko-2)."""
        rows = [
            {"match_index": i, "match_id": mid, "player": player, **value_fields(value)}
            for i, (mid, after) in enumerate(self)
            for player, value in after.items()
        ]
        fields = list(rows[0]) if rows else ["match_index", "match_id", "player"]
        return frame(rows, fields)


class Ratings(Mapping[str, Any]):
    """Every player's rating after the last match, built when read (a read-only mapping)."""

    def __init__(self, index: PlayerIndex, replayer: Replayer) -> None:
        self._index = index
        self._replayer = replayer

    def __getitem__(self, player: str) -> Any:
        if player not in self._index:
            raise KeyError(player)
        return self._replayer.value(self._index.get(player))

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.ids)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, player: object) -> bool:
        return player in self._index

    def __repr__(self) -> str:
        return f"Ratings({len(self)} players)"

    def to_frame(self) -> Any:
        """A pandas DataFrame of the ratings, indexed by ``player``, one column per field of
        the rating value."""
        return _ratings_frame(self)


def _ratings_frame(ratings: Mapping[str, Any]) -> Any:
    rows = [{"player": player, **value_fields(value)} for player, value in ratings.items()]
    return frame(rows, list(rows[0]) if rows else ["player"], index="player")


@dataclass(frozen=True)
class Replay:
    """The result of :func:`replay`.

    ``ratings``: every player's rating after the last match (a mapping). ``predictions``: one
    :class:`MatchPrediction` per match (empty when ``predict=False``). ``history``: for each match,
    ``(match_id, {player: rating after the match})`` (empty when ``keep_history=False``). All
    three build their Python objects when read.
    """

    ratings: Mapping[str, Any]
    predictions: Sequence[MatchPrediction] = field(default_factory=list)
    history: Sequence[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def to_frame(self, table: Literal["ratings", "predictions", "history"] = "ratings") -> Any:
        """A pandas DataFrame of the final ``ratings`` (indexed by player), the
        ``predictions`` (one row per predicted pair) or the skill ``history`` (one row per
        player per match); see :meth:`Ratings.to_frame`, :meth:`Predictions.to_frame` and
        :meth:`History.to_frame`."""
        if table == "ratings":
            return _ratings_frame(self.ratings)
        if table == "predictions":
            preds = self.predictions
            return (preds if isinstance(preds, Predictions) else Predictions.of(preds)).to_frame()
        if table == "history":
            hist = self.history
            if isinstance(hist, History):
                return hist.to_frame()
            if hist:
                raise MindsportError("to_frame: this replay's history is not a History")
            return frame([], ["match_index", "match_id", "player"])
        raise MindsportError(
            f"to_frame: table is 'ratings', 'predictions' or 'history', got {table!r}"
        )


def _choose(model: Any, initial: Mapping[str, Any], fast: bool | None) -> Replayer:
    if fast is False:
        return ObjectReplayer(model)
    replayer = replayer_for(model)
    if replayer.compiled and all(map(replayer.accepts, initial.values())):
        return replayer
    if fast:
        raise MindsportError(f"replay: no compiled path for {model!r} (with these initial ratings)")
    return replayer if not replayer.compiled else ObjectReplayer(model)


def replay(
    model: Any,
    matches: Iterable[Match],
    *,
    predict: bool = True,
    keep_history: bool = True,
    initial: Mapping[str, Any] | None = None,
    time_unit: float | None = None,
    progress: Callable[[int], None] | None = None,
    fast: bool | None = None,
) -> Replay:
    """Replay ``matches`` (in the given order) through ``model``; see the module docstring.

    ``initial``: ratings of players known before the first match. ``progress``: called with the
    number of matches done, at least every chunk of matches and at the end. ``fast``: ``None``
    (default) uses the model's compiled replayer when it has one and can start from the
    ``initial`` ratings, else ``model.rate`` match by match; ``False`` forces ``model.rate``
    match by match; ``True`` raises if there is no compiled replayer.
    """
    if not hasattr(model, "rate") or not hasattr(model, "rating"):
        raise MindsportError(f"replay: {model!r} is not a rating model (needs rate and rating)")
    start = dict(initial or {})
    replayer = _choose(model, start, fast)
    index = PlayerIndex()
    for player, rating in start.items():
        replayer.set_value(index.get(player), rating)
    ids: list[str] = []
    blocks: list[tuple[int, MatchBlock]] = []

    def encode(chunk: list[Any]) -> MatchBlock:
        if not only_matches(chunk):
            bad = next(k for k, m in enumerate(chunk) if not isinstance(m, Match))
            raise MindsportError(f"replay: item {len(ids) + bad} is not a Match: {chunk[bad]!r}")
        return replayer.encode(chunk, index, time_unit)

    def fed_block(chunk: Chunk[Match]) -> None:
        ids.extend(match_ids(chunk.items))
        blocks.append((chunk.first, chunk.block))

    fed = drive(
        replayer,
        matches,
        encode,
        predict=predict,
        keep=keep_history,
        on_block=fed_block,
        refused=named_by(lambda m: m.id),
        progress=progress,
    )
    predictions: Sequence[MatchPrediction] = []
    history: Sequence[tuple[str, dict[str, Any]]] = []
    if predict:
        predictions = _predictions(ids, fed)
    if keep_history:
        history = History(
            ids,
            index,
            replayer,
            [
                (first, block, f.post)
                for (first, block), f in zip(blocks, fed, strict=True)
                if f.post is not None
            ],
        )
    return Replay(Ratings(index, replayer), predictions, history)


def _predictions(ids: list[str], fed: list[Fed]) -> Predictions:
    if len(fed) == 1:
        f = fed[0]
        assert f.pair_ptr is not None
        return Predictions(ids, f.pair_ptr, f.pair_a, f.pair_b, f.prob, f.outcome, f.draw)
    ptrs = [np.zeros(1, np.int64)]
    offset = 0
    for f in fed:
        assert f.pair_ptr is not None
        ptrs.append(f.pair_ptr[1:] + offset)
        offset += int(f.pair_ptr[-1])
    return Predictions(
        ids,
        np.concatenate(ptrs),
        np.concatenate([f.pair_a for f in fed]) if fed else np.zeros(0, np.int32),
        np.concatenate([f.pair_b for f in fed]) if fed else np.zeros(0, np.int32),
        np.concatenate([f.prob for f in fed]) if fed else np.zeros(0),
        np.concatenate([f.outcome for f in fed]) if fed else np.zeros(0),
        np.concatenate([f.draw for f in fed]) if fed else np.zeros(0),
    )
