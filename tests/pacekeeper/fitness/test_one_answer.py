"""Issue 27, items 6, 11, 12 and 13 through the service, its tools and HTTP twins, on
SQLite and PostgreSQL: TSS and the CTL built on it by hand; one answer per question
across every tool and route; empty and impossible states named."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _store, _today


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


def _run_tcx(start: datetime, seconds: int, speed: float, first_m: float) -> bytes:
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    points = "".join(
        f"<Trackpoint><Time>{(start + timedelta(seconds=i)).strftime(stamp)}</Time>"
        f"<DistanceMeters>{first_m + speed * i:.1f}</DistanceMeters></Trackpoint>"
        for i in range(seconds + 1))
    head = start.strftime(stamp)
    return ("<?xml version=\"1.0\"?><TrainingCenterDatabase xmlns=\"http://www.garmin.com/"
            "xmlschemas/TrainingCenterDatabase/v2\"><Activities><Activity Sport=\"Running\">"
            f"<Id>{head}</Id><Lap StartTime=\"{head}\"><TotalTimeSeconds>{seconds}"
            f"</TotalTimeSeconds><Track>{points}</Track></Lap></Activity></Activities>"
            "</TrainingCenterDatabase>").encode()


def _daniels_vdot(meters: float, seconds: float) -> float:
    """Daniels-Gilbert by hand (sports-science.md): VO2 of the speed in m/min over the
    fraction of VO2max sustainable for the minutes run."""
    v, t = meters / (seconds / 60), seconds / 60
    vo2 = -4.60 + 0.182258 * v + 0.000104 * v * v
    fraction = 0.8 + 0.1894393 * math.exp(-0.012778 * t) + 0.2989558 * math.exp(
        -0.1932605 * t)
    return vo2 / fraction


async def test_best_efforts_of_a_run_whose_distance_starts_above_zero(harness: Harness
                                                                      ) -> None:
    """Issue 27 item 11 through import, the tool and its HTTP twin: a 10,400.7 m run at
    exactly 4 m/s whose first trackpoint is at 0.7 m (as GPS watches and the sandbox
    write) read "400 m in -2500 s"; every effort is distance / 4 m/s, VDOT Daniels'. An
    impossible effort stored before the fix (-5.0 s) is never shown."""
    h = harness
    auth, owner = await _person(h, "efforts-start@example.com")
    day = _today(h) - timedelta(days=2)
    start = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=7)
    imported = await h.client.post("/api/activities/import", headers=auth, files={
        "file": ("run.tcx", _run_tcx(start, 2600, 4.0, 0.7))})
    assert imported.status_code == 201, imported.text
    # A run stored with what the old search wrote: 10 km in -5.0 s (VDOT 1,140,920).
    await _store(h, owner, [{"start": start - timedelta(days=3), "sport": "run",
                             "distance": 10022.0,
                             "metrics": {"best_efforts": {"10km": -5.0, "5km": -1.0}}}])
    tool = (await _mcp(h, auth, "get_best_efforts", {}))["structuredContent"]
    http = (await h.client.get("/api/best-efforts", headers=auth)).json()
    assert tool == http
    got = {e["distance"]: e for e in tool["efforts"]}
    for name in ("400m", "800m", "1km", "1mile", "5km", "10km"):
        meters = got[name]["distance_m"]
        assert got[name]["time_s"] == round(meters / 4.0, 1), name
    assert "15km" not in got
    assert tool["vdot"] == round(_daniels_vdot(10000.0, 2500.0), 1)
    assert "10km 41:40" in tool["summary"]
