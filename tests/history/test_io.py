"""Match files: round trips, error messages naming file/line/field, atomic writes, streaming."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from mindsport.errors import MindsportError
from mindsport.history import Match, MatchFileError, iter_matches, read_matches, write_matches
from mindsport.match import InvalidMatchError


def sample() -> list[Match]:
    t0 = datetime(2024, 5, 1, 12, 30)
    return [
        Match("g1", t0, [["ann"], ["bob"]], [0, 1]),
        Match("g2", t0 + timedelta(hours=1), [["ann", "cy"], ["bob", "dee"]], [0, 0]),
        Match("g3", t0 + timedelta(days=1), [["a"], ["b"], ["c"], ["d"]], [2, 0, None, None]),
        Match("g4", t0 + timedelta(days=2), [["x", "y"], ["z"]], None, scores=[3.5, 7.0]),
        Match(
            "g5", t0 + timedelta(days=3), [["x", "y"], ["z"]], [1, 0], weights=[[1.0, 0.25], [0.5]]
        ),
        Match('g 6,"q"', t0 + timedelta(days=4), [["p,1"], ['p"2']], [1, 0]),
    ]


def numeric() -> list[Match]:
    return [
        Match("a", 1, [["p"], ["q"]], [0, 1]),
        Match("b", 2, [["p"], ["r"], ["q"]], [1, 0, 2], scores=[2.0, 9.0, 1.0]),
        Match("c", 3, [["r"], ["q"]], [0, 1]),
    ]


@pytest.mark.parametrize("ext", ["jsonl", "csv", "parquet"])
@pytest.mark.parametrize("data", [sample, numeric])
def test_round_trip(tmp_path: Path, ext: str, data: object) -> None:
    ms = data()  # type: ignore[operator]
    path = tmp_path / f"m.{ext}"
    assert write_matches(path, ms) == len(ms)
    back = read_matches(path)
    assert back == ms
    assert list(iter_matches(path)) == ms


@pytest.mark.parametrize("ext", ["jsonl", "csv", "parquet"])
def test_round_trip_float_and_aware_times(tmp_path: Path, ext: str) -> None:
    tz = timezone(timedelta(hours=8))
    ms = [
        Match("a", datetime(2020, 1, 1, 8, tzinfo=tz), [["p"], ["q"]], [0, 1]),
        Match("b", datetime(2020, 1, 2, 8, tzinfo=tz), [["p"], ["q"]], [1, 0]),
    ]
    path = tmp_path / f"m.{ext}"
    write_matches(path, ms)
    assert read_matches(path) == ms
    fl = [Match("a", 0.5, [["p"], ["q"]], [0, 1]), Match("b", 1e9 + 0.25, [["p"], ["q"]], [1, 0])]
    write_matches(path, fl)
    assert read_matches(path) == fl


def test_csv_long_format_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text(
        "match_id,time,player,team,rank,score\n"
        "m1,2024-01-02T10:00:00,ann,red,,10\n"
        "m1,2024-01-02T10:00:00,bob,red,,10\n"
        "m1,2024-01-02T10:00:00,cy,blue,,12\n"
        "m2,17.5,ann,a,0,\n"
        "m2,17.5,cy,c,1,\n"
    )
    m1, m2 = read_matches(path)
    assert m1.teams == (("ann", "bob"), ("cy",)) and m1.ranks == (1, 0)
    assert m1.scores == (10.0, 12.0) and m1.time == datetime(2024, 1, 2, 10)
    assert m2.time == 17.5 and m2.ranks == (0, 1)


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ("match_id,time,player,team,rank\nm1,1,a,x,0\nm1,1,b,y,zz\n", 3, "rank"),
        ("match_id,time,player,team,rank\nm1,1,a,x,0\nm1,yesterday,b,y,1\n", 3, "time"),
        ("match_id,time,player,team,rank\nm1,1,a,x,0\nm1,1,,y,1\n", 3, "player"),
        (
            "match_id,time,player,team,rank\nm1,1,a,x,0\nm1,1,b,y,1\nm2,2,a,x,0\nm2,2,b,y,1\n"
            "m1,1,c,z,2\n",
            6,
            "match_id",
        ),
        ("match_id,time,player,team,rank,weight\nm1,1,a,x,0,1\nm1,1,b,y,1,1.5\n", 3, "weight"),
        ("match_id,time,player,team,rank\nm1,1,a,x,0\nm1,1,b,x,1\n", 3, "rank"),
        ("match_id,time,player,team\nm1,1,a,x\n", 1, "rank"),
        ("match_id,time,player,team,rank,color\n", 1, "color"),
        ("match_id,time,player,team,rank\nm1,1,a,x,0\n", 2, "teams"),
    ],
)
def test_csv_errors_name_file_line_field(tmp_path: Path, text: str, line: int, field: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(MatchFileError) as info:
        read_matches(path)
    err = info.value
    assert isinstance(err, MindsportError)
    assert str(path) in str(err) and f"line {line}" in str(err) and repr(field) in str(err)
    assert (err.line, err.field) == (line, field)


@pytest.mark.parametrize(
    ("line2", "field"),
    [
        ('{"id": "b", "time": 2, "teams": [["p"], ["q"]], "ranks": [0, "x"]}', "ranks"),
        ('{"id": "b", "time": "not a time", "teams": [["p"], ["q"]], "ranks": [0, 1]}', "time"),
        ('{"id": "b", "time": 2, "ranks": [0, 1]}', "teams"),
        ('{"id": "a", "time": 2, "teams": [["p"], ["q"]], "ranks": [0, 1]}', "id"),
        ('{"id": "b", "time": 2, "teams": [["p"], ["q"]], "ranks": [0, 1], "x": 1}', "x"),
        ('{"id": "b", "time": 2, "teams": [["p"], ["p"]], "ranks": [0, 1]}', "teams"),
        (
            '{"id": "b", "time": 2, "teams": [["p"], ["q"]], "weights": [[2], [1]], '
            '"ranks": [0, 1]}',
            "weights",
        ),
        ("{not json", None),
    ],
)
def test_jsonl_errors(tmp_path: Path, line2: str, field: str | None) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "time": 1, "teams": [["p"], ["q"]], "ranks": [0, 1]}\n' + line2)
    with pytest.raises(MatchFileError) as info:
        read_matches(path)
    assert str(path) in str(info.value) and "line 2" in str(info.value)
    assert info.value.field == field


def test_streaming_reader_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(
        '{"id": "a", "time": 1, "teams": [["p"], ["q"]], "ranks": [0, 1]}\n'
        '{"id": "b", "time": 2, "teams": [["p"], ["q"]], "ranks": [1, 0]}\n'
        "garbage\n"
    )
    it = iter_matches(path)
    assert next(it).id == "a" and next(it).id == "b"
    with pytest.raises(MatchFileError, match="line 3"):
        next(it)


@pytest.mark.parametrize("ext", ["jsonl", "csv", "parquet"])
def test_writes_are_atomic(tmp_path: Path, ext: str) -> None:
    path = tmp_path / f"m.{ext}"
    write_matches(path, numeric())
    before = path.read_bytes()

    def broken() -> Iterator[Match]:
        yield from sample()[:2]
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_matches(path, broken())
    with pytest.raises(MindsportError, match="Match"):
        write_matches(path, [*numeric(), "not a match"])  # type: ignore[list-item]
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]  # no temporary files left behind


def test_unknown_extension_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MindsportError, match="unknown match file type"):
        write_matches(tmp_path / "m.txt", numeric())
    with pytest.raises(MindsportError, match="no such match file"):
        read_matches(tmp_path / "none.csv")
    write_matches(tmp_path / "m.txt", numeric(), format="csv")
    assert read_matches(tmp_path / "m.txt", format="csv") == numeric()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"time": datetime(1700, 1, 1)},
            "time: 1700-01-01T00:00:00 is outside [1800-01-01T00:00:00Z, 2200-01-01T00:00:00Z)",
        ),
        ({"id": "a\x00b"}, "contains the control character U+0000 at position 1"),
        ({"id": "x\ud800"}, "contains the lone surrogate U+D800 at position 1"),
        ({"id": " \t"}, "contains the control character U+0009 at position 1"),
        ({"id": "  "}, "is whitespace only"),
        ({"teams": [["p"], ["q\x7f"]]}, "player id 'q\\x7f' contains the control character U+007F"),
    ],
)
def test_a_match_names_what_is_wrong(change: dict[str, object], message: str) -> None:
    fields: dict[str, object] = {"id": "m", "time": 0, "teams": [["p"], ["q"]], "ranks": [0, 1]}
    with pytest.raises(InvalidMatchError) as info:
        Match(**{**fields, **change})  # type: ignore[arg-type]
    assert message in str(info.value)
