"""The plain-Python split of a hand without chains: the reference for the compiled planner.

The package's former Python planner (bombs, the rocket, planes and trios with their lowest
kickers up to a king, pairs, singles), kept as a test oracle for
:func:`mindsport.doudizhu.compiled.planner.plan_groups` and, with an exhaustive search over
chain sets in the tests, for :func:`~mindsport.doudizhu.compiled.planner.best`.
"""

from __future__ import annotations

from mindsport.doudizhu.kinds import Kind
from mindsport.doudizhu.planning import Plan  # the value type only

N_RANKS = 15
KING, ACE, TWO, SMALL_JOKER, BIG_JOKER = 10, 11, 12, 13, 14
Counts = tuple[int, ...]
Group = tuple[Kind, int, Counts]

_HIGH = 7  # ranks above 10 (T) lower a group's cost


def group_cost(kind: Kind, main: int) -> float:
    """Approximate plays a group costs: 1 for low groups, less for high ones, < 0 for bombs."""
    if kind is Kind.ROCKET:
        return -0.4
    if kind is Kind.BOMB:
        return -0.3
    return 1.0 - 0.07 * max(0, main - _HIGH)


def _group(kind: Kind, main: int, parts: dict[int, int]) -> Group:
    counts = [0] * N_RANKS
    for r, n in parts.items():
        counts[r] += n
    return (kind, main, tuple(counts))


def _one(kind: Kind, rank: int, width: int) -> Group:
    counts = [0] * N_RANKS
    counts[rank] = width
    return (kind, rank, tuple(counts))


def base_plan(c: Counts) -> Plan:
    """Split without chains of singles or pairs (those are searched by the caller).

    Bombs and the rocket stay whole; runs of consecutive trios up to the ace (at most 5) are
    planes, single trios are trios; each plane / trio takes the lowest singles (else pairs) up
    to a king as kickers, one per trio; the rest are pairs and singles.
    """
    groups: list[Group] = []
    rocket = bool(c[SMALL_JOKER] and c[BIG_JOKER])
    if rocket:
        groups.append(_group(Kind.ROCKET, BIG_JOKER, {SMALL_JOKER: 1, BIG_JOKER: 1}))
    trios = [r for r in range(TWO + 1) if c[r] == 3]
    pairs = [r for r in range(TWO + 1) if c[r] == 2]
    singles = [r for r in range(TWO + 1) if c[r] == 1]
    if not rocket:
        singles += [r for r in (SMALL_JOKER, BIG_JOKER) if c[r]]
    groups.extend(_one(Kind.BOMB, r, 4) for r in range(TWO + 1) if c[r] == 4)
    n_free_s = sum(1 for r in singles if r <= KING)  # lowest singles / pairs come first
    n_free_p = sum(1 for r in pairs if r <= KING)
    used_s = used_p = 0
    i = 0
    while i < len(trios):
        j = i + 1
        while j < len(trios) and trios[j] <= ACE and trios[j] == trios[j - 1] + 1 and j - i < 5:
            j += 1
        run = trios[i:j]
        n = len(run)
        counts = [0] * N_RANKS
        for r in run:
            counts[r] = 3
        if n >= 2 and n_free_s - used_s >= n:
            for k in singles[used_s : used_s + n]:
                counts[k] += 1
            used_s += n
            kind = Kind.PLANE_SINGLE
        elif n >= 2 and n_free_p - used_p >= n:
            for k in pairs[used_p : used_p + n]:
                counts[k] = 2
            used_p += n
            kind = Kind.PLANE_PAIR
        elif n >= 2:
            kind = Kind.PLANE
        elif used_s < n_free_s:
            counts[singles[used_s]] += 1
            used_s += 1
            kind = Kind.TRIO_SINGLE
        elif used_p < n_free_p:
            counts[pairs[used_p]] = 2
            used_p += 1
            kind = Kind.TRIO_PAIR
        else:
            kind = Kind.TRIO
        groups.append((kind, run[-1], tuple(counts)))
        i = j
    groups.extend(_one(Kind.PAIR, r, 2) for r in pairs[used_p:])
    groups.extend(_one(Kind.SINGLE, r, 1) for r in singles[used_s:])
    return Plan(sum(group_cost(k, m) for k, m, _ in groups), tuple(groups))
