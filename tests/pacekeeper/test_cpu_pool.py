"""Imports parse in a pool of processes, never on the event loop (issue 30, LOOP-1).

The rest of the suite runs imports on a thread (``import_workers=0``, conftest): these
tests run the real pool. They prove where the work runs (another process id), that a
full pool refuses at once with 429 and ``Retry-After`` and queues nothing, and that a
worker that dies gives a clear 503 and the next call gets a new pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import io
import os
import tempfile
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest

from pacekeeper.cpu import WORKER_NICENESS, Busy, CpuPool, WorkerCrashed
from pacekeeper.fitness import _service
from pacekeeper.fitness._records import NewActivity, SettingValue, SourceRef
from pacekeeper.fitness._service import (
    Computed,
    Prepared,
    compute,
    prepare_file,
    prepare_member,
    reanalyze,
    summary_of,
)
from pacekeeper.fitness._settings import SettingsHistory
from pacekeeper.fitness.analytics import AthleteSnapshot
from pacekeeper.fitness.importers import parse_activity
from pacekeeper.fitness.streams import StreamSet
from tests.pacekeeper.fitness.test_activities_http import RIDE, _user, session_of

_PIDS = Path(tempfile.gettempdir())


def _pid_file(data: bytes) -> Path:
    return _PIDS / f"pk-pool-test-{hashlib.sha256(data).hexdigest()[:16]}"


def prepare_and_note_pid(data: bytes, filename: str | None, max_bytes: int,
                         settings: list[SettingValue]) -> Prepared:
    """``prepare_file`` that writes down which process ran it (top level: it pickles)."""
    _pid_file(data).write_text(str(os.getpid()))
    return prepare_file(data, filename, max_bytes, settings)


async def test_an_http_import_is_parsed_in_another_process(
        harness_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_service, "prepare_file", prepare_and_note_pid)
    data = RIDE.read_bytes()
    _pid_file(data).unlink(missing_ok=True)
    async with harness_factory(import_workers=1, import_queue=2) as h:
        auth, _ = await _user(h, "pool@example.com")
        response = await h.client.post("/api/activities/import", headers=auth,
                                       files={"file": (RIDE.name, data)})
        assert response.status_code == 201, response.text
    worker_pid = int(_pid_file(data).read_text())
    _pid_file(data).unlink()
    assert worker_pid != os.getpid()
    # What came back across the process boundary is the device's ride (its own session).
    device = session_of(RIDE)
    activity = response.json()["activity"]
    assert abs(activity["distance_m"] - device["total_distance"]) <= 0.005 * device[
        "total_distance"]
    assert abs(activity["average_heartrate"] - device["avg_heart_rate"]) <= 1.0


def prepare_member_and_note_pid(raw: bytes, name: str, max_bytes: int,
                                settings: list[SettingValue]) -> Prepared:
    """``prepare_member`` that writes down which process ran it."""
    _pid_file(raw).write_text(str(os.getpid()))
    return prepare_member(raw, name, max_bytes, settings)


def _archive(*members: tuple[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


async def test_an_archive_s_members_are_parsed_in_another_process(
        harness_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bulk export's members are parsed in the pool like single files (issue 30): none
    on a thread of the serving process."""
    monkeypatch.setattr(_service, "prepare_member", prepare_member_and_note_pid)
    data = RIDE.read_bytes()
    _pid_file(data).unlink(missing_ok=True)
    async with harness_factory(import_workers=1, import_queue=2) as h:
        auth, _ = await _user(h, "pool-archive@example.com")
        response = await h.client.post(
            "/api/activities/import", headers=auth,
            files={"file": ("export.zip", _archive(("activities/ride.fit", data),
                                                   ("activities/bad.gpx", b"<gpx")))})
        assert response.status_code == 200, response.text
    worker_pid = int(_pid_file(data).read_text())
    _pid_file(data).unlink()
    assert worker_pid != os.getpid()
    results = {r["file"]: r for r in response.json()["results"]}
    assert results["activities/ride.fit"]["status"] == "imported"
    assert results["activities/bad.gpx"]["status"] == "rejected"
    device = session_of(RIDE)
    activity = results["activities/ride.fit"]["activity"]
    assert abs(activity["distance_m"] - device["total_distance"]) <= 0.005 * device[
        "total_distance"]


