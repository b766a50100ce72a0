"""A workout onto the person's watch (issue 32, "Onto the watch"): sent to their connected
Garmin account through the Training API (the sandbox here), over HTTP and as
``schedule_workout``'s ``send_to``; what the sandbox's Garmin then holds is what was
planned; refusals say what to do; another person's workout is not found."""

from __future__ import annotations

import uuid
from typing import Any

from tests.pacekeeper.connections.conftest import ConnHarness
from tests.pacekeeper.connections.test_tools import Mcp, _error_text

THRESHOLD = {"name": "Threshold 2x20", "sport": "cycling", "date": "2026-12-09", "steps": [
    {"kind": "warmup", "end": {"time_s": 900}},
    {"repeat": 2, "steps": [
        {"kind": "active", "end": {"time_s": 1200}, "target": {"type": "ftp_pct", "low": 95, "high": 100}},
        {"kind": "recovery", "end": {"time_s": 300}}]},
    {"kind": "cooldown", "end": {"lap_press": True}}]}


async def _planner(conn: ConnHarness, email: str, athlete: int
                   ) -> tuple[str, dict[str, str], dict[str, Any]]:
    user_id, auth = await conn.user(email)
    r = await conn.client.patch("/api/athlete", headers=auth, json={"ftp_watts": 260})
    assert r.status_code == 200, r.text
    made = await conn.client.post("/api/workouts", headers=auth, json=THRESHOLD)
    assert made.status_code == 201, made.text
    callback = await conn.approve(await conn.authorization_url("garmin", user_id, auth),
                                  athlete=athlete)
    assert (await conn.client.get(callback)).status_code in (200, 302, 303)
    return user_id, auth, made.json()


async def test_a_workout_reaches_the_watch_as_planned(conn: ConnHarness) -> None:
    user_id, auth, made = await _planner(conn, "watch@example.com", athlete=21)
    r = await conn.client.post(f"/api/workouts/{made['id']}/send", headers=auth,
                               json={"provider": "garmin"})
    assert r.status_code == 200, r.text
    sent = r.json()
    assert sent["provider"] == "garmin" and sent["date"] == "2026-12-09"
    assert sent["provider_workout_id"] and sent["provider_schedule_id"]
    # Read back as the device would get it: the sandbox's Garmin, with the athlete's token.
    token = await _garmin_token(conn, user_id)
    headers = {"Authorization": f"Bearer {token}"}
    held = (await conn.client.get(
        f"/sandbox/garmin/training-api/workout/v2/{sent['provider_workout_id']}",
        headers=headers)).json()
    steps = held["segments"][0]["steps"]
    assert held["workoutName"] == "Threshold 2x20" and held["sport"] == "CYCLING"
    assert steps[1]["repeatValue"] == 2
    # 95-100 % of the person's 260 W FTP: 247, 260 W.
    assert (steps[1]["steps"][0]["targetValueLow"],
            steps[1]["steps"][0]["targetValueHigh"]) == (247, 260)
    calendar = (await conn.client.get("/sandbox/garmin/training-api/schedule", headers=headers,
                                      params={"startDate": "2026-12-01",
                                              "endDate": "2026-12-31"})).json()
    assert [(c["workoutId"], c["date"]) for c in calendar] == [
        (int(sent["provider_workout_id"]), "2026-12-09")]


async def _garmin_token(conn: ConnHarness, user_id: str) -> str:
    """The person's Garmin access token, as the service holds it (to read the sandbox's
    Garmin as their device would)."""
    connections = conn.services.connections
    assert connections is not None

    async def token(_client: Any, tokens: Any) -> str:
        return str(tokens.access_token)

    return await connections.session(uuid.UUID(user_id), "garmin").call(token)


async def test_schedule_workout_sends_it_when_asked(conn: ConnHarness) -> None:
    _, auth, made = await _planner(conn, "watch-mcp@example.com", athlete=22)
    mcp = await Mcp(conn.client, auth).open()
    result = await mcp.call("schedule_workout", workout_id=made["id"], date="2026-12-10",
                            send_to="garmin")
    assert not result.get("isError"), result
    answer = result["structuredContent"]
    assert answer["date"] == "2026-12-10" and answer["sent"]["date"] == "2026-12-10"
    assert answer["sent"]["provider_schedule_id"]


async def test_refusals_say_what_to_do(conn: ConnHarness) -> None:
    user_id, auth = await conn.user("no-garmin@example.com")
    await conn.client.patch("/api/athlete", headers=auth, json={"ftp_watts": 260})
    made = (await conn.client.post("/api/workouts", headers=auth, json=THRESHOLD)).json()
    r = await conn.client.post(f"/api/workouts/{made['id']}/send", headers=auth,
                               json={"provider": "garmin"})
    assert r.status_code == 404 and "connect_provider" in r.json()["message"], r.text
    r = await conn.client.post(f"/api/workouts/{made['id']}/send", headers=auth,
                               json={"provider": "strava"})
    assert r.status_code == 400 and "takes workouts: garmin" in r.json()["message"], r.text
    mcp = await Mcp(conn.client, auth).open()
    result = await mcp.call("schedule_workout", workout_id=made["id"], date="2026-12-10",
                            send_to="garmin")
    assert "connect_provider" in _error_text(result)


async def test_another_person_s_workout_is_not_sent(conn: ConnHarness) -> None:
    _, _, made = await _planner(conn, "owner-w@example.com", athlete=23)
    other_id, other, _ = await _planner(conn, "other-w@example.com", athlete=24)
    r = await conn.client.post(f"/api/workouts/{made['id']}/send", headers=other,
                               json={"provider": "garmin"})
    assert r.status_code == 404 and r.json()["message"] == "no such workout", r.text
    token = await _garmin_token(conn, other_id)
    held = (await conn.client.get("/sandbox/garmin/training-api/schedule", params={
        "startDate": "2026-12-01", "endDate": "2026-12-31"},
        headers={"Authorization": f"Bearer {token}"})).json()
    assert held == []
