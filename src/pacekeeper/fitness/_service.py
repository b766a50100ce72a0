"""The fitness service: what HTTP handlers, MCP tools, the CLI and sync call.

It parses files (in a worker process: decoding is CPU-bound and holds the GIL, so a
thread would stall the event loop just the same; ``pacekeeper.cpu``), de-duplicates across
sources, computes the per-activity metrics with the settings valid on the activity's day,
and reads everything back for one owner at a time.

De-duplication: the same source (a file's SHA-256, or a provider's activity id) is the
same activity. Otherwise an activity of another source is the same one when it starts
within ``MATCH_START_S`` and its elapsed time agrees within 5 % (or 60 s) or its distance
within 3 % (or 100 m). The activity keeps the richest streams (most channels with data,
then most samples) and remembers every source.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

from pacekeeper.cpu import Busy, CpuPool, WorkerCrashed
from pacekeeper.errors import RateLimited
from pacekeeper.fitness._edit import EDITED, check_edit
from pacekeeper.fitness._engine import ENGINE_VERSION
from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._parsed import summary_of
from pacekeeper.fitness._prepare import (
    Computed,
    Prepared,
    compute,
    prepare_file,
    prepare_member,
    reanalyze,
    snapshot,
)
from pacekeeper.fitness._records import (
    ActivityFilter,
    DailyHealth,
    NewActivity,
    Owner,
    Page,
    SettingValue,
    SourceRef,
    StoredActivity,
)
from pacekeeper.fitness._settings import (
    THRESHOLD_SPORTS,
    SettingsHistory,
    check_settings,
    day_in,
    for_sport,
    local_today,
    sport_values,
    zone_of,
)
from pacekeeper.fitness._store import BadCursor, DuplicateSource, SqlFitnessStore, load_of
from pacekeeper.fitness._terms import ProviderTerms, withheld_reason
from pacekeeper.fitness.analysis import AnalysisService
from pacekeeper.fitness.importers import ArchiveReader, ImportRejected, ParsedActivity, is_archive
from pacekeeper.fitness.streams import CHANNELS, StreamSet
from pacekeeper.ratelimit import RateLimiter

Clock = Callable[[], datetime]
T = TypeVar("T")
log = logging.getLogger("pacekeeper.fitness")
# Activities re-derived per batch (FitnessService.rederive): each batch is one query, and
# each activity its own transaction, so a crash loses at most the one being written.
REDERIVE_BATCH = 50
MATCH_START_S = 120.0
MAX_PAGE = 200


# Samples per streams answer (issue 28): by default at most DEFAULT_STREAM_POINTS
# (bucket means; a chart of any activity's length needs no more), and never more than
# MAX_STREAM_POINTS even when asked (a whole day at 1 Hz; the data export has them all).
DEFAULT_STREAM_POINTS = 2000
MAX_STREAM_POINTS = 86_400


def _shaped_streams(blob: bytes | None, keys: list[str] | None,
                    max_points: int | None) -> StreamSet:
    streams = StreamSet.from_bytes(blob) if blob else StreamSet.empty()
    if keys is not None:
        streams = streams.select(keys)
    return streams if max_points is None else streams.downsample(max_points)


@dataclass(frozen=True, slots=True)
class RederiveReport:
    """What a re-derivation did: files parsed again, metrics recomputed from streams
    (no file kept), files that no longer parse (kept as they were, stamped, flagged)."""

    reparsed: int = 0
    recomputed: int = 0
    failed: int = 0

    @property
    def total(self) -> int:
        return self.reparsed + self.recomputed + self.failed

    def __add__(self, other: RederiveReport) -> RederiveReport:
        return RederiveReport(self.reparsed + other.reparsed,
                              self.recomputed + other.recomputed, self.failed + other.failed)


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """One file's (or archive member's) result."""

    name: str | None
    activity: StoredActivity | None = None
    duplicate: bool = False
    merged: bool = False  # a new source of an activity another source brought
    rejected: ImportRejected | None = None
    warnings: tuple[str, ...] = ()  # the file was read in part (FIG-11)


def richness(streams: StreamSet) -> tuple[int, int]:
    return sum(1 for k in streams.keys if streams.has(k)), len(streams)


def _same_activity(a: StoredActivity, new: NewActivity) -> bool:
    elapsed_ok = abs(a.elapsed_s - new.elapsed_s) <= max(60.0, 0.05 * max(a.elapsed_s, 1.0))
    distance_ok = (
        a.distance_m is not None
        and new.distance_m is not None
        and abs(a.distance_m - new.distance_m) <= max(100.0, 0.03 * a.distance_m)
    )
    return elapsed_ok or distance_ok


class FitnessService(ProviderTerms):
    def __init__(self, store: SqlFitnessStore, clock: Clock, *, max_import_bytes: int,
                 limiter: RateLimiter | None = None, import_limit_per_minute: int = 30,
                 archive_seconds: float = 60.0, settings_limit_per_minute: int = 20,
                 pool: CpuPool | None = None) -> None:
        self.store = store
        # Where a file is parsed and analysed (issue 30): a bounded pool of processes;
        # by default none (a thread, as in tests and the CLI).
        self.pool = pool or CpuPool(0, 4, what="imports")
        self.clock = clock
        self.max_import_bytes = max_import_bytes
        # What one person's imports may cost (issue 28): files per minute, an archive the
        # whole minute's worth, and an archive's wall-clock time.
        self.limiter = limiter
        self.import_limit_per_minute = import_limit_per_minute
        self.archive_seconds = archive_seconds
        # Settings changes per minute: each may recompute every activity from its day on.
        self.settings_limit_per_minute = settings_limit_per_minute
        # Period and activity analysis over the stored metrics (the analysis tools).
        self.analysis = AnalysisService(store, clock)
        # Set by the service (pacekeeper.jobs): recompute after a settings change in a
        # background job (its id) instead of before answering.
        self.recompute_later: Callable[[Owner, date], Awaitable[int | None]] | None = None
        self.retention: dict[str, timedelta] = {}  # ProviderTerms: set by the wiring

    # -- getting data in ------------------------------------------------------------------

    async def import_file(self, owner: Owner, data: bytes, filename: str | None, *,
                          bounded: bool = True) -> list[ImportOutcome]:
        """One activity file (FIT, GPX, TCX, gzipped or not), or a Strava bulk-export zip
        (one outcome per member). A rejected single file raises ``ImportRejected``.
        ``bounded`` (HTTP, MCP): the person's import rate and the archive's time budget
        apply; the operator's CLI imports unbounded."""
        if len(data) > self.max_import_bytes:
            raise ImportRejected("too_large", f"the file is larger than the "
                                 f"{self.max_import_bytes // (1024 * 1024)} MB limit")
        archive = is_archive(data)
        if archive and not self.pool.has_room():
            raise self.pool.busy()  # before the person's allowance is charged: nothing spent
        if bounded:
            await self._meter_import(owner, archive)
        if archive:
            return await self._import_archive(owner, data, bounded)
        settings = await self.store.settings(owner.user_id)
        prepared = await self.pool.run(prepare_file, data, filename, self.max_import_bytes,
                                       settings)
        if prepared.rejected is not None:
            raise ImportRejected(*prepared.rejected)
        assert prepared.parsed is not None
        return [await self.store_parsed(owner, prepared.parsed, filename, original=data,
                                        computed=prepared.computed)]

    async def _import_archive(self, owner: Owner, data: bytes,
                              bounded: bool) -> list[ImportOutcome]:
        """A bulk export, one member at a time: its bytes inflated on a thread (zlib lets
        go of the GIL), parsed and analysed in the pool (issue 30), stored before the next
        is read, so memory holds one member's samples, never the whole archive's. The
        archive found the pool with room (else 429 before it started); when other imports
        fill it later, a member waits for a place within the archive's time budget, and
        the members past the budget are answered "import the archive again"."""
        reader = await asyncio.to_thread(
            ArchiveReader, data, max_bytes=self.max_import_bytes,
            max_seconds=self.archive_seconds if bounded else None)
        settings = await self.store.settings(owner.user_id)
        members = iter(reader)
        outcomes = []
        while (item := await asyncio.to_thread(next, members, None)) is not None:
            name, raw = item
            try:
                prepared = raw if isinstance(raw, ImportRejected) else await self.in_pool(
                    prepare_member, raw, name, self.max_import_bytes, settings,
                    late=reader.past_deadline)
            except WorkerCrashed:  # this member killed its worker: the others still go in
                prepared = ImportRejected("corrupt", "the file cannot be read as an activity")
            del raw, item  # its bytes go before the next member is read
            if prepared is None:
                outcomes.append(ImportOutcome(name, rejected=reader.late()))
            elif isinstance(prepared, ImportRejected):
                outcomes.append(ImportOutcome(name, rejected=prepared))
            elif prepared.parsed is None:
                reason, message = prepared.rejected or ("corrupt", "no activity in it")
                outcomes.append(ImportOutcome(name, rejected=ImportRejected(reason, message)))
            else:
                reader.took(prepared.parsed)
                outcomes.append(await self.store_parsed(owner, prepared.parsed, name,
                                                        original=None,
                                                        computed=prepared.computed))
            prepared = None
        return outcomes

    async def in_pool(self, fn: Callable[..., T], *args: Any,
                       late: Callable[[], bool] = lambda: False) -> T | None:
        """``fn`` in the pool for work nobody is waiting on at the door (an archive's
        next member, a sync, a recompute): a full pool means wait for a place, not 429;
        None once ``late()`` says the caller's budget is spent."""
        try:
            return await self.pool.run_when_free(fn, *args, late=late)
        except Busy:
            return None

    async def _meter_import(self, owner: Owner, archive: bool) -> None:
        """One import of the person's per-minute allowance; an archive takes all of it
        (it may run for ``archive_seconds``), so one person runs one archive at a time."""
        if self.limiter is None:
            return
        limit = self.import_limit_per_minute
        decision = await self.limiter.hit(f"import:{owner.user_id}", limit,
                                          limit if archive else 1)
        if not decision.allowed:
            raise RateLimited("too many imports; retry in a minute", headers=decision.headers())

    async def store_parsed(self, owner: Owner, parsed: ParsedActivity, name: str | None, *,
                           original: bytes | None,
                           computed: Computed | None = None) -> ImportOutcome:
        name = name.replace("\x00", "") if name else name  # PostgreSQL refuses NUL in text
        ref = SourceRef("file", file_sha256=parsed.sha256, file_format=parsed.format,
                        file_name=(name or "")[-300:] or None,
                        channels=richness(parsed.streams)[0], warnings=parsed.warnings)
        outcome = await self.ingest(owner, summary_of(parsed), parsed.streams, ref,
                                    original=original, name=name, computed=computed)
        return replace(outcome, warnings=parsed.warnings)

    async def ingest(self, owner: Owner, new: NewActivity, streams: StreamSet | None,
                     ref: SourceRef, *, original: bytes | None = None,
                     name: str | None = None,
                     computed: Computed | None = None) -> ImportOutcome:
        """Store an activity from any source, or recognise it (same source: duplicate;
        same activity from another source: merged, keeping the richest streams).
        ``computed``: the streams' blob and metrics, already worked out (``prepare_file``)."""
        now = self.clock()
        existing_id = await self.store.source_owner(owner.user_id, ref)
        if existing_id is not None:
            return ImportOutcome(name, await self._get(owner.user_id, existing_id),
                                 duplicate=True)
        streams = streams if streams is not None and len(streams) else None
        if computed is None:
            history = SettingsHistory(await self.store.settings(owner.user_id))
            # A provider's activity (sync): compressing and analysing its samples takes
            # tens of ms of CPU that holds the GIL, so in the pool, not on a thread.
            computed = await self.in_pool(compute, streams, new, history)
            assert computed is not None
        blob, metrics = computed.blob, computed.metrics
        channels = ",".join(k for k in streams.keys if streams.has(k)) if streams else ""
        samples = len(streams) if streams is not None else 0
        for candidate in await self.store.candidates(owner.user_id, new.start_at,
                                                     MATCH_START_S):
            if not _same_activity(candidate, new):
                continue
            richer = streams is not None and richness(streams) > (
                len(candidate.stream_channels), await self._samples(owner, candidate))
            try:
                # What the person set themselves (name, sport) stays theirs.
                kept = replace(new, **{f: getattr(candidate, f) for f in candidate.edited})
                await self.store.attach(
                    owner, candidate.id, ref, replace=kept if richer else None,
                    metrics=metrics if richer else None, streams=blob if richer else None,
                    stream_channels=channels, samples=samples, original=original, now=now,
                    ref_offset=new.utc_offset_s)
            except DuplicateSource as dup:
                return ImportOutcome(name, await self._get(owner.user_id, dup.activity_id),
                                     duplicate=True)
            if richer and "sport" in candidate.edited:  # metrics of the person's sport
                await self._refresh_metrics(owner, candidate.id)
            return ImportOutcome(name, await self._get(owner.user_id, candidate.id),
                                 merged=True)
        try:
            activity_id = await self.store.insert(
                owner, new, ref, metrics=metrics, streams=blob, stream_channels=channels,
                samples=samples, original=original, now=now)
        except DuplicateSource as dup:  # a concurrent import of the same file won
            return ImportOutcome(name, await self._get(owner.user_id, dup.activity_id),
                                 duplicate=True)
        return ImportOutcome(name, await self._get(owner.user_id, activity_id))

    async def _samples(self, owner: Owner, activity: StoredActivity) -> int:
        if not activity.stream_channels:
            return 0
        blob = await self.store.streams(owner.user_id, activity.id)
        # Decoding a long activity's samples takes milliseconds: not on the event loop.
        return await asyncio.to_thread(lambda: len(StreamSet.from_bytes(blob))) if blob else 0

    # -- reading it back ------------------------------------------------------------------

    async def _get(self, user_id: uuid.UUID, activity_id: uuid.UUID) -> StoredActivity:
        found = await self.store.get(user_id, activity_id)
        if found is None:
            raise ActivityNotFound("no such activity")
        return found

    async def get(self, owner: Owner, activity_id: uuid.UUID) -> StoredActivity:
        """The activity as ``owner`` may read it (an assistant: not one known only from
        a provider whose terms keep it from assistants; it is told why)."""
        found = await self.store.get(owner.user_id, activity_id, hide=owner.withheld)
        if found is not None:
            return found
        if owner.withheld and await self.store.get(owner.user_id, activity_id) is not None:
            raise ActivityNotFound(withheld_reason(owner.withheld, 1))
        raise ActivityNotFound("no such activity")

    async def page(self, owner: Owner, filters: ActivityFilter, *, limit: int = 50,
                   cursor: str | None = None) -> Page:
        if not 1 <= limit <= MAX_PAGE:
            raise FitnessInputError(f"limit must be between 1 and {MAX_PAGE}")
        if filters.text and "\x00" in filters.text:  # PostgreSQL refuses NUL in text
            raise FitnessInputError("text must not contain NUL characters")
        try:
            return await self.store.page(owner.user_id, filters, limit=limit, cursor=cursor,
                                         hide=owner.withheld)
        except BadCursor as exc:
            raise FitnessInputError(str(exc)) from None

    async def streams(self, owner: Owner, activity_id: uuid.UUID, *,
                      keys: list[str] | None = None, max_points: int | None = None
                      ) -> StreamSet:
        """The activity's samples, downsampled to at most `max_points` (2 to
        `MAX_STREAM_POINTS`; None, for the person's own data export only: every one)."""
        if keys is not None:
            unknown = [k for k in keys if k != "time" and k not in CHANNELS]
            if unknown:
                raise FitnessInputError(f"unknown stream {unknown[0]!r}; streams are "
                                        f"time, {', '.join(CHANNELS)}")
        if max_points is not None and not 2 <= max_points <= MAX_STREAM_POINTS:
            raise FitnessInputError(f"max_points must be between 2 and {MAX_STREAM_POINTS}")
        await self.get(owner, activity_id)  # 404 (or withheld) before "no streams"
        blob = await self.store.streams(owner.user_id, activity_id)
        # Decoding a long activity's grid (600,000 seconds for a 7-day GPX) and reducing it
        # takes tens of milliseconds: a worker thread's, not the event loop's (issue 28).
        return await asyncio.to_thread(_shaped_streams, blob, keys, max_points)

    async def edit(self, owner: Owner, activity_id: uuid.UUID, changes: Mapping[str, Any]
                   ) -> StoredActivity:
        """The person's own changes to an activity (``name``, ``sport``, ``description``,
        ``notes``; fitness/_edit.py checks them). A new sport computes the metrics again
        with that sport's thresholds (rTSS for a run, TSS for a ride...), so its load
        and the fitness chart follow. ``ActivityNotFound`` for another person's."""
        values = check_edit(changes)
        current = await self._get(owner.user_id, activity_id)
        edited = sorted(set(current.edited) | {k for k in values if k in EDITED})
        metrics = None
        if values.get("sport", current.sport) != current.sport:
            history = SettingsHistory(await self.store.settings(owner.user_id))
            metrics = await self._metrics_again(owner, activity_id, history,
                                                sport=values["sport"])
        if metrics is not None:
            values.update(metrics=metrics, load=load_of(metrics))
        if not await self.store.annotate(owner.user_id, activity_id,
                                         {**values, "edited": edited or None}, self.clock()):
            raise ActivityNotFound("no such activity")
        return await self._get(owner.user_id, activity_id)

    async def _refresh_metrics(self, owner: Owner, activity_id: uuid.UUID) -> None:
        history = SettingsHistory(await self.store.settings(owner.user_id))
        metrics = await self._metrics_again(owner, activity_id, history)
        if metrics is not None:
            await self.store.set_metrics(owner.user_id, activity_id, metrics, self.clock())

    async def delete(self, owner: Owner, activity_id: uuid.UUID) -> None:
        if not await self.store.delete(owner.user_id, activity_id):
            raise ActivityNotFound("no such activity")

    # -- athlete settings -----------------------------------------------------------------

    async def athlete(self, owner: Owner, *, on: date | None = None) -> dict[str, Any]:
        history = SettingsHistory(await self.store.settings(owner.user_id))
        day = on or local_today(history, self.clock())
        values = history.on(day)
        by_sport: dict[str, Any] = {}
        for sport in THRESHOLD_SPORTS:
            used, general = for_sport(values, sport)
            own = {k: v for k, v in used.items()
                   if k in ("ftp_watts", "lthr_bpm", "max_hr_bpm", "threshold_pace_s_per_km",
                            "threshold_pace_s_per_100m")}
            if general:
                own["from_general"] = general  # the sport has none of its own
            by_sport[sport] = own
        return {"settings": values, "by_sport": by_sport, "as_of": day.isoformat(),
                "history": history.history()}

    async def thresholds(self, owner: Owner, sport: str | None) -> dict[str, Any]:
        """Today's settings as an activity of ``sport`` uses them (``for_sport``); every
        setting under its own name without a sport."""
        values = SettingsHistory(await self.store.settings(owner.user_id)).on(
            self.clock().date())
        if sport is None:
            return values
        if sport not in THRESHOLD_SPORTS:
            raise FitnessInputError(f"sport must be one of {', '.join(THRESHOLD_SPORTS)}")
        return for_sport(values, sport)[0]

    async def update_athlete(self, owner: Owner, values: Mapping[str, Any],
                             valid_from: date | None = None, sport: str | None = None
                             ) -> dict[str, Any]:
        """Store settings valid from ``valid_from`` (today by default) and recompute the
        metrics of the activities on or after that day: in a background job when the
        service has a queue (the answer says ``"recomputing": true`` and from which day),
        otherwise before answering (``recomputed_activities``)."""
        if self.limiter is not None:
            decision = await self.limiter.hit(f"settings:{owner.user_id}",
                                              self.settings_limit_per_minute)
            if not decision.allowed:
                raise RateLimited("too many settings changes; retry in a minute",
                                  headers=decision.headers())
        try:
            checked = check_settings(sport_values(values, sport))
        except ValueError as exc:
            raise FitnessInputError(str(exc)) from None
        if valid_from is None:
            # Today: the earlier of UTC's date (the day an activity's settings are read
            # on) and the person's own (the day the answers are "as of"), so a value set
            # now holds for both; with the zone this call sets, if it sets one.
            now = self.clock()
            zone = (checked["time_zone"] if "time_zone" in checked else
                    zone_of(SettingsHistory(await self.store.settings(owner.user_id)), now))
            valid_from = min(now.astimezone(UTC).date(), day_in(zone, now))
        day = valid_from
        await self.store.set_settings(owner, checked, day, self.clock())
        if self.recompute_later is not None:
            job = await self.recompute_later(owner, day)
            return {**await self.athlete(owner), "recomputing": True,
                    "recompute_from": day.isoformat(), "recompute_job": job}
        recomputed = await self.recompute(owner, since=day)
        return {**await self.athlete(owner), "recomputed_activities": recomputed}

    async def recompute(self, owner: Owner, *, since: date | None = None) -> int:
        """Recompute every stored metric that depends on settings (from ``since`` on)."""
        history = SettingsHistory(await self.store.settings(owner.user_id))
        count = 0
        for activity_id in await self.store.activity_ids_since(owner.user_id, since):
            metrics = await self._metrics_again(owner, activity_id, history)
            if metrics is None:
                continue
            await self.store.set_metrics(owner.user_id, activity_id, metrics, self.clock())
            count += 1
        return count

    async def _metrics_again(self, owner: Owner, activity_id: uuid.UUID,
                             history: SettingsHistory, sport: str | None = None
                             ) -> dict[str, Any] | None:
        """The activity's metrics computed again from its stored streams, as an activity
        of ``sport`` (its own by default); None: it has none, or is gone."""
        activity = await self.store.get(owner.user_id, activity_id)
        blob = await self.store.streams(owner.user_id, activity_id)
        if activity is None or blob is None:
            return None
        sport = sport or activity.sport
        athlete = snapshot(history.on(activity.start_at.astimezone(UTC).date()), sport)
        # In the pool: a thread would hold the GIL for the analysis (issue 30).
        return await self.in_pool(reanalyze, blob, sport, athlete, activity.distance_m,
                                   activity.moving_s)

    # -- re-deriving after an upgrade (pacekeeper.fitness._engine) --------------------------

    async def rederive(self, owner: Owner, *, limit: int | None = None) -> RederiveReport:
        """Bring the person's activities computed by an older engine up to
        ``ENGINE_VERSION`` (docs/import.md, "Re-deriving after an upgrade"), at most
        ``limit`` of them (None: all), in batches of ``REDERIVE_BATCH``.

        An activity whose richest source is a kept original file is parsed again (in the
        import pool) and its summary, laps, structure, streams and metrics replaced; its
        id, name, sources and files stay. Otherwise (a provider's activity) its metrics
        are recomputed from its streams. Each is then stamped, so a second run finds
        nothing and a run cut short resumes where it stopped. A file that no longer
        parses keeps its figures and is stamped with the reason (``rederive_error``):
        not retried until the engine changes again."""
        report = RederiveReport()
        seen: set[uuid.UUID] = set()
        while limit is None or report.total < limit:
            size = REDERIVE_BATCH if limit is None else min(REDERIVE_BATCH,
                                                            limit - report.total)
            ids = await self.store.stale_ids(owner.user_id, ENGINE_VERSION, size)
            if not ids or seen.intersection(ids):  # one came back unstamped: never spin
                break
            seen.update(ids)
            settings = await self.store.settings(owner.user_id)
            for activity_id in ids:
                report += await self._rederive_one(owner, activity_id, settings)
        return report

    async def _rederive_one(self, owner: Owner, activity_id: uuid.UUID,
                            settings: list[SettingValue]) -> RederiveReport:
        user_id, now = owner.user_id, self.clock()
        activity = await self.store.get(user_id, activity_id)
        if activity is None:  # deleted meanwhile
            return RederiveReport()
        original = await self.store.original_of(user_id, activity_id)
        richest = max((ref.channels for ref in activity.sources), default=0)
        if original is None or original[2] < richest:
            # No file, or a provider brought the streams it keeps: its figures are the
            # provider's; the metrics are ours, computed again from the kept streams.
            metrics = await self._metrics_again(owner, activity_id, SettingsHistory(settings))
            await self.store.rederived(user_id, activity_id, version=ENGINE_VERSION, now=now,
                                       metrics=metrics)
            return RederiveReport(recomputed=1)
        file_name, data, _ = original
        try:  # people's imports come first: it waits for a free worker
            prepared = await self.in_pool(prepare_file, data, file_name,
                                           max(self.max_import_bytes, len(data)), settings)
        except Exception as exc:  # an importer bug (or a file that kills the worker)
            # must not stop the others, nor be retried at every start
            prepared = Prepared(rejected=("corrupt", f"the importer failed on it "
                                                     f"({type(exc).__name__})"))
        if prepared is None or prepared.rejected is not None or prepared.parsed is None:
            reason, message = (prepared and prepared.rejected) or ("corrupt", "no activity in it")
            log.warning("activity %s: its file no longer parses (%s); kept as it was",
                        activity_id, reason)
            await self.store.rederived(user_id, activity_id, version=ENGINE_VERSION, now=now,
                                       error=f"{reason}: {message}"[:300])
            return RederiveReport(failed=1)
        parsed, computed = prepared.parsed, prepared.computed
        assert computed is not None
        streams = parsed.streams if len(parsed.streams) else None
        new = summary_of(parsed)
        if "sport" in activity.edited:  # the person's sport, not the file's
            new = replace(new, sport=activity.sport)
        await self.store.rederived(
            user_id, activity_id, version=ENGINE_VERSION, now=now, new=new,
            metrics=computed.metrics, streams=computed.blob,
            stream_channels=",".join(k for k in streams.keys if streams.has(k))
            if streams else "",
            samples=len(streams) if streams is not None else 0)
        if "sport" in activity.edited:
            await self._refresh_metrics(owner, activity_id)
        return RederiveReport(reparsed=1)

    async def rederive_all(self, *, per_owner: int | None = None) -> RederiveReport:
        """``rederive`` for every person with activities of an older engine, one person
        at a time (``per_owner``: at most that many of each, for a bounded job)."""
        report = RederiveReport()
        for owner in await self.store.stale_owners(ENGINE_VERSION):
            report += await self.rederive(owner, limit=per_owner)
        return report

    # -- daily health -----------------------------------------------------------------------

    async def daily(self, owner: Owner, start: date, end: date) -> list[DailyHealth]:
        if end < start:
            raise FitnessInputError("'to' must not be before 'from'")
        if (end - start).days > 3660:
            raise FitnessInputError("ask for at most ten years of days at once")
        return await self.store.daily(owner.user_id, start, end, hide=owner.withheld)

    async def delete_provider_data(self, owner: Owner, provider: str) -> int:
        return await self.store.delete_provider_data(owner.user_id, provider)


__all__ = ["FitnessService", "ImportOutcome", "RederiveReport", "prepare_file", "richness",
           "snapshot", "summary_of"]
