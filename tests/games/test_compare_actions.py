"""The action correction (AIVAT's action terms) against brute force and theory: each
decision's term has mean zero under the bot's move distribution enumerated on real positions
(the legal moves of the Python game state, the strong move of the Python strong bot); the
terms of a game are the sum of those of its decisions; the corrected estimate of a bot against
itself is centred on the known answer (margin 0, win score 1/2); unknown and deterministic
policies are not valued; the report's fields; serial and processes agree."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from mindsport.doudizhu.action_terms import FEATURE_NAMES, decision_terms, feature_terms
from mindsport.doudizhu.bots import StrongBot
from mindsport.doudizhu.compiled.values import N_FEATURES
from mindsport.doudizhu.engine import seeded_states
from mindsport.doudizhu.game import PLAYOUT_STREAM
from mindsport.doudizhu.record import GameRecord
from mindsport.doudizhu.state import GameState
from mindsport.games import Table, get_game, play_many
from mindsport.games.compare import CompareSettings, compare
from mindsport.games.compare.actions import action_variates
from mindsport.games.compare.schedule import rotation
from mindsport.games.contract import DecisionTerms
from mindsport.games.many import Seeding
from mindsport.tournament.executors import ProcessExecutor, SerialExecutor

SEATS = ("level:60", "random", "level:30")
LEVELS = (0.6, 0.0, 0.3)


def _records(n: int, seed: int) -> list[GameRecord]:
    game = get_game("doudizhu")
    tables = [Table(None, SEATS, (g,)) for g in range(n)]
    return play_many(game, tables, seed, records=True)


def _terms_of(record: GameRecord, moves: tuple[tuple[int, object], ...]) -> np.ndarray:
    terms, _ = feature_terms([replace(record, moves=moves)], [SEATS])  # type: ignore[arg-type]
    return terms[0]


def test_each_decisions_term_has_mean_zero_under_its_policy() -> None:
    """At every decision of real games, ``sum_a pi(a | s) term(a) = 0`` with ``pi``
    enumerated from the Python game (its legal actions, the pass included, and the Python
    strong bot's move): the kernel's expectation is the policy's. ``term(a)`` is the kernel's
    term of the game cut after that decision with the move replaced by ``a``."""
    strong = StrongBot()
    rng = np.random.default_rng(0)
    checked = 0
    for record in _records(3, 11):
        state = GameState(record.deal)
        for t, (seat, played) in enumerate(record.moves):
            before = _terms_of(record, record.moves[:t])
            legal = state.legal_actions()
            p = LEVELS[seat]
            best = strong.act(state.view(seat), legal, rng) if p > 0 else None
            pi = np.array([(1 - p) / len(legal) + (p if a == best else 0.0) for a in legal])
            assert pi.sum() == pytest.approx(1.0, abs=1e-12)
            terms = (
                np.array([_terms_of(record, (*record.moves[:t], (seat, a)))[seat] for a in legal])
                - before[seat]
            )
            assert np.abs(pi @ terms).max() < 1e-9, (t, seat)
            played_term = terms[legal.index(played)]
            after = _terms_of(record, record.moves[: t + 1])
            assert np.allclose(after[seat] - before[seat], played_term)
            others = [s for s in range(3) if s != seat]
            assert np.allclose(after[others], before[others])
            checked += 1
            state.apply_action(played)
    assert checked > 60


def test_the_terminal_features_read_the_outcome() -> None:
    """The last move ends the game: its child's ``landlord_won`` / ``terminal_score`` are
    the record's outcome (by hand: the linear rule scores +-(1 + bombs))."""
    from mindsport.doudizhu.compiled.values import Seats, Table, features

    out = np.zeros(N_FEATURES)
    held = np.zeros(3, np.int64)
    features(Seats(np.zeros(3), np.array([0, 3, 5]), held), Table(0, 1, 2, 0), out)
    named = dict(zip(FEATURE_NAMES, out, strict=True))
    assert named["landlord_won"] == 1 and named["farmers_won"] == 0
    assert named["terminal_score"] == 3.0 and named["landlord_cards"] == 0.0
    features(Seats(np.array([2.0, 1.0, 3.5]), np.array([9, 4, 7]), held), Table(1, 2, 1, -1), out)
    named = dict(zip(FEATURE_NAMES, out, strict=True))
    assert named["landlord_won"] == 0 and named["landlord_plan"] == 2.0
    assert named["farmer_plan_min"] == 1.0 and named["farmer_plan_sum"] == 4.5
    assert named["farmer_cards_min"] == 4 and named["landlord_holds"] == 0
    assert named["plan_advantage"] == -1.0 and named["farmer_nearly_out"] == 1.0


def test_deterministic_and_unknown_policies_are_not_valued() -> None:
    records = _records(4, 3)
    seats = [("strong", "greedy", "cmd:python bot.py")] * 4
    terms, valued = decision_terms(records, seats)
    assert not terms.any() and not valued.any()
    game = get_game("doudizhu")
    assert game.decision_terms(records, seats) is None  # type: ignore[attr-defined]
    mixed = [("level:100", "level:0", "tracking")] * 4
    terms, valued = decision_terms(records, mixed)
    assert valued[:, 0].sum() == 0 and valued[:, 2].sum() == 0
    assert valued[:, 1].sum() == sum(1 for r in records for s, _ in r.moves if s == 1)


def test_playing_valued_is_recording_then_valuing() -> None:
    """The engine's path without record objects (``play_valued``) gives what recording the
    same tables with ``play_many`` and valuing the records gives: the same returns, terms and
    decisions valued (dealt and undealt tables, known and deterministic policies); a bot the
    engine cannot play sends the caller to the recorded path (None), and tables with no known
    policy value nothing but still give their returns."""
    from mindsport.doudizhu.deal import deal

    game = get_game("doudizhu")
    rng = np.random.default_rng(5)
    lineups = [SEATS, ("strong", "level:90", "random"), ("level:0", "greedy", "level:50")]
    undealt = [Table(None, lineups[g % 3], (7, g)) for g in range(12)]
    dealt = [Table(deal(rng), lineups[g % 3], (8, g)) for g in range(9)]
    for tables in (undealt, dealt):
        fast = game.play_valued(tables, 21, Seeding.SPAWN)  # type: ignore[attr-defined]
        records = play_many(game, tables, 21, seeding=Seeding.SPAWN, records=True)
        slow = game.decision_terms(records, [t.bots for t in tables])  # type: ignore[attr-defined]
        assert fast is not None and slow is not None
        assert np.array_equal(fast.returns, slow.returns)
        assert np.array_equal(fast.valued, slow.valued) and fast.valued.sum() > 100
        assert np.allclose(fast.terms, slow.terms, rtol=0, atol=1e-12)
        assert fast.orientation == slow.orientation and fast.values == slow.values
    unknown = [Table(None, ("tracking", "random", "strong"), (9, 0))]
    assert game.play_valued(unknown, 21, Seeding.SPAWN) is None  # type: ignore[attr-defined]
    plain = [Table(None, ("strong", "greedy", "level:100"), (9, g)) for g in range(5)]
    none = game.play_valued(plain, 21, Seeding.SPAWN)  # type: ignore[attr-defined]
    assert none is not None and not none.valued.any() and not none.terms.any()
    assert np.array_equal(none.returns, play_many(game, plain, 21))


def test_action_variates_orient_the_terms_to_the_first_bots_result() -> None:
    """Dou Dizhu by hand: the first bot as landlord counts the landlord's value twice (its
    margin is 2 r0), as farmers minus twice; every deciding seat's terms count."""
    rot = rotation(get_game("doudizhu").info)
    terms = np.zeros((2, 3, 1))
    terms[0, 0, 0], terms[0, 1, 0], terms[1, 2, 0] = 1.0, 4.0, 3.0
    dt = DecisionTerms(np.zeros((2, 3)), terms, np.ones((2, 3)), (1.0, -0.5, -0.5), ("score",))
    # line-up 0: first bot landlord (o = +2); line-up 1: first bot farmers (o = -2)
    assert action_variates(rot, dt, 1).tolist() == [[0.0, (2 * 5.0 - 2 * 3.0) / 2]]
    with pytest.raises(Exception, match="not 2 sets"):
        action_variates(rot, dt, 2)


def test_a_bot_against_itself_is_centred_with_the_action_correction() -> None:
    """The known answer: a bot against itself has margin 0 and win score 1/2 exactly, so the
    corrected means of independent runs average to them (within 4 standard errors), and the
    action correction is fitted (its gain is not the neutral 1). The luck the corrections
    removed has expectation 0 whatever the bots, so it averages to 0 too."""
    game = get_game("doudizhu")
    wins, margins, ses, lucks, luck_ses = [], [], [], [], []
    for seed in range(8):
        r = compare(
            game,
            "level:60",
            "level:60",
            CompareSettings(seed=seed, max_games=400, batch=200, calibration=1),
        )
        assert r.valued > 0 and r.win.action_gain != 1.0
        wins.append(r.win.corrected.mean)
        margins.append(r.margin.corrected.mean)
        ses.append(r.margin.corrected.se)
        lucks.append(r.margin.luck.mean)
        luck_ses.append(r.margin.luck.se)
    se = float(np.sqrt(np.mean(np.square(ses)) / len(ses)))
    assert abs(np.mean(margins)) < 4 * se
    assert min(luck_ses) > 0
    assert abs(np.mean(lucks)) < 4 * float(np.sqrt(np.mean(np.square(luck_ses)) / len(lucks)))
    assert abs(np.mean(wins) - 0.5) < 4 * float(np.std(wins, ddof=1) / np.sqrt(len(wins)))


def test_the_report_gives_each_step_and_processes_agree() -> None:
    game = get_game("doudizhu")
    settings = CompareSettings(seed=5, max_games=400, batch=100, calibration=1)
    with SerialExecutor() as ex:
        one = compare(game, "level:80", "level:40", settings, executor=ex)
    with ProcessExecutor(2) as ex:
        two = compare(game, "level:80", "level:40", settings, executor=ex)
    assert one.to_json() == two.to_json()
    doc = one.to_json()
    assert doc["valued_decisions"] == one.valued > 0
    for name in ("win", "margin"):
        comp = doc[name]
        assert set(comp) >= {"naive", "duplicate", "deal", "corrected", "action_gain"}
        assert comp["total_gain"] == pytest.approx(
            comp["duplicate_gain"] * comp["correction_gain"] * comp["action_gain"]
        )
        assert comp["action_gain"] == pytest.approx(
            (comp["deal"]["se"] / comp["corrected"]["se"]) ** 2
        )
        # the luck removed is the duplicate mean minus the corrected one, set by set
        assert comp["luck"]["mean"] == pytest.approx(
            comp["duplicate"]["mean"] - comp["corrected"]["mean"], abs=1e-12
        )
        assert comp["luck"]["units"] == comp["corrected"]["units"] and comp["luck"]["se"] > 0
    off = compare(game, "level:80", "level:40", replace(settings, actions=False))
    assert off.valued == 0 and off.win.action_gain == 1.0
    assert off.win.corrected == off.win.deal == one.win.deal
    assert any("action correction" in line for line in one.lines())
    assert any(line.startswith("luck removed") for line in one.lines())
    bare = compare(game, "level:80", "level:40", replace(settings, actions=False, references=()))
    for comp in (bare.win, bare.margin):  # nothing corrected, no luck removed
        assert comp.corrected == comp.duplicate and comp.luck.mean == comp.luck.se == 0.0
    # the random-deal games are the same games: the naive and duplicate estimates agree
    assert off.win.duplicate == one.win.duplicate


def test_a_set_of_the_task_is_the_same_with_or_without_records() -> None:
    """Playing with records (for the terms) plays the same games as without."""
    game = get_game("doudizhu")
    deal = game.sample_chance(Seeding.SPAWN.rng(9, (0, 5)))
    tables = [Table(deal, ("level:30", "level:70", "level:70"), (1, 5, 0))] * 3
    plain = play_many(game, tables, 9)
    recorded = play_many(game, tables, 9, records=True)
    assert np.array_equal(plain, np.array([r.scores for r in recorded]))


def _playout_terms_of(record: GameRecord, moves: tuple[tuple[int, object], ...]) -> np.ndarray:
    """The playout terms (3 x 2) of ``record`` cut to ``moves``: 3 playouts a move, the
    playout generator of game key (0,) under seed 4 (the same states for every cut)."""
    from mindsport.doudizhu.action_terms import _rows, playout_row_terms, policy_codes

    deals, rows, starts = _rows([replace(record, moves=moves)])  # type: ignore[arg-type]
    codes, levels = policy_codes([SEATS])
    bases = seeded_states(4, [(0, PLAYOUT_STREAM)], Seeding.SPAWN)
    played = SimpleNamespace(deals=deals, rows=rows, starts=starts)
    terms, _ = playout_row_terms(played, codes, levels, bases, 3)  # type: ignore[arg-type]
    return terms[0]


def test_each_playout_term_has_mean_zero_under_its_policy() -> None:
    """As for the fixed value functions: at the first decisions of real games, ``sum_a
    pi(a | s) term(a) = 0`` with ``pi`` enumerated from the Python game and its strong bot,
    each ``term(a)`` the kernel's term of the game cut after the decision with the move
    replaced by ``a``: every move is played out from the same generator states, and the
    expectation is the policy's."""
    strong = StrongBot()
    rng = np.random.default_rng(0)
    checked = 0
    for record in _records(2, 12):
        state = GameState(record.deal)
        for t, (seat, played) in enumerate(record.moves[:8]):
            before = _playout_terms_of(record, record.moves[:t])
            legal = state.legal_actions()
            p = LEVELS[seat]
            best = strong.act(state.view(seat), legal, rng) if p > 0 else None
            pi = np.array([(1 - p) / len(legal) + (p if a == best else 0.0) for a in legal])
            terms = np.array(
                [_playout_terms_of(record, (*record.moves[:t], (seat, a)))[seat] for a in legal]
            )
            terms -= before[seat]
            assert np.abs(pi @ terms).max() < 1e-9, (t, seat)
            if len(legal) > 1:  # the moves are valued apart: the terms are not all zero
                assert np.abs(terms).max() > 0
            after = _playout_terms_of(record, record.moves[: t + 1])
            assert np.allclose(after[seat] - before[seat], terms[legal.index(played)])
            checked += 1
            state.apply_action(played)
    assert checked == 16


def test_playouts_remove_more_of_the_bots_luck_than_the_fixed_values() -> None:
    """level:90 against level:70 (the landlord against two farmers), 240 games: with 8
    playouts a move the terms follow the landlord's win closely enough to remove a fifth or
    more of its variance (0.71 of it kept here), well more than the fixed value functions (0.90
    kept here; measured on 300 games with 16 playouts: 0.47 kept, against 0.98)."""
    from mindsport.doudizhu.action_terms import playout_row_terms, row_terms
    from mindsport.doudizhu.engine import lineup_codes, play_rows, result_scores
    from mindsport.doudizhu.scoring import LINEAR

    n = 240
    found = lineup_codes([("level:90", "level:70", "level:70")] * n)
    assert found is not None
    codes, levels = found
    states = seeded_states(3, [(g,) for g in range(n)], Seeding.SPAWN)
    played = play_rows(states, None, codes, levels)
    fixed, _ = row_terms(played, codes, levels)
    bases = seeded_states(3, [(g, PLAYOUT_STREAM) for g in range(n)], Seeding.SPAWN)
    outs, valued = playout_row_terms(played, codes, levels, bases, 8)
    assert valued.sum() > 20 * n
    scores = result_scores(played.results, LINEAR)
    won = (scores[:, 0] > 0).astype(float)
    # the landlord's side: the orientation counts his value twice (+1, and -1/2 per farmer)
    kept = np.var(won - 2 * outs.sum(axis=1)[:, 0]) / np.var(won)
    kept_fixed = np.var(won - 2 * fixed.sum(axis=1)[:, 0]) / np.var(won)
    assert kept < 0.8
    assert kept < kept_fixed - 0.1
    assert abs(outs.sum(axis=1).mean(axis=0)[0]) < 4 * outs.sum(axis=1)[:, 0].std() / np.sqrt(n)


def test_playouts_give_the_same_report_in_every_process() -> None:
    game = get_game("doudizhu")
    settings = CompareSettings(seed=6, max_games=120, batch=30, calibration=1, playouts=2)
    with SerialExecutor() as ex:
        one = compare(game, "level:80", "level:40", settings, executor=ex)
    with ProcessExecutor(2) as ex:
        two = compare(game, "level:80", "level:40", settings, executor=ex)
    assert one.to_json() == two.to_json()
    assert one.playouts == one.to_json()["playouts"] == 2
    assert "by 2 playouts a move" in one.lines()[0]
    fixed = compare(game, "level:80", "level:40", replace(settings, playouts=0))
    assert fixed.playouts == 0 and "playouts" not in fixed.lines()[0]
    assert one.valued == fixed.valued > 0
    assert one.win.deal == fixed.win.deal  # the same games: only the action terms differ
    assert one.win.corrected != fixed.win.corrected
