"""Playing duplicate sets: the task an executor runs (:func:`play_sets`) and what it returns.

A :class:`SetsTask` names everything a worker needs (the game object, the two bots' specs, the
reference pairs, the calibration count, the seed and the set numbers); :func:`play_sets` deals
each set's chance outcome, plays the two bots in every line-up of the rotation, and the
reference pairs on that outcome and on the set's calibration outcomes (see
:mod:`.schedule` for the keys). It is a top-level function of picklable values, so the serial,
process and Ray executors all run it, and since every table is seeded by its key the result is
the same on any of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.games.compare.actions import action_variates
from mindsport.games.compare.schedule import (
    CALIBRATION,
    CALIBRATION_CHANCE,
    CHANCE,
    PLAY,
    REFERENCE,
    Rotation,
    rotation,
    win_scores,
)
from mindsport.games.contract import DecisionValuer, Game
from mindsport.games.many import Seeding, Table, play_many

__all__ = ["PlayedSets", "SetsTask", "play_sets", "reference_features"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SetsTask:
    """Duplicate sets ``sets`` of a comparison seeded ``seed``: ``first`` against ``second``
    (bot specs), valued by the reference ``pairs`` (stronger, weaker) on the set's outcome and
    on ``calibration`` more outcomes per set; with ``actions``, the action terms of the
    decisions whose policy the game knows (:mod:`.actions`), each move valued by ``playouts``
    playouts where the game can (0: by its fixed value functions)."""

    game: Game
    first: str
    second: str
    pairs: tuple[tuple[str, str], ...]
    calibration: int
    seed: int
    sets: tuple[int, ...]
    actions: bool = True
    playouts: int = 0


@dataclass(frozen=True)
class PlayedSets:
    """What a task played: ``margins[set, lineup]`` of the two bots, and the reference
    ``features[set, f]`` of each set's outcome and ``calibrated[set, f]`` (the same features
    averaged over the set's calibration outcomes); the action variates ``actions[set, v]``
    (:func:`.actions.action_variates`; no columns when none were valued) and the decisions
    they valued, by ``playouts`` playouts a move (0: by the game's fixed value functions);
    the games each kind took."""

    sets: tuple[int, ...]
    margins: FloatArray
    features: FloatArray
    calibrated: FloatArray
    games: int
    reference_games: int
    actions: FloatArray
    valued: int = 0
    playouts: int = 0


def _rng(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    return Seeding.SPAWN.rng(seed, key)


def reference_features(rot: Rotation, margins: npt.ArrayLike) -> FloatArray:
    """The features of one outcome from its reference games: ``margins[pair, lineup]`` (the
    stronger reference in the first bot's place) -> per pair the mean margin and the mean win
    score over the rotation."""
    m = np.asarray(margins, dtype=np.float64)
    return np.concatenate([m.mean(axis=-1), win_scores(m).mean(axis=-1)], axis=-1)


def _reference_tables(
    rot: Rotation, chance: Any, pairs: Sequence[tuple[str, str]], key: tuple[int, ...]
) -> list[Table]:
    return [
        Table(chance, rot.seating(m, hi, lo), (*key, p, m))
        for p, (hi, lo) in enumerate(pairs)
        for m in range(len(rot))
    ]


def play_sets(task: SetsTask) -> PlayedSets:
    """Play the task's duplicate sets (see the module)."""
    game, seed = task.game, task.seed
    rot = rotation(game.info)
    lineups, pairs, k = len(rot), task.pairs, task.calibration
    chances = [game.sample_chance(_rng(seed, (CHANCE, s))) for s in task.sets]
    tables = [
        Table(chance, rot.seating(m, task.first, task.second), (PLAY, s, m))
        for s, chance in zip(task.sets, chances, strict=True)
        for m in range(lineups)
    ]
    actions = np.zeros((len(task.sets), 0))
    n_valued = 0
    playouts = 0
    terms = None
    if task.actions and isinstance(game, DecisionValuer):
        terms = game.play_valued(tables, seed, Seeding.SPAWN, task.playouts)
        if terms is None:  # not at engine speed: record the games, then value them
            records = play_many(game, tables, seed, seeding=Seeding.SPAWN, records=True)
            terms = game.decision_terms(records, [t.bots for t in tables])
            returns = terms.returns if terms is not None else _returns(game, records)
        else:
            returns = terms.returns
            playouts = task.playouts
            if not terms.valued.any():
                terms = None
    else:
        returns = play_many(game, tables, seed, seeding=Seeding.SPAWN)
    if terms is not None:
        actions = action_variates(rot, terms, len(task.sets))
        n_valued = int(terms.valued.sum())
    margins = rot.margins(returns.reshape(len(task.sets), lineups, game.info.players))
    n_features = 2 * len(pairs)
    features = np.zeros((len(task.sets), n_features))
    calibrated = np.zeros((len(task.sets), n_features))
    reference_games = 0
    if pairs:
        refs: list[Table] = []
        for s, chance in zip(task.sets, chances, strict=True):
            refs += _reference_tables(rot, chance, pairs, (REFERENCE, s))
            for j in range(k):
                outcome = game.sample_chance(_rng(seed, (CALIBRATION_CHANCE, s, j)))
                refs += _reference_tables(rot, outcome, pairs, (CALIBRATION, s, j))
        played = play_many(game, refs, seed)
        reference_games = len(refs)
        shaped = rot.margins(
            played.reshape(len(task.sets), 1 + k, len(pairs), lineups, game.info.players)
        )
        valued = reference_features(rot, shaped)  # sets x (1 + k) x features
        features = valued[:, 0, :]
        if k:
            calibrated = valued[:, 1:, :].mean(axis=1)
    return PlayedSets(
        sets=tuple(task.sets),
        margins=margins,
        features=features,
        calibrated=calibrated,
        games=len(tables),
        reference_games=reference_games,
        actions=actions,
        valued=n_valued,
        playouts=playouts if n_valued else 0,
    )


def _returns(game: Game, records: Sequence[Any]) -> FloatArray:
    """The returns of recorded games (the record's ``scores``, or a playthrough's
    ``returns``)."""
    rows = [getattr(r, "scores", None) or getattr(r, "returns", None) for r in records]
    return np.asarray(rows, dtype=np.float64).reshape(len(records), game.info.players)
