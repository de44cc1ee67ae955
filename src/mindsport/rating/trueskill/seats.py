"""Seats against the average seat: what a league's games identify about its roles, with an
interval that covers.

``cardplay`` rates a role (``East``, ``landlord``) as a virtual player of prior mean 0 learned
alongside the players. When every seat sits at every table, the games identify only differences
between seats (adding the same amount to every seat changes no result), so a role's learned mean
depends on the prior's centring, and its marginal deviation, from a factorised posterior that
ignores the correlations the games build between the seats and with the players, is far too
narrow. What the games do identify is estimated here, beside the model's update and without
changing it (see ``docs/models.md``, "Seats against the average seat"):

* A **side** is the set of roles one team holds in a match (``East``; ``farmer1+farmer2``).
  Sides are compared with each other: each side's edge is shown against the average of the
  sides it has been compared with (contrasts that sum to zero, identified whatever the priors).
  When every team holds one role, sides are seats; Dou Dizhu's farmers always sit together, so
  only the farmers' side is identified, not each farmer.
* The edge is in performance points at a table of players of the league's mean rating (a team
  of two such players and a team of one compare at their sizes: the side carries the
  difference).
* **Estimator.** Every two teams with sides whose order the match decides contribute the
  pairwise likelihood of that order, ``Phi((f_a - f_b - e) / c)`` (a draw: ``|f_a - f_b| <=
  e``), with ``f_t = lambda P_t + kappa n_t m + O_t + A_side(t)``: ``P_t`` the team's ratings
  centred on the table's mean rating ``m``, ``n_t`` its size, ``O_t`` its known offsets (luck,
  duplicate deal sides), ``A`` the sides' edges; the slopes ``lambda`` and ``kappa`` (about 1;
  prior ``N(1, 0.25^2)``) are estimated, so that ratings spread wider or narrower than the
  skills they measure, and a level of the ratings other than the skills', do not leak into
  the edges; ``c^2`` the pair's
  performance noise and rating variances, ``e`` the draw margin. The log-likelihood of each
  match is expanded to second order around the model's values before the match (the learned
  role means, both slopes 1), and the expansions are summed: the joint information ``H``, the
  linearised scores ``b`` and the outer products ``J`` of each match's score (the compiled
  part: :mod:`.seats_kernel`). The estimate solves ``H theta = b``; a side's value is ``A_s +
  kappa n_s m`` at the league's mean table rating ``m`` and its mean size ``n_s``; its
  covariance is the sandwich ``H^+ J H^+`` (the pairwise likelihood is a composite
  likelihood: its scores are unbiased, its information alone is not their variance). Bounded
  state: ``MAX_SIDES`` sides.

>>> import numpy as np
>>> s = SeatStatistics()
>>> s.index("East"), s.index("South"), s.index("East")
(0, 1, 0)
>>> [(e.side, e.vs_average) for e in s.edges()]  # no games yet: nothing identified
[('East', None), ('South', None)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

__all__ = ["COVERAGE", "MAX_SIDES", "SeatEdge", "SeatStatistics", "seat_edges", "side_name"]

#: the most sides a league tracks (pairs with a side beyond are left out of the estimate)
MAX_SIDES = 16
#: the index of the ratings' slope ``lambda`` among the estimated values
SLOPE = MAX_SIDES
#: the index of the level's slope ``kappa`` (of a team's size times the table's mean rating)
LEVEL = MAX_SIDES + 1
#: number of estimated values: the sides and the two slopes
WIDTH = MAX_SIDES + 2
#: columns of the statistics: information ``H`` (``WIDTH``), score products ``J`` (``WIDTH``),
#: the linearised score ``b``, the count of teams (on the slope's row: of matches), the sum of
#: the teams' sizes (on the slope's row: of the tables' mean ratings)
COLUMNS = 2 * WIDTH + 3
SCORE = 2 * WIDTH
COUNT = 2 * WIDTH + 1
SIZE = 2 * WIDTH + 2
#: the labels of the slopes' rows in the stored form (no side is named so: a role is visible)
_SLOPE_NAME, _LEVEL_NAME = "", " "
#: the prior deviation of the two slopes around 1 (see :func:`seat_edges`)
SLOPE_SD = 0.25
#: the coverage of the intervals shown
COVERAGE = 0.95
#: the virtual-state kind under which a store keeps the statistics
KIND = "seats"


def side_name(roles: Sequence[str]) -> str:
    """A side's name: its roles, sorted, joined by ``+``."""
    return "+".join(sorted(roles))


