"""Issue 28 (low), ERR-1: dates at the edge of the calendar. `9999-12-31` and `0001-01-01` are
valid ISO dates; 22 analysis URLs and five MCP tools answered them with 500 and a
traceback (the PMC's warm-up and `daily_loads()` step past year 1 or 9999). Every date a
route or tool takes is now checked at the boundary by one helper
(`fitness._inputs.parse_day`): 400 `validation_error` over HTTP, -32602 over MCP, a
message naming the parameter and the supported range, and nothing logged as an error.

The routes and tools are not listed by hand: every GET route the fitness and analysis
modules serve (from their route tables) is asked with each date parameter, and every tool
of `tools/list` whose input schema describes a day is called with each of its day
arguments.
"""

from __future__ import annotations

import logging
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import Route

from pacekeeper.fitness._inputs import FIRST_DAY, LAST_DAY
from pacekeeper.http.analysis import TWINS
from pacekeeper.http.fitness import fitness_routes
from pacekeeper.tools._params import DATE
from tests.pacekeeper.conftest import Harness

FIT = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit" / "4801048867.fit"
EDGES = ("9999-12-31", "0001-01-01")
DATE_PARAMS = ("from", "to", "date", "after", "before")
MOMENTS = ("after", "before")  # times (the activity list's filters): only never a 500
RANGE = f"from {FIRST_DAY} to {LAST_DAY}"


def _get_routes() -> list[str]:
    paths = [r.path for r in fitness_routes()
             if isinstance(r, Route) and "GET" in (r.methods or ())]
    paths += [path for path, methods in TWINS.items() if "GET" in methods]
    assert len(paths) >= 22
    return paths


async def _person(h: Harness) -> tuple[dict[str, str], dict[str, Any]]:
    body = await h.register(f"edge-{uuid.uuid4().hex[:8]}@example.com")
    h.client.cookies.clear()
    auth = {"authorization": f"Bearer {body['token']}"}
    imported = await h.client.post("/api/activities/import", headers=auth,
                                   files={"file": (FIT.name, FIT.read_bytes())})
    assert imported.status_code == 201, imported.text
    goal = await h.client.post("/api/goals", headers=auth, json={
        "kind": "race", "distance_m": 10000, "time_s": 2700})
    assert goal.status_code == 200, goal.text
    steps = [{"kind": "active", "end": {"time_s": 600}}]
    workout = await h.client.post("/api/workouts", headers=auth, json={
        "name": "Edge", "sport": "cycling", "steps": steps})
    assert workout.status_code == 201, workout.text
    ids = {"activity_id": imported.json()["activity"]["id"],
           "goal_id": goal.json()["goal"]["id"], "kind": "power", "provider": "strava",
           "workout_id": workout.json()["id"], "name": "Edge", "sport": "cycling",
           "steps": steps}  # the plan tools' required arguments
    return auth, ids


def _fill(path: str, ids: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: ids[m.group(1)], path)


def _no_error_logged(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert bad == [], [(r.name, r.getMessage()) for r in bad]


async def test_every_route_answers_an_edge_date_with_400(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = harness
    auth, ids = await _person(h)
    caplog.set_level(logging.INFO)
    refused: list[str] = []
    for path in _get_routes():
        url = _fill(path, ids)
        # A valid period besides (`/api/daily` needs one), the edge in a parameter's place;
        # a route that does not read the parameter answers as it does without it.
        period = {"from": "2025-12-01", "to": "2026-01-31"}
        plain = await h.client.get(url, headers=auth, params=period)
        assert plain.status_code in (200, 400), (url, plain.text)
        for name in DATE_PARAMS:
            for edge in EDGES:
                answer = await h.client.get(url, headers=auth, params={**period, name: edge})
                where = f"GET {url}?{name}={edge}"
                assert answer.status_code in (200, 400), (where, answer.text)
                if name in MOMENTS or (answer.status_code, answer.json()) == (
                        plain.status_code, plain.json()):
                    continue  # a time (any answer but 500), or a route that does not read it
                assert answer.status_code == 400, (where, answer.text)
                assert answer.json() == {"error": "validation_error",
                                         "message": f"{name} must be a date {RANGE}"}, where
                refused.append(where)
    # Each route that reads a day refuses both edges (18 route-parameter pairs today:
    # eleven routes, `from` and `to` or `date`).
    late = sorted(r.replace(EDGES[0], "") for r in refused if r.endswith(EDGES[0]))
    early = sorted(r.replace(EDGES[1], "") for r in refused if r.endswith(EDGES[1]))
    assert late == early and len(late) >= 18, refused
    for method, path, body in (
        ("POST", "/api/goals", {"kind": "race", "distance_m": 10000, "time_s": 2700}),
        ("PATCH", "/api/athlete", {"ftp_watts": 250}),
    ):
        field = "date" if path == "/api/goals" else "valid_from"
        for edge in EDGES:
            answer = await h.client.request(method, path, headers=auth,
                                            json={**body, field: edge})
            assert answer.status_code == 400, (method, path, edge, answer.text)
            assert answer.json() == {"error": "validation_error",
                                     "message": f"{field} must be a date {RANGE}"}
    _no_error_logged(caplog)


def _day_arguments(tool: dict[str, Any]) -> list[str]:
    """The arguments of a tool that take a day (the schema's date format, pattern or
    description)."""
    def is_day(schema: Any) -> bool:
        if isinstance(schema, list):
            return any(is_day(s) for s in schema)
        if not isinstance(schema, dict):
            return False
        return (schema.get("format") == "date" or schema.get("pattern") == DATE
                or "YYYY-MM-DD" in schema.get("description", "")
                or any(is_day(v) for v in schema.values()))

    return [name for name, schema in tool["inputSchema"]["properties"].items()
            if is_day(schema)]


async def test_every_tool_answers_an_edge_date_with_invalid_params(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = harness
    auth, ids = await _person(h)
    headers = await h.mcp_session(auth)
    listed = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    tools = listed.json()["result"]["tools"]
    with_days = {t["name"]: (t, _day_arguments(t)) for t in tools if _day_arguments(t)}
    assert len(with_days) >= 5, sorted(with_days)
    caplog.set_level(logging.INFO)
    for name, (tool, arguments) in with_days.items():
        # Required arguments valid (a day: within January 2026), the edge in one's place.
        required = {k: "2026-01-01" if k in arguments else {**ids, "kind": "race"}[k]
                    for k in tool["inputSchema"].get("required", [])}
        for argument in arguments:
            for edge in EDGES:
                answer = await h.client.post("/mcp", headers=headers, json={
                    "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                        "name": name, "arguments": {**required, argument: edge}}})
                body = answer.json()
                where = (name, argument, edge)
                assert "error" in body, (where, body)
                assert body["error"]["code"] == -32602, (where, body)
                assert f"{argument!r}" in body["error"]["message"], (where, body)
                assert RANGE in body["error"]["message"], (where, body)
    _no_error_logged(caplog)
