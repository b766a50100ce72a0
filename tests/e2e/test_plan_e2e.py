"""Issue 32's "done when", with the official `mcp` SDK over a real socket: an assistant
asked "plan my next three weeks for a 10 km race on the 20th" sets the goal, keeps the
suggested week, writes the two weeks after and the race, puts one on the watch (Garmin in
the sandbox), and reads the projected form on race day; after a run the calendar shows
how closely the day's plan was followed.

Every figure checked is worked here: the planned loads (hrTSS from % LTHR by hand), the
projection (the chart's planned days carry exactly the planned loads), the compliance
(the run's moving time over the plan's)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests._services import free_port
from tests.e2e._connect import connect_without_browser
from tests.e2e._service_process import running, service_env
from tests.e2e.test_web_app import PASSWORD
from tests.e2e.test_web_home_activity import _gpx, _import

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(service_env(tmp_path_factory.mktemp("plan"), free_port())) as url:
        yield url


def _race_day(today: date) -> date:
    """"The 20th": the next 20th at least three weeks away."""
    day = today.replace(day=20)
    while day < today + timedelta(days=21):
        day = (day.replace(day=1) + timedelta(days=32)).replace(day=20)
    return day


def _steady(name: str, minutes: int, low: float, high: float, day: date) -> dict[str, Any]:
    return {"name": name, "sport": "running", "date": day.isoformat(), "steps": [
        {"kind": "active", "end": {"time_s": minutes * 60},
         "target": {"type": "lthr_pct", "low": low, "high": high}}]}


def _hr_tss(minutes: int, low: float, high: float) -> float:
    """The plan's hrTSS: hours x IF^2 x 100, IF the target's mid % of LTHR."""
    return round(minutes / 60 * ((low + high) / 200) ** 2 * 100, 1)


async def _call(client: Any, tool: str, /, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, (tool, result)
    answer: dict[str, Any] = result.structured_content or json.loads(result.content[0].text)
    return answer


@pytest.fixture(scope="module")
def runner(server: str) -> dict[str, str]:
    """A runner with thresholds, four weeks of runs behind (one every other day, 40 min
    at 3.2 m/s and 140 bpm) and Garmin connected (the sandbox): their bearer header."""
    registered = httpx.post(f"{server}/api/auth/register", json={
        "email": "planner@example.com", "password": PASSWORD}).json()
    auth = {"authorization": f"Bearer {registered['token']}"}
    today = datetime.now(UTC).date()
    assert httpx.patch(f"{server}/api/athlete", headers=auth, json={
        "lthr_bpm": 170, "max_hr_bpm": 192, "resting_hr_bpm": 48,
        "threshold_pace_s_per_km": 270, "valid_from": "2020-01-01"}).status_code == 200
    for back in range(1, 28, 2):
        start = datetime.combine(today - timedelta(days=back), datetime.min.time(), UTC)
        _import(server, auth, f"run{back}.gpx", _gpx(start + timedelta(hours=7), "running",
                                                     2400, 3.2, 140))
    connect_without_browser(server, registered["token"], registered["user_id"], "garmin", 31)
    return auth


async def test_an_assistant_plans_three_weeks_to_a_race(server: str,
                                                        runner: dict[str, str]) -> None:
    auth = runner
    today = datetime.now(UTC).date()
    race = _race_day(today)
    http = httpx.AsyncClient(headers=auth, timeout=120)
    async with Client(streamable_http_client(f"{server}/mcp", http_client=http)) as client:
        goal = await _call(client, "set_goal", kind="race", date=race.isoformat(),
                           name="City 10k", distance_m=10000, time_s=2700)
        goal_id = goal["goal"]["id"]
        kept = await _call(client, "save_training_week", goal_id=goal_id)
        assert kept["workouts"], kept
        # The two weeks after the kept one, and the race: what the assistant writes.
        monday = today + timedelta(days=7 - today.weekday())
        written: dict[str, float] = {}
        for week in (1, 2):
            for offset, (name, minutes, low, high) in enumerate((
                    ("Tempo", 40, 88, 92), ("Easy", 45, 70, 78), ("Long", 80, 72, 80))):
                day = monday + timedelta(weeks=week, days=offset * 2 + 1)
                if day >= race:
                    continue
                made = await _call(client, "create_workout",
                                   **_steady(f"{name} w{week + 1}", minutes, low, high, day))
                assert made["load"] == _hr_tss(minutes, low, high), made
                assert made["load_method"] == "hrtss"
                written[day.isoformat()] = written.get(day.isoformat(), 0.0) + made["load"]
        race_run = await _call(client, "create_workout",
                               **_steady("City 10k", 45, 100, 105, race))
        written[race.isoformat()] = written.get(race.isoformat(), 0.0) + race_run["load"]
        # One onto the watch: the race itself, on its day in the person's Garmin.
        sent = await _call(client, "schedule_workout", workout_id=race_run["id"],
                           date=race.isoformat(), send_to="garmin")
        assert sent["sent"]["date"] == race.isoformat() and sent["sent"]["provider_schedule_id"]

        # The calendar holds every workout written, on its day.
        calendar = await _call(client, "get_calendar", **{
            "from": monday.isoformat(), "to": race.isoformat()})
        planned = {d["date"]: sum(p["load"] or 0 for p in d["planned"]) for d in calendar["days"]}
        for day, load in written.items():
            assert planned[day] == pytest.approx(load, abs=0.11), day
        # Form on race day: the chart projected through the plan; a planned day's load is
        # its planned load, and race day has a TSB.
        chart = await _call(client, "get_fitness_chart", include_plan=True, **{
            "from": today.isoformat(), "to": race.isoformat()})
        days = {d["date"]: d for d in chart["days"]}
        assert race.isoformat() in days and isinstance(days[race.isoformat()]["tsb"], float)
        for day, load in written.items():
            assert days[day]["load"] == pytest.approx(planned[day], abs=0.11), day

        # After a run: today's plan, then a 40-minute run today, matched with its ratio.
        today_plan = await _call(client, "create_workout",
                                 **_steady("Shakeout", 30, 70, 75, today))
        start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
        if start.date() != today:
            start = datetime.combine(today, datetime.min.time(), UTC)
        imported = await http.post(f"{server}/api/activities/import", files={
            "file": ("today.gpx", _gpx(start, "running", 2400, 3.0, 135))})
        assert imported.status_code == 201, imported.text
        calendar = await _call(client, "get_calendar", **{
            "from": today.isoformat(), "to": today.isoformat()})
        done = next(p for d in calendar["days"] for p in d["planned"]
                    if p["id"] == today_plan["id"])
        assert done["done"]["duration_ratio"] == pytest.approx(2400 / 1800, abs=0.02), done
