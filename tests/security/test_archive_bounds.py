"""Issue 28, second adversarial review: what one archive import may cost.

A 4.4 MB zip of 90 members of 49 MB of spaces each drove the server to 4.5 GB: every
rejected member's bytes stayed alive through the kept exception's traceback until the
answer was sent. Memory while importing an archive is now bounded by about one member.
"""

from __future__ import annotations

import gzip
import io
import re
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pacekeeper.fitness import importers
from pacekeeper.fitness.importers import ImportRejected, iter_archive
from tests.pacekeeper.conftest import Harness
from tests.security.test_fitness_inputs import sparse_gpx

MIB = 1024 * 1024
SPACES_MEMBER = 49 * 1000 * 1000  # the review's member: 49 MB of spaces (under the 50 MiB limit)


def _vm(field: str) -> int:
    """A /proc/self/status figure in bytes (Linux)."""
    found = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    assert found is not None
    return int(found.group(1)) * 1024


def _reset_peak() -> None:
    """Reset VmHWM (the peak resident set) to the current RSS (Linux >= 4.0)."""
    Path("/proc/self/clear_refs").write_text("5")


def spaces_zip(path: Path, members: int, filler: bytes = b" ") -> Path:
    """The review's file, generated: `members` members of 49 MB of spaces, each a .gpx."""
    blank = filler * SPACES_MEMBER
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(members):
            archive.writestr(f"activities/{i}.gpx", blank)
    return path


