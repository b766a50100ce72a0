"""/ready, /metrics, request ids (issue 18), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import uuid
from typing import Any

import httpx
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from starlette.requests import Request
from starlette.responses import Response
from websockets.asyncio.client import connect

from pacekeeper import metrics
from tests import _services
from tests.e2e._asgi_server import serving
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.test_mcp_endpoint import _call, _session
from tests.pacekeeper.test_mcp_one_resolution import LEGACY, _init
from tests.pacekeeper.test_mcp_one_resolution import _call as _plain_call


def _sample(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


async def test_ready_reports_every_check(harness: Harness) -> None:
    response = await harness.client.get("/ready")
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ready",
                               "checks": {"database": "ok", "queue": "ok"}}
    assert response.headers["cache-control"] == "no-store"


async def test_ready_is_503_when_migrations_are_pending(harness: Harness) -> None:
    """The schema is behind the code's newest migration: not ready (the check reads the
    database's alembic_version against migrations/)."""
    readiness = harness.app.state.readiness
    assert readiness.heads()  # read from migrations/
    readiness._heads = frozenset({"9999_not_yet_applied"})
    response = await harness.client.get("/ready")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == "migrations_pending"


async def test_ready_is_503_while_draining(harness: Harness) -> None:
    harness.app.state.readiness.draining = True
    response = await harness.client.get("/ready")
    assert response.status_code == 503
    assert response.json() == {"status": "not_ready", "checks": {
        "database": "ok", "queue": "ok", "process": "draining"}}
    assert (await harness.client.get("/health")).status_code == 200  # alive all the same


async def test_ready_is_503_when_redis_goes_away(harness_factory: Any) -> None:
    with _services.redis_server() as redis_url:
        async with harness_factory(redis_url=redis_url) as h:
            first = await h.client.get("/ready")
            assert first.json()["checks"]["redis"] == "ok"
            assert first.status_code == 200
            # This test's own Redis stops (SHUTDOWN), then the process is asked again.
            with contextlib.suppress(Exception):
                await h.services.redis.shutdown(nosave=True)
            response = await h.client.get("/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["redis"] == "unreachable"
    assert body["checks"]["database"] == "ok"
    assert "redis://" not in response.text


async def test_metrics_count_requests_by_route_template(harness: Harness) -> None:
    before = _sample("pacekeeper_http_requests_total", method="GET",
                     route="/api/activities/{activity_id:uuid}", status="401")
    missing = uuid.uuid4()
    assert (await harness.client.get(f"/api/activities/{missing}")).status_code == 401
    response = await harness.client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert str(missing) not in text  # raw paths never become labels
    assert _sample("pacekeeper_http_requests_total", method="GET",
                   route="/api/activities/{activity_id:uuid}", status="401") == before + 1
    assert 'pacekeeper_http_request_duration_seconds_bucket{' in text
    assert re.search(r"^pacekeeper_queue_depth \d+\.0$", text, re.M)
    unmatched = await harness.client.get("/no/such/path/" + uuid.uuid4().hex)
    assert unmatched.status_code == 404
    assert _sample("pacekeeper_http_requests_total", method="GET", route="unmatched",
                   status="404") >= 1


async def test_metrics_show_the_queue_depth(harness_factory: Any) -> None:
    """Jobs waiting in the queue (no worker here to take them): one more after a
    recomputation is queued."""
    async with harness_factory(worker="off") as h:
        body = await h.register("depth@example.com")

        async def depth() -> float:
            text = (await h.client.get("/metrics")).text
            found = re.search(r"^pacekeeper_queue_depth (\S+)$", text, re.M)
            assert found is not None
            return float(found.group(1))

        before = await depth()
        user = await h.services.users.get_by_email("depth@example.com")
        assert user is not None and body
        from datetime import date

        from pacekeeper.fitness import Owner
        assert await h.services.jobs.enqueue_recompute(Owner(user.id, user.tenant_id),
                                                       date(2024, 1, 1)) is not None
        assert await depth() == before + 1


async def test_metrics_count_tool_calls_and_rate_limits(harness_factory: Any) -> None:
    async with harness_factory(tenant_rate_limit_per_minute=3) as h:
        body = await h.register("metrics-mcp@example.com")
        h.client.cookies.clear()
        headers = await _session(h.client, {"authorization": f"Bearer {body['token']}"})
        ok = _sample("pacekeeper_mcp_tool_calls_total", tool="whoami", outcome="ok")
        limited = _sample("pacekeeper_rate_limited_total", route="/mcp")
        codes = [(await h.client.post("/mcp", headers=headers, json=_call("whoami", 10 + i))
                  ).status_code for i in range(3)]
        assert codes == [200, 200, 429]
        assert _sample("pacekeeper_mcp_tool_calls_total", tool="whoami", outcome="ok") == ok + 2
        assert _sample("pacekeeper_rate_limited_total", route="/mcp") == limited + 1
        seconds = _sample("pacekeeper_mcp_tool_duration_seconds_count", tool="whoami")
        assert seconds >= 2


async def test_metrics_count_rate_limits_on_an_open_websocket(harness_factory: Any) -> None:
    """A call on an open stream is charged to the tenant's bucket too (its re-check); a
    refusal there is a tool error, not an HTTP 429, and is still counted under /mcp."""
    async with harness_factory(tenant_rate_limit_per_minute=3) as h:
        token = (await h.register("metrics-ws@example.com"))["token"]
        limited = _sample("pacekeeper_rate_limited_total", route="/mcp")
        answers: list[dict[str, Any]] = []
        async with serving(h.app) as base:
            url = base.replace("http://", "ws://") + "/mcp"
            async with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                               additional_headers={"Authorization": f"Bearer {token}"}) as ws:
                await ws.send(json.dumps(_init(LEGACY)))
                assert "result" in json.loads(await ws.recv())
                for request_id in range(1, 6):
                    await ws.send(json.dumps(_plain_call(request_id)))
                    answers.append(json.loads(await ws.recv()))
    refused = [a for a in answers if a["result"].get("isError")]
    assert refused and len(refused) < len(answers)
    assert all(a["result"]["content"][0]["text"].startswith("rate limit exceeded")
               for a in refused)
    assert _sample("pacekeeper_rate_limited_total", route="/mcp") == limited + len(refused)


