"""The one-time compile message: shown while numba compiles, not when it loads its cache."""

from __future__ import annotations

import io

import numpy as np
from numba import njit

from mindsport.doudizhu.compiled import COMPILE_MESSAGE, compile_notice, ensure_compiled


def test_the_message_is_shown_once_while_something_compiles() -> None:
    out = io.StringIO()

    @njit(cache=False)
    def twice(x):  # type: ignore[no-untyped-def]
        return 2 * x

    @njit(cache=False)
    def thrice(x):  # type: ignore[no-untyped-def]
        return 3 * x

    with compile_notice(out):
        assert twice(np.int64(2)) == 4
        assert thrice(np.int64(2)) == 6
    text = out.getvalue()
    assert text.count(COMPILE_MESSAGE) == 1
    assert "compiled" in text.splitlines()[-1]


def test_no_message_when_nothing_compiles() -> None:
    ensure_compiled()  # loaded (or compiled) by now
    out = io.StringIO()
    with compile_notice(out):
        from mindsport.doudizhu import legal_moves

        legal_moves("33445")
    assert out.getvalue() == ""
