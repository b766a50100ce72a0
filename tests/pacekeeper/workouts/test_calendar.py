"""The calendar (PLAN-3), the PMC through the plan, a suggested week kept, and the feed
behind its secret (PLAN-4). Expected figures by hand; the PMC's by the plain loop of
tests/_pmc.py. SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select

from pacekeeper.fitness._tables import ActivityStreamRow
from pacekeeper.fitness.streams import StreamSet
from pacekeeper.logredact import redact
from pacekeeper.workouts import _service
from pacekeeper.workouts._tables import CalendarTokenRow
from tests._pmc import plain_pmc
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _store, _today
from tests.pacekeeper.fitness.test_analysis_plans import _at
from tests.pacekeeper.workouts.test_workouts_http import _ftp


def _steady(name: str, sport: str, seconds: int, target: tuple[str, float],
            day: date | None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "sport": sport, "steps": [
        {"kind": "active", "end": {"time_s": seconds},
         "target": {"type": target[0], "low": target[1], "high": target[1]}}]}
    if day is not None:
        body["date"] = day.isoformat()
    return body


async def test_done_activity_matches_the_days_planned_workout(harness: Harness) -> None:
    """PLAN-3: a ride done on the day of a planned ride is matched to it: 1 h planned at 80 %
    FTP (load 0.64 x 100 = 64), 3000 s done with load 48: duration 3000/3600 = 0.83, load
    48/64 = 0.75, time in target 2400 of 3000 samples at 200 W = 0.8. A run that day has no planned run (unmatched); the next day's planned
    run is not done; another person's activity on the day matches nothing of this one."""
    h = harness
    auth, owner = await _person(h, "calendar@example.com")
    other_auth, other = await _person(h, "calendar-other@example.com")
    await _ftp(h, auth)
    day = _today(h) - timedelta(days=1)
    ride = (await h.client.post("/api/workouts", headers=auth, json=_steady(
        "tempo", "cycling", 3600, ("ftp_pct", 80), day))).json()
    run = (await h.client.post("/api/workouts", headers=auth, json=_steady(
        "easy", "running", 1800, ("rpe", 3), day + timedelta(days=1)))).json()
    done_ride, done_run = await _store(h, owner, [
        {"start": _at(day, 9), "sport": "ride", "elapsed": 3000.0, "metrics": {"load": 48.0}},
        {"start": _at(day, 18), "sport": "run", "elapsed": 1500.0, "metrics": {"load": 20.0}}])
    await _store(h, other, [{"start": _at(day, 8), "sport": "ride", "elapsed": 3600.0,
                             "metrics": {"load": 70.0}}])
    # The ride's power: 2400 s at 200 W (80 % of 250: in the target), 600 s at 150 W.
    power = np.array([200.0] * 2400 + [150.0] * 600)
    blob = StreamSet(np.arange(3000, dtype=np.int64), {"power": power}).to_bytes()
    async with h.services.fitness.store._sessions() as session, session.begin():
        session.add(ActivityStreamRow(activity_id=done_ride, user_id=owner.user_id,
                                      samples=3000, channels="power", data=blob))
    r = await h.client.get(f"/api/calendar?from={day}&to={day + timedelta(days=1)}",
                           headers=auth)
    assert r.status_code == 200, r.text
    days = r.json()["days"]
    assert [d["date"] for d in days] == [day.isoformat(), (day + timedelta(days=1)).isoformat()]
    (planned,) = days[0]["planned"]
    assert planned["id"] == ride["id"] and planned["load"] == 64.0
    assert planned["done"] == {"activity_id": str(done_ride), "duration_ratio": 0.83,
                               "load_ratio": 0.75, "time_in_target": 0.8}
    assert [(d["id"], d.get("workout_id")) for d in days[0]["done"]] == [
        (str(done_ride), ride["id"]), (str(done_run), None)]
    (later,) = days[1]["planned"]
    assert later["id"] == run["id"] and "done" not in later
    assert days[1]["done"] == []
    # The same over MCP; the other person's calendar has their ride only, nothing planned.
    tool = (await _mcp(h, auth, "get_calendar", {"from": day.isoformat(),
                                                "to": day.isoformat()}))["structuredContent"]
    assert tool["days"][0]["planned"][0]["done"]["load_ratio"] == 0.75
    theirs = (await h.client.get(f"/api/calendar?from={day}&to={day}",
                                 headers=other_auth)).json()["days"]
    assert [(len(d["planned"]), len(d["done"])) for d in theirs] == [(0, 1)]


async def test_calendar_range_is_checked(harness: Harness) -> None:
    h = harness
    auth, _ = await _person(h, "calendar-range@example.com")
    for query, message in (("from=2026-02-01&to=2026-01-01", "'to' must not be before"),
                           ("from=2020-01-01&to=2026-01-01", "at most 366 days"),
                           ("from=0001-01-01", "from must be a date from 1900-01-01")):
        r = await h.client.get(f"/api/calendar?{query}", headers=auth)
        assert r.status_code == 400 and message in r.json()["message"], (query, r.text)


