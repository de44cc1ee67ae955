"""Score distributions from logs, GDI (the equal-strength paper), hand libraries on disk."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mindsport.errors import MindsportError
from mindsport.tournament.gdi import (
    EQUAL_STRENGTH_CENTRE,
    equal_strength,
    gdi_distance,
    grade_difficulty,
)
from mindsport.tournament.library import HandEntry, HandLibrary
from mindsport.tournament.records import read_hand_scores, score_distributions

H1 = "[TTKA379Q2D69K5Q94J64][3JX8Q885TTK3265AK][29Q435J426787JA7A]"
H2 = "[33344455566677788][99TTJJQQKKAA22XD3][456789TJQKA2456789]"


def test_score_distributions_counts_and_threshold() -> None:
    records = [(H1, 1)] * 30 + [(H1, -1)] * 15 + [(H1, 2)] * 5 + [(H2, 1)] * 49
    out = score_distributions(records, min_plays=50)
    assert list(out) == [H1]
    scores, probs = out[H1]
    assert scores.tolist() == [-1.0, 1.0, 2.0]
    assert probs.tolist() == pytest.approx([0.3, 0.6, 0.1])
    assert set(score_distributions(records, min_plays=49)) == {H1, H2}


def test_records_accept_mappings_and_hand_lists() -> None:
    records = [
        {"deal": H1, "landlord_score": 2},
        {"hands": H1[1:-1].split("]["), "score": -1},
    ]
    scores, probs = score_distributions(records, min_plays=2)[H1]
    assert scores.tolist() == [-1.0, 2.0] and probs.tolist() == [0.5, 0.5]


def test_read_hand_scores_formats(tmp_path: Path) -> None:
    log = tmp_path / "games.log"
    log.write_text(
        "# comment\n"
        + json.dumps({"deal": H1, "landlord_score": 2})
        + "\n"
        + json.dumps([H2, -1])
        + "\n"
        + f"{H1},1\n{H1}\t-2\n{H2} 1\n\n",
        encoding="utf-8",
    )
    assert read_hand_scores(log) == [(H1, 2.0), (H2, -1.0), (H1, 1.0), (H1, -2.0), (H2, 1.0)]


def test_read_hand_scores_names_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(json.dumps({"deal": H1, "landlord_score": 1}) + '\n{"deal": 3}\n')
    with pytest.raises(MindsportError, match=r"bad.jsonl, line 2"):
        read_hand_scores(log)
    log.write_text(f"{H1},abc\n")
    with pytest.raises(MindsportError, match=r"line 1: the landlord score must be a number"):
        read_hand_scores(log)
    with pytest.raises(MindsportError, match="cannot read"):
        read_hand_scores(tmp_path / "missing.jsonl")


def test_grade_difficulty_definition() -> None:
    # the equal-strength paper's example centre-like numbers: 5 tables -2, -1, 1, 2, 2
    levels = (-2, -1, 1, 2)
    scores = [-2, -1, 1, 2, 2]
    g = grade_difficulty(scores, levels)
    assert g.tolist() == pytest.approx([4 / 5, 3 / 5, 2 / 5])
    # unsorted levels give the same grades
    assert grade_difficulty(scores, (2, -2, 1, -1)).tolist() == g.tolist()
    with pytest.raises(MindsportError, match=r"scores \[3.0\] that are not among levels"):
        grade_difficulty([1, 3], levels)
    with pytest.raises(MindsportError, match="empty"):
        grade_difficulty([], levels)


def test_gdi_distance_and_seed_004_table_1() -> None:
    # the equal-strength paper: Center1 = (?, 0.95, 0.95) style comparisons; check the plain
    # Euclidean formula
    assert gdi_distance((0.96, 0.91, 0.79), (0.96, 0.91, 0.79)) == 0.0
    assert gdi_distance((0, 0, 0), (0.3, 0.4, 0)) == pytest.approx(0.5)
    gdis = {"near": (0.95, 0.90, 0.80), "far": (0.7, 0.677, 0.618), "edge": (0.96, 0.91, 0.95)}
    chosen = equal_strength(gdis, EQUAL_STRENGTH_CENTRE, 0.15)
    assert [h for h, _ in chosen] == ["near"]  # "edge" is at 0.16
    assert chosen[0][1] == pytest.approx(math.sqrt(3e-4))


def _library() -> HandLibrary:
    recs = [(H1, s) for s in (2, 1, 1, -1, -2, 1)] + [(H2, s) for s in (1, 1, 2, 2, -1)]
    return HandLibrary.from_records(recs, min_plays=5, levels=(-2, -1, 1, 2))


def test_library_from_records() -> None:
    lib = _library()
    assert lib.hands == [H1, H2]
    e = lib[H1]
    assert e.plays == 6 and e.scores == (-2.0, -1.0, 1.0, 2.0)
    assert e.probs == pytest.approx((1 / 6, 1 / 6, 3 / 6, 1 / 6))
    assert e.gdi == pytest.approx((5 / 6, 4 / 6, 1 / 6))
    assert lib[H2].gdi == pytest.approx((1.0, 0.8, 0.4))
    near = lib.equal_strength((1.0, 0.8, 0.4), 0.01)
    assert near.hands == [H2]
    with pytest.raises(MindsportError, match="not in the library"):
        lib["[3][4][5]"]


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_library_round_trip(tmp_path: Path, suffix: str) -> None:
    lib = _library()
    path = tmp_path / f"lib{suffix}"
    lib.save(path)
    back = HandLibrary.load(path)
    assert back == lib
    assert back.levels == (-2.0, -1.0, 1.0, 2.0)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary left behind


def test_library_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = _library()
    path = tmp_path / "lib.jsonl"
    lib.save(path)
    before = path.read_bytes()

    def boom(self: HandEntry) -> dict:
        raise RuntimeError("disk full")

    monkeypatch.setattr(HandEntry, "to_json", boom)
    with pytest.raises(RuntimeError):
        lib.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["lib.jsonl"]


def test_library_load_errors(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(
        '{"format": "mindsport.hand_library", "version": 1, "levels": null}\n'
        '{"hand": "[3][4][5]", "plays": 2, "scores": [1], "probs": [0.5]}\n'
    )
    with pytest.raises(MindsportError, match=r"x.jsonl, line 2: probs sum to 0.5"):
        HandLibrary.load(path)
    path.write_text("hello\n")
    with pytest.raises(MindsportError, match=r"line 1: not a mindsport\.hand_library header"):
        HandLibrary.load(path)


def test_entry_validation() -> None:
    with pytest.raises(MindsportError, match="gdi of h must lie in"):
        HandEntry("h", (1.0,), (1.0,), 3, gdi=(1.5,))
    with pytest.raises(MindsportError, match="appears twice"):
        HandLibrary((HandEntry("h", (1.0,), (1.0,), 3), HandEntry("h", (1.0,), (1.0,), 3)))
    e = HandEntry("h", (2.0, 1.0, 1.0), (0.5, 0.25, 0.25), 4)
    assert e.scores == (1.0, 2.0) and e.probs == (0.5, 0.5)
    assert np.allclose(e.distribution[1], [0.5, 0.5])
