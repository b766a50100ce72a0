"""The plans' storage on SQLAlchemy: workouts and calendar tokens. Every statement is
filtered by the owner's user id, so no path reads or changes another person's row (a
workout of someone else is not found, as one that does not exist)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.db import upsert_insert
from pacekeeper.owner import Owner
from pacekeeper.workouts._tables import CalendarTokenRow, WorkoutRow


@dataclass(frozen=True, slots=True)
class StoredWorkout:
    id: uuid.UUID
    name: str
    sport: str
    description: str | None
    steps: list[dict[str, Any]]
    day: date | None
    created_at: datetime
    updated_at: datetime

    def shape(self) -> dict[str, Any]:
        """The workout in the shared JSON shape (what the exporters render)."""
        out: dict[str, Any] = {"name": self.name, "sport": self.sport, "steps": self.steps}
        if self.description is not None:
            out["description"] = self.description
        return out


def _stored(row: WorkoutRow) -> StoredWorkout:
    return StoredWorkout(row.id, row.name, row.sport, row.description, list(row.steps),
                         row.day, row.created_at, row.updated_at)


class SqlWorkoutStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._insert = upsert_insert(sessions)

    async def add(self, owner: Owner, workout: StoredWorkout) -> None:
        async with self._sessions() as session, session.begin():
            session.add(WorkoutRow(
                id=workout.id, user_id=owner.user_id, tenant_id=owner.tenant_id,
                name=workout.name, sport=workout.sport, description=workout.description,
                steps=workout.steps, day=workout.day, created_at=workout.created_at,
                updated_at=workout.updated_at))

    async def get(self, user_id: uuid.UUID, workout_id: uuid.UUID) -> StoredWorkout | None:
        async with self._sessions() as session:
            row = (await session.execute(select(WorkoutRow).where(
                WorkoutRow.user_id == user_id, WorkoutRow.id == workout_id))).scalar_one_or_none()
        return None if row is None else _stored(row)

    async def replace(self, user_id: uuid.UUID, workout: StoredWorkout) -> bool:
        """Write every field of the person's workout ``workout.id``; False if none."""
        async with self._sessions() as session, session.begin():
            row = (await session.execute(select(WorkoutRow).where(
                WorkoutRow.user_id == user_id, WorkoutRow.id == workout.id)
                .with_for_update())).scalar_one_or_none()
            if row is None:
                return False
            row.name, row.sport, row.description = (workout.name, workout.sport,
                                                    workout.description)
            row.steps, row.day, row.updated_at = workout.steps, workout.day, workout.updated_at
            return True

    async def delete(self, user_id: uuid.UUID, workout_id: uuid.UUID) -> bool:
        async with self._sessions() as session, session.begin():
            result = await session.execute(delete(WorkoutRow).where(
                WorkoutRow.user_id == user_id, WorkoutRow.id == workout_id))
            return int(result.rowcount) == 1  # type: ignore[attr-defined]

    async def between(self, user_id: uuid.UUID, first: date, last: date
                      ) -> list[StoredWorkout]:
        """The person's workouts planned on [first, last], by day then creation."""
        async with self._sessions() as session:
            rows = (await session.execute(
                select(WorkoutRow).where(WorkoutRow.user_id == user_id,
                                         WorkoutRow.day >= first, WorkoutRow.day <= last)
                .order_by(WorkoutRow.day, WorkoutRow.created_at, WorkoutRow.id))).scalars()
            return [_stored(r) for r in rows]

    async def unscheduled(self, user_id: uuid.UUID, limit: int) -> list[StoredWorkout]:
        """The person's workouts with no day (not on the calendar), newest first."""
        async with self._sessions() as session:
            rows = (await session.execute(
                select(WorkoutRow).where(WorkoutRow.user_id == user_id,
                                         WorkoutRow.day.is_(None))
                .order_by(WorkoutRow.created_at.desc(), WorkoutRow.id).limit(limit))).scalars()
            return [_stored(r) for r in rows]

    # -- the calendar feed token (PLAN-4) ---------------------------------------------------

    async def set_token(self, owner: Owner, token_hash: str, now: datetime) -> None:
        """The person's one token hash (a new one replaces the old: the old link ends)."""
        async with self._sessions() as session, session.begin():
            values = {"token_hash": token_hash, "created_at": now}
            await session.execute(self._insert(CalendarTokenRow).values(
                user_id=owner.user_id, tenant_id=owner.tenant_id, **values
            ).on_conflict_do_update(index_elements=["user_id"], set_=values))

    async def delete_token(self, user_id: uuid.UUID) -> bool:
        async with self._sessions() as session, session.begin():
            result = await session.execute(delete(CalendarTokenRow).where(
                CalendarTokenRow.user_id == user_id))
            return int(result.rowcount) == 1  # type: ignore[attr-defined]

    async def token_owner(self, token_hash: str) -> Owner | None:
        async with self._sessions() as session:
            row = (await session.execute(select(CalendarTokenRow).where(
                CalendarTokenRow.token_hash == token_hash))).scalar_one_or_none()
        return None if row is None else Owner(row.user_id, row.tenant_id)

    async def has_token(self, user_id: uuid.UUID) -> datetime | None:
        async with self._sessions() as session:
            row = (await session.execute(select(CalendarTokenRow.created_at).where(
                CalendarTokenRow.user_id == user_id))).scalar_one_or_none()
        return row


__all__ = ["SqlWorkoutStore", "StoredWorkout"]
