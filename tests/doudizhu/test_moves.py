"""legal_moves against an independent brute force: classify every sub-multiset of the hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mindsport.doudizhu.cards import RANKS, format_counts, parse_counts
from mindsport.doudizhu.moves import (
    Kind,
    Move,
    MoveError,
    beats,
    can_beat,
    legal_moves,
    moves_of_cards,
)

DECK = [4] * 13 + [1, 1]
ACE, TWO, X, D = 11, 12, 13, 14


def classify(m: tuple[int, ...]) -> dict[str, int]:
    """Every kind the multiset ``m`` forms -> its highest main rank (written from the rules)."""
    n = sum(m)
    present = [r for r in range(15) if m[r]]
    out: dict[str, int] = {}

    def put(kind: str, main: int) -> None:
        out[kind] = max(out.get(kind, -1), main)

    def consecutive(ranks: list[int]) -> bool:
        return ranks == list(range(ranks[0], ranks[0] + len(ranks))) and ranks[-1] <= ACE

    if n == 1:
        put("single", present[0])
    if n == 2 and len(present) == 1 and present[0] <= TWO:
        put("pair", present[0])
    if n == 2 and m[X] == 1 and m[D] == 1:
        put("rocket", D)
    if n == 3 and len(present) == 1:
        put("trio", present[0])
    if n == 4 and len(present) == 1:
        put("bomb", present[0])
    if n == 4 and len(present) == 2:
        for r in present:
            if m[r] == 3:
                put("trio_single", r)
    if n == 5 and len(present) == 2:
        a, b = present
        for r, k in ((a, b), (b, a)):
            if m[r] == 3 and m[k] == 2 and k <= TWO:
                put("trio_pair", r)
    if 5 <= n <= 12 and all(m[r] == 1 for r in present) and consecutive(present):
        put("straight", present[-1])
    if 3 <= len(present) <= 10 and all(m[r] == 2 for r in present) and consecutive(present):
        put("pair_straight", present[-1])
    if 2 <= len(present) <= 6 and all(m[r] == 3 for r in present) and consecutive(present):
        put("plane", present[-1])
    for k in range(2, 6):
        if n != 4 * k:
            continue
        for s in range(0, ACE - k + 2):
            window = range(s, s + k)
            if not all(m[r] == 3 for r in window):  # exactly 3: no kicker of a main rank
                continue
            rest = list(m)
            for r in window:
                rest[r] = 0
            if max(rest) <= 3 and not (rest[X] and rest[D]):
                put("plane_single", s + k - 1)
    for k in range(2, 5):
        if n != 5 * k:
            continue
        for s in range(0, ACE - k + 2):
            window = range(s, s + k)
            if not all(m[r] == 3 for r in window):
                continue
            rest = [m[r] if r not in window else 0 for r in range(15)]
            kick = [r for r in range(15) if rest[r]]
            if len(kick) == k and all(rest[r] == 2 and r <= TWO for r in kick):
                put("plane_pair", s + k - 1)
    for r in present:
        if m[r] != 4 or r > TWO:
            continue
        rest = list(m)
        rest[r] = 0
        kick = [q for q in range(15) if rest[q]]
        if n == 6 and not (rest[X] and rest[D]):
            put("four_two_single", r)
        if n == 8 and len(kick) == 2 and all(rest[q] == 2 and q <= TWO for q in kick):
            put("four_two_pair", r)
    return out


def reference_moves(hand: tuple[int, ...]) -> dict[tuple[str, str], tuple[int, int]]:
    """(kind, cards) -> (main, size) for every sub-multiset of ``hand``."""
    out = {}
    for sub in itertools.product(*(range(c + 1) for c in hand)):
        if not any(sub):
            continue
        for kind, main in classify(sub).items():
            out[(kind, format_counts(sub))] = (main, sum(sub))
    return out


def ref_beats(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    (ka, ma, sa), (kb, mb, sb) = a, b
    if ka == "rocket":
        return True
    if kb == "rocket":
        return False
    if ka == "bomb":
        return kb != "bomb" or ma > mb
    return ka == kb and sa == sb and ma > mb


def random_hand(rng: np.random.Generator, size: int) -> tuple[int, ...]:
    deck = np.repeat(np.arange(15), DECK)
    chosen = rng.choice(deck, size=size, replace=False)
    return tuple(int(x) for x in np.bincount(chosen, minlength=15))


def as_dict(moves: list[Move]) -> dict[tuple[str, str], tuple[int, int]]:
    keys = [(m.kind.value, m.cards) for m in moves]
    assert len(keys) == len(set(keys)), "duplicate moves"
    return {(m.kind.value, m.cards): (m.main, m.size) for m in moves}


def test_random_hands_against_brute_force() -> None:
    rng = np.random.default_rng(20260101)
    for trial in range(450):
        # a skewed deck draw (few ranks, many copies) makes combinations more frequent
        size = int(rng.integers(8, 13))
        if trial % 2:
            hand = random_hand(rng, size)
        else:
            ranks = rng.choice(15, size=int(rng.integers(3, 7)), replace=False)
            pool = [r for r in ranks for _ in range(DECK[r])]
            picked = rng.choice(pool, size=min(size, len(pool)), replace=False)
            hand = tuple(int(x) for x in np.bincount(picked, minlength=15))
        ref = reference_moves(hand)
        assert as_dict(legal_moves(hand)) == ref, format_counts(hand)
        # responses: previous plays drawn from the reference moves of another hand
        other = reference_moves(random_hand(rng, 10))
        prevs = list(other.items())
        for i in rng.choice(len(prevs), size=min(4, len(prevs)), replace=False):
            (kind, cards), (main, size_) = prevs[int(i)]
            prev = Move(kind, cards)
            assert prev.main == main
            want = {
                key: val
                for key, val in ref.items()
                if ref_beats((key[0], *val), (kind, main, size_))
            }
            got = legal_moves(hand, prev)
            assert as_dict(got) == want, (format_counts(hand), kind, cards)
            assert all(beats(m, prev) for m in got)
            assert can_beat(hand, prev) == bool(want)


def test_full_hands_against_brute_force() -> None:
    for text in ("33344455566677XD2222", "3456789TJQKA222XDKKK", "333444555666777888XD"):
        hand = parse_counts(text)
        assert as_dict(legal_moves(hand)) == reference_moves(hand), text


def test_straight_counts() -> None:
    moves = legal_moves("3456789TJQKA2XD")
    straights = [m for m in moves if m.kind is Kind.STRAIGHT]
    assert len(straights) == sum(12 - n + 1 for n in range(5, 13))  # 36
    assert all("2" not in m.cards and "X" not in m.cards for m in straights)
    assert "TJQKA2" not in {m.cards for m in moves}


def test_chains_exclude_twos_and_jokers() -> None:
    assert moves_of_cards("JQKA2") == []
    assert moves_of_cards("QQKKAA22") == []
    assert moves_of_cards("KKKAAA222") == []
    assert [m.kind for m in moves_of_cards("KKKAAA")] == [Kind.PLANE]


def test_jokers() -> None:
    assert [m.kind for m in moves_of_cards("XD")] == [Kind.ROCKET]
    assert moves_of_cards("333XD") == []  # rocket is not a pair kicker
    assert moves_of_cards("3333XD") == []  # nor two single kickers
    assert moves_of_cards("333444XD") == []
    assert [m.kind for m in moves_of_cards("333X")] == [Kind.TRIO_SINGLE]
    assert [m.kind for m in moves_of_cards("33332X")] == [Kind.FOUR_TWO_SINGLE]


def test_33334444_is_no_move() -> None:
    assert moves_of_cards("33334444") == []
    hand = legal_moves("33334444")
    kinds = {(m.kind.value, m.cards) for m in hand}
    assert ("bomb", "3333") in kinds and ("bomb", "4444") in kinds
    assert ("plane", "333444") in kinds
    assert ("four_two_single", "333344") in kinds
    assert ("plane_single", "33344434") not in kinds
    assert not any(m.size == 8 for m in hand)


def test_ambiguous_planes_take_highest_reading() -> None:
    m = Move("plane_single", "333444555666")
    assert m.main == RANKS.index("6")
    assert {k.kind for k in moves_of_cards("333444555666")} == {Kind.PLANE, Kind.PLANE_SINGLE}
    # 333444 + 5 + 5: single kickers may repeat a rank
    assert Move("plane_single", "33344455").main == RANKS.index("4")
    # kicker of a main rank is not allowed: 3334446 + 4 is not 333444 + 4 6
    assert moves_of_cards("33344446") == []
    assert moves_of_cards("3334445555") == []
    assert moves_of_cards("3334445556") == []
    assert beats(Move("plane_single", "333444555666"), Move("plane_single", "333444555789"))
    # beating: 444555666+333 (main 6) beats 333444555+777 (main 5)
    assert beats(Move("plane_single", "333444555666"), Move("plane_single", "333444555777"))


def test_kickers_may_repeat_but_not_four() -> None:
    assert Move("four_two_single", "333355").main == 0
    assert Move("plane_single", "3334445555"[:8]).cards == "33344455"
    # 333444555666 + 7777: four kicker cards of one rank; 444555666777 needs exactly three 7s
    assert moves_of_cards("3334445556667777") == []
    # 444555666 + 777 + 3 is fine (kickers repeat a rank three times)
    assert Move("plane_single", "444555666777").main == RANKS.index("7")
    with pytest.raises(MoveError):
        Move("four_two_pair", "33334444")


def test_four_two_is_not_a_bomb() -> None:
    four_two = Move("four_two_single", "333345")
    assert not four_two.is_bomb
    assert beats(Move("bomb", "4444"), four_two)
    assert not beats(Move("four_two_single", "444456"), Move("bomb", "3333"))
    assert Move("bomb", "3333") in legal_moves("33334444", four_two)


def test_bad_moves_name_the_input() -> None:
    with pytest.raises(MoveError, match='"3334" is not a pair'):
        Move("pair", "3334")
    with pytest.raises(MoveError, match="unknown move kind"):
        Move("triple", "333")  # type: ignore[arg-type]


def test_previous_given_as_text_or_refused() -> None:
    from mindsport.doudizhu.moves import MoveError, parse_move

    assert legal_moves("34567889TTJQ", "56789") == legal_moves("34567889TTJQ", parse_move("56789"))
    with pytest.raises(MoveError, match="previous must be a Move"):
        legal_moves("3345", 5)  # type: ignore[arg-type]
    with pytest.raises(MoveError):
        legal_moves("3345", "3456")  # four cards of no kind
