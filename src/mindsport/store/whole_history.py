"""Whole-history leagues: each player's smoothed skill curve and current rating, kept up to the
match log.

A league whose model estimates skills from the whole history at once (``trueskill-history``,
:class:`~mindsport.rating.through_time.TrueSkillThroughTime`) keeps, derived in the same
transaction as the matches, each player's smoothed skill at his last time step (``ms_ratings``)
and his whole smoothed curve (``ms_skill_curve``: one point per time step he played in); no
per-match history. New results, late ones included, are added to the league's settled graph
(:class:`~mindsport.rating.through_time.SkillHistory` ``add``: message passing re-converges from
where it stood), and the curves and ratings of the players whose values moved are rewritten
whole. The graph is kept in memory per league, tagged with the league's ``last_seq``; when that
does not match the database (another process wrote, or the store just opened) it is rebuilt
from the match log.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection, delete, select

from mindsport.errors import MindsportError
from mindsport.match import search_key, time_value
from mindsport.rating.trueskill.model import ConvergenceError
from mindsport.store.bulk import insert_many
from mindsport.store.codec import match_of
from mindsport.store.database import Database, chunks, cursor
from mindsport.store.finite import check_finite
from mindsport.store.league_model import LeagueModel, PlayerState
from mindsport.store.match_log import RATINGS_UPSERT, clear_derived, read_log
from mindsport.store.schema import leagues, skill_curve
from mindsport.store.values import StoreError

__all__ = ["WholeHistory"]

#: a stored skill curve: its times (on the match log's axis), means and deviations
_Curve = tuple[tuple[float, ...], Any, Any]


@dataclass(slots=True)
class _Smoothed:
    """A whole-history league's settled graph (``history``, a
    :class:`~mindsport.rating.through_time.SkillHistory`) of its match log up to ``last_seq``,
    with what the database holds of it: each player's curve, games and last match time."""

    last_seq: int
    history: Any
    curves: dict[str, _Curve]
    games: dict[str, int]
    last_time: dict[str, float]


def _unsettled(model: LeagueModel, exc: ConvergenceError) -> StoreError:
    """A post refused because the league's whole-history model did not settle within the
    league's own limit on sweeps (a setting of the league, so a refusal, not a crash)."""
    return StoreError(
        f"league model {model.name!r} {model.params}: {exc}; nothing was written (raise the "
        "league's max_sweeps or tolerance: mindsport leagues set)"
    )


