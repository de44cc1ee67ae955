"""Per-round score distributions: validation and the distribution of a total over rounds."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from mindsport.tournament.errors import TournamentError

__all__ = ["ScoreDistribution", "score_distribution", "total_distribution"]

#: probabilities must sum to 1 within this tolerance (they are then renormalised)
PROBABILITY_TOLERANCE = 1e-6
#: largest lattice of totals we agree to build (values between the smallest and largest total)
MAX_LATTICE = 50_000

ScoreDistribution = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]


def score_distribution(scores: npt.ArrayLike, probs: npt.ArrayLike) -> ScoreDistribution:
    """Check and normalise a discrete distribution: distinct sorted scores, probabilities > 0.

    Scores of probability 0 are dropped and repeated scores merged. Raises
    :class:`TournamentError` naming the input when the two lists differ in length, a value is
    not finite, a probability is negative or the probabilities do not sum to 1.

    >>> s, p = score_distribution([2, -1, 1, -2], [0, 0.6, 0.4, 0])
    >>> s.tolist(), p.tolist()
    ([-1.0, 1.0], [0.6, 0.4])
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    p = np.asarray(probs, dtype=np.float64).ravel()
    if s.size == 0:
        raise TournamentError("scores is empty: a distribution needs at least one score")
    if s.size != p.size:
        raise TournamentError(
            f"scores and probs differ in length ({s.size} scores, {p.size} probabilities)"
        )
    if not np.all(np.isfinite(s)):
        raise TournamentError(f"scores contains a non-finite value: {s.tolist()}")
    if not np.all(np.isfinite(p)):
        raise TournamentError(f"probs contains a non-finite value: {p.tolist()}")
    if np.any(p < 0):
        raise TournamentError(f"probs contains a negative probability: {p.tolist()}")
    total = float(p.sum())
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise TournamentError(f"probs sum to {total!r}, not 1: {p.tolist()}")
    keep = p > 0
    # renormalise only when it matters, so stored distributions read back bit for bit
    s, p = s[keep], (p[keep] / total if abs(total - 1.0) > 1e-12 else p[keep])
    values, inverse = np.unique(s, return_inverse=True)
    merged = np.zeros(values.size, dtype=np.float64)
    np.add.at(merged, inverse, p)
    return values, merged


def _lattice(values: npt.NDArray[np.float64]) -> tuple[Fraction, Fraction, list[int]]:
    """Express the values as ``origin + step * k`` with integer k (exact binary fractions)."""
    fracs = [Fraction(float(v)) for v in values]
    origin = fracs[0]
    offsets = [f - origin for f in fracs]
    if len(offsets) == 1:
        return origin, Fraction(1), [0]
    den = 1
    for f in offsets:
        den = den * f.denominator // math.gcd(den, f.denominator)
    g = 0
    for f in offsets:
        g = math.gcd(g, int(f * den))
    step = Fraction(g, den)
    return origin, step, [int(f / step) for f in offsets]


def total_distribution(
    scores: npt.ArrayLike, probs: npt.ArrayLike, rounds: int
) -> ScoreDistribution:
    """Distribution of the sum of ``rounds`` independent draws (support ascending, probs > 0).

    Exact convolution on the lattice spanned by the scores (no FFT, so tiny tail probabilities
    keep their relative accuracy).

    >>> import numpy as np
    >>> v, p = total_distribution([-2, -1, 1, 2], [0, 0.6, 0.4, 0], 2)
    >>> v.tolist(), np.round(p, 12).tolist()
    ([-2.0, 0.0, 2.0], [0.36, 0.48, 0.16])
    """
    if isinstance(rounds, bool) or int(rounds) != rounds or rounds < 1:
        raise TournamentError(f"rounds must be a positive integer, got {rounds!r}")
    rounds = int(rounds)
    values, p = score_distribution(scores, probs)
    origin, step, ks = _lattice(values)
    width = ks[-1] * rounds + 1
    if width > MAX_LATTICE:
        raise TournamentError(
            f"scores {values.tolist()} over {rounds} rounds span {width} lattice points "
            f"(limit {MAX_LATTICE}); use scores on a coarser grid"
        )
    kernel = np.zeros(ks[-1] + 1, dtype=np.float64)
    kernel[ks] = p
    dist = np.ones(1, dtype=np.float64)
    base = kernel
    r = rounds
    while r:  # exponentiation by squaring of the convolution power
        if r & 1:
            dist = np.convolve(dist, base)
        r >>= 1
        if r:
            base = np.convolve(base, base)
    support = np.nonzero(dist > 0)[0]
    totals = np.array([float(origin * rounds + step * int(k)) for k in support], dtype=np.float64)
    out = dist[support]
    return totals, out / out.sum()
