"""Game state, checked and unchecked moves, scoring, spring."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mindsport.doudizhu import (
    CCPC2016,
    CLASSIC,
    LINEAR,
    Deal,
    GameState,
    IllegalMoveError,
    Kind,
    Move,
    Outcome,
    legal_moves,
)
from mindsport.doudizhu.state import TERMINAL
from mindsport.errors import MindsportError

DEAL = Deal(
    "33334444555566667XD2",  # landlord
    "777888999TTTJJJQQ",
    "89TJQQKKKKAAAA222",
)


def test_checked_path_messages() -> None:
    s = GameState(Deal.parse("[3456789TJQKA2XD32456][3456789TJQKA2789T][3456789TJQKA2JQKA]"))
    with pytest.raises(IllegalMoveError, match="cannot pass when leading"):
        s.apply_action("pass")
    s.apply_action("pair:33")
    with pytest.raises(IllegalMoveError, match='"3334" is not playable on pair "33"'):
        s.apply_action("3334")
    with pytest.raises(IllegalMoveError, match='"XD" is not in the hand'):
        s.apply_action("XD")
    with pytest.raises(IllegalMoveError, match="not a move of any kind"):
        s.apply_action("345")
    with pytest.raises(IllegalMoveError, match='"45" is not a pair'):
        s.apply_action(Move(Kind.PAIR, "45", 2, (0, 1, 1) + (0,) * 12))  # forged main rank
    s.apply_action("pass")
    assert s.previous() == Move("pair", "33")
    s.apply_action(None)
    assert s.current_player() == 0 and s.previous() is None  # two passes: landlord leads


def test_game_to_the_end_and_spring() -> None:
    s = GameState(DEAL)
    for cards in ("33334444", "55556666"):  # 8-card plays, not legal as moves -> refused
        with pytest.raises(IllegalMoveError):
            s.apply_action(cards)
    plays = ["bomb:3333", None, None, "bomb:4444", None, None, "bomb:5555", None, None]
    plays += ["bomb:6666", None, None]
    for p in plays:
        s.apply_action(p)
    assert s.bombs == 4
    s.apply_action("7")
    s.apply_action(None)
    s.apply_action(None)
    s.apply_action("2")
    s.apply_action(None)
    s.apply_action(None)
    assert sorted(a.cards for a in s.legal_actions() if a is not None) == ["D", "X", "XD"]
    s.apply_action("XD")
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.spring()
    assert s.rockets == 1
    # landlord won, 4 bombs + 1 rocket
    assert s.returns(LINEAR) == (6.0, -3.0, -3.0)
    assert s.returns(CCPC2016) == (2 * 2.0**6, -(2.0**6), -(2.0**6))  # 5 doublings + spring
    assert s.returns(CLASSIC) == (2 * 64.0, -64.0, -64.0)
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply_action("3")


def test_clone_is_independent() -> None:
    s = GameState(DEAL)
    c = s.clone()
    c.apply_action("bomb:3333")
    assert s.hands[0][0] == 4 and c.hands[0][0] == 0 and s.history == []


def test_legal_actions_and_view() -> None:
    s = GameState(DEAL)
    assert None not in s.legal_actions()
    assert s.legal_actions() == list(legal_moves(DEAL.landlord))
    s.apply_action("7")
    acts = s.legal_actions()
    assert acts[-1] is None and all(a is None or a.main > 4 for a in acts)
    v = s.view()
    assert v.seat == 1 and v.cards_left == (19, 17, 17) and v.previous == Move("single", "7")
    assert sum(v.unseen()) == 54 - 17 - 1
    assert v.played(0)[4] == 1


def test_scoring_values() -> None:
    assert LINEAR.scores(Outcome(landlord_won=True)) == (1.0, -0.5, -0.5)
    assert LINEAR.scores(Outcome(landlord_won=False, bombs=1)) == (-2.0, 1.0, 1.0)
    assert CCPC2016.scores(Outcome(landlord_won=False, call=3, doubles=(1, 1))) == (-12.0, 6.0, 6.0)
    assert CLASSIC.scores(Outcome(landlord_won=True, call=2, spring=True)) == (8.0, -4.0, -4.0)
    for rule in (LINEAR, CCPC2016, CLASSIC):
        assert sum(rule.scores(Outcome(landlord_won=True, bombs=2))) == 0


def test_random_games_conserve_cards() -> None:
    rng = np.random.default_rng(3)
    from mindsport.doudizhu import deal

    for _ in range(30):
        s = GameState(deal(rng))
        while not s.is_terminal():
            acts = s.legal_actions()
            s.apply_action(acts[int(rng.integers(len(acts)))])
        played = sum(m.size for _, m in s.history if m is not None)
        assert played + sum(map(sum, s.hands)) == 54
        assert sum(s.hands[s.winner]) == 0


def test_play_scores_with_call_and_doubles() -> None:
    from mindsport.doudizhu import deal, play
    from mindsport.doudizhu.bots import GreedyBot, StrongBot

    rng = np.random.default_rng(8)
    for _ in range(10):
        rec = play(deal(rng), [StrongBot(), GreedyBot(), GreedyBot()], CCPC2016, rng, 3, (1, 1))
        power = rec.bombs + rec.rockets + int(rec.spring) + 1
        farmer = 3 * (-1 if rec.landlord_won else 1) * 2**power
        assert rec.scores == (-2 * farmer, farmer, farmer)
        assert rec.scoring == "ccpc2016"
        # farmer 1 doubled, the landlord redoubled against him: his stake is 4 times farmer 2's
        rec = play(deal(rng), [StrongBot(), GreedyBot(), GreedyBot()], CCPC2016, rng, 2, (2, 0))
        power = rec.bombs + rec.rockets + int(rec.spring)
        sign = -1 if rec.landlord_won else 1
        f1, f2 = 2 * sign * 2 ** (power + 2), 2 * sign * 2**power
        assert rec.scores == (-(f1 + f2), f1, f2) and rec.doubles == (2, 0)


def test_ccpc2016_worked_example() -> None:
    """The 2016 rules' own worked example: bid 3, one bomb and one rocket, a reverse spring
    (the farmers win), farmer 1 doubles and the landlord redoubles: farmer 1 +96, farmer 2 +24,
    landlord -120."""
    example = Outcome(landlord_won=False, bombs=1, rockets=1, spring=True, call=3, doubles=(2, 0))
    assert CCPC2016.scores(example) == (-120.0, 96.0, 24.0)
    # farmer 2 doubling too, without a redouble: 3 x 2^3 x 2 = 48
    assert CCPC2016.scores(replace(example, doubles=(2, 1))) == (-144.0, 96.0, 48.0)
    for bad in [(3, 0), (0, -1), (1,), 1, (True, 0)]:
        with pytest.raises(MindsportError, match="doubles"):
            Outcome(landlord_won=True, doubles=bad)  # type: ignore[arg-type]
