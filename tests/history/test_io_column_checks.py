"""The whole-column checks of the column path against plain Python on the same values: the
distinct-strings check (hashes of every string at once, sorted) against a Python set; the ids of
a dictionary array (a Parquet file's dictionary-encoded players) against its decoded text and
the row path."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindsport.errors import MindsportError
from mindsport.history import read_matches
from mindsport.history.formats import columns
from mindsport.history.formats.columns import all_empty, distinct_texts, interned, text_times
from mindsport.history.formats.common import parse_time
from mindsport.history.io import iter_located
from mindsport.match import time_problem

texts = st.lists(st.text(max_size=12), max_size=40)


def by_set(values: list[str]) -> bool:
    return len(set(values)) == len(values)


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(0, 3), st.booleans())
def test_distinct_texts_is_a_set_of_the_strings(values: list[str], skip: int, large: bool) -> None:
    kind = pa.large_string() if large else pa.string()
    arr = pa.array(["pad"] * skip + values, kind)[skip:]  # a slice: its offsets start past 0
    assert distinct_texts(arr) == by_set(values)


def test_colliding_hashes_are_told_apart_by_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # every string of a length gets one hash: the texts decide
    monkeypatch.setattr(
        columns, "_text_hashes", lambda offsets, data: np.diff(offsets).astype(np.uint64)
    )
    assert distinct_texts(pa.array(["ab", "cd", "ef", "g"]))
    assert not distinct_texts(pa.array(["ab", "cd", "ab", "g"]))


def test_hashes_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(columns, "HASH_CHUNK", 3)
    rng = np.random.default_rng(5)
    values = [f"m{i}" for i in rng.permutation(50).tolist()] + ["", "é", "x" * 30]
    assert distinct_texts(pa.array(values))
    assert not distinct_texts(pa.array([*values, "m7"]))
    assert not distinct_texts(pa.array(["", "a", ""]))
    whole = columns._text_hashes(*columns._text_buffers(pa.array(values)))
    monkeypatch.setattr(columns, "HASH_CHUNK", 1 << 20)
    assert whole.tolist() == columns._text_hashes(*columns._text_buffers(pa.array(values))).tolist()


@pytest.mark.parametrize(
    ("words", "indices"),
    [
        (["ann", "bob", "cid"], [2, 0, 0, 1]),
        (["ann", "bob", "ann"], [0, 1, 2, 2]),  # a text twice in the dictionary
        (["ann", "bob", " x"], [0, 1, 0]),  # an unused entry the row path would strip
        (["ann", "bob"], [0, None, 1]),  # a missing player
        (["ann", "b\u0301ob"], [0, 1]),
    ],
)
def test_interned_dictionary_as_its_decoded_text(words: list[str], indices: list[Any]) -> None:
    arr = pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(words))
    got = interned(arr, strip=True)
    want = interned(arr.dictionary_decode(), strip=True)
    if want is None:  # the decoded text is refused: so is the dictionary
        assert got is None
        return
    assert got is not None
    distinct, codes = got
    assert len(set(distinct)) == len(distinct)
    assert [distinct[c] for c in codes.tolist()] == arr.dictionary_decode().to_pylist()


def test_parquet_players_as_a_dictionary_with_a_text_twice(tmp_path: Path) -> None:
    # one match whose two players are one id (two dictionary entries as written; the writer
    # keeps one): refused by the row path (a player twice), and so by read_matches; the same
    # file with distinct players reads as the row path reads it
    players = pa.DictionaryArray.from_arrays(
        pa.array([0, 1, 2, 3], pa.int32()), pa.array(["ann", "ann", "bob", "cid"])
    )
    table = pa.table(
        {
            "match_id": ["g1", "g1", "g2", "g2"],
            "time": pa.array([1, 1, 2, 2], pa.int64()),
            "player": players,
            "team": ["a", "b", "a", "b"],
            "rank": pa.array([0, 1, 1, 0], pa.int64()),
        }
    )
    path = tmp_path / "twice.parquet"
    pq.write_table(table, path)
    with pytest.raises(MindsportError) as by_rows:
        list(iter_located(path))
    with pytest.raises(MindsportError) as by_columns:
        read_matches(path)
    assert str(by_columns.value) == str(by_rows.value)
    assert "ann" in str(by_rows.value)
    fine = table.set_column(2, "player", pa.array(["ann", "dan", "bob", "cid"]).dictionary_encode())
    pq.write_table(fine, path)
    got = read_matches(path)
    assert got == [m for _, m in iter_located(path)]
    assert got[0].teams == (("ann",), ("dan",))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.sampled_from(["", "", "a", "1.5"])), max_size=8),
    st.integers(0, 2),
)
def test_all_empty_is_every_text_empty_or_missing(values: list[str | None], skip: int) -> None:
    arr = pa.array(["x"] * skip + values, pa.string())[skip:]
    assert all_empty(arr) == all(not v for v in values)


time_texts = st.one_of(
    st.integers(-(10**9), 7 * 10**9).map(str),
    st.floats(-1e9, 1e9, allow_nan=False).map(repr),
    st.datetimes(datetime(1900, 1, 1), datetime(2100, 1, 1)).map(datetime.isoformat),
    st.sampled_from(["2024-01-01T00:00:00+02:00", "99999999999", "2024-02-30", "x", "1e400"]),
)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.lists(time_texts, min_size=1, max_size=6),
        st.lists(st.integers(0, 10**9).map(str), min_size=1, max_size=6),
    )
)
def test_text_times_as_the_row_path_parses_them(texts: list[str]) -> None:
    try:
        want: list[Any] | None = [parse_time(t) for t in texts]
    except ValueError:
        want = None
    if want is not None and any(time_problem(t) is not None for t in want):
        want = None
    got = text_times(pa.array(texts, pa.string()))
    assert got == want
    if got is not None:
        assert [type(t) for t in got] == [type(t) for t in want or []]
