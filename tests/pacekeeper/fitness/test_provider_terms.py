"""Data-source policies (issue 31 item 2): what each provider's terms allow, applied.

Strava's API Policy (effective 2026-06-01, sections 5.3-5.5): no AI application, no
combining, a 7-day cache. An activity known only from Strava is shown to its owner (web,
their own HTTP API), kept at most 7 days (the purge job, with a clock), and never served
to an assistant (every read tool, the resources, A2A) unless the operator declares an
agreement; one the person also brought as a file is theirs. Requirements TERMS-1 (each
record keeps its provenance), TERMS-2 (not served to assistants, the answer says why),
TERMS-3 (purged when the limit passes).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from datetime import date, timedelta
from types import SimpleNamespace
from typing import Any

import procrastinate
from procrastinate.testing import InMemoryConnector

from pacekeeper.connections import provider_setup
from pacekeeper.fitness import DailyHealth, Owner, SourceRef
from pacekeeper.fitness._service import summary_of
from pacekeeper.fitness._settings import check_settings
from pacekeeper.jobs import _register
from pacekeeper.providers import PROVIDERS, Policies, agreements
from tests.pacekeeper.apikeys._helpers import create_key, user_token
from tests.pacekeeper.conftest import Harness, make_settings
from tests.pacekeeper.fitness._activity_files import activity, raw

STRAVA = PROVIDERS["strava"]
ONLY_STRAVA = "Secret Strava-only ride"
BOTH = "fit/sample-activity-indoor-trainer.fit"  # synced from Strava and uploaded as a file
OWN = "fit/2015-10-13-08-43-15.fit"  # uploaded only
SYNCED = "fit/2013-02-06-12-11-14.fit"  # known only from Strava


def test_each_provider_declares_its_terms() -> None:
    strava = STRAVA.policy
    assert strava.retention == timedelta(days=7)
    assert not strava.assistants and not strava.combined
    assert strava.agreement_setting == "strava_ai_agreement"
    for spec in PROVIDERS.values():  # each says where its terms are and when we read them
        assert spec.policy.terms.startswith("https://"), spec.id
        assert spec.policy.read_on.isoformat() == "2026-12-07", spec.id


def test_the_agreement_and_the_sandbox_lift_the_assistant_rule(tmp_path: Any) -> None:
    specs = list(PROVIDERS.values())
    off = make_settings("sqlite+aiosqlite://", tmp_path)
    on = make_settings("sqlite+aiosqlite://", tmp_path, strava_ai_agreement=True)
    assert "strava" in Policies.of(specs, agreed=agreements(specs, off)).withheld
    assert "strava" not in Policies.of(specs, agreed=agreements(specs, on)).withheld
    # The sandbox's athletes are synthetic: neither rule applies to them.
    sandboxed = Policies.of(specs, sandboxed={"strava"})
    assert "strava" not in sandboxed.withheld
    assert "strava" not in (sandboxed.retention or {})
    assert Policies.of(specs).retention == {"strava": timedelta(days=7)}


async def _person(h: Harness, email: str) -> tuple[dict[str, str], Owner]:
    body = await h.register(email)
    h.client.cookies.clear()
    user = await h.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    return {"authorization": f"Bearer {body['token']}"}, Owner(user.id, user.tenant_id)


async def _synced(h: Harness, owner: Owner, name: str, ident: str,
                  title: str | None = None) -> uuid.UUID:
    """The activity of ``name`` as a Strava sync stores it."""
    parsed = activity(name)
    new = summary_of(parsed)
    if title:
        new = replace(new, name=title, name_generated=False)
    outcome = await h.services.fitness.ingest(
        owner, new, parsed.streams, SourceRef("provider", provider="strava",
                                              provider_activity_id=ident))
    assert outcome.activity is not None
    return outcome.activity.id


async def _three(h: Harness, owner: Owner) -> dict[str, uuid.UUID]:
    fitness = h.services.fitness
    # Thresholds from long before: every activity gets a training load.
    await fitness.store.set_settings(owner, check_settings(
        {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190, "resting_hr_bpm": 50}), date(2000, 1, 1), h.clock())
    ids = {"strava": await _synced(h, owner, SYNCED, "1", ONLY_STRAVA),
           "both": await _synced(h, owner, BOTH, "2")}
    merged = await fitness.import_file(owner, raw(BOTH), "trainer.fit", bounded=False)
    assert merged[0].merged and merged[0].activity is not None
    assert merged[0].activity.id == ids["both"]
    own = await fitness.import_file(owner, raw(OWN), "own.fit", bounded=False)
    assert own[0].activity is not None
    ids["own"] = own[0].activity.id
    return ids


def _strava_only(h: Harness) -> None:
    h.services.policies = Policies(frozenset({"strava"}), {"strava": timedelta(days=7)})


async def _rpc(h: Harness, headers: dict[str, str], method: str,
               params: dict[str, Any]) -> dict[str, Any]:
    response = await h.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _arguments(schema: dict[str, Any], ids: dict[str, uuid.UUID], day: date
               ) -> dict[str, Any]:
    """What a read tool needs to be asked about the Strava-only activity: its id where
    it takes one, and a range around its day where it takes one (a default range of
    recent weeks would miss a 2013 ride, and prove nothing)."""
    args: dict[str, Any] = {}
    properties = schema.get("properties", {})
    if "from" in properties and "to" in properties:
        args["from"] = (day - timedelta(days=3)).isoformat()
        args["to"] = (day + timedelta(days=3)).isoformat()
    for name in schema.get("required", []):
        if name == "activity_id":
            args[name] = str(ids["strava"])
        elif name == "activity_ids":
            args[name] = [str(ids["strava"]), str(ids["own"])]
        elif name in ("activity_a", "activity_b", "first", "second"):
            args[name] = str(ids["strava"] if name in ("activity_a", "first") else ids["own"])
    return args


async def _walk(h: Harness, headers: dict[str, str], ids: dict[str, uuid.UUID],
                owner: Owner) -> dict[str, str]:
    """Every read tool's answer (its whole JSON) by name."""
    listed = await _rpc(h, headers, "tools/list", {})
    answers = {}
    stored = await h.services.fitness.store.get(owner.user_id, ids["strava"])
    assert stored is not None
    day = stored.start_at.date()
    for tool in listed["result"]["tools"]:
        if not tool.get("annotations", {}).get("readOnlyHint"):
            continue
        args = _arguments(tool["inputSchema"], ids, day)
        body = await _rpc(h, headers, "tools/call", {"name": tool["name"], "arguments": args})
        answers[tool["name"]] = json.dumps(body)
    return answers


