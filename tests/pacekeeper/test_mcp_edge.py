"""The one path of an HTTP request for `/mcp`: `pacekeeper.mcp._edge.McpEdge` (issues 19, 29).

The edge does in one layer what the service's stack does for every other request
(security headers, request id, metrics and span, the 500 and 503 handlers) and the MCP
gate; the stack never serves `/mcp`, so what a client sees is checked here on the one
route: status, body and headers (each once; a request id made here or echoed), the
HTTP metrics counting each request once, and a span only when tracing is on.
Requirement IDs: SMCP-1..3 (401s), ERR-2, ERR-3 (no traceback out), SMCP-4 (the tenant
bucket's 429 and X-RateLimit-*).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpcast.tracing import LazyTracer
from pacekeeper import metrics
from pacekeeper.mcp import McpEdge
from tests.pacekeeper.conftest import Harness

CURRENT = "2026-07-28"
LEGACY = "2025-11-25"
SECURITY = {b"x-content-type-options": b"nosniff", b"referrer-policy": b"no-referrer"}
Answer = tuple[int, bytes, list[tuple[bytes, bytes]], BaseException | None]


def _call(era: str = CURRENT, name: str = "whoami") -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": {}}
    if era == CURRENT:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": CURRENT,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "edge", "version": "1"},
        }
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}


def _headers(token: str | None = None, era: str = CURRENT, **extra: str) -> dict[str, str]:
    headers = {"host": "127.0.0.1", "content-type": "application/json",
               "accept": "application/json, text/event-stream", "mcp-protocol-version": era}
    if era == CURRENT:
        headers |= {"mcp-method": "tools/call", "mcp-name": "whoami"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return headers | extra


async def _send(app: Any, headers: dict[str, str], body: bytes, method: str = "POST"
                ) -> Answer:
    """One request for /mcp straight into an ASGI callable; what it answered and what it
    raised."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "https", "path": "/mcp", "raw_path": b"/mcp",
             "root_path": "", "query_string": b"", "client": ("127.0.0.1", 5000),
             "server": ("127.0.0.1", 443),
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if delivered:
            return {"type": "http.disconnect"}
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    raised: BaseException | None = None
    try:
        await app(scope, receive, send)
    except Exception as exc:  # Starlette's 500 re-raises for the server's log; so must the edge
        raised = exc
    start = next(m for m in sent if m["type"] == "http.response.start")
    body_out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body_out, list(start.get("headers", [])), raised


def _edge(h: Harness) -> McpEdge:
    edge = h.app.mcp_edge  # type: ignore[attr-defined]
    assert isinstance(edge, McpEdge)
    return edge


def _count(status: int, method: str = "POST") -> float:
    found = metrics.REGISTRY.get_sample_value(
        "pacekeeper_http_requests_total", {"method": method, "route": "/mcp",
                                           "status": str(status)})
    return found or 0.0


async def _post(h: Harness, headers: dict[str, str], body: Any) -> Answer:
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    answer = await _send(h.app, headers, raw)  # the app itself: it hands /mcp to the edge
    _checked(answer)
    return answer


def _checked(answer: Answer) -> None:
    """What every /mcp answer carries: the security headers, one request id, no header
    twice."""
    headers = answer[2]
    for name, value in SECURITY.items():
        assert (name, value) in headers
    ids = [v for n, v in headers if n == b"x-request-id"]
    assert len(ids) == 1 and re.fullmatch(rb"[0-9a-f]{16}[0-9]+", ids[0])  # made here
    names = [n for n, _ in headers]
    assert len(names) == len(set(names)), names  # no header twice


def _error(answer: Answer) -> dict[str, Any]:
    found: dict[str, Any] = orjson.loads(answer[1])
    return found


async def _user(h: Harness) -> str:
    token: str = (await h.register("edge@example.com"))["token"]
    return token


async def test_an_authenticated_call_is_answered_and_counted_once(harness: Harness) -> None:
    token = await _user(harness)
    before = _count(200)
    status, body, headers, raised = await _post(harness, _headers(token), _call())
    assert status == 200 and raised is None
    assert orjson.loads(body)["result"]["structuredContent"]["email"] == "edge@example.com"
    assert {n for n, _ in headers} >= {b"x-ratelimit-limit", b"x-ratelimit-remaining",
                                       b"content-type"}
    assert _count(200) == before + 1  # one path, one count