@pytest.fixture(scope="module")
def spaces_archive(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return spaces_zip(tmp_path_factory.mktemp("zip") / "spaces.zip", 90).read_bytes()


@pytest.mark.parametrize("migrated_db", ["sqlite"], indirect=True)  # memory: not a DB matter
async def test_an_archive_of_blank_members_stays_within_one_member_of_memory(
    harness: Harness, spaces_archive: bytes
) -> None:
    """Issue 28 (High): imported through the real HTTP route, the 4.4 MB zip of 90
    members of 49 MB of spaces must not grow the peak resident set by more than
    200 MiB (it grew by 4,181 MiB, 21.7 s CPU), and each member is refused as blank, early."""
    assert len(spaces_archive) < 5 * MIB  # the review's ~4.4 MB
    await _import_within(harness, spaces_archive, 90)


@pytest.mark.parametrize("migrated_db", ["sqlite"], indirect=True)
async def test_rejected_members_read_whole_are_not_kept_alive(
    harness: Harness, tmp_path: Path
) -> None:
    """Members that are read whole before being refused (49 MB of `x`, named .gpx: not
    XML) are freed one by one: ten of them held 490 MB through the kept tracebacks."""
    data = spaces_zip(tmp_path / "x.zip", 10, b"x").read_bytes()
    await _import_within(harness, data, 10)


async def _import_within(harness: Harness, spaces_archive: bytes, members: int) -> None:
    body = await harness.register(f"zip-{uuid.uuid4().hex[:8]}@example.com")
    harness.client.cookies.clear()
    auth = {"authorization": f"Bearer {body['token']}"}
    _reset_peak()
    before = _vm("VmRSS")
    started = time.process_time()
    answer = await harness.client.post("/api/activities/import", headers=auth,
                                       files={"file": ("export.zip", spaces_archive)})
    cpu = time.process_time() - started
    growth = _vm("VmHWM") - before
    print(f"blank-member zip: +{growth / MIB:.0f} MiB peak RSS, {cpu:.2f} s CPU")
    assert answer.status_code == 200, answer.text
    results = answer.json()["results"]
    assert len(results) == members
    assert {r["status"] for r in results} == {"rejected"}
    assert growth < 200 * MIB, f"peak RSS grew by {growth / MIB:.0f} MiB"


def test_a_rejected_member_keeps_no_traceback(tmp_path: Path) -> None:
    """What iter_archive yields for a refused member holds its reason and message only:
    no traceback (whose frames held the member's bytes), no chained exception."""
    data = spaces_zip(tmp_path / "one.zip", 1).read_bytes()
    [member] = list(iter_archive(data))
    assert isinstance(member.result, ImportRejected)
    assert member.result.__traceback__ is None
    assert member.result.__context__ is None and member.result.__cause__ is None


def test_a_blank_member_is_refused_after_its_first_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member whose first chunk is nothing but white space is never an activity (the
    XML prolog must show within 64 KiB): it is refused without inflating the rest."""
    read: list[int] = []
    real = importers._archive._chunks

    def counting(stream: io.BufferedIOBase) -> object:
        for chunk in real(stream):  # type: ignore[arg-type]
            read.append(len(chunk))
            yield chunk

    monkeypatch.setattr(importers._archive, "_chunks", counting)
    data = spaces_zip(tmp_path / "one.zip", 1).read_bytes()
    [member] = list(iter_archive(data))
    assert isinstance(member.result, ImportRejected)
    assert member.result.reason == "corrupt"
    assert "white space" in member.result.message
    assert sum(read) <= 1 * MIB


def tiny_zip(members: int) -> bytes:
    """`members` tiny GPX files (three points over 15 minutes, ~400 bytes each), as the
    review's 5,000-member zip of 1.4 MB."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(members):
            archive.writestr(f"activities/{i}.gpx", sparse_gpx(i, days=0.01))
    return buf.getvalue()


async def _person(h: Harness) -> dict[str, str]:
    body = await h.register(f"arc-{uuid.uuid4().hex[:8]}@example.com")
    h.client.cookies.clear()
    return {"authorization": f"Bearer {body['token']}"}


@pytest.mark.parametrize("migrated_db", ["sqlite"], indirect=True)
async def test_an_archive_import_stops_at_its_time_budget(
    harness_factory: Callable[..., Any],
) -> None:
    """Issue 28: 5,000 tiny GPX files in one zip cost 54 s of server CPU in one request.
    Past PACEKEEPER_IMPORT_ARCHIVE_SECONDS the rest of the members are reported as not
    imported (read no further), and what was imported is kept."""
    async with harness_factory(import_archive_seconds=1.0) as h:
        auth = await _person(h)
        data = tiny_zip(1500)
        started = time.process_time()
        answer = await h.client.post("/api/activities/import", headers=auth,
                                     files={"file": ("export.zip", data)})
        cpu = time.process_time() - started
        assert answer.status_code == 200, answer.text
        results = answer.json()["results"]
        imported = [r for r in results if r["status"] == "imported"]
        late = [r for r in results if r["status"] == "rejected"]
        print(f"1,500 tiny GPX with a 1 s budget: {cpu:.2f} s CPU, {len(imported)} imported")
        assert len(results) == 1500 and imported and late
        assert {r["reason"] for r in late} == {"too_large"}
        assert late[0]["message"] == (
            "not imported: this import reached its time limit of 1 s; import the archive "
            "again to add the rest (files already imported are recognised)")
        assert cpu < 5.0
        listed = await h.client.get("/api/activities", headers=auth, params={"limit": 200})
        assert len(listed.json()["activities"]) == min(200, len(imported))


@pytest.mark.parametrize("migrated_db", ["sqlite"], indirect=True)
async def test_imports_are_rate_limited_per_person(
    harness_factory: Callable[..., Any],
) -> None:
    """PACEKEEPER_IMPORT_LIMIT_PER_MINUTE files a minute per person; an archive costs the
    whole minute (it may run for PACEKEEPER_IMPORT_ARCHIVE_SECONDS): a second archive
    right after the first is 429, another person is not affected."""
    async with harness_factory(import_limit_per_minute=5) as h:
        first, second = await _person(h), await _person(h)
        data = tiny_zip(2)
        ok = await h.client.post("/api/activities/import", headers=first,
                                 files={"file": ("a.zip", data)})
        assert ok.status_code == 200, ok.text
        again = await h.client.post("/api/activities/import", headers=first,
                                    files={"file": ("b.zip", data)})
        assert again.status_code == 429, again.text
        assert again.json() == {"error": "rate_limited", "message":
                                "too many imports; retry in a minute"}
        assert int(again.headers["retry-after"]) >= 1
        other = await h.client.post("/api/activities/import", headers=second,
                                    files={"file": ("a.zip", data)})
        assert other.status_code == 200, other.text


def test_an_archive_over_the_member_cap_is_refused_whole() -> None:
    """20,000 activity files per archive (was 100,000): a Strava bulk export holds one
    file per activity, and 20,000 is 27 years of two a day."""
    assert importers.DEFAULT_MAX_MEMBERS == 20_000
    with pytest.raises(ImportRejected) as info:
        next(iter_archive(tiny_zip(4), max_members=3))
    assert info.value.reason == "too_large"
    assert info.value.message == "the archive holds more than 3 activity files"


def test_a_gzipped_blank_member_is_refused_after_its_first_chunk(tmp_path: Path) -> None:
    """The same 49 MB of spaces as `.gpx.gz` inside the zip: refused once the first
    inflated chunk shows nothing but white space, not after inflating all of it."""
    blank = gzip.compress(b" " * SPACES_MEMBER, compresslevel=9)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        for i in range(10):
            archive.writestr(f"activities/{i}.gpx.gz", blank)
    started = time.process_time()
    members = list(iter_archive(buf.getvalue()))
    cpu = time.process_time() - started
    print(f"ten gzipped blank members: {cpu:.2f} s CPU")
    assert [m.result.reason for m in members
            if isinstance(m.result, ImportRejected)] == ["corrupt"] * 10
    assert cpu < 0.5
