"""The exact distribution of a card tracker's unseen cards over the two other hands.

With two columns the weighted distribution of :class:`~mindsport.doudizhu.tracking.CardTracker`
factorises over groups of rows with equal weights ``(a, b)``: ``k`` of a group's ``n`` rows go
to the first opponent with weight ``C(n, k) a^k b^(n-k)``, subject to the total being the first
opponent's hand size. A dynamic programme over the groups (a knapsack over the hand size) gives
the normaliser, the exact marginals (:meth:`HandSplits.exact_rows`), exact event probabilities
by enumeration (:meth:`HandSplits.probability`, small unseen sets) and exact independent
samples (:meth:`HandSplits.sample_hands`: backward sampling through the same table, no
rejection, no importance weights).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu.cards import N_RANKS, Counts
from mindsport.errors import MindsportError

__all__ = ["HandSplits", "Hands", "TrackingError"]

FloatArray = npt.NDArray[np.float64]
Hands = tuple[Counts, Counts, Counts]


class TrackingError(MindsportError):
    """Tracker input that cannot be right: a bad seat, kitty or history, or a view that does not
    continue what the tracker has seen."""


@dataclass(frozen=True)
class HandSplits:
    """The splits of the unseen cards between the two opponents of ``seat``: ``weights`` (rows
    x 2, the belief matrix's row weights), the rank of each row, ``target`` the cards the first
    opponent holds, and the viewer's own current hand (placed at its seat in every split)."""

    weights: FloatArray
    row_ranks: tuple[int, ...]
    target: int
    seat: int
    opponents: tuple[int, int]
    own: Counts

    def _groups(self) -> tuple[list[int], list[int], FloatArray, FloatArray, list[list[int]]]:
        """Rows grouped by (rank, weights): ranks, sizes, weights a (first opponent), b, rows."""
        w = self.weights
        keys: dict[tuple[int, float, float], int] = {}
        ranks: list[int] = []
        rows: list[list[int]] = []
        a: list[float] = []
        b: list[float] = []
        for i, r in enumerate(self.row_ranks):
            wa, wb = float(w[i, 0]), float(w[i, 1])
            s = wa + wb
            key = (r, wa / s, wb / s)
            g = keys.get(key)
            if g is None:
                g = keys[key] = len(ranks)
                ranks.append(r)
                rows.append([])
                a.append(wa / s)
                b.append(wb / s)
            rows[g].append(i)
        sizes = [len(x) for x in rows]
        return ranks, sizes, np.array(a), np.array(b), rows

    def _tables(self) -> tuple[list[int], list[int], list[FloatArray], FloatArray, list[list[int]]]:
        """Forward table ``F[g][s]`` (weight of groups < g putting s cards with opponent 0) and
        per-group term tables ``T[g][k] = C(n, k) a^k b^(n-k)``."""
        ranks, sizes, a, b, rows = self._groups()
        target = self.target
        terms = [
            np.array([math.comb(n, k) * a[g] ** k * b[g] ** (n - k) for k in range(n + 1)])
            for g, n in enumerate(sizes)
        ]
        forward = np.zeros((len(sizes) + 1, target + 1))
        forward[0, 0] = 1.0
        for g, n in enumerate(sizes):
            for k in range(min(n, target) + 1):
                if terms[g][k] > 0:
                    forward[g + 1, k:] += terms[g][k] * forward[g, : target + 1 - k]
        if forward[-1, target] <= 0:
            raise TrackingError("no split of the unseen cards fits the evidence")
        return ranks, sizes, terms, forward, rows

    def _group_marginals(self) -> tuple[list[int], list[FloatArray], list[list[int]]]:
        """Exact distribution of the number of each group's rows with opponent 0."""
        _, sizes, terms, forward, rows = self._tables()
        target = self.target
        n_groups = len(sizes)
        backward = np.zeros((n_groups + 1, target + 1))  # weight of groups >= g taking s
        backward[n_groups, 0] = 1.0
        for g in range(n_groups - 1, -1, -1):
            for k in range(min(sizes[g], target) + 1):
                if terms[g][k] > 0:
                    backward[g, k:] += terms[g][k] * backward[g + 1, : target + 1 - k]
        z = forward[-1, target]
        dists: list[FloatArray] = []
        for g in range(n_groups):
            d = np.zeros(sizes[g] + 1)
            for k in range(sizes[g] + 1):
                if terms[g][k] > 0 and k <= target:
                    rest = target - k
                    d[k] = terms[g][k] * float(
                        np.dot(forward[g, : rest + 1], backward[g + 1, rest::-1])
                    )
            dists.append(d / z)
        return sizes, dists, rows

    def exact_rows(self, n_rows: int) -> FloatArray:
        """Rows x 2: the exact probability that each unseen card is with each opponent."""
        out = np.zeros((n_rows, 2))
        sizes, dists, rows = self._group_marginals()
        for g, n in enumerate(sizes):
            p = float(np.dot(np.arange(n + 1), dists[g])) / n
            out[rows[g], 0] = p
            out[rows[g], 1] = 1.0 - p
        return out

    def _hands_from(self, ranks: list[int], ks: Sequence[int], sizes: list[int]) -> Hands:
        first = [0] * N_RANKS
        second = [0] * N_RANKS
        for r, k, n in zip(ranks, ks, sizes, strict=True):
            first[r] += k
            second[r] += n - k
        hands: list[Counts] = [(), (), ()]
        hands[self.seat] = self.own
        hands[self.opponents[0]] = tuple(first)
        hands[self.opponents[1]] = tuple(second)
        return hands[0], hands[1], hands[2]

    def sample_hands(self, rng: np.random.Generator, n: int) -> list[Hands]:
        """``n`` independent exact draws of the three current hands (the viewer's own hand at
        its seat), consistent with all hard evidence and weighted by the soft evidence."""
        if n < 0:
            raise TrackingError(f"number of samples must be >= 0, got {n}")
        ranks, sizes, terms, forward, _ = self._tables()
        target = self.target
        ks = np.zeros((n, len(sizes)), dtype=np.int64)
        remaining = np.full(n, target, dtype=np.int64)
        for g in range(len(sizes) - 1, -1, -1):
            # P(k | remaining s) = T[g][k] F[g][s - k] / F[g + 1][s]
            k_range = np.arange(sizes[g] + 1)
            prev = remaining[:, None] - k_range[None, :]
            ok = prev >= 0
            f = np.where(ok, forward[g][np.clip(prev, 0, target)], 0.0)
            w = f * terms[g][None, :]
            cum = np.cumsum(w, axis=1)
            u = rng.random(n) * cum[:, -1]
            k = (u[:, None] >= cum).sum(axis=1)
            k = np.minimum(k, sizes[g])
            ks[:, g] = k
            remaining -= k
        return [self._hands_from(ranks, ks[i].tolist(), sizes) for i in range(n)]

    def count_splits(self) -> int:
        """Number of distinct (rank-level) splits of the unseen cards the evidence allows."""
        _, sizes, terms, _, _ = self._tables()
        target = self.target
        ways = [0] * (target + 1)
        ways[0] = 1
        for g, n in enumerate(sizes):
            nxt = [0] * (target + 1)
            for s, c in enumerate(ways):
                if c:
                    for k in range(n + 1):
                        if terms[g][k] > 0 and s + k <= target:
                            nxt[s + k] += c
            ways = nxt
        return ways[target]

    def splits(self, max_splits: int = 50_000) -> list[tuple[float, Hands]]:
        """Every allowed split with its exact probability (raises when there are more than
        ``max_splits``)."""
        total = self.count_splits()
        if total > max_splits:
            raise TrackingError(f"{total} splits exceed max_splits={max_splits}")
        ranks, sizes, terms, forward, _ = self._tables()
        target = self.target
        z = forward[-1, target]
        out: list[tuple[float, Hands]] = []
        ks = [0] * len(sizes)

        def rec(g: int, remaining: int, weight: float) -> None:
            if g < 0:
                if remaining == 0:
                    out.append((weight / z, self._hands_from(ranks, ks, sizes)))
                return
            for k in range(min(sizes[g], remaining) + 1):
                t = terms[g][k]
                if t > 0 and forward[g][remaining - k] > 0:
                    ks[g] = k
                    rec(g - 1, remaining - k, weight * t)
            ks[g] = 0

        rec(len(sizes) - 1, target, 1.0)
        return out

    def probability(
        self,
        event: Callable[[Hands], bool],
        *,
        rng: np.random.Generator | None = None,
        samples: int = 2000,
        max_splits: int = 50_000,
    ) -> float:
        """Probability of ``event(hands)`` (hands indexed by seat): exact by enumerating the
        splits when there are at most ``max_splits``, else the frequency in ``samples`` draws
        (``rng`` required then)."""
        if self.count_splits() <= max_splits:
            return float(sum(p for p, hands in self.splits(max_splits) if event(hands)))
        if rng is None:
            raise TrackingError(
                f"more than {max_splits} splits: pass rng= to estimate the probability by sampling"
            )
        draws = self.sample_hands(rng, samples)
        return sum(1 for h in draws if event(h)) / max(1, samples)
