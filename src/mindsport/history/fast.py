"""The compiled paths of :func:`mindsport.history.replay`: TrueSkill, Elo, Glicko-2, Tenhou R.

Matches are packed into blocks (:mod:`mindsport.rating.batch`) and rated by the numba kernels
(:mod:`mindsport.rating.kernels`, :mod:`mindsport.rating.kernels_classic`);
pre-game predictions are computed from the kernel's pre-game values with array arithmetic. The
results are those of the object path (tested to 1e-9): same ratings, same predictions, same
history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from itertools import islice
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

from mindsport.errors import MindsportError
from mindsport.match import Match
from mindsport.rating.batch import BatchTrueSkill, MatchBlock, PlayerIndex, encode_matches
from mindsport.rating.batch_classic import BatchElo, BatchGlicko2, BatchTenhou
from mindsport.rating.elo import Elo
from mindsport.rating.glicko2 import Glicko2
from mindsport.rating.rating import Rating
from mindsport.rating.tenhou import TenhouRating
from mindsport.rating.trueskill import TrueSkill, draw_margin

__all__ = ["replay_classic", "replay_trueskill"]

_CHUNK = 20_000


def _chunks(matches: Iterable[Match], size: int) -> Iterator[list[Match]]:
    it = iter(matches)
    while chunk := list(islice(it, size)):
        yield chunk


def _decided_pairs(
    chunk: list[Match], block: MatchBlock
) -> tuple[NDArray[np.int64], NDArray[np.int64], list[float], list[tuple[int, int, int]]]:
    """Every pair of teams whose order the result decides: block team indices of the left and
    right team, the outcome for the left one, and ``(match in chunk, i, j)``."""
    from mindsport.history.replay import pair_outcome

    left: list[int] = []
    right: list[int] = []
    outcomes: list[float] = []
    owners: list[tuple[int, int, int]] = []
    for k, m in enumerate(chunk):
        t0 = int(block.team_ptr[k])
        n = len(m.teams)
        for i in range(n):
            for j in range(i + 1, n):
                o = pair_outcome(m.ranks[i], m.ranks[j])
                if o is None:
                    continue
                left.append(t0 + i)
                right.append(t0 + j)
                outcomes.append(o)
                owners.append((k, i, j))
    return np.asarray(left, np.int64), np.asarray(right, np.int64), outcomes, owners


def _predictions(
    chunk: list[Match],
    done: int,
    owners: list[tuple[int, int, int]],
    probs: list[float],
    outcomes: list[float],
) -> list[Any]:
    """One :class:`~mindsport.history.replay.MatchPrediction` per match of the chunk."""
    from mindsport.history.replay import MatchPrediction

    per_match: list[list[tuple[int, int, float, float]]] = [[] for _ in chunk]
    for (k, i, j), p, o in zip(owners, probs, outcomes, strict=True):
        per_match[k].append((i, j, p, o))
    return [MatchPrediction(done + k, m.id, tuple(per_match[k])) for k, m in enumerate(chunk)]


def replay_trueskill(
    model: TrueSkill,
    matches: Iterable[Match],
    *,
    predict: bool,
    keep_history: bool,
    initial: Mapping[str, Any] | None,
    time_unit: float | None,
    progress: Callable[[int], None] | None,
) -> tuple[dict[str, Rating], list[Any], list[tuple[str, dict[str, Rating]]]]:
    """Ratings, predictions and history as :func:`~mindsport.history.replay` returns them."""
    from mindsport.history.replay import MatchPrediction

    index = PlayerIndex()
    replayer = BatchTrueSkill(model)
    for player, rating in (initial or {}).items():
        replayer.set_rating(index.get(player), rating)
    predictions: list[MatchPrediction] = []
    history: list[tuple[str, dict[str, Rating]]] = []
    beta2, tau2 = model.beta**2, model.tau**2
    margins: dict[int, float] = {}
    done = 0
    for chunk in _chunks(matches, _CHUNK):
        for k, m in enumerate(chunk):
            if not isinstance(m, Match):
                raise MindsportError(f"replay: item {done + k} is not a Match: {m!r}")
        block = encode_matches(chunk, index)
        if model.drift > 0:
            unit = time_unit
            if unit is None:
                unit = 86400.0 if isinstance(chunk[0].time, datetime) else 1.0
            block = type(block)(
                block.team_ptr,
                block.player_ptr,
                block.players,
                block.weights,
                block.ranks,
                block.times / unit,
            )
        try:
            pre_mu, pre_sigma, post_mu, post_sigma = replayer.feed_full(block)
        except MindsportError as exc:
            bad = getattr(exc, "match_index", None)
            if bad is None:
                raise
            m = chunk[int(bad)]
            raise type(exc)(
                f"match {m.id!r}: ranks {list(m.ranks)} tie, but draw_probability is 0 so a "
                "tie is impossible under this model"
            ) from exc
        if predict:
            starts = block.player_ptr[:-1]
            team_mu = np.add.reduceat(pre_mu, starts)
            team_var = np.add.reduceat(pre_sigma**2 + tau2 + beta2, starts)
            team_size = np.diff(block.player_ptr)
            a, b, outcomes, owners = _decided_pairs(chunk, block)
            sizes = team_size[a] + team_size[b] if len(a) else np.zeros(0, np.int64)
            e = np.array(
                [
                    margins.setdefault(
                        int(s), draw_margin(model.draw_probability, int(s), model.beta)
                    )
                    for s in sizes
                ]
            )
            c = np.sqrt(team_var[a] + team_var[b]) if len(a) else np.zeros(0)
            d = team_mu[a] - team_mu[b] if len(a) else np.zeros(0)
            win = ndtr((d - e) / c) if len(a) else np.zeros(0)
            loss = ndtr((-d - e) / c) if len(a) else np.zeros(0)
            tot = win + loss
            prob = np.where(tot > 0, win / np.where(tot > 0, tot, 1.0), 0.5)
            predictions.extend(_predictions(chunk, done, owners, prob.tolist(), outcomes))
        if keep_history:
            ids = index.ids
            for k, m in enumerate(chunk):
                s0 = int(block.player_ptr[block.team_ptr[k]])
                s1 = int(block.player_ptr[block.team_ptr[k + 1]])
                history.append(
                    (
                        m.id,
                        {
                            ids[int(block.players[s])]: Rating(
                                float(post_mu[s]), float(post_sigma[s])
                            )
                            for s in range(s0, s1)
                        },
                    )
                )
        before = done
        done += len(chunk)
        if progress is not None and done // 1000 > before // 1000:
            progress(done)
    if progress is not None:
        progress(done)
    ratings = {p: replayer.rating_of(i) for i, p in enumerate(index.ids)}
    for p, r in (initial or {}).items():
        ratings.setdefault(p, r)
    return ratings, predictions, history


def _object_error(model: Any, m: Match, predict: bool, use_elapsed: bool) -> MindsportError:
    """The error the object path raises for match ``m`` (a shape the kernel does not take).

    Shape errors do not depend on rating values, so the match is run through the object API
    with new ratings, predictions first as :func:`~mindsport.history.replay` does.
    """
    from mindsport.history.replay import pair_outcome, pair_probability

    teams = [{p: model.rating() for p in team} for team in m.teams]
    try:
        if predict:
            n = len(teams)
            for i in range(n):
                for j in range(i + 1, n):
                    if pair_outcome(m.ranks[i], m.ranks[j]) is not None:
                        pair_probability(model, tuple(teams[i].values()), tuple(teams[j].values()))
        weights = None
        if m.weights is not None:
            weights = [
                dict(zip(t, w, strict=True)) for t, w in zip(m.teams, m.weights, strict=True)
            ]
        kwargs: dict[str, Any] = {}
        if use_elapsed:
            kwargs["elapsed"] = [{p: 0.0 for p in team} for team in m.teams]
        model.rate(teams, list(m.ranks), weights, **kwargs)
    except MindsportError as exc:
        msg = f"match {m.id!r}: {exc}"
        try:
            err = type(exc)(msg)
        except TypeError:
            err = MindsportError(msg)
        err.__cause__ = exc
        return err
    return MindsportError(f"match {m.id!r}: no compiled path for this match")


def _first_refused(model: Any, block: Any) -> int | None:
    """Index of the first match of ``block`` that ``model.rate`` refuses (None: all fine)."""
    if type(model) is Elo:
        return None
    bad_team = np.diff(block.player_ptr) != 1
    bad_team |= np.logical_or.reduceat(block.weights != 1, block.player_ptr[:-1])
    if type(model) is TenhouRating:
        bad_team |= np.isnan(block.ranks)
    if not bad_team.any():
        return None
    match_of_team = np.repeat(np.arange(len(block)), np.diff(block.team_ptr))
    return int(match_of_team[np.flatnonzero(bad_team)[0]])


def replay_classic(
    model: Elo | Glicko2 | TenhouRating,
    matches: Iterable[Match],
    *,
    predict: bool,
    keep_history: bool,
    initial: Mapping[str, Any] | None,
    time_unit: float | None,
    progress: Callable[[int], None] | None,
) -> tuple[dict[str, Any], list[Any], list[tuple[str, dict[str, Any]]]]:
    """:func:`~mindsport.history.replay` for Elo, Glicko-2 and Tenhou R by the compiled kernels.

    Ratings, predictions and history as the object path returns them (to rounding). A match
    whose shape the model refuses raises the object path's error.
    """
    from mindsport.history.replay import MatchPrediction

    replayer: BatchElo | BatchGlicko2 | BatchTenhou
    if isinstance(model, Elo):
        replayer = BatchElo(model)
    elif isinstance(model, Glicko2):
        replayer = BatchGlicko2(model)
    else:
        replayer = BatchTenhou(model)
    use_elapsed = isinstance(model, Glicko2) and model.period is not None
    index = PlayerIndex()
    for player, rating in (initial or {}).items():
        replayer.set_rating(index.get(player), rating)
    predictions: list[MatchPrediction] = []
    history: list[tuple[str, dict[str, Any]]] = []
    done = 0
    for chunk in _chunks(matches, _CHUNK):
        not_match: tuple[int, object] | None = None
        for k, m in enumerate(chunk):
            if not isinstance(m, Match):
                not_match = (k, m)
                chunk = chunk[:k]
                break
        if chunk:
            block = encode_matches(chunk, index)
            refused = _first_refused(model, block)
            if refused is not None:
                raise _object_error(model, chunk[refused], predict, use_elapsed)
            if isinstance(replayer, BatchGlicko2):
                units = None
                if use_elapsed:
                    units = np.array(
                        [
                            time_unit
                            if time_unit is not None
                            else (86400.0 if isinstance(m.time, datetime) else 1.0)
                            for m in chunk
                        ],
                        dtype=np.float64,
                    )
                pre, post = replayer.feed_with_units(block, units)
            else:
                pre, post = replayer.feed_full(block)
            if predict:
                a, b, outcomes, owners = _decided_pairs(chunk, block)
                prob = replayer.pair_probabilities(block, pre, a, b)
                predictions.extend(_predictions(chunk, done, owners, prob.tolist(), outcomes))
            if keep_history:
                ids = index.ids
                cols = [a.tolist() for a in post]
                make = replayer.value_from
                players = block.players.tolist()
                ptr = block.player_ptr.tolist()
                tptr = block.team_ptr.tolist()
                for k, m in enumerate(chunk):
                    history.append(
                        (
                            m.id,
                            {
                                ids[players[s]]: make(*(c[s] for c in cols))
                                for s in range(ptr[tptr[k]], ptr[tptr[k + 1]])
                            },
                        )
                    )
        if not_match is not None:
            raise MindsportError(
                f"replay: item {done + not_match[0]} is not a Match: {not_match[1]!r}"
            )
        before = done
        done += len(chunk)
        if progress is not None and done // 1000 > before // 1000:
            progress(done)
    if progress is not None:
        progress(done)
    ratings = replayer.ratings(index)
    for p, r in (initial or {}).items():
        ratings.setdefault(p, r)
    return ratings, predictions, history
