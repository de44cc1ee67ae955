"""The action correction: AIVAT's action terms (Burch et al., "AIVAT: A New Variance Reduction
Technique for Agent Evaluation in Imperfect Information Games", AAAI 2018) for the decisions
whose move distribution is known, as control variates of the duplicate sets.

**What it uses.** A game that knows the policy of some of its built-in bots
(:class:`~mindsport.games.contract.DecisionValuer`; Dou Dizhu: ``random`` and ``level:N``,
whose move is uniformly random with probability ``1 - N/100`` and the strong bot's move
otherwise) replays each game of the two bots and, for every decision ``s`` of such a bot,
computes ``phi(s, a_played) - sum_a pi(a | s) phi(s, a)`` for its value features ``phi``
(the position after the move, all cards known: the terms are computed after the game). A value
function ``V = phi . w`` then has the action term ``(phi(s, a_played) - E_pi phi(s, .)) . w``;
the game returns the feature terms summed per game and deciding seat
(:class:`~mindsport.games.contract.DecisionTerms`), and :func:`action_variates` turns them
into the variates of a set: per side of the deciding seat, the terms oriented to the first
bot's margin and averaged over the set's line-ups. The cross-fitted regression of
:mod:`.variates` chooses ``w`` (one per side) on the *other* folds of sets, so the value
function a set is corrected with is fixed before that set is seen.

**Why the estimate stays unbiased.** Given the position ``s``, the move is drawn from
``pi(. | s)``, so ``E[phi(s, a) - E_pi phi(s, .) | s] = 0`` exactly, whatever the other bots
did before or do after; a sum of such terms over a game (a martingale) has mean zero, and so
has each variate. With ``w`` fitted on other sets (independent of the set), the corrected mean
is unbiased at any number of sets, as the deal correction's is.

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

__all__ = ["action_variates"]

FloatArray = npt.NDArray[np.float64]


def action_variates(rot: Rotation, terms: DecisionTerms, sets: int) -> FloatArray:
    """The action variates of ``sets`` duplicate sets (sets x (sides * features)) from the
    terms of their games (set-major, one game per line-up of ``rot``): for the side ``k`` of
    the deciding seats, the mean over the set's line-ups of ``o_l * sum_{p in side k}
    terms[g, p]``, with ``o_l = sum_q (+1 if the first bot holds seat q else -1) *
    orientation[q]`` turning the game's value into the first bot's margin.

    >>> from mindsport.games.contract import GameInfo
    >>> from mindsport.games.compare.schedule import rotation
    >>> rot = rotation(GameInfo("x", "X", 2, 0.0, "a deal"))
    >>> t = np.array([[[1.0], [0.0]], [[0.0], [2.0]]])  # 2 games x 2 seats x 1 feature
    >>> dt = DecisionTerms(np.zeros((2, 2)), t, np.ones((2, 2)), (1.0, -1.0))
    >>> action_variates(rot, dt, 1).tolist()
    [[1.0, -2.0]]
    """
    t = np.asarray(terms.terms, dtype=np.float64)
    lineups, players = len(rot), rot.players
    if t.ndim != 3 or t.shape[:2] != (sets * lineups, players):
        raise MindsportError(
            f"action terms of shape {t.shape} are not {sets} sets x {lineups} line-ups of "
            f"{players} seats"
        )
    if len(terms.orientation) != players or not np.isfinite(t).all():
        raise MindsportError("the action terms must be finite, with one orientation per seat")
    orient = np.asarray(terms.orientation, dtype=np.float64)
    o = np.array(
        [sum((1.0 if who == 0 else -1.0) * orient[q] for q, who in enumerate(rot.holder(m)))
         for m in range(lineups)]
    )  # fmt: skip
    shaped = t.reshape(sets, lineups, players, -1) * o[None, :, None, None]
    by_side = np.stack([shaped[:, :, list(side), :].sum(axis=2) for side in rot.sides], axis=2)
    out: FloatArray = by_side.mean(axis=1).reshape(sets, -1)
    return out
