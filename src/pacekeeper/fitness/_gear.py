"""Gear (issue 33): a person's bikes and shoes, the distance and time each has done, the
one a new activity of a sport takes, and when each is due for a look.

Every statement names the person (``user_id``), so another person's gear is "not found"
whatever its id. Totals are summed on read over the activities that name the gear (no
counter to drift when an activity is edited, merged or deleted). A sport has at most one
default gear, never a retired one: making one the default clears it from the others;
retiring clears it.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.sql.elements import ColumnElement

from pacekeeper.errors import ApiError
from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._tables import ActivityRow, GearRow
from pacekeeper.fitness.models import Sport
from pacekeeper.owner import Owner

KINDS: tuple[str, ...] = ("bike", "shoes", "other")
FIELDS: tuple[str, ...] = ("name", "kind", "default_for", "retired", "alert_km")
MAX_NAME = 200
MAX_ALERT_KM = 100_000.0


class GearNotFound(ApiError):
    """404: no gear of that id is the caller's."""

    status = 404
    code = "not_found"


def default_gear(user_id: uuid.UUID, sport: str) -> Any:
    """The gear a new activity of ``sport`` takes (an insert's ``gear_id``): the person's
    default for that sport, if it is not retired."""
    return (select(GearRow.id)
            .where(GearRow.user_id == user_id, GearRow.default_for == sport,
                   GearRow.retired.is_(False))
            .limit(1).scalar_subquery())


def check_gear(body: Mapping[str, Any], *, new: bool) -> dict[str, Any]:
    """The columns to store; ``FitnessInputError`` naming the first bad field."""
    unknown = [k for k in body if k not in FIELDS]
    if unknown:
        raise FitnessInputError(f"unknown field {unknown[0]!r}; gear has {', '.join(FIELDS)}")
    if new and "name" not in body:
        raise FitnessInputError("name is required")
    out: dict[str, Any] = {}
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str) or not name.strip() or "\x00" in name:
            raise FitnessInputError("name must be a non-empty string")
        if len(name.strip()) > MAX_NAME:
            raise FitnessInputError(f"name must be at most {MAX_NAME} characters")
        out["name"] = name.strip()
    if "kind" in body or new:
        kind = body.get("kind", "other")
        if kind not in KINDS:
            raise FitnessInputError(f"kind must be one of {', '.join(KINDS)}")
        out["kind"] = kind
    if "default_for" in body:
        sport = body["default_for"]
        sports = [s.value for s in Sport]
        if sport is not None and sport not in sports:
            raise FitnessInputError(f"default_for must be null or one of {', '.join(sports)}")
        out["default_for"] = sport
    if "retired" in body:
        if not isinstance(body["retired"], bool):
            raise FitnessInputError("retired must be true or false")
        out["retired"] = body["retired"]
    if "alert_km" in body:
        km = body["alert_km"]
        if km is not None and (isinstance(km, bool) or not isinstance(km, int | float)
                               or not math.isfinite(km) or not 0 < km <= MAX_ALERT_KM):
            raise FitnessInputError(f"alert_km must be null or a number above 0, at most "
                                    f"{MAX_ALERT_KM:g}")
        out["alert_m"] = None if km is None else float(km) * 1000.0
    if out.get("retired"):
        out["default_for"] = None  # a retired bike takes no new rides
    return out


def _gear_id(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(text))
    except ValueError:
        raise GearNotFound("no such gear") from None


