"""Workouts over HTTP and MCP (issue 32): create, read, change, schedule, delete; bad
input; every path isolated per person. SQLite and PostgreSQL (the harness's
parametrization)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import orjson

from pacekeeper.oauth2 import READ
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _today
from tests.security._mcp_live import oauth_token

INTERVALS: dict[str, Any] = {"name": "5 x 4 min", "sport": "cycling", "steps": [
    {"kind": "warmup", "end": {"time_s": 600}, "target": {"type": "ftp_pct", "low": 50,
                                                          "high": 60}},
    {"repeat": 5, "steps": [
        {"kind": "active", "end": {"time_s": 240},
         "target": {"type": "ftp_pct", "low": 105, "high": 110}},
        {"kind": "recovery", "end": {"time_s": 180},
         "target": {"type": "ftp_pct", "low": 50, "high": 60}}]},
    {"kind": "cooldown", "end": {"lap_press": True}}]}


async def _ftp(h: Harness, auth: dict[str, str], watts: int = 250) -> None:
    r = await h.client.patch("/api/athlete", headers=auth,
                             json={"ftp_watts": watts, "valid_from": "2000-01-01"})
    assert r.status_code == 200, r.text


async def test_create_read_change_delete_a_workout(harness: Harness) -> None:
    """PLAN-1 over HTTP: 201 with the id, the shape as stored and the derived figures
    (warm-up 5.0417 + work 38.5208 + recoveries 7.5625 = 51.1 TSS; a lap-press cool-down:
    no duration); PATCH re-derives; DELETE 204, then 404."""
    h = harness
    auth, _ = await _person(h, "plan@example.com")
    await _ftp(h, auth)
    day = (_today(h) + timedelta(days=3)).isoformat()
    r = await h.client.post("/api/workouts", headers=auth, json={**INTERVALS, "date": day})
    assert r.status_code == 201, r.text
    body = r.json()
    assert r.headers["location"] == f"/api/workouts/{body['id']}"
    assert (body["date"], body["sport"], body["load"], body["load_method"],
            body["duration_s"]) == (day, "cycling", 51.1, "tss", None)
    assert body["steps"] == INTERVALS["steps"]
    got = (await h.client.get(f"/api/workouts/{body['id']}", headers=auth)).json()
    assert got == body
    # 4 steps of 10 min at 100 %: 4 x 1/6 x 100 = 66.7; the date stays.
    r = await h.client.patch(f"/api/workouts/{body['id']}", headers=auth, json={"steps": [
        {"repeat": 4, "steps": [{"kind": "active", "end": {"time_s": 600},
                                 "target": {"type": "ftp_pct", "low": 100, "high": 100}}]}]})
    assert r.status_code == 200, r.text
    assert (r.json()["load"], r.json()["duration_s"], r.json()["date"]) == (66.7, 2400, day)
    r = await h.client.patch(f"/api/workouts/{body['id']}", headers=auth, json={"date": None})
    assert r.json()["date"] is None
    assert (await h.client.delete(f"/api/workouts/{body['id']}", headers=auth)
            ).status_code == 204
    assert (await h.client.get(f"/api/workouts/{body['id']}", headers=auth)
            ).status_code == 404


async def test_bad_workouts_are_400_with_the_reason(harness: Harness) -> None:
    """A step without an end, a % FTP target with no FTP set, a repeat of zero, a date far
    outside the supported range (the service's one edge-date check): 400 naming it."""
    h = harness
    auth, _ = await _person(h, "bad-plan@example.com")
    one = {"kind": "active", "end": {"time_s": 60}}
    cases = [
        ({"steps": [{"kind": "active"}]}, "steps[0]: a step needs an end"),
        ({"steps": [{**one, "target": {"type": "ftp_pct", "low": 90, "high": 95}}]},
         "set ftp_watts first"),
        ({"steps": [{"repeat": 0, "steps": [one]}]}, "repeat must be a whole number"),
        ({"steps": [one], "date": "9999-12-31"}, "date must be a date from 1900-01-01"),
        ({"steps": [one], "date": "tomorrow"}, "date must be a date (YYYY-MM-DD)"),
    ]
    for change, message in cases:
        r = await h.client.post("/api/workouts", headers=auth,
                                json={"name": "x", "sport": "cycling", **change})
        assert r.status_code == 400, (change, r.text)
        assert message in r.json()["message"], (change, r.json())
    # Nothing was stored by the refusals.
    cal = (await h.client.get("/api/calendar?from=1900-01-01&to=1900-12-31",
                              headers=auth)).json()
    assert cal["days"] == []


async def test_another_persons_workout_is_404_on_every_path(harness: Harness) -> None:
    """Every route and tool that names a workout answers another person's as if it did not
    exist, and changes nothing (a test per path)."""
    h = harness
    alice, _ = await _person(h, "alice-plan@example.com")
    bob, _ = await _person(h, "bob-plan@example.com")
    await _ftp(h, alice)
    made = (await h.client.post("/api/workouts", headers=alice, json=INTERVALS)).json()
    path = f"/api/workouts/{made['id']}"
    assert (await h.client.get(path, headers=bob)).status_code == 404
    assert (await h.client.patch(path, headers=bob, json={"name": "mine"})).status_code == 404
    assert (await h.client.delete(path, headers=bob)).status_code == 404
    assert (await h.client.get(path + "/export?format=zwo", headers=bob)).status_code == 404
    assert (await h.client.get("/api/workouts/not-a-uuid", headers=bob)).status_code == 404
    for name, args in (("update_workout", {"workout_id": made["id"], "name": "mine"}),
                       ("delete_workout", {"workout_id": made["id"]}),
                       ("schedule_workout", {"workout_id": made["id"],
                                             "date": "2030-01-01"})):
        result = await _mcp(h, bob, name, args)
        assert result["isError"] is True, (name, result)
        assert "no such workout" in result["content"][0]["text"]
    headers = await h.mcp_session(bob)
    read = (await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": f"workout://{made['id']}"}})).json()
    assert read["error"]["code"] == -32602 and "no such workout" in read["error"]["message"]
    assert (await h.client.get("/api/workouts", headers=bob)).json() == {"unscheduled": []}
    still = (await h.client.get(path, headers=alice)).json()
    assert still == made
    headers = await h.mcp_session(alice)
    read = (await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": f"workout://{made['id']}"}})).json()
    (content,) = read["result"]["contents"]
    assert orjson.loads(content["text"]) == made  # the resource is GET's answer


async def test_mcp_tools_create_schedule_and_refuse_bad_steps(harness: Harness) -> None:
    """create_workout answers the derived figures; schedule_workout moves it; a bad step
    is the client's -32602 with the service's message; the write tools need
    fitness:write (a read-only token is refused, 403 insufficient_scope)."""
    h = harness
    auth, _ = await _person(h, "mcp-plan@example.com")
    await _ftp(h, auth)
    made = (await _mcp(h, auth, "create_workout", INTERVALS))["structuredContent"]
    assert made == {"id": made["id"], "date": None, "name": "5 x 4 min", "sport": "cycling",
                    "duration_s": None, "distance_m": None, "load": 51.1,
                    "load_method": "tss", "load_complete": False}  # compact: no steps
    moved = (await _mcp(h, auth, "schedule_workout", {"workout_id": made["id"],
                                                     "date": "2030-05-04"}))
    assert moved["structuredContent"]["date"] == "2030-05-04"
    bad = await _mcp(h, auth, "create_workout", {"name": "x", "sport": "cycling",
                                                 "steps": [{"kind": "active"}]})
    assert bad["error"]["code"] == -32602
    assert "steps[0]: a step needs an end" in bad["error"]["message"]
    bad = await _mcp(h, auth, "save_training_week", {"sport": "curling"})
    assert bad["error"]["code"] == -32602 and "sport must be one of" in bad["error"]["message"]
    token = auth["authorization"].removeprefix("Bearer ")
    read_only = {"authorization": f"Bearer {oauth_token(h.app, token, READ)}"}
    headers = await h.mcp_session(read_only)
    for name in ("create_workout", "delete_workout", "schedule_workout", "update_workout",
                 "save_training_week"):
        r = await h.client.post("/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": {"workout_id": made["id"], **INTERVALS}}})
        assert r.status_code == 403, (name, r.text)
        assert "insufficient_scope" in r.headers["www-authenticate"]
    assert (await h.client.get(f"/api/workouts/{made['id']}", headers=auth)).status_code == 200


async def test_export_route_is_wired(harness: Harness) -> None:
    """An unknown format is 400; a known one is the file; a format that cannot hold the
    workout is 400 saying why (a run's pace targets are no trainer file)."""
    h = harness
    auth, _ = await _person(h, "export-plan@example.com")
    await _ftp(h, auth)
    made = (await h.client.post("/api/workouts", headers=auth, json=INTERVALS)).json()
    r = await h.client.get(f"/api/workouts/{made['id']}/export?format=pdf", headers=auth)
    assert r.status_code == 400 and "format must be one of" in r.json()["message"]
    r = await h.client.get(f"/api/workouts/{made['id']}/export?format=fit", headers=auth)
    assert r.status_code == 200, r.text
    assert r.headers["content-disposition"].endswith('.fit"')
    run = {"name": "tempo", "sport": "running", "steps": [
        {"kind": "active", "end": {"time_s": 1200}, "target": {"type": "pace", "low": 250,
                                                              "high": 260}}]}
    made = (await h.client.post("/api/workouts", headers=auth, json=run)).json()
    r = await h.client.get(f"/api/workouts/{made['id']}/export?format=erg", headers=auth)
    assert r.status_code == 400 and "cycling" in r.json()["message"], r.text


async def test_unscheduled_workouts_are_listed_until_given_a_date(harness: Harness) -> None:
    """GET /api/workouts (the calendar page's "Unscheduled"): the person's workouts with no
    date, each as GET answers it; one given a date leaves the list (and is
    on the calendar that day); one made with a date was never in it."""
    h = harness
    auth, _ = await _person(h, "unscheduled@example.com")
    await _ftp(h, auth)
    day = (_today(h) + timedelta(days=2)).isoformat()
    dated = (await h.client.post("/api/workouts", headers=auth,
                                 json={**INTERVALS, "date": day})).json()
    first = (await h.client.post("/api/workouts", headers=auth,
                                 json={**INTERVALS, "name": "First"})).json()
    second = (await h.client.post("/api/workouts", headers=auth,
                                  json={**INTERVALS, "name": "Second"})).json()
    r = await h.client.get("/api/workouts", headers=auth)
    assert r.status_code == 200, r.text
    # (The test's clock stands still: both made at one moment, so no order to check.)
    assert sorted(r.json()["unscheduled"], key=lambda w: w["name"]) == [first, second]
    assert dated["id"] not in r.text
    await h.client.patch(f"/api/workouts/{first['id']}", headers=auth, json={"date": day})
    assert (await h.client.get("/api/workouts", headers=auth)).json()["unscheduled"] == [
        second]
    calendar = (await h.client.get("/api/calendar", headers=auth,
                                   params={"from": day, "to": day})).json()
    assert {w["id"] for w in calendar["days"][0]["planned"]} == {dated["id"], first["id"]}
    assert (await h.client.get("/api/workouts")).status_code == 401
    document = (await h.client.get("/openapi.json")).json()
    assert "get" in document["paths"]["/api/workouts"]
