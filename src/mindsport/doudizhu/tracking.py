"""Card tracking: which unseen card is in which opponent's hand, from one seat's view.

:class:`CardTracker` follows the public play from one seat and keeps a
:class:`~mindsport.belief.BeliefMatrix` (the Junqi patent's probability matrix):

* **Rows** are the unseen cards, one row per physical card (``7`` twice unseen = two rows).
  Copies of a rank are exchangeable: every observation treats all free rows of a rank alike, so
  they always carry identical weights. Rows are labelled ``(rank, copy, fixed)``.
* **Columns** are the two other seats (:attr:`CardTracker.opponents`, in seat order); column
  sums are their hand sizes.

The model is the usual one for card tracking (as in perfect-information Monte Carlo): the
unseen cards are spread over the two hands uniformly at random among the labelled assignments
that respect the *hard* evidence, re-weighted by the *soft* evidence. Evidence:

* **Cards played** (hard): an opponent's play removes one row per card from that seat's column
  (its hand size drops). The play itself says nothing else about the remaining cards.
* **The kitty** (hard): the landlord's 3 kitty cards are public. For a farmer's view they are rows
  fixed to the landlord (:meth:`~mindsport.belief.BeliefMatrix.only`), the other copies of their
  ranks stay free. A kitty card is known to be in the landlord's hand *until played*: when the
  landlord plays a rank the kitty holds, a fixed row of that rank is removed first (the usual
  card-counting convention; it is exact Bayes when the landlord's choice of play depends only on
  how many cards of each rank it holds, while the plain removal of a free row is exact Bayes when
  the choice is uniform over physical cards: the two idealisations differ slightly, and neither
  is how people play). The kitty is not part of :class:`~mindsport.doudizhu.state.StateView`
  (nor of :class:`~mindsport.doudizhu.deal.Deal`), so it is passed in explicitly when known.
* **Hand sizes** (hard): the column sums; checked against the view on every update.
* **Passes** (soft): Dou Dizhu never obliges a player to beat, so a pass never forces a zero.
  A pass on an *opponent's* play (a farmer passing on the partner's play says nothing) is read
  with a per-card likelihood (:class:`PassModel`): each unseen card of a rank that beats a single
  (pair, trio-based play) of main rank ``m`` has its weight in the passer's column multiplied by
  ``single`` (``pair ** (1/2)``, ``trio ** (1/3)``), so a passer who would have held a whole
  beating group is ``single`` (``pair``, ``trio``) times as likely as before. Chains, bombs and
  the rocket are not read (strong players keep bombs and break no chains to answer).
  The default 0.5 was chosen on :class:`~mindsport.doudizhu.bots.StrongBot` self-play (150
  games, one seat each, every 5th action) as the best of 1, 0.7, 0.5, 0.3, 0.15, 0.05 for the
  mean log-probability of the true holders (-0.5957 against -0.5996 with passes ignored; smaller
  factors raise the mean probability but are over-confident); ``benchmarks/ddz_tracking.py``
  reports the accuracy. ``PassModel.none()`` uses hard evidence only.

Two ways to read the matrix:

* :meth:`CardTracker.probabilities` (``method="ipf"``): the fitted matrix, iterative proportional
  fitting as in :mod:`mindsport.belief` (an approximation of the exact marginals; exact when only
  hard evidence was seen, since rows of a rank then share their weights and the fit is uniform
  within each group).
* ``method="exact"``: the exact marginals of the weighted distribution. With two columns the
  distribution factorises over groups of rows with equal weights ``(a, b)``: ``k`` of a group's
  ``n`` rows go to the first opponent with weight ``C(n, k) a^k b^(n-k)``, subject to the total
  being the first opponent's hand size. A dynamic programme over the groups (a knapsack over the
  hand size) gives the normaliser, the exact marginals, exact event probabilities by enumeration
  (:meth:`CardTracker.probability`, small unseen sets) and **exact independent samples**
  (:meth:`CardTracker.sample_hands`: backward sampling through the same table, no rejection,
  no importance weights). Samples are therefore always consistent with the hard evidence and
  distributed as the soft evidence says.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mindsport.belief import BeliefMatrix, InfeasibleObservationError
from mindsport.doudizhu.cards import (
    BIG_JOKER,
    DECK_COUNTS,
    N_RANKS,
    RANKS,
    SMALL_JOKER,
    TWO,
    Counts,
    format_counts,
    parse_counts,
)
from mindsport.doudizhu.moves import Kind, Move, can_beat
from mindsport.doudizhu.splits import Hands, HandSplits, TrackingError
from mindsport.doudizhu.state import LANDLORD, StateView
from mindsport.errors import MindsportError

__all__ = ["CardTracker", "PassModel", "TrackingError"]

FloatArray = npt.NDArray[np.float64]
RowLabel = tuple[int, int, bool]

_TRIO_KINDS = (Kind.TRIO, Kind.TRIO_SINGLE, Kind.TRIO_PAIR)


@dataclass(frozen=True, slots=True)
class PassModel:
    """Likelihood factors for a pass on an opponent's play (1.0 = no evidence; must be > 0).

    ``single``: factor per unseen card that would have beaten a single; ``pair`` / ``trio``:
    factor per whole beating pair / trio (applied as ``pair ** (1/2)`` / ``trio ** (1/3)`` per
    card of each beating rank).
    """

    single: float = 0.5
    pair: float = 0.5
    trio: float = 0.5

    def __post_init__(self) -> None:
        for name in ("single", "pair", "trio"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value <= 1):
                raise TrackingError(f"PassModel.{name} must be in (0, 1], got {value!r}")

    @classmethod
    def none(cls) -> PassModel:
        """Hard evidence only: passes are ignored."""
        return cls(1.0, 1.0, 1.0)

    def factors(self, move: Move) -> tuple[tuple[int, ...], float]:
        """Ranks whose unseen cards are down-weighted by a pass on ``move``, and the per-card
        factor."""
        kind, m = move.kind, move.main
        if kind is Kind.SINGLE:
            return tuple(range(m + 1, N_RANKS)), self.single
        if kind is Kind.PAIR:
            return tuple(range(m + 1, TWO + 1)), self.pair**0.5
        if kind in _TRIO_KINDS:
            return tuple(range(m + 1, TWO + 1)), self.trio ** (1 / 3)
        return (), 1.0


def _counts_of(cards: str | Sequence[int], what: str) -> Counts:
    if isinstance(cards, str):
        try:
            return parse_counts(cards)
        except MindsportError as exc:
            raise TrackingError(f"bad {what} {cards!r}: {exc}") from None
    c = tuple(int(x) for x in cards)
    if len(c) != N_RANKS or any(x < 0 or x > d for x, d in zip(c, DECK_COUNTS, strict=True)):
        raise TrackingError(f"bad {what} {cards!r}: need {N_RANKS} counts within the deck")
    return c


class CardTracker:
    """Probability matrix of the unseen cards over the two other seats (see the module note).

    ``seat``: the viewer (0 landlord, 1 farmer 1, 2 farmer 2); ``hand``: the viewer's hand at the
    start of play (20 cards for the landlord, 17 for a farmer); ``kitty``: the landlord's 3
    public kitty cards, if known; ``pass_model``: the soft evidence read from passes.

    >>> t = CardTracker(1, "3334445556667778T", kitty="XD2")
    >>> t.opponents, t.hand_sizes
    ((0, 2), (20, 17))
    >>> float(t.rank_expectation()[BIG_JOKER, 0])  # the big joker is in the kitty
    1.0
    """

    def __init__(
        self,
        seat: int,
        hand: str | Sequence[int],
        *,
        kitty: str | Sequence[int] | None = None,
        pass_model: PassModel | None = None,
    ) -> None:
        if seat not in (0, 1, 2):
            raise TrackingError(f"seat must be 0, 1 or 2, got {seat!r}")
        own = _counts_of(hand, "hand")
        size = 20 if seat == LANDLORD else 17
        if sum(own) != size:
            raise TrackingError(
                f"hand {format_counts(own)!r} of seat {seat} has {sum(own)} cards, not {size}"
            )
        self.seat = seat
        self.initial_hand: Counts = own
        self.pass_model = pass_model if pass_model is not None else PassModel()
        self.opponents: tuple[int, int] = tuple(s for s in range(3) if s != seat)  # type: ignore[assignment]
        kitty_counts: Counts | None = None
        if kitty is not None:
            kitty_counts = _counts_of(kitty, "kitty")
            if sum(kitty_counts) != 3:
                raise TrackingError(f"kitty {format_counts(kitty_counts)!r} must have 3 cards")
            if seat == LANDLORD:
                if any(k > h for k, h in zip(kitty_counts, own, strict=True)):
                    raise TrackingError(
                        f"kitty {format_counts(kitty_counts)!r} is not in the landlord's hand "
                        f"{format_counts(own)!r}"
                    )
            elif any(k + h > d for k, h, d in zip(kitty_counts, own, DECK_COUNTS, strict=True)):
                raise TrackingError(
                    f"kitty {format_counts(kitty_counts)!r} overlaps the hand "
                    f"{format_counts(own)!r} beyond the deck"
                )
        self.kitty = kitty_counts
        unseen = [d - h for d, h in zip(DECK_COUNTS, own, strict=True)]
        fixed = [0] * N_RANKS
        if kitty_counts is not None and seat != LANDLORD:
            fixed = list(kitty_counts)
        labels: list[RowLabel] = []
        self._free: list[list[RowLabel]] = [[] for _ in range(N_RANKS)]
        self._fixed: list[list[RowLabel]] = [[] for _ in range(N_RANKS)]
        for r in range(N_RANKS):
            for k in range(unseen[r]):
                label = (r, k, k < fixed[r])
                labels.append(label)
                (self._fixed if label[2] else self._free)[r].append(label)
        sizes = [20 if s == LANDLORD else 17 for s in self.opponents]
        self._matrix = BeliefMatrix(
            len(labels), sizes, row_labels=labels, column_labels=list(self.opponents)
        )
        for r in range(N_RANKS):
            for label in self._fixed[r]:
                self._matrix.only(self._matrix.row_index(label), [LANDLORD])
        self._history: list[tuple[int, Move | None]] = []
        self._last: Move | None = None
        self._last_player = -1
        self._current = LANDLORD
        self._left = [20, 17, 17]

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_view(
        cls,
        view: StateView,
        *,
        kitty: str | Sequence[int] | None = None,
        pass_model: PassModel | None = None,
    ) -> CardTracker:
        """A tracker for ``view.seat`` that has seen ``view.history``."""
        played = view.played(view.seat)
        initial = tuple(h + p for h, p in zip(view.hand, played, strict=True))
        tracker = cls(view.seat, initial, kitty=kitty, pass_model=pass_model)
        tracker.update(view)
        return tracker

    def copy(self) -> CardTracker:
        """An independent copy."""
        new = CardTracker.__new__(CardTracker)
        new.seat = self.seat
        new.initial_hand = self.initial_hand
        new.pass_model = self.pass_model
        new.opponents = self.opponents
        new.kitty = self.kitty
        new._free = [list(x) for x in self._free]
        new._fixed = [list(x) for x in self._fixed]
        new._matrix = self._matrix.copy()
        new._history = list(self._history)
        new._last = self._last
        new._last_player = self._last_player
        new._current = self._current
        new._left = list(self._left)
        return new

    # ------------------------------------------------------------------ observing
    @property
    def history(self) -> tuple[tuple[int, Move | None], ...]:
        """The actions seen so far."""
        return tuple(self._history)

    def follows(self, view: StateView) -> bool:
        """True when ``view`` is this seat's view of the game this tracker has been following
        (same starting hand, history continuing the one seen)."""
        if view.seat != self.seat or len(view.history) < len(self._history):
            return False
        played = view.played(view.seat)
        initial = tuple(h + p for h, p in zip(view.hand, played, strict=True))
        return initial == self.initial_hand and view.history[: len(self._history)] == tuple(
            self._history
        )

    def update(self, view: StateView) -> None:
        """Observe the actions of ``view.history`` not seen yet; checks the hand sizes."""
        if not self.follows(view):
            raise TrackingError(
                f"the view of seat {view.seat} (hand {view.hand_text!r}, "
                f"{len(view.history)} actions) does not continue the game tracked for seat "
                f"{self.seat} ({len(self._history)} actions seen)"
            )
        for seat, action in view.history[len(self._history) :]:
            self.observe(seat, action)
        if tuple(view.cards_left) != tuple(self._left):
            raise TrackingError(
                f"cards left {view.cards_left} in the view disagree with the tracked {self._left}"
            )

    def observe(self, seat: int, action: Move | None) -> None:
        """Observe one action (in turn order): ``action`` is a :class:`Move` or ``None``.

        An impossible action raises :class:`TrackingError` and leaves the tracker unchanged.
        """
        if seat != self._current:
            raise TrackingError(f"seat {seat} acted but it is seat {self._current}'s turn")
        leading = self._last_player in (-1, seat)
        if action is None:
            if leading:
                raise TrackingError(f"seat {seat} passed while leading")
            if seat != self.seat and self._last is not None:
                self._read_pass(seat, self._last, self._last_player)
        else:
            if action.size > self._left[seat]:
                raise TrackingError(
                    f"seat {seat} played {action.cards!r} with {self._left[seat]} cards left"
                )
            if seat != self.seat:
                saved = (
                    self._matrix,
                    [list(x) for x in self._free],
                    [list(x) for x in self._fixed],
                )
                self._matrix = self._matrix.copy()
                try:
                    self._remove_cards(seat, action)
                except TrackingError:  # leave the tracker as it was
                    self._matrix, self._free, self._fixed = saved
                    raise
            else:
                own = self._own_played()
                if any(
                    n + o > h for n, o, h in zip(action.counts, own, self.initial_hand, strict=True)
                ):
                    raise TrackingError(
                        f"seat {seat} played {action.cards!r}, which is not in its hand"
                    )
            self._left[seat] -= action.size
            self._last = action
            self._last_player = seat
        self._history.append((seat, action))
        self._current = (seat + 1) % 3

    def _remove_cards(self, seat: int, move: Move) -> None:
        for r, n in enumerate(move.counts):
            for _ in range(n):
                pool = self._fixed[r] if seat == LANDLORD and self._fixed[r] else self._free[r]
                if not pool:
                    raise TrackingError(
                        f"seat {seat} played {move.cards!r} but no unseen {RANKS[r]!r} is left "
                        "that it could hold"
                    )
                label = pool.pop()
                try:
                    self._matrix.remove(self._matrix.row_index(label), seat)
                except InfeasibleObservationError as exc:
                    raise TrackingError(f"seat {seat} playing {move.cards!r}: {exc}") from None

    def _read_pass(self, seat: int, move: Move, by: int) -> None:
        if LANDLORD not in (seat, by):  # a farmer passing on the partner's play
            return
        ranks, factor = self.pass_model.factors(move)
        if factor >= 1.0:
            return
        col = self.opponents.index(seat)
        row_factor = [1.0, 1.0]
        row_factor[col] = factor
        for r in ranks:
            for label in self._free[r]:
                self._matrix.reweight(self._matrix.row_index(label), row_factor)

    # ------------------------------------------------------------------ reading
    @property
    def matrix(self) -> BeliefMatrix:
        """A copy of the belief matrix (rows :attr:`row_labels`, columns :attr:`opponents`)."""
        return self._matrix.copy()

    @property
    def hand_sizes(self) -> tuple[int, int]:
        """Cards held by the two opponents (the column sums)."""
        return (self._left[self.opponents[0]], self._left[self.opponents[1]])

    @property
    def row_labels(self) -> tuple[RowLabel, ...]:
        """``(rank, copy, fixed)`` per row; ``fixed`` rows are kitty cards known to be with the
        landlord."""
        return self._matrix.row_labels  # type: ignore[return-value]

    @property
    def row_ranks(self) -> tuple[int, ...]:
        """Rank index of every row."""
        return tuple(label[0] for label in self.row_labels)

    def unseen(self) -> Counts:
        """Cards held by the two opponents together."""
        counts = [0] * N_RANKS
        for r in self.row_ranks:
            counts[r] += 1
        return tuple(counts)

    def probabilities(self, method: str = "ipf") -> FloatArray:
        """Rows x 2 matrix: probability that each unseen card is with each opponent.

        ``"ipf"``: the fitted belief matrix; ``"exact"``: the exact marginals.
        """
        if method == "ipf":
            return np.array(self._matrix.probabilities)
        if method == "exact":
            return self._exact_rows()
        raise TrackingError(f"unknown method {method!r}: use 'ipf' or 'exact'")

    def rank_expectation(self, method: str = "ipf") -> FloatArray:
        """``(15, 3)`` expected number of cards of each rank held by each seat (the viewer's
        own column is its current hand)."""
        p = self.probabilities(method)
        out = np.zeros((N_RANKS, 3))
        for i, r in enumerate(self.row_ranks):
            out[r, self.opponents[0]] += p[i, 0]
            out[r, self.opponents[1]] += p[i, 1]
        hand = [h - p for h, p in zip(self.initial_hand, self._own_played(), strict=True)]
        out[:, self.seat] = hand
        return out

    def _own_played(self) -> Counts:
        counts = [0] * N_RANKS
        for s, m in self._history:
            if s == self.seat and m is not None:
                for r, n in enumerate(m.counts):
                    counts[r] += n
        return tuple(counts)

    # ------------------------------------------------------------------ exact distribution
    def _splits(self) -> HandSplits:
        """The exact distribution of the unseen cards over the two opponents, as now."""
        own = tuple(h - p for h, p in zip(self.initial_hand, self._own_played(), strict=True))
        return HandSplits(
            weights=self._matrix.weights,
            row_ranks=self.row_ranks,
            target=self.hand_sizes[0],
            seat=self.seat,
            opponents=self.opponents,
            own=own,
        )

    def _exact_rows(self) -> FloatArray:
        return self._splits().exact_rows(self._matrix.n_rows)

    def sample_hands(self, rng: np.random.Generator, n: int) -> list[Hands]:
        """``n`` independent exact draws of the three current hands (the viewer's own hand at
        its seat), consistent with all hard evidence and weighted by the soft evidence."""
        return self._splits().sample_hands(rng, n)

    def count_splits(self) -> int:
        """Number of distinct (rank-level) splits of the unseen cards the evidence allows."""
        return self._splits().count_splits()

    def splits(self, max_splits: int = 50_000) -> list[tuple[float, Hands]]:
        """Every allowed split with its exact probability (raises when there are more than
        ``max_splits``)."""
        return self._splits().splits(max_splits)

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
        return self._splits().probability(event, rng=rng, samples=samples, max_splits=max_splits)

    def _opponent(self, seat: int) -> int:
        if seat not in self.opponents:
            raise TrackingError(f"seat {seat!r} is not an opponent of seat {self.seat}")
        return seat

    def p_bomb(
        self,
        seat: int,
        *,
        rng: np.random.Generator | None = None,
        samples: int = 2000,
        max_splits: int = 50_000,
    ) -> float:
        """Probability that ``seat`` holds a bomb (four of a rank) or the rocket (exact or
        sampled as in :meth:`probability`)."""
        s = self._opponent(seat)

        def has(h: Hands) -> bool:
            c = h[s]
            return bool(c[SMALL_JOKER] and c[BIG_JOKER]) or any(x == 4 for x in c[: TWO + 1])

        return self.probability(has, rng=rng, samples=samples, max_splits=max_splits)

    def p_rocket(
        self,
        seat: int,
        *,
        rng: np.random.Generator | None = None,
        samples: int = 2000,
        max_splits: int = 50_000,
    ) -> float:
        """Probability that ``seat`` holds both jokers."""
        s = self._opponent(seat)
        return self.probability(
            lambda h: bool(h[s][SMALL_JOKER] and h[s][BIG_JOKER]),
            rng=rng,
            samples=samples,
            max_splits=max_splits,
        )

    def p_beats(
        self,
        seat: int,
        move: Move,
        *,
        rng: np.random.Generator | None = None,
        samples: int = 2000,
        max_splits: int = 50_000,
    ) -> float:
        """Probability that ``seat`` holds some play that beats ``move``."""
        s = self._opponent(seat)
        return self.probability(
            lambda h: can_beat(h[s], move), rng=rng, samples=samples, max_splits=max_splits
        )

    def true_holder_probability(
        self, hands: Sequence[Sequence[int]], method: str = "ipf", *, log: bool = False
    ) -> float:
        """Mean probability given to the true holder of each unseen card (a diagnostic: needs
        the true ``hands`` by seat); with ``log=True`` the mean natural log of it (a proper
        score). Within a rank the kitty rows are matched to the landlord's cards first."""
        p = self.probabilities(method)
        labels = self.row_labels
        total = 0.0
        for r in range(N_RANKS):
            rows = [i for i, lab in enumerate(labels) if lab[0] == r]
            if not rows:
                continue
            held = [int(hands[self.opponents[0]][r]), int(hands[self.opponents[1]][r])]
            if sum(held) != len(rows):
                raise TrackingError(
                    f"true hands hold {sum(held)} cards of {RANKS[r]!r}, the tracker {len(rows)}"
                )
            rows.sort(key=lambda i: not labels[i][2])  # kitty rows first
            lcol = self.opponents.index(LANDLORD) if LANDLORD in self.opponents else 0
            order = [lcol] * held[lcol] + [1 - lcol] * held[1 - lcol]
            for i, col in zip(rows, order, strict=True):
                total += math.log(max(float(p[i, col]), 1e-300)) if log else float(p[i, col])
        return total / max(1, len(labels))