async def test_pmc_is_projected_through_planned_days(harness: Harness) -> None:
    """include_plan: the planned loads of days after today join the one PMC: a done load
    of 100 ten days ago, planned 1 h at 100 % FTP (100) in 2 days and 30 min (50) in 5;
    yesterday's planned workout (a past day) adds nothing. The chart runs to the last
    planned day; CTL / ATL / TSB there are the plain loop's over the day series."""
    h = harness
    auth, owner = await _person(h, "projection@example.com")
    await _ftp(h, auth)
    today = _today(h)
    await _store(h, owner, [{"start": _at(today - timedelta(days=10), 12), "sport": "ride",
                             "metrics": {"load": 100.0}}])
    for offset, seconds in ((-1, 3600), (2, 3600), (5, 1800)):
        r = await h.client.post("/api/workouts", headers=auth, json=_steady(
            "p", "cycling", seconds, ("ftp_pct", 100), today + timedelta(days=offset)))
        assert r.status_code == 201
    chart = (await _mcp(h, auth, "get_fitness_chart", {"include_plan": True})
             )["structuredContent"]
    last = today + timedelta(days=5)
    assert chart["to"] == last.isoformat()
    loads = [0.0] * 16
    loads[0], loads[12], loads[15] = 100.0, 100.0, 50.0  # today - 10 .. today + 5
    ctl, atl, tsb = plain_pmc(loads)[-1]
    end = chart["days"][-1]
    assert (end["ctl"], end["atl"], end["tsb"], end["load"]) == (
        round(ctl, 1), round(atl, 1), round(tsb, 1), 50.0)
    by_day = {d["date"]: d["load"] for d in chart["days"]}
    assert by_day[(today - timedelta(days=1)).isoformat()] == 0.0
    assert "projected with the plan's load on 2 days from" in chart["summary"]
    # Without the plan the chart ends today; the HTTP twin takes include_plan too.
    plain = (await _mcp(h, auth, "get_fitness_chart", {}))["structuredContent"]
    assert plain["to"] == today.isoformat()
    twin = (await h.client.get("/api/fitness-chart?include_plan=true", headers=auth)).json()
    assert twin["days"][-1] == end


async def test_save_training_week_keeps_the_suggested_sessions(harness: Harness) -> None:
    """Each session of suggest_training_week that is not rest becomes a workout on its
    date, of its duration, at the IF the suggestion planned with as % FTP (easy 65, long
    70, tempo 85, intervals 95): its load is hours x IF^2 x 100 of its (rounded) duration."""
    h = harness
    auth, owner = await _person(h, "week@example.com")
    await _ftp(h, auth)
    today = _today(h)
    await _store(h, owner, [{"start": _at(today - timedelta(days=d), 12), "sport": "ride",
                             "metrics": {"load": 60.0}} for d in range(1, 40, 2)])
    week = (await _mcp(h, auth, "suggest_training_week", {}))["structuredContent"]
    saved = (await _mcp(h, auth, "save_training_week", {}))["structuredContent"]
    sessions = [s for s in week["sessions"] if s["type"] != "rest"]
    assert len(saved["workouts"]) == len(sessions) > 0
    factor = {"easy": 0.65, "long": 0.70, "tempo": 0.85, "intervals": 0.95}
    for session, workout in zip(sessions, saved["workouts"], strict=True):
        assert workout["date"] == session["date"]
        assert workout["duration_s"] == session["duration_min"] * 60
        expected = session["duration_min"] / 60 * factor[session["type"]] ** 2 * 100
        assert workout["load"] == pytest.approx(expected, abs=0.06)
    first, last = sessions[0]["date"], sessions[-1]["date"]
    cal = (await h.client.get(f"/api/calendar?from={first}&to={last}", headers=auth)).json()
    assert sum(len(d["planned"]) for d in cal["days"]) == len(sessions)


def _fake_ics(events: list[dict[str, Any]], **_: Any) -> str:
    return "\n".join(f"{e['date']} {e['name']}" for e in events)


