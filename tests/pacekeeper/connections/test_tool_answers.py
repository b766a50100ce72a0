"""Every tool's real answer, for a person synced from a sandbox athlete (Strava: rides and
runs with streams; Fitbit and Garmin: daily health) plus an imported FIT ride: each answer validates
against the tool's advertised outputSchema and its full generated one (jsonschema, draft
2020-12), and the activity tools' figures follow issue 27 item 14 (each names its unit, no
more decimals than the measurement supports, a run's pace in min/km, never km/h)."""

from __future__ import annotations

import base64
import json
import re
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]

from mcpcast import Context, Server
from pacekeeper.fitness import Owner
from pacekeeper.fitness._figures import decimals_for
from pacekeeper.mcp._caller import caller_injectors
from pacekeeper.mcp._tools import PacekeeperTools
from tests.pacekeeper.connections.conftest import ConnHarness

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
RIDE = Path(__file__).resolve().parents[2] / "data" / "activities" / "fit" / "4801048867.fit"
UNIT = re.compile(r"_(s|ms|m|km|kmh|mph|mps|bpm|w|watts|j|kj|kcal|kg|pct|h|min|per_min|"
                  r"100m|500m|mi)$|^(bpm|watts)$")
# Counts and unitless quantities: a number named so needs no unit.
UNITLESS = {"points", "load", "intensity_factor", "efficiency_factor", "variability_index",
            "tss", "hr_tss", "trimp", "utc_offset_s", "activities", "steps", "sleep_score"}
# The activity tools and daily health: every figure at their top level (and in each list
# item) names its unit. get_activity's "metrics", "device_metrics" and "laps" are the stored records,
# named by the engine and the device (docs/fitness.md); only their rounding is checked.
UNIT_CHECKED = {"list_activities", "get_activity", "import_activity", "get_daily_summaries"}
RECORDS = {"metrics", "device_metrics", "laps", "sources"}