async def test_metrics_count_tool_errors(harness: Harness) -> None:
    body = await harness.register("metrics-err@example.com")
    harness.client.cookies.clear()
    headers = await _session(harness.client, {"authorization": f"Bearer {body['token']}"})
    error = _sample("pacekeeper_mcp_tool_calls_total", tool="get_activity", outcome="error")
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "get_activity", "arguments": {"activity_id": str(uuid.uuid4())}}}
    response = await harness.client.post("/mcp", headers=headers, json=call)
    assert response.json()["result"]["isError"] is True
    assert _sample("pacekeeper_mcp_tool_calls_total", tool="get_activity",
                   outcome="error") == error + 1


async def test_metrics_refuse_proxied_and_remote_callers(harness: Harness) -> None:
    """Without a token only a direct loopback caller reads them: a request that came
    through a proxy (which connects from loopback too) is refused."""
    for header in ("x-forwarded-for", "forwarded", "x-real-ip"):
        response = await harness.client.get("/metrics", headers={header: "203.0.113.9"})
        assert response.status_code == 403, header
        assert response.json()["error"] == "forbidden"
    remote = httpx.ASGITransport(app=harness.app, client=("203.0.113.9", 4000))
    async with httpx.AsyncClient(transport=remote, base_url="https://pk.test") as client:
        assert (await client.get("/metrics")).status_code == 403


