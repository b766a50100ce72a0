"""The analysis service, its tools and HTTP twins, on SQLite and PostgreSQL.

Every figure is checked against an independent value: the engine called directly on a
series built here by hand (never read back through the service), hand-computed cases,
Daniels' table and Riegel by hand. One isolation test per tool family: another person's
activities never enter a chart, curve, summary, zone sum, best effort or goal.
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
import orjson
import pytest

from pacekeeper.fitness import Owner
from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._tables import ActivityRow
from tests.pacekeeper.conftest import Harness

STD = an.STANDARD_DURATIONS


async def _person(h: Harness, email: str) -> tuple[dict[str, str], Owner]:
    body = await h.register(email)
    h.client.cookies.clear()
    user = await h.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    return {"authorization": f"Bearer {body['token']}"}, Owner(user.id, user.tenant_id)


async def _store(h: Harness, owner: Owner, items: list[dict[str, Any]]) -> list[uuid.UUID]:
    """Activities with the given start, sport and metrics, in one transaction (the metrics
    are what import would have stored; ``load`` also goes to its column, as import does)."""
    now = h.clock()
    ids = []
    async with h.services.fitness.store._sessions() as session, session.begin():
        for it in items:
            ident = uuid.uuid4()
            ids.append(ident)
            metrics = it.get("metrics", {})
            session.add(ActivityRow(
                id=ident, user_id=owner.user_id, tenant_id=owner.tenant_id,
                sport=it.get("sport", "ride"), start_at=it["start"],
                utc_offset_s=it.get("offset"), elapsed_s=it.get("elapsed", 3600.0),
                moving_s=it.get("elapsed", 3600.0), distance_m=it.get("distance"),
                laps=[], metrics=metrics, device_metrics={}, load=metrics.get("load"),
                created_at=now, updated_at=now))
    return ids


def _curve(values: dict[int, float]) -> dict[str, Any]:
    ds = [d for d in STD if d <= max(values)]
    return {"curve_durations": ds, "power_curve": [values.get(d) for d in ds]}


def _today(h: Harness) -> date:
    return h.clock().date()


async def _session(h: Harness, auth: dict[str, str]) -> dict[str, str]:
    return await h.mcp_session(auth)


async def _mcp(h: Harness, auth: dict[str, str], name: str, args: dict[str, Any]
               ) -> dict[str, Any]:
    headers = await _session(h, auth)
    response = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": args}})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body.get("result", body)  # a JSON-RPC error (bad arguments) as it is


# -- fitness chart --------------------------------------------------------------------------


async def test_ten_years_of_loads_chart_equals_the_engine(harness: Harness) -> None:
    """3,650 days of synthetic loads stored as activities (some days two, some with a local
    offset that moves them to another UTC day, rest days): the chart's CTL / ATL / TSB are
    the engine's on the hand-built daily series, to the chart's 0.1 rounding."""
    h = harness
    auth, owner = await _person(h, "pmc@example.com")
    # Noon UTC: the same date at every offset used below, so the person's own today
    # (their latest activity's offset) is UTC's whatever time the suite runs.
    now = h.clock()
    h.clock.advance(seconds=(12 * 3600 - (now.hour * 3600 + now.minute * 60 + now.second))
                    % 86400)
    rng = np.random.default_rng(15)
    last = _today(h)
    first = last - timedelta(days=3649)
    daily = np.zeros(3650)
    items = []
    for i in range(3650):
        if rng.random() < 0.25:
            continue
        day = first + timedelta(days=i)
        for _ in range(1 + int(rng.random() < 0.1)):
            load = round(float(rng.gamma(1.5, 40.0)), 2)
            daily[i] += load
            # 23:30 local at UTC+2 is 21:30 UTC the same day; 00:30 local at UTC-5 is the
            # day's 05:30 UTC: both count on the local day.
            offset = int(rng.choice([7200, -18000, 0]))
            local = datetime.combine(day, datetime.min.time()) + timedelta(
                hours=23.5 if offset > 0 else 0.5)
            start = (local - timedelta(seconds=offset)).replace(tzinfo=UTC)
            items.append({"start": start, "offset": offset, "metrics": {"load": load}})
    await _store(h, owner, items)
    expected = an.ctl_atl_tsb(daily)
    response = await h.client.get("/api/fitness-chart", headers=auth,
                                  params={"from": first.isoformat(), "to": last.isoformat()})
    assert response.status_code == 200, response.text
    days = response.json()["days"]
    assert len(days) == 3650
    assert days[0]["date"] == first.isoformat() and days[-1]["date"] == last.isoformat()
    for name, series in (("ctl", expected.ctl), ("atl", expected.atl), ("tsb", expected.tsb),
                         ("load", daily)):
        got = np.array([d[name] for d in days])
        assert np.max(np.abs(got - series)) <= 0.05 + 1e-9, name
    # The last 90 days alone: the 252-day warm-up leaves out at most e^-6 of older CTL.
    tail = (await h.client.get("/api/fitness-chart", headers=auth)).json()["days"]
    assert len(tail) == 90
    got = np.array([d["ctl"] for d in tail])
    assert np.max(np.abs(got - expected.ctl[-90:])) <= 0.0025 * expected.ctl.max() + 0.05
    # The tool answers the same as its HTTP twin.
    tool = await _mcp(h, auth, "get_fitness_chart", {})
    assert tool["structuredContent"]["days"] == tail
    # Another person sees an empty chart.
    other, _ = await _person(h, "pmc-other@example.com")
    theirs = (await h.client.get("/api/fitness-chart", headers=other)).json()
    assert all(d["ctl"] == 0 and d["load"] == 0 for d in theirs["days"])


async def test_chart_rejects_bad_ranges(harness: Harness) -> None:
    auth, _ = await _person(harness, "bad-range@example.com")
    for params in ({"from": "2026-02-01", "to": "2026-01-01"}, {"from": "yesterday"},
                   {"from": "2000-01-01", "to": "2020-01-01"}):
        response = await harness.client.get("/api/fitness-chart", headers=auth, params=params)
        assert response.status_code == 400, params
        body = response.json()
        assert set(body) == {"error", "message"} and body["error"] == "validation_error"
    tool = await _mcp(harness, auth, "get_fitness_chart", {"from": "2026-02-01",
                                                           "to": "2026-01-01"})
    assert tool["isError"] is True
    assert "'to' must not be before 'from'" in tool["content"][0]["text"]
    schema_bad = await _mcp(harness, auth, "get_fitness_chart", {"from": "01/02/2026"})
    assert schema_bad.get("isError") is True or "error" in schema_bad


# -- curves, critical power, FTP --------------------------------------------------------------


async def test_period_power_curve_is_the_best_of_the_stored_curves(harness: Harness) -> None:
    """Three rides' stored curves merge to their element-wise best (by hand); the points
    name the ride that set them; a curve of exact CP data gives CP and W' back; another
    person's stronger ride never enters."""
    h = harness
    auth, owner = await _person(h, "curve@example.com")
    today = _today(h)
    cp, w_prime = 280.0, 18000.0
    model = {d: cp + w_prime / d for d in STD if d <= 3600}
    a = {d: v * 0.97 for d, v in model.items()}
    b = {d: (v if d >= 120 else v * 0.9) for d, v in model.items()}
    c = {d: (v * 1.05 if d < 120 else v * 0.95) for d, v in model.items() if d <= 1800}
    start = datetime.combine(today - timedelta(days=10), datetime.min.time(), UTC)
    ids = await _store(h, owner, [
        {"start": start + timedelta(days=k, hours=8), "metrics": {**_curve(v), "load": 50.0}}
        for k, v in enumerate((a, b, c))])
    stranger_auth, stranger = await _person(h, "curve-other@example.com")
    await _store(h, stranger, [{"start": start + timedelta(hours=9),
                                "metrics": _curve({d: 2 * v for d, v in model.items()})}])
    best = {d: max(x.get(d, -1.0) for x in (a, b, c)) for d in model}
    response = await h.client.get("/api/curves/power", headers=auth,
                                  params={"durations_s": "5,60,300,1200,3600"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["activities"] == 3
    points = {p["duration_s"]: p for p in body["points"]}
    for d in (5, 60, 300, 1200, 3600):
        assert points[d]["watts"] == pytest.approx(best[d], abs=0.05)
    assert points[5]["activity_id"] == str(ids[2]) and points[300]["activity_id"] == str(ids[1])
    tool = await _mcp(h, auth, "get_power_curve", {"durations_s": [5, 60, 300, 1200, 3600]})
    assert tool["structuredContent"] == body
    one = (await h.client.get("/api/curves/power", headers=auth,
                              params={"activity_id": str(ids[0]), "durations_s": "60"})).json()
    assert one["points"][0]["watts"] == round(a[60])  # W: whole (issue 27 item 14)
    # Critical power: the engine on the hand-merged curve; = the model's CP and W'.
    ds = np.array(STD, float)
    merged = np.array([best.get(d, np.nan) for d in STD])
    engine = an.critical_power_2p(ds, merged)
    assert engine is not None
    cp_body = (await h.client.get("/api/critical-power", headers=auth)).json()
    assert cp_body["cp_watts"] == pytest.approx(engine.cp, abs=0.05)
    assert cp_body["w_prime_j"] == pytest.approx(engine.w_prime, abs=0.5)
    assert engine.cp == pytest.approx(cp, rel=1e-9)  # b is exact from 2 min on
    ftp = (await h.client.get("/api/ftp-estimate", headers=auth)).json()
    by = {e["method"]: e["watts"] for e in ftp["estimates"]}
    assert by["20min"] == pytest.approx(0.95 * best[1200], abs=0.5)  # W: whole
    assert by["ramp"] == pytest.approx(0.75 * best[60], abs=0.5)
    # The stranger's curve is theirs alone, and bad input is a 400.
    theirs = (await h.client.get("/api/curves/power", headers=stranger_auth)).json()
    assert theirs["activities"] == 1
    assert (await h.client.get("/api/curves/power", headers=auth,
                               params={"durations_s": "7,13"})).status_code == 400
    assert (await h.client.get("/api/curves/watts", headers=auth)).status_code == 400
    missing = await h.client.get("/api/curves/power", headers=stranger_auth,
                                 params={"activity_id": str(ids[0])})
    assert missing.status_code == 404


# -- summary, zones, best efforts ---------------------------------------------------------------


async def test_training_summary_is_small_and_adds_up(harness: Harness) -> None:
    h = harness
    auth, owner = await _person(h, "summary@example.com")
    today = _today(h)
    base = datetime.combine(today, datetime.min.time(), UTC)
    items = []
    for k in range(60):
        items.append({"start": base - timedelta(days=k, hours=-7), "sport": "ride",
                      "distance": 40000.0, "metrics": {
                          "load": 60.0, **_curve({d: 300.0 + 3000 / d for d in STD
                                                  if d <= 3600}),
                          "time_in_power_zones": [600, 1800, 600, 300, 200, 100, 0]}})
        if k % 3 == 0:
            items.append({"start": base - timedelta(days=k, hours=-18), "sport": "run",
                          "distance": 10000.0, "elapsed": 2700.0, "metrics": {
                              "load": 45.0, "best_efforts": {"5km": 1197.0, "10km": 2481.0}}})
    await _store(h, owner, items)
    body = (await h.client.get("/api/training-summary", headers=auth)).json()
    assert len(orjson.dumps(body)) < 2048
    tool = await _mcp(h, auth, "get_training_summary", {})
    assert tool["structuredContent"] == body
    assert len(orjson.dumps(tool["structuredContent"])) < 2048
    daily = np.zeros(60)
    for k in range(60):
        daily[59 - k] = 60.0 + (45.0 if k % 3 == 0 else 0.0)
    pmc = an.ctl_atl_tsb(daily)
    assert body["ctl"] == pytest.approx(pmc.ctl[-1], abs=0.05)
    assert body["tsb"] == pytest.approx(pmc.tsb[-1], abs=0.05)
    assert body["last_4_weeks"]["ride"]["sessions"] == 28
    assert body["last_4_weeks"]["run"]["sessions"] == 10  # k = 0, 3, ..., 27
    assert body["recent_bests"]["power_1200s_w"] == round(300 + 3000 / 1200)
    assert body["recent_bests"]["vdot"] == pytest.approx(
        round(max(an.vdot_from_race(5000, 1197.0), an.vdot_from_race(10000, 2481.0)), 1))
    # Zones: 28 days of rides, summed by hand; Seiler's shares from L1-2 / L3-4 / L5-7.
    zones = (await h.client.get("/api/zone-distribution", headers=auth)).json()
    assert [z["seconds"] for z in zones["zones"]] == [28 * s for s in
                                                      (600, 1800, 600, 300, 200, 100, 0)]
    assert zones["three_zone"]["low_share"] == pytest.approx(2400 / 3600, abs=1e-3)
    efforts = (await h.client.get("/api/best-efforts", headers=auth)).json()
    assert {e["distance"]: e["time_s"] for e in efforts["efforts"]} == {
        "5km": 1197.0, "10km": 2481.0}
    # Another person: nothing of it.
    other, _ = await _person(h, "summary-other@example.com")
    theirs = (await h.client.get("/api/training-summary", headers=other)).json()
    assert theirs["ctl"] == 0 and theirs["last_4_weeks"] == {} and theirs["recent_bests"] == {}
    assert (await h.client.get("/api/zone-distribution", headers=other)).json()[
        "activities"] == 0
    assert (await h.client.get("/api/best-efforts", headers=other)).json()["efforts"] == []


async def test_load_risk_against_the_engine(harness: Harness) -> None:
    h = harness
    auth, owner = await _person(h, "risk@example.com")
    today = _today(h)
    loads = [float(30 + (k * 37) % 90) for k in range(120)]
    base = datetime.combine(today - timedelta(days=119), datetime.min.time(), UTC)
    await _store(h, owner, [{"start": base + timedelta(days=k, hours=10),
                             "metrics": {"load": v}} for k, v in enumerate(loads)])
    body = (await h.client.get("/api/load-risk", headers=auth)).json()
    series = np.array(loads)
    assert body["acwr_rolling"] == pytest.approx(an.acwr_rolling(series)[-1], abs=5e-3)
    assert body["acwr_ewma"] == pytest.approx(an.acwr_ewma(series)[-1], abs=5e-4)
    ms = an.monotony_strain(series)
    assert body["monotony"] == pytest.approx(ms.monotony[-1], abs=5e-3)
    assert body["strain"] == round(ms.strain[-1])
    pmc = an.ctl_atl_tsb(series)
    assert body["ramp_rate"] == pytest.approx(pmc.ctl[-1] - pmc.ctl[-8], abs=0.05)  # CTL points to 0.1


# -- running calculators ------------------------------------------------------------------------


async def test_race_prediction_matches_daniels_table_and_riegel(harness: Harness) -> None:
    """VDOT 50 (Daniels' table): 5 km 19:57 -> 10 km 41:21, half 1:31:35, marathon 3:10:49
    within 0.3 %; Riegel by hand: 1197 x (42195 / 5000)^1.06."""
    auth, _ = await _person(harness, "race@example.com")
    table = {10000.0: 41 * 60 + 21, 21097.5: 91 * 60 + 35, 42195.0: 3 * 3600 + 10 * 60 + 49}
    for target, seconds in table.items():
        tool = await _mcp(harness, auth, "predict_race_time", {
            "distance_m": 5000, "time_s": 19 * 60 + 57, "target_distance_m": target})
        body = tool["structuredContent"]
        assert body["vdot"] == pytest.approx(50.0, abs=0.1)
        vdot = next(p for p in body["predictions"] if p["method"] == "vdot")
        riegel = next(p for p in body["predictions"] if p["method"] == "riegel")
        assert vdot["time_s"] == pytest.approx(seconds, rel=0.003)
        assert riegel["time_s"] == pytest.approx(1197 * (target / 5000) ** 1.06, abs=0.5)  # whole s
    http = (await harness.client.get("/api/race-prediction", headers=auth, params={
        "distance_m": 5000, "time_s": 1197, "target_distance_m": 42195})).json()
    assert http == tool["structuredContent"]
    paces = (await _mcp(harness, auth, "get_training_paces", {"vdot": 50}))[
        "structuredContent"]["paces_s_per_km"]
    # Daniels VDOT 50: T 4:15 /km, I 3:55 /km, M 4:31 /km (table rounding: 2 s).
    assert paces["threshold"] == pytest.approx(255, abs=2)
    assert paces["interval"] == pytest.approx(235, abs=2)
    assert paces["marathon"] == pytest.approx(271, abs=2)
    bad = await harness.client.get("/api/race-prediction", headers=auth,
                                   params={"distance_m": 5000, "time_s": 10})
    assert bad.status_code == 400 and bad.json()["error"] == "validation_error"
    tool_bad = await _mcp(harness, auth, "get_training_paces", {})
    assert tool_bad["isError"] is True


async def test_zones_calculator_by_hand(harness: Harness) -> None:
    auth, _ = await _person(harness, "zones@example.com")
    body = (await _mcp(harness, auth, "calculate_zones", {"ftp_watts": 200, "lthr_bpm": 170})
            )["structuredContent"]
    assert [z["low"] for z in body["power"]] == [0, 110, 150, 180, 210, 240, 300]
    # Friel's 81/90/94/100/103/106 % of 170 bpm: 137.7, 153, 159.8, 170, 175.1, 180.2,
    # each shown as its zone's first whole bpm (175 is still zone 5a; 176 starts 5b).
    assert [z["low"] for z in body["heart_rate"]] == [0, 138, 153, 160, 170, 176, 181]
    http = (await harness.client.get("/api/zones", headers=auth,
                                     params={"ftp_watts": 200, "lthr_bpm": 170})).json()
    assert http == body


# -- goals ------------------------------------------------------------------------------------


async def test_goals_belong_to_their_owner(harness: Harness) -> None:
    h = harness
    auth, owner = await _person(h, "goal@example.com")
    other, _ = await _person(h, "goal-other@example.com")
    race_day = (_today(h) + timedelta(weeks=12)).isoformat()
    created = (await _mcp(h, auth, "set_goal", {"kind": "race", "distance_m": 10000,
                                                "time_s": 2481, "date": race_day,
                                                "name": "city 10k"}))["structuredContent"]
    goal_id = created["goal"]["id"]
    assert [g["id"] for g in (await h.client.get("/api/goals", headers=auth)).json()["goals"]
            ] == [goal_id]
    assert (await h.client.get("/api/goals", headers=other)).json()["goals"] == []
    assert (await h.client.delete(f"/api/goals/{goal_id}", headers=other)).status_code == 404
    assert (await h.client.get(f"/api/goals/{goal_id}/feasibility",
                               headers=other)).status_code == 404
    # Feasibility: VDOT needed (Daniels) vs the best recent effort's VDOT, gap per week.
    today = datetime.combine(_today(h), datetime.min.time(), UTC)
    await _store(h, owner, [{"start": today - timedelta(days=5), "sport": "run",
                             "metrics": {"best_efforts": {"5km": 1260.0}}}])
    feas = (await h.client.get(f"/api/goals/{goal_id}/feasibility", headers=auth)).json()
    need, have = an.vdot_from_race(10000, 2481), an.vdot_from_race(5000, 1260)
    assert feas["required"] == pytest.approx(need, abs=0.05)
    assert feas["current"] == pytest.approx(have, abs=0.05)
    gap = need - have
    expected = "likely" if gap <= 2 else "possible" if gap <= 3 else "unlikely"
    assert feas["verdict"] == expected
    week = (await _mcp(h, auth, "suggest_training_week", {"goal_id": goal_id})
            )["structuredContent"]
    assert len(week["sessions"]) == 7 and week["goal"]["id"] == goal_id
    bad = await h.client.post("/api/goals", headers=auth, json={"kind": "race"})
    assert bad.status_code == 400
    assert (await h.client.delete(f"/api/goals/{goal_id}", headers=auth)).status_code == 200
    assert (await h.client.get("/api/goals", headers=auth)).json()["goals"] == []


async def test_every_analysis_tool_answers_with_a_summary(harness: Harness) -> None:
    """A person with a little data: every read tool answers, small, with a summary line,
    and the resources and prompts are served."""
    h = harness
    auth, owner = await _person(h, "all@example.com")
    today = datetime.combine(_today(h), datetime.min.time(), UTC)
    ids = await _store(h, owner, [
        {"start": today - timedelta(days=k, hours=-9), "sport": "ride" if k % 2 else "run",
         "distance": 10000.0, "metrics": {"load": 50.0 + k, **_curve(
             {d: 250 + 2000 / d for d in STD if d <= 3600})}} for k in range(30)])
    calls: dict[str, dict[str, Any]] = {
        "get_load_risk": {}, "get_readiness": {}, "get_recovery_status": {},
        "get_weekly_load": {"weeks": 4}, "get_hr_curve": {}, "get_pace_curve": {},
        "estimate_vo2max": {}, "analyze_activity": {"activity_id": str(ids[0])},
        "compare_activities": {"activity_ids": [str(ids[0]), str(ids[1])]},
        "get_period_summary": {}, "detect_patterns": {"weeks": 4},
        "compare_periods": {"a_from": (today - timedelta(days=27)).date().isoformat(),
                            "a_to": (today - timedelta(days=14)).date().isoformat(),
                            "b_from": (today - timedelta(days=13)).date().isoformat(),
                            "b_to": today.date().isoformat()},
        "suggest_training_week": {}, "get_goals": {},
    }
    for name, args in calls.items():
        result = await _mcp(h, auth, name, args)
        assert not result.get("isError"), (name, result)
        body = result["structuredContent"]
        assert isinstance(body["summary"], str) and "\n" not in body["summary"], name
        assert len(orjson.dumps(body)) < 16384, name
    headers = await _session(h, auth)
    for uri in ("athlete://zones", f"activity://{ids[0]}/analysis"):
        read = await h.client.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}})
        assert "result" in read.json(), read.text
    listed = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 3, "method": "prompts/list"})
    names = {p["name"] for p in listed.json()["result"]["prompts"]}
    assert {"weekly_review", "race_preparation", "training_load_check"} <= names
    got = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 4, "method": "prompts/get",
        "params": {"name": "training_load_check"}})
    text = orjson.dumps(got.json()["result"]).decode()
    assert "get_load_risk" in text and "get_fitness_chart" in text
    # W' balance needs streams: a stored activity without any is a clear tool error.
    wbal = await _mcp(h, auth, "get_wbal", {"activity_id": str(ids[0])})
    assert wbal["isError"] is True and "no power stream" in wbal["content"][0]["text"]
    assert math.isfinite(1.0)


