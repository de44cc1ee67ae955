"""Dou Dizhu against its peers, in one run: legal moves (agreement and speed), whole games.

Peers (benchmark opponents only): RLCard's Dou Dizhu (``pip install rlcard``) and DouZero's
move generator (``pip install --no-deps douzero``: its ``douzero.env`` modules need only NumPy;
the deep-learning parts, which need torch, are not used).

1. **Agreement** on the same hands (random hands of 17 and 20 cards, and "plane-rich" hands
   drawn from a few consecutive ranks), leading and answering a play drawn from another hand's
   moves: the card sets of :func:`mindsport.doudizhu.legal_moves` against RLCard's
   (``DoudizhuJudger.playable_cards_from_hand``, ``get_gt_cards``) and DouZero's
   (``MovesGener.gen_moves``, ``GameEnv.get_legal_card_play_actions``). Differences with
   DouZero are sorted into its documented rule differences: it lets both jokers be kickers, and
   four cards of one rank be kickers (these rules forbid both); and answering a plane with
   kickers, it compares the highest trio of the cards, a kicker trio included (``444555666`` +
   ``333`` read as main rank 6 by both, but ``333444555`` + ``999`` read as 9 by DouZero, 5
   here). Anything else is counted as unexplained (expected: 0).
2. **Speed**: calls per CPU second of each generator on the same hands, in each library's own
   input format (prepared outside the clock), and mindsport's ratio to each peer.
3. **Games per second**: RLCard's environment with its rule agents against mindsport's games
   (the engine's game loop, and the referee asking the same bots move by move).

Times are CPU seconds of this process (``time.process_time``); the load average is printed.

    .venv/bin/python benchmarks/bench_ddz.py --hands 3000 --games 300 --fast-games 20000
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from mindsport.doudizhu import Move, deal, legal_moves, play
from mindsport.doudizhu.bots import make_bots
from mindsport.doudizhu.cards import RANKS, format_counts
from mindsport.doudizhu.engine import simulate_fast
from mindsport.doudizhu.moves import move_table, moves_of_cards

BOTS = ("strong", "level:100,level:50,level:50", "level:50", "greedy", "random")
_TO_RL = str.maketrans({"X": "B", "D": "R"})
_FROM_RL = str.maketrans({"B": "X", "R": "D"})
_DZ_VALUE = dict(zip(RANKS, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30), strict=True))
_DZ_CARD = {v: k for k, v in _DZ_VALUE.items()}

Case = tuple[str, Move | None]  # hand, play to answer (None: lead)


# -- hands ------------------------------------------------------------------------------------
def random_hands(count: int, rng: np.random.Generator) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        d = deal(rng)
        out.extend((d.landlord, d.farmer1, d.farmer2))
    return out[:count]


def plane_rich_hands(count: int, rng: np.random.Generator) -> list[str]:
    """Hands of 14-20 cards from 4-7 consecutive ranks (3..A) with 3-4 copies each, plus a few
    other cards: many trios side by side, so many planes with kickers."""
    out = []
    for _ in range(count):
        width = int(rng.integers(4, 8))
        start = int(rng.integers(0, 12 - width + 1))
        counts = [0] * 15
        for r in range(start, start + width):
            counts[r] = int(rng.integers(3, 5))
        extra = rng.choice(15, size=int(rng.integers(0, 5)), replace=False)
        for r in extra:
            counts[r] = min(counts[r] + 1, 4 if r < 13 else 1)
        cards = [r for r, n in enumerate(counts) for _ in range(n)]
        keep = rng.choice(
            len(cards), size=min(len(cards), int(rng.integers(14, 21))), replace=False
        )
        hand = [0] * 15
        for k in keep:
            hand[cards[k]] += 1
        out.append(format_counts(hand))
    return out


def cases(hands: Sequence[str], rng: np.random.Generator) -> list[Case]:
    """Each hand leading, and answering a play drawn from the moves of the next hand."""
    out: list[Case] = []
    for i, hand in enumerate(hands):
        out.append((hand, None))
        options = legal_moves(hands[(i + 1) % len(hands)])
        out.append((hand, options[int(rng.integers(len(options)))]))
    return out


# -- the peers --------------------------------------------------------------------------------
def rlcard_moves(hand: str, previous: Move | None) -> set[str] | None:
    """RLCard's playable card sets (jokers back in this notation; pass left out); None when
    the play to answer is not in RLCard's action space (it cannot answer it)."""
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards

    rl_hand = hand.translate(_TO_RL)
    if previous is None:
        found = DoudizhuJudger.playable_cards_from_hand(rl_hand)
    elif not _rl_knows(previous, CARD_TYPE[0]):
        return None
    else:
        found = get_gt_cards(_rl_player(rl_hand), _rl_played(previous))
    return {c.translate(_FROM_RL) for c in found if c != "pass"}


