"""Comparing two bots: :func:`compare` plays duplicate sets in batches on an executor, corrects
for luck, and stops by the SPRT, a target width or the game budget.

Each batch of sets is cut into tasks (:class:`~.play.SetsTask`) that the executor maps with
:func:`~.play.play_sets`; every table is seeded by its key, so the report is the same for the
same seed on the serial, process and Ray executors (:mod:`mindsport.tournament.executors`, or
anything with ``map(fn, tasks)`` returning results in task order) and for any number of
workers. The stopping rule is checked after each batch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError
from mindsport.games.compare.estimate import estimate, stratified_variance
from mindsport.games.compare.play import PlayedSets, SetsTask, play_sets
from mindsport.games.compare.report import Comparison, Report, elo_estimate
from mindsport.games.compare.schedule import rotation, win_scores
from mindsport.games.compare.sequential import Sprt, Width
from mindsport.games.compare.variates import DEFAULT_FOLDS, correct
from mindsport.games.contract import MAX_PLAYOUTS, Game
from mindsport.games.registry import make_bot
from mindsport.games.specs import parse_spec

__all__ = ["CompareSettings", "Mapper", "compare", "summarize"]

FloatArray = npt.NDArray[np.float64]
T = TypeVar("T")
R = TypeVar("R")

#: the most games one comparison plays between the two bots
MAX_GAMES = 10_000_000


class Mapper(Protocol):
    """What runs the tasks: an executor of :mod:`mindsport.tournament.executors`."""

    workers: int

    def map(self, fn: Callable[[T], R], tasks: Sequence[T], progress: Any = None) -> list[R]: ...


@dataclass(frozen=True, slots=True)
class CompareSettings:
    """How to compare: ``seed``; at most ``max_games`` games between the two bots, in batches of
    ``batch`` duplicate sets; ``stop`` (an :class:`~.sequential.Sprt`, a
    :class:`~.sequential.Width`, or None: play ``max_games``); the reference pairs
    (None: the game's own, ``()``: no luck correction) and ``calibration`` outcomes per set;
    the interval's ``level``; the cross-fitting ``folds``; the least sets before a stop;
    ``actions``: AIVAT's action terms for the decisions whose policy the game knows
    (:mod:`.actions`; on by default, used where the game and the bots allow), each move valued
    by ``playouts`` playouts of the game's own bots where the game can (0: by the game's fixed
    value functions)."""

    seed: int = 0
    max_games: int = 2000
    batch: int = 100
    stop: Sprt | Width | None = None
    references: tuple[tuple[str, str], ...] | None = None
    calibration: int = 4
    level: float = 0.95
    folds: int = DEFAULT_FOLDS
    min_sets: int = 20
    actions: bool = True
    playouts: int = 0

    def __post_init__(self) -> None:
        for name, least, most in (
            ("seed", 0, 2**63 - 1),
            ("max_games", 1, MAX_GAMES),
            ("batch", 1, 1_000_000),
            ("calibration", 1, 64),
            ("folds", 2, 100),
            ("min_sets", 2, 1_000_000),
            ("playouts", 0, MAX_PLAYOUTS),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
                raise MindsportError(f"{name} must be an integer in {least}..{most}, got {value!r}")
        if not (isinstance(self.level, float) and 0.5 <= self.level < 1.0):
            raise MindsportError(f"level must be in [0.5, 1), got {self.level!r}")
        if not isinstance(self.actions, bool):
            raise MindsportError(f"actions must be True or False, got {self.actions!r}")


def _check_spec(game: Game, spec: str, what: str) -> str:
    """``spec`` stripped, after making its bot once (a bad name fails here, before any game)."""
    if not isinstance(spec, str) or not spec.strip():
        raise MindsportError(f"{what} must be a bot spec (a built-in name or cmd:COMMAND)")
    try:
        bot = make_bot(game, spec.strip())
    except MindsportError as exc:
        raise MindsportError(f"{what} {spec.strip()!r}: {exc}") from None
    close = getattr(bot, "close", None)
    if callable(close):
        close()
    return spec.strip()


def _pairs(game: Game, settings: CompareSettings) -> tuple[tuple[str, str], ...]:
    pairs = game.info.references if settings.references is None else settings.references
    for pair in pairs:
        if len(pair) != 2:
            raise MindsportError(f"a reference pair is two bot specs, got {pair!r}")
        for spec in pair:
            if parse_spec(spec).external:
                raise MindsportError(
                    f"reference bot {spec!r}: references are fixed built-in bots, not programs"
                )
    return tuple((str(a), str(b)) for a, b in pairs)


def summarize(
    game: str,
    bots: tuple[str, str],
    played: PlayedSets,
    settings: CompareSettings,
    stopped: str,
) -> Report:
    """The report of the sets ``played`` (see :class:`~.report.Report`)."""
    lineups = played.margins.shape[1]
    n = played.margins.shape[0]
    if n < 2:
        raise MindsportError("a comparison needs at least two duplicate sets")
    deal = played.features - played.calibrated
    acting = played.actions.shape[1] > 0
    comps: dict[str, Comparison] = {}
    finals: dict[str, FloatArray] = {}  # each set's corrected value
    for k, (name, per_game) in enumerate(
        (("win", win_scores(played.margins)), ("score", played.margins))
    ):
        per_set = per_game.mean(axis=1)
        naive_var = stratified_variance(per_game)
        naive = estimate(per_set, settings.level, se=math.sqrt(naive_var / (n * lineups)))
        dup = estimate(per_set, settings.level)
        dealt = correct(per_set, deal, folds=settings.folds).values
        by_deal = estimate(dealt, settings.level)
        cor, final = by_deal, dealt
        if acting:
            acted = per_set - played.actions[:, k]
            final = correct(acted, deal, folds=settings.folds).values
            cor = estimate(final, settings.level)
        comps[name] = Comparison(
            naive=naive,
            duplicate=dup,
            corrected=cor,
            duplicate_gain=_ratio(naive_var, lineups * dup.se**2 * n),
            correction_gain=_ratio(dup.se**2, by_deal.se**2),
            luck=estimate(per_set - final, settings.level),
            deal=by_deal,
            action_gain=_ratio(by_deal.se**2, cor.se**2),
        )
        finals[name] = final
    sprt = settings.stop if isinstance(settings.stop, Sprt) else None
    state = None
    if sprt is not None:
        state = sprt.state(finals["win"])
    return Report(
        game=game,
        first=bots[0],
        second=bots[1],
        seed=settings.seed,
        win=comps["win"],
        margin=comps["score"],
        elo=elo_estimate(comps["win"].corrected, played.games),
        games=played.games,
        reference_games=played.reference_games,
        valued=played.valued,
        playouts=played.playouts,
        sets=n,
        lineups=lineups,
        stopped=stopped,
        sprt=state,
        test=None if sprt is None else sprt.describe(),
    )


def _ratio(before: float, after: float) -> float:
    """``before / after``, 1 when both vanish, capped so that it stays finite."""
    if after <= 0.0:
        return 1.0 if before <= 0.0 else 1e9
    return min(before / after, 1e9)


def _merge(parts: Sequence[PlayedSets]) -> PlayedSets:
    return PlayedSets(
        sets=tuple(s for p in parts for s in p.sets),
        margins=np.concatenate([p.margins for p in parts]),
        features=np.concatenate([p.features for p in parts]),
        calibrated=np.concatenate([p.calibrated for p in parts]),
        games=sum(p.games for p in parts),
        reference_games=sum(p.reference_games for p in parts),
        actions=np.concatenate([p.actions for p in parts]),
        valued=sum(p.valued for p in parts),
        # K of the batches that valued decisions (one that valued none says 0)
        playouts=min((p.playouts for p in parts if p.valued), default=0),
    )


def _decided(report: Report, settings: CompareSettings) -> str | None:
    stop = settings.stop
    if report.sets < settings.min_sets:
        return None
    if isinstance(stop, Sprt) and report.sprt is not None and report.sprt.verdict is not None:
        return f"SPRT accepted {report.sprt.verdict}"
    if isinstance(stop, Width):
        interval = report.win.corrected if stop.metric == "win" else report.margin.corrected
        if interval.width <= stop.width:
            return f"the {stop.metric} interval is {interval.width:.4g} wide"
    return None


def compare(
    game: Game,
    first: str,
    second: str,
    settings: CompareSettings | None = None,
    *,
    executor: Mapper | None = None,
    progress: Callable[[Report], None] | None = None,
) -> Report:
    """Compare bot ``first`` with bot ``second`` (spec strings: built-in names, ``level:N``,
    ``cmd:COMMAND``) at ``game``: duplicate sets in every line-up of the game's rotation, the
    luck correction, intervals and the stopping rule of ``settings``; the tasks run on
    ``executor`` (None: here, one after another). ``progress`` sees the report after each
    batch.

    >>> from mindsport.games.registry import get_game
    >>> r = compare(get_game("junqi"), "greedy", "random", CompareSettings(max_games=8, batch=2,
    ...     calibration=1))
    >>> r.games, r.sets, r.win.duplicate.mean > 0.5
    (8, 4, True)
    """
    settings = CompareSettings() if settings is None else settings
    bots = (_check_spec(game, first, "the first bot"), _check_spec(game, second, "the second bot"))
    pairs = _pairs(game, settings)
    lineups = len(rotation(game.info))
    total_sets = settings.max_games // lineups
    if total_sets < 2:
        raise MindsportError(
            f"max_games {settings.max_games} is less than two duplicate sets of {lineups} games"
        )
    workers = 1 if executor is None else max(1, int(executor.workers))
    parts: list[PlayedSets] = []
    done = 0
    report: Report | None = None
    while done < total_sets:
        batch = range(done, min(total_sets, done + max(settings.batch, 2 if done == 0 else 1)))
        size = max(1, math.ceil(len(batch) / workers))
        tasks = [
            SetsTask(
                game,
                bots[0],
                bots[1],
                pairs,
                settings.calibration,
                settings.seed,
                tuple(batch[i : i + size]),
                settings.actions,
                settings.playouts,
            )
            for i in range(0, len(batch), size)
        ]
        results = (
            [play_sets(t) for t in tasks] if executor is None else executor.map(play_sets, tasks)
        )
        parts.extend(results)
        done = batch.stop
        played = _merge(parts)
        report = summarize(game.info.name, bots, played, settings, "the game budget")
        why = _decided(report, settings)
        if why is not None:
            report = summarize(game.info.name, bots, played, settings, why)
            if progress is not None:
                progress(report)
            break
        if progress is not None:
            progress(report)
    assert report is not None
    return report
