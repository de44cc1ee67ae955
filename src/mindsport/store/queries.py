"""Reading a league: its match log, its players' current states and ratings, the leaderboard
(with the learned role advantages of a model that rates roles), a player's record (rank, rating
history or smoothed skill curve), and the states of the players of given teams.

Readers never wait for writers (PostgreSQL: MVCC, READ COMMITTED; SQLite: WAL).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import and_, func, select

from mindsport.errors import NotFoundError
from mindsport.match import Match, id_problem, normal_id, search_key, text_problem
from mindsport.rating.trueskill.seats import KIND as SEAT_KIND
from mindsport.rating.trueskill.seats import SeatEdge, SeatStatistics
from mindsport.store.codec import match_of
from mindsport.store.database import Database, chunks
from mindsport.store.finite import check_finite
from mindsport.store.league_model import LeagueModel, LeagueModels, PlayerState
from mindsport.store.leagues import Leagues
from mindsport.store.schema import (
    leagues,
    matches,
    rating_history,
    ratings,
    skill_curve,
    virtual_ratings,
)
from mindsport.store.values import (
    CurvePoint,
    HistoryPoint,
    LeaderboardEntry,
    LeaderboardPage,
    PlayerRecord,
    RoleAdvantage,
    StoreError,
)

__all__ = ["MAX_OFFSET", "Queries"]

#: largest leaderboard offset
MAX_OFFSET = 1_000_000_000


def _ranked(lid: int) -> Any:
    """League ``lid``'s players with their overall rank (by ``exposed``, then id)."""
    r = ratings.c
    return (
        select(
            r.player,
            r.mu,
            r.sigma,
            r.exposed,
            r.games,
            r.search_key,
            func.row_number().over(order_by=(r.exposed.desc(), r.player.asc())).label("rank"),
        )
        .where(r.league_id == lid)
        .subquery()
    )