@dataclass(frozen=True, slots=True)
class SeatEdge:
    """A side's (seat's) edge against the average side it was compared with, in performance
    points at a table of equally rated players, and its interval at :data:`COVERAGE` (None: not
    identified by the games so far). ``teams``: the teams that held the side."""

    side: str
    roles: tuple[str, ...]
    vs_average: float | None
    low: float | None
    high: float | None
    teams: int


def _components(h: NDArray[np.float64]) -> list[list[int]]:
    """The groups of sides linked by compared pairs (non-zero off-diagonal information)."""
    n = len(h)
    seen = [False] * n
    out = []
    for start in range(n):
        if seen[start]:
            continue
        group, todo = [], [start]
        seen[start] = True
        while todo:
            i = todo.pop()
            group.append(i)
            for j in range(n):
                if not seen[j] and h[i, j] != 0.0:
                    seen[j] = True
                    todo.append(j)
        out.append(sorted(group))
    return out


def seat_edges(
    names: list[str], stats: NDArray[np.float64], level: float = COVERAGE
) -> tuple[SeatEdge, ...]:
    """Each side's edge against the average of its group (the sides linked to it by compared
    pairs), from the accumulated ``stats`` (rows: the sides ``names`` in order, then the
    slope), with the sandwich interval at ``level``; by side name. A side alone in its group,
    or whose contrast the games do not identify, has no estimate."""
    n = len(names)
    idx = [*range(n), SLOPE, LEVEL]
    h = stats[np.ix_(idx, idx)].copy()
    j = stats[np.ix_(idx, [WIDTH + i for i in idx])]
    b = stats[idx, SCORE].copy()
    # the slopes' prior, N(1, SLOPE_SD^2): a league whose tables barely vary (three friends)
    # leaves them to it, any other outweighs it within a few dozen matches
    for k in (n, n + 1):
        h[k, k] += 1.0 / SLOPE_SD**2
        b[k] += 1.0 / SLOPE_SD**2
    teams = [int(stats[i, COUNT]) for i in range(n)]
    # each side at a table of the league's mean rating: its edge plus kappa times its size
    # times that rating (the sides' mean sizes, the tables' mean rating over the matches)
    matches = stats[SLOPE, COUNT]
    rating = stats[SLOPE, SIZE] / matches if matches > 0 else 0.0
    size = np.array([stats[i, SIZE] / t if t > 0 else 0.0 for i, t in enumerate(teams)])
    edges: dict[int, tuple[float, float, float]] = {}
    if n >= 2 and np.all(np.isfinite(h)) and np.all(np.isfinite(j)) and np.all(np.isfinite(b)):
        scale = float(np.max(np.abs(np.diag(h)))) if n else 0.0
        if scale > 0.0:
            hp = np.linalg.pinv(h, rcond=1e-10, hermitian=True)
            theta = hp @ b
            cov = hp @ j @ hp
            fixed = np.eye(len(idx)) - hp @ h  # directions the games leave free
            z = NormalDist().inv_cdf(0.5 + level / 2.0)
            for group in _components(h[:n, :n]):
                if len(group) < 2:
                    continue
                for i in group:
                    c = np.zeros(len(idx))
                    c[group] = -1.0 / len(group)
                    c[i] += 1.0
                    c[n + 1] = (size[i] - float(np.mean(size[group]))) * rating
                    if np.linalg.norm(c @ fixed) > 1e-6 * np.linalg.norm(c):
                        continue  # not identified
                    est = float(c @ theta)
                    sd = math.sqrt(max(float(c @ cov @ c), 0.0))
                    if math.isfinite(est) and math.isfinite(sd) and sd > 0.0:
                        edges[i] = (est, est - z * sd, est + z * sd)
    out = []
    for i, name in sorted(enumerate(names), key=lambda x: x[1]):
        e = edges.get(i)
        roles = tuple(name.split("+"))
        if e is None:
            out.append(SeatEdge(name, roles, None, None, None, teams[i]))
        else:
            out.append(SeatEdge(name, roles, e[0], e[1], e[2], teams[i]))
    return tuple(out)


