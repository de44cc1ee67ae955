"""Roles, deal ids and luck in the match value type and in every file format."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindsport.history import Match, MatchFileError, read_matches, write_matches
from mindsport.match import InvalidMatchError
from mindsport.service.schemas import MatchIn

ROLES = [["landlord"], ["farmer1", "farmer2"]]


def _matches() -> list[Match]:
    return [
        Match(
            "g1", 1, [["ann"], ["bob", "cy"]], scores=[2, -2], roles=ROLES, deal="d1", luck=[0.5, 0]
        ),
        Match("g2", 2, [["bob"], ["cy", "ann"]], [1, 0], roles=ROLES, deal="d1"),
        Match("g3", 3, [["cy"], ["ann"]], [0, 1], luck=[-0.25, 0.25]),
        Match("g4", 4, [["ann"], ["bob"]], [0, 1]),
    ]


@pytest.mark.parametrize("ext", ["jsonl", "csv", "parquet"])
def test_roles_deals_and_luck_round_trip(tmp_path: Path, ext: str) -> None:
    if ext == "parquet":
        pytest.importorskip("pyarrow")
    path = tmp_path / f"m.{ext}"
    ms = _matches()
    write_matches(path, ms)
    back = read_matches(path)
    assert back == ms
    assert back[0].roles == (("landlord",), ("farmer1", "farmer2"))
    assert back[1].luck is None and back[2].deal is None and back[3].roles is None


def test_csv_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text(
        "match_id,time,player,team,rank,role,deal,luck\n"
        "g1,1,ann,L,0,landlord,d9,0.3\n"
        "g1,1,bob,F,1,farmer1,d9,-0.3\n"
        "g1,1,cy,F,1,farmer2,d9,-0.3\n"
    )
    (m,) = read_matches(path)
    assert m.roles == (("landlord",), ("farmer1", "farmer2"))
    assert (m.deal, m.luck) == ("d9", (0.3, -0.3))


@pytest.mark.parametrize(
    ("rows", "field"),
    [
        ("g1,1,ann,L,0,landlord,d9,\ng1,1,bob,F,1,,d9,\n", "role"),
        ("g1,1,ann,L,0,,d9,\ng1,1,bob,F,1,,d8,\n", "deal"),
        ("g1,1,ann,L,0,,,0.1\ng1,1,bob,F,1,,,\n", "luck"),
        ("g1,1,ann,F,0,,,0.1\ng1,1,bob,F,0,,,0.2\ng1,1,cy,L,1,,,0\n", "luck"),
        ("g1,1,ann,L,0,x,,\ng1,1,bob,F,1,x,,\n", "roles"),
    ],
)
def test_csv_errors_name_the_field(tmp_path: Path, rows: str, field: str) -> None:
    path = tmp_path / "m.csv"
    path.write_text("match_id,time,player,team,rank,role,deal,luck\n" + rows)
    with pytest.raises(MatchFileError) as info:
        read_matches(path)
    assert info.value.field == field


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"roles": [["landlord"]]}, "roles", "one list of roles per team"),
        ({"roles": [["a", "b"], ["c"]]}, "roles", "one role per player"),
        ({"roles": [["a"], ["a"]]}, "roles", "appears twice"),
        ({"roles": [["a\n"], ["b"]]}, "roles", "control character"),
        ({"roles": [["x" * 65], ["b"]]}, "roles", "longer than 64"),
        ({"deal": " "}, "deal", "whitespace only"),
        ({"deal": 7}, "deal", "not a string"),
        ({"luck": [1.0]}, "luck", "one number per team"),
        ({"luck": [1.0, float("nan")]}, "luck", "not a finite number"),
        ({"luck": [True, 0]}, "luck", "not a finite number"),
    ],
)
def test_bad_roles_deals_and_luck_are_refused(kwargs: dict, field: str, words: str) -> None:
    with pytest.raises(InvalidMatchError, match=words) as info:
        Match("g", 0, [["ann"], ["bob"]], [0, 1], **kwargs)
    assert info.value.field == field


def test_match_in_schema_carries_roles_deal_and_luck() -> None:
    body = {
        "id": "g1",
        "time": 1,
        "teams": [["ann"], ["bob", "cy"]],
        "scores": [2.0, -2.0],
        "roles": ROLES,
        "deal": "d1",
        "luck": [0.5, 0.0],
    }
    m = MatchIn.model_validate(body).to_match()
    assert m == _matches()[0]
    with pytest.raises(ValueError, match="roles"):
        MatchIn.model_validate({**body, "roles": [["landlord"], ["bad\u0007", "x"]]})