@pytest.mark.parametrize("case", ["missing", "forged", "wrong type", "bad json", "public"])
async def test_refusals_and_public_calls(harness: Harness, case: str) -> None:
    token = await _user(harness)
    headers: dict[str, str]
    body: Any = _call()
    if case == "missing":
        headers = _headers()
    elif case == "forged":
        headers = _headers(token[:-4] + "AAAA")
    elif case == "wrong type":
        headers = _headers(token, **{"content-type": "text/plain"})
    elif case == "bad json":
        headers, body = _headers(token), b"{not json"
    else:
        headers = _headers(era=LEGACY)
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": LEGACY, "capabilities": {},
                           "clientInfo": {"name": "edge", "version": "1"}}}
    answer = await _post(harness, headers, body)
    expected = {"missing": 401, "forged": 401, "wrong type": 415, "bad json": 400,
                "public": 200}[case]
    assert answer[0] == expected and answer[3] is None
    names = dict(answer[2])
    if expected == 401:  # SMCP-1..3: the challenge names the resource metadata
        challenge = names[b"www-authenticate"]
        assert challenge.startswith(b"Bearer ") and b"resource_metadata=" in challenge
        message = _error(answer)["error"]["message"]
        assert message == ("authentication required" if case == "missing" else "invalid token")
    if case == "bad json":
        assert _error(answer)["error"]["code"] == -32700
    if case == "public":
        assert _error(answer)["result"]["protocolVersion"] == LEGACY
    if case in ("wrong type", "bad json"):  # a known caller: the bucket's state
        assert b"x-ratelimit-remaining" in names


async def test_a_given_request_id_is_echoed(harness: Harness) -> None:
    token = await _user(harness)
    given = "trace-me-0123456789"
    _, _, headers, _ = await _send(harness.app, _headers(token, **{"x-request-id": given}),
                                   orjson.dumps(_call()))
    assert [v for n, v in headers if n == b"x-request-id"] == [given.encode()]


async def test_an_empty_bucket_is_answered_429(harness_factory: Callable[..., Any]) -> None:
    async with harness_factory(tenant_rate_limit_per_minute=1) as h:
        token = await _user(h)
        first = await _post(h, _headers(token), _call())
        assert first[0] == 200
        before = _count(429)
        status, body, headers, raised = await _post(h, _headers(token), _call())
        assert status == 429 and raised is None
        assert (b"x-ratelimit-remaining", b"0") in headers
        assert int(dict(headers)[b"retry-after"]) >= 1
        assert orjson.loads(body) == {
            "jsonrpc": "2.0", "id": None,
            "error": {"code": -32000, "message": "rate limit exceeded",
                      "data": {"error": "rate_limited"}}}
        assert _count(429) == before + 1


@pytest.mark.parametrize("failure", ["unavailable", "bug"])
async def test_a_failure_is_answered_by_the_services_handlers(
        harness: Harness, failure: str, monkeypatch: pytest.MonkeyPatch) -> None:
    token = await _user(harness)
    from redis.exceptions import ConnectionError as RedisConnectionError

    async def broken(*args: Any, **kwargs: Any) -> None:
        if failure == "unavailable":
            raise RedisConnectionError("redis is gone")
        raise RuntimeError("secret-looking detail 1234")

    monkeypatch.setattr(harness.services.resolver, "resolve", broken)
    status = 503 if failure == "unavailable" else 500
    before = _count(status)
    answer = await _post(harness, _headers(token), _call())
    assert answer[0] == status
    assert b"secret-looking" not in answer[1] and b"Traceback" not in answer[1]
    assert "error" in _error(answer)  # the service's JSON error body, not HTML
    if failure == "unavailable":
        assert answer[3] is None and (b"retry-after", b"2") in answer[2]
    else:
        assert isinstance(answer[3], RuntimeError)  # on up to the server's log
    assert _count(status) == before + 1


async def test_tracing_adds_a_span_not_a_route(harness: Harness) -> None:
    """With tracing on, the same answer from the same layer, inside one SERVER span that
    continues the caller's trace."""
    token = await _user(harness)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    edge = _edge(harness)
    edge._tracing = LazyTracer("pacekeeper.http", provider)
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    before = _count(200)
    status, body, _, _ = await _post(harness, _headers(token, traceparent=traceparent),
                                     _call())
    assert status == 200
    assert orjson.loads(body)["result"]["structuredContent"]["email"] == "edge@example.com"
    assert _count(200) == before + 1
    [span] = exporter.get_finished_spans()
    assert span.name == "POST /mcp"
    assert span.attributes is not None and span.attributes["http.response.status_code"] == 200
    assert span.context.trace_id == int(traceparent[3:35], 16)


async def test_a_get_takes_the_same_layer(harness: Harness) -> None:
    """Not only POSTs: a GET for /mcp (a stream, refused here without a session) carries
    the same headers and is counted under the same route."""
    before = _count(400, "GET") + _count(401, "GET") + _count(405, "GET")
    status, _, headers, raised = await _send(harness.app, _headers(), b"", method="GET")
    _checked((status, b"", headers, raised))
    assert status >= 400 and raised is None
    assert _count(400, "GET") + _count(401, "GET") + _count(405, "GET") == before + 1


async def test_the_client_sees_the_edge(harness: Harness) -> None:
    """Through a real HTTP client (the harness's), one request id and one count."""
    token = await _user(harness)
    before = _count(200)
    transport = httpx.ASGITransport(app=harness.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        answer = await client.post("/mcp", headers=_headers(token), content=orjson.dumps(_call()))
    assert answer.status_code == 200
    assert len(answer.headers.get_list("x-request-id")) == 1
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert _count(200) == before + 1
