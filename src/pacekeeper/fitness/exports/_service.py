"""Whole-account exports in (issue 31 item 3): an upload streamed to a file under the
data dir, then worked through by a background job, one unit at a time.

- Memory: the upload is written as it arrives; the archive is read from disk member by
  member (each bounded as the archive rules say: ``importers._archive``); Apple's
  ``export.xml`` is scanned as a stream (``_apple``). Nothing holds the whole export.
- Resumable: the job saves ``done`` (and the report) after every unit; a job that runs
  again after a restart skips the units done. De-duplication is the service's own
  (``FitnessService.ingest``): a unit done twice is a duplicate, never a second copy.
- CPU: every parse runs in the import pool (``FitnessService.in_pool``), one call at a
  time per import, and the queue runs one import per person at a time (its lock).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import uuid
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pacekeeper.cpu import WorkerCrashed
from pacekeeper.errors import ApiError, PacekeeperError
from pacekeeper.fitness._prepare import Prepared, prepare_file, prepare_member
from pacekeeper.fitness._records import Owner, SourceRef
from pacekeeper.fitness._service import FitnessService, ImportOutcome
from pacekeeper.fitness.exports._apple import AppleScan, Workout, workout_summary
from pacekeeper.fitness.exports._layout import (
    Kind,
    Unit,
    apple_xml,
    detect,
    nested_zips,
    plan,
)
from pacekeeper.fitness.exports._records import (
    MAX_REJECTED,
    HistoryImport,
    SqlHistoryImports,
    empty_report,
)
from pacekeeper.fitness.exports._strava import CSV_NAME, read_listing
from pacekeeper.fitness.exports._work import health_days, scan_apple
from pacekeeper.fitness.importers import DEFAULT_MAX_ARCHIVE_TOTAL, ImportRejected
from pacekeeper.fitness.importers._archive import is_zip, read_member
from pacekeeper.fitness.models import Sport

log = logging.getLogger("pacekeeper.fitness.exports")
WRITE_CHUNK: Final = 1 << 20
# An Apple export.xml may inflate this much past its archive's size (text compresses
# about 20:1), and never past APPLE_XML_MAX.
APPLE_RATIO: Final = 40
APPLE_XML_MAX: Final = 64 * 1024 ** 3
# Files an export's archive may list: zipfile holds its whole central directory (about
# half a KB a file); ten years of Google Takeout day files and Apple routes are far fewer.
MAX_ENTRIES: Final = 500_000
# Imports one person may have waiting or running at once.
MAX_UNFINISHED: Final = 3

Clock = Callable[[], datetime]


class ImportNotFound(ApiError):
    status = 404
    code = "not_found"


class _Failed(PacekeeperError):
    """The export as a whole cannot be read (the job ends ``failed`` with this)."""


class ExportImports:
    def __init__(self, fitness: FitnessService, store: SqlHistoryImports, clock: Clock, *,
                 data_dir: Path, max_bytes: int,
                 enqueue: Callable[[HistoryImport], Awaitable[Any]] | None = None,
                 publish: Callable[[uuid.UUID, dict[str, Any]], Awaitable[Any]] | None = None
                 ) -> None:
        self.fitness, self.store, self.clock = fitness, store, clock
        self.folder = data_dir / "imports"
        self.max_bytes = max_bytes
        self.enqueue = enqueue  # set by the service: queue the job (pacekeeper.jobs)
        self.publish = publish  # the person's live panel

    # -- receiving ------------------------------------------------------------------

    async def receive(self, owner: Owner, filename: Callable[[], str],
                      chunks: AsyncIterator[bytes]) -> HistoryImport:
        """Write the upload to disk as it arrives (413 past ``max_bytes``), record the
        import and queue its job. ``filename``: asked once the body is in (a multipart
        body names its file in the part's headers)."""
        if await self.store.unfinished(owner.user_id) >= MAX_UNFINISHED:
            raise ApiError(f"{MAX_UNFINISHED} imports are already waiting or running; "
                           "retry when one is done", code="rate_limited", status=429,
                           headers={"Retry-After": "60",
                                    "X-RateLimit-Limit": str(MAX_UNFINISHED),
                                    "X-RateLimit-Remaining": "0",
                                    "X-RateLimit-Reset": "60"})
        import_id = uuid.uuid4()
        await asyncio.to_thread(self.folder.mkdir, parents=True, exist_ok=True)
        path = self.folder / f"{import_id}.upload"
        size = 0
        try:
            with path.open("wb") as out:
                async for chunk in chunks:
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise ImportRejected("too_large", "the export is larger than the "
                                             f"limit of {self.max_bytes} bytes")
                    await asyncio.to_thread(out.write, chunk)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        if size == 0:
            path.unlink(missing_ok=True)
            raise ApiError("the file is empty", code="import_empty", status=400)
        now = self.clock()
        job = HistoryImport(import_id, owner.user_id, owner.tenant_id,
                            filename() or "upload", str(path), size, None, "queued", 0, 0,
                            empty_report(), None, now, now)
        await self.store.add(job)
        if self.enqueue is not None:
            await self.enqueue(job)
        return job

    async def from_path(self, owner: Owner, source: Path) -> HistoryImport:
        """The CLI's way in: the file copied under the data dir, as an upload would be."""
        async def chunks() -> AsyncIterator[bytes]:
            with source.open("rb") as handle:
                while chunk := await asyncio.to_thread(handle.read, WRITE_CHUNK):
                    yield chunk
        return await self.receive(owner, lambda: source.name, chunks())

    async def get(self, owner: Owner, import_id: uuid.UUID) -> HistoryImport:
        found = await self.store.get(owner.user_id, import_id)
        if found is None:
            raise ImportNotFound("no such import")
        return found

    # -- the job ----------------------------------------------------------------------

    async def run(self, owner: Owner, import_id: uuid.UUID) -> HistoryImport | None:
        job = await self.store.get(owner.user_id, import_id)
        if job is None or job.status in ("done", "failed"):
            return job
        job.status = "running"
        await self.store.save(job, self.clock())
        work = Path(job.path).with_suffix(".d")
        try:
            await self._work(job, work)
        except _Failed as exc:
            job.status, job.error = "failed", str(exc)
        except ImportRejected as exc:
            job.status, job.error = "failed", exc.message
        except OSError:  # the upload is gone (a data dir restored without it) or unreadable
            log.warning("import %s: its file cannot be read", job.id, exc_info=True)
            job.status, job.error = "failed", "the uploaded file can no longer be read"
        else:
            job.status = "done"
        await self.store.save(job, self.clock())
        await asyncio.to_thread(shutil.rmtree, work, True)
        # The data is in; the upload is not kept.
        await asyncio.to_thread(Path(job.path).unlink, missing_ok=True)
        await self._tell(job)
        return job

    async def _work(self, job: HistoryImport, work: Path) -> None:
        path = Path(job.path)
        if not is_zip(await asyncio.to_thread(_head, path)):
            job.kind = "files"
            await self._units(job, None, [Unit("activity", job.filename)], {}, {})
            return
        entries = await asyncio.to_thread(_entries, path)
        if entries is not None and entries > MAX_ENTRIES:
            raise _Failed(f"the archive lists {entries} files, more than the "
                          f"{MAX_ENTRIES} an export is read with")
        try:
            archive = await asyncio.to_thread(zipfile.ZipFile, path)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            raise _Failed("the zip archive is damaged and cannot be read") from None
        with archive:
            kind: Kind = await asyncio.to_thread(detect, archive)
            job.kind = kind
            if kind == "apple":
                await self._apple(job, archive)
                return
            nested = await self._nested(archive, work) if kind == "garmin" else {}
            try:
                units = await asyncio.to_thread(plan, kind, archive, nested)
                listing = await self._listing(archive) if kind == "strava" else {}
                await self._units(job, archive, units, nested, listing)
            finally:
                for inner in nested.values():
                    inner.close()

    async def _nested(self, archive: zipfile.ZipFile, work: Path) -> dict[str, zipfile.ZipFile]:
        """Garmin's zips of uploaded files, each written to disk (bounded: the archive
        total) and opened there: one level deep, never further."""
        await asyncio.to_thread(work.mkdir, parents=True, exist_ok=True)
        opened: dict[str, zipfile.ZipFile] = {}
        for n, info in enumerate(nested_zips(archive)):
            target = work / f"{n}.zip"
            try:
                await asyncio.to_thread(_copy_member, archive, info, target,
                                        DEFAULT_MAX_ARCHIVE_TOTAL)
                opened[info.filename] = await asyncio.to_thread(zipfile.ZipFile, target)
            except (ImportRejected, zipfile.BadZipFile, OSError, EOFError, ValueError):
                log.info("a nested zip of a Garmin export cannot be read: %s", info.filename)
        return opened

    async def _listing(self, archive: zipfile.ZipFile) -> dict[str, dict[str, Any]]:
        names = [i for i in archive.infolist()
                 if i.filename.split("/")[-1] == CSV_NAME and i.filename.count("/") <= 1]
        if not names:
            return {}

        def read() -> dict[str, dict[str, Any]]:
            with archive.open(names[0]) as stream:
                return read_listing(stream)

        try:
            return await asyncio.to_thread(read)
        except (ValueError, OSError, zipfile.BadZipFile, UnicodeDecodeError):
            return {}  # the files still go in, without the names the listing gives

    async def _units(self, job: HistoryImport, archive: zipfile.ZipFile | None,
                     units: list[Unit], nested: dict[str, zipfile.ZipFile],
                     listing: dict[str, dict[str, Any]]) -> None:
        job.total = len(units)
        await self.store.save(job, self.clock())
        settings = await self.fitness.store.settings(job.user_id)

        def ahead(i: int) -> asyncio.Task[Prepared | ImportOutcome] | None:
            """The next activity read and parsed while this one is stored: the pool and
            the database work at once (one pool call at a time per import, still)."""
            if i >= len(units) or units[i].action != "activity":
                return None
            unit = units[i]
            source = archive if unit.container is None else nested.get(unit.container)
            return asyncio.create_task(self._prepare(job, source, unit, settings))

        following = ahead(job.done)
        try:
            for index in range(job.done, len(units)):
                unit, current = units[index], following
                following = ahead(index + 1)
                if current is None:  # a health file
                    source = archive if unit.container is None else nested.get(unit.container)
                    await self._health(job, source, unit)
                else:
                    outcome = await self._store(job, unit, await current)
                    self._count(job, outcome)
                    if outcome.activity is not None and (
                            values := listing.get(_listing_key(unit.name))):
                        await self.fitness.store.annotate(job.user_id, outcome.activity.id,
                                                          values, self.clock())
                job.done = index + 1
                await self.store.save(job, self.clock())
                if job.done % 50 == 0:
                    await self._tell(job)
        finally:
            if following is not None:
                following.cancel()

    async def _read(self, job: HistoryImport, source: zipfile.ZipFile | None, unit: Unit,
                    limit: int) -> bytes:
        if source is None:  # a single uploaded file
            def whole() -> bytes:
                with Path(job.path).open("rb") as handle:
                    data = handle.read(limit + 1)
                if len(data) > limit:
                    raise ImportRejected("too_large", "the file is larger than the "
                                         f"limit of {limit} bytes")
                return data
            return await asyncio.to_thread(whole)
        return await asyncio.to_thread(read_member, source, source.getinfo(unit.name), limit)

    async def _prepare(self, job: HistoryImport, source: zipfile.ZipFile | None,
                       unit: Unit, settings: list[Any]) -> Prepared | ImportOutcome:
        """An activity file read (bounded) and parsed in the pool, or why not."""
        limit = self.fitness.max_import_bytes
        try:
            raw = await self._read(job, source, unit, limit)
            fn = prepare_file if source is None else prepare_member
            prepared: Prepared | None = await self.fitness.in_pool(fn, raw, unit.name, limit,
                                                                   settings)
        except ImportRejected as exc:
            return ImportOutcome(unit.name, rejected=exc)
        except WorkerCrashed:
            return ImportOutcome(unit.name, rejected=ImportRejected(
                "corrupt", "the file cannot be read as an activity"))
        assert prepared is not None
        return prepared

    async def _store(self, job: HistoryImport, unit: Unit, prepared: Prepared | ImportOutcome,
                     workout: Workout | None = None) -> ImportOutcome:
        if isinstance(prepared, ImportOutcome):
            return prepared
        if prepared.parsed is None:
            reason, message = prepared.rejected or ("corrupt", "no activity in it")
            return ImportOutcome(unit.name, rejected=ImportRejected(reason, message))
        parsed, computed = prepared.parsed, prepared.computed
        if workout is not None:  # an Apple route: the workout knows its sport and figures
            parsed = replace(parsed, sport=Sport(workout.sport),
                             calories=parsed.calories or workout.calories,
                             avg_heartrate=parsed.avg_heartrate or workout.avg_hr,
                             max_heartrate=parsed.max_heartrate or workout.max_hr)
            computed = None  # its metrics again, with the thresholds of its sport
        return await self.fitness.store_parsed(job.owner, parsed, unit.name,
                                               original=None, computed=computed)

    async def _health(self, job: HistoryImport, source: zipfile.ZipFile | None,
                      unit: Unit) -> None:
        try:
            raw = await self._read(job, source, unit, self.fitness.max_import_bytes)
        except ImportRejected as exc:
            self._reject(job, unit.name, exc.message)
            return
        days = await self.fitness.in_pool(health_days, job.kind or "", unit.name, raw)
        if isinstance(days, tuple):
            self._reject(job, unit.name, days[1])
        elif days:
            job.report["days"] += await self.fitness.store.upsert_daily(
                job.owner, days, self.clock())

    # -- Apple Health ----------------------------------------------------------------

    async def _apple(self, job: HistoryImport, archive: zipfile.ZipFile) -> None:
        member = apple_xml(archive)
        assert member is not None
        limit = min(APPLE_XML_MAX, max(job.size * APPLE_RATIO, 1 << 30))
        scan = await self.fitness.in_pool(scan_apple, job.path, member, limit)
        if not isinstance(scan, AppleScan):
            raise _Failed(scan[1] if scan else "export.xml cannot be read")
        job.total = 1 + len(scan.workouts)
        job.report["skipped_hrv_sdnn"] = scan.skipped_sdnn
        if job.done == 0:
            job.report["days"] += await self.fitness.store.upsert_daily(
                job.owner, scan.days, self.clock())
            job.done = 1
        await self.store.save(job, self.clock())
        folder = member.rsplit("/", 1)[0] + "/" if "/" in member else ""
        settings = await self.fitness.store.settings(job.user_id)
        routes = {n for n in archive.namelist() if n.startswith(folder + "workout-routes/")}
        for index in range(job.done - 1, len(scan.workouts)):
            workout = scan.workouts[index]
            outcome = await self._workout(job, archive, folder, workout, settings, routes)
            self._count(job, outcome)
            job.done = index + 2
            await self.store.save(job, self.clock())

    async def _workout(self, job: HistoryImport, archive: zipfile.ZipFile, folder: str,
                       w: Workout, settings: list[Any], routes: set[str]) -> ImportOutcome:
        name = f"workout {w.start.isoformat()}"
        if w.route is not None and (folder + w.route) in routes:
            unit = Unit("activity", folder + w.route)
            outcome = await self._store(
                job, unit, await self._prepare(job, archive, unit, settings), w)
            if outcome.rejected is None:
                return outcome
            # A route that does not read: the workout still goes in from its figures.
        new = workout_summary(w)
        ref = SourceRef("file", file_sha256=w.key, file_format="apple", file_name=name)
        return await self.fitness.ingest(job.owner, new, None, ref, name=name)

    # -- the report ------------------------------------------------------------------

    @staticmethod
    def _reject(job: HistoryImport, name: str, error: str) -> None:
        job.report["rejected_total"] += 1
        if len(job.report["rejected"]) < MAX_REJECTED:
            job.report["rejected"].append({"name": name, "error": error})

    def _count(self, job: HistoryImport, outcome: ImportOutcome) -> None:
        if outcome.rejected is not None:
            self._reject(job, outcome.name or "", outcome.rejected.message)
        elif outcome.duplicate:
            job.report["duplicates"] += 1
        elif outcome.merged:
            job.report["merged"] += 1
        else:
            job.report["imported"] += 1

    async def _tell(self, job: HistoryImport) -> None:
        if self.publish is not None:
            with contextlib.suppress(Exception):  # the panel is a courtesy
                await self.publish(job.user_id, {"type": "import_progress",
                                                 **status_json(job, "")})


def _entries(path: Path) -> int | None:
    """How many files the archive's end record says it lists, read before the central
    directory is (zipfile reads all of it into memory at once)."""
    end_record = getattr(zipfile, "_EndRecData", None)  # stable since Python 2, private
    if end_record is None:
        return None
    with path.open("rb") as handle:
        found = end_record(handle)
    return None if not found else int(found[zipfile._ECD_ENTRIES_TOTAL])  # type: ignore[attr-defined]


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(4)


def _listing_key(name: str) -> str:
    return name.lower()


def _copy_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path,
                 limit: int) -> None:
    written = 0
    with archive.open(info) as stream, target.open("wb") as out:
        while chunk := stream.read(WRITE_CHUNK):
            written += len(chunk)
            if written > limit:
                raise ImportRejected("too_large", "a nested zip inflates past the limit")
            out.write(chunk)


def status_json(job: HistoryImport, status_url: str) -> dict[str, Any]:
    """``GET /api/imports/{id}``'s body (docs/import.md)."""
    report = job.report
    out: dict[str, Any] = {
        "id": str(job.id), "status": job.status, "kind": job.kind,
        "filename": job.filename,
        "progress": {"done": job.done, "total": job.total},
        "report": {"imported": report["imported"], "merged": report["merged"],
                   "duplicates": report["duplicates"], "days": report["days"],
                   "rejected": report["rejected"],
                   "rejected_total": report["rejected_total"]},
    }
    if status_url:
        out["status_url"] = status_url
    if job.error:
        out["error"] = job.error
    return out


__all__ = ["ExportImports", "ImportNotFound", "status_json"]
