"""Probability-matrix inference over hidden assignments (the Junqi patent, done right).

* :class:`BeliefMatrix`: fitted by iterative proportional fitting (Sinkhorn), mutable with
  :meth:`~BeliefMatrix.copy`; impossible observations raise :class:`InfeasibleObservationError`.
* :class:`PatentMatrix`: the Junqi patent's one-pass row/column update, kept as a baseline.
* :func:`exact_marginals` / :func:`enumerate_marginals`: exact answers for small cases;
  :func:`mcmc_marginals`: a Metropolis estimate with its standard error.

"The Junqi patent" is the Chinese patent "一種機器博弈優化方法" (a machine game optimisation
method): a probability matrix of which hidden Luzhanqi piece is where, updated row by row and
column by column as pieces move and collide.

May import: errors (and files). The lowest of the game layers (belief < games < the game
packages < tournament < event): nothing here knows a game.
"""

from mindsport.belief.exact import count_assignments, enumerate_marginals, exact_marginals
from mindsport.belief.feasibility import InfeasibleObservationError
from mindsport.belief.matrix import BeliefMatrix, sinkhorn
from mindsport.belief.patent import PatentMatrix
from mindsport.belief.sampler import MarginalEstimate, mcmc_marginals

__all__ = [
    "BeliefMatrix",
    "InfeasibleObservationError",
    "MarginalEstimate",
    "PatentMatrix",
    "count_assignments",
    "enumerate_marginals",
    "exact_marginals",
    "mcmc_marginals",
    "sinkhorn",
]
