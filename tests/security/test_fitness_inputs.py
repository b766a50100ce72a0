"""The adversarial pass on the fitness endpoints (docs/security.md, "Adversarial pass"):
each test is an input that used to get a 500 or cost far more than its size, on SQLite
and PostgreSQL (the harness), or at the importer."""

from __future__ import annotations

import base64
import io
import uuid
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from pacekeeper.fitness import importers
from pacekeeper.fitness.importers import ImportRejected, iter_archive, parse_archive
from tests.pacekeeper.conftest import Harness

FIT = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit" / "4801048867.fit"


def sparse_gpx(i: int, days: float = 6.9) -> bytes:
    """Three track points, the last one almost 7 days later: ~400 bytes of GPX that
    become a 1 Hz grid of about 600,000 seconds."""
    t0 = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=10 * i)
    times = (t0, t0 + timedelta(seconds=1), t0 + timedelta(days=days))
    points = "".join(
        f'<trkpt lat="46.{i}{n}" lon="13.{n}"><ele>{n}</ele>'
        f'<time>{t.strftime("%Y-%m-%dT%H:%M:%SZ")}</time></trkpt>'
        for n, t in enumerate(times)
    )
    return ('<?xml version="1.0"?><gpx version="1.1" creator="x" '
            'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
            f"{points}</trkseg></trk></gpx>").encode()


