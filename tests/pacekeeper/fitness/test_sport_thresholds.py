"""Figures of one sport (issue 27 item 10): running power never feeds cycling figures.

Activities are imported as TCX files built here from power series chosen by hand, through
the service's own import; every expected figure is computed with plain numpy over the
series of the sport asked for (never read back through the service)."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from pacekeeper.fitness import Owner
from pacekeeper.fitness import analytics as an
from tests.pacekeeper.conftest import Harness

STD = np.array(an.STANDARD_DURATIONS, dtype=float)
_TPX = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"


def tcx(sport: str, start: datetime, watts: np.ndarray | None = None,
        hr: np.ndarray | None = None, speed: np.ndarray | None = None) -> bytes:
    """A one-lap TCX with a trackpoint a second (``Watts``, ``HeartRateBpm``,
    ``DistanceMeters`` accumulated from ``speed``)."""
    n = len(next(x for x in (watts, hr, speed) if x is not None))
    points, dist = [], 0.0
    for i in range(n):
        t = (start + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        extra = ""
        if speed is not None:
            dist += float(speed[i])
            extra += f"<DistanceMeters>{dist:.3f}</DistanceMeters>"
        if hr is not None:
            extra += f"<HeartRateBpm><Value>{int(hr[i])}</Value></HeartRateBpm>"
        if watts is not None:
            extra += (f'<Extensions><TPX xmlns="{_TPX}"><Watts>{int(watts[i])}</Watts>'
                      "</TPX></Extensions>")
        points.append(f"<Trackpoint><Time>{t}</Time>{extra}</Trackpoint>")
    s = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    return ('<?xml version="1.0" encoding="UTF-8"?><TrainingCenterDatabase xmlns='
            '"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities>'
            f'<Activity Sport="{sport}"><Id>{s}</Id><Lap StartTime="{s}"><TotalTimeSeconds>'
            f"{n}</TotalTimeSeconds><Track>{''.join(points)}</Track></Lap></Activity>"
            "</Activities></TrainingCenterDatabase>").encode()


def blocks(rng: np.random.Generator, *parts: tuple[float, float]) -> np.ndarray:
    """Whole watts: (minutes, mean W) blocks with +-8 W noise."""
    mean = np.concatenate([np.full(int(m * 60), w) for m, w in parts])
    return np.clip(np.round(mean + rng.normal(0.0, 8.0, len(mean))), 0, None)


def mean_max(series: list[np.ndarray]) -> np.ndarray:
    """The best mean over any window of each standard duration, over all the series."""
    out = np.full(len(STD), np.nan)
    for x in series:
        c = np.concatenate([[0.0], np.cumsum(x)])
        for i, d in enumerate(STD.astype(int)):
            if d <= len(x):
                v = float(((c[d:] - c[:-d]) / d).max())
                out[i] = v if np.isnan(out[i]) else max(out[i], v)
    return out


async def person(h: Harness, email: str) -> tuple[dict[str, str], Owner]:
    body = await h.register(email)
    h.client.cookies.clear()
    user = await h.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    return {"authorization": f"Bearer {body['token']}"}, Owner(user.id, user.tenant_id)


async def mcp(h: Harness, auth: dict[str, str], name: str, args: dict[str, Any]
              ) -> dict[str, Any]:
    headers = await h.mcp_session(auth)
    response = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": args}})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


async def put(h: Harness, owner: Owner, data: bytes) -> str:
    outcomes = await h.services.fitness.import_file(owner, data, "a.tcx", bounded=False)
    assert outcomes[0].activity is not None, outcomes
    return str(outcomes[0].activity.id)


def at(day: date, hour: int) -> datetime:
    return datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=hour)


async def test_running_power_never_feeds_cycling_figures(harness: Harness) -> None:
    """A rider with two rides and one run at a high running power (250 W for 45 min):
    the cycling curve, 20 min best, FTP estimate, CP / W', 5 min VO2max and power zone
    time are the rides' alone (plain numpy over the ride series); with sport=run they
    are the run's; every answer says which sport it used."""
    h = harness
    auth, owner = await person(h, "sport-power@example.com")
    today = h.clock().date()
    rng = np.random.default_rng(27)
    rides = [blocks(rng, (10, 140), (4, 245), (6, 150), (8, 205), (5, 140), (20, 172),
                    (7, 130)),
             blocks(rng, (10, 135), (1, 330), (2, 270), (10, 150), (12, 185), (15, 140))]
    run = blocks(rng, (45, 250))
    # A running FTP too: the run has power zones of its own, which must not count.
    await h.services.fitness.update_athlete(
        owner, {"ftp_watts": 200, "weight_kg": 70.0, "run_ftp_watts": 240},
        today - timedelta(days=60))
    await put(h, owner, tcx("Biking", at(today - timedelta(days=10), 8), rides[0]))
    await put(h, owner, tcx("Biking", at(today - timedelta(days=5), 8), rides[1]))
    run_id = await put(h, owner, tcx("Running", at(today - timedelta(days=3), 8), run))
    i20, i5 = an.STANDARD_DURATIONS.index(1200), an.STANDARD_DURATIONS.index(300)
    ride_curve, run_curve = mean_max(rides), mean_max([run])
    # The run would win at 5 and 20 min if it counted.
    assert run_curve[i20] > ride_curve[i20] + 30 and run_curve[i5] > ride_curve[i5] + 5

    curve = (await h.client.get("/api/curves/power", headers=auth,
                                params={"durations_s": "300,1200"})).json()
    assert curve["sport"] == "ride" and curve["activities"] == 2
    watts = {p["duration_s"]: p["watts"] for p in curve["points"]}
    assert watts[1200] == pytest.approx(ride_curve[i20], abs=0.5)  # W: whole
    assert watts[300] == pytest.approx(ride_curve[i5], abs=0.5)  # W: whole
    tool = await mcp(h, auth, "get_power_curve", {"durations_s": [300, 1200]})
    assert tool["structuredContent"] == curve
    as_run = (await h.client.get("/api/curves/power", headers=auth,
                                 params={"durations_s": "1200", "sport": "run"})).json()
    assert as_run["sport"] == "run" and as_run["activities"] == 1
    assert as_run["points"][0]["watts"] == pytest.approx(run_curve[i20], abs=0.5)
    one = (await h.client.get("/api/curves/power", headers=auth,
                              params={"activity_id": run_id, "durations_s": "60"})).json()
    assert one["sport"] == "run"

    ftp = (await h.client.get("/api/ftp-estimate", headers=auth)).json()
    assert ftp["sport"] == "ride"
    by = {e["method"]: e["watts"] for e in ftp["estimates"]}
    assert by["20min"] == pytest.approx(0.95 * ride_curve[i20], abs=0.5)
    fit = an.critical_power_2p(STD, ride_curve, 180.0, 1200.0)
    assert fit is not None and by["cp"] == pytest.approx(fit.cp, abs=0.5)
    assert ftp["current_ftp_watts"] == 200
    run_ftp = (await h.client.get("/api/ftp-estimate", headers=auth,
                                  params={"sport": "run"})).json()
    assert run_ftp["sport"] == "run"
    assert {e["method"]: e["watts"] for e in run_ftp["estimates"]}["20min"] == \
        pytest.approx(0.95 * run_curve[i20], abs=0.5)
    assert run_ftp["current_ftp_watts"] == 240  # the run's own, not the cycling 200

    cp = (await h.client.get("/api/critical-power", headers=auth)).json()
    full = an.critical_power_2p(STD, ride_curve)
    assert full is not None and cp["sport"] == "ride"
    assert cp["cp_watts"] == pytest.approx(full.cp, abs=0.5)
    assert cp["w_prime_j"] == pytest.approx(full.w_prime, abs=0.5)
    tool_cp = await mcp(h, auth, "estimate_critical_power", {})
    assert tool_cp["structuredContent"] == cp

    vo2 = (await mcp(h, auth, "estimate_vo2max", {}))["structuredContent"]
    assert vo2["cycling_vo2max"] == pytest.approx(16.6 + 8.87 * ride_curve[i5] / 70.0,
                                                  abs=0.05)

    # The summaries' power bests are the rides' too.
    summary = (await h.client.get("/api/training-summary", headers=auth)).json()
    assert summary["recent_bests"]["power_1200s_w"] == round(ride_curve[i20])
    period = (await h.client.get("/api/period-summary", headers=auth)).json()
    assert period["power_20min_w"] == round(ride_curve[i20])

    # Power zones: the rides' seconds alone, in Coggan's levels of the cycling FTP.
    bounds = np.array([0, 0.55, 0.75, 0.90, 1.05, 1.20, 1.50]) * 200
    expected = np.zeros(7)
    for x in rides:
        expected += np.bincount(np.searchsorted(bounds, x, side="right") - 1, minlength=7)
    zones = (await h.client.get("/api/zone-distribution", headers=auth)).json()
    assert zones["sport"] == "ride" and zones["activities"] == 2
    assert [z["seconds"] for z in zones["zones"]] == expected.tolist()
    tool_zones = await mcp(h, auth, "get_zone_distribution", {})
    assert tool_zones["structuredContent"] == zones

    bad = await h.client.get("/api/curves/power", headers=auth, params={"sport": "bike"})
    assert bad.status_code == 400 and "sport must be one of" in bad.json()["message"]
    bad_tool = await mcp(h, auth, "estimate_ftp", {"sport": "bike"})
    assert bad_tool["isError"] is True
    assert "sport must be one of" in bad_tool["content"][0]["text"]


