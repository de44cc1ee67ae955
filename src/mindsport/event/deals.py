"""The deals of a round, per table, reproducible from the event's seed, and pools of hands.

Round r draws on :func:`~mindsport.tournament.executors.task_rng` ``(seed, 17, r)`` and reuses the
tournament plans (:mod:`mindsport.tournament.formats`):

* ``duplicate``: one set of deals for the whole round (:func:`duplicate_plan`): dealt at random,
  or the next hands of the pool (a hand library ranked by DIH puts the most discriminating
  hands first);
* ``equal-strength``: distinct hands for every table, drawn without replacement from the pool
  of equal-strength hands (:func:`equal_strength_plan`);
* ``random``: independent deals for every table (:func:`random_plan`).

:func:`pool_by_dih` and :func:`pool_by_gdi` choose a pool from a hand library;
:func:`pool_by_model` generates one at a requested difficulty with a fitted GDI model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mindsport.doudizhu import Deal, DealError
from mindsport.event.model import EventError, EventFormat, EventSpec
from mindsport.tournament.executors import task_rng
from mindsport.tournament.formats import duplicate_plan, equal_strength_plan, random_plan
from mindsport.tournament.library import HandLibrary
from mindsport.tournament.selection import rank_by_discrimination

if TYPE_CHECKING:
    from mindsport.tournament.doudizhu.generator import GdiModel

__all__ = ["check_hands", "pool_by_dih", "pool_by_gdi", "pool_by_model", "round_deals"]


def round_deals(spec: EventSpec, round_number: int, tables: int) -> list[tuple[str, ...]]:
    """The deals (hand texts; Luzhanqi: the two setups) of each of ``tables`` tables in round
    ``round_number``."""
    from mindsport.event.games import table_game

    per = spec.deals
    rng = task_rng(spec.seed, 17, round_number)
    dealer = table_game(spec.game).deal
    if spec.format is EventFormat.DUPLICATE:
        if spec.pool:
            hands = list(spec.pool[(round_number - 1) * per : round_number * per])
        else:
            hands = [dealer(rng) for _ in range(per)]
        plan = duplicate_plan(hands, tables)
        return [tuple(plan[d][t] for d in range(per)) for t in range(tables)]
    if spec.format is EventFormat.EQUAL_STRENGTH:
        if len(spec.pool) < tables * per:
            raise EventError(
                f"round {round_number}: {tables} tables of {per} deals need {tables * per} "
                f"different equal-strength hands; the pool holds {len(spec.pool)}"
            )
        row = equal_strength_plan(spec.pool, tables * per, 1, rng)[0]
    else:
        row = random_plan(tables * per, 1, rng, dealer)[0]
    return [tuple(row[t * per : (t + 1) * per]) for t in range(tables)]


def check_hands(hands: Sequence[str]) -> tuple[str, ...]:
    """Hands in the notation ``[landlord][farmer1][farmer2]``, each checked and normalised."""
    out = []
    for i, text in enumerate(hands):
        try:
            out.append(str(Deal.parse(text)))
        except DealError as exc:
            raise EventError(f"hand {i + 1} of the pool: {exc}") from None
    return tuple(out)


def pool_by_dih(library: HandLibrary, players: int, rounds: int, top: int) -> tuple[str, ...]:
    """The library's hands by discrimination (DIH) for an event of ``players`` players and
    ``rounds`` rounds telling apart the best ``top``, highest first."""
    return check_hands([r.hand for r in rank_by_discrimination(library, players, rounds, top)])


def pool_by_model(
    model: GdiModel,
    target: Sequence[float],
    epsilon: float,
    count: int,
    seed: int,
    *,
    max_tries: int = 200_000,
) -> tuple[str, ...]:
    """``count`` deals generated at a requested difficulty: one-bomb deals whose GDI, as
    ``model`` predicts it from the cards, lies within ``epsilon`` of ``target``
    (:func:`~mindsport.tournament.doudizhu.generator.propose_deals`, drawing on
    ``task_rng(seed, 19)``), dealing at most ``max_tries`` deals."""
    from mindsport.tournament.doudizhu.generator import propose_deals  # the planner, on demand

    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise EventError(f"count must be a positive integer, got {count!r}")
    found = propose_deals(model, target, epsilon, count, task_rng(seed, 19), max_tries=max_tries)
    if len(found.deals) < count:
        raise EventError(
            f"{len(found.deals)} of {count} deals found within {epsilon} of {list(target)} in "
            f"{found.tried} tries; widen epsilon or ask for a more common difficulty"
        )
    return tuple(str(d) for d in found.deals)


def pool_by_gdi(library: HandLibrary, centre: Sequence[float], epsilon: float) -> tuple[str, ...]:
    """The library's equal-strength hands: GDI within ``epsilon`` of ``centre``, nearest first."""
    chosen = library.equal_strength(centre, epsilon)
    if len(chosen) == 0:
        raise EventError(f"no hand of the library has a GDI within {epsilon} of {list(centre)}")
    return check_hands(chosen.hands)
