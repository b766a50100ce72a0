"""Issue 27, items 6, 11, 12 and 13 through the service, its tools and HTTP twins, on
SQLite and PostgreSQL: TSS and the CTL built on it by hand; one answer per question
across every tool and route; empty and impossible states named."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

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
        assert got[name]["time_s"] == round(meters / 4.0), name  # s: whole
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


async def test_a_chart_of_activities_without_load_says_what_is_missing(harness: Harness
                                                                       ) -> None:
    """Activities stored with no training load (no threshold to measure them against: a
    person who connected a provider and set nothing) made a chart of zeros saying
    "CTL 0.0 ... 0 training days" and nothing more. It counts them and names the settings
    that give them a load; the ones with a load are not counted."""
    h = harness
    auth, owner = await _person(h, "chart-unmeasured@example.com")
    day = _today(h)
    at = [datetime.combine(day - timedelta(days=k), datetime.min.time(), UTC)
          + timedelta(hours=8) for k in range(5)]
    await _store(h, owner, [{"start": t, "metrics": {}} for t in at[:3]]
                 + [{"start": t, "metrics": {"load": 40.0}} for t in at[3:]])
    tool = (await _mcp(h, auth, "get_fitness_chart", {}))["structuredContent"]
    http = (await h.client.get("/api/fitness-chart", headers=auth)).json()
    assert tool == http
    assert "3 activities have no training load" in tool["summary"]
    for setting in ("ftp_watts", "threshold_pace_s_per_km", "lthr_bpm", "max_hr_bpm",
                    "resting_hr_bpm", "update_athlete_settings"):
        assert setting in tool["summary"]
    assert "2 training days" in tool["summary"]
    other, _ = await _person(h, "chart-measured@example.com")
    clean = (await _mcp(h, other, "get_fitness_chart", {}))["structuredContent"]
    assert "no training load" not in clean["summary"]


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


# -- one answer per question (issue 27 item 12) ------------------------------------------

# Each quantity as the answers name it. A value found under one of these keys is that
# quantity on the date (or period) of the nearest enclosing "date" / "week" / "from".."to".
_DAY_KEYS = {"tsb": "tsb", "ctl": "ctl", "atl": "atl", "hrv_rmssd_ms": "hrv",
             "resting_hr": "resting_hr"}


def _collect(node: Any, where: str, day: str, found: dict[tuple[str, str], set[float]],
             source: str) -> None:
    """Walk an answer: every figure of a known quantity, by (quantity, day or period)."""
    if isinstance(node, list):
        for item in node:
            _collect(item, where, day, found, source)
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("date"), str) and len(node["date"]) == 10:
        day = node["date"]
    if isinstance(node.get("week"), str):
        start = date.fromisoformat(node["week"])
        day = f"{start}..{start + timedelta(days=6)}"
    if isinstance(node.get("from"), str) and isinstance(node.get("to"), str):
        day = f"{node['from']}..{node['to']}"
    for key, value in node.items():
        if key in _DAY_KEYS and isinstance(value, (int, float)) and ".." not in day:
            found.setdefault((_DAY_KEYS[key], day), set()).add(round(float(value), 1))
            found.setdefault(("seen:" + _DAY_KEYS[key], day), set()).add(hash(source))
        elif key == "moving_hours" and isinstance(value, (int, float)) and ".." in day \
                and "by_sport" in node:  # a period's total, not one sport's
            found.setdefault(("moving_hours", day), set()).add(round(float(value), 1))
        elif key == "tsb_tomorrow" and isinstance(value, (int, float)):
            tomorrow = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
            found.setdefault(("tsb", tomorrow), set()).add(round(float(value), 1))
    # A readiness input: the day's HRV / resting HR as "value".
    if node.get("name") in ("hrv", "resting_hr") and isinstance(node.get("value"), float):
        found.setdefault((node["name"], day), set()).add(round(node["value"], 1))
    # A race prediction: Daniels' time for a distance (Riegel's is named as such).
    if node.get("method") == "vdot" and "distance_m" in node:
        found.setdefault((f"race:{node['distance_m']:g}", "now"), set()).add(
            round(node["time_s"]))
    if "predicted_time_s" in node and isinstance(node.get("goal"), dict):
        found.setdefault((f"race:{node['goal']['distance_m']:g}", "now"), set()).add(
            round(node["predicted_time_s"]))
    for value in node.values():
        _collect(value, where, day, found, source)


async def _tools(h: Harness, auth: dict[str, str]) -> list[dict[str, Any]]:
    from tests.pacekeeper.fitness.test_analysis import _session
    headers = await _session(h, auth)
    listed = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 9, "method": "tools/list"})
    tools: list[dict[str, Any]] = listed.json()["result"]["tools"]
    return tools


async def test_every_answer_gives_one_value_per_quantity(harness: Harness) -> None:
    """A person with 300 days of rides and runs (moving time shorter than elapsed), a
    race goal, best efforts and 60 days of HRV and resting HR from two devices. Every
    read-only tool of the registry (tools/list), called with its defaults (and the ids,
    dates and kinds its required parameters need), and every GET route of the analysis
    API are walked; each TSB, CTL, ATL, HRV, resting HR, race prediction and period
    moving-hours figure is gathered by its day or period: one value each, and the
    value by hand (a plain loop over the whole history for the PMC, the stored daily
    figure, Daniels' equations, the stored moving times). It gave TSB 0.4 / 0.5 / +3.4 /
    +3.5 today, CTL 30.5 or 30.4 by range, HRV 44.48 against 46.7, 10 km 45:46 against
    43:20, a month's hours moving in one answer and elapsed in another."""
    from pacekeeper.fitness._records import DailyHealth
    from pacekeeper.fitness._tables import ActivityRow
    from pacekeeper.http.analysis import TWINS
    from tests._pmc import plain_pmc

    h = harness
    auth, owner = await _person(h, "one-answer@example.com")
    today = _today(h)
    n = 300
    first = today - timedelta(days=n - 1)
    loads = [0.0] * n
    items = []
    for i in range(n):
        if i % 7 in (2, 5):
            continue
        load = 40.0 + 7 * (i % 11)
        run = i % 3 == 0
        loads[i] = load
        items.append({"day": first + timedelta(days=i), "load": load,
                      "sport": "run" if run else "ride",
                      "elapsed": 3600.0 + 60 * (i % 13), "moving": 3300.0 + 45 * (i % 13),
                      "efforts": {"1mile": 400.0 + (i % 5), "5km": 1290.0 + 3 * (i % 7),
                                  "10km": 2600.0 + 5 * (i % 9)} if run else None})
    now = h.clock()
    ids = []
    async with h.services.fitness.store._sessions() as session, session.begin():
        for it in items:
            ident = uuid.uuid4()
            ids.append((ident, it["sport"]))
            metrics: dict[str, Any] = {"load": it["load"]}
            if it["efforts"]:
                metrics["best_efforts"] = it["efforts"]
            session.add(ActivityRow(
                id=ident, user_id=owner.user_id, tenant_id=owner.tenant_id,
                sport=it["sport"], start_at=datetime.combine(it["day"], datetime.min.time(),
                                                             UTC) + timedelta(hours=7),
                utc_offset_s=None, elapsed_s=it["elapsed"], moving_s=it["moving"],
                distance_m=10500.0, laps=[], metrics=metrics, device_metrics={},
                load=it["load"], created_at=now, updated_at=now))
    # Two devices: the ring's HRV on most days, the watch's resting HR and HRV on others
    # (the merge decides which a day shows).
    health = []
    for k in range(60):
        d = today - timedelta(days=59 - k)
        health.append(DailyHealth(d, "fitbit", hrv_rmssd_ms=None if k % 4 == 0 else
                                  55.0 + (k % 9) * 1.3, resting_hr=50.0 + k % 5))
        health.append(DailyHealth(d, "garmin", hrv_rmssd_ms=48.0 + k % 6,
                                  resting_hr=53.0 + k % 3))
    await h.services.fitness.store.upsert_daily(owner, health, h.clock())
    goal = (await _mcp(h, auth, "set_goal", {
        "kind": "race", "distance_m": 10000, "time_s": 2500,
        "date": (today + timedelta(days=60)).isoformat()}))["structuredContent"]["goal"]

    found: dict[tuple[str, str], set[float]] = {}
    called: list[str] = []
    run_id = next(str(i) for i, s in ids if s == "run")
    ride_id = next(str(i) for i, s in ids if s == "ride")
    required_values: dict[str, Any] = {
        "activity_id": ride_id, "activity_ids": [ride_id, run_id], "goal_id": goal["id"],
        "vdot": 50, "kind": "power"}
    for tool in await _tools(h, auth):
        if not tool.get("annotations", {}).get("readOnlyHint"):
            continue
        schema = tool["inputSchema"]
        missing = [p for p in schema.get("required", []) if p not in required_values]
        if missing:
            continue
        args = {p: required_values[p] for p in schema.get("required", [])}
        variants = [args]
        if "from" in schema.get("properties", {}):  # the same day from other ranges
            variants += [{**args, "from": (today - timedelta(days=6)).isoformat()},
                         {**args, "from": first.isoformat()}]
        for variant in variants:
            result = await _mcp(h, auth, tool["name"], variant)
            if result.get("isError") or "structuredContent" not in result:
                continue
            called.append(tool["name"])
            _collect(result["structuredContent"], tool["name"], today.isoformat(), found,
                     tool["name"])
    for path, methods in TWINS.items():
        if "GET" not in methods or "{" in path:
            continue
        response = await h.client.get(path, headers=auth)
        if response.status_code == 200:
            called.append(path)
            _collect(response.json(), path, today.isoformat(), found, path)
    daily = await h.client.get("/api/daily", headers=auth, params={
        "from": (today - timedelta(days=59)).isoformat(), "to": today.isoformat()})
    _collect(daily.json(), "/api/daily", today.isoformat(), found, "/api/daily")

    # Which answers gave today's TSB: at least the chart, summary, readiness, recovery.
    sources = found[("seen:tsb", today.isoformat())]
    assert len(sources) >= 4, called
    for (quantity, when), values in found.items():
        if not quantity.startswith("seen:"):
            assert len(values) == 1, (quantity, when, values)
    # The values by hand.
    pmc = plain_pmc(loads)
    tsb_today = round(pmc[-1][2], 1)
    assert found[("tsb", today.isoformat())] == {tsb_today}
    assert found[("ctl", today.isoformat())] == {round(pmc[-1][0], 1)}
    assert found[("tsb", (today + timedelta(days=1)).isoformat())] == {
        round(pmc[-1][0] - pmc[-1][1], 1)}
    week_ago = (today - timedelta(days=6)).isoformat()
    assert found[("ctl", week_ago)] == {round(pmc[-7][0], 1)}
    # HRV and resting HR today: the first source in name order with a figure (fitbit).
    k = 59
    assert found[("hrv", today.isoformat())] == {round(55.0 + (k % 9) * 1.3, 1)}
    assert found[("resting_hr", today.isoformat())] == {50.0 + k % 5}
    # 10 km: Daniels from the best VDOT of the last 90 days (the fastest 10 km here)
    ten = found[("race:10000", "now")]
    assert "predict_race_time" in called and "goal_feasibility" in called
    recent = [it["efforts"] for it in items
              if it["efforts"] and (today - it["day"]).days <= 89]
    best = max(_daniels_vdot(m, t) for e in recent
               for m, t in ((1609.344, e["1mile"]), (5000.0, e["5km"]), (10000.0, e["10km"])))
    lo_t, hi_t = 1200.0, 6000.0  # the 10 km time of that VDOT, by bisection
    for _ in range(100):
        mid = (lo_t + hi_t) / 2
        lo_t, hi_t = (mid, hi_t) if _daniels_vdot(10000.0, mid) > best else (lo_t, mid)
    assert ten == {round(lo_t)}
    # Period moving hours: the stored moving times summed by hand.
    for (quantity, when), values in found.items():
        if quantity != "moving_hours":
            continue
        lo, hi = (date.fromisoformat(x) for x in when.split(".."))
        hours = sum(it["moving"] for it in items if lo <= it["day"] <= hi) / 3600
        assert abs(values.pop() - hours) <= 0.05 + 1e-9, when