def full_output_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's outputSchema as mcpcast generates it from the result's type, every
    nested field typed: tools/list publishes less (the list of a result's fields,
    `schemas="minimal"`), which every answer meets trivially; this is the check that
    the answers are the shapes their types declare."""
    injectors = {**caller_injectors(lambda: None), Context: lambda ex, args: None}
    server = Server(PacekeeperTools(lambda: None), injectors=injectors)
    return {name: entry.signature.output_schema for name, entry in server.registry.tools.items()
            if entry.signature.output_schema is not None}


async def _connect(h: ConnHarness, user_id: str, headers: dict[str, str], provider: str,
                   athlete: int) -> None:
    url = await h.approve(await h.authorization_url(provider, user_id, headers), athlete)
    assert (await h.client.get(url)).status_code == 200


class _Mcp:
    def __init__(self, h: ConnHarness, auth: dict[str, str]) -> None:
        self.h, self.auth, self.headers = h, auth, {}

    async def start(self) -> None:
        init = await self.h.client.post("/mcp", headers={**ACCEPT, **self.auth}, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}})
        self.headers = {**ACCEPT, **self.auth, "mcp-session-id": init.headers["mcp-session-id"],
                        "mcp-protocol-version": "2025-11-25"}

    async def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = await self.h.client.post("/mcp", headers=self.headers, json={
            "jsonrpc": "2.0", "id": 2, "method": method, "params": params})
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()["result"]
        return result

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.rpc("tools/call", {"name": name, "arguments": arguments})
        assert not result.get("isError"), (name, result)
        structured: dict[str, Any] = result["structuredContent"]
        return structured


def _figures(value: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, key, number) of every number in an answer; a list item takes its key."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, bool):
                continue
            if isinstance(item, (int, float)):
                yield f"{path}.{key}", str(key), item
            else:
                yield from _figures(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (int, float)) and not isinstance(item, bool):
                yield f"{path}[{index}]", path.rsplit(".", 1)[-1], item
            else:
                yield from _figures(item, f"{path}[{index}]")


def _decimals(number: float) -> int:
    text = repr(float(number))
    return 0 if "e" in text else len(text.split(".")[1].rstrip("0"))


def _unit_problems(name: str, answer: dict[str, Any]) -> list[str]:
    problems = []
    for path, key, number in _figures(answer):
        if any(f".{record}" in path for record in RECORDS):
            continue  # a stored record: rounding only (checked below)
        if not (UNIT.search(key) or key in UNITLESS):
            problems.append(f"{name}{path}: {key} names no unit")
    return problems


def _rounding_problems(name: str, answer: dict[str, Any]) -> list[str]:
    return [f"{name}{path}: {number!r} has more decimals than {key} supports"
            for path, key, number in _figures(answer)
            if isinstance(number, float) and _decimals(number) > max(decimals_for(key), 0)]


async def test_every_tool_answer_matches_its_schema_and_names_its_units(
        conn_factory: Callable[..., Any]) -> None:
    """Issue 27 item 14: every tool called once (with what it needs), its answer validated
    against its outputSchema; the activity tools' figures carry their unit and are
    rounded (no `154.51358708295328` bpm); runs read in min/km, rides in km/h."""
    async with conn_factory(worker="off", sync_history_days=42) as h:
        user_id, auth = await h.user("answers@example.com")
        await _connect(h, user_id, auth, "strava", 3)
        await _connect(h, user_id, auth, "fitbit", 3)
        await _connect(h, user_id, auth, "garmin", 3)
        user = await h.services.users.get(uuid.UUID(user_id))
        assert user is not None
        owner = Owner(user.id, user.tenant_id)
        syncs = h.services.syncs
        assert syncs is not None
        for provider in ("strava", "fitbit", "garmin"):
            report = await syncs.sync(owner, provider)
            assert report.status == "done", report.message
        mcp = _Mcp(h, auth)
        await mcp.start()
        tools = {t["name"]: t for t in (await mcp.rpc("tools/list", {}))["tools"]}
        answers: dict[str, dict[str, Any]] = {}

        async def call(name: str, /, **arguments: Any) -> dict[str, Any]:
            answers[name] = await mcp.call(name, arguments)
            return answers[name]

        await call("update_athlete_settings", ftp_watts=230, lthr_bpm=168, max_hr_bpm=188,
                   resting_hr_bpm=48, weight_kg=70, threshold_pace_s_per_km=255)
        imported = await call("import_activity",
                              content_base64=base64.b64encode(RIDE.read_bytes()).decode(),
                              filename=RIDE.name)
        page = await call("list_activities", limit=50)
        items = page["activities"]
        run = next(a for a in items if a["sport"] == "run")
        ride = next(a for a in items if a["sport"] == "ride")
        for name in ("whoami", "get_connection_status", "get_athlete", "get_daily_summaries",
                     "get_training_summary", "get_fitness_chart", "get_load_risk",
                     "get_readiness", "get_recovery_status", "get_weekly_load",
                     "get_power_curve", "get_hr_curve", "get_pace_curve", "get_best_efforts",
                     "estimate_critical_power", "estimate_ftp", "get_zone_distribution",
                     "calculate_zones", "estimate_vo2max", "get_period_summary",
                     "detect_patterns", "get_goals"):
            await call(name)
        await call("get_provider_profile", provider="strava")
        await call("connect_provider", provider="garmin")
        await call("sync_activities", provider="strava")
        for name in ("get_activity", "analyze_activity", "get_wbal"):
            await call(name, activity_id=ride["id"])
        read = await mcp.rpc("resources/read", {"uri": f"activity://{ride['id']}"})
        assert json.loads(read["contents"][0]["text"]) == answers["get_activity"]
        await call("get_activity_streams", activity_id=run["id"], max_points=50)
        await call("compare_activities", activity_ids=[run["id"], ride["id"]])
        await call("compare_periods", a_from="2026-01-01", a_to="2026-01-31",
                   b_from="2026-02-01", b_to="2026-02-28")
        await call("predict_race_time", distance_m=10000, time_s=2700)
        await call("get_training_paces", vdot=50)
        goal = await call("set_goal", kind="race", distance_m=21097.5, time_s=5700,
                          date=(h.clock().date().replace(year=h.clock().year + 1)).isoformat())
        goal_id = goal["goal"]["id"]
        await call("goal_feasibility", goal_id=goal_id)
        await call("suggest_training_week", goal_id=goal_id)
        await call("delete_goal", goal_id=goal_id)
        # The plan tools (issue 32): a workout written, changed, put on a day and sent to
        # the Garmin connected above, the calendar, a suggested week kept, then deleted.
        day = (h.clock().date() + timedelta(days=2)).isoformat()
        made = await call("create_workout", name="Tempo", sport="running", date=day, steps=[
            {"kind": "active", "end": {"time_s": 1200},
             "target": {"type": "pace", "low": 250, "high": 260}}])
        await call("update_workout", workout_id=made["id"], name="Tempo 20")
        await call("schedule_workout", workout_id=made["id"], date=day, send_to="garmin")
        await call("get_calendar")
        await call("save_training_week")
        await call("delete_workout", workout_id=made["id"])
        await call("delete_activity", activity_id=imported["activity"]["id"])

        assert set(answers) == set(tools), set(tools) - set(answers)
        full = full_output_schemas()
        for name, answer in answers.items():
            for schema in (tools[name]["outputSchema"], full[name]):
                jsonschema.Draft202012Validator.check_schema(schema)
                jsonschema.validate(answer, schema, cls=jsonschema.Draft202012Validator)

        problems = [p for name in sorted(UNIT_CHECKED)
                    for p in _unit_problems(name, answers[name])
                    + _rounding_problems(name, answers[name])]
        assert problems == []
        # A run reads as a pace per km (m:ss), a ride as km/h; the pace is the moving time
        # over the distance, computed here from the item's own figures.
        assert "speed_kmh" not in run and re.fullmatch(r"\d+:\d\d", run["pace_min_per_km"])
        minutes, seconds = map(int, run["pace_min_per_km"].split(":"))
        expected = run["moving_time_s"] / run["distance_km"]
        assert abs(minutes * 60 + seconds - expected) <= 1.5  # m:ss, and km to 10 m
        assert "pace_min_per_km" not in ride
        assert abs(ride["speed_kmh"] - ride["distance_km"] / ride["moving_time_s"] * 3600) < 0.2
        assert all(isinstance(a.get("avg_hr_bpm", 0), int) for a in items)
        days = answers["get_daily_summaries"]["days"]
        assert any(isinstance(d.get("resting_hr_bpm"), int) for d in days), days
