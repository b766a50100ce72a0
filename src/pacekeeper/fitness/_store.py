"""The fitness store on SQLAlchemy (SQLite and PostgreSQL).

Every method takes the owner's user id and puts it in the WHERE clause of every
statement: the store has no "by id alone" path, so no caller can read, change or delete
another person's rows by guessing an id.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Sequence
from dataclasses import fields
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, cast

import orjson
from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import defer

from pacekeeper.db import epoch_seconds
from pacekeeper.errors import PacekeeperError
from pacekeeper.fitness._engine import ENGINE_VERSION
from pacekeeper.fitness._gear import default_gear
from pacekeeper.fitness._records import (
    HEADLINE_METRICS,
    ActivityFilter,
    NewActivity,
    Owner,
    Page,
    PeriodRow,
    SourceRef,
    StoredActivity,
)
from pacekeeper.fitness._store_athlete import SqlAthleteRecords
from pacekeeper.fitness._store_terms import _NONE, Hide, SqlTermsRecords, delete_children, shown
from pacekeeper.fitness._tables import (
    ActivityFileRow,
    ActivityRow,
    ActivitySourceRow,
    ActivityStreamRow,
    AthleteSettingRow,
    DailyHealthRow,
    SyncStateRow,
)
from pacekeeper.fitness.summary import summary_values

_NEW_FIELDS = tuple(f.name for f in fields(NewActivity) if f.metadata.get("column", True))
_HEADLINE_COLUMNS = tuple(
    ActivityRow.metrics[k].as_string() if k == "load_method" else ActivityRow.metrics[k].as_float()
    for k in HEADLINE_METRICS
)


def load_of(metrics: dict[str, Any]) -> float | None:
    """``metrics["load"]`` for the ``activities.load`` column (None when absent)."""
    value = metrics.get("load")
    return float(value) if isinstance(value, int | float) else None


class BadCursor(PacekeeperError, ValueError):
    pass


class DuplicateSource(PacekeeperError):
    """The source (file digest, or provider activity) is already stored for this person."""

    def __init__(self, activity_id: uuid.UUID) -> None:
        super().__init__(str(activity_id))
        self.activity_id = activity_id


def encode_cursor(start_at: datetime, activity_id: uuid.UUID) -> str:
    raw = orjson.dumps([start_at.isoformat(), str(activity_id)])
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        start, ident = orjson.loads(raw)
        if not isinstance(start, str) or not isinstance(ident, str):
            raise TypeError("not two strings")  # uuid.UUID(5) raises AttributeError
        moment = datetime.fromisoformat(start)
        if moment.tzinfo is None:
            raise ValueError("naive")
        return moment.astimezone(UTC), uuid.UUID(ident)
    except (ValueError, TypeError, OverflowError, orjson.JSONDecodeError):
        raise BadCursor("cursor is not one this server gave out") from None


def _source(row: ActivitySourceRow) -> SourceRef:
    return SourceRef(row.kind, row.provider, row.provider_activity_id, row.file_sha256,
                     row.file_format, row.file_name, row.channels,
                     tuple(str(w) for w in row.warnings or ()))


def _activity(row: ActivityRow, sources: Sequence[SourceRef], channels: str | None,
              headline: dict[str, Any] | None = None) -> StoredActivity:
    """A record of a row; with ``headline``, a list's row whose JSON columns were not
    read (its metrics are the headline ones, laps and device figures empty)."""
    return StoredActivity(
        id=row.id, user_id=row.user_id, sport=row.sport, source_sport=row.source_sport,
        name=row.name, start_at=row.start_at, utc_offset_s=row.utc_offset_s,
        **summary_values(row), device_name=row.device_name,
        laps=[] if headline is not None else list(row.laps or []),
        metrics=headline if headline is not None else dict(row.metrics or {}),
        device_metrics={} if headline is not None else dict(row.device_metrics or {}),
        structure={} if headline is not None else dict(row.structure or {}),
        sources=tuple(sources),
        stream_channels=tuple(channels.split(",")) if channels else (),
        created_at=row.created_at, updated_at=row.updated_at,
        engine_version=row.engine_version, rederive_error=row.rederive_error,
        description=row.description, gear=row.gear, commute=row.commute,
        notes=row.notes, edited=tuple(row.edited or ()), gear_id=row.gear_id,
    )  # fmt: skip


class SqlFitnessStore(SqlTermsRecords, SqlAthleteRecords):
    """Activities (their sources, files, streams and metrics) here; a person's goals,
    settings, daily health and sync state in ``SqlAthleteRecords`` (_store_athlete.py);
    what the providers' terms ask of them in ``SqlTermsRecords`` (_store_terms.py)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        super().__init__(sessions)

    # -- activities -------------------------------------------------------------------

    async def _hydrate(self, session: AsyncSession, rows: Sequence[ActivityRow],
                       headlines: Sequence[dict[str, Any]] | None = None,
                       channels: dict[uuid.UUID, str | None] | None = None
                       ) -> list[StoredActivity]:
        if not rows:
            return []
        ids = [r.id for r in rows]
        user = rows[0].user_id
        sources: dict[uuid.UUID, list[SourceRef]] = {i: [] for i in ids}
        result = await session.execute(
            select(ActivitySourceRow)
            .where(ActivitySourceRow.user_id == user, ActivitySourceRow.activity_id.in_(ids))
            .order_by(ActivitySourceRow.created_at)
        )
        for src in result.scalars():
            sources[src.activity_id].append(_source(src))
        if channels is None:
            channels = dict(
                (await session.execute(
                    select(ActivityStreamRow.activity_id, ActivityStreamRow.channels).where(
                        ActivityStreamRow.user_id == user,
                        ActivityStreamRow.activity_id.in_(ids))
                )).all()
            )  # fmt: skip
        return [_activity(r, sources[r.id], channels.get(r.id),
                          headlines[i] if headlines is not None else None)
                for i, r in enumerate(rows)]

    async def get(self, user_id: uuid.UUID, activity_id: uuid.UUID, *, hide: Hide = _NONE
                  ) -> StoredActivity | None:
        async with self._reads() as session:
            row = (await session.execute(
                select(ActivityRow).where(ActivityRow.user_id == user_id,
                                          ActivityRow.id == activity_id, shown(user_id, hide))
            )).scalar_one_or_none()  # fmt: skip
            if row is None:
                return None
            return (await self._hydrate(session, [row]))[0]

    async def page(self, user_id: uuid.UUID, filters: ActivityFilter, *, limit: int,
                   cursor: str | None = None, hide: Hide = _NONE) -> Page:
        # A list reads the headline metrics out of the JSON in the database, not the
        # whole document (curves and zones make it ~5 KB a row).
        # The streams' channel names come in the same statement (one round trip less).
        stmt = (select(ActivityRow, ActivityStreamRow.channels, *_HEADLINE_COLUMNS)
                .options(defer(ActivityRow.metrics), defer(ActivityRow.laps),
                         defer(ActivityRow.device_metrics), defer(ActivityRow.structure))
                .outerjoin(ActivityStreamRow, and_(ActivityStreamRow.activity_id == ActivityRow.id,
                                                   ActivityStreamRow.user_id == user_id))
                .where(ActivityRow.user_id == user_id, shown(user_id, hide)))
        if filters.sport:
            stmt = stmt.where(ActivityRow.sport == filters.sport)
        if filters.after:
            stmt = stmt.where(ActivityRow.start_at >= filters.after)
        if filters.before:
            stmt = stmt.where(ActivityRow.start_at < filters.before)
        if filters.text:
            stmt = stmt.where(func.lower(ActivityRow.name).contains(filters.text.lower(),
                                                                    autoescape=True))
        if cursor:
            start, ident = decode_cursor(cursor)
            stmt = stmt.where(or_(ActivityRow.start_at < start,
                                  and_(ActivityRow.start_at == start, ActivityRow.id < ident)))
        stmt = stmt.order_by(ActivityRow.start_at.desc(), ActivityRow.id.desc()).limit(limit + 1)
        async with self._reads() as session:
            found = (await session.execute(stmt)).all()
            more = len(found) > limit
            found = found[:limit]
            rows = [r[0] for r in found]
            headlines = [{k: v for k, v in zip(HEADLINE_METRICS, r[2:], strict=True)}
                         for r in found]
            channels = {r[0].id: r[1] for r in found}
            items = await self._hydrate(session, rows, headlines, channels)
        next_cursor = encode_cursor(rows[-1].start_at, rows[-1].id) if more else None
        return Page(items, next_cursor)

    async def candidates(self, user_id: uuid.UUID, start_at: datetime, window_s: float
                         ) -> list[StoredActivity]:
        """Activities starting within ``window_s`` of ``start_at`` (de-duplication)."""
        delta = timedelta(seconds=window_s)
        async with self._sessions() as session:
            rows = list((await session.execute(
                select(ActivityRow).where(
                    ActivityRow.user_id == user_id,
                    ActivityRow.start_at >= start_at - delta,
                    ActivityRow.start_at <= start_at + delta,
                )
            )).scalars())  # fmt: skip
            return await self._hydrate(session, rows)

    async def source_owner(self, user_id: uuid.UUID, ref: SourceRef) -> uuid.UUID | None:
        """The activity that already has this source, if any."""
        stmt = select(ActivitySourceRow.activity_id).where(ActivitySourceRow.user_id == user_id)
        if ref.kind == "file":
            stmt = stmt.where(ActivitySourceRow.file_sha256 == ref.file_sha256)
        else:
            stmt = stmt.where(ActivitySourceRow.provider == ref.provider,
                              ActivitySourceRow.provider_activity_id == ref.provider_activity_id)
        async with self._sessions() as session:
            return (await session.execute(stmt)).scalar_one_or_none()

    def _source_row(self, owner: Owner, activity_id: uuid.UUID, ref: SourceRef,
                    now: datetime) -> ActivitySourceRow:
        return ActivitySourceRow(
            id=uuid.uuid4(), activity_id=activity_id, user_id=owner.user_id, kind=ref.kind,
            provider=ref.provider, provider_activity_id=ref.provider_activity_id,
            file_sha256=ref.file_sha256, file_format=ref.file_format, file_name=ref.file_name,
            channels=ref.channels, warnings=list(ref.warnings) or None, created_at=now,
        )  # fmt: skip

    async def insert(self, owner: Owner, new: NewActivity, ref: SourceRef, *,
                     metrics: dict[str, Any], streams: bytes | None, stream_channels: str,
                     samples: int, original: bytes | None, now: datetime) -> uuid.UUID:
        """A new activity with its first source (and streams, and the original file).
        ``DuplicateSource`` when a concurrent call stored the same source first."""
        activity_id = uuid.uuid4()
        values = {name: getattr(new, name) for name in _NEW_FIELDS}
        async with self._sessions() as session:
            try:
                async with session.begin():
                    session.add(ActivityRow(id=activity_id, user_id=owner.user_id,
                                            tenant_id=owner.tenant_id, metrics=metrics,
                                            load=load_of(metrics),
                                            engine_version=ENGINE_VERSION,
                                            gear_id=default_gear(owner.user_id, new.sport),
                                            created_at=now, updated_at=now, **values))
                    await session.flush()
                    source = self._source_row(owner, activity_id, ref, now)
                    session.add(source)
                    await session.flush()
                    if streams is not None:
                        session.add(ActivityStreamRow(
                            activity_id=activity_id, user_id=owner.user_id, samples=samples,
                            channels=stream_channels, data=streams))
                    if original is not None:
                        session.add(ActivityFileRow(source_id=source.id,
                                                    user_id=owner.user_id, data=original))
            except IntegrityError:
                existing = await self.source_owner(owner.user_id, ref)
                if existing is None:
                    raise
                raise DuplicateSource(existing) from None
        return activity_id

    async def attach(self, owner: Owner, activity_id: uuid.UUID, ref: SourceRef, *,
                     replace: NewActivity | None, metrics: dict[str, Any] | None,
                     streams: bytes | None, stream_channels: str, samples: int,
                     original: bytes | None, now: datetime,
                     ref_offset: int | None = None) -> None:
        """Remember another source of an existing activity; with ``replace``, its summary
        and streams become the new source's (it brought richer streams); without it,
        ``ref_offset`` (the new source's UTC offset) fills in a missing one."""
        async with self._sessions() as session:
            try:
                async with session.begin():
                    source = self._source_row(owner, activity_id, ref, now)
                    session.add(source)
                    await session.flush()
                    if original is not None:
                        session.add(ActivityFileRow(source_id=source.id,
                                                    user_id=owner.user_id, data=original))
                    if replace is not None:
                        # The richer source's summary, but what it does not know (an
                        # offset, a figure) stays as the activity had it, and so does a
                        # name the person or the provider gave over one we made up.
                        values = {name: value for name in _NEW_FIELDS
                                  if (value := getattr(replace, name)) is not None
                                  and not (name == "structure" and not value)}
                        if replace.name_generated:
                            values.pop("name", None)
                        await session.execute(
                            update(ActivityRow)
                            .where(ActivityRow.user_id == owner.user_id,
                                   ActivityRow.id == activity_id)
                            .values(**values, metrics=metrics or {},
                                    load=load_of(metrics or {}),
                                    engine_version=ENGINE_VERSION, updated_at=now))
                    elif ref_offset is not None:
                        # Not richer, but it knows where the activity was: the offset
                        # fills in one the activity lacked (a file without one).
                        await session.execute(
                            update(ActivityRow)
                            .where(ActivityRow.user_id == owner.user_id,
                                   ActivityRow.id == activity_id,
                                   ActivityRow.utc_offset_s.is_(None))
                            .values(utc_offset_s=ref_offset, updated_at=now))
                    if streams is not None:
                        await session.execute(delete(ActivityStreamRow).where(
                            ActivityStreamRow.user_id == owner.user_id,
                            ActivityStreamRow.activity_id == activity_id))
                        session.add(ActivityStreamRow(
                            activity_id=activity_id, user_id=owner.user_id, samples=samples,
                            channels=stream_channels, data=streams))
            except IntegrityError:
                existing = await self.source_owner(owner.user_id, ref)
                if existing is None:
                    raise
                raise DuplicateSource(existing) from None

    async def update_summary(self, user_id: uuid.UUID, activity_id: uuid.UUID,
                             new: NewActivity, now: datetime) -> None:
        values = {name: getattr(new, name) for name in _NEW_FIELDS}
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ActivityRow)
                .where(ActivityRow.user_id == user_id, ActivityRow.id == activity_id)
                .values(**values, updated_at=now))

    async def annotate(self, user_id: uuid.UUID, activity_id: uuid.UUID, values: dict[str, Any],
                       now: datetime) -> bool:
        """What an export's listing says of an activity (name, description, gear,
        commute: fitness/exports), over what its file said; or the person's own edit
        (FitnessService.edit). False when the activity is not theirs."""
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                update(ActivityRow)
                .where(ActivityRow.user_id == user_id, ActivityRow.id == activity_id)
                .values(**values, updated_at=now))
            return int(result.rowcount) == 1  # type: ignore[attr-defined]

    async def set_metrics(self, user_id: uuid.UUID, activity_id: uuid.UUID,
                          metrics: dict[str, Any], now: datetime) -> None:
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ActivityRow)
                .where(ActivityRow.user_id == user_id, ActivityRow.id == activity_id)
                .values(metrics=metrics, load=load_of(metrics), updated_at=now))

    async def streams(self, user_id: uuid.UUID, activity_id: uuid.UUID) -> bytes | None:
        async with self._sessions() as session:
            return (await session.execute(
                select(ActivityStreamRow.data).where(
                    ActivityStreamRow.user_id == user_id,
                    ActivityStreamRow.activity_id == activity_id)
            )).scalar_one_or_none()  # fmt: skip

    async def delete(self, user_id: uuid.UUID, activity_id: uuid.UUID) -> bool:
        """The activity, its sources, original files and streams (one transaction)."""
        async with self._sessions() as session, session.begin():
            await delete_children(session, user_id, [activity_id])
            result = await session.execute(delete(ActivityRow).where(
                ActivityRow.user_id == user_id, ActivityRow.id == activity_id))
            return int(result.rowcount) == 1  # type: ignore[attr-defined]

    async def delete_provider_data(self, user_id: uuid.UUID, provider: str) -> int:
        """Forget what one provider brought: its sources, and the activities that had
        no other source. Returns how many activities were deleted."""
        async with self._sessions() as session, session.begin():
            mine = select(ActivitySourceRow.activity_id).where(
                ActivitySourceRow.user_id == user_id, ActivitySourceRow.provider == provider)
            others = select(ActivitySourceRow.activity_id).where(
                ActivitySourceRow.user_id == user_id,
                or_(ActivitySourceRow.provider.is_(None),
                    ActivitySourceRow.provider != provider))
            only = list((await session.execute(
                select(ActivityRow.id).where(ActivityRow.user_id == user_id,
                                             ActivityRow.id.in_(mine),
                                             ActivityRow.id.not_in(others))
            )).scalars())  # fmt: skip
            await session.execute(delete(ActivitySourceRow).where(
                ActivitySourceRow.user_id == user_id, ActivitySourceRow.provider == provider))
            if only:
                await delete_children(session, user_id, only)
                await session.execute(delete(ActivityRow).where(
                    ActivityRow.user_id == user_id, ActivityRow.id.in_(only)))
            await session.execute(delete(DailyHealthRow).where(
                DailyHealthRow.user_id == user_id, DailyHealthRow.source == provider))
            await session.execute(delete(SyncStateRow).where(
                SyncStateRow.user_id == user_id, SyncStateRow.provider == provider))
            return len(only)

    async def activity_ids_since(self, user_id: uuid.UUID, since: date | None
                                 ) -> list[uuid.UUID]:
        stmt = select(ActivityRow.id).where(ActivityRow.user_id == user_id)
        if since is not None:
            stmt = stmt.where(ActivityRow.start_at >= datetime.combine(since, time.min, UTC))
        async with self._sessions() as session:
            return list((await session.execute(stmt)).scalars())

    # -- re-deriving after an upgrade (FitnessService.rederive) -----------------------

    @staticmethod
    def _older(version: int) -> Any:
        return or_(ActivityRow.engine_version.is_(None), ActivityRow.engine_version < version)

    async def stale_owners(self, version: int) -> list[Owner]:
        """Whose activities were computed by an engine older than ``version``: the
        owners only (each is then re-derived on its own, every query by owner)."""
        async with self._sessions() as session:
            rows = await session.execute(
                select(ActivityRow.user_id, ActivityRow.tenant_id)
                .where(self._older(version)).distinct())
            return [Owner(user_id, tenant_id) for user_id, tenant_id in rows.all()]

    async def stale_ids(self, user_id: uuid.UUID, version: int, limit: int
                        ) -> list[uuid.UUID]:
        """Up to ``limit`` of the person's activities of an older engine, oldest first."""
        async with self._sessions() as session:
            return list((await session.execute(
                select(ActivityRow.id)
                .where(ActivityRow.user_id == user_id, self._older(version))
                .order_by(ActivityRow.start_at, ActivityRow.id).limit(limit)
            )).scalars())  # fmt: skip

    async def original_of(self, user_id: uuid.UUID, activity_id: uuid.UUID
                          ) -> tuple[str | None, bytes, int] | None:
        """The stored original file of the activity's richest file source: (file name,
        bytes, the channels it brought); None when no file of it was kept."""
        async with self._sessions() as session:
            row = (await session.execute(
                select(ActivitySourceRow.file_name, ActivityFileRow.data,
                       ActivitySourceRow.channels)
                .join(ActivityFileRow, ActivityFileRow.source_id == ActivitySourceRow.id)
                .where(ActivitySourceRow.user_id == user_id,
                       ActivityFileRow.user_id == user_id,
                       ActivitySourceRow.activity_id == activity_id)
                .order_by(ActivitySourceRow.channels.desc(), ActivitySourceRow.created_at)
                .limit(1))).first()  # fmt: skip
            return None if row is None else (row[0], bytes(row[1]), int(row[2]))

    async def rederived(self, user_id: uuid.UUID, activity_id: uuid.UUID, *,
                        version: int, now: datetime, new: NewActivity | None = None,
                        metrics: dict[str, Any] | None = None, streams: bytes | None = None,
                        stream_channels: str = "", samples: int = 0,
                        error: str | None = None) -> None:
        """Stamp the activity with ``version``, replacing what was computed again in one
        transaction: with ``new`` its summary (never its name: the person's or the
        provider's stays, and so do its id, sources and files) and its streams; with
        ``metrics`` its metrics. ``error``: why its file could not be read again."""
        values: dict[str, Any] = {"engine_version": version, "rederive_error": error,
                                  "updated_at": now}
        if new is not None:
            values.update({name: getattr(new, name) for name in _NEW_FIELDS
                           if name != "name"})
        if metrics is not None:
            values.update(metrics=metrics, load=load_of(metrics))
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ActivityRow)
                .where(ActivityRow.user_id == user_id, ActivityRow.id == activity_id)
                .values(**values))
            if new is not None:  # the file's streams, as a fresh import would keep them
                await session.execute(delete(ActivityStreamRow).where(
                    ActivityStreamRow.user_id == user_id,
                    ActivityStreamRow.activity_id == activity_id))
            if new is not None and streams is not None:
                session.add(ActivityStreamRow(
                    activity_id=activity_id, user_id=user_id, samples=samples,
                    channels=stream_channels, data=streams))

    async def originals(self, user_id: uuid.UUID) -> list[tuple[str, str | None, bytes]]:
        """Every imported file of the person: (sha256, file name, bytes)."""
        async with self._sessions() as session:
            rows = await session.execute(
                select(ActivitySourceRow.file_sha256, ActivitySourceRow.file_name,
                       ActivityFileRow.data)
                .join(ActivityFileRow, ActivityFileRow.source_id == ActivitySourceRow.id)
                .where(ActivitySourceRow.user_id == user_id,
                       ActivityFileRow.user_id == user_id))
            return [(str(sha), name, bytes(data)) for sha, name, data in rows.all()]

    # -- period questions (pacekeeper.fitness.analysis) -----------------------------------

    async def load_points(self, user_id: uuid.UUID, start: datetime, end: datetime, *,
                          hide: Hide = _NONE) -> list[tuple[int, float]]:
        """(local start in whole seconds since the epoch, load) of the activities with a
        load starting in [start, end): the daily load series reads two numbers per
        activity (``activities.load``, the start as an integer computed by the database:
        no datetime per row)."""
        local = epoch_seconds(ActivityRow.start_at) + func.coalesce(ActivityRow.utc_offset_s, 0)
        async with self._reads() as session:
            rows = await session.execute(
                select(local, ActivityRow.load)
                .where(ActivityRow.user_id == user_id, ActivityRow.start_at >= start,
                       ActivityRow.start_at < end, ActivityRow.load.is_not(None),
                       shown(user_id, hide)))
            # Plain tuples (not Row objects) for numpy; load is not null by the WHERE.
            return cast(list[tuple[int, float]], [tuple(r) for r in rows])

    async def count_without_load(self, user_id: uuid.UUID, start: datetime, end: datetime,
                                 *, hide: Hide = _NONE) -> int:
        """Activities starting in [start, end) with no training load (no threshold to
        measure them against): a chart of zeros must say why."""
        async with self._reads() as session:
            return int(await session.scalar(
                select(func.count()).select_from(ActivityRow)
                .where(ActivityRow.user_id == user_id, ActivityRow.start_at >= start,
                       ActivityRow.start_at < end, ActivityRow.load.is_(None),
                       shown(user_id, hide))) or 0)

    async def first_load_start(self, user_id: uuid.UUID, *, hide: Hide = _NONE
                               ) -> datetime | None:
        """The start of the person's first activity with a load: where their training
        load history, and so the PMC, begins (one index lookup)."""
        async with self._reads() as session:
            found = await session.scalar(
                select(func.min(ActivityRow.start_at))
                .where(ActivityRow.user_id == user_id, ActivityRow.load.is_not(None),
                       shown(user_id, hide)))
            if found is None:
                return None
            return found if found.tzinfo else found.replace(tzinfo=UTC)

    async def latest_offset(self, user_id: uuid.UUID, since: datetime, before: datetime, *,
                            hide: Hide = _NONE) -> int | None:
        """The UTC offset (s) of the person's latest activity started in [since, before)
        with one: where they were last, for their own "today"."""
        async with self._reads() as session:
            found = await session.scalar(
                select(ActivityRow.utc_offset_s)
                .where(ActivityRow.user_id == user_id, ActivityRow.start_at >= since,
                       ActivityRow.start_at < before, ActivityRow.utc_offset_s.is_not(None),
                       shown(user_id, hide))
                .order_by(ActivityRow.start_at.desc()).limit(1))
            return None if found is None else int(found)

    async def period_rows(self, user_id: uuid.UUID, start: datetime, end: datetime,
                          keys: Sequence[str], *, sport: str | None = None,
                          limit: int | None = None, hide: Hide = _NONE) -> list[PeriodRow]:
        """The activities starting in [start, end), oldest first, with the summary
        columns and only the named members of their stored metrics (extracted by the
        database: the rest of each metrics JSON never reaches Python)."""
        parts = [ActivityRow.metrics[k].label(f"m_{i}") for i, k in enumerate(keys)]
        has_streams = select(ActivityStreamRow.activity_id).where(
            ActivityStreamRow.user_id == user_id,
            ActivityStreamRow.activity_id == ActivityRow.id).exists()
        stmt = (select(ActivityRow.id, ActivityRow.start_at, ActivityRow.utc_offset_s,
                       ActivityRow.sport, ActivityRow.name, ActivityRow.elapsed_s,
                       ActivityRow.moving_s, ActivityRow.distance_m, ActivityRow.load,
                       ActivityRow.updated_at, has_streams.label("has_streams"), *parts)
                .where(ActivityRow.user_id == user_id, ActivityRow.start_at >= start,
                       ActivityRow.start_at < end, shown(user_id, hide))
                .order_by(ActivityRow.start_at, ActivityRow.id))
        if sport:
            stmt = stmt.where(ActivityRow.sport == sport)
        if limit:
            stmt = stmt.limit(limit)
        async with self._reads() as session:
            rows = (await session.execute(stmt)).all()
        return [PeriodRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                          bool(r[10]), {k: r[11 + i] for i, k in enumerate(keys)})
                for r in rows]

    async def stale_activities(self, user_id: uuid.UUID, *, hide: Hide = _NONE) -> int:
        """Activities with streams whose metrics predate a setting valid on their day
        (stored after their last computation): a recomputation has yet to reach them."""
        async with self._reads() as session:
            newest = (await session.execute(
                select(func.max(AthleteSettingRow.created_at))
                .where(AthleteSettingRow.user_id == user_id))).scalar_one_or_none()
            if newest is None:  # no setting ever stored: nothing can predate one
                return 0
            later = select(AthleteSettingRow.field).where(
                AthleteSettingRow.user_id == user_id,
                AthleteSettingRow.created_at > ActivityRow.updated_at,
                AthleteSettingRow.valid_from <= func.date(ActivityRow.start_at)).exists()
            streams = select(ActivityStreamRow.activity_id).where(
                ActivityStreamRow.user_id == user_id,
                ActivityStreamRow.activity_id == ActivityRow.id).exists()
            return int((await session.execute(
                select(func.count()).select_from(ActivityRow).where(
                    ActivityRow.user_id == user_id, ActivityRow.updated_at < newest,
                    later, streams, shown(user_id, hide)))).scalar_one())


__all__ = ["BadCursor", "DuplicateSource", "Hide", "SqlFitnessStore", "decode_cursor",
           "encode_cursor", "load_of", "shown"]
