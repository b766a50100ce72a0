"""Issue 27, items 6, 11, 12 and 13 through the service, its tools and HTTP twins, on
SQLite and PostgreSQL: TSS and the CTL built on it by hand; one answer per question
across every tool and route; empty and impossible states named."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _today


def _tcx(watts: list[float], start: datetime, sport: str = "Biking") -> bytes:
    """A TCX file with one trackpoint a second carrying power (Garmin's TPX Watts)."""
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    points = "".join(
        f"<Trackpoint><Time>{(start + timedelta(seconds=i)).strftime(stamp)}</Time>"
        f"<DistanceMeters>{i * 8.0}</DistanceMeters><Extensions><TPX xmlns="
        f"\"http://www.garmin.com/xmlschemas/ActivityExtension/v2\"><Watts>{w:g}</Watts>"
        "</TPX></Extensions></Trackpoint>" for i, w in enumerate(watts))
    head = start.strftime(stamp)
    return ("<?xml version=\"1.0\"?><TrainingCenterDatabase xmlns=\"http://www.garmin.com/"
            f"xmlschemas/TrainingCenterDatabase/v2\"><Activities><Activity Sport=\"{sport}\">"
            f"<Id>{head}</Id><Lap StartTime=\"{head}\"><TotalTimeSeconds>{len(watts)}"
            f"</TotalTimeSeconds><Track>{points}</Track></Lap></Activity></Activities>"
            "</TrainingCenterDatabase>").encode()


async def test_an_hour_at_ftp_is_100_tss_and_its_ctl_by_hand(harness: Harness) -> None:
    """Issue 27 item 6: an imported hour at exactly FTP stores TSS 100 (Coggan; it was
    99.19), and the chart's CTL / ATL on its day and TSB the next day are Coggan's
    exponential averages of 100 from zero, by hand."""
    h = harness
    auth, _ = await _person(h, "tss-hour@example.com")
    day = _today(h) - timedelta(days=1)
    await h.client.patch("/api/athlete", headers=auth,
                         json={"ftp_watts": 250, "valid_from": "2020-01-01"})
    start = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=8)
    imported = await h.client.post("/api/activities/import", headers=auth, files={
        "file": ("hour.tcx", _tcx([250.0] * 3600, start))})
    assert imported.status_code == 201, imported.text
    assert imported.json()["activity"]["tss"] == pytest.approx(100.0, abs=1e-6)
    chart = (await h.client.get("/api/fitness-chart", headers=auth, params={
        "from": day.isoformat(), "to": (day + timedelta(days=1)).isoformat()})).json()
    ctl = 100.0 * (1 - math.exp(-1 / 42))  # 2.353; 99.19 gave 2.334
    atl = 100.0 * (1 - math.exp(-1 / 7))
    first, second = chart["days"]
    assert first["load"] == 100.0
    assert first["ctl"] == round(ctl, 1) and first["atl"] == round(atl, 1)
    assert second["tsb"] == round(ctl - atl, 1)
