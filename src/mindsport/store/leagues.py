"""The league catalogue: league names, creating a league (its settings checked by building its
model first, with its policy for late results), finding one, listing them.

Changing a league's settings rebuilds its ratings, which is :mod:`mindsport.store.derive`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from mindsport.errors import ConflictError, NotFoundError
from mindsport.store.database import Database
from mindsport.store.league_model import LeagueModel, LeagueModels
from mindsport.store.schema import leagues
from mindsport.store.values import LatePolicy, League, StoreError, late_policy, time_unit

__all__ = ["LEAGUE_NAME", "Leagues", "check_league_name", "stored_policy"]

LEAGUE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


def check_league_name(name: str) -> None:
    """A name no league can have is simply not found (and never reaches the database)."""
    if not isinstance(name, str) or not LEAGUE_NAME.match(name):
        raise NotFoundError(f"league {name!r} does not exist")


def stored_policy(late: str | None, limit: float | None) -> LatePolicy:
    """A league's late-result policy from its stored columns."""
    return LatePolicy(late or "replay", None if limit is None else float(limit))


def _league(row: Any) -> League:
    """A league from its row of the league table."""
    return League(
        row.name,
        row.model,
        dict(row.params),
        row.last_seq,
        stored_policy(row.late, row.late_limit),
        row.catchup_seq is not None,
        row.time_unit or "number",
    )


class Leagues:
    """The leagues of ``db``, whose models are built by ``models``."""

    def __init__(self, db: Database, models: LeagueModels) -> None:
        self._db = db
        self._models = models

    def check_new(
        self,
        name: str,
        model: str,
        params: Mapping[str, Any] | None,
        late: LatePolicy | str | None = None,
    ) -> dict[str, Any]:
        """The settings of a new league ``name`` (a copy of ``params``), once its name is
        allowed, its model builds with them and its late-result policy ``late`` fits the
        model."""
        if not isinstance(name, str) or not LEAGUE_NAME.match(name):
            raise StoreError(
                f"league name {name!r}: use 1-100 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )
        out = dict(params or {})
        built = self._models.model_for(model, out)
        late_policy(late).check_model(built.smoothed, model)
        return out

    @staticmethod
    def insert(
        conn: Connection,
        name: str,
        model: str,
        params: dict[str, Any],
        late: LatePolicy | None = None,
        unit: str = "number",
    ) -> League:
        """Insert a new league in the transaction of ``conn`` (:class:`ConflictError` if one has
        the name); ``late``: its late-result policy (``None``: ``replay``); ``unit``: what its
        numeric times mean (:data:`~mindsport.store.values.TIME_UNITS`)."""
        late = late or LatePolicy()
        if conn.execute(select(leagues.c.id).where(leagues.c.name == name)).first():
            raise ConflictError(f"league {name!r} already exists")
        conn.execute(
            insert(leagues).values(
                name=name,
                model=model,
                params=params,
                last_seq=0,
                max_time=None,
                created_at=datetime.now(UTC),
                late=late.policy,
                late_limit=late.refuse_older_than,
                time_unit=unit,
            )
        )
        return League(name, model, params, 0, late, time_unit=unit)

    def create(
        self,
        name: str,
        model: str = "trueskill",
        params: Mapping[str, Any] | None = None,
        late: LatePolicy | str | None = None,
        unit: str | None = None,
    ) -> League:
        """Create a league; its settings are checked by building the model first. ``late``:
        its late-result policy (:func:`~mindsport.store.values.late_policy`; default
        ``replay``); ``unit``: what its numeric times mean (default ``number``)."""
        policy = late_policy(late)
        checked_unit = time_unit(unit)
        params = self.check_new(name, model, params, policy)
        try:
            with self._db.write() as conn:
                return self.insert(conn, name, model, params, policy, checked_unit)
        except IntegrityError as exc:  # lost a creation race on PostgreSQL
            raise ConflictError(f"league {name!r} already exists") from exc

    def ensure(
        self,
        name: str,
        model: str = "trueskill",
        params: Mapping[str, Any] | None = None,
        late: LatePolicy | str | None = None,
        unit: str | None = None,
    ) -> League:
        """The league ``name``, created with the given settings when missing."""
        try:
            return self.get(name)
        except NotFoundError:
            try:
                return self.create(name, model, params, late, unit)
            except ConflictError:
                return self.get(name)

    def get(self, name: str) -> League:
        """The league ``name`` (:class:`NotFoundError` if there is none)."""
        check_league_name(name)
        with self._db.read() as conn:
            row = conn.execute(select(leagues).where(leagues.c.name == name)).first()
        if row is None:
            raise NotFoundError(f"league {name!r} does not exist")
        return _league(row)

    def set_time_unit(self, name: str, unit: str) -> League:
        """Declare what league ``name``'s numeric times mean (nothing is re-rated: the unit
        changes how times are shown only)."""
        checked = time_unit(unit)
        check_league_name(name)
        with self._db.write() as conn:
            done = conn.execute(
                update(leagues).where(leagues.c.name == name).values(time_unit=checked)
            )
            if done.rowcount == 0:
                raise NotFoundError(f"league {name!r} does not exist")
        return self.get(name)

    def all_leagues(self) -> list[League]:
        """Every league, by name."""
        with self._db.read() as conn:
            rows = conn.execute(select(leagues).order_by(leagues.c.name)).all()
        return [_league(r) for r in rows]

    def model(self, name: str) -> LeagueModel:
        """The model object of league ``name``'s settings."""
        lg = self.get(name)
        return self._models.model_for(lg.model, lg.params)

    @staticmethod
    def id_of(conn: Connection, name: str) -> int:
        """The id of league ``name``, read in the transaction of ``conn``."""
        check_league_name(name)
        lid = conn.execute(select(leagues.c.id).where(leagues.c.name == name)).scalar()
        if lid is None:
            raise NotFoundError(f"league {name!r} does not exist")
        return int(lid)
