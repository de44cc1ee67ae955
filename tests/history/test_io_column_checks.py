"""The whole-column checks of the column path against plain Python on the same values: the
distinct-strings check (hashes of every string at once, sorted) against a Python set."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindsport.history.formats import columns
from mindsport.history.formats.columns import distinct_texts

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