class GearService:
    def __init__(self, sessions: async_sessionmaker[AsyncSession],
                 clock: Callable[[], datetime]) -> None:
        self._sessions = sessions
        self._clock = clock

    async def list(self, owner: Owner, gear_id: uuid.UUID | None = None
                   ) -> list[dict[str, Any]]:
        """The person's gear, retired last, each with its activities, distance and time
        (moving, else elapsed), and ``due`` once its distance reaches its alert."""
        moving = func.coalesce(ActivityRow.moving_s, ActivityRow.elapsed_s)
        query = (
            select(GearRow, func.count(ActivityRow.id),
                   func.coalesce(func.sum(ActivityRow.distance_m), 0.0),
                   func.coalesce(func.sum(moving), 0.0))
            .outerjoin(ActivityRow, (ActivityRow.gear_id == GearRow.id)
                       & (ActivityRow.user_id == owner.user_id))
            .where(GearRow.user_id == owner.user_id)
            .group_by(GearRow.id)
            .order_by(GearRow.retired, GearRow.created_at))
        if gear_id is not None:
            query = query.where(GearRow.id == gear_id)
        async with self._sessions() as session:
            rows = (await session.execute(query)).all()
        return [_view(g, int(n), float(metres or 0.0), float(seconds or 0.0))
                for g, n, metres, seconds in rows]

    async def get(self, owner: Owner, gear_id: str) -> dict[str, Any]:
        found = await self.list(owner, _gear_id(gear_id))
        if not found:
            raise GearNotFound("no such gear")
        return found[0]

    async def create(self, owner: Owner, body: Mapping[str, Any]) -> dict[str, Any]:
        values = check_gear(body, new=True)
        ident, now = uuid.uuid4(), self._clock()
        async with self._sessions() as session, session.begin():
            await self._one_default(session, owner, values.get("default_for"), ident)
            session.add(GearRow(id=ident, user_id=owner.user_id, tenant_id=owner.tenant_id,
                                created_at=now, updated_at=now, **{"retired": False, **values}))
        return await self.get(owner, str(ident))

    async def update(self, owner: Owner, gear_id: str, body: Mapping[str, Any]
                     ) -> dict[str, Any]:
        values = check_gear(body, new=False)
        ident = _gear_id(gear_id)
        if not values:
            raise FitnessInputError(f"name at least one field: {', '.join(FIELDS)}")
        async with self._sessions() as session, session.begin():
            await self._one_default(session, owner, values.get("default_for"), ident)
            done = await session.execute(
                update(GearRow).where(GearRow.user_id == owner.user_id, GearRow.id == ident)
                .values(**values, updated_at=self._clock()))
            if int(done.rowcount) != 1:  # type: ignore[attr-defined]
                raise GearNotFound("no such gear")
        return await self.get(owner, gear_id)

    async def delete(self, owner: Owner, gear_id: str) -> None:
        """The gear, and its name on the activities that used it (they stay)."""
        ident = _gear_id(gear_id)
        async with self._sessions() as session, session.begin():
            gone = await session.execute(
                delete(GearRow).where(GearRow.user_id == owner.user_id, GearRow.id == ident))
            if int(gone.rowcount) != 1:  # type: ignore[attr-defined]
                raise GearNotFound("no such gear")
            await session.execute(
                update(ActivityRow).where(ActivityRow.user_id == owner.user_id,
                                          ActivityRow.gear_id == ident)
                .values(gear_id=None))

    async def assign(self, owner: Owner, activity_id: uuid.UUID, gear_id: str | None) -> None:
        """The gear an activity used (None: none). The gear and the activity must both be
        the caller's: another person's of either is "not found"."""
        ident = None if gear_id is None else _gear_id(gear_id)
        async with self._sessions() as session, session.begin():
            if ident is not None and (await session.execute(select(GearRow.id).where(
                    GearRow.user_id == owner.user_id, GearRow.id == ident))).first() is None:
                raise GearNotFound("no such gear")
            done = await session.execute(
                update(ActivityRow).where(ActivityRow.user_id == owner.user_id,
                                          ActivityRow.id == activity_id)
                .values(gear_id=ident))
            if int(done.rowcount) != 1:  # type: ignore[attr-defined]
                raise ActivityNotFound("no such activity")

    @staticmethod
    async def _one_default(session: AsyncSession, owner: Owner, sport: str | None,
                           keep: uuid.UUID) -> None:
        if sport is None:
            return
        others: ColumnElement[bool] = GearRow.id != keep
        await session.execute(
            update(GearRow).where(GearRow.user_id == owner.user_id,
                                  GearRow.default_for == sport, others)
            .values(default_for=None))


def _view(g: GearRow, activities: int, metres: float, seconds: float) -> dict[str, Any]:
    return {"id": str(g.id), "name": g.name, "kind": g.kind, "default_for": g.default_for,
            "retired": g.retired,
            "alert_km": None if g.alert_m is None else round(g.alert_m / 1000.0, 1),
            "activities": activities, "distance_km": round(metres / 1000.0, 1),
            "moving_time_s": round(seconds),
            "due": g.alert_m is not None and metres >= g.alert_m}


__all__ = ["FIELDS", "KINDS", "GearNotFound", "GearService", "check_gear", "default_gear"]