class Queries:
    """Reads of the leagues of ``db`` (found by ``leagues``; ``models``: how each model shows
    a rating)."""

    def __init__(self, db: Database, leagues: Leagues, models: LeagueModels) -> None:
        self._db = db
        self._leagues = leagues
        self._models = models

    def matches(self, league: str) -> list[Match]:
        """The league's match log in rating order (time, then commit sequence)."""
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            rows = conn.execute(
                select(matches)
                .where(matches.c.league_id == lid)
                .order_by(matches.c.time_value, matches.c.seq)
            ).all()
        return [match_of(r._mapping) for r in rows]

    def match_count(self, league: str) -> int:
        """The number of matches in the league's log."""
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            return int(
                conn.execute(
                    select(func.count()).select_from(matches).where(matches.c.league_id == lid)
                ).scalar_one()
            )

    def states(self, league: str, players: Iterable[str] | None = None) -> dict[str, PlayerState]:
        """Current rating state of every rated player (or of the given ones that are rated)."""
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            q = select(ratings)
            if players is None:
                rows = list(conn.execute(q.where(ratings.c.league_id == lid)))
            else:
                rows = []
                q = q.where(ratings.c.league_id == self._db.league_key(lid))
                for chunk in chunks(sorted(set(players))):
                    rows.extend(conn.execute(q.where(ratings.c.player.in_(chunk))))
        _served([(r.mu, r.sigma) for r in rows], league, [r.player for r in rows])
        return {r.player: PlayerState(r.mu, r.sigma, r.extra) for r in rows}

    def ratings(self, league: str) -> dict[str, Any]:
        """Current ratings as the model's own values (e.g. ``Rating(mu, sigma)``)."""
        lm = self._leagues.model(league)
        return {p: lm.to_rating(s) for p, s in self.states(league).items()}

    def leaderboard(
        self, league: str, *, offset: int = 0, limit: int = 50, search: str | None = None
    ) -> LeaderboardPage:
        """Players by conservative rating (``exposed``, best first), with their overall rank.

        ``search`` keeps players whose id contains it, case-insensitively: their search key
        (:func:`~mindsport.match.search_key`, the case folding of the NFC id, kept beside the
        rating) contains the search's key, alike on SQLite and PostgreSQL; ranks stay overall.
        """
        if not 0 <= offset <= MAX_OFFSET:
            raise StoreError(f"offset must lie in [0, {MAX_OFFSET}], got {offset}")
        if not 1 <= limit <= MAX_OFFSET:
            raise StoreError(f"limit must lie in [1, {MAX_OFFSET}], got {limit}")
        if search is not None:
            why = text_problem(search)
            if why is not None:
                raise StoreError(f"search {search[:40]!r} {why}")
        with self._db.read() as conn:
            found = conn.execute(
                select(leagues.c.id, leagues.c.model, leagues.c.catchup_seq).where(
                    leagues.c.name == league
                )
            ).first()
            if found is None:
                raise NotFoundError(f"league {league!r} does not exist")
            lid, model_name = int(found.id), found.model
            ranked = _ranked(lid)
            # a plain substring of two folded strings (SQLite's LIKE folds ASCII only, which
            # folded text no longer holds, so both databases compare the same characters)
            key = search_key(search) if search else ""
            cond = ranked.c.search_key.contains(key, autoescape=True) if key else None
            base = select(ranked)
            count = select(func.count()).select_from(ranked)
            if cond is not None:
                base = base.where(cond)
                count = count.where(cond)
            total = int(conn.execute(count).scalar_one())
            rows = conn.execute(base.order_by(ranked.c.rank).offset(offset).limit(limit)).all()
            v = virtual_ratings.c
            raw_roles = [
                (r.name, float(r.mu), float(r.sigma))
                for r in conn.execute(
                    select(v.name, v.mu, v.sigma)
                    .where(v.league_id == lid, v.kind == "role")
                    .order_by(v.name)
                )
            ]
            seats = _seat_edges(conn, lid) if raw_roles else ()
        _served([(r.mu, r.sigma, r.exposed) for r in rows], league, [r.player for r in rows])
        _served([r[1:] for r in raw_roles], league, [f"role {r[0]}" for r in raw_roles])
        alone = {s.roles[0]: s for s in seats if len(s.roles) == 1}
        roles = tuple(
            RoleAdvantage(name, mu, sigma)
            if name not in alone
            else RoleAdvantage(name, mu, sigma, alone[name].vs_average, alone[name].low,
                               alone[name].high)
            for name, mu, sigma in raw_roles
        )  # fmt: skip
        entries = [
            LeaderboardEntry(int(r.rank), r.player, r.mu, r.sigma, r.exposed, r.games) for r in rows
        ]
        spec = self._models.specs.get(model_name)
        display = None if spec is None else spec.display
        updating = found.catchup_seq is not None
        return LeaderboardPage(
            league, total, offset, limit, entries, display, roles, updating, seats
        )

    def player(self, league: str, player: str, *, history: bool = True) -> PlayerRecord:
        """A player's current rating, overall rank and rating after each of their matches
        (``player`` in any canonically equal spelling: it is looked up in NFC)."""
        why = id_problem(player)
        if why is not None:
            raise StoreError(f"player id {player[:40]!r} {why}")
        player = normal_id(player)
        with self._db.read() as conn:
            lid = self._leagues.id_of(conn, league)
            updating = (
                conn.execute(select(leagues.c.catchup_seq).where(leagues.c.id == lid)).scalar()
                is not None
            )
            ranked = _ranked(lid)
            row = conn.execute(select(ranked).where(ranked.c.player == player)).first()
            if row is None:
                raise NotFoundError(f"player {player!r} has no rating in league {league!r}")
            extra = conn.execute(
                select(ratings.c.extra).where(
                    ratings.c.league_id == self._db.league_key(lid), ratings.c.player == player
                )
            ).scalar()
            points: list[HistoryPoint] = []
            curve: list[CurvePoint] = []
            if history:
                h, m = rating_history.c, matches.c
                q = (
                    select(m.match_id, h.seq, h.time_value, h.mu, h.sigma)
                    .join_from(
                        rating_history,
                        matches,
                        and_(m.league_id == h.league_id, m.seq == h.seq),
                    )
                    .where(h.league_id == lid, h.player == player)
                    .order_by(h.time_value, h.seq)
                )
                points = [
                    HistoryPoint(r.match_id, r.seq, r.time_value, r.mu, r.sigma)
                    for r in conn.execute(q)
                ]
                c = skill_curve.c
                curve = [
                    CurvePoint(r.time_value, r.mu, r.sigma)
                    for r in conn.execute(
                        select(c.time_value, c.mu, c.sigma)
                        .where(c.league_id == lid, c.player == player)
                        .order_by(c.time_value)
                    )
                ]
        _served(
            [(row.mu, row.sigma, row.exposed)]
            + [(h.mu, h.sigma, h.mu) for h in points]
            + [(c.mu, c.sigma, c.mu) for c in curve],
            league,
            [player] * (1 + len(points) + len(curve)),
        )
        return PlayerRecord(
            league,
            player,
            int(row.rank),
            PlayerState(row.mu, row.sigma, extra),
            row.exposed,
            row.games,
            points,
            curve,
            updating,
        )

    def role_states(self, league: str) -> dict[str, tuple[float, float]]:
        """The learned role advantages of a league whose model rates roles: ``(mu, sigma)`` by
        role name (empty for another model, or before any match with roles)."""
        with self._db.read() as conn:
            found = conn.execute(select(leagues.c.id).where(leagues.c.name == league)).first()
            if found is None:
                raise NotFoundError(f"league {league!r} does not exist")
            v = virtual_ratings.c
            rows = conn.execute(
                select(v.name, v.mu, v.sigma).where(v.league_id == int(found.id), v.kind == "role")
            ).all()
        _served([(r.mu, r.sigma) for r in rows], league, [f"role {r.name}" for r in rows])
        return {r.name: (float(r.mu), float(r.sigma)) for r in rows}

    def team_states(
        self, league: str, teams: Sequence[Sequence[str]], *, allow_new: bool = False
    ) -> tuple[LeagueModel, list[list[PlayerState]]]:
        """The model and the current states of ``teams`` (new players: the model's prior)."""
        lm = self._leagues.model(league)
        wanted = [p for t in teams for p in t]
        known = self.states(league, wanted)
        missing = [p for p in wanted if p not in known]
        if missing and not allow_new:
            raise NotFoundError(
                f"unknown player{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(p) for p in missing)} in league {league!r}"
            )
        init = lm.initial()
        return lm, [[known.get(p, init) for p in t] for t in teams]


def _served(rows: list[tuple[Any, ...]], league: str, players: list[str]) -> None:
    """The last line of defence on what is served (:func:`~mindsport.store.finite.check_finite`):
    ``rows`` of rating values read from league ``league``, one per entry of ``players``."""
    check_finite(
        [tuple(np.nan if x is None else x for x in r) for r in rows],
        (f"league {league!r}: player {p!r}" for p in players),
    )


def _seat_edges(conn: Any, lid: int) -> tuple[SeatEdge, ...]:
    """The sides of league ``lid`` against the average side, from its stored seat statistics
    (at most a few hundred rows: :data:`~mindsport.rating.trueskill.seats.MAX_SIDES` sides)."""
    v = virtual_ratings.c
    found = conn.execute(
        select(v.key, v.mu, v.sigma).where(v.league_id == lid, v.kind == SEAT_KIND)
    ).all()
    stats = SeatStatistics()
    stats.load({tuple(json.loads(r.key)): (float(r.mu), float(r.sigma)) for r in found})
    return stats.edges()