class WholeHistory:
    """The whole-history leagues of ``db``, with their settled graphs cached in memory."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # whole-history leagues' settled graphs, by league id and model settings
        self._smoothed: dict[tuple[int, str], _Smoothed] = {}
        self._lock = threading.Lock()

    def smooth(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        new: list[dict[str, Any]] | None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Bring a whole-history league's derived rows up to its match log, whose matches
        ``new`` (None: rebuild from scratch) were just inserted.

        The league's settled graph is taken from the in-memory cache when it holds the log
        just before ``new``; the new matches are added to it (re-converging from where the
        messages stood). Otherwise it is built from the whole log and every derived row is
        rewritten. The curves and current ratings of the players whose curve changed (a new
        time step, or a point that moved by more than the model's convergence tolerance, the
        precision the message passing settles to) are rewritten whole. The graph goes back to
        the cache once the transaction has committed. Returns the number of matches the graph
        was built from (0 when it was updated in place). A match the model refuses raises
        :class:`StoreError`.
        """
        last_seq = int(
            conn.execute(select(leagues.c.last_seq).where(leagues.c.id == lid)).scalar_one()
        )
        key = (lid, json.dumps([model.name, model.params], sort_keys=True))
        with self._lock:
            kept = self._smoothed.pop(key, None)
            for stale in [k for k in self._smoothed if k[0] == lid]:  # of earlier settings
                del self._smoothed[stale]
        rows: list[dict[str, Any]]
        if new is not None and kept is not None and kept.last_seq == last_seq - len(new):
            rows = sorted(new, key=lambda r: (r["time_value"], r["seq"]))
            try:
                kept.history.add([match_of(r) for r in rows])
            except MindsportError as exc:  # refused before anything changed: keep the graph
                with self._lock:
                    self._smoothed.setdefault(key, kept)
                raise StoreError(f"model {model.name!r} rejected a match: {exc}") from exc
            except ConvergenceError as exc:  # the graph is dropped (rebuilt on the next post)
                raise _unsettled(model, exc) from exc
            rebuilt = 0
        else:
            rows = read_log(self._db, conn, lid, None)
            try:
                history = model.history([match_of(r) for r in rows])
            except MindsportError as exc:
                raise StoreError(f"model {model.name!r} rejected a match: {exc}") from exc
            except ConvergenceError as exc:
                raise _unsettled(model, exc) from exc
            kept = _Smoothed(last_seq, history, {}, {}, {})
            clear_derived(conn, lid)
            rebuilt = len(rows)
        kept.last_seq = last_seq
        played: set[str] = set()  # their games and last times change: always rewritten
        for r in rows:
            tv = float(r["time_value"])
            for team in r["teams"]:
                for p in team:
                    kept.games[p] = kept.games.get(p, 0) + 1
                    kept.last_time[p] = max(kept.last_time.get(p, tv), tv)
                    played.add(p)
        changed: list[str] = []
        moved = model.tolerance
        for p in kept.history.players:
            c = kept.history.curve(p)
            old = kept.curves.get(p)
            if (  # a chain only grows: the same length is the same time steps
                p not in played
                and old is not None
                and len(old[0]) == len(c)
                and float(np.max(np.abs(old[1] - c.mu))) <= moved
                and float(np.max(np.abs(old[2] - c.sigma))) <= moved
            ):
                continue
            times = tuple(time_value(t) if isinstance(t, datetime) else float(t) for t in c.times)
            kept.curves[p] = (times, c.mu, c.sigma)
            changed.append(p)
        self._write_curves(conn, lid, model, kept, changed, clear=rebuilt > 0 or new is None)
        if progress is not None:
            progress(len(rows), len(rows))
        done = kept

        def keep() -> None:
            with self._lock:
                self._smoothed[key] = done

        self._db.after_commit(conn, keep)
        return rebuilt

    def _write_curves(
        self,
        conn: Connection,
        lid: int,
        model: LeagueModel,
        kept: _Smoothed,
        players: list[str],
        clear: bool,
    ) -> None:
        """Write the curves and current ratings of ``players`` whole (``clear``: the league's
        derived rows were deleted, nothing to replace)."""
        for p in players:  # the last line of defence: nothing non-finite is written
            _, mus, sds = kept.curves[p]
            check_finite(np.column_stack([mus, sds]), f"league model {model.name!r}: player {p!r}")
        c = skill_curve.c
        if not clear:
            for chunk in chunks(players):
                conn.execute(delete(skill_curve).where(c.league_id == lid, c.player.in_(chunk)))
        cur = cursor(conn)
        insert_many(
            self._db,
            cur,
            "INSERT INTO ms_skill_curve (league_id, player, time_value, mu, sigma)",
            "(?, ?, ?, ?, ?)",
            [
                (lid, p, t, mu, sd)
                for p in players
                for t, mu, sd in zip(
                    kept.curves[p][0],
                    kept.curves[p][1].tolist(),
                    kept.curves[p][2].tolist(),
                    strict=True,
                )
            ],
        )
        current = []
        for p in players:
            _, mus, sds = kept.curves[p]
            state = PlayerState(float(mus[-1]), float(sds[-1]))
            current.append(
                (lid, p, state.mu, state.sigma, "null", model.exposed(state), kept.games[p],
                 kept.last_time[p], search_key(p))
            )  # fmt: skip
        insert_many(
            self._db,
            cur,
            *RATINGS_UPSERT[:2],
            current,
            RATINGS_UPSERT[2],
        )
