"""Whole-account exports (issue 31 item 3): one layout test per vendor's export, built
from real activity files and generated health data (tests/pacekeeper/fitness/_exports.py);
the HTTP contract (202, status, 404 for another person's import, 400/413); the job's
resumption after a restart; de-duplication against what is stored; and Apple's
export.xml read without ever expanding an entity."""

from __future__ import annotations

import asyncio
import gzip
import resource
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from pacekeeper.fitness import Owner
from pacekeeper.fitness.exports import HistoryImport
from pacekeeper.fitness.exports._apple import UnsafeXml, scan_export_xml
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness._exports import (
    apple_export,
    billion_laughs,
    garmin_export,
    google_export,
    raw,
    strava_export,
)


async def _user(h: Harness, email: str) -> tuple[dict[str, str], Owner]:
    body = await h.register(email)
    h.client.cookies.clear()  # bearer callers: no CSRF in these tests
    user = await h.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    return {"authorization": f"Bearer {body['token']}"}, Owner(user.id, user.tenant_id)


async def _upload(h: Harness, auth: dict[str, str], path: Path) -> dict[str, Any]:
    data = await asyncio.to_thread(path.read_bytes)
    response = await h.client.post("/api/imports", headers=auth,
                                   files={"file": (path.name, data)})
    assert response.status_code == 202, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"id", "status_url"}
    return body


