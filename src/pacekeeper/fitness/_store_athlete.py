"""A person's records beside their activities, on SQLAlchemy: goals, athlete settings
(with their history), daily health and each provider's sync state. ``SqlFitnessStore``
(_store.py) is this plus the activities; as there, every statement is filtered by the
owner's user id."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import asdict
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.db import reading_sessions, upsert_insert
from pacekeeper.fitness._records import (
    HEALTH_FIELDS,
    DailyHealth,
    Goal,
    Owner,
    SettingValue,
    SyncState,
)
from pacekeeper.fitness._tables import AthleteSettingRow, DailyHealthRow, GoalRow, SyncStateRow


class SqlAthleteRecords:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        # For the methods that only read, on the request path: no BEGIN and ROLLBACK
        # around their SELECTs on PostgreSQL (db.reading).
        self._reads = reading_sessions(sessions)
        self._insert = upsert_insert(sessions)

    # -- goals --------------------------------------------------------------------------------

    async def add_goal(self, owner: Owner, goal: Goal) -> None:
        async with self._sessions() as session, session.begin():
            session.add(GoalRow(id=goal.id, user_id=owner.user_id, tenant_id=owner.tenant_id,
                                kind=goal.kind, name=goal.name, target_date=goal.target_date,
                                sport=goal.sport, distance_m=goal.distance_m,
                                time_s=goal.time_s, value=goal.value,
                                created_at=goal.created_at))

    async def goals(self, user_id: uuid.UUID) -> list[Goal]:
        async with self._sessions() as session:
            rows = (await session.execute(
                select(GoalRow).where(GoalRow.user_id == user_id)
                .order_by(GoalRow.created_at, GoalRow.id))).scalars()
            return [Goal(r.id, r.kind, r.name, r.target_date, r.sport, r.distance_m,
                         r.time_s, r.value, r.created_at) for r in rows]

    async def delete_goal(self, user_id: uuid.UUID, goal_id: uuid.UUID) -> bool:
        async with self._sessions() as session, session.begin():
            result = await session.execute(delete(GoalRow).where(
                GoalRow.user_id == user_id, GoalRow.id == goal_id))
            return int(result.rowcount) == 1  # type: ignore[attr-defined]

    # -- athlete settings ----------------------------------------------------------------

    async def settings(self, user_id: uuid.UUID) -> list[SettingValue]:
        async with self._reads() as session:
            rows = (await session.execute(
                select(AthleteSettingRow).where(AthleteSettingRow.user_id == user_id)
                .order_by(AthleteSettingRow.field, AthleteSettingRow.valid_from)
            )).scalars()  # fmt: skip
            return [SettingValue(r.field, r.valid_from, r.value, r.source) for r in rows]

    async def set_settings(self, owner: Owner, values: dict[str, Any], valid_from: date,
                           now: datetime, *, source: str | None = None) -> None:
        """Store values from ``valid_from`` on: the person's (``source`` None), or a
        provider's imported on sync (its name). The person's value replaces what a
        provider gave for the same setting from that day on: their FTP of 250 from 2010
        is their FTP today, not a provider's imported later."""
        async with self._sessions() as session, session.begin():
            for name, value in values.items():
                if source is None:
                    await session.execute(delete(AthleteSettingRow).where(
                        AthleteSettingRow.user_id == owner.user_id,
                        AthleteSettingRow.field == name,
                        AthleteSettingRow.valid_from > valid_from,
                        AthleteSettingRow.source.is_not(None)))
                stmt = self._insert(AthleteSettingRow).values(
                    user_id=owner.user_id, field=name, valid_from=valid_from,
                    tenant_id=owner.tenant_id, value=value, created_at=now, source=source)
                await session.execute(stmt.on_conflict_do_update(
                    index_elements=["user_id", "field", "valid_from"],
                    set_={"value": value, "created_at": now, "source": source}))

    # -- daily health ----------------------------------------------------------------------

    async def upsert_daily(self, owner: Owner, days: Iterable[DailyHealth], now: datetime
                           ) -> int:
        count = 0
        async with self._sessions() as session, session.begin():
            for day in days:
                values = {k: v for k, v in asdict(day).items() if k in HEALTH_FIELDS}
                stmt = self._insert(DailyHealthRow).values(
                    user_id=owner.user_id, day=day.day, source=day.source,
                    tenant_id=owner.tenant_id, updated_at=now, **values)
                present = {k: v for k, v in values.items() if v is not None}
                await session.execute(stmt.on_conflict_do_update(
                    index_elements=["user_id", "day", "source"],
                    set_={**present, "updated_at": now}))
                count += 1
        return count

    async def daily(self, user_id: uuid.UUID, start: date, end: date, *,
                    hide: frozenset[str] = frozenset()) -> list[DailyHealth]:
        """The days' records, but those of a source hidden from the reader (``hide``:
        the providers an assistant may not be served, as for activities)."""
        async with self._sessions() as session:
            rows = (await session.execute(
                select(DailyHealthRow).where(DailyHealthRow.user_id == user_id,
                                             DailyHealthRow.day >= start,
                                             DailyHealthRow.day <= end,
                                             DailyHealthRow.source.not_in(sorted(hide)))
                .order_by(DailyHealthRow.day, DailyHealthRow.source)
            )).scalars()  # fmt: skip
            return [DailyHealth(r.day, r.source, **{k: getattr(r, k) for k in HEALTH_FIELDS})
                    for r in rows]

    # -- sync state --------------------------------------------------------------------------

    async def sync_state(self, user_id: uuid.UUID, provider: str) -> SyncState | None:
        async with self._sessions() as session:
            row = (await session.execute(
                select(SyncStateRow).where(SyncStateRow.user_id == user_id,
                                           SyncStateRow.provider == provider)
            )).scalar_one_or_none()  # fmt: skip
        if row is None:
            return None
        return SyncState(row.provider, row.status, row.cursor_at, dict(row.detail or {}),
                         row.started_at, row.finished_at, row.updated_at)

    async def sync_states(self, user_id: uuid.UUID) -> list[SyncState]:
        async with self._sessions() as session:
            rows = (await session.execute(
                select(SyncStateRow).where(SyncStateRow.user_id == user_id)
                .order_by(SyncStateRow.provider))).scalars()
            return [SyncState(r.provider, r.status, r.cursor_at, dict(r.detail or {}),
                              r.started_at, r.finished_at, r.updated_at) for r in rows]

    async def claim_sync(self, owner: Owner, provider: str, now: datetime, *, lease_s: float
                         ) -> bool:
        """Single flight across processes: one conditional UPDATE marks the sync running
        unless another one is, with a lease renewed less than ``lease_s`` ago."""
        async with self._sessions() as session, session.begin():
            await session.execute(self._insert(SyncStateRow).values(
                user_id=owner.user_id, provider=provider, tenant_id=owner.tenant_id,
                status="idle", detail={}, updated_at=now,
            ).on_conflict_do_nothing(index_elements=["user_id", "provider"]))
            result = await session.execute(
                update(SyncStateRow)
                .where(SyncStateRow.user_id == owner.user_id, SyncStateRow.provider == provider,
                       or_(SyncStateRow.status != "running",
                           SyncStateRow.updated_at < now - timedelta(seconds=lease_s)))
                .values(status="running", started_at=now, finished_at=None, updated_at=now))
            return int(result.rowcount) == 1  # type: ignore[attr-defined]

    async def save_sync_state(self, owner: Owner, state: SyncState) -> None:
        values = {"status": state.status, "cursor_at": state.cursor_at,
                  "detail": state.detail, "started_at": state.started_at,
                  "finished_at": state.finished_at, "updated_at": state.updated_at}
        async with self._sessions() as session, session.begin():
            stmt = self._insert(SyncStateRow).values(
                user_id=owner.user_id, provider=state.provider, tenant_id=owner.tenant_id,
                **values)
            await session.execute(stmt.on_conflict_do_update(
                index_elements=["user_id", "provider"], set_=values))



__all__ = ["SqlAthleteRecords"]