async def test_a_full_pool_refuses_an_archive_with_429_and_charges_nothing(
        harness_factory: Any) -> None:
    """An archive that finds the pool full is refused at once, as a single file is: no
    member stored, and the person's import allowance (an archive takes the minute's
    whole) not spent, so a retry after ``Retry-After`` goes in."""
    archive = _archive(("activities/ride.fit", RIDE.read_bytes()))
    async with harness_factory(import_workers=1, import_queue=0) as h:
        auth, _ = await _user(h, "busy-archive@example.com")
        pool = h.services.fitness.pool
        hold = asyncio.create_task(pool.run(time.sleep, 3.0))
        await asyncio.sleep(0)
        refused = await h.client.post("/api/activities/import", headers=auth,
                                      files={"file": ("export.zip", archive)})
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"] == "busy"
        assert int(refused.headers["retry-after"]) >= 1
        listed = (await h.client.get("/api/activities", headers=auth)).json()
        assert listed["activities"] == []
        await hold
        again = await h.client.post("/api/activities/import", headers=auth,
                                    files={"file": ("export.zip", archive)})
        assert again.status_code == 200, again.text
        assert [r["status"] for r in again.json()["results"]] == ["imported"]


async def test_background_work_waits_for_a_place_in_a_full_pool(harness: Any) -> None:
    """Work nobody waits for at the door (an archive's next member, a sync, a
    recompute) is never refused by a full pool: it waits for a place, or gives up
    (None) once its caller's budget says it is late."""
    fitness = harness.services.fitness
    fitness.pool = CpuPool(0, 0)  # one place
    hold = asyncio.create_task(fitness.pool.run(time.sleep, 0.6))
    await asyncio.sleep(0.05)
    assert await fitness.in_pool(os.getpid, late=lambda: True) is None
    started = time.monotonic()
    assert await fitness.in_pool(os.getpid) == os.getpid()
    assert time.monotonic() - started >= 0.4  # it waited for the held place
    await hold


def compute_and_note_pid(streams: StreamSet | None, new: NewActivity,
                         history: SettingsHistory) -> Computed:
    (_PIDS / f"pk-pool-compute-{new.name}").write_text(str(os.getpid()))
    return compute(streams, new, history)


def reanalyze_and_note_pid(blob: bytes, sport: str, athlete: AthleteSnapshot,
                           distance_m: float | None, moving_s: float | None = None
                           ) -> dict[str, Any]:
    (_PIDS / f"pk-pool-reanalyze-{distance_m}").write_text(str(os.getpid()))
    return reanalyze(blob, sport, athlete, distance_m, moving_s)