async def _finished(h: Harness, auth: dict[str, str], url: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        response = await h.client.get(url, headers=auth)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if body["status"] in ("done", "failed"):
            return body
        assert time.monotonic() < deadline, body
        await asyncio.sleep(0.1)


async def _activities(h: Harness, auth: dict[str, str]) -> list[dict[str, Any]]:
    response = await h.client.get("/api/activities?limit=200", headers=auth)
    found: list[dict[str, Any]] = response.json()["activities"]
    return found


def _strava(tmp_path: Path) -> Path:
    return strava_export(tmp_path / "export_12345.zip", [
        ("101.fit.gz", gzip.compress(raw("fit/sample-activity-indoor-trainer.fit")),
         {"Activity Name": "Trainer intervals", "Activity Description": "5 x 4 min",
          "Activity Gear": "Tacx Neo", "Commute": "false", "Activity Type": "Ride"}),
        ("102.gpx", raw("gpx/korita-zbevnica.gpx"),
         {"Activity Name": "Korita hike", "Commute": "true"}),
        ("103.tcx.gz", raw("tcx/3173437224.tcx.gz"),
         {"Activity Name": "Short run", "Activity Gear": "Old shoes"}),
        ("104.fit.gz", gzip.compress(raw("corrupt/activity-unexpected-eof.fit")[:40]), {}),
    ], manual_rows=2)


async def test_strava_export_layout_applies_the_listing(harness: Harness,
                                                        tmp_path: Path) -> None:
    """EXP-1: 202 with a status URL; the status's progress and per-item report."""
    h = harness
    auth, _ = await _user(h, "strava@example.com")
    created = await _upload(h, auth, _strava(tmp_path))
    body = await _finished(h, auth, created["status_url"])
    assert body["status"] == "done" and body["kind"] == "strava"
    assert body["progress"] == {"done": 4, "total": 4}  # the manual rows have no file
    report = body["report"]
    assert (report["imported"], report["merged"], report["duplicates"]) == (3, 0, 0)
    assert [r["name"] for r in report["rejected"]] == ["activities/104.fit.gz"]
    by_name = {a["name"]: a for a in await _activities(h, auth)}
    assert set(by_name) == {"Trainer intervals", "Korita hike", "Short run"}
    detail = (await h.client.get(f"/api/activities/{by_name['Trainer intervals']['id']}",
                                 headers=auth)).json()
    assert (detail["description"], detail["gear"], detail["commute"]) == (
        "5 x 4 min", "Tacx Neo", False)
    hike = (await h.client.get(f"/api/activities/{by_name['Korita hike']['id']}",
                               headers=auth)).json()
    assert hike["commute"] is True and "gear" not in hike

    # The same export again: every activity recognised, nothing stored twice.
    again = await _finished(h, auth, (await _upload(h, auth, _strava(tmp_path)))["status_url"])
    assert (again["report"]["imported"], again["report"]["duplicates"]) == (0, 3)
    assert len(await _activities(h, auth)) == 3


async def test_another_persons_import_is_404(harness: Harness, tmp_path: Path) -> None:
    h = harness
    auth, _ = await _user(h, "owner@example.com")
    other, _ = await _user(h, "other@example.com")
    created = await _upload(h, auth, _strava(tmp_path))
    assert (await h.client.get(created["status_url"], headers=other)).status_code == 404
    missing = await h.client.get(f"/api/imports/{uuid.uuid4()}", headers=auth)
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert (await h.client.get("/api/imports/not-an-id", headers=auth)).status_code == 404
    await _finished(h, auth, created["status_url"])


async def test_raw_body_with_a_filename_header(harness: Harness, tmp_path: Path) -> None:
    h = harness
    auth, _ = await _user(h, "raw@example.com")
    data = raw("fit/garmin-fenix-5-bike.fit")
    response = await h.client.post("/api/imports", content=data,
                                   headers={**auth, "x-filename": "ride.fit",
                                            "content-type": "application/octet-stream"})
    assert response.status_code == 202, response.text
    body = await _finished(h, auth, response.json()["status_url"])
    assert body["kind"] == "files" and body["report"]["imported"] == 1
    nameless = await h.client.post("/api/imports", content=data, headers=auth)
    assert nameless.status_code == 400 and nameless.json()["error"] == "validation_error"


async def test_an_export_over_the_limit_is_413(harness_factory: Any, tmp_path: Path) -> None:
    async with harness_factory(max_export_bytes=4096) as h:
        auth, _ = await _user(h, "big@example.com")
        response = await h.client.post("/api/imports", headers=auth, files={
            "file": ("big.zip", raw("fit/garmin-fenix-5-bike.fit") * 2)})
        assert response.status_code == 413
        assert response.json()["error"] == "payload_too_large"
        assert list((tmp_path / "imports").glob("*")) == []  # the partial upload is gone


async def test_apple_export_layout(harness: Harness, tmp_path: Path) -> None:
    h = harness
    auth, _ = await _user(h, "apple@example.com")
    created = await _upload(h, auth, apple_export(tmp_path / "export.zip"))
    body = await _finished(h, auth, created["status_url"])
    assert body["status"] == "done" and body["kind"] == "apple", body
    assert body["progress"] == {"done": 3, "total": 3}  # the days, then two workouts
    assert body["report"]["imported"] == 2 and body["report"]["rejected"] == []
    found = {a["sport"]: a for a in await _activities(h, auth)}
    run, hike = found["run"], found["hike"]
    assert run["distance_m"] == pytest.approx(8200) and run["streams"] == []
    assert run["average_heartrate"] == 151 and run["elapsed_time_s"] == pytest.approx(2730)
    assert "lat" in hike["streams"]  # from workout-routes/*.gpx
    days = (await h.client.get("/api/daily?from=2024-05-05&to=2024-05-09",
                               headers=auth)).json()["days"]
    first = next(d for d in days if d["date"] == "2024-05-06")
    assert first["steps"] == 5000  # the watch's count, not watch + phone
    assert first["resting_hr"] == 48
    assert first["sleep_s"] == pytest.approx((465 - 15 - 15) * 60)  # awake not counted
    assert first["sleep_deep_min"] == 90 and first["sleep_rem_min"] == 60
    assert first["weight_kg"] == 69.99  # 154.3 lb
    assert first.get("hrv_rmssd_ms") is None  # Apple's HRV is SDNN, not RMSSD


def test_a_billion_laughs_export_xml_is_refused_unexpanded(tmp_path: Path) -> None:
    import zipfile
    path = apple_export(tmp_path / "export.zip", entities=billion_laughs())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with zipfile.ZipFile(path) as archive, archive.open("apple_health_export/export.xml") as f, \
            pytest.raises(UnsafeXml, match="declares the entity 'lol'"):
        scan_export_xml(f)
    # Expanded, &lol9; is 3 GB of text: refused at the first declaration, it costs nothing.
    assert time.monotonic() - started < 1.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # KiB


def test_apples_own_dtd_without_entities_is_read(tmp_path: Path) -> None:
    import zipfile
    path = apple_export(tmp_path / "export.zip")
    with zipfile.ZipFile(path) as archive, archive.open("apple_health_export/export.xml") as f:
        scan = scan_export_xml(f)
    assert len(scan.workouts) == 2 and scan.skipped_sdnn == 3


async def test_a_billion_laughs_import_fails_with_the_reason(harness: Harness,
                                                             tmp_path: Path) -> None:
    h = harness
    auth, _ = await _user(h, "laughs@example.com")
    path = apple_export(tmp_path / "export.zip", entities=billion_laughs())
    body = await _finished(h, auth, (await _upload(h, auth, path))["status_url"])
    assert body["status"] == "failed" and "entit" in body["error"]


async def test_garmin_export_layout(harness: Harness, tmp_path: Path) -> None:
    h = harness
    auth, _ = await _user(h, "garmin@example.com")
    body = await _finished(h, auth, (await _upload(
        h, auth, garmin_export(tmp_path / "garmin.zip")))["status_url"])
    assert body["status"] == "done" and body["kind"] == "garmin", body
    # Two FIT files one level down (not the zip inside the zip), four wellness files.
    assert body["progress"]["total"] == 6 and body["report"]["imported"] == 2
    assert body["report"]["rejected"] == []
    days = (await h.client.get("/api/daily?from=2023-03-01&to=2023-03-03",
                               headers=auth)).json()["days"]
    first = next(d for d in days if d["date"] == "2023-03-01")
    assert (first["steps"], first["resting_hr"], first["hrv_rmssd_ms"]) == (8000, 50, 60)
    assert first["sleep_s"] == 3600 + 14400 + 5400 and first["sleep_score"] == 80
    assert first["weight_kg"] == 71.5


async def test_google_takeout_fitbit_layout(harness: Harness, tmp_path: Path) -> None:
    h = harness
    auth, _ = await _user(h, "google@example.com")
    body = await _finished(h, auth, (await _upload(
        h, auth, google_export(tmp_path / "takeout.zip")))["status_url"])
    assert body["status"] == "done" and body["kind"] == "google", body
    assert body["report"]["imported"] == 1 and body["report"]["rejected"] == []
    days = (await h.client.get("/api/daily?from=2023-04-01&to=2023-04-02",
                               headers=auth)).json()["days"]
    first = next(d for d in days if d["date"] == "2023-04-01")
    assert (first["steps"], first["resting_hr"], first["hrv_rmssd_ms"]) == (2400, 55.5, 42.5)
    assert first["sleep_s"] == 420 * 60 and first["sleep_deep_min"] == 80  # not the nap
    assert first["weight_kg"] == pytest.approx(74.84, abs=0.01)  # 165 lb


async def test_a_restarted_import_goes_on_where_it_stopped(harness: Harness,
                                                           tmp_path: Path) -> None:
    """EXP-3. A job that ran two units before its process died: run again, it does the rest
    and not those two (they are never stored here: the record alone says they are done)."""
    h = harness
    _, owner = await _user(h, "resume@example.com")
    exports = h.services.exports
    assert exports is not None
    exports.enqueue = None  # the test plays the queue
    job = await exports.from_path(owner, _strava(tmp_path))
    job.status, job.done, job.total = "running", 2, 4
    job.report["imported"] = 2
    await exports.store.save(job, h.clock())
    finished = await exports.run(owner, job.id)
    assert isinstance(finished, HistoryImport) and finished.status == "done"
    assert finished.report["imported"] == 3  # two before, one now (and one rejected)
    page = await h.services.fitness.page(owner, _no_filter(), limit=50)
    assert [a.name for a in page.items] == ["Short run"]  # units 0 and 1 not done again
    assert not await asyncio.to_thread(Path(job.path).exists)  # the upload goes once the data is in


def _no_filter() -> Any:
    from pacekeeper.fitness._records import ActivityFilter
    return ActivityFilter()


async def test_the_job_is_durable_and_one_per_person(harness: Harness, tmp_path: Path) -> None:
    h = harness
    _, owner = await _user(h, "queue@example.com")
    jobs = h.services.jobs
    assert jobs is not None
    job = HistoryImport(uuid.uuid4(), owner.user_id, owner.tenant_id, "x.zip", "/nowhere",
                        1, None, "queued", 0, 0)
    job_id = await jobs.enqueue_export(job)
    rows = await jobs.app.job_manager.list_jobs_async(id=job_id)
    assert rows[0].lock == f"import:{owner.user_id}"



async def test_a_member_past_the_size_limit_is_rejected_alone(harness_factory: Any,
                                                            tmp_path: Path) -> None:
    """The archive rules apply to every member: one that inflates past
    max_import_bytes (a bomb: 3 MB of one byte) is rejected, the others go in."""
    path = strava_export(tmp_path / "export.zip", [
        ("1.gpx", raw("gpx/korita-zbevnica.gpx"), {"Activity Name": "Fine"}),
        ("2.gpx", b"<" * 3_000_000, {"Activity Name": "Bomb"})])
    async with harness_factory(max_import_bytes=1_000_000) as h:
        auth, _ = await _user(h, "bomb@example.com")
        body = await _finished(h, auth, (await _upload(h, auth, path))["status_url"])
        assert body["report"]["imported"] == 1
        [rejected] = body["report"]["rejected"]
        assert rejected["name"] == "activities/2.gpx" and "limit" in rejected["error"]


async def test_a_fourth_waiting_import_is_429(harness: Harness, tmp_path: Path) -> None:
    h = harness
    auth, owner = await _user(h, "many@example.com")
    exports = h.services.exports
    assert exports is not None
    exports.enqueue = None  # nothing runs them: they stay queued
    for _ in range(3):
        await exports.from_path(owner, _strava(tmp_path))
    response = await h.client.post("/api/imports", headers=auth, files={
        "file": ("x.fit", raw("fit/garmin-fenix-5-bike.fit"))})
    assert response.status_code == 429 and response.headers["retry-after"] == "60"
    assert response.json()["error"] == "rate_limited"


async def test_an_upload_is_streamed_to_disk_not_held(harness: Harness) -> None:
    """EXP-2. 40 MB sent in 1 MB chunks: written to the data dir as they arrive; the server
    side never holds more than a few chunks (measured with tracemalloc over the
    request; the body is generated on the fly, so the client holds none of it)."""
    import tracemalloc

    h = harness
    auth, owner = await _user(h, "stream@example.com")
    exports = h.services.exports
    assert exports is not None
    exports.enqueue = None  # the upload is what is measured, not the job
    chunk = bytes(range(256)) * 4096  # 1 MiB

    async def body() -> Any:
        for _ in range(40):
            yield chunk

    tracemalloc.start()
    try:
        response = await h.client.post("/api/imports", content=body(), headers={
            **auth, "x-filename": "big.zip", "content-type": "application/octet-stream"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == 202, response.text
    job = await exports.get(owner, uuid.UUID(response.json()["id"]))
    assert job.size == 40 * len(chunk)
    assert await asyncio.to_thread(lambda: Path(job.path).stat().st_size) == job.size
    assert peak < 8 * len(chunk), peak


async def test_an_import_whose_file_is_gone_fails_with_the_reason(harness: Harness,
                                                                  tmp_path: Path) -> None:
    h = harness
    _, owner = await _user(h, "gone@example.com")
    exports = h.services.exports
    assert exports is not None
    exports.enqueue = None
    job = await exports.from_path(owner, _strava(tmp_path))
    await asyncio.to_thread(Path(job.path).unlink)
    finished = await exports.run(owner, job.id)
    assert finished is not None and finished.status == "failed"
    assert finished.error == "the uploaded file can no longer be read"


async def test_member_names_never_become_paths(harness: Harness, tmp_path: Path) -> None:
    """A nested zip (written to disk to be read) named to climb out of the data dir is
    written under the import's own folder by number: nothing lands where it points."""
    import io
    import zipfile

    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as nested:
        nested.writestr("ride.fit", raw("fit/garmin-fenix-5-bike.fit"))
    path = tmp_path / "garmin.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("DI_CONNECT/DI-Connect-Uploaded-Files/../../../../escaped.zip",
                         inner.getvalue())
        archive.writestr("DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0.zip",
                         inner.getvalue())
    h = harness
    auth, _ = await _user(h, "climb@example.com")
    body = await _finished(h, auth, (await _upload(h, auth, path))["status_url"])
    assert body["status"] == "done" and body["kind"] == "garmin"
    assert (body["report"]["imported"], body["report"]["duplicates"]) == (1, 1)
    found = await asyncio.to_thread(lambda: list(tmp_path.parent.rglob("escaped.zip")))
    assert found == []


async def test_an_archive_listing_too_many_files_fails_before_its_directory_is_read(
        harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pacekeeper.fitness.exports import _service

    monkeypatch.setattr(_service, "MAX_ENTRIES", 3)
    h = harness
    _, owner = await _user(h, "listing@example.com")
    exports = h.services.exports
    assert exports is not None
    exports.enqueue = None
    job = await exports.from_path(owner, _strava(tmp_path))  # 7 files
    finished = await exports.run(owner, job.id)
    assert finished is not None and finished.status == "failed"
    assert finished.error == "the archive lists 7 files, more than the 3 an export is read with"