class SeatStatistics:
    """A league's accumulated seat statistics (see the module docstring): the sides by name
    (their rows in :attr:`stats`, in the order met) and the array the compiled replay adds to
    (:func:`.seats_kernel.add_sides`)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._rows: dict[str, int] = {}
        self.stats = np.zeros((WIDTH, COLUMNS))

    def index(self, side: str) -> int:
        """The row of ``side`` (entered on first sight); -1 beyond :data:`MAX_SIDES`."""
        i = self._rows.get(side)
        if i is None:
            if len(self.names) >= MAX_SIDES:
                return -1
            i = len(self.names)
            self._rows[side] = i
            self.names.append(side)
        return i

    def edges(self, level: float = COVERAGE) -> tuple[SeatEdge, ...]:
        """Every side's edge against the average side (:func:`seat_edges`)."""
        return seat_edges(self.names, self.stats, level)

    def states(self) -> dict[tuple[str, ...], tuple[float, float]]:
        """The statistics as virtual states (what a store keeps beside the virtual players,
        kind :data:`KIND`): ``(KIND, "side", name)``: (linearised score, teams); ``(KIND,
        "size", name)``: (the sum of its teams' sizes, 0);
        ``(KIND, "pair", a, b)``: (information, score product) of two sides (``a <= b``), or
        of a side and a slope (``lambda`` named ``""``, ``kappa`` ``" "``), or of the slopes;
        ``(KIND, "side", "")``: the slope's score and the count of matches, ``(KIND, "size",
        "")`` the sum of the tables' mean ratings."""
        names = [*self.names, _SLOPE_NAME, _LEVEL_NAME]
        rows = [*range(len(self.names)), SLOPE, LEVEL]
        s = self.stats
        out: dict[tuple[str, ...], tuple[float, float]] = {}
        for name, i in zip(names, rows, strict=True):
            out[(KIND, "side", name)] = (float(s[i, SCORE]), float(s[i, COUNT]))
            out[(KIND, "size", name)] = (float(s[i, SIZE]), 0.0)
            for name_j, j in zip(names, rows, strict=True):
                if j >= i and (s[i, j] != 0.0 or s[i, WIDTH + j] != 0.0):
                    a, b = sorted((name, name_j))  # one key per pair, whatever the rows
                    out[(KIND, "pair", a, b)] = (float(s[i, j]), float(s[i, WIDTH + j]))
        return out

    def load(self, states: Mapping[tuple[str, ...], tuple[float, float]]) -> None:
        """Add statistics kept as :meth:`states` gives them (a key of another kind is
        ignored); a side already known keeps its row."""

        def row(name: str) -> int:
            if name in (_SLOPE_NAME, _LEVEL_NAME):
                return SLOPE if name == _SLOPE_NAME else LEVEL
            return self.index(name)

        for key, (x, y) in states.items():
            if len(key) == 3 and key[0] == KIND and key[1] in ("side", "size"):
                i = row(key[2])
                if i >= 0 and key[1] == "side":
                    self.stats[i, SCORE] = x
                    self.stats[i, COUNT] = y
                elif i >= 0:
                    self.stats[i, SIZE] = x
        for key, (x, y) in states.items():
            if len(key) == 4 and key[0] == KIND and key[1] == "pair":
                i, j = row(key[2]), row(key[3])
                if i >= 0 and j >= 0:
                    self.stats[i, j] = self.stats[j, i] = x
                    self.stats[i, WIDTH + j] = self.stats[j, WIDTH + i] = y