async def test_a_synced_activity_and_a_recompute_are_analysed_in_another_process(
        harness_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30: a sync's samples are compressed and analysed, and a recompute's
    metrics worked out, in the pool: on a thread they held the GIL the loop needs."""
    monkeypatch.setattr(_service, "compute", compute_and_note_pid)
    monkeypatch.setattr(_service, "reanalyze", reanalyze_and_note_pid)
    parsed = parse_activity(RIDE.read_bytes(), RIDE.name)
    new = summary_of(parsed)
    tag = f"synced-{uuid.uuid4().hex}"
    new = dataclasses.replace(new, name=tag)
    compute_pid = _PIDS / f"pk-pool-compute-{tag}"
    reanalyze_pid = _PIDS / f"pk-pool-reanalyze-{new.distance_m}"
    reanalyze_pid.unlink(missing_ok=True)
    async with harness_factory(import_workers=1, import_queue=2) as h:
        _, owner = await _user(h, "pool-sync@example.com")
        fitness = h.services.fitness
        outcome = await fitness.ingest(owner, new, parsed.streams, SourceRef(
            "provider", provider="strava", provider_activity_id="1",
            channels=len(parsed.streams.keys)))
        assert outcome.activity is not None
        assert int(compute_pid.read_text()) != os.getpid()
        stored = await fitness.store.get(owner.user_id, outcome.activity.id)
        assert stored is not None and stored.metrics["duration_s"] > 0  # computed there
        assert await fitness.recompute(owner) == 1
        assert int(reanalyze_pid.read_text()) != os.getpid()
    compute_pid.unlink()
    reanalyze_pid.unlink()


async def test_a_full_pool_answers_429_with_retry_after_and_queues_nothing(
        harness_factory: Any) -> None:
    async with harness_factory(import_workers=1, import_queue=0) as h:
        auth, _ = await _user(h, "busy@example.com")
        pool = h.services.fitness.pool
        hold = asyncio.create_task(pool.run(time.sleep, 3.0))  # the one slot taken
        await asyncio.sleep(0)
        assert pool.in_flight == 1
        started = time.monotonic()
        response = await h.client.post("/api/activities/import", headers=auth,
                                       files={"file": (RIDE.name, RIDE.read_bytes())})
        assert time.monotonic() - started < 2.0  # refused at once, not after the wait
        assert response.status_code == 429
        assert response.json()["error"] == "busy"
        assert "busy with other imports" in response.json()["message"]
        assert int(response.headers["retry-after"]) >= 1
        assert pool.in_flight == 1  # the refused import holds no place
        listed = (await h.client.get("/api/activities", headers=auth)).json()
        assert listed["activities"] == []
        await hold
        assert pool.in_flight == 0
        again = await h.client.post("/api/activities/import", headers=auth,
                                    files={"file": (RIDE.name, RIDE.read_bytes())})
        assert again.status_code == 201, again.text


async def test_the_bound_counts_work_whose_caller_went_away() -> None:
    """A cancelled request's parse keeps its process busy: its place is kept until the
    process is done, so cancelling requests cannot queue unbounded work."""
    pool = CpuPool(1, 0)
    try:
        task = asyncio.create_task(pool.run(time.sleep, 1.5))
        await asyncio.sleep(0.2)
        task.cancel()
        await asyncio.sleep(0)
        with pytest.raises(Busy):
            await pool.run(os.getpid)
        deadline = time.monotonic() + 10
        while pool.in_flight and time.monotonic() < deadline:  # noqa: ASYNC110 (polls a counter)
            await asyncio.sleep(0.05)
        assert await pool.run(os.getpid) != os.getpid()
    finally:
        pool.close()


async def test_a_crashed_worker_gives_a_clear_503_and_the_pool_recovers() -> None:
    pool = CpuPool(1, 2, what="imports")
    try:
        first = await pool.run(os.getpid)
        assert first != os.getpid()
        with pytest.raises(WorkerCrashed) as crashed:
            await pool.run(os._exit, 1)  # the process dies as on a segfault or OOM kill
        assert crashed.value.status == 503
        assert crashed.value.message == "the worker process stopped before it finished; try again"
        assert crashed.value.headers["Retry-After"] == "1"
        assert pool.in_flight == 0
        second = await pool.run(os.getpid)  # a new pool, a new process
        assert second not in (first, os.getpid())
    finally:
        pool.close()


async def test_workers_zero_runs_on_a_thread_of_this_process() -> None:
    pool = CpuPool(0, 1)
    assert await pool.run(os.getpid) == os.getpid()


async def test_workers_run_at_a_lower_cpu_priority() -> None:
    """Reads keep their core: a worker is niced below the serving process."""
    pool = CpuPool(1, 0)
    try:
        assert await pool.run(os.nice, 0) == os.nice(0) + WORKER_NICENESS
    finally:
        pool.close()


_ORPHAN_PROBE = """
import asyncio, os, sys
from pacekeeper.cpu import CpuPool

async def main() -> None:
    pool = CpuPool(2, 2)
    pids = await asyncio.gather(pool.run(os.getpid), pool.run(os.getpid))
    print(" ".join(map(str, set(pids))), flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def test_workers_die_with_a_serving_process_killed_9(tmp_path: Path) -> None:
    """A serving process killed with SIGKILL (an OOM kill, `kill -9`) must not leave its
    pool's workers behind: they held its stdout open (a supervisor reading it waited
    forever: the sync kill e2e test hung) and would hold memory and a core's share."""
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _ORPHAN_PROBE], stdout=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.stdout is not None
    workers = [int(p) for p in proc.stdout.readline().split()]
    assert workers and proc.pid not in workers
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # A zombie is dead but not yet reaped by its new parent.
        with contextlib.suppress(OSError):
            return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
        return False

    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:  # do not leave them to the rest of the run
        os.kill(pid, signal.SIGKILL)
    assert left == [], "the pool's workers outlived the process that started them"
    proc.stdout.close()
