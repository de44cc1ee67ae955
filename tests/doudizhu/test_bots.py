"""Bots: legality, reproducibility, the plan search against brute force, graded strength."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from reference_plan import base_plan, group_cost

from mindsport.doudizhu import (
    Deal,
    GameState,
    Kind,
    Move,
    deal,
    format_counts,
    legal_moves,
    parse_counts,
    play,
)
from mindsport.doudizhu.bots import (
    Bot,
    BotSpecError,
    GreedyBot,
    LevelBot,
    RandomBot,
    StrongBot,
    make_bot,
    make_bots,
)
from mindsport.doudizhu.planning import Planner
from mindsport.errors import MindsportError


def brute_plan_cost(hand: tuple[int, ...]) -> float:
    """Cheapest split: any multiset of straights / pair straights, then the base split.

    A plain search over all chain multisets, independent of the planner's search order, with
    the reference split (``reference_plan``) of what the chains leave.
    """
    chains = [
        (width, s, n)
        for width, lengths in ((1, range(5, 13)), (2, range(3, 11)))
        for n in lengths
        for s in range(0, 12 - n + 1)
    ]
    best = [float("inf")]

    def rec(c: list[int], i: int, cost: float) -> None:
        best[0] = min(best[0], cost + base_plan(tuple(c)).cost)
        for j in range(i, len(chains)):
            width, s, n = chains[j]
            if all(c[r] >= width for r in range(s, s + n)):
                for r in range(s, s + n):
                    c[r] -= width
                kind = Kind.STRAIGHT if width == 1 else Kind.PAIR_STRAIGHT
                rec(c, j, cost + group_cost(kind, s + n - 1))
                for r in range(s, s + n):
                    c[r] += width

    rec(list(hand), 0, 0.0)
    return best[0]


def test_planner_finds_the_cheapest_split() -> None:
    rng = np.random.default_rng(4)
    planner = Planner()
    for _ in range(60):
        hand = deal(rng).counts()[int(rng.integers(3))]
        cards = [r for r, n in enumerate(hand) for _ in range(n)]
        keep = rng.choice(len(cards), size=int(rng.integers(8, 15)), replace=False)
        sub = [0] * 15
        for k in keep:
            sub[cards[k]] += 1
        plan = planner.plan(tuple(sub))
        assert plan.cost == pytest.approx(brute_plan_cost(tuple(sub)))
        assert plan.cost == pytest.approx(planner.cost(tuple(sub)))
        # the groups are legal moves that partition the hand
        total = [0] * 15
        for kind, _main, counts in plan.groups:
            assert any(m.kind is kind and m.counts == counts for m in legal_moves(counts))
            total = [a + b for a, b in zip(total, counts, strict=True)]
        assert total == sub


def test_planner_known_hand() -> None:
    # 3..A straight + rocket + pair of 2s + single 3: chains and the rocket are found
    plan = Planner().plan(parse_counts("33456789TJQKA22XD"))
    kinds = sorted(k.value for k, _, _ in plan.groups)
    assert kinds == ["pair", "rocket", "single", "straight"]
    assert plan.cost == pytest.approx(group_cost(Kind.STRAIGHT, 11) - 0.4 + 0.65 + 1.0)


def make_deal(landlord: str, farmer1: str) -> Deal:
    """A deal whose farmer 2 holds the rest of the deck."""
    rest = [4] * 13 + [1, 1]
    for r, n in enumerate(parse_counts(landlord + farmer1)):
        rest[r] -= n
    return Deal(landlord, farmer1, format_counts(rest))


@pytest.mark.parametrize("bot", [RandomBot(), GreedyBot(), StrongBot(), LevelBot(40)])
def test_bots_play_legal_reproducible_games(bot: Bot) -> None:
    assert isinstance(bot, Bot)
    for seed in range(8):
        d = deal(np.random.default_rng(seed))
        a = play(d, [bot, bot, bot], rng=np.random.default_rng(seed))
        b = play(d, [bot, bot, bot], rng=np.random.default_rng(seed))
        assert a == b
        # replay through the checked path
        s = GameState(d)
        for seat, move in a.moves:
            assert s.current_player() == seat
            s.apply_action(move)
        assert s.is_terminal() and s.winner == a.winner


def test_strong_goes_out_and_cooperates() -> None:
    strong = StrongBot()
    rng = np.random.default_rng(0)
    s = GameState(make_deal("3345678899TTJQKA2XDK", "456789TJQKA2A5678"))
    view = s.view()
    move = strong.act(view, legal_moves(view.hand), rng)
    assert move is not None and move in legal_moves(view.hand)
    # a hand that is one move is played at once
    last = replace(view, hand=parse_counts("33344456"))
    assert strong.act(last, legal_moves(last.hand), rng) == Move("plane_single", "33344456")
    # a farmer does not beat the partner's play needlessly
    s.apply_action("3")
    s.apply_action("5")
    view = s.view()
    assert view.seat == 2 and view.previous_player == 1
    assert legal_moves(view.hand, view.previous)
    assert strong.act(view, s.legal_actions(), rng) is None


def test_strong_stops_a_farmer_with_one_card() -> None:
    strong = StrongBot()
    view = GameState(make_deal("3345678899TTJQKA2XDK", "456789TJQKA2A5678")).view()
    late = replace(view, cards_left=(20, 1, 17), previous=Move("single", "6"), previous_player=1)
    legal = [*legal_moves(late.hand, late.previous), None]
    move = strong.act(late, legal, np.random.default_rng(0))
    assert move is not None and move.kind is Kind.SINGLE
    # the smallest single no unseen card beats: its 2 (the other 2s tie; X and D are its own)
    unseen = [d - h for d, h in zip([4] * 13 + [1, 1], view.hand, strict=True)]
    singles = sorted(r for r in range(15) if view.hand[r] and r > 3)
    safe = [r for r in singles if not any(unseen[q] for q in range(r + 1, 15))]
    assert move.main == min(safe) == 12


def test_graded_levels_are_ordered() -> None:
    rng = np.random.default_rng(9)
    score = {}
    for level in (0, 100):
        total = 0.0
        for i in range(40):
            d = deal(np.random.default_rng([9, i]))
            weak = RandomBot()
            total += play(d, [LevelBot(level), weak, weak], rng=rng).landlord_score
        score[level] = total
    assert score[100] > score[0] + 20  # strong landlord beats random farmers far more often


def test_bot_specs() -> None:
    assert isinstance(make_bot("strong"), StrongBot)
    assert make_bot("level:40").name == "level:40"
    assert [b.name for b in make_bots("strong,level:40,random")] == ["strong", "level:40", "random"]
    with pytest.raises(BotSpecError, match="unknown bot 'wizard'"):
        make_bot("wizard")
    with pytest.raises(MindsportError, match="level 101"):
        LevelBot(101)
    with pytest.raises(BotSpecError, match="one bot or three"):
        make_bots("strong,strong")


def test_random_bot_covers_pass() -> None:
    d = deal(np.random.default_rng(1))
    s = GameState(d)
    s.apply_action(legal_moves(d.landlord)[0])
    view = s.view()
    legal = s.legal_actions()
    seen = {RandomBot().act(view, legal, np.random.default_rng(k)) for k in range(300)}
    assert None in seen and len(seen) == len(legal_moves(view.hand, view.previous)) + 1
