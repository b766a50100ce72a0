"""The `/mcp` edge answers every POST as the service's stack does (issue 19).

`pacekeeper.mcp._edge.McpEdge` does in one layer what five do for every other request
(security headers, request id and metrics, the 500 and 503 handlers, the MCP gate). Each
case here is sent once through the edge and once through the stack it stands in for
(`McpEdge.stack`) and the two answers must agree: status, body and every header (their
order aside; a request id and a session id are new each time, so only their presence and
form are compared, and a rate limit's remaining count and reset are read, not matched,
since the two requests take from one bucket). The HTTP metrics must count both alike.
Requirement IDs: SMCP-1..3 (401s), ERR-2, ERR-3 (no traceback out), SMCP-4 (the tenant
bucket's 429 and X-RateLimit-*).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from pacekeeper import metrics
from pacekeeper.mcp import McpEdge
from tests.pacekeeper.conftest import Harness

CURRENT = "2026-07-28"
LEGACY = "2025-11-25"
_VARYING = {b"x-request-id", b"mcp-session-id", b"x-ratelimit-remaining", b"x-ratelimit-reset",
            b"retry-after"}
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


async def _send(app: Any, headers: dict[str, str], body: bytes) -> Answer:
    """One POST /mcp straight into an ASGI callable; what it answered and what it raised."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "https", "path": "/mcp", "raw_path": b"/mcp",
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


def _count(status: int) -> float:
    found = metrics.REGISTRY.get_sample_value(
        "pacekeeper_http_requests_total", {"method": "POST", "route": "/mcp",
                                           "status": str(status)})
    return found or 0.0


async def _both(h: Harness, headers: dict[str, str], body: Any) -> tuple[Answer, Answer]:
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    edge = _edge(h)
    answers = []
    for target in (edge, edge.stack):
        answer = await _send(target, headers, raw)
        answers.append(answer)
    return answers[0], answers[1]


def _same(edge: Answer, stack: Answer) -> None:
    assert edge[0] == stack[0]
    assert edge[1] == stack[1]
    assert type(edge[3]) is type(stack[3])

    def fixed(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        return sorted((n, b"" if n in _VARYING else v) for n, v in headers)

    assert fixed(edge[2]) == fixed(stack[2])
    for _, _, headers, _ in (edge, stack):
        ids = [v for n, v in headers if n == b"x-request-id"]
        assert len(ids) == 1 and re.fullmatch(rb"[0-9a-f]{16}[0-9]+", ids[0])  # made here
        names = [n for n, _ in headers]
        assert len(names) == len(set(names)), names  # no header twice


async def _user(h: Harness) -> str:
    token: str = (await h.register("edge@example.com"))["token"]
    return token


async def test_an_authenticated_call_is_answered_alike(harness: Harness) -> None:
    token = await _user(harness)
    before = _count(200)
    edge, stack = await _both(harness, _headers(token), _call())
    _same(edge, stack)
    assert edge[0] == 200
    assert orjson.loads(edge[1])["result"]["structuredContent"]["email"] == "edge@example.com"
    assert {n for n, _ in edge[2]} >= {b"x-content-type-options", b"referrer-policy",
                                       b"x-ratelimit-limit", b"x-ratelimit-remaining"}
    assert _count(200) == before + 2  # each path counted once


@pytest.mark.parametrize("case", ["missing", "forged", "wrong type", "bad json", "public"])
async def test_refusals_and_public_calls_are_answered_alike(harness: Harness, case: str) -> None:
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
    edge, stack = await _both(harness, headers, body)
    _same(edge, stack)
    expected = {"missing": 401, "forged": 401, "wrong type": 415, "bad json": 400,
                "public": 200}[case]
    assert edge[0] == expected


async def test_a_given_request_id_is_echoed_by_both(harness: Harness) -> None:
    token = await _user(harness)
    given = "trace-me-0123456789"
    for target in (_edge(harness), _edge(harness).stack):
        _, _, headers, _ = await _send(target, _headers(token, **{"x-request-id": given}),
                                       orjson.dumps(_call()))
        assert (b"x-request-id", given.encode()) in headers


async def test_an_empty_bucket_is_answered_alike(harness_factory: Callable[..., Any]) -> None:
    async with harness_factory(tenant_rate_limit_per_minute=1) as h:
        token = await _user(h)
        first = await _send(_edge(h), _headers(token), orjson.dumps(_call()))
        assert first[0] == 200
        before = _count(429)
        edge, stack = await _both(h, _headers(token), _call())
        _same(edge, stack)
        assert edge[0] == 429
        assert (b"x-ratelimit-remaining", b"0") in edge[2]
        assert _count(429) == before + 2


@pytest.mark.parametrize("failure", ["unavailable", "bug"])
async def test_a_failure_is_answered_alike(harness: Harness, failure: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    token = await _user(harness)
    from redis.exceptions import ConnectionError as RedisConnectionError

    async def broken(*args: Any, **kwargs: Any) -> None:
        if failure == "unavailable":
            raise RedisConnectionError("redis is gone")
        raise RuntimeError("secret-looking detail 1234")

    monkeypatch.setattr(harness.services.resolver, "resolve", broken)
    status = 503 if failure == "unavailable" else 500
    before = _count(status)
    edge, stack = await _both(harness, _headers(token), _call())
    _same(edge, stack)
    assert edge[0] == status
    assert b"secret-looking" not in edge[1] and b"Traceback" not in edge[1]
    if failure == "unavailable":
        assert edge[3] is None and (b"retry-after", b"2") in edge[2]
    else:
        assert isinstance(edge[3], RuntimeError)  # on up to the server's log
    assert _count(status) == before + 2
