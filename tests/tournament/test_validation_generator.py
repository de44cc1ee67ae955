"""Validation grids (plumbing checked with scripted games whose outcome theory fixes), the GDI
model and deal generator, Swiss results files and engine-played Swiss events."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mindsport.doudizhu import Deal
from mindsport.errors import MindsportError
from mindsport.tournament.doudizhu import games as games_module
from mindsport.tournament.doudizhu import validation
from mindsport.tournament.doudizhu.games import Game, bomb_count
from mindsport.tournament.doudizhu.generator import (
    FEATURE_NAMES,
    GdiModel,
    cross_validated_r2,
    deal_features,
    propose_deals,
    split_half_ceiling,
)
from mindsport.tournament.doudizhu.swiss_play import play_swiss, play_table
from mindsport.tournament.doudizhu.validation import (
    DihGridSettings,
    FormatsSettings,
    algorithm1_buckets,
    consensus_order,
    draw_entrants,
    order_agreement,
    run_dih_grid,
    run_format_comparison,
    top_distinct_share,
)
from mindsport.tournament.executors import SerialExecutor
from mindsport.tournament.swiss import read_results

# ---------------------------------------------------------------------------------------------
# the DIH paper grid


def test_algorithm1_buckets_follow_the_half_open_intervals() -> None:
    # rates 0, .25, .5, .75, 1 with w = 4: (0, .25] holds 0 and .25, then one each
    assert algorithm1_buckets([10, 20, 30, 40, 50], 4) == [[0, 1], [2], [3], [4]]
    rng = np.random.default_rng(0)
    buckets = [[0, 1], [], [2], [3, 4, 5]]
    for _ in range(50):
        picks = draw_entrants(buckets, 5, rng).tolist()
        assert len(set(picks)) == 5
        assert picks[0] in (0, 1) and picks[1] == 2 and picks[2] in (3, 4, 5)
    with pytest.raises(MindsportError, match="cannot field"):
        draw_entrants(buckets, 7, rng)


def test_top_distinct_share_matches_brute_force() -> None:
    rng = np.random.default_rng(1)
    totals = rng.integers(0, 4, size=(300, 6))
    for top in (1, 2, 3):
        brute = np.mean([len(set(sorted(row, reverse=True)[:top])) == top for row in totals])
        assert top_distinct_share(totals, top) == pytest.approx(brute)


def _scripted(score: dict[str, float]):  # type: ignore[no-untyped-def]
    """play_games stand-in: the landlord score depends only on the landlord bot."""

    def fake(games: Sequence[Game], seed: int, executor=None, **_: object) -> np.ndarray:
        return np.array([score[g.bots[0]] for g in games], dtype=np.float64)

    return fake


def test_grid_with_scripted_games_gives_the_theoretical_shares(monkeypatch) -> None:
    # every line-up scores a distinct constant -> rank points distinct -> P1 = P2 = 1
    lords = ["level:0", "level:30", "level:60", "level:90", "strong"]
    monkeypatch.setattr(
        validation, "play_games", _scripted({s: float(i) for i, s in enumerate(lords)})
    )
    result = run_dih_grid(
        DihGridSettings(
            players=(3, 5),
            rounds=(1, 2),
            landlords=lords,
            farmers1=["level:0"],
            farmers2=["level:0"],
            library_hands=4,
            probe_hands=2,
            replays=2,
            events=20,
            seed=3,
        )
    )
    assert len(result.cells) == 4 and result.lineups == 5
    assert all(c.p_random == 1.0 and c.p_selected == 1.0 and c.gain == 0 for c in result.cells)
    assert result.cell(5, 2).paper_gain is None and len(result.cell(5, 2).hands) == 2
    # every line-up scores the same -> everybody ties every round -> top 2 never distinct,
    # while a single top place is always "distinct"
    monkeypatch.setattr(validation, "play_games", _scripted(dict.fromkeys(lords, 1.0)))
    for top, share in ((2, 0.0), (1, 1.0)):
        tied = run_dih_grid(
            DihGridSettings(
                players=(3,),
                rounds=(1, 2),
                landlords=lords,
                farmers1=["level:0"],
                farmers2=["level:0"],
                library_hands=3,
                probe_hands=2,
                replays=1,
                events=5,
                seed=3,
                top=top,
            )
        )
        assert all(c.p_random == share and c.p_selected == share for c in tied.cells)
    with pytest.raises(MindsportError, match="cannot field"):
        run_dih_grid(
            DihGridSettings(
                players=(9,),
                rounds=(1,),
                landlords=lords,
                farmers1=["level:0"],
                farmers2=["level:0"],
                library_hands=3,
                probe_hands=2,
                replays=1,
                events=5,
                seed=3,
            )
        )


def test_paper_gains_are_the_seed_001_numbers() -> None:
    assert validation.PAPER_001_GAINS == {
        (10, 5): 0.2524,
        (20, 5): 0.49,
        (30, 5): 0.7679,
        (30, 2): 3.4675,
    }


# ---------------------------------------------------------------------------------------------
# the equal-strength paper formats


def test_consensus_order_and_agreement() -> None:
    reference = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6]]
    assert consensus_order(reference) == [0, 1, 2]
    swapped = [[0.2, 0.5, 0.3], [0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]
    places = np.array([[1, 2, 3], [2, 1, 3], [1, 1, 3]])
    agree = order_agreement(swapped, reference, places)
    assert not agree.same_order and not agree.same_winner
    # pairs (0,1), (0,2), (1,2): event 1 -> 3/3, event 2 -> 2/3, event 3 -> 2.5/3
    assert agree.event_concordance == pytest.approx((1 + 2 / 3 + 2.5 / 3) / 3)
    assert agree.exact_events == pytest.approx(1 / 3)


def test_formats_with_scripted_games_rank_by_skill(monkeypatch) -> None:
    # landlord score = fixed by bot: every format ranks the entrants by that score
    entrants = ["level:0", "level:50", "strong"]
    graders = ["level:10", "level:90"]
    score = {"level:0": -1.0, "level:50": 1.0, "strong": 2.0, "level:10": 1.0, "level:90": 2.0}
    monkeypatch.setattr(games_module, "play_games", _scripted(score))
    result = run_format_comparison(
        FormatsSettings(
            graders=graders,
            entrants=entrants,
            farmers=("level:0", "level:0"),
            library_hands=6,
            epsilons=(0.5,),
            rounds=(2,),
            events=10,
            replays=1,
            seed=1,
            centre=(1.0, 1.0, 0.5),
        )
    )
    # GDI of every hand: scores (1, 2) -> (1, 1, 0.5) = the centre, so all hands qualify
    assert np.allclose(result.gdis, [1.0, 1.0, 0.5]) and result.pool_sizes == {0.5: 6}
    expected = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], dtype=float)
    for key, table in result.tables.items():
        assert np.array_equal(table, expected), key
        assert result.agreement[key].same_order and result.agreement[key].exact_events == 1
    with pytest.raises(MindsportError, match=r"within 0\.01"):
        run_format_comparison(
            FormatsSettings(
                graders=graders,
                entrants=entrants,
                farmers=("level:0", "level:0"),
                library_hands=4,
                epsilons=(0.01,),
                rounds=(2,),
                centre=(0.0, 0.0, 0.0),
            )
        )


# ---------------------------------------------------------------------------------------------
# generator

DEAL = Deal.parse("[333344455566677788XD][4567889999TTTJJJQ][TJQQQKKKKAAAA2222]")


def test_features_count_the_cards() -> None:
    x = dict(zip(FEATURE_NAMES, deal_features(DEAL).tolist(), strict=True))
    assert (x["L_bombs"], x["L_rocket"], x["L_jokers"], x["L_twos"]) == (1, 1, 2, 0)
    assert (x["F1_bombs"], x["F2_bombs"], x["F2_twos"], x["F2_aces"]) == (1, 3, 4, 4)
    assert x["F2_control"] == 8 and x["L_straight"] == 6  # 3..8
    assert x["bomb_with_landlord"] == 1 and x["control_gap"] == 2 - 8


def test_ridge_recovers_a_linear_law_and_r2_is_exact() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(200, 4))
    w = np.array([[0.1, -0.05, 0.0, 0.02], [0.0, 0.03, 0.04, 0.0]])
    y = 0.5 + x @ w.T
    model = GdiModel.fit(x, y, alpha=0.0)
    assert np.allclose(model.predict(x), np.clip(y, 0, 1))
    assert model.r2(x, y)[-1] == pytest.approx(1.0)
    noisy = y + rng.normal(scale=0.05, size=y.shape)
    r2 = model.r2(x, noisy)
    res = ((noisy - model.predict(x)) ** 2).sum(axis=0)
    tot = ((noisy - noisy.mean(axis=0)) ** 2).sum(axis=0)
    assert r2[:2] == pytest.approx(tuple(1 - res / tot))
    # a penalty shrinks the coefficients towards 0
    assert np.abs(GdiModel.fit(x, y, alpha=1e4).coef).sum() < np.abs(model.coef).sum()
    with pytest.raises(MindsportError, match="alpha"):
        GdiModel.fit(x, y, alpha=-1)


def test_cross_validated_r2_of_a_noisy_linear_law_is_its_signal_share() -> None:
    rng = np.random.default_rng(6)
    x = rng.normal(size=(3000, 2))
    y = 0.5 + 0.1 * x[:, :1] + rng.normal(scale=0.1, size=(3000, 1))  # signal var = noise var
    r2 = cross_validated_r2(x, y, np.random.default_rng(0), folds=5, alpha=0.0)
    assert r2[0] == pytest.approx(0.5, abs=0.03) and r2[-1] == r2[0]
    with pytest.raises(MindsportError, match="folds"):
        cross_validated_r2(x[:4], y[:4], np.random.default_rng(0), folds=5)


def test_split_half_ceiling_is_spearman_brown() -> None:
    rng = np.random.default_rng(2)
    truth = rng.random((4000, 1))
    a = truth + rng.normal(scale=0.3, size=truth.shape)
    b = truth + rng.normal(scale=0.3, size=truth.shape)
    r = 1 / 12 / (1 / 12 + 0.09)  # var(truth) / var(half)
    assert split_half_ceiling(a, b)[0] == pytest.approx(2 * r / (1 + r), abs=0.03)


def test_proposals_are_one_bomb_deals_near_the_prediction(tmp_path: Path) -> None:
    n = len(FEATURE_NAMES)
    # a model that predicts the target for every deal accepts every one-bomb deal
    flat = GdiModel((0.0,) * n, (1.0,) * n, ((0.0,) * n,) * 3, (0.9, 0.8, 0.7), 1.0)
    proposal = propose_deals(flat, (0.9, 0.8, 0.7), 0.01, 5, np.random.default_rng(1))
    assert len(proposal.deals) == 5 and proposal.tried >= 5
    assert all(isinstance(d, Deal) and bomb_count(d) == 1 for d in proposal.deals)
    assert np.allclose(proposal.predicted, [0.9, 0.8, 0.7])
    # ... and one that predicts elsewhere accepts nothing
    none = propose_deals(flat, (0.1, 0.1, 0.1), 0.2, 3, np.random.default_rng(1), max_tries=50)
    assert none.deals == () and none.tried == 50 and none.acceptance == 0
    flat.save(tmp_path / "m.json")
    assert GdiModel.load(tmp_path / "m.json") == flat
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(MindsportError, match=r"not a mindsport\.gdi_model"):
        GdiModel.load(tmp_path / "bad.json")


# ---------------------------------------------------------------------------------------------
# Swiss


def test_read_results_csv_and_jsonl(tmp_path: Path) -> None:
    csv_file = tmp_path / "r.csv"
    csv_file.write_text(
        "round,table,player,points\n1,1,ann,4\n1,1,bob,2\n1,1,cat,0\n"
        "1,bye,dan,2\n2,1,dan,4\n2,1,ann,0\n2,1,cat,2\n2,,bob,2\n"
    )
    history = read_results(csv_file)
    assert history.points == {"ann": 4, "bob": 4, "cat": 2, "dan": 6}
    assert history.met["ann"] == {"bob", "cat", "dan"} and history.met["bob"] == {"ann", "cat"}
    assert history.byes == {"ann": 0, "bob": 1, "cat": 0, "dan": 1} and history.rounds == 2
    assert history.standings() == ["dan", "ann", "bob", "cat"]
    jsonl = tmp_path / "r.jsonl"
    rows = [
        {"round": 1, "table": 1, "player": p, "points": s}
        for p, s in zip("xyz", (1, 0, 2), strict=True)
    ]
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert read_results(jsonl).standings() == ["z", "x", "y"]
    (tmp_path / "bad.csv").write_text("round,player,points\n1,ann,lots\n")
    with pytest.raises(MindsportError, match=r"bad\.csv, line 2"):
        read_results(tmp_path / "bad.csv")


def test_engine_swiss_tables_are_zero_sum_and_never_repeat() -> None:
    # LINEAR scoring is zero-sum per game, so a table's three rotation totals sum to 0
    points = play_table((1, 0, 0, ("level:0", "greedy", "level:0")))
    assert sum(points) == pytest.approx(0.0)
    event = play_swiss(["level:0", "greedy"] * 4 + ["level:0"], rounds=3, seed=2)
    assert sum(event.points) == pytest.approx(0.0)
    pairs = set()
    for this in event.rounds:
        assert len(this.tables) == 3 and this.repeats == 0
        for table in this.tables:
            for pair in itertools.combinations(sorted(table), 2):
                assert pair not in pairs
                pairs.add(pair)
    again = play_swiss(["level:0", "greedy"] * 4 + ["level:0"], 3, 2, SerialExecutor())
    assert again == event