async def test_calendar_feed_needs_the_persons_secret(
        harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """PLAN-4: the feed answers only with the person's current token (404 without, with a
    guess, with a replaced or a revoked one: one answer for all); the token is stored as
    its SHA-256 only; it gives that person's plan, never another's. The ICS renderer is
    the exporters' module: stood in for here so the test reads which workouts are fed."""
    monkeypatch.setattr(_service, "_renderer",
                        lambda fmt: _fake_ics if fmt == "ics" else None)
    h = harness
    alice, alice_owner = await _person(h, "feed-alice@example.com")
    bob, _ = await _person(h, "feed-bob@example.com")
    day = _today(h) + timedelta(days=2)
    for auth, name in ((alice, "alice ride"), (bob, "bob run")):
        r = await h.client.post("/api/workouts", headers=auth, json=_steady(
            name, "running", 1800, ("rpe", 3), day))
        assert r.status_code == 201
    assert (await h.client.get("/api/calendar.ics")).status_code == 404
    assert (await h.client.get("/api/calendar.ics?token=guess")).status_code == 404
    r = await h.client.post("/api/account/calendar-token", headers=alice)
    assert r.status_code == 201, r.text
    first = r.json()["token"]
    assert r.json()["url"].endswith(f"/api/calendar.ics?token={first}")
    feed = await h.client.get(f"/api/calendar.ics?token={first}")
    assert feed.status_code == 200 and feed.headers["content-type"].startswith("text/calendar")
    assert feed.text == f"{day} alice ride"
    async with h.services.fitness.store._sessions() as session:
        rows = (await session.execute(select(CalendarTokenRow))).scalars().all()
    assert [(r.user_id, r.token_hash) for r in rows] == [
        (alice_owner.user_id, hashlib.sha256(first.encode()).hexdigest())]
    second = (await h.client.post("/api/account/calendar-token", headers=alice)).json()["token"]
    assert (await h.client.get(f"/api/calendar.ics?token={first}")).status_code == 404
    assert (await h.client.get(f"/api/calendar.ics?token={second}")).status_code == 200
    assert (await h.client.delete("/api/account/calendar-token", headers=alice)
            ).status_code == 204
    assert (await h.client.get(f"/api/calendar.ics?token={second}")).status_code == 404
    assert (await h.client.delete("/api/account/calendar-token", headers=alice)
            ).status_code == 404
    # Bob's revocation route touches only his own (he has none).
    assert (await h.client.delete("/api/account/calendar-token", headers=bob)
            ).status_code == 404
    assert (await h.client.post("/api/account/calendar-token")).status_code == 401


def test_the_feed_token_is_masked_in_access_log_lines() -> None:
    """PLAN-4: the feed's secret travels in its URL (calendar apps send no header), so the
    access log line of a subscription must not carry it."""
    line = '"GET /api/calendar.ics?token=Zm9vYmFyc2VjcmV0 HTTP/1.1" 200'
    assert "Zm9vYmFyc2VjcmV0" not in redact(line)
    assert "/api/calendar.ics?token=" in redact(line)


async def test_export_hands_the_renderer_the_workout_and_the_sports_thresholds(
        harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The export route calls ``render_<format>`` with the workout's shared shape and the
    sport's thresholds under their generic names (cycling: ``ftp_watts``, the name the
    exporters read too)."""
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def render(workout: dict[str, Any], thresholds: dict[str, Any], **_: Any) -> bytes:
        seen.append((workout, thresholds))
        return b"FIT"

    monkeypatch.setattr(_service, "_renderer", lambda fmt: render)
    h = harness
    auth, _ = await _person(h, "export-wire@example.com")
    await _ftp(h, auth, 280)
    body = _steady("ss", "cycling", 1200, ("ftp_pct", 90), None)
    made = (await h.client.post("/api/workouts", headers=auth, json=body)).json()
    r = await h.client.get(f"/api/workouts/{made['id']}/export?format=fit", headers=auth)
    assert r.status_code == 200 and r.content == b"FIT"
    assert r.headers["content-disposition"] == f'attachment; filename="workout-{made["id"]}.fit"'
    (workout, thresholds), = seen
    assert workout == {"name": "ss", "sport": "cycling", "steps": body["steps"]}
    assert thresholds["ftp_watts"] == 280


async def test_the_exporters_render_through_the_routes(harness: Harness) -> None:
    """With the exporters' modules in the build (``_export_*``): each format's file
    comes back (200, its name), and the feed is a VCALENDAR with the planned workout."""
    h = harness
    auth, _ = await _person(h, "render@example.com")
    await _ftp(h, auth)
    day = _today(h) + timedelta(days=1)
    made = (await h.client.post("/api/workouts", headers=auth, json=_steady(
        "sweet spot", "cycling", 1200, ("ftp_pct", 90), day))).json()
    for fmt in ("fit", "zwo", "erg", "mrc"):
        r = await h.client.get(f"/api/workouts/{made['id']}/export?format={fmt}",
                               headers=auth)
        assert r.status_code == 200, (fmt, r.text)
        assert r.headers["content-disposition"].endswith(f'.{fmt}"') and r.content
    token = (await h.client.post("/api/account/calendar-token", headers=auth)).json()["token"]
    feed = await h.client.get(f"/api/calendar.ics?token={token}")
    assert feed.status_code == 200, feed.text
    assert feed.text.startswith("BEGIN:VCALENDAR") and "SUMMARY:sweet spot" in feed.text
    assert f"{made['id']}@pacekeeper" in feed.text
