"""The import jobs of whole-account exports, on SQLAlchemy (table ``history_imports``).
As everywhere in the fitness store, every read a person can reach filters on their
user id: another person's import is not found (404), whatever its id."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.fitness._records import Owner
from pacekeeper.fitness._tables import HistoryImportRow

MAX_REJECTED = 500  # named in a report; the count goes on past it


def empty_report() -> dict[str, Any]:
    return {"imported": 0, "merged": 0, "duplicates": 0, "days": 0, "rejected": [],
            "rejected_total": 0}


@dataclass(slots=True)
class HistoryImport:
    id: uuid.UUID
    user_id: uuid.UUID
    tenant_id: uuid.UUID
    filename: str
    path: str
    size: int
    kind: str | None
    status: str
    done: int
    total: int
    report: dict[str, Any] = field(default_factory=empty_report)
    error: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def owner(self) -> Owner:
        return Owner(self.user_id, self.tenant_id)


def _record(row: HistoryImportRow) -> HistoryImport:
    return HistoryImport(row.id, row.user_id, row.tenant_id, row.filename, row.path, row.size,
                         row.kind, row.status, row.done, row.total,
                         {**empty_report(), **dict(row.report or {})}, row.error,
                         row.created_at, row.updated_at)


class SqlHistoryImports:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def add(self, job: HistoryImport) -> None:
        async with self._sessions() as session, session.begin():
            session.add(HistoryImportRow(
                id=job.id, user_id=job.user_id, tenant_id=job.tenant_id,
                filename=job.filename[-300:], path=job.path, size=job.size, kind=job.kind,
                status=job.status, done=job.done, total=job.total, report=job.report,
                error=job.error, created_at=job.created_at, updated_at=job.updated_at))

    async def get(self, user_id: uuid.UUID, import_id: uuid.UUID) -> HistoryImport | None:
        async with self._sessions() as session:
            row = (await session.execute(select(HistoryImportRow).where(
                HistoryImportRow.user_id == user_id, HistoryImportRow.id == import_id)
            )).scalar_one_or_none()
        return None if row is None else _record(row)

    async def unfinished(self, user_id: uuid.UUID) -> int:
        async with self._sessions() as session:
            return int((await session.execute(select(func.count()).where(
                HistoryImportRow.user_id == user_id,
                HistoryImportRow.status.in_(("queued", "running"))))).scalar_one())

    async def save(self, job: HistoryImport, now: datetime) -> None:
        job.updated_at = now
        async with self._sessions() as session, session.begin():
            await session.execute(update(HistoryImportRow).where(
                HistoryImportRow.user_id == job.user_id, HistoryImportRow.id == job.id
            ).values(kind=job.kind, status=job.status, done=job.done, total=job.total,
                     report=job.report, error=job.error, updated_at=now))


__all__ = ["MAX_REJECTED", "HistoryImport", "SqlHistoryImports", "empty_report"]