def _rl_knows(previous: Move, card_type: dict[str, Any]) -> bool:
    """Whether RLCard has the play as it is (a plane with a kicker trio next to it, e.g.
    ``333`` + ``444555666`` read as a three-trio plane with kickers, is for RLCard only the
    four-trio plane, or nothing)."""
    types = card_type.get(previous.cards.translate(_TO_RL))
    if types is None:
        return False
    prefix = {"plane_single": "trio_solo_chain", "plane_pair": "trio_pair_chain"}
    wanted = prefix.get(previous.kind.value)
    return wanted is None or any(str(t).startswith(wanted) for t, _ in types)


def _rl_player(rl_hand: str) -> Any:
    cards = [
        SimpleNamespace(rank="", suit={"B": "BJ", "R": "RJ"}[c])
        if c in "BR"
        else SimpleNamespace(rank=c, suit="S")
        for c in rl_hand
    ]
    return SimpleNamespace(current_hand=cards)


def _rl_played(previous: Move) -> Any:
    return SimpleNamespace(played_cards=previous.cards.translate(_TO_RL))


def douzero_moves(hand: str, previous: Move | None) -> set[str]:
    """DouZero's legal card sets (pass left out)."""
    return {
        _dz_text(m)
        for m in _douzero(_dz(hand), None if previous is None else _dz(previous.cards))
        if m
    }


def _dz(cards: str) -> list[int]:
    return [_DZ_VALUE[c] for c in cards]


def _dz_text(move: Sequence[int]) -> str:
    return "".join(_DZ_CARD[v] for v in sorted(move, key=lambda v: RANKS.index(_DZ_CARD[v])))


def _douzero(hand: list[int], previous: list[int] | None) -> list[list[int]]:
    from douzero.env.game import GameEnv

    env = SimpleNamespace(
        info_sets={"p": SimpleNamespace(player_hand_cards=hand)},
        acting_player_position="p",
        card_play_action_seq=[] if previous is None else [previous],
    )
    moves: list[list[int]] = GameEnv.get_legal_card_play_actions(env)
    return moves


# -- agreement --------------------------------------------------------------------------------
def _douzero_reason(cards: str, previous: Move | None) -> str:
    """Why DouZero lists a card set that these rules do not (or the other way round)."""
    counts = [cards.count(c) for c in RANKS]
    if "X" in cards and "D" in cards and len(cards) > 2:
        return "both jokers as kickers"
    if any(n == 4 for n in counts) and not any(
        m.kind.value in ("bomb", "four_two_single", "four_two_pair") for m in moves_of_cards(cards)
    ):
        return "four cards of one rank as kickers"
    if previous is not None and previous.kind.value in ("plane_single", "plane_pair"):
        return "plane compared with a kicker trio"
    return "unexplained"


def _rlcard_reason(cards: str) -> str:
    """Why RLCard lacks a card set that these rules allow."""
    longest = run = 0
    for c in RANKS[:12]:  # 3..A
        run = run + 1 if cards.count(c) >= 3 else 0
        longest = max(longest, run)
    if (
        any(m.kind.value == "plane_single" for m in moves_of_cards(cards))
        and longest > len(cards) // 4
    ):
        return "kicker trio next to the plane"
    return "unexplained"


def agreement(label: str, all_cases: Sequence[Case]) -> int:
    """Print the agreement on ``all_cases``; return the number of unexplained differences."""
    same = {"RLCard": 0, "DouZero": 0}
    reasons: dict[str, Counter[str]] = {"RLCard": Counter(), "DouZero": Counter()}
    for hand, previous in all_cases:
        ours = {m.cards for m in legal_moves(hand, previous)}
        for peer, theirs, why in (
            ("RLCard", rlcard_moves(hand, previous), lambda c, p: _rlcard_reason(c)),
            ("DouZero", douzero_moves(hand, previous), _douzero_reason),
        ):
            if theirs is None:  # a play RLCard lacks: the same omission, seen from the answer
                reasons[peer]["play to answer outside RLCard's action space"] += 1
                continue
            differ = theirs ^ ours
            same[peer] += not differ
            for reason in {why(c, previous) for c in differ}:
                reasons[peer][reason] += 1
    n = len(all_cases)
    print(f"{label}: {n} cases (each hand leading, and answering a play)")
    for peer in same:
        print(f"  {peer:7s}: identical card sets in {same[peer]} / {n}; differing cases by reason:")
        for reason, count in sorted(reasons[peer].items()):
            print(f"    {reason:40s} {count}")
    return reasons["RLCard"]["unexplained"] + reasons["DouZero"]["unexplained"]


# -- speed ------------------------------------------------------------------------------------
def _rate(fn: Callable[[Any], object], inputs: Sequence[Any], repeat: int = 2) -> float:
    fn(inputs[0])
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for x in inputs:
            fn(x)
        best = min(best, time.process_time() - start)
    return len(inputs) / best


