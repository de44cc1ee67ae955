"""Belief tracking from public events, the bots, and the command line."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from mindsport.belief import exact_marginals
from mindsport.cli.junqi import app
from mindsport.junqi import (
    BeliefMethod,
    EnemyTracker,
    Outcome,
    PieceKind,
    Setup,
    State,
    make_bot,
    parse_post,
    play_game,
)
from mindsport.junqi.board import post_at
from mindsport.junqi.rules import engineer_only_move
from mindsport.junqi.tracker import allowed_kinds

K = PieceKind
SOUTH = ["32121", "7+6+4", "31+82", "B+5+7", "MMB96", "MF435"]  # commander at d2 (behind)
NORTH = ["93121", "7+6+4", "21+82", "B+5+7", "MMB36", "MF435"]  # commander at a7 (front)


def test_allowed_kinds_from_rules() -> None:
    assert set(allowed_kinds(K.REGIMENT, Outcome.ATTACKER_WINS, enemy_attacked=False)) == {
        K.BATTALION,
        K.COMPANY,
        K.PLATOON,
        K.ENGINEER,
        K.FLAG,
    }
    assert set(allowed_kinds(K.REGIMENT, Outcome.DEFENDER_WINS, enemy_attacked=False)) == {
        K.COMMANDER,
        K.GENERAL,
        K.DIVISION,
        K.BRIGADE,
        K.MINE,
    }
    assert set(allowed_kinds(K.ENGINEER, Outcome.ATTACKER_WINS, enemy_attacked=False)) == {
        K.MINE,
        K.FLAG,
    }
    # an enemy that attacked our mine and won is an engineer
    assert allowed_kinds(K.MINE, Outcome.ATTACKER_WINS, enemy_attacked=True) == [K.ENGINEER]
    assert set(allowed_kinds(K.BOMB, Outcome.BOTH_REMOVED, enemy_attacked=True)) == {
        k for k in PieceKind if k.movable
    }


def test_engineer_only_move() -> None:
    board = [-1] * 60
    a6, e6, a11, a7 = (parse_post(x) for x in ("a6", "e6", "a11", "a7"))
    assert not engineer_only_move(board, a6, e6)  # straight along the front row
    assert not engineer_only_move(board, a6, a11)  # straight up column a
    assert engineer_only_move(board, a7, e6)  # turns at a6
    board[parse_post("c6")] = 5
    assert engineer_only_move(board, a6, e6)  # blocked straight run: must have gone around


def test_tracker_setup_rules_and_collision() -> None:
    state = State((Setup.from_rows(SOUTH), Setup.from_rows(NORTH)))
    tracker = EnemyTracker(0)
    tracker.update(state.observation(0))
    p = tracker.probabilities
    front = tracker.row_of[post_at(1, 0, 0)]
    hq = tracker.row_of[post_at(1, 5, 1)]
    assert p[front, K.FLAG] == 0 and p[front, K.MINE] == 0 and p[front, K.BOMB] == 0
    assert p[hq, K.FLAG] > 0
    # every non-HQ row excludes the flag, so the two HQ rows share it: exact 1/2 each
    np.testing.assert_allclose(p[:, K.FLAG].sum(), 1.0)
    # south's regiment on b6 attacks north's commander on b7 ... use the front corner a6 -> a7
    state.apply_action(state.string_to_action("a6-a7"))  # south company x north commander
    assert state.events[-1].outcome is Outcome.DEFENDER_WINS
    tracker.update(state.observation(0))
    possible = {K(j) for j in np.flatnonzero(tracker.probabilities[front] > 0)}
    # beats a company, not a mine (front row) nor a bomb (front row)
    assert possible == {K.COMMANDER, K.GENERAL, K.DIVISION, K.BRIGADE, K.REGIMENT, K.BATTALION}
    # the fitted matrix is close to the exact marginals of the same evidence
    assert tracker.matrix is not None
    err = np.abs(tracker.probabilities - exact_marginals(tracker.matrix)).max()
    assert err < 0.05


def test_equal_rank_trade_identifies() -> None:
    state = State((Setup.from_rows(SOUTH), Setup.from_rows(NORTH)))
    tracker = EnemyTracker(0)
    state.apply_action(state.string_to_action("c6-c7"))  # engineer x engineer
    assert state.events[-1].outcome is Outcome.BOTH_REMOVED
    tracker.update(state.observation(0))
    row = tracker.row_of[post_at(1, 0, 2)]
    possible = {K(j) for j in np.flatnonzero(tracker.probabilities[row] > 0)}
    # equal rank; a bomb cannot stand in the front row; a commander would have shown the flag
    assert possible == {K.ENGINEER}


def test_commander_death_reveals_flag_and_identifies() -> None:
    south = ["93121", "7+6+4", "21+82", "B+5+7", "MMB36", "MF435"]
    state = State((Setup.from_rows(south), Setup.from_rows(NORTH)))
    tracker = EnemyTracker(0)
    state.apply_action(state.string_to_action("a6-a7"))  # commander x commander
    event = state.events[-1]
    assert event.outcome is Outcome.BOTH_REMOVED
    assert set(event.revealed_flags) == {(0, parse_post("b1")), (1, parse_post("b12"))}
    tracker.update(state.observation(0))
    p = tracker.probabilities
    assert p[tracker.row_of[parse_post("a7")], K.COMMANDER] == pytest.approx(1.0)
    assert p[tracker.row_of[parse_post("b12")], K.FLAG] == pytest.approx(1.0)
    assert p[tracker.row_of[parse_post("d12")], K.FLAG] == pytest.approx(0.0)
    # nobody else can be the commander now
    assert p[:, K.COMMANDER].sum() == pytest.approx(1.0)


def test_belief_bot_beats_random() -> None:
    rng = np.random.default_rng(7)
    wins = 0
    for game in range(4):
        bots = [make_bot("belief"), make_bot("random")]
        if game % 2:
            bots.reverse()
        record = play_game(bots, rng)
        belief_seat = 0 if game % 2 == 0 else 1
        wins += record.winner == belief_seat
    assert wins >= 3


def test_bots_are_reproducible() -> None:
    def run(seed: int) -> tuple[int, ...]:
        rng = np.random.default_rng(seed)
        record = play_game([make_bot("greedy"), make_bot("belief")], rng)
        return tuple(e.source * 60 + e.target for e in record.events)

    assert run(3) == run(3)


def test_tracker_methods_agree_on_possibilities() -> None:
    rng = np.random.default_rng(9)
    state = State.new_game(rng)
    bots = [make_bot("greedy"), make_bot("greedy")]
    trackers = {m: EnemyTracker(0, m) for m in BeliefMethod}
    while not state.is_terminal() and state.ply < 80:
        player = state.current_player()
        state.apply_action(bots[player].act(state.observation(player), state.legal_actions(), rng))
    for tr in trackers.values():
        tr.update(state.observation(0))
    fitted = trackers[BeliefMethod.FITTED].probabilities
    rowwise = trackers[BeliefMethod.ROWWISE].probabilities
    uniform = trackers[BeliefMethod.UNIFORM].probabilities
    # the fitted support is within the row-only support (it adds column-count deductions)
    assert np.all((fitted > 1e-12) <= (rowwise > 0))
    np.testing.assert_allclose(uniform.sum(axis=0), [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 1])


def test_cli_play() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["play", "--seed", "3", "--bots", "belief,greedy", "--board"])
    assert result.exit_code == 0, result.output
    assert "result:" in result.output and "司令" in result.output
    assert "attacker wins" in result.output or "defender wins" in result.output
    public = runner.invoke(app, ["play", "--seed", "3", "--bots", "random,random", "--public"])
    assert public.exit_code == 0 and "collision:" in public.output
    assert "(commander)" not in public.output


def test_cli_bad_bot() -> None:
    result = CliRunner().invoke(app, ["play", "--bots", "belief,nobody"])
    assert result.exit_code == 2
    assert "unknown bot 'nobody'" in result.output


def test_referee_turn_order_and_announcements() -> None:
    from mindsport.errors import MindsportError
    from mindsport.junqi import Referee

    referee = Referee(State((Setup.from_rows(SOUTH), Setup.from_rows(NORTH))))
    with pytest.raises(MindsportError, match="out of turn"):
        referee.submit(1, 0)
    event = referee.submit(0, referee.state.string_to_action("a6-a7"))
    # the announcement carries the outcome only, never the kinds
    assert event.outcome is Outcome.DEFENDER_WINS
    fields = ("ply", "player", "piece", "source", "target", "defender", "outcome")
    assert all(not isinstance(getattr(event, f), PieceKind) for f in fields)
