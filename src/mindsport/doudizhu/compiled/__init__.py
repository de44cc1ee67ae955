"""The Dou Dizhu engine, compiled with numba: the one implementation of the game's rules.

* :mod:`.movegen`: legal-move generation over count vectors (and the list of every move);
* :mod:`.planner`: the strong bot's hand planner;
* :mod:`.bots`: the built-in bots' decisions (random, greedy, strong, ``level:N``);
* :mod:`.engine`: the game loop over batches of games;
* :mod:`.policy`, :mod:`.values`, :mod:`.playouts`: AIVAT's action terms of the bots whose move
  distribution is known, valued by linear features or by playouts;
* :mod:`.rng`: NumPy's PCG64 generator, bit for bit, so a compiled game draws exactly what a
  Python ``np.random.Generator`` would.

The typed API (:func:`~mindsport.doudizhu.legal_moves`, :class:`~mindsport.doudizhu.GameState`,
:func:`~mindsport.doudizhu.play`, the bots) wraps these kernels; :mod:`mindsport.doudizhu.engine`
runs many games at once. Numba compiles the kernels on their first use on a machine (about a
minute, then cached on disk) and loads them from its cache afterwards, never at import:
:func:`ensure_compiled` does it up front and says so on stderr while it compiles.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

__all__ = ["COMPILE_MESSAGE", "compile_notice", "ensure_compiled"]

#: Printed once on stderr when the kernels are compiled rather than loaded from numba's cache.
COMPILE_MESSAGE = "compiling the Dou Dizhu engine, once (about a minute) ..."


@contextlib.contextmanager
def compile_notice(stream: TextIO | None = None) -> Iterator[None]:
    """Within this block, the first numba compilation (not a load from numba's cache) prints
    :data:`COMPILE_MESSAGE` on ``stream`` (stderr); the time it took is printed at the end."""
    from numba.core import event

    out = sys.stderr if stream is None else stream

    class Notice(event.Listener):
        started = 0.0

        def on_start(self, ev: Any) -> None:
            if not self.started:
                self.started = time.perf_counter()
                print(COMPILE_MESSAGE, file=out, flush=True)

        def on_end(self, ev: Any) -> None:
            pass

    notice = Notice()
    with event.install_listener("numba:compile", notice):
        yield
    if notice.started:
        seconds = time.perf_counter() - notice.started
        print(f"... the engine is compiled ({seconds:.0f} s)", file=out, flush=True)


def _warm() -> None:
    """Call every kernel the package calls from Python once, with the argument types it uses."""
    import numpy as np

    from mindsport.doudizhu.compiled.bots import Turn, decide_one
    from mindsport.doudizhu.compiled.engine import Games, Played, deck, run_games
    from mindsport.doudizhu.compiled.movegen import (
        can_beat,
        legal_indices,
        legal_text_indices,
        universe,
    )
    from mindsport.doudizhu.compiled.planner import best, plan_groups
    from mindsport.doudizhu.compiled.playouts import playout_terms
    from mindsport.doudizhu.compiled.rng import int_words, seed_games, seed_keys
    from mindsport.doudizhu.compiled.values import decision_terms

    hand = np.array([1] * 13 + [1, 1], dtype=np.int64)
    mc, mk, _, _ = universe()
    legal_indices(hand, -1, -1, 0, np.zeros(1, np.int64))
    legal_text_indices(np.frombuffer(b"3", np.uint8), -1, -1, 0, np.zeros(1, np.int64))
    can_beat(hand, 0, 0, 1)
    best(hand.copy(), 0)
    groups = np.zeros(24, np.int64)
    plan_groups(hand, groups, groups.copy(), groups.copy(), np.zeros((24, 15), np.int64))
    states = np.zeros((1, 6), np.uint64)
    seed_games(int_words(0), 0, states)
    seed_keys(np.zeros((1, 5), np.uint32), np.ones(1, np.int64) * 5, states)
    out = np.zeros(15, np.int64)
    left = np.array([20, 17, 17], np.int64)
    decide_one(Turn(2, 0, 0, -1, -1, 0, -1), hand, hand.copy(), left, states[0], out)
    codes = np.full((1, 3), 2, np.int64)
    empty3 = np.zeros((0, 3, 15), np.int64)
    played = Played(
        np.zeros((1, 8), np.int64),
        empty3,
        np.zeros((0, 18), np.int64),
        np.zeros(1, np.int64),
        np.zeros(0, np.int64),
    )
    run_games(Games(states, empty3, codes, codes, deck()), played)
    deals = np.array([[hand, hand, hand]], np.int64)
    rows = np.zeros((1, 18), np.int64)
    rows[0, 1] = -1
    bounds = np.array([0, 0], np.int64)
    decision_terms(deals, rows, bounds, codes, codes, np.zeros((1, 3, 16)), codes.copy())
    playout_terms(
        deals, rows, bounds, (codes, codes), states.copy(), 1, np.zeros((1, 3, 2)), codes.copy()
    )
    del mc, mk


def _sources_digest() -> str:
    """A digest of every source the kernels are compiled from (this package, the rank and kind
    tables)."""
    here = Path(__file__).resolve().parent
    files = [*sorted(here.glob("*.py")), here.parent / "cards.py", here.parent / "kinds.py"]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _drop_stale_cache() -> None:
    """Numba checks a cached kernel against its own file only, not against the kernels of other
    files it calls: after any change to the engine's sources, drop the whole package's cache
    so that every kernel is compiled afresh (a read-only installation keeps its cache)."""
    cache = Path(__file__).resolve().parent / "__pycache__"
    stamp = cache / "engine-sources.sha256"
    digest = _sources_digest()
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for path in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
            path.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass


@functools.cache
def ensure_compiled() -> None:
    """Load the engine's kernels, compiling them first when numba's cache lacks them (a
    one-time message on stderr says so while it compiles). Later calls return at once."""
    _drop_stale_cache()
    with compile_notice():
        _warm()