async def test_metrics_token(harness_factory: Any) -> None:
    token = "m-" + uuid.uuid4().hex
    async with harness_factory(metrics_token=token) as h:
        assert (await h.client.get("/metrics")).status_code == 403  # loopback is not enough
        wrong = await h.client.get("/metrics", headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 403
        assert token not in wrong.text
        remote = httpx.ASGITransport(app=h.app, client=("203.0.113.9", 4000))
        async with httpx.AsyncClient(transport=remote, base_url="https://pk.test") as client:
            good = await client.get("/metrics", headers={
                "authorization": f"Bearer {token}", "x-forwarded-for": "203.0.113.9"})
        assert good.status_code == 200
        assert "pacekeeper_http_requests_total" in good.text


@pytest.mark.parametrize(("given", "kept"), [
    ("req-0123456789abcdef", True),
    ("short", False),
    ("has space inside it", False),
    ("x" * 65, False),
])
async def test_request_id_is_echoed_or_made(harness: Harness, given: str, kept: bool) -> None:
    response = await harness.client.get("/health", headers={"x-request-id": given})
    echoed = response.headers["x-request-id"]
    assert (echoed == given) is kept
    if not kept:  # made: the process's 16 hex digits, then a decimal counter
        assert re.fullmatch(r"[0-9a-f]{16}[0-9]+", echoed), echoed
    other = await harness.client.get("/health")
    assert other.headers["x-request-id"] != echoed


class _Sqlstate(Exception):
    """What asyncpg's errors carry, as SQLAlchemy's adapter passes them on."""

    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


@pytest.mark.parametrize("error", [
    RedisConnectionError("Connection refused"),
    OperationalError("SELECT 1", {}, ConnectionRefusedError("refused")),
    InterfaceError("SELECT 1", {}, Exception("connection is closed")),
    ConnectionResetError("reset by peer"),
    DBAPIError("SELECT 1", {}, _Sqlstate("57P03")),  # "the database system is shutting down"
])
async def test_an_unreachable_backing_service_is_503_with_retry_after(
    harness: Harness, error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    """ERR-1, ERR-3: PostgreSQL or Redis gone (a restart, bench/faults) is a 503 the caller
    can retry, one log line naming the service, no traceback; other errors stay 500."""

    async def failing(_request: Request) -> Response:
        raise error

    async def broken(_request: Request) -> Response:
        raise IntegrityError("INSERT", {}, _Sqlstate("23505"))  # a bug, not an outage

    harness.app.router.add_route("/test-unavailable", failing)
    harness.app.router.add_route("/test-bug", broken)
    with caplog.at_level(logging.DEBUG):
        response = await harness.client.get("/test-unavailable")
    assert response.status_code == 503
    assert response.json() == {"error": "service_unavailable",
                               "message": "a backing service is unavailable; retry shortly"}
    assert response.headers["retry-after"] == "2"
    assert "Traceback" not in caplog.text
    assert "unavailable" in caplog.text
    try:  # the in-process client may re-raise what a server answers with a 500
        bug = (await harness.client.get("/test-bug")).status_code
    except IntegrityError:
        bug = 500
    assert bug == 500


@pytest.mark.parametrize("migrated_db", ["postgres"], indirect=True)
async def test_a_nul_in_text_is_a_400_not_a_500_on_postgresql(harness: Harness) -> None:
    """PostgreSQL stores no NUL character in text (SQLite does, so the fuzzers, which run
    on SQLite, never met it): a NUL in a key's name or a signing-in name was a 500 with
    a traceback, inside a tool an internal error. Now 400 and a tool error (ERR-1, ERR-3,
    MCP-4)."""
    body = await harness.register("nul-text@example.com")
    auth = {"authorization": f"Bearer {body['token']}"}
    key = await harness.client.post("/api/keys", headers=auth,
                                    json={"name": "a\u0000b", "tier": "trial"})
    token = await harness.client.post("/oauth/token", data={
        "grant_type": "password", "username": "nul\u0000@example.com", "password": "x"})
    for answer in (key, token):
        assert answer.status_code == 400, answer.text
        assert answer.json() == {"error": "validation_error",
                                 "message": "text must not contain NUL characters"}
    harness.client.cookies.clear()
    headers = await _session(harness.client, auth)
    goal = await harness.client.post("/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "set_goal", "arguments": {
                "kind": "race", "name": "a\u0000b", "date": "2027-05-01",
                "distance_m": 10000, "time_s": 2700}}})
    result = goal.json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"] == "text must not contain NUL characters"
    assert (await harness.client.get("/api/keys", headers=auth)).status_code == 200


async def test_metrics_show_the_event_loops_lag(harness: Harness) -> None:
    """The app samples its loop's lag from start-up (issue 30): the histogram grows as
    time passes and is on /metrics."""
    before = _sample("pacekeeper_event_loop_lag_seconds_count") or 0.0
    await asyncio.sleep(0.6)
    text = (await harness.client.get("/metrics")).text
    assert "pacekeeper_event_loop_lag_seconds_bucket" in text
    assert (_sample("pacekeeper_event_loop_lag_seconds_count") or 0.0) >= before + 1
