"""Engine-backed simulation (small smoke runs; the statistics are checked in the pure tests)."""

from __future__ import annotations

import numpy as np
import pytest

from mindsport.doudizhu import Deal
from mindsport.doudizhu.bots import LevelBot
from mindsport.errors import MindsportError
from mindsport.tournament.doudizhu.simulation import (
    compare_formats,
    deal_hand,
    discriminating_lineups,
    landlord_oracle,
    lineup_oracle,
    play_records,
    top_distinct,
    validate_test_cases,
)
from mindsport.tournament.library import HandLibrary


def test_deal_hand_is_a_valid_reproducible_deal() -> None:
    a = deal_hand(np.random.default_rng(3))
    assert isinstance(a, Deal) and a == deal_hand(np.random.default_rng(3))


def test_records_library_and_validation_smoke() -> None:
    rng = np.random.default_rng(11)
    lineups = [(LevelBot(lv), LevelBot(50), LevelBot(50)) for lv in (0, 100)]
    oracle = lineup_oracle()
    hands = [deal_hand(rng) for _ in range(3)]
    records = play_records(hands, lineups, oracle, rng)
    assert len(records) == 6 and {h for h, _ in records} == {str(h) for h in hands}
    library = HandLibrary.from_records(records, min_plays=2)
    assert len(library) == 3
    result = validate_test_cases(
        lineups, library, rounds=2, top=2, events=2, rng=rng, oracle=oracle
    )
    assert 0 <= result.p_random <= 1 and 0 <= result.p_selected <= 1
    assert len(result.hands) == 2 and set(result.hands) <= {str(h) for h in hands}


def test_algorithm_1_and_format_comparison_smoke() -> None:
    rng = np.random.default_rng(5)
    picks = discriminating_lineups(
        [LevelBot(0), LevelBot(100)], [LevelBot(50)], [LevelBot(50)], hands=2, w=2, rng=rng
    )
    assert 1 <= len(picks) <= 2
    landlords = [LevelBot(0), LevelBot(100)]
    oracle = landlord_oracle([LevelBot(50), LevelBot(50)])
    hands = [deal_hand(rng) for _ in range(3)]
    records = play_records(hands, landlords, oracle, rng)
    library = HandLibrary.from_records(
        records, min_plays=2, levels=sorted({-1.0, 1.0} | {s for _, s in records})
    )
    centre = np.median(np.array(list(library.gdis().values())), axis=0)
    comparison = compare_formats(
        landlords, library, centre, 2.0, rounds=1, events=2, rng=rng, oracle=oracle
    )
    for table in (comparison.duplicate, comparison.equal_strength, comparison.random):
        assert table.shape == (2, 2)
    with pytest.raises(MindsportError, match="entrants need 2"):
        compare_formats(landlords, library, centre + 10, 0.5, 1, 1, rng, oracle)


def test_top_distinct() -> None:
    assert top_distinct([1, 2, 3], 3) and not top_distinct([1, 3, 3], 2)
    assert top_distinct([1, 3, 3], 1)


def test_reads_the_engines_log_files(tmp_path) -> None:
    from mindsport.doudizhu import LINEAR, deal, play, write_logs, write_score_table
    from mindsport.doudizhu.bots import GreedyBot
    from mindsport.tournament.records import read_hand_scores

    rng = np.random.default_rng(2)
    games = [play(deal(rng), [GreedyBot()] * 3, LINEAR, rng) for _ in range(3)]
    expected = [(str(g.deal), float(g.landlord_score)) for g in games]
    write_logs(tmp_path / "games.jsonl", games)
    write_score_table(tmp_path / "games.tsv", games)
    assert read_hand_scores(tmp_path / "games.jsonl") == expected
    assert read_hand_scores(tmp_path / "games.tsv") == expected


def test_cli_validate_and_compare_smoke(tmp_path) -> None:
    from typer.testing import CliRunner

    from mindsport.cli.tournament import app

    runner = CliRunner()
    args = ["validate", "--landlords", "0,100", "--farmers", "50", "--entrants", "4"]
    args += ["--library-hands", "3", "--rounds", "2", "--top", "1", "--events", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "P1 (random hands)   = 1.000" in result.output  # one top place is always distinct
    args = ["compare", "--landlords", "0,100", "--tables", "0,100", "--library-hands", "4"]
    args += ["--epsilon", "3", "--rounds", "1", "--events", "2", "--plot", str(tmp_path / "h")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "h_duplicate.png").exists()
    bad = runner.invoke(app, ["validate", "--landlords", "0,101"])
    assert bad.exit_code == 2 and "between 0 and 100" in bad.output