async def patch(h: Harness, auth: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    """PATCH /api/athlete, and wait for the recompute it queues."""
    response = await h.client.patch("/api/athlete", headers=auth, json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    if result.get("recompute_job"):
        assert await h.services.jobs.wait(result["recompute_job"]) == "succeeded"
    return result


async def test_thresholds_per_sport_with_history_and_fallback(harness: Harness) -> None:
    """Cycling FTP, running FTP and threshold pace, swim CSS, LTHR and max HR per sport,
    each with its valid_from history; a sport without its own heart rate takes the
    general one and the answer says so; a threshold a sport has none of is a 400."""
    h = harness
    auth, _ = await person(h, "sport-settings@example.com")
    today = h.clock().date()
    d0, d1 = (today - timedelta(days=40)).isoformat(), (today - timedelta(days=10)).isoformat()
    await patch(h, auth, {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190,
                          "valid_from": d0})
    await patch(h, auth, {"sport": "run", "ftp_watts": 280, "lthr_bpm": 172,
                          "threshold_pace_s_per_km": 270, "valid_from": d0})
    await patch(h, auth, {"sport": "run", "ftp_watts": 290, "valid_from": d1})
    await patch(h, auth, {"sport": "swim", "threshold_pace_s_per_100m": 95,
                          "valid_from": d1})
    body = (await h.client.get("/api/athlete", headers=auth)).json()
    assert body["settings"] == {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190,
                                "run_ftp_watts": 290, "run_lthr_bpm": 172,
                                "threshold_pace_s_per_km": 270.0,
                                "swim_threshold_pace_s_per_100m": 95.0}
    assert body["by_sport"] == {
        "ride": {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190,
                 "from_general": ["lthr_bpm", "max_hr_bpm"]},
        "run": {"ftp_watts": 290, "lthr_bpm": 172, "max_hr_bpm": 190,
                "threshold_pace_s_per_km": 270.0, "from_general": ["max_hr_bpm"]},
        "swim": {"threshold_pace_s_per_100m": 95.0, "lthr_bpm": 165, "max_hr_bpm": 190,
                 "from_general": ["lthr_bpm", "max_hr_bpm"]}}
    assert body["history"]["run_ftp_watts"] == [{"valid_from": d0, "value": 280},
                                                {"valid_from": d1, "value": 290}]
    # The tool sets the same way and its summary names the fallbacks.
    tool = await mcp(h, auth, "update_athlete_settings",
                     {"sport": "ride", "lthr_bpm": 160, "valid_from": d1})
    assert tool["structuredContent"]["by_sport"]["ride"] == {
        "ftp_watts": 250, "lthr_bpm": 160, "max_hr_bpm": 190, "from_general": ["max_hr_bpm"]}
    got = (await mcp(h, auth, "get_athlete", {}))["structuredContent"]
    assert "ride max_hr_bpm from the general value" in got["summary"]
    # A sport's zones come from its own thresholds.
    zones = (await h.client.get("/api/zones", headers=auth, params={"sport": "run"})).json()
    assert zones["power"][3]["low"] == 261  # Coggan L4 from 90 % of the running FTP 290
    # Bad input: a threshold the sport has none of, an unknown sport; nothing stored.
    for bad in ({"sport": "swim", "ftp_watts": 200}, {"sport": "bike", "lthr_bpm": 160},
                {"sport": "run", "weight_kg": 70}):
        response = await h.client.patch("/api/athlete", headers=auth, json=bad)
        assert response.status_code == 400, bad
        assert response.json()["error"] == "validation_error"
    assert (await h.client.get("/api/athlete", headers=auth)).json()["settings"] == \
        {**body["settings"], "ride_lthr_bpm": 160}


def hr_tss_by_hand(hr: float, lthr: float, rest: float, top: float) -> float:
    """TrainingPeaks hrTSS for a constant heart rate over one hour: Banister TRIMP (men's
    0.64 e^(1.92 x)) over the TRIMP of one hour at LTHR, x 100."""
    x, xt = (hr - rest) / (top - rest), (lthr - rest) / (top - rest)
    return 100.0 * (x * math.exp(1.92 * x)) / (xt * math.exp(1.92 * xt))


async def test_a_run_is_loaded_against_running_thresholds_never_the_cycling_ftp(
        harness: Harness) -> None:
    """An easy hour's run at 225 W of running power, 2.9 m/s on the flat, 140 bpm, for a
    rider with a cycling FTP of 250 W (IF 0.9, TSS 81 if it counted): no running
    threshold -> hrTSS from the general LTHR; the run's own LTHR -> hrTSS from it;
    a threshold pace -> rTSS; a running FTP -> running power TSS. A ride of the same
    power keeps IF 0.9 against the cycling FTP."""
    h = harness
    auth, owner = await person(h, "sport-load@example.com")
    today = h.clock().date()
    n = 3600
    await patch(h, auth, {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190,
                          "resting_hr_bpm": 50, "sex": "M",
                          "valid_from": (today - timedelta(days=60)).isoformat()})
    run_id = await put(h, owner, tcx("Running", at(today - timedelta(days=3), 8),
                                     np.full(n, 225.0), np.full(n, 140.0), np.full(n, 2.9)))
    ride_id = await put(h, owner, tcx("Biking", at(today - timedelta(days=2), 8),
                                      np.full(n, 225.0), np.full(n, 140.0)))

    async def metrics(activity_id: str) -> dict[str, Any]:
        response = await h.client.get(f"/api/activities/{activity_id}/analysis",
                                      headers=auth)
        assert response.status_code == 200, response.text
        found: dict[str, Any] = response.json()["metrics"]
        return found

    ride = await metrics(ride_id)
    assert ride["intensity_factor"] == pytest.approx(0.9, abs=0.005)
    assert ride["load"] == pytest.approx(81.0, abs=0.05) and ride["load_method"] == "power"
    run = await metrics(run_id)
    assert run.get("intensity_factor") is None and run.get("tss") is None
    assert run["load_method"] == "heart_rate"
    assert run["load"] == pytest.approx(hr_tss_by_hand(140, 165, 50, 190), abs=0.05)

    since = (today - timedelta(days=30)).isoformat()
    await patch(h, auth, {"sport": "run", "lthr_bpm": 170, "valid_from": since})
    run = await metrics(run_id)
    assert run["load"] == pytest.approx(hr_tss_by_hand(140, 170, 50, 190), abs=0.05)
    assert (await metrics(ride_id))["load"] == pytest.approx(81.0, abs=0.05)

    await patch(h, auth, {"sport": "run", "threshold_pace_s_per_km": 270,
                          "valid_from": since})
    run = await metrics(run_id)
    # rTSS = 100 x hours x (NGP speed / threshold speed)^2; flat and even: NGP = 2.9 m/s.
    assert run["load_method"] == "running"
    assert run["load"] == pytest.approx(100.0 * (2.9 / (1000.0 / 270.0)) ** 2, abs=0.05)

    await patch(h, auth, {"sport": "run", "ftp_watts": 300, "valid_from": since})
    run = await metrics(run_id)
    assert run["load_method"] == "power"
    assert run["intensity_factor"] == pytest.approx(0.75, abs=0.005)
    assert run["load"] == pytest.approx(100.0 * 0.75**2, abs=0.05)
    assert (await metrics(ride_id))["intensity_factor"] == pytest.approx(0.9, abs=0.005)
