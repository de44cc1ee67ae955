"""Card tracking and the tracking bot, checked against brute-force enumeration.

The reference for every probability is an enumeration written here, independent of the tracker:
the unseen cards are listed one by one and every way to give the first opponent the right number
of them is visited (``itertools.combinations``), each weighted by the product of the documented
pass factors of the cards it gives to each seat (1 with hard evidence only); kitty cards still
owed by the landlord must go to the landlord.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest

from mindsport.doudizhu import GameState, Kind, Move, deal, play
from mindsport.doudizhu.bots import StrongBot, TrackingBot, make_bot
from mindsport.doudizhu.cards import DECK_COUNTS, N_RANKS, TWO, Counts
from mindsport.doudizhu.deal import Deal
from mindsport.doudizhu.moves import can_beat
from mindsport.doudizhu.tracking import CardTracker, PassModel, TrackingError
from mindsport.errors import MindsportError

# IPF (the fitted matrix) vs the exact per-card marginals once passes re-weight cards, for pass
# factors >= 0.3 in end-game positions; with hard evidence only the fit is exact (1e-7).
IPF_TOLERANCE = 0.08
STRONG = StrongBot()


def _random_kitty(d: Deal, rng: np.random.Generator) -> Counts:
    cards = [r for r, n in enumerate(d.counts()[0]) for _ in range(n)]
    kitty = [0] * N_RANKS
    for i in rng.choice(len(cards), 3, replace=False):
        kitty[cards[i]] += 1
    return tuple(kitty)


def _advance(d: Deal, opp_cards: int, seat: int, rng: np.random.Generator) -> GameState | None:
    """Strong self-play until the two opponents of ``seat`` hold at most ``opp_cards``."""
    st = GameState(d)
    while not st.is_terminal():
        left = [sum(st.hands[s]) for s in range(3) if s != seat]
        if sum(left) <= opp_cards and st.current_player() == seat:
            return st
        st.apply_unchecked(STRONG.act(st.view(), st.legal_actions(), rng))
    return None


@functools.cache
def _games(opp_cards: int, count: int) -> tuple[tuple[GameState, int, Counts], ...]:
    """``count`` positions (state, viewer seat, kitty) from strong self-play."""
    out = []
    for g in range(400):
        rng = np.random.default_rng([11, g])
        d = deal(rng)
        kitty = _random_kitty(d, rng)
        seat = g % 3
        st = _advance(d, opp_cards, seat, rng)
        if st is None:
            continue
        out.append((st, seat, kitty))
        if len(out) == count:
            break
    assert len(out) == count
    return tuple(out)


def _positions(
    opp_cards: int, count: int, pass_model: PassModel
) -> list[tuple[GameState, CardTracker, Counts]]:
    return [
        (st, CardTracker.from_view(st.view(seat), kitty=kitty, pass_model=pass_model), kitty)
        for st, seat, kitty in _games(opp_cards, count)
    ]


def _pass_weights(st: GameState, seat: int, model: PassModel) -> dict[int, list[float]]:
    """Per-seat per-rank card factor implied by the passes in the history (the model as
    documented: a pass on an opponent's single / pair / trio-based play)."""
    w = {s: [1.0] * N_RANKS for s in range(3)}
    last: Move | None = None
    last_player = -1
    for who, action in st.history:
        if action is None:
            if who != seat and last is not None and 0 in (who, last_player):
                if last.kind is Kind.SINGLE:
                    ranks, f = range(last.main + 1, N_RANKS), model.single
                elif last.kind is Kind.PAIR:
                    ranks, f = range(last.main + 1, TWO + 1), model.pair**0.5
                elif last.kind in (Kind.TRIO, Kind.TRIO_SINGLE, Kind.TRIO_PAIR):
                    ranks, f = range(last.main + 1, TWO + 1), model.trio ** (1 / 3)
                else:
                    ranks, f = range(0), 1.0
                for r in ranks:
                    w[who][r] *= f
        else:
            last, last_player = action, who
    return w


def _enumerate(
    st: GameState, seat: int, kitty: Counts, model: PassModel
) -> list[tuple[float, tuple[Counts, Counts, Counts]]]:
    """Every split of the unseen cards (card by card) with its normalised weight.

    The kitty cards are physical cards seen going to the landlord; one of them counts as played
    when the landlord plays its rank (the documented rule), so ``kitty - played by the landlord``
    of them are still the landlord's for sure; the other unseen cards are free.
    """
    view = st.view(seat)
    unseen = view.unseen()
    opp = [s for s in range(3) if s != seat]
    owed = [0] * N_RANKS
    if seat != 0:
        played = view.played(0)
        owed = [max(0, kitty[r] - played[r]) for r in range(N_RANKS)]
    free = [r for r in range(N_RANKS) for _ in range(unseen[r] - owed[r])]
    forced = {s: [owed[r] if s == 0 else 0 for r in range(N_RANKS)] for s in opp}
    w = _pass_weights(st, seat, model)
    size0 = sum(st.hands[opp[0]]) - sum(forced[opp[0]])
    out = []
    for chosen in itertools.combinations(range(len(free)), size0):
        first = list(forced[opp[0]])
        for i in chosen:
            first[free[i]] += 1
        second = [u - f for u, f in zip(unseen, first, strict=True)]
        hands = {opp[0]: first, opp[1]: second, seat: list(view.hand)}
        weight = math.prod(
            w[s][r] ** (hands[s][r] - forced[s][r])
            for s in opp
            for r in range(N_RANKS)
            if hands[s][r]
        )
        out.append((weight, (tuple(hands[0]), tuple(hands[1]), tuple(hands[2]))))
    z = sum(x for x, _ in out)
    return [(x / z, h) for x, h in out]


def _expected_counts(splits: list[tuple[float, tuple[Counts, Counts, Counts]]]) -> np.ndarray:
    out = np.zeros((N_RANKS, 3))
    for p, hands in splits:
        for s in range(3):
            out[:, s] += p * np.array(hands[s])
    return out


def _prob(splits: list, event: Callable) -> float:
    return sum(p for p, h in splits if event(h))


# ---------------------------------------------------------------------------------------------
def test_hard_evidence_matches_enumeration() -> None:
    for st, tracker, kitty in _positions(14, 8, PassModel.none()):
        ref = _expected_counts(_enumerate(st, tracker.seat, kitty, PassModel.none()))
        assert np.allclose(tracker.rank_expectation("ipf"), ref, atol=1e-7)
        assert np.allclose(tracker.rank_expectation("exact"), ref, atol=1e-9)
        p = tracker.probabilities("ipf")
        assert np.allclose(p.sum(axis=1), 1.0) and np.allclose(p.sum(axis=0), tracker.hand_sizes)


def test_soft_evidence_exact_and_ipf_tolerance() -> None:
    model = PassModel(0.3, 0.5, 0.5)
    positions = _positions(14, 8, model)
    informative = 0
    for st, tracker, kitty in positions:
        ref = _expected_counts(_enumerate(st, tracker.seat, kitty, model))
        hard = _expected_counts(_enumerate(st, tracker.seat, kitty, PassModel.none()))
        informative += not np.allclose(ref, hard, atol=1e-6)
        assert np.allclose(tracker.rank_expectation("exact"), ref, atol=1e-9)
        # per card: kitty rows are the landlord's, free rows of a rank share what is left
        p = tracker.probabilities("ipf")
        first = tracker.opponents[0]
        for i, (r, _, fixed) in enumerate(tracker.row_labels):
            n_fixed = sum(1 for lab in tracker.row_labels if lab[0] == r and lab[2])
            n_free = sum(1 for lab in tracker.row_labels if lab[0] == r and not lab[2])
            owed_first = n_fixed if first == 0 else 0
            want = float(first == 0) if fixed else (ref[r, first] - owed_first) / n_free
            assert p[i, 0] == pytest.approx(want, abs=IPF_TOLERANCE)
    assert informative >= 3  # the passes did change the answer in several positions


def test_kitty_cards_stay_with_the_landlord_until_played() -> None:
    # farmer 1 sees kitty "XD2": the jokers and one 2 are the landlord's with probability 1
    own = "3334445556667778T"
    t = CardTracker(1, own, kitty="XD2")
    exp = t.rank_expectation("ipf")
    assert exp[13, 0] == pytest.approx(1.0, abs=1e-12) and exp[14, 0] == pytest.approx(1.0)
    # 2s: one owed by the landlord; 34 free rows fill the landlord's 17 other places and
    # farmer 2's 17, so each of the other three 2s is the landlord's with probability 1/2
    assert exp[12, 0] == pytest.approx(1 + 3 * 17 / 34, abs=1e-7)
    labels = t.row_labels
    p = t.probabilities("ipf")
    fixed = [i for i, lab in enumerate(labels) if lab[2]]
    assert len(fixed) == 3 and np.allclose(p[fixed, 0], 1.0, atol=1e-12)
    # the landlord plays a 2: the owed 2 is gone, the other 2s are free again
    t.observe(0, Move("single", "2"))
    exp = t.rank_expectation("ipf")
    assert exp[12, 0] == pytest.approx(3 * 17 / 34, abs=1e-7)
    assert exp[14, 0] == pytest.approx(1.0, abs=1e-12)
    # farmer 2 cannot have played a kitty card, nor the viewer a card it does not hold
    t.observe(1, None)
    snapshot = t.copy()
    before = t.probabilities("exact")
    with pytest.raises(TrackingError, match="unseen 'D'"):
        t.observe(2, Move("single", "D"))
    with pytest.raises(TrackingError, match="unseen 'D'"):  # fails after removing the As
        t.observe(2, Move("trio_single", "AAAD"))
    assert t.hand_sizes == (19, 17) and np.array_equal(t.probabilities("exact"), before)
    with pytest.raises(TrackingError, match="hand"):
        snapshot.observe(2, None)
        snapshot.observe(0, Move("single", "A"))
        snapshot.observe(1, Move("single", "2"))


def test_samples_consistent_and_distributed_as_enumeration() -> None:
    model = PassModel(0.3, 0.5, 0.5)
    n = 4000
    for st, tracker, kitty in _positions(14, 8, model)[:3]:
        seat = tracker.seat
        view = st.view(seat)
        owed = [0] * N_RANKS
        if seat != 0:
            owed = [max(0, k - p) for k, p in zip(kitty, view.played(0), strict=True)]
        draws = tracker.sample_hands(np.random.default_rng(3), n)
        for hands in draws:
            assert hands[seat] == view.hand
            for s in range(3):
                assert sum(hands[s]) == view.cards_left[s]
            assert all(h >= o for h, o in zip(hands[0], owed, strict=True))
            played = [view.played(s) for s in range(3)]
            for r in range(N_RANKS):
                assert sum(h[r] for h in hands) + sum(p[r] for p in played) == DECK_COUNTS[r]
        splits = _enumerate(st, seat, kitty, model)
        ref = _expected_counts(splits)
        mean = np.mean([np.array(h).T for h in draws], axis=0)
        var = np.zeros((N_RANKS, 3))
        for p, hands in splits:
            var += p * (np.array(hands).T - ref) ** 2
        se = np.sqrt(var / n)
        assert np.all(np.abs(mean - ref) <= 5 * se + 1e-12)


def test_event_probabilities_match_enumeration() -> None:
    model = PassModel()
    for st, tracker, kitty in _positions(14, 8, model)[:4]:
        splits = _enumerate(st, tracker.seat, kitty, model)
        for s in tracker.opponents:
            ref_bomb = _prob(splits, lambda h, s=s: (h[s][13] and h[s][14]) or 4 in h[s][: TWO + 1])
            ref_rocket = _prob(splits, lambda h, s=s: bool(h[s][13] and h[s][14]))
            assert tracker.p_bomb(s) == pytest.approx(ref_bomb, abs=1e-9)
            assert tracker.p_rocket(s) == pytest.approx(ref_rocket, abs=1e-9)
            for move in (Move("single", "A"), Move("pair", "99"), Move("single", "7")):
                ref = _prob(splits, lambda h, s=s, m=move: can_beat(h[s], m))
                assert tracker.p_beats(s, move) == pytest.approx(ref, abs=1e-9)
        # sampling estimate (forced) agrees within a few standard errors
        s = tracker.opponents[0]
        move = Move("single", "K")
        ref = _prob(splits, lambda h, s=s, m=move: can_beat(h[s], m))
        est = tracker.p_beats(s, move, rng=np.random.default_rng(5), samples=3000, max_splits=0)
        assert abs(est - ref) <= 5 * math.sqrt(ref * (1 - ref) / 3000) + 1e-9


def test_reproducible_from_seed() -> None:
    _, tracker, _ = _positions(14, 8, PassModel())[0]
    a = tracker.sample_hands(np.random.default_rng(42), 50)
    b = tracker.copy().sample_hands(np.random.default_rng(42), 50)
    assert a == b
    d = deal(np.random.default_rng(8))
    bot = TrackingBot(endgame_cards=34)
    r1 = play(d, [bot, STRONG, STRONG], rng=np.random.default_rng(1))
    r2 = play(d, [TrackingBot(endgame_cards=34), STRONG, STRONG], rng=np.random.default_rng(1))
    assert r1 == r2


def test_bot_plays_legal_moves_in_full_games() -> None:
    bot = make_bot("tracking")
    assert isinstance(bot, TrackingBot)
    eager = TrackingBot(samples=4, endgame_cards=24, danger_cards=6)
    for g in range(6):
        rng = np.random.default_rng([21, g])
        d = deal(rng)
        eager.set_kitty(_random_kitty(d, rng))
        # the referee checks every bot move: an illegal one would end the game as a forfeit
        for players in ([eager, STRONG, STRONG], [STRONG, eager, eager], [bot, eager, bot]):
            rec = play(d, players, rng=rng)
            assert rec.winner in (0, 1, 2) and rec.forfeit is None
    assert eager.lookaheads > 0


def test_errors_name_the_input() -> None:
    with pytest.raises(TrackingError, match="seat"):
        CardTracker(3, "3334445556667778T")
    with pytest.raises(TrackingError, match="17"):
        CardTracker(1, "333444555666777")
    with pytest.raises(TrackingError, match="kitty"):
        CardTracker(1, "3334445556667778T", kitty="33")
    with pytest.raises(TrackingError, match="kitty"):
        CardTracker(1, "3333444555666777T", kitty="3JQ")  # a fifth 3
    with pytest.raises(MindsportError, match="PassModel"):
        PassModel(single=0.0)
    with pytest.raises(TrackingError, match="samples"):
        TrackingBot(samples=0)
    t = CardTracker(1, "3334445556667778T")
    with pytest.raises(TrackingError, match="turn"):
        t.observe(2, Move("single", "9"))
    with pytest.raises(TrackingError, match="leading"):
        t.observe(0, None)
    with pytest.raises(TrackingError, match="rng"):
        t.probability(lambda h: True, max_splits=0)
    other = GameState(deal(np.random.default_rng(0)))
    with pytest.raises(TrackingError, match="does not continue"):
        t.update(other.view(1))
