"""legal_moves against two peers' generators (test oracles, skipped when not installed):
RLCard's and DouZero's card sets on the same hands, equal up to their documented rule
differences (RLCard: no four-trio plane whose kicker trio continues the chain; DouZero: both
jokers or four cards of one rank allowed as kickers, planes compared with a kicker trio)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from mindsport.doudizhu import Move, deal, legal_moves
from mindsport.doudizhu.cards import RANKS

_TO_RL = str.maketrans({"X": "B", "D": "R"})
_DZ = dict(zip(RANKS, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30), strict=True))
_DZ_BACK = {v: k for k, v in _DZ.items()}


def _cases(count: int, seed: int) -> list[tuple[str, Move | None]]:
    rng = np.random.default_rng(seed)
    out: list[tuple[str, Move | None]] = []
    for _ in range(count):
        d = deal(rng)
        for i, hand in enumerate(d.hands):
            out.append((hand, None))
            options = legal_moves(d.hands[(i + 1) % 3])
            out.append((hand, options[int(rng.integers(len(options)))]))
    return out


def _rl_knows(previous: Move, card_type: dict[str, Any]) -> bool:
    """Whether RLCard has the play as it is (not a plane whose kicker trio continues it)."""
    types = card_type.get(previous.cards.translate(_TO_RL))
    prefix = {"plane_single": "trio_solo_chain", "plane_pair": "trio_pair_chain"}
    wanted = prefix.get(previous.kind.value)
    return types is not None and (wanted is None or any(t.startswith(wanted) for t, _ in types))


def _ours(hand: str, previous: Move | None) -> set[str]:
    return {m.cards for m in legal_moves(hand, previous)}


def test_rlcard_lists_the_same_card_sets() -> None:
    pytest.importorskip("rlcard", reason="rlcard is not installed (pip install rlcard)")
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards

    for hand, previous in _cases(100, 3):
        rl_hand = hand.translate(_TO_RL)
        if previous is None:
            found = DoudizhuJudger.playable_cards_from_hand(rl_hand)
        elif not _rl_knows(previous, CARD_TYPE[0]):
            continue  # a play RLCard lacks (its one omission, below): it cannot answer it
        else:
            cards = [
                SimpleNamespace(rank="", suit={"B": "BJ", "R": "RJ"}[c])
                if c in "BR"
                else SimpleNamespace(rank=c, suit="S")
                for c in rl_hand
            ]
            played = SimpleNamespace(played_cards=previous.cards.translate(_TO_RL))
            found = get_gt_cards(SimpleNamespace(current_hand=cards), played)
        theirs = {c.translate(str.maketrans("BR", "XD")) for c in found if c != "pass"}
        ours = _ours(hand, previous)
        for cards in ours - theirs:  # RLCard's one omission: a kicker trio continuing the plane
            trios = "".join(c for c in RANKS[:12] if cards.count(c) >= 3)
            assert len(trios) > len(cards) // 4 and trios in RANKS, (hand, previous, cards)
        assert theirs <= ours, (hand, previous, theirs - ours)


def test_douzero_lists_the_same_card_sets_but_for_its_kicker_rules() -> None:
    pytest.importorskip(
        "douzero", reason="douzero is not installed (pip install --no-deps douzero)"
    )
    from douzero.env.game import GameEnv

    for hand, previous in _cases(150, 4):
        env = SimpleNamespace(
            info_sets={"p": SimpleNamespace(player_hand_cards=[_DZ[c] for c in hand])},
            acting_player_position="p",
            card_play_action_seq=[] if previous is None else [[_DZ[c] for c in previous.cards]],
        )
        theirs = {
            "".join(sorted((_DZ_BACK[v] for v in m), key=RANKS.index))
            for m in GameEnv.get_legal_card_play_actions(env)
            if m
        }
        ours = _ours(hand, previous)
        plane = previous is not None and previous.kind.value in ("plane_single", "plane_pair")
        for cards in theirs ^ ours:
            both_jokers = "X" in cards and "D" in cards and len(cards) > 2
            four_kicker = any(cards.count(c) == 4 for c in RANKS[:13]) and len(cards) > 4
            assert both_jokers or four_kicker or plane, (hand, previous, cards)
