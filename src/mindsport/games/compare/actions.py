"""The action correction: AIVAT's action terms (Burch et al., "AIVAT: A New Variance Reduction
Technique for Agent Evaluation in Imperfect Information Games", AAAI 2018) for the decisions
whose move distribution is known, as control variates of the duplicate sets.

**What it uses.** A game that knows the policy of some of its built-in bots
(:class:`~mindsport.games.contract.DecisionValuer`; Dou Dizhu: ``random`` and ``level:N``,
whose move is uniformly random with probability ``1 - N/100`` and the strong bot's move
otherwise) replays each game of the two bots and, for every decision ``s`` of such a bot,
computes ``V(s, a_played) - sum_a pi(a | s) V(s, a)`` for its value functions ``V`` (the
position after the move, all cards known: the terms are computed after the game), which are
fixed before any game is played (Dou Dizhu's were fitted once on games of a key stream no
comparison draws on). It returns them summed per game and deciding seat
(:class:`~mindsport.games.contract.DecisionTerms`), one value function valuing the win score
and one the margin. :func:`action_variates` turns them into the action variate of a set for
each result: the terms of every valued decision turned to the first bot's side and averaged
over the set's line-ups.

**The estimate.** The action-corrected value of set ``i`` is ``y_i - a_i``: the set's result
less its action variate, with coefficient 1 as in AIVAT (the deal correction of
:mod:`.variates` is then fitted on these values). Nothing is fitted on the comparison's games
for it, so the sets' corrected values stay independent and identically distributed and the
Student-t interval keeps its level (a coefficient fitted on other folds, tried first, made the
interval too narrow at a few hundred sets: the fitted coefficients' noise is shared between
folds).

**Why the estimate stays unbiased.** Given the position ``s``, the move is drawn from
``pi(. | s)``, so ``E[V(s, a) - E_pi V(s, .) | s] = 0`` exactly, whatever the other bots
did before or do after; a sum of such terms over a game (a martingale) has mean zero, and so
has each variate: ``E[y_i - a_i] = E[y_i]`` at any number of sets.

**Why it cannot be gamed.** Only decisions whose distribution the game itself knows are
valued: the bot's code is the package's, the distribution is read from the bot's definition,
not from anything the bot reports. A bot whose policy is not known (an external ``cmd:``
program, whose choices could depend on anything, or a built-in bot with an unpublished
policy) gets no term: were it valued with a guessed ``pi``, a program could pick the moves
the value function rates low and make the terms' mean non-zero. Deterministic bots need
none (their term is zero). An external bot can influence the positions the known bots face,
but each term is zero-mean *given* the position, so no choice of positions moves the mean.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mindsport.errors import MindsportError
from mindsport.games.compare.schedule import Rotation
from mindsport.games.contract import DecisionTerms

__all__ = ["RESULTS", "action_variates"]

#: the results the action variates correct, in their columns' order
RESULTS: tuple[str, ...] = ("win", "score")

FloatArray = npt.NDArray[np.float64]


def action_variates(rot: Rotation, terms: DecisionTerms, sets: int) -> FloatArray:
    """The action variates of ``sets`` duplicate sets (sets x 2: the win score's, the
    margin's) from the terms of their games (set-major, one game per line-up of ``rot``): for
    each value function named ``"win"`` or ``"score"`` (:attr:`DecisionTerms.values`; a
    missing one gives zeros), the mean over the set's line-ups of ``o_l * sum_p terms[g, p]``,
    where ``o_l = sum_q (+1 if the first bot holds seat q else -1) * orientation[q]`` turns
    the game's value into the first bot's.

    >>> from mindsport.games.contract import GameInfo
    >>> from mindsport.games.compare.schedule import rotation
    >>> rot = rotation(GameInfo("x", "X", 2, 0.0, "a deal"))
    >>> t = np.array([[[1.0], [0.5]], [[0.0], [2.0]]])  # 2 games x 2 seats x 1 value
    >>> dt = DecisionTerms(np.zeros((2, 2)), t, np.ones((2, 2)), (1.0, -1.0), ("score",))
    >>> action_variates(rot, dt, 1).tolist()
    [[0.0, -0.5]]
    """
    t = np.asarray(terms.terms, dtype=np.float64)
    lineups, players = len(rot), rot.players
    if t.ndim != 3 or t.shape[:2] != (sets * lineups, players):
        raise MindsportError(
            f"action terms of shape {t.shape} are not {sets} sets x {lineups} line-ups of "
            f"{players} seats"
        )
    if len(terms.orientation) != players or len(terms.values) != t.shape[2]:
        raise MindsportError("the action terms need one orientation per seat, one name per value")
    if not np.isfinite(t).all():
        raise MindsportError("the action terms must be finite")
    orient = np.asarray(terms.orientation, dtype=np.float64)
    o = np.array(
        [sum((1.0 if who == 0 else -1.0) * orient[q] for q, who in enumerate(rot.holder(m)))
         for m in range(lineups)]
    )  # fmt: skip
    oriented = (t.sum(axis=1).reshape(sets, lineups, -1) * o[None, :, None]).mean(axis=1)
    out: FloatArray = np.zeros((sets, len(RESULTS)))
    for k, name in enumerate(RESULTS):
        if name in terms.values:
            out[:, k] = oriented[:, terms.values.index(name)]
    return out