def speed(hands: Sequence[str], rng: np.random.Generator) -> None:
    from douzero.env.move_generator import MovesGener
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import get_gt_cards

    answers = [(h, p) for h, p in cases(hands, rng) if p is not None]
    rows = [
        (
            "lead",
            _rate(legal_moves, list(hands)),
            _rate(DoudizhuJudger.playable_cards_from_hand, [h.translate(_TO_RL) for h in hands]),
            _rate(lambda h: MovesGener(h).gen_moves(), [_dz(h) for h in hands]),
        ),
        (
            "answer",
            _rate(lambda hp: legal_moves(*hp), answers),
            _rate(
                lambda pp: get_gt_cards(*pp),
                [(_rl_player(h.translate(_TO_RL)), _rl_played(p)) for h, p in answers],
            ),
            _rate(lambda hp: _douzero(*hp), [(_dz(h), _dz(p.cards)) for h, p in answers]),
        ),
    ]
    print(f"\nlegal moves, calls per CPU second on the same {len(hands)} hands")
    head = ("mindsport", "RLCard", "DouZero", "vs RLCard", "vs DouZero")
    print(f"{'':8s} " + " ".join(f"{h:>10s}" for h in head))
    for name, ours, rl, dz in rows:
        print(f"{name:8s} {ours:10.0f} {rl:10.0f} {dz:10.0f} {ours / rl:9.1f}x {ours / dz:9.1f}x")


# -- games ------------------------------------------------------------------------------------
def rlcard_rate(games: int, seed: int) -> float:
    import rlcard
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

    env = rlcard.make("doudizhu", config={"seed": seed})
    env.set_agents([DouDizhuRuleAgentV1() for _ in range(3)])
    np.random.seed(seed)
    env.run(is_training=False)  # warm-up (loads the action tables)
    start = time.process_time()
    for _ in range(games):
        env.run(is_training=False)
    return games / (time.process_time() - start)


class _MoveByMove:
    """A bot asked move by move by the referee (no whole-game engine path)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = bot.name

    def act(self, view: Any, legal: Any, rng: np.random.Generator) -> Any:
        return self.bot.act(view, legal, rng)


def referee_rate(games: int, seed: int, bots: str) -> float:
    players = [_MoveByMove(b) for b in make_bots(bots)]
    start = time.process_time()
    for i in range(games):
        rng = np.random.default_rng([seed, i])
        play(deal(rng), players, rng=rng)
    return games / (time.process_time() - start)


def engine_rate(games: int, seed: int, bots: str) -> float:
    simulate_fast(3, bots, seed=seed + 1)
    start = time.process_time()
    simulate_fast(games, bots, seed=seed)
    return games / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, help="hands per agreement set")
    parser.add_argument("--speed-hands", type=int, default=3000, help="hands for the speed table")
    parser.add_argument("--games", type=int, default=300, help="games per referee line")
    parser.add_argument("--fast-games", type=int, default=20000, help="games per engine line")
    parser.add_argument("--rlcard-games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}")
    move_table()
    rng = np.random.default_rng(args.seed)
    peers = all(importlib.util.find_spec(name) is not None for name in ("rlcard", "douzero"))
    if peers:
        unexplained = agreement("random hands", cases(random_hands(args.hands, rng), rng))
        unexplained += agreement("plane-rich hands", cases(plane_rich_hands(args.hands, rng), rng))
        print(f"unexplained differences: {unexplained}")
        speed(random_hands(args.speed_hands, np.random.default_rng(args.seed + 1)), rng)
    else:
        print("rlcard or douzero is not installed: agreement and peer speed skipped")
        own_speed(random_hands(args.speed_hands, np.random.default_rng(args.seed + 1)), rng)
    base = rlcard_rate(args.rlcard_games, args.seed) if peers and args.rlcard_games > 0 else None
    print(f"\n{'games per CPU second':48s} {'games/s':>9s} {'vs RLCard':>10s}")
    if base is not None:
        print(f"{'rlcard doudizhu, 3 x DouDizhuRuleAgentV1':48s} {base:9.1f} {1.0:9.1f}x")
    for bots in BOTS:
        rate = referee_rate(args.games, args.seed, bots)
        print(f"{'mindsport referee ' + bots:48s} {rate:9.1f} {_ratio(rate, base)}")
        rate = engine_rate(args.fast_games, args.seed, bots)
        print(f"{'mindsport engine  ' + bots:48s} {rate:9.1f} {_ratio(rate, base)}")
    print(f"load average {os.getloadavg()}")


def _ratio(rate: float, base: float | None) -> str:
    return "        -" if base is None else f"{rate / base:9.1f}x"


def own_speed(hands: Sequence[str], rng: np.random.Generator) -> None:
    """mindsport's legal-move calls per CPU second alone (no peer installed)."""
    answers = [(h, p) for h, p in cases(hands, rng) if p is not None]
    lead = _rate(legal_moves, list(hands))
    answer = _rate(lambda hp: legal_moves(*hp), answers)
    print(f"\nlegal moves, calls per CPU second on the same {len(hands)} hands (mindsport only)")
    print(f"{'lead':8s} {lead:10.0f}\n{'answer':8s} {answer:10.0f}")


if __name__ == "__main__":
    main()
