"""The report of a comparison: each result (win score, margin) four ways (naive, duplicate,
duplicate and deal-corrected, and with the action correction too) with intervals, the Elo
difference, the games played, the effective-sample gain of each step and how the run stopped;
as text and as JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mindsport.games.compare.estimate import Estimate, elo_of
from mindsport.games.compare.sequential import SprtState

__all__ = ["Comparison", "Report"]


@dataclass(frozen=True, slots=True)
class Comparison:
    """One result four ways. ``naive``: the plain mean of the games with the standard error
    the random-deal design would have with as many games; ``duplicate``: over the duplicate
    sets; ``deal``: duplicate and deal-corrected (:mod:`.variates`); ``corrected``: the
    final estimate, with the action correction too (:mod:`.actions`) where it applied, else
    the deal-corrected one. ``duplicate_gain``, ``correction_gain`` (the deal's) and
    ``action_gain`` are the effective-sample factors of each step (variance before over
    variance after, per game), ``total_gain`` their product. ``luck``: the luck the
    corrections removed, the mean over the sets of each set's duplicate value minus its
    corrected value, with its own interval. Its expectation is zero (the variates' is), so its
    interval covers 0 in about ``level`` of runs; one that misses 0 far more often would
    mean a biased correction. Without any correction it is exactly 0."""

    naive: Estimate
    duplicate: Estimate
    corrected: Estimate
    duplicate_gain: float
    correction_gain: float
    luck: Estimate
    deal: Estimate | None = None
    action_gain: float = 1.0

    @property
    def total_gain(self) -> float:
        return self.duplicate_gain * self.correction_gain * self.action_gain

    def to_json(self) -> dict[str, Any]:
        return {
            "naive": self.naive.to_json(),
            "duplicate": self.duplicate.to_json(),
            "deal": None if self.deal is None else self.deal.to_json(),
            "corrected": self.corrected.to_json(),
            "luck": self.luck.to_json(),
            "duplicate_gain": self.duplicate_gain,
            "correction_gain": self.correction_gain,
            "action_gain": self.action_gain,
            "total_gain": self.total_gain,
        }


@dataclass(frozen=True)
class Report:
    """A comparison of ``first`` against ``second`` at ``game``: the win score and the margin
    (:class:`Comparison`), the Elo difference of the corrected win score with its interval,
    the games (between the two bots; and by the reference bots), the decisions the action
    correction valued (by ``playouts`` playouts a move; 0: by the game's fixed value functions),
    the duplicate sets and line-ups per set, why it stopped, and the SPRT's
    last state when one ran."""

    game: str
    first: str
    second: str
    seed: int
    win: Comparison
    margin: Comparison
    elo: Estimate
    games: int
    reference_games: int
    sets: int
    lineups: int
    stopped: str
    sprt: SprtState | None = None
    test: str | None = None
    valued: int = 0
    playouts: int = 0

    def to_json(self) -> dict[str, Any]:
        sprt = None
        if self.sprt is not None:
            sprt = {
                "test": self.test,
                "llr": self.sprt.llr,
                "lower": self.sprt.lower,
                "upper": self.sprt.upper,
                "verdict": self.sprt.verdict,
            }
        return {
            "game": self.game,
            "first": self.first,
            "second": self.second,
            "seed": self.seed,
            "games": self.games,
            "reference_games": self.reference_games,
            "valued_decisions": self.valued,
            "playouts": self.playouts,
            "sets": self.sets,
            "lineups": self.lineups,
            "stopped": self.stopped,
            "win": self.win.to_json(),
            "margin": self.margin.to_json(),
            "elo": self.elo.to_json(),
            "sprt": sprt,
        }

    def lines(self) -> list[str]:
        """The report as lines of text."""
        pct = round(100 * self.win.corrected.level)
        out = [
            f"{self.first} against {self.second} at {self.game} (seed {self.seed}): "
            f"{self.games} games in {self.sets} duplicate sets of {self.lineups} line-ups, "
            f"{self.reference_games} reference games, {self.valued} decisions valued"
            f"{f' by {self.playouts} playouts a move' if self.playouts else ''}; "
            f"stopped: {self.stopped}",
        ]
        if self.sprt is not None:
            s = self.sprt
            out.append(
                f"{self.test}: LLR {s.llr:.3f} in [{s.lower:.3f}, {s.upper:.3f}] -> "
                f"{s.verdict or 'undecided'}"
            )
        out.append(f"{'':<16}{'naive':>26}{'duplicate':>26}{'corrected':>26}")
        for name, comp, digits in (("win score", self.win, 4), ("margin", self.margin, 3)):
            cells = [
                f"{e.mean:.{digits}f} [{e.low:.{digits}f}, {e.high:.{digits}f}]"
                for e in (comp.naive, comp.duplicate, comp.corrected)
            ]
            out.append(f"{name:<16}" + "".join(f"{c:>26}" for c in cells))
        luck = [
            f"{name} {c.luck.mean:.{d}f} [{c.luck.low:.{d}f}, {c.luck.high:.{d}f}]"
            for name, c, d in (("win score", self.win, 4), ("margin", self.margin, 3))
        ]
        out.append("luck removed (duplicate minus corrected, expected 0): " + ", ".join(luck))
        e = self.elo
        out.append(
            f"Elo difference (corrected win score): {e.mean:.1f} "
            f"[{e.low:.1f}, {e.high:.1f}] ({pct}%)"
        )
        for name, comp in (("win score", self.win), ("margin", self.margin)):
            out.append(
                f"effective-sample gain, {name}: duplicate x{comp.duplicate_gain:.2f}, "
                f"then deal correction x{comp.correction_gain:.2f}, then action correction "
                f"x{comp.action_gain:.2f} (total x{comp.total_gain:.2f})"
            )
        return out


def elo_estimate(win: Estimate, games: int) -> Estimate:
    """The Elo difference of a win-score estimate: its mean and interval ends mapped by
    :func:`~.estimate.elo_of` (monotone), the standard error by the delta method."""
    import math

    w = min(max(win.mean, 1e-9), 1 - 1e-9)
    slope = 400.0 / math.log(10.0) / (w * (1.0 - w))
    return Estimate(
        elo_of(win.mean, games),
        min(slope * win.se, 1e6),
        elo_of(win.low, games),
        elo_of(win.high, games),
        win.level,
        win.units,
    )