async def test_no_read_tool_serves_a_strava_only_activity(harness: Harness) -> None:
    """TERMS-2. Walks every read tool (and the activity resources): the Strava-only
    activity's id and name never appear; the one also uploaded as a file does; the
    answers say why."""
    h = harness
    auth, owner = await _person(h, "terms@example.com")
    ids = await _three(h, owner)
    _strava_only(h)
    headers = await h.mcp_session(auth)
    answers = await _walk(h, headers, ids, owner)
    assert len(answers) >= 20  # the walk reached the read tools
    for name, text in answers.items():
        assert str(ids["strava"]) not in text and ONLY_STRAVA not in text, name
    listed = answers["list_activities"]
    assert str(ids["both"]) in listed and str(ids["own"]) in listed  # file: the person's
    assert "1 activity known only from strava withheld" in listed
    assert "POST /api/imports" in listed
    assert "strava" in answers["get_activity"] and "AI assistants" in answers["get_activity"]
    assert "withheld" in answers["get_training_summary"]
    for uri in (f"activity://{ids['strava']}", f"activity://{ids['strava']}/analysis"):
        read = json.dumps(await _rpc(h, headers, "resources/read", {"uri": uri}))
        assert ONLY_STRAVA not in read and '"error"' in read, uri


async def test_the_agreement_serves_it_and_its_owner_always_sees_it(harness: Harness) -> None:
    """TERMS-2's "unless the operator allows it"; the owner's own API is not an assistant."""
    h = harness
    auth, owner = await _person(h, "agreed@example.com")
    ids = await _three(h, owner)
    _strava_only(h)
    # The person's own HTTP API, and its analysis twins, show everything.
    page = (await h.client.get("/api/activities", headers=auth)).json()
    assert str(ids["strava"]) in json.dumps(page)
    twin = await h.client.get(f"/api/activities/{ids['strava']}/analysis", headers=auth)
    assert twin.status_code == 200, twin.text
    # An operator's agreement (PACEKEEPER_STRAVA_AI_AGREEMENT=1): assistants see it too.
    h.services.policies = Policies(frozenset(), {"strava": timedelta(days=7)})
    headers = await h.mcp_session(auth)
    answers = await _walk(h, headers, ids, owner)
    assert str(ids["strava"]) in answers["list_activities"]
    assert str(ids["strava"]) in answers["get_calendar"]  # the walk's range reaches it
    assert ONLY_STRAVA in answers["get_activity"]
    assert "withheld" not in answers["list_activities"]


async def test_aggregates_for_assistants_leave_it_out(harness: Harness) -> None:
    """The fitness chart an assistant gets has no load on the Strava-only day; the
    person's own twin of it does."""
    h = harness
    auth, owner = await _person(h, "pmc-terms@example.com")
    ids = await _three(h, owner)
    found = await h.services.fitness.get(owner, ids["strava"])
    day = found.start_at.date().isoformat()
    _strava_only(h)
    headers = await h.mcp_session(auth)
    args = {"from": day, "to": day}
    body = await _rpc(h, headers, "tools/call", {"name": "get_fitness_chart",
                                                 "arguments": args})
    assistant = body["result"]["structuredContent"]
    mine = (await h.client.get("/api/fitness-chart", headers=auth,
                               params={"from": day, "to": day})).json()
    load_of = lambda chart: sum(d.get("load") or 0 for d in chart["days"])  # noqa: E731
    assert load_of(mine) > 0
    assert load_of(assistant) < load_of(mine)


