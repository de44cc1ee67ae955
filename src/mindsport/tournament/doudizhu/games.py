"""Engine games in bulk, on any :mod:`executor <mindsport.tournament.executors>`, reproducibly.

A :class:`Game` names a deal (seeds' notation), the three bots (spec strings of
:func:`mindsport.doudizhu.bots.make_bot`: ``level:N``, ``strong``...) and a key. Game ``key``
of a run seeded ``seed`` plays with the generator :func:`~.executors.task_rng` ``(seed, *key)``,
so a landlord score depends only on (seed, game), never on how games are chunked or on which
worker plays them. :func:`play_games` chunks the games, maps the chunks on an executor and
returns the landlord scores in game order.

Deal helpers for seed 004: :func:`bomb_count` (four-of-a-kinds in the three hands, plus the
rocket when one hand holds both jokers) and :func:`one_bomb_deal` (rejection sampling of
Algorithm 2 deals until exactly one bomb is held in all three hands combined).

Uses only the public API of :mod:`mindsport.doudizhu`; ``import mindsport.tournament`` does not
import this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mindsport.doudizhu import LINEAR, Deal, ScoringRule, deal, play
from mindsport.doudizhu.bots import make_bot
from mindsport.tournament.errors import TournamentError
from mindsport.tournament.executors import Executor, SerialExecutor, task_rng

__all__ = [
    "Game",
    "bomb_count",
    "landlord_table",
    "one_bomb_deal",
    "play_games",
    "random_deals",
    "warm_engine",
]

#: games per task handed to an executor (big enough to amortise the pickling)
DEFAULT_CHUNK = 40
#: deals tried by :func:`one_bomb_deal` before giving up
MAX_REDEALS = 10_000


@dataclass(frozen=True)
class Game:
    """One game: deal (``[landlord][farmer1][farmer2]``), bot specs per seat, seed key."""

    deal: str
    bots: tuple[str, str, str]
    key: tuple[int, ...]


def bomb_count(hand: Deal | str, *, rocket: bool = True) -> int:
    """Bombs held in the three hands combined: four-of-a-kinds, plus 1 for a hand holding both
    jokers when ``rocket`` (the rocket doubles the score like a bomb).

    >>> deal = "[333344455566677788XD][4567889999TTTJJJQ][TJQQQKKKKAAAA2222]"
    >>> bomb_count(deal), bomb_count(deal, rocket=False)
    (6, 5)
    """
    d = Deal.parse(hand) if isinstance(hand, str) else hand
    count = 0
    for counts in d.counts():
        count += sum(1 for n in counts[:13] if n == 4)
        if rocket and counts[13] == 1 and counts[14] == 1:
            count += 1
    return count


def one_bomb_deal(rng: np.random.Generator, *, rocket: bool = True) -> Deal:
    """Seed 004's deals: Algorithm 2 deals redrawn until exactly one bomb is held in all three
    hands combined (:func:`bomb_count`; with ``rocket=True`` a split rocket does not count and a
    held rocket counts as the one bomb, so scores stay within the seed's levels -2..2)."""
    for _ in range(MAX_REDEALS):
        d = deal(rng)
        if bomb_count(d, rocket=rocket) == 1:
            return d
    raise TournamentError(f"no one-bomb deal in {MAX_REDEALS} tries")  # pragma: no cover


def random_deals(count: int, rng: np.random.Generator, *, one_bomb: bool = False) -> list[str]:
    """``count`` deals in the seeds' notation (Algorithm 2, or seed 004's one-bomb deals)."""
    if isinstance(count, bool) or int(count) != count or count < 0:
        raise TournamentError(f"count must be a non-negative integer, got {count!r}")
    make: Callable[[np.random.Generator], Deal] = one_bomb_deal if one_bomb else deal
    return [str(make(rng)) for _ in range(int(count))]


def _play_chunk(task: tuple[int, tuple[Game, ...], Any]) -> list[float]:
    """Play a chunk of games. Line-ups of built-in bots go through the compiled engine
    (:func:`mindsport.doudizhu.compiled.play_fast`, move for move the game ``play`` gives for
    the same generator); anything else through :func:`mindsport.doudizhu.play`."""
    from mindsport.doudizhu.batch import play_fast, supported

    seed, games, scoring = task
    bots: dict[str, Any] = {}
    deals: dict[str, Deal] = {}
    compiled: dict[tuple[str, ...], bool] = {}
    out = []
    for game in games:
        d = deals.get(game.deal)
        if d is None:
            d = deals[game.deal] = Deal.parse(game.deal)
        rng = task_rng(seed, *game.key)
        specs = tuple(game.bots)
        fast = compiled.get(specs)
        if fast is None:
            fast = compiled[specs] = supported(",".join(specs))
        if fast:
            out.append(float(play_fast(d, ",".join(specs), scoring, rng).landlord_score))
            continue
        seats = []
        for spec in specs:
            if spec not in bots:
                bots[spec] = make_bot(spec)
            seats.append(bots[spec])
        out.append(float(play(d, seats, scoring, rng).landlord_score))
    return out


def warm_engine() -> None:
    """Play one game on each engine so compiled kernels exist before worker processes fork."""
    from mindsport.doudizhu.batch import play_fast

    rng = np.random.default_rng(0)
    d = deal(rng)
    play(d, [make_bot("strong"), make_bot("strong"), make_bot("strong")], LINEAR, rng)
    play_fast(d, "strong,strong,strong", LINEAR, np.random.default_rng(0))


def play_games(
    games: Sequence[Game],
    seed: int,
    executor: Executor | None = None,
    *,
    scoring: ScoringRule = LINEAR,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> npt.NDArray[np.float64]:
    """Landlord score of every game, in game order; ``progress(k)`` after each chunk of k."""
    if isinstance(chunk, bool) or int(chunk) != chunk or chunk < 1:
        raise TournamentError(f"chunk must be a positive integer, got {chunk!r}")
    for spec in {s for g in games for s in g.bots}:
        make_bot(spec)  # fail early, in the parent, on a bad spec
    runner = executor or SerialExecutor()
    tasks = [(int(seed), tuple(games[i : i + chunk]), scoring) for i in range(0, len(games), chunk)]
    sizes = [len(t[1]) for t in tasks]
    done = iter(sizes)

    def tick(_: int) -> None:
        if progress is not None:
            progress(next(done, 0))

    # progress counts games; the executor reports finished tasks (in completion order, so the
    # sizes are approximate for the last, shorter chunk only)
    parts = runner.map(_play_chunk, tasks, tick)
    return np.array([s for part in parts for s in part], dtype=np.float64)


def landlord_table(
    deals: Sequence[str],
    landlords: Sequence[str],
    farmers: tuple[str, str],
    seed: int,
    stage: int,
    executor: Executor | None = None,
    *,
    replays: int = 1,
    scoring: ScoringRule = LINEAR,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> npt.NDArray[np.float64]:
    """``scores[landlord, deal, replay]``: each landlord bot (with the fixed farmers) plays each
    deal ``replays`` times; game keys are ``(stage, landlord, deal, replay)``."""
    if isinstance(replays, bool) or int(replays) != replays or replays < 1:
        raise TournamentError(f"replays must be a positive integer, got {replays!r}")
    games = [
        Game(d, (lord, farmers[0], farmers[1]), (stage, i, j, k))
        for i, lord in enumerate(landlords)
        for j, d in enumerate(deals)
        for k in range(int(replays))
    ]
    scores = play_games(games, seed, executor, scoring=scoring, chunk=chunk, progress=progress)
    return scores.reshape(len(landlords), len(deals), int(replays))