async def test_openapi_describes_every_analysis_route(harness: Harness) -> None:
    from pacekeeper.http.analysis import TWINS

    document = (await harness.client.get("/openapi.json")).json()
    for path, methods in TWINS.items():
        assert {m.lower() for m in methods} <= set(document["paths"][path]), path


async def test_today_is_the_persons_own_day(harness: Harness) -> None:
    """A Sydney athlete (UTC+10, as their activities say) on Monday 07:30 there, 21:30 UTC
    on Sunday: the ride they finished at 06:00 that Monday morning is today's, in the
    default period, the week and the summary, not left out until 10:00 Sydney time
    (UTC's date). An athlete with no offset keeps UTC's day (audit finding, 2026-11-28)."""
    h = harness
    auth, owner = await _person(h, "sydney@example.com")
    now = h.clock()
    h.clock.advance(seconds=((21 * 3600 + 1800) - (now.hour * 3600 + now.minute * 60
                                                   + now.second)) % 86400)
    utc_day = h.clock().date()
    sydney = 10 * 3600
    await _store(h, owner, [
        {"start": datetime.combine(utc_day - timedelta(days=2), datetime.min.time(),
                                   UTC) + timedelta(hours=2), "offset": sydney,
         "metrics": {"load": 50.0}},
        {"start": datetime.combine(utc_day, datetime.min.time(), UTC) + timedelta(hours=20),
         "offset": sydney, "metrics": {"load": 80.0}},
    ])
    analysis = h.services.fitness.analysis
    assert await analysis.today(owner) == utc_day + timedelta(days=1)
    summary = await analysis.period_summary(owner, None, None)
    assert summary["activities"] == 2 and summary["load"] == 130
    assert summary["summary"].startswith(f"{utc_day + timedelta(days=1) - timedelta(days=27)}"
                                         f" to {utc_day + timedelta(days=1)}")
    # Another person's activities never set this one's day (the query is theirs only).
    _, elsewhere = await _person(h, "nowhere@example.com")
    assert await analysis.today(elsewhere) == utc_day
    # Where someone was two months ago says nothing of where they are: UTC's day.
    _, traveller = await _person(h, "traveller@example.com")
    await _store(h, traveller, [
        {"start": h.clock() - timedelta(days=60), "offset": sydney, "metrics": {"load": 1.0}}])
    assert await analysis.today(traveller) == utc_day
