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


# -- empty and impossible states say so (issue 27 item 13) --------------------------------


async def test_zones_without_thresholds_say_what_is_missing(harness: Harness) -> None:
    """Rides with no zone times (no FTP when they were stored): the zone distribution
    said "0 activities (pyramidal)". It names the missing threshold and how to set it,
    and has no distribution; with an FTP but no power data it says that instead."""
    h = harness
    auth, owner = await _person(h, "zones-empty@example.com")
    day = _today(h)
    await _store(h, owner, [{"start": datetime.combine(day - timedelta(days=k),
                                                       datetime.min.time(), UTC)
                             + timedelta(hours=8), "metrics": {"load": 50.0}}
                            for k in range(3)])
    for kind, setting, what in (("power", "ftp_watts", "no FTP set"),
                                ("pace", "threshold_pace_s_per_km", "no threshold pace set")):
        tool = (await _mcp(h, auth, "get_zone_distribution", {"kind": kind})
                )["structuredContent"]
        http = (await h.client.get("/api/zone-distribution", headers=auth,
                                   params={"kind": kind})).json()
        assert tool == http
        assert tool["distribution"] is None and tool["zones"] == []
        assert tool["missing"] == [setting]
        assert what in tool["summary"] and setting in tool["summary"]
        assert "update_athlete_settings" in tool["summary"]
        assert "pyramidal" not in tool["summary"] and "0 activities" not in tool["summary"]
    hr = (await _mcp(h, auth, "get_zone_distribution", {"kind": "hr"}))["structuredContent"]
    assert hr["missing"] == ["lthr_bpm", "max_hr_bpm"]
    await h.client.patch("/api/athlete", headers=auth,
                         json={"ftp_watts": 250, "valid_from": "2020-01-01"})
    power = (await _mcp(h, auth, "get_zone_distribution", {"kind": "power"})
             )["structuredContent"]
    assert power["missing"] == [] and power["distribution"] is None
    assert "no activity with power data" in power["summary"]


async def test_wbal_below_zero_says_cp_or_w_prime_is_too_low(harness: Harness) -> None:
    """An hour at 250 W against CP 150 W and W' 10 kJ: the 2015 model spends (P - CP) =
    100 J a second from the first second on, so W' balance reaches 10,000 - 100 x 3,600 =
    -350,000 J (-3500 %) at the last second: impossible, so CP or W' is too low. It said
    "lowest -350.0 kJ (-3500 %)" and nothing else; the answer now says so, and the series
    stops at 0."""
    h = harness
    auth, _ = await _person(h, "wbal-low@example.com")
    start = datetime.combine(_today(h) - timedelta(days=1), datetime.min.time(), UTC)
    ride = (await h.client.post("/api/activities/import", headers=auth, files={
        "file": ("hour.tcx", _tcx([250.0] * 3600, start + timedelta(hours=8)))})).json()
    ident = ride["activity"]["id"]
    args = {"activity_id": ident, "cp_watts": 150, "w_prime_j": 10000,
            "model": "skiba2015", "max_points": 100}
    tool = (await _mcp(h, auth, "get_wbal", args))["structuredContent"]
    http = (await h.client.get(f"/api/activities/{ident}/wbal", headers=auth, params={
        k: str(v) for k, v in args.items() if k != "activity_id"})).json()
    assert tool == http
    assert tool["min_w_prime_bal_j"] == pytest.approx(10000 - 100 * 3600, abs=1)
    assert "too low" in tool["warning"] and "-3500 %" in tool["warning"]
    assert "raise cp_watts or w_prime_j" in tool["warning"]
    assert tool["warning"] in tool["summary"]
    assert min(p["w_prime_bal_j"] for p in tool["series"]) == 0
    assert tool["series"][0]["w_prime_bal_j"] == pytest.approx(10000 - 100, abs=1)
    # Within W': no warning.
    fine = (await _mcp(h, auth, "get_wbal", {**args, "cp_watts": 245, "w_prime_j": 20000})
            )["structuredContent"]
    assert "warning" not in fine and fine["min_w_prime_bal_j"] == pytest.approx(2000, abs=1)
