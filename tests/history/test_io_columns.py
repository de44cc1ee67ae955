"""The column path of the match files against the row path (the readers as they were before the
column path: each row parsed and checked in turn), on written files and on files edited at
random: the same matches, the same lines, or the same error naming file, line and field."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindsport.errors import MindsportError
from mindsport.history import Match, read_matches, write_matches
from mindsport.history.formats.csv import read_csv
from mindsport.history.formats.jsonl import read_jsonl
from mindsport.history.formats.parquet import read_parquet
from mindsport.history.io import iter_located, read_located
from mindsport.match import id_problem, normal_id

ids = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=6
).filter(lambda s: s.strip() == s and id_problem(s) is None and normal_id(s) == s)
ascii_ids = st.text(alphabet="abcxyz019_-", min_size=1, max_size=5)


@st.composite
def match_lists(draw: st.DrawFn) -> list[Match]:
    n = draw(st.integers(1, 6))
    names = draw(st.lists(st.one_of(ascii_ids, ids), min_size=8, max_size=8, unique=True))
    mids = draw(st.lists(st.one_of(ascii_ids, ids), min_size=n, max_size=n, unique=True))
    same_shape = draw(st.booleans())
    out = []
    for k in range(n):
        n_teams = 2 if same_shape else draw(st.integers(2, 3))
        sizes = [1 if same_shape else draw(st.integers(1, 2)) for _ in range(n_teams)]
        pool = iter(draw(st.permutations(names)))
        teams = [[next(pool) for _ in range(s)] for s in sizes]
        ranks: list[int | None] | None = draw(
            st.lists(
                st.one_of(st.none(), st.integers(0, 3)), min_size=n_teams, max_size=n_teams
            ).filter(lambda r: any(x is not None for x in r))
        )
        weights = None
        if draw(st.booleans()):
            weights = [[draw(st.sampled_from([0.0, 0.25, 1.0, 1])) for _ in t] for t in teams]
        scores = None
        if draw(st.booleans()):
            scores = [draw(st.sampled_from([0, 1.5, 2, -3.0, 1e6])) for _ in teams]
            ranks = None
        time = draw(
            st.one_of(
                st.integers(-(10**9), 10**9),
                st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
                st.builds(
                    lambda s: datetime(2020, 1, 1) + timedelta(seconds=s), st.integers(0, 10**8)
                ),
                st.builds(
                    lambda s: datetime(2020, 1, 1, tzinfo=UTC) + timedelta(seconds=s),
                    st.integers(0, 10**6),
                ),
            )
        )
        out.append(Match(mids[k], time, teams, ranks, weights, scores))
    return out


def outcome(read: Any) -> tuple[str, Any]:
    try:
        return "ok", read()
    except MindsportError as exc:
        return "error", str(exc)
    except (UnicodeDecodeError, ValueError) as exc:  # what the row path lets through
        return "error", type(exc).__name__


def row_path(path: Path) -> tuple[str, Any]:
    def read() -> tuple[list[int], list[Match]]:
        pairs = list(iter_located(path))
        return [line for line, _ in pairs], [m for _, m in pairs]

    return outcome(read)


def assert_same(path: Path) -> None:
    expected = row_path(path)
    got = outcome(lambda: read_located(path))
    assert got == expected
    if got[0] == "ok":  # one string object per player, as the row path makes them
        players = [p for m in got[1][1] for t in m.teams for p in t]
        assert len({id(p) for p in players}) == len(set(players))


#: text edits that the row path reads otherwise than the writers write, or refuses
EDITS = [
    "", " ", "  x", "1.0", "-1", "1e3", "nan", "inf", "2024-02-30", "2024-01-01T00:00:00+02:00",
    "+5", "1_0", "\u00e9", "e\u0301", "\u200b", "x\u202e", "\t", "true", "null", '"q"', ",",
    "2", "0", "99999999999", "-0", "0.5", "1.5", "2e9", "24:00",
]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match_lists(), st.data())
def test_column_path_matches_row_path_on_edited_csv(ms: list[Match], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.csv"
        write_matches(path, ms)
        assert_same(path)
        if '"' not in path.read_text(encoding="utf-8"):  # quoted fields: the row path
            assert read_csv(str(path)) is not None  # the writer's files: column path
        rows = [line.split(",") for line in path.read_text(encoding="utf-8").splitlines()]
        for _ in range(data.draw(st.integers(1, 3))):
            r = data.draw(st.integers(0, len(rows) - 1))
            c = data.draw(st.integers(0, len(rows[r]) - 1))
            rows[r][c] = data.draw(st.sampled_from([*EDITS, rows[r][c] + " ", rows[0][0]]))
        if data.draw(st.booleans()):
            rows.insert(data.draw(st.integers(1, len(rows))), data.draw(st.sampled_from(
                [[""], rows[-1], [" "] * len(rows[0])]
            )))  # fmt: skip
        path.write_text("\n".join(",".join(r) for r in rows) + "\n", encoding="utf-8")
        assert_same(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match_lists(), st.data())
def test_column_path_matches_row_path_on_edited_jsonl(ms: list[Match], data: st.DataObject) -> None:
    import json

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.jsonl"
        write_matches(path, ms)
        assert_same(path)
        if len({isinstance(m.time, datetime) for m in ms}) == 1:  # times of one JSON type
            assert read_jsonl(str(path)) is not None  # the writer's files: column path
        objs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for _ in range(data.draw(st.integers(1, 3))):
            o = data.draw(st.sampled_from(objs))
            key = data.draw(st.sampled_from(["id", "time", "teams", "ranks", "scores", "x"]))
            o[key] = data.draw(st.sampled_from([
                None, 1, 1.5, True, "", " a", "a", "2024-01-01", "1e3", "nan", [], [["a"]],
                [["a"], ["a"]], [["a"], [1]], [0, 0], [None, None], [-1, 0], [0.0, 1],
                ["a", "b"], float("nan"), 10**30, [1e10, 0], [[1.0], [2.0]],
            ]))  # fmt: skip
        lines = [json.dumps(o) for o in objs]
        if data.draw(st.booleans()):
            lines.insert(data.draw(st.integers(0, len(lines))), data.draw(st.sampled_from(
                ["", "  ", "[]", "{", "1", lines[0]]
            )))  # fmt: skip
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert_same(path)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match_lists(), st.data())
def test_column_path_matches_row_path_on_edited_parquet(
    ms: list[Match], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.parquet"
        write_matches(path, ms)
        assert_same(path)
        assert read_parquet(str(path)) is not None
        table = pq.read_table(path)
        name = data.draw(st.sampled_from(["match_id", "time", "player", "team", "rank", "score"]))
        values = table.column(name).to_pylist()
        i = data.draw(st.integers(0, len(values) - 1))
        kind = data.draw(st.sampled_from(["value", "type"]))
        if kind == "value":
            values[i] = data.draw(st.sampled_from([None, values[0], values[-1]]))
            column = pa.array(values, table.schema.field(name).type)
        else:
            as_text = [None if v is None else str(v) for v in values]
            column = pa.array(as_text, pa.string())
        table = table.set_column(table.schema.get_field_index(name), name, column)
        pq.write_table(table, path)
        assert_same(path)


def test_typed_parquet_columns_take_the_column_path(tmp_path: Path) -> None:
    """Integer ids and labels, integer ranks, float and timestamp times, as other programs
    write them: read as the row path reads them, on the column path."""
    path = tmp_path / "typed.parquet"
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    table = pa.table(
        {
            "match_id": pa.array([7, 7, 8, 8], pa.int32()),
            "time": pa.array([t0, t0, t0 + timedelta(days=1), t0 + timedelta(days=1)]),
            "player": pa.array([1, 2, 2, 3], pa.int64()),
            "team": pa.array([0, 1, 0, 1], pa.int8()),
            "rank": pa.array([0, 1, None, 0], pa.int16()),
        }
    )
    pq.write_table(table, path)
    got = read_parquet(str(path))
    assert got is not None
    assert got == row_path(path)[1]
    assert got[1][1] == Match("8", t0 + timedelta(days=1), [["2"], ["3"]], [None, 0])


def test_a_bad_row_is_named_as_before(tmp_path: Path) -> None:
    """The column checks refuse, the row path names the line (the header is line 1)."""
    path = tmp_path / "m.csv"
    path.write_text(
        "match_id,time,player,team,rank\ng1,5,ann,a,0\ng1,5,bob,b,1\ng2,6,ann,a,0\ng2,6,ann,b,1\n",
        encoding="utf-8",
    )
    with pytest.raises(MindsportError, match=r"m\.csv, line 5, field 'player': player 'ann'"):
        read_matches(path)


#: JSON Lines texts that pyarrow's JSON reader reads otherwise than the row path unless the
#: column path looks again: whole numbers written with and without a fraction, texts pyarrow
#: takes for timestamps (with an offset it would drop), several objects on one line or one
#: over two, blank lines, carriage returns, NaN
JSONL_TEXTS = [
    '{"id":"a","time":1,"teams":[["p"],["q"]],"ranks":[0,1]}\n'
    '{"id":"b","time":2.5,"teams":[["p"],["q"]],"ranks":[1,0]}\n'
    '{"id":"c","time":3.0,"teams":[["p"],["q"]],"ranks":[1,0]}\n'
    '{"id":"d","time":4e0,"teams":[["p"],["q"]],"ranks":[1,0]}\n',
    '{"id":"a","time":"2024-01-01T00:00:00+02:00","teams":[["p"],["q"]],"ranks":[0,1]}\n'
    '{"id":"b","time":"2024-01-01 10:00:00","teams":[["p"],["q"]],"ranks":[0,1]}\n',
    '{"id":"a","time":"2024-01-01","teams":[["p"],["q"]],"ranks":[0,1]}\n',
    '{"id":"a","time":1,"teams":[["p"],["q"]],"ranks":[0,1]} '
    '{"id":"b","time":2,"teams":[["p"],["q"]],"ranks":[0,1]}\n\n',
    '{"id":"a","time":1,\n"teams":[["p"],["q"]],"ranks":[0,1]}\n',
    '\n{"id":"a","time":1,"teams":[["p"],["q"]],"ranks":[0,1]}\r\n\r\n'
    '{"id":"b","time":2,"teams":[["p"],["q"]],"ranks":[null,0]}',
    '{"id":"a","time":1,"teams":[["p"],["q"]],"ranks":[0,1]}\r'
    '{"id":"b","time":2,"teams":[["p"],["q"]],"ranks":[0,1]}\n',
    '{"id":"a","time":1,"teams":[["p"],["q"]],"scores":[NaN,1]}\n',
    '{"id":1,"time":1,"teams":[["p"],["q"]],"ranks":[0,1]}\n'
    '{"id":-2,"time":1,"teams":[["p"],["q"]],"ranks":[0,1]}\n',
    '{"id":"a","time":1,"teams":[["p"],["q"]],"ranks":[0,1],"weights":[[0.5],[1]]}\n',
    '{"id":"a","time":1,"teams":[["p"],["q"]],"ranks":[0,1],"weights":[[0.5],null]}\n',
    '{"id":"a","id":"b","time":1,"teams":[["p"],["q"]],"ranks":[0,1]}\n',
    # a list of nulls where a text belongs: pyarrow's own error (an index error), not a refusal
    '{"id": [null, null], "time": 0, "teams": [["0"], ["1"]], "ranks": [null, 0]}\n',
]


@pytest.mark.parametrize("text", JSONL_TEXTS)
def test_column_path_matches_row_path_on_jsonl_texts(text: str, tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(text.encode())
    assert_same(path)
    column = read_jsonl(str(path))
    if column is not None:  # the times as the row path reads them, down to int or float

        def kinds(ms: list[Match]) -> list[tuple[type, object]]:
            return [(type(m.time), getattr(m.time, "tzinfo", None)) for m in ms]

        assert kinds(column[1]) == kinds(row_path(path)[1][1])


def test_the_column_path_takes_whole_number_times_and_times_pyarrow_reads_as_timestamps(
    tmp_path: Path,
) -> None:
    for i in (0, 1, 2, 5, 8, 9):
        path = tmp_path / f"m{i}.jsonl"
        path.write_bytes(JSONL_TEXTS[i].encode())
        assert read_jsonl(str(path)) is not None, JSONL_TEXTS[i]


def test_paused_gc_leaves_what_it_made_in_the_oldest_generation_and_collectable() -> None:
    """Objects made under ``paused_gc`` are in the oldest generation as soon as it ends: no
    collection starts when the collector is switched back on (without the move, the first
    allocation after it starts one that walks all of them), yet a cycle made there is still
    freed by a full collection; a collector the caller paused stays paused."""
    import gc
    import weakref

    from mindsport.history.formats.common import paused_gc

    class Node:
        pass

    assert gc.isenabled()
    started: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.collect()
    gc.callbacks.append(record)
    try:
        with paused_gc():
            assert not gc.isenabled()
            made = [[i] for i in range(50_000)]  # far past the youngest generation's threshold
            a, b = Node(), Node()
            a.other, b.other = b, a  # type: ignore[attr-defined]
            ref = weakref.ref(a)
        after = list(started)
    finally:
        gc.callbacks.remove(record)
    assert gc.isenabled()
    assert after == []
    target = made[-1]
    assert any(o is target for o in gc.get_objects(generation=2))
    assert len(made) == 50_000
    del a, b
    gc.collect()
    assert ref() is None
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