async def test_strava_only_data_is_purged_after_seven_days(harness: Harness) -> None:
    """TERMS-3, and TERMS-1: the merged activity remembers both of its sources."""
    h = harness
    _, owner = await _person(h, "purge@example.com")
    ids = await _three(h, owner)
    fitness = h.services.fitness
    fitness.retention = {"strava": timedelta(days=7)}
    h.clock.advance(days=6, hours=23)
    assert await fitness.purge_expired() == 0
    h.clock.advance(hours=2)
    assert await fitness.purge_expired() == 1
    assert await fitness.store.get(owner.user_id, ids["strava"]) is None
    assert await fitness.store.streams(owner.user_id, ids["strava"]) is None
    # Also uploaded as a file, or only uploaded: the person's own, kept.
    both = await fitness.store.get(owner.user_id, ids["both"])
    assert both is not None and {s.kind for s in both.sources} == {"provider", "file"}
    assert await fitness.store.get(owner.user_id, ids["own"]) is not None


async def test_a2a_is_an_assistant_too(harness: Harness) -> None:
    """TERMS-2 over A2A. An agent with the person's key gets the same reader as an MCP
    client: the Strava-only activity is refused with the reason, the list leaves it out."""
    h = harness
    token = await user_token(h, "a2a-terms@example.com")
    key = await create_key(h, token)
    user = await h.services.users.get(uuid.UUID(key["user_id"]))
    assert user is not None
    ids = await _three(h, Owner(user.id, user.tenant_id))
    _strava_only(h)
    headers = {"x-api-key": key["api_key"]}

    async def execute(tool: str, arguments: dict[str, Any]) -> str:
        response = await h.client.post("/a2a/execute", headers=headers,
                                        json={"tool": tool, "arguments": arguments})
        assert response.status_code == 200, response.text
        return response.text

    one = await execute("get_activity", {"activity_id": str(ids["strava"])})
    assert ONLY_STRAVA not in one and "AI assistants" in one
    listed = await execute("list_activities", {})
    assert str(ids["strava"]) not in listed and str(ids["own"]) in listed


def test_only_real_providers_terms_apply(tmp_path: Any) -> None:
    """A provider served by a sandbox (the built-in one, or one at
    PACEKEEPER_PROVIDER_BASE_URL) has synthetic athletes: its terms do not apply. Real
    credentials against the real API: they do."""
    settings = make_settings("sqlite+aiosqlite://", tmp_path,
                             base_url="http://127.0.0.1:8080")
    creds = {"STRAVA_CLIENT_ID": "1", "STRAVA_CLIENT_SECRET": "s",
             "STRAVA_REDIRECT_URI": "https://pk.example/api/oauth/callback/strava"}
    assert "strava" in provider_setup(settings, {}).sandboxed
    assert "strava" not in provider_setup(settings, creds).sandboxed
    elsewhere = {**creds, "PACEKEEPER_PROVIDER_BASE_URL": "http://127.0.0.1:9000"}
    assert "strava" in provider_setup(settings, elsewhere).sandboxed


async def test_daily_records_follow_their_source(harness: Harness) -> None:
    """A withheld provider's daily records are left out of an assistant's days (and of
    what its readiness reads); the person's own API shows them."""
    h = harness
    auth, owner = await _person(h, "daily-terms@example.com")
    today = h.clock().date()
    await h.services.fitness.store.upsert_daily(owner, [
        DailyHealth(today, "garmin", resting_hr=48.0, steps=12345),
        DailyHealth(today, "fitbit", sleep_s=27000.0)], h.clock())
    h.services.policies = Policies(frozenset({"garmin"}), {})
    headers = await h.mcp_session(auth)
    body = json.dumps(await _rpc(h, headers, "tools/call", {
        "name": "get_daily_summaries", "arguments": {}}))
    assert "12345" not in body and "27000" in body
    mine = (await h.client.get("/api/daily", headers=auth, params={
        "from": today.isoformat(), "to": today.isoformat()})).text
    assert "12345" in mine and "27000" in mine


async def test_the_purge_is_a_periodic_job() -> None:
    """Scheduled like the other periodic jobs (hourly), and it runs the service's purge."""
    app = procrastinate.App(connector=InMemoryConnector())
    tasks = _register(app)
    crons = {name: task.cron for (name, _), task in app.periodic_registry.periodic_tasks.items()}
    assert crons["purge_expired"] == "17 * * * *"
    purged: list[bool] = []

    async def purge() -> int:
        purged.append(True)
        return 3

    services = SimpleNamespace(fitness=SimpleNamespace(purge_expired=purge))
    job = SimpleNamespace(task_name="purge_expired", id=7, attempts=0)  # what a run names
    context = SimpleNamespace(additional_context={"services": services}, job=job)
    await tasks["purge_expired"].func(context, timestamp=0)
    assert purged == [True]
