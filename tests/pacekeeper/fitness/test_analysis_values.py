"""Issue 15 tools whose answers were only checked to exist: their figures against values
built here by hand (sums over the stored items, plain loops, the published bands), and
each tool equal to its HTTP twin. SQLite and PostgreSQL.

- `get_hr_curve` / `get_pace_curve`: the element-wise best of the stored curves, by hand;
  a period's pace curve covers runs only unless `sport` says otherwise.
- `get_weekly_load`, `get_period_summary`, `compare_periods`: totals by hand.
- `get_recovery_status`: CTL / ATL from a plain Python loop over the days, form = CTL - ATL
  after today, TrainingPeaks' bands, readiness from TSB alone (no health recorded).
- `estimate_vo2max`: Sitko et al. 2021, 16.6 + 8.87 W/kg on the best 5 min, by hand.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import orjson
import pytest

from pacekeeper.fitness import analytics as an
from tests._pmc import plain_pmc
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _store, _today

STD = an.STANDARD_DURATIONS


def _at(day: date, hour: float) -> datetime:
    return datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=hour)


def _curves(key: str, values: dict[int, float]) -> dict[str, Any]:
    ds = [d for d in STD if d <= max(values)]
    return {"curve_durations": ds, key: [values.get(d) for d in ds]}


async def test_hr_and_pace_curves_are_the_best_of_the_stored_curves(harness: Harness
                                                                    ) -> None:
    h = harness
    auth, owner = await _person(h, "hr-pace@example.com")
    today = _today(h)
    # Heart rate: two rides; ride 2 is higher up to 1 min, ride 1 from 5 min on.
    hr1 = {5: 180.0, 60: 172.0, 300: 168.0, 1200: 160.0}
    hr2 = {5: 185.0, 60: 175.0, 300: 165.0, 1200: 150.0}
    # Speed (m/s): two runs, and a ride much faster than either (must not enter the
    # runs' curve).
    run1 = {5: 6.0, 60: 5.0, 300: 4.4, 1200: 4.0}
    run2 = {5: 5.5, 60: 5.2, 300: 4.2, 1200: 4.1}
    ride = {5: 15.0, 60: 13.0, 300: 12.0, 1200: 11.0}
    ids = await _store(h, owner, [
        {"start": _at(today - timedelta(days=3), 8), "sport": "ride",
         "metrics": _curves("hr_curve", hr1)},
        {"start": _at(today - timedelta(days=2), 8), "sport": "ride",
         "metrics": _curves("hr_curve", hr2)},
        {"start": _at(today - timedelta(days=3), 18), "sport": "run",
         "metrics": _curves("speed_curve", run1)},
        {"start": _at(today - timedelta(days=1), 18), "sport": "run",
         "metrics": _curves("speed_curve", run2)},
        {"start": _at(today - timedelta(days=1), 9), "sport": "ride",
         "metrics": _curves("speed_curve", ride)},
    ])
    ds = [5, 60, 300, 1200]
    hr = (await _mcp(h, auth, "get_hr_curve", {"durations_s": ds}))["structuredContent"]
    assert hr["activities"] == 2
    got = {p["duration_s"]: (p["bpm"], p["activity_id"]) for p in hr["points"]}
    assert got == {5: (185.0, str(ids[1])), 60: (175.0, str(ids[1])),
                   300: (168.0, str(ids[0])), 1200: (160.0, str(ids[0]))}
    http = await h.client.get("/api/curves/hr", headers=auth,
                              params={"durations_s": "5,60,300,1200"})
    assert http.status_code == 200 and http.json() == hr

    pace = (await _mcp(h, auth, "get_pace_curve", {"durations_s": ds}))["structuredContent"]
    assert pace["activities"] == 2  # the runs; the ride is left out
    best = {5: (6.0, 2), 60: (5.2, 3), 300: (4.4, 2), 1200: (4.1, 3)}
    for p in pace["points"]:
        speed, index = best[p["duration_s"]]
        assert p["speed_mps"] == pytest.approx(speed)
        assert p["pace_s_per_km"] == round(1000 / speed)
        assert p["activity_id"] == str(ids[index])
    http = await h.client.get("/api/curves/pace", headers=auth,
                              params={"durations_s": "5,60,300,1200"})
    assert http.status_code == 200 and http.json() == pace
    rides = (await _mcp(h, auth, "get_pace_curve", {"durations_s": [60], "sport": "ride"})
             )["structuredContent"]
    assert [p["speed_mps"] for p in rides["points"]] == [13.0]
    # 1000 / 13 m/s = 76.9 s per km
    assert rides["points"][0]["pace_s_per_km"] == 77  # s/km: whole


async def test_weekly_load_and_periods_add_up_by_hand(harness: Harness) -> None:
    h = harness
    auth, owner = await _person(h, "weeks@example.com")
    today = _today(h)
    monday = today - timedelta(days=today.weekday())
    last_monday = monday - timedelta(days=7)
    # Last week: a 2 h ride (60 km, load 120) on Monday, a 45 min run (10 km, load 50) on
    # Wednesday. This week: a 1 h ride (30 km, load 70) today.
    curve_a = _curves("power_curve", {300: 330.0, 1200: 280.0})
    curve_b = _curves("power_curve", {300: 345.0, 1200: 270.0})
    await _store(h, owner, [
        {"start": _at(last_monday, 9), "sport": "ride", "elapsed": 7200.0,
         "distance": 60000.0, "metrics": {"load": 120.0, **curve_a}},
        {"start": _at(last_monday + timedelta(days=2), 18), "sport": "run",
         "elapsed": 2700.0, "distance": 10000.0, "metrics": {"load": 50.0}},
        {"start": _at(today, 7), "sport": "ride", "elapsed": 3600.0, "distance": 30000.0,
         "metrics": {"load": 70.0, **curve_b}},
    ])
    weekly = (await _mcp(h, auth, "get_weekly_load", {"weeks": 2}))["structuredContent"]
    assert [w["week"] for w in weekly["weeks"]] == [last_monday.isoformat(),
                                                    monday.isoformat()]
    before, now = weekly["weeks"]
    assert before["load"] == 170.0 and before["moving_hours"] == 2.8  # 2.75 h, to 0.1 h
    assert before["by_sport"] == {
        "ride": {"sessions": 1, "moving_hours": 2.0, "km": 60.0, "load": 120.0},
        "run": {"sessions": 1, "moving_hours": 0.8, "km": 10.0, "load": 50.0}}
    assert now["by_sport"] == {"ride": {"sessions": 1, "moving_hours": 1.0, "km": 30.0,
                                        "load": 70.0}}
    http = (await h.client.get("/api/weekly-load", headers=auth, params={"weeks": 2})).json()
    assert http == weekly

    # Period A = last week, B = this week so far; every figure summed here by hand.
    a = (last_monday.isoformat(), (monday - timedelta(days=1)).isoformat())
    b = (monday.isoformat(), today.isoformat())
    both = (await _mcp(h, auth, "compare_periods", {"a_from": a[0], "a_to": a[1],
                                                    "b_from": b[0], "b_to": b[1]})
            )["structuredContent"]
    days_b = (today - monday).days + 1
    assert both["a"]["activities"] == 2 and both["b"]["activities"] == 1
    assert both["a"]["moving_hours"] == 2.8 and both["b"]["moving_hours"] == 1.0  # 2.75
    assert both["a"]["km"] == 70.0 and both["b"]["km"] == 30.0
    assert both["a"]["load"] == 170 and both["b"]["load"] == 70
    assert both["a"]["load_per_week"] == 170
    assert both["b"]["load_per_week"] == round(70 / days_b * 7)
    assert (both["a"]["power_5min_w"], both["a"]["power_20min_w"]) == (330, 280)
    assert (both["b"]["power_5min_w"], both["b"]["power_20min_w"]) == (345, 270)
    assert both["change"]["load"] == -100 and both["change"]["power_5min_w"] == 15
    assert both["change"]["km"] == -40 and both["change"]["activities"] == -1
    # CTL at the end of A: the plain loop over A's seven days (nothing before them).
    ctl = plain_pmc((120.0, 0.0, 50.0, 0.0, 0.0, 0.0, 0.0))[-1][0]
    assert both["a"]["end_ctl"] == pytest.approx(round(ctl, 1))
    period = (await _mcp(h, auth, "get_period_summary", {"from": a[0], "to": a[1]})
              )["structuredContent"]
    assert {k: period[k] for k in ("activities", "moving_hours", "km", "load")} == {
        "activities": 2, "moving_hours": 2.8, "km": 70.0, "load": 170}
    assert period["by_sport"]["run"]["sessions"] == 1
    http = (await h.client.get("/api/period-summary", headers=auth,
                               params={"from": a[0], "to": a[1]})).json()
    assert http == period


@pytest.mark.parametrize(("rest_days", "state"), [(0, "neutral"), (4, "fresh"),
                                                  (10, "detraining")])
async def test_recovery_status_against_a_plain_loop_and_the_bands(
        harness: Harness, rest_days: int, state: str) -> None:
    """150 days at load 60 (one hard day of 150 twelve days before the rest), then
    `rest_days` without training up to today. Form = today's TSB (CTL - ATL of yesterday,
    the one definition every answer uses) from a plain Python loop; bands (TrainingPeaks):
    <= +5 neutral, <= +25 fresh, above detraining.
    Readiness with no health recorded: 50 + 25 clip(TSB / 15, -2, 2), TSB going into
    today."""
    h = harness
    auth, owner = await _person(h, f"recovery{rest_days}@example.com")
    today = _today(h)
    first = today - timedelta(days=150 + rest_days - 1)
    loads = [60.0] * 150 + [0.0] * rest_days
    loads[149 - 12] = 150.0
    await _store(h, owner, [{"start": _at(first + timedelta(days=i), 10),
                             "metrics": {"load": x}} for i, x in enumerate(loads) if x])
    ctl, atl, tsb_today = plain_pmc(loads)[-1]
    body = (await _mcp(h, auth, "get_recovery_status", {}))["structuredContent"]
    assert body["ctl"] == pytest.approx(round(ctl, 1))
    assert body["atl"] == pytest.approx(round(atl, 1))
    assert body["tsb"] == pytest.approx(round(tsb_today, 1))
    assert body["state"] == state
    assert body["readiness"] == round(50 + 25 * max(-2.0, min(2.0, tsb_today / 15)))
    # The hard day (150 > max(1.5 CTL, 60)) was 12 + rest_days days ago.
    assert body["days_since_hard_session"] == 12 + rest_days
    assert (await h.client.get("/api/recovery", headers=auth)).json() == body


async def test_vo2max_from_the_best_five_minutes_and_weight_by_hand(harness: Harness) -> None:
    h = harness
    auth, owner = await _person(h, "vo2@example.com")
    today = _today(h)
    patched = await h.client.patch("/api/athlete", headers=auth, json={
        "weight_kg": 72.0, "valid_from": (today - timedelta(days=365)).isoformat()})
    assert patched.status_code == 200, patched.text
    await _store(h, owner, [
        {"start": _at(today - timedelta(days=10), 9), "sport": "ride",
         "metrics": _curves("power_curve", {300: 350.0, 1200: 300.0})},
        {"start": _at(today - timedelta(days=120), 9), "sport": "ride",  # outside 90 days
         "metrics": _curves("power_curve", {300: 420.0, 1200: 360.0})},
        {"start": _at(today - timedelta(days=5), 9), "sport": "run",
         "metrics": {"best_efforts": {"5km": 19 * 60 + 57.0}}},
    ])
    body = (await _mcp(h, auth, "estimate_vo2max", {}))["structuredContent"]
    # 16.6 + 8.87 x 350 / 72 = 16.6 + 43.118 = 59.718 -> 59.7 (one decimal)
    assert body["cycling_vo2max"] == pytest.approx(59.7, abs=0.051)
    assert body["running_vdot"] == pytest.approx(50.0, abs=0.1)  # Daniels: 19:57 5 km


async def test_resources_and_prompts_carry_what_they_name(harness: Harness) -> None:
    """`athlete://zones`: Coggan's zones of the FTP set (55/75/90/105/120/150 % of 200 W
    by hand) and Friel's of the LTHR; `activity://{id}/analysis`: the `analyze_activity`
    answer. Each prompt names only tools the catalog has, and the ones its purpose needs."""
    from tests.pacekeeper.fitness.test_analysis import _session

    h = harness
    auth, owner = await _person(h, "resources@example.com")
    today = _today(h)
    patched = await h.client.patch("/api/athlete", headers=auth, json={
        "ftp_watts": 200, "lthr_bpm": 170, "valid_from": (today - timedelta(days=30)
                                                          ).isoformat()})
    assert patched.status_code == 200, patched.text
    ids = await _store(h, owner, [{"start": _at(today - timedelta(days=1), 9),
                                   "metrics": {"load": 55.0, "tss": 55.0}}])
    headers = await _session(h, auth)

    async def read(uri: str) -> Any:
        response = await h.client.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": uri}})
        contents = response.json()["result"]["contents"]
        assert contents[0]["uri"] == uri and contents[0]["mimeType"] == "application/json"
        return orjson.loads(contents[0]["text"])

    zones = await read("athlete://zones")
    assert [z["low"] for z in zones["power"]] == [0, 110, 150, 180, 210, 240, 300]
    # Friel % LTHR: 81, 90, 94, 100, 103, 106 % of 170, each zone's first whole beat
    # (175.1 bpm starts 5b: 175 is still 5a, 176 is 5b's first)
    assert [z["low"] for z in zones["heart_rate"]] == [0, 138, 153, 160, 170, 176, 181]
    analysis = await read(f"activity://{ids[0]}/analysis")
    tool = (await _mcp(h, auth, "analyze_activity", {"activity_id": str(ids[0])})
            )["structuredContent"]
    assert analysis == tool and analysis["metrics"]["load"] == 55.0

    listed = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    catalog = {t["name"] for t in listed.json()["result"]["tools"]}
    needs = {"weekly_review": {"get_training_summary", "get_weekly_load", "get_load_risk",
                               "suggest_training_week"},
             "race_preparation": {"predict_race_time", "get_training_paces",
                                  "goal_feasibility", "get_best_efforts"},
             "training_load_check": {"get_fitness_chart", "get_load_risk",
                                     "get_recovery_status"}}
    for name, wanted in needs.items():
        got = await h.client.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 9, "method": "prompts/get", "params": {"name": name}})
        text = " ".join(m["content"]["text"] for m in got.json()["result"]["messages"])
        words = {w.strip(".,()'") for w in text.split()}
        named = {w for w in words if "_" in w and w.islower()}  # tool names in the text
        assert wanted <= named, (name, wanted - named)
        assert named <= catalog, (name, named - catalog)