def sparse_zip(members: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(members):
            archive.writestr(f"activities/{i}.gpx", sparse_gpx(i))
    return buf.getvalue()


def test_sparse_archive_members_past_the_seconds_budget_are_too_large() -> None:
    """A few KB of zipped two-point GPX files used to cost ~0.25 s of CPU and ~30 MB of
    memory per member, all held until the archive was done (20 members: 580 MB). The
    archive's 1 Hz samples are now bounded together."""
    members = parse_archive(sparse_zip(5), max_total_seconds=1_500_000)
    parsed = [m for m in members if not isinstance(m.result, ImportRejected)]
    refused = [m.result for m in members if isinstance(m.result, ImportRejected)]
    assert len(parsed) == 3
    assert [r.reason for r in refused] == ["too_large", "too_large"]
    assert "seconds of samples" in refused[0].message
    assert importers.DEFAULT_MAX_ARCHIVE_SECONDS == 50_000_000


def test_archive_members_are_parsed_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service stores each member before the next is parsed: the iterator parses a
    member only when it is asked for it."""
    parsed: list[str] = []
    real = importers._parse_member

    def counting(data: bytes, name: str, max_bytes: int) -> importers.ParsedActivity:
        parsed.append(name)
        return real(data, name, max_bytes)

    monkeypatch.setattr(importers, "_parse_member", counting)
    members = iter_archive(sparse_zip(3))
    first = next(members)
    assert parsed == ["activities/0.gpx"] and first.name == "activities/0.gpx"
    assert [m.name for m in members] == ["activities/1.gpx", "activities/2.gpx"]
    assert len(parsed) == 3


async def _auth(h: Harness) -> dict[str, str]:
    body = await h.register(f"adv-{uuid.uuid4().hex[:8]}@example.com")
    h.client.cookies.clear()
    return {"authorization": f"Bearer {body['token']}"}


async def test_a_sparse_archive_imports_member_by_member(harness: Harness) -> None:
    auth = await _auth(harness)
    answer = await harness.client.post(
        "/api/activities/import", headers=auth,
        files={"file": ("export.zip", sparse_zip(2))})
    assert answer.status_code == 200, answer.text
    assert [r["status"] for r in answer.json()["results"]] == ["imported", "imported"]


def _cursor(value: object) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(value)).decode().rstrip("=")


@pytest.mark.parametrize("ident", [5, [1], None, {"a": 1}, 1.5])
async def test_a_tampered_cursor_is_400_not_500(harness: Harness, ident: object) -> None:
    """A cursor whose id is not a string reached `uuid.UUID(5)`: AttributeError, 500."""
    auth = await _auth(harness)
    answer = await harness.client.get(
        "/api/activities", headers=auth,
        params={"cursor": _cursor(["2026-01-01T00:00:00+00:00", ident])})
    assert answer.status_code == 400, answer.text
    assert answer.json() == {"error": "validation_error",
                             "message": "cursor is not one this server gave out"}


@pytest.mark.parametrize(
    ("name", "value"),
    [("before", "9999-12-31T23:59:59.999999-23:59"), ("after", "0001-01-01T00:00:00+23:59"),
     ("before", "9999-12-31T23:00:00-01:00")],
)
async def test_a_moment_outside_the_utc_calendar_is_400_not_500(
    harness: Harness, name: str, value: str
) -> None:
    """A valid ISO 8601 time whose UTC form leaves years 1..9999 used to overflow in the
    database layer (OverflowError, 500)."""
    auth = await _auth(harness)
    answer = await harness.client.get("/api/activities", headers=auth, params={name: value})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "validation_error"
    assert name in answer.json()["message"]


async def test_a_nul_character_in_the_text_filter_is_harmless(harness: Harness) -> None:
    """PostgreSQL refuses NUL in text parameters; the filter must not turn that into 500."""
    auth = await _auth(harness)
    answer = await harness.client.get("/api/activities", headers=auth,
                                      params={"text": "ride\x00"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["message"] == "text must not contain NUL characters"


async def test_a_nul_character_in_the_file_name_is_harmless(harness: Harness) -> None:
    auth = await _auth(harness)
    answer = await harness.client.post(
        "/api/activities/import", headers=auth,
        files={"file": ("ride\x00.fit", FIT.read_bytes())})
    assert answer.status_code == 201, answer.text  # httpx sends the name percent-encoded


async def test_a_nul_character_in_an_mcp_import_name_is_harmless(harness: Harness) -> None:
    """The MCP tool `import_activity` names the file itself: the service cleans it."""
    body = await harness.register(f"adv-{uuid.uuid4().hex[:8]}@example.com")
    user = await harness.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    from pacekeeper.fitness import Owner

    [outcome] = await harness.services.fitness.import_file(
        Owner(user.id, user.tenant_id), FIT.read_bytes(), "ride\x00.fit")
    assert outcome.rejected is None


FIT_DIR = FIT.parent


@pytest.mark.parametrize(("name", "offset", "byte"), [
    ("6449921903_ACTIVITY.fit", 7969, 0xFF),  # one byte: a distance of ~43,000 km
    ("4801048867.fit", 22544, 0x80),  # one byte: a speed beyond the stored range
])
async def test_a_fit_file_with_absurd_values_is_rejected_not_500(
    harness: Harness, name: str, offset: int, byte: int
) -> None:
    """Found by flipping bytes of real FIT files (1 to 16 per file, 240 files): values
    the decoder accepts but the stored stream format cannot hold used to reach
    `StreamSet.to_bytes` and answer 500; the importer now refuses them (400 corrupt),
    and nothing is stored."""
    data = bytearray((FIT_DIR / name).read_bytes())
    data[offset] = byte
    auth = await _auth(harness)
    answer = await harness.client.post("/api/activities/import", headers=auth,
                                       files={"file": (name, bytes(data))})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "import_corrupt"
    assert "outside any possible range" in answer.json()["message"]
    listed = await harness.client.get("/api/activities", headers=auth)
    assert listed.json()["activities"] == []


async def test_a_long_sparse_activity_streams_are_bounded_by_default(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28 (medium): a 600-byte GPX spanning 6.9 days is 596,161 seconds on the 1 Hz
    grid; `GET /api/activities/{id}/streams` rendered all of it by default (31 MB of JSON,
    0.39 s of the event loop per request). By default the answer is now downsampled to
    `DEFAULT_STREAM_POINTS` (bounded in points and bytes), more is asked for with
    `max_points` up to `MAX_STREAM_POINTS` (beyond: 400), the MCP tool's default is
    bounded too, and the decoding, downsampling and rendering run off the event loop."""
    from pacekeeper.fitness import DEFAULT_STREAM_POINTS, MAX_STREAM_POINTS

    auth = await _auth(harness)
    answer = await harness.client.post(
        "/api/activities/import", headers=auth, files={"file": ("long.gpx", sparse_gpx(0))})
    assert answer.status_code == 201, answer.text
    url = f"/api/activities/{answer.json()['activity']['id']}/streams"
    seconds = round(6.9 * 86400) + 1  # the 1 Hz grid from the first to the last point
    assert 2000 <= DEFAULT_STREAM_POINTS <= 5000
    width = -(-seconds // DEFAULT_STREAM_POINTS)  # equal buckets, as many as fit
    default = await harness.client.get(url, headers=auth)
    assert default.status_code == 200, default.text
    body = default.json()
    assert body["points"] == -(-seconds // width) <= DEFAULT_STREAM_POINTS
    assert body["streams"]["time"][:2] == [0, width]
    # Each channel's value is at most ~20 bytes of JSON: bounded by the points, not the
    # activity's length (31 MB before).
    assert len(default.content) <= 20 * DEFAULT_STREAM_POINTS * len(body["streams"])
    assert len(default.content) < 500_000
    most = await harness.client.get(url, headers=auth,
                                    params={"max_points": str(MAX_STREAM_POINTS)})
    assert most.status_code == 200
    assert most.json()["points"] == -(-seconds // -(-seconds // MAX_STREAM_POINTS))
    refused = await harness.client.get(url, headers=auth,
                                       params={"max_points": str(MAX_STREAM_POINTS + 1)})
    assert refused.status_code == 400
    assert refused.json() == {"error": "validation_error", "message":
                              f"max_points must be between 2 and {MAX_STREAM_POINTS}"}
    # The MCP tool: bounded by default too (500 points), at most DEFAULT_STREAM_POINTS.
    headers = await harness.mcp_session(auth)
    activity_id = url.split("/")[3]
    for arguments, points in (({}, 500), ({"max_points": DEFAULT_STREAM_POINTS},
                                          DEFAULT_STREAM_POINTS)):
        tool = await harness.client.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "get_activity_streams",
                "arguments": {"activity_id": activity_id, **arguments}}})
        result = tool.json()["result"]["structuredContent"]
        width = -(-seconds // points)
        assert result["points"] == -(-seconds // width) <= points
    too_many = await harness.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "get_activity_streams",
            "arguments": {"activity_id": activity_id, "max_points": DEFAULT_STREAM_POINTS + 1}}})
    assert too_many.json()["error"]["code"] == -32602


async def test_streams_are_decoded_and_rendered_off_the_event_loop(harness: Harness) -> None:
    """Issue 28: while the largest answer a person may ask for is being made, the event
    loop keeps running (a ticker on it sees no stall of more than a third of the
    request's time; on the loop, the whole request was one stall)."""
    import asyncio
    import time as _time

    from pacekeeper.fitness import MAX_STREAM_POINTS

    auth = await _auth(harness)
    answer = await harness.client.post(
        "/api/activities/import", headers=auth, files={"file": ("long.gpx", sparse_gpx(1))})
    url = f"/api/activities/{answer.json()['activity']['id']}/streams"
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = _time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = _time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    began = _time.perf_counter()
    for _ in range(3):
        got = await harness.client.get(url, headers=auth,
                                       params={"max_points": str(MAX_STREAM_POINTS)})
        assert got.status_code == 200
    took = _time.perf_counter() - began
    done.set()
    await ticker
    print(f"3 requests {took:.3f} s, longest loop stall {max(gaps):.3f} s")
    assert max(gaps) < took / 3 / 3, (max(gaps), took)
