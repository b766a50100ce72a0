"""The 2026-07-28 era (stateless, per-request envelope) over Streamable HTTP, in process.

Every rule of /work/shared/notes/mcp-current-revision.md sections 1-12 that applies to a
server, checked on the wire through ``httpx.ASGITransport``. Streaming behaviour that
ASGITransport buffers (``subscriptions/listen``) is in tests/e2e/test_current_listen.py.
"""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpcast import RegistrationError, Server, ServerConfig, resource
from mcpcast._auth import RequestInfo
from mcpcast.protocol.roundtrip import MemoryReplayGuard, principal_key
from tests.mcpcast.fixtures_current import CurrentFixture

URL = "http://127.0.0.1:8000/mcp"
V = "2026-07-28"
ELICIT: dict[str, Any] = {"elicitation": {}}
BOTH: dict[str, Any] = {"elicitation": {}, "sampling": {}}
ALL_CAPS: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "fixture", "version": "1.2.3"}}
_NAME_KEY = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def envelope(caps: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": caps or {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}, **extra}


def routing(method: str, params: dict[str, Any]) -> dict[str, str]:
    headers = {"accept": "application/json, text/event-stream",
               "content-type": "application/json", "mcp-protocol-version": V,
               "mcp-method": method}
    key = _NAME_KEY.get(method)
    if key is not None:
        headers["mcp-name"] = str(params.get(key))
    return headers


def sse_messages(text: str) -> list[dict[str, Any]]:
    return [orjson.loads(line[6:]) for line in text.splitlines()
            if line.startswith("data: ") and line[6:].strip()]


class Wire:
    """Sends one modern request per POST, with a correct envelope and headers by default."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.next_id = 0

    async def post(self, method: str, params: dict[str, Any] | None = None, *,
                   caps: dict[str, Any] | None = None, meta: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None,
                   drop: tuple[str, ...] = ()) -> httpx.Response:
        self.next_id += 1
        params = dict(params or {})
        params["_meta"] = {**envelope(caps), **(meta or {})}
        sent = {**routing(method, params), **(headers or {})}
        for name in drop:
            sent.pop(name, None)
        return await self.http.post(URL, headers=sent, json={
            "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})

    async def result(self, method: str, params: dict[str, Any] | None = None,
                     **kwargs: Any) -> dict[str, Any]:
        response = await self.post(method, params, **kwargs)
        assert response.status_code == 200, response.text
        body = sse_messages(response.text)[-1] if response.headers["content-type"] \
            .startswith("text/event-stream") else response.json()
        assert "result" in body, body
        result: dict[str, Any] = body["result"]
        return result


@dataclass
class Ident:
    sub: str


def client_for(server: Server) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()))  # type: ignore[arg-type]


@pytest.fixture
def fixture() -> CurrentFixture:
    return CurrentFixture()


@pytest.fixture
async def wire(fixture: CurrentFixture) -> AsyncIterator[Wire]:
    async with client_for(Server(fixture)) as http:
        yield Wire(http)


def error_of(response: httpx.Response) -> dict[str, Any]:
    error: dict[str, Any] = response.json()["error"]
    return error


# ---------------------------------------------------------------------- 1-2: era and envelope


async def test_no_session_and_discover(wire: Wire) -> None:
    """MCP-5: server/discover at the one path, stateless (no Mcp-Session-Id)."""
    response = await wire.post("server/discover")
    assert response.status_code == 200
    assert "mcp-session-id" not in response.headers
    result = response.json()["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == [V]
    assert set(result["capabilities"]) >= {"tools", "resources", "prompts"}
    assert result["instructions"] == "Test server."
    assert result["_meta"] == SERVER_INFO
    assert "serverInfo" not in result and "protocolVersion" not in result
    assert result["ttlMs"] == 0 and result["cacheScope"] == "private"


@pytest.mark.parametrize("meta", [
    None,
    {"io.modelcontextprotocol/protocolVersion": V},
    {"io.modelcontextprotocol/clientCapabilities": {}},
])
async def test_envelope_keys_are_required(wire: Wire, meta: dict[str, Any] | None) -> None:
    """MCP-3: a request without protocolVersion or clientCapabilities in _meta: 400/-32602."""
    params: dict[str, Any] = {} if meta is None else {"_meta": meta}
    response = await wire.http.post(URL, headers=routing("tools/list", params), json={
        "jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": params})
    assert response.status_code == 400
    assert response.json()["id"] == 9
    assert error_of(response)["code"] == -32602


async def test_headerless_enveloped_request_is_modern(wire: Wire) -> None:
    """MCP-5: no version header but a modern _meta: the current era, hence -32020."""
    response = await wire.post("tools/list", drop=("mcp-protocol-version",))
    assert response.status_code == 400
    assert error_of(response)["code"] == -32020


# ---------------------------------------------------------------------- 9: routing headers


@pytest.mark.parametrize(("method", "params", "headers", "drop"), [
    ("tools/list", {}, {"mcp-protocol-version": "2099-01-01"}, ()),
    ("tools/list", {}, {"mcp-method": "prompts/list"}, ()),
    ("tools/list", {}, {}, ("mcp-method",)),
    ("tools/call", {"name": "add", "arguments": {"a": 1}}, {"mcp-name": "echo"}, ()),
    ("tools/call", {"name": "add", "arguments": {"a": 1}}, {}, ("mcp-name",)),
    ("prompts/get", {"name": "coach", "arguments": {"goal": "x"}}, {"mcp-name": "other"}, ()),
    ("resources/read", {"uri": "fixture://readme"}, {"mcp-name": "fixture://blob"}, ()),
    ("tools/call", {"name": "add", "arguments": {"a": 1}}, {"mcp-name": "=?base64?ZWNobw==?="},
     ()),
    ("tools/call", {"name": "add", "arguments": {"a": 1}}, {"mcp-name": "=?base64?%%%?="}, ()),
])
async def test_header_mismatch(wire: Wire, method: str, params: dict[str, Any],
                               headers: dict[str, str], drop: tuple[str, ...]) -> None:
    """MCP-3: missing, mismatched or malformed routing headers: 400/-32020, before the
    version check (a header version the server lacks is still a mismatch, not -32022)."""
    response = await wire.post(method, params, headers=headers, drop=drop)
    assert response.status_code == 400, response.text
    assert error_of(response)["code"] == -32020


async def test_base64_header_values_are_decoded(wire: Wire) -> None:
    """A name sent as =?base64?...?= matches once decoded (non-ASCII names)."""
    uri = "activity://zürich"
    encoded = "=?base64?" + base64.b64encode(uri.encode()).decode() + "?="
    result = await wire.result("resources/read", {"uri": uri}, headers={"mcp-name": encoded})
    assert orjson.loads(result["contents"][0]["text"]) == {"id": "zürich"}
    method = "=?base64?" + base64.b64encode(b"tools/list").decode() + "?="
    listed = await wire.result("tools/list", headers={"mcp-method": method})
    assert listed["tools"]


async def test_equal_as_sent_is_decoded_when_it_could_be_encoded(wire: Wire) -> None:
    """MCP-3: a name equal to its header matches, '=' inside or not, unless the header reads as
    =?base64?...?=: then it is decoded first (and no longer equals the name)."""
    result = await wire.result("resources/read", {"uri": "activity://a=b"})
    assert orjson.loads(result["contents"][0]["text"]) == {"id": "a=b"}
    looks_encoded = "=?base64?" + base64.b64encode(b"activity://x").decode() + "?="
    response = await wire.post("resources/read", {"uri": looks_encoded})
    assert response.status_code == 400
    assert error_of(response)["code"] == -32020


@pytest.mark.parametrize("header", [b"mcp-method", b"mcp-name", b"mcp-protocol-version"])
async def test_duplicated_routing_header(wire: Wire, header: bytes) -> None:
    """A routing header sent twice (even with equal values) is a mismatch: 400/-32020."""
    params = {"name": "add", "arguments": {"a": 1}, "_meta": envelope()}
    base = routing("tools/call", params)
    raw = [(k.encode(), v.encode()) for k, v in base.items()]
    raw.append((header, base[header.decode()].encode()))
    response = await wire.http.post(URL, headers=raw, json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    assert response.status_code == 400
    assert error_of(response)["code"] == -32020


async def test_duplicated_param_header(wire: Wire) -> None:
    params = {"name": "route", "arguments": {"region": "eu"}, "_meta": envelope()}
    raw = [(k.encode(), v.encode()) for k, v in routing("tools/call", params).items()]
    raw += [(b"mcp-param-region", b"eu"), (b"mcp-param-region", b"eu")]
    response = await wire.http.post(URL, headers=raw, json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    assert response.status_code == 400 and error_of(response)["code"] == -32020


async def test_missing_name_is_invalid_params_not_a_mismatch(wire: Wire) -> None:
    response = await wire.post("tools/call", {"arguments": {}}, drop=("mcp-name",))
    assert response.status_code == 400 and error_of(response)["code"] == -32602


@pytest.mark.parametrize("verb", ["GET", "DELETE"])
async def test_get_and_delete_are_405_in_this_era(wire: Wire, verb: str) -> None:
    """The current era has no GET stream and no session to delete."""
    response = await wire.http.request(verb, URL, headers={
        "accept": "text/event-stream", "mcp-protocol-version": V})
    assert response.status_code == 405 and response.headers["allow"] == "POST"


async def test_param_headers(wire: Wire) -> None:
    """Mcp-Param-* must mirror x-mcp-header arguments; integers compare numerically."""
    args = {"region": "eu-west", "count": 7, "dry": True}
    good = {"mcp-param-region": "eu-west", "mcp-param-count": "007", "mcp-param-dry": "true"}
    result = await wire.result("tools/call", {"name": "route", "arguments": args},
                               headers=good)
    assert result["content"][0]["text"] == "eu-west/7/True"
    encoded = {**good, "mcp-param-region": "=?base64?" + base64.b64encode(b"eu-west").decode()
               + "?="}
    assert (await wire.result("tools/call", {"name": "route", "arguments": args},
                              headers=encoded))["isError"] is False
    for bad in ({**good, "mcp-param-count": "8"}, {**good, "mcp-param-dry": "false"}):
        response = await wire.post("tools/call", {"name": "route", "arguments": args},
                                   headers=bad)
        assert response.status_code == 400 and error_of(response)["code"] == -32020
    missing = await wire.post("tools/call", {"name": "route", "arguments": args},
                              headers={"mcp-param-region": "eu-west", "mcp-param-dry": "true"})
    assert missing.status_code == 400 and error_of(missing)["code"] == -32020
    absent_arg = await wire.post("tools/call", {"name": "route",
                                                "arguments": {"region": "eu-west"}},
                                 headers={"mcp-param-region": "eu-west",
                                          "mcp-param-count": "1"})
    assert absent_arg.status_code == 400 and error_of(absent_arg)["code"] == -32020


async def test_whitespace_around_header_values_is_not_part_of_them(wire: Wire) -> None:
    """RFC 9110 5.5: optional whitespace around a field value is excluded before comparing."""
    params = {"name": "shelve", "arguments": {"shelf": "top", "book": "Dune"}}
    result = await wire.result("tools/call", params, headers={
        "mcp-name": "  shelve  ", "mcp-method": "\ttools/call ",
        "mcp-protocol-version": f" {V}\t", "mcp-param-shelf": " top "})
    assert result["content"][0]["text"] == "Dune on top"
    inner = await wire.post("tools/call", params, headers={"mcp-name": "shel ve"})
    assert inner.status_code == 400 and error_of(inner)["code"] == -32020


async def test_param_header_declared_with_param(wire: Wire) -> None:
    """Param(header=...) publishes x-mcp-header, and the server holds clients to it."""
    listed = await wire.result("tools/list")
    tool = next(t for t in listed["tools"] if t["name"] == "shelve")
    assert tool["inputSchema"]["properties"]["shelf"] == {"type": "string",
                                                          "x-mcp-header": "Shelf"}
    params = {"name": "shelve", "arguments": {"shelf": "Hello", "book": "Dune"}}
    hello = base64.b64encode(b"Hello").decode()
    assert (await wire.result("tools/call", params,
                              headers={"mcp-param-shelf": f"=?base64?{hello}?="}))["isError"] \
        is False
    for bad in ("=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "hello", None):
        sent = {} if bad is None else {"mcp-param-shelf": bad}
        response = await wire.post("tools/call", params, headers=sent)
        assert response.status_code == 400 and error_of(response)["code"] == -32020, bad
    for literal in (hello, f"=?base64?{hello}"):  # no wrapper: taken as it is
        same = {"name": "shelve", "arguments": {"shelf": literal, "book": "Dune"}}
        assert (await wire.result("tools/call", same,
                                  headers={"mcp-param-shelf": literal}))["isError"] is False


async def test_unsupported_version(wire: Wire) -> None:
    """MCP-3: a consistent but unsupported version: 400/-32022 naming the supported ones."""
    response = await wire.post("tools/list", meta={
        "io.modelcontextprotocol/protocolVersion": "2099-01-01"},
        headers={"mcp-protocol-version": "2099-01-01"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == -32022
    assert error["message"] == "Unsupported protocol version"
    assert error["data"] == {"supported": [V], "requested": "2099-01-01"}


# ---------------------------------------------------------------------- 5, 6, 10, 12


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel",
                                    "resources/subscribe", "resources/unsubscribe"])
async def test_removed_methods_are_404(wire: Wire, method: str) -> None:
    """MCP-3: methods this era removed: 404/-32601 with the method named."""
    response = await wire.post(method, {"uri": "fixture://readme", "level": "info"})
    assert response.status_code == 404
    assert error_of(response) == {"code": -32601, "message": "Method not found", "data": method}


@pytest.mark.parametrize("method", ["tasks/get", "no/such"])
async def test_unknown_method_is_404(wire: Wire, method: str) -> None:
    """MCP-3: an unknown method: 404/-32601."""
    response = await wire.post(method)
    assert response.status_code == 404
    assert error_of(response)["code"] == -32601


async def test_invalid_params_are_400(wire: Wire) -> None:
    """MCP-3: unknown tool or wrong argument type: -32602 with HTTP 400, argument named."""
    unknown = await wire.post("tools/call", {"name": "nope", "arguments": {}})
    assert unknown.status_code == 400 and error_of(unknown)["code"] == -32602
    wrong = await wire.post("tools/call", {"name": "add", "arguments": {"a": "many"}})
    assert wrong.status_code == 400
    assert error_of(wrong)["code"] == -32602 and "'a'" in error_of(wrong)["message"]
    missing = await wire.post("resources/read", {"uri": "fixture://missing"})
    assert missing.status_code == 400 and error_of(missing)["code"] == -32602
    # Nothing was lost: the next request is served normally.
    assert (await wire.result("tools/call", {"name": "add", "arguments": {"a": 2}}))[
        "structuredContent"] == {"result": 2}


async def test_batch_is_rejected(wire: Wire) -> None:
    """MCP-3: no batching in this era: 400/-32600, id null."""
    params = {"_meta": envelope()}
    response = await wire.http.post(URL, headers=routing("tools/list", params), json=[
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}])
    assert response.status_code == 400
    assert response.json()["id"] is None and error_of(response)["code"] == -32600


async def test_notification_post_is_202(wire: Wire) -> None:
    params = {"_meta": envelope()}
    response = await wire.http.post(URL, headers=routing("notifications/cancelled", params),
                                    json={"jsonrpc": "2.0", "method": "notifications/cancelled",
                                          "params": {"requestId": 1, **params}})
    assert response.status_code == 202 and response.content == b""


# ---------------------------------------------------------------------- 4, 11: results


@pytest.mark.parametrize(("method", "params"), [
    ("tools/list", {}), ("prompts/list", {}), ("resources/list", {}),
    ("resources/templates/list", {}), ("resources/read", {"uri": "fixture://readme"}),
])
async def test_cacheable_results_carry_hints(wire: Wire, method: str,
                                             params: dict[str, Any]) -> None:
    result = await wire.result(method, params)
    assert result["resultType"] == "complete"
    assert result["_meta"] == SERVER_INFO
    assert result["ttlMs"] == 0 and result["cacheScope"] == "private"


@pytest.mark.parametrize(("method", "params"), [
    ("tools/call", {"name": "split", "arguments": {"km": 2}}),
    ("prompts/get", {"name": "coach", "arguments": {"goal": "5k"}}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "coach"},
                             "argument": {"name": "goal", "value": "ma"}}),
])
async def test_other_results_have_result_type_but_no_hints(wire: Wire, method: str,
                                                           params: dict[str, Any]) -> None:
    result = await wire.result(method, params)
    assert result["resultType"] == "complete"
    assert result["_meta"] == SERVER_INFO
    assert "ttlMs" not in result and "cacheScope" not in result


async def test_structured_output(wire: Wire) -> None:
    result = await wire.result("tools/call", {"name": "split", "arguments": {"km": 2}})
    assert result["structuredContent"] == {"km": 2, "seconds": 600.0}
    assert result["isError"] is False


async def test_configured_and_per_resource_caching() -> None:
    """ServerConfig sets the hints; @resource(ttl_ms=, cache_scope=) overrides them."""
    config = ServerConfig(cache_ttl_ms=5000, cache_scope="public")
    async with client_for(Server(CurrentFixture(), config=config)) as http:
        wire = Wire(http)
        listed = await wire.result("tools/list")
        assert (listed["ttlMs"], listed["cacheScope"]) == (5000, "public")
        plain = await wire.result("resources/read", {"uri": "activity://3"})
        assert (plain["ttlMs"], plain["cacheScope"]) == (5000, "public")
    async with client_for(Server(CurrentFixture())) as http:
        wire = Wire(http)
        fresh = await wire.result("resources/read", {"uri": "fixture://fresh"})
        assert (fresh["ttlMs"], fresh["cacheScope"]) == (60_000, "public")
        other = await wire.result("resources/read", {"uri": "fixture://readme"})
        assert (other["ttlMs"], other["cacheScope"]) == (0, "private")


@pytest.mark.parametrize("options", [{"ttl_ms": -1}, {"cache_scope": "shared"}])
def test_bad_caching_declarations_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(RegistrationError):
        resource(uri="x://y", **options)


async def test_tools_list_order_is_stable(wire: Wire) -> None:
    first = [t["name"] for t in (await wire.result("tools/list"))["tools"]]
    second = [t["name"] for t in (await wire.result("tools/list"))["tools"]]
    assert first == second


async def test_legacy_results_have_no_result_type(wire: Wire) -> None:
    """MCP-5: the same path keeps serving the handshake era, without the new fields."""
    base = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    init = await wire.http.post(URL, headers=base, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
    assert "resultType" not in init.json()["result"]
    headers = {**base, "mcp-session-id": init.headers["mcp-session-id"],
               "mcp-protocol-version": "2025-11-25"}
    for rid, method, params in ((2, "tools/list", {}),
                                (3, "tools/call", {"name": "add", "arguments": {"a": 1}}),
                                (4, "resources/read", {"uri": "fixture://readme"})):
        result = (await wire.http.post(URL, headers=headers, json={
            "jsonrpc": "2.0", "id": rid, "method": method, "params": params})).json()["result"]
        assert "resultType" not in result and "ttlMs" not in result, method
        assert "io.modelcontextprotocol/serverInfo" not in result.get("_meta", {})


# ---------------------------------------------------------------------- 10: logs, progress


async def test_no_logs_or_progress_without_opt_in(wire: Wire) -> None:
    response = await wire.post("tools/call", {"name": "chatty", "arguments": {}})
    assert response.headers["content-type"] == "application/json"
    assert response.json()["result"]["content"][0]["text"] == "ok"


async def test_logs_at_or_above_the_requested_level(wire: Wire) -> None:
    response = await wire.post("tools/call", {"name": "chatty", "arguments": {}},
                               meta={"io.modelcontextprotocol/logLevel": "info"})
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = sse_messages(response.text)
    logs = [m["params"]["data"] for m in messages if m.get("method") == "notifications/message"]
    assert logs == ["info line", "warning line"]
    assert not any(m.get("method") == "notifications/progress" for m in messages)
    assert messages[-1]["result"]["resultType"] == "complete"


async def test_invalid_log_level_is_400(wire: Wire) -> None:
    response = await wire.post("tools/list", meta={"io.modelcontextprotocol/logLevel": "loud"})
    assert response.status_code == 400 and error_of(response)["code"] == -32602


async def test_progress_only_with_a_token(wire: Wire) -> None:
    response = await wire.post("tools/call", {"name": "chatty", "arguments": {}},
                               meta={"progressToken": "p-1"})
    messages = sse_messages(response.text)
    progress = [m["params"] for m in messages if m.get("method") == "notifications/progress"]
    assert progress == [{"progressToken": "p-1", "progress": 1, "total": 2, "message": "half"},
                        {"progressToken": "p-1", "progress": 2, "total": 2, "message": "done"}]
    assert not any(m.get("method") == "notifications/message" for m in messages)
    assert messages[-1]["id"] == wire.next_id


# ---------------------------------------------------------------------- 7: round trips


async def test_input_required_shape(wire: Wire) -> None:
    result = await wire.result("tools/call", {"name": "ask", "arguments": {}}, caps=BOTH)
    assert result["resultType"] == "input_required"
    assert set(result["inputRequests"]) == {"r0"}
    request = result["inputRequests"]["r0"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Your name?"
    assert isinstance(result["requestState"], str) and result["requestState"]
    assert "ttlMs" not in result and "cacheScope" not in result
    assert result["_meta"] == SERVER_INFO


async def test_round_trips_complete(wire: Wire) -> None:
    """Elicitation then sampling: two rounds, each retry a new request with the state."""
    params: dict[str, Any] = {"name": "ask", "arguments": {}}
    first = await wire.result("tools/call", params, caps=BOTH)
    second = await wire.result("tools/call", {
        **params, "requestState": first["requestState"],
        "inputResponses": {"r0": {"action": "accept", "content": {"name": "Ada"}}}}, caps=BOTH)
    assert second["resultType"] == "input_required"
    assert second["inputRequests"]["r1"]["method"] == "sampling/createMessage"
    assert second["inputRequests"]["r1"]["params"]["maxTokens"] == 20
    done = await wire.result("tools/call", {
        **params, "requestState": second["requestState"],
        "inputResponses": {"r1": {"role": "assistant", "model": "m",
                                  "content": {"type": "text", "text": "Hello Ada"}}}},
        caps=BOTH)
    assert done["resultType"] == "complete"
    assert done["content"][0]["text"] == "Ada: Hello Ada"


async def test_round_trip_reruns_the_tool(wire: Wire, fixture: CurrentFixture) -> None:
    params: dict[str, Any] = {"name": "confirm", "arguments": {"item": "run 7"}}
    first = await wire.result("tools/call", params, caps=ELICIT)
    done = await wire.result("tools/call", {
        **params, "requestState": first["requestState"],
        "inputResponses": {"r0": {"action": "accept", "content": {"ok": True}}}}, caps=ELICIT)
    assert done["content"][0]["text"] == "run 7 deleted"
    assert fixture.confirm_runs == 2


async def test_round_trips_on_prompts_and_resources(wire: Wire) -> None:
    prompt = await wire.result("prompts/get", {"name": "interview", "arguments": {}},
                               caps=ELICIT)
    assert prompt["resultType"] == "input_required"
    done = await wire.result("prompts/get", {
        "name": "interview", "arguments": {}, "requestState": prompt["requestState"],
        "inputResponses": {"r0": {"action": "accept", "content": {"goal": "10k"}}}},
        caps=ELICIT)
    assert "10k" in str(done["messages"])
    read = await wire.result("resources/read", {"uri": "fixture://secret"}, caps=ELICIT)
    assert read["resultType"] == "input_required" and "ttlMs" not in read
    shown = await wire.result("resources/read", {
        "uri": "fixture://secret", "requestState": read["requestState"],
        "inputResponses": {"r0": {"action": "accept", "content": {}}}}, caps=ELICIT)
    assert shown["contents"][0]["text"] == "revealed"
    assert shown["ttlMs"] == 0 and shown["resultType"] == "complete"


async def test_unanswered_or_unasked_responses_ask_again(wire: Wire,
                                                         fixture: CurrentFixture) -> None:
    """Missing responses: another input_required, not an error; unknown keys are ignored."""
    params: dict[str, Any] = {"name": "confirm", "arguments": {"item": "x"}}
    first = await wire.result("tools/call", params, caps=ELICIT)
    again = await wire.result("tools/call", {**params, "requestState": first["requestState"],
                                             "inputResponses": {"zz": {}}}, caps=ELICIT)
    assert again["resultType"] == "input_required"
    unknown = await wire.result("tools/call", {**params, "inputResponses": {"zz": {}}},
                                caps=ELICIT)
    assert unknown["resultType"] == "input_required"
    assert fixture.confirm_runs == 3


async def test_answers_without_a_state_count_for_the_first_round_only(wire: Wire) -> None:
    """A client may answer the first questions up front (what it would be asked anyway),
    with unknown keys ignored; a later round's question still needs a sealed state."""
    params: dict[str, Any] = {"name": "confirm", "arguments": {"item": "x"}}
    done = await wire.result("tools/call", {**params, "inputResponses": {
        "r0": {"action": "accept", "content": {"ok": True}}, "extra": {"any": 1}}},
        caps=ELICIT)
    assert done["content"][0]["text"] == "x deleted"
    survey = {"name": "survey", "arguments": {}}
    answers = {"name": {"action": "accept", "content": {"name": "Ada"}},
               "greeting": {"role": "assistant", "model": "m",
                            "content": {"type": "text", "text": "Hi"}},
               "roots": {"roots": [{"uri": "file:///w", "name": "w"}]},
               "colour": {"action": "decline"}}
    second = await wire.result("tools/call", {**survey, "inputResponses": answers},
                               caps=ALL_CAPS)
    assert second["resultType"] == "input_required"
    assert list(second["inputRequests"]) == ["colour"]


async def test_several_named_questions_in_one_round(wire: Wire) -> None:
    survey: dict[str, Any] = {"name": "survey", "arguments": {}}
    first = await wire.result("tools/call", survey, caps=ALL_CAPS)
    asked = first["inputRequests"]
    assert {k: v["method"] for k, v in asked.items()} == {
        "name": "elicitation/create", "greeting": "sampling/createMessage",
        "roots": "roots/list"}
    assert asked["roots"]["params"] == {}
    second = await wire.result("tools/call", {**survey, "requestState": first["requestState"],
        "inputResponses": {
            "name": {"action": "accept", "content": {"name": "Ada"}},
            "greeting": {"role": "assistant", "model": "m",
                         "content": {"type": "text", "text": "Hi"}},
            "roots": {"roots": [{"uri": "file:///w", "name": "w"}]}}}, caps=ALL_CAPS)
    assert list(second["inputRequests"]) == ["colour"]
    done = await wire.result("tools/call", {**survey, "requestState": second["requestState"],
        "inputResponses": {"colour": {"action": "decline"}}}, caps=ALL_CAPS)
    assert done["content"][0]["text"] == "Ada|Hi|file:///w|decline"


async def test_roots_need_the_roots_capability(wire: Wire) -> None:
    response = await wire.post("tools/call", {"name": "survey", "arguments": {}}, caps=BOTH)
    assert response.status_code == 400
    assert error_of(response)["data"]["requiredCapabilities"] == {"roots": {}}


@pytest.mark.parametrize("responses", [
    {"r0": 12345}, {"r0": {"action": "maybe"}}, {"r0": {"action": "accept", "content": 1}}])
async def test_malformed_answers_are_invalid_params(wire: Wire,
                                                    responses: dict[str, Any]) -> None:
    response = await wire.post("tools/call", {"name": "confirm", "arguments": {"item": "x"},
                                              "inputResponses": responses}, caps=ELICIT)
    assert response.status_code == 400
    assert error_of(response)["code"] == -32602
    assert error_of(response)["data"] == {"argument": "inputResponses"}


async def test_input_responses_must_be_an_object(wire: Wire) -> None:
    response = await wire.post("tools/call", {"name": "confirm", "arguments": {"item": "x"},
                                              "inputResponses": None}, caps=ELICIT)
    assert response.status_code == 400
    assert error_of(response)["code"] == -32602


async def test_a_broad_except_in_the_tool_does_not_break_the_round_trip(wire: Wire) -> None:
    params: dict[str, Any] = {"name": "guarded", "arguments": {}}
    first = await wire.result("tools/call", params, caps=ELICIT)
    assert first["resultType"] == "input_required"
    done = await wire.result("tools/call", {**params, "requestState": first["requestState"],
                                            "inputResponses": {"r0": {"action": "decline"}}},
                             caps=ELICIT)
    assert done["content"][0]["text"] == "decline"


async def test_missing_capability(wire: Wire) -> None:
    """MCP-3: elicitation without the client capability: 400/-32021 naming it."""
    response = await wire.post("tools/call", {"name": "confirm", "arguments": {"item": "x"}})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == -32021
    assert error["data"]["requiredCapabilities"] == {"elicitation": {}}


async def _first_round(wire: Wire, item: str = "x") -> tuple[dict[str, Any], str]:
    params: dict[str, Any] = {"name": "confirm", "arguments": {"item": item}}
    first = await wire.result("tools/call", params, caps=ELICIT)
    return params, first["requestState"]


ACCEPT_OK = {"r0": {"action": "accept", "content": {"ok": True}}}


async def _retry(wire: Wire, params: dict[str, Any], state: str,
                 method: str = "tools/call") -> httpx.Response:
    return await wire.post(method, {**params, "requestState": state,
                                    "inputResponses": ACCEPT_OK}, caps=ELICIT)


def _rejected(response: httpx.Response, text: str) -> None:
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert error["code"] == -32602 and text in error["message"]
    assert error["data"] == {"argument": "requestState"}


async def test_forged_state_is_rejected(wire: Wire) -> None:
    params, state = await _first_round(wire)
    body, mac = state.split(".")
    raw = orjson.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw["a"] = ["r0", "r1"]
    forged = base64.urlsafe_b64encode(orjson.dumps(raw)).decode().rstrip("=") + "." + mac
    _rejected(await _retry(wire, params, forged), "Invalid requestState")
    _rejected(await _retry(wire, params, "not-a-state"), "Invalid requestState")
    _rejected(await _retry(wire, params, state[:-4] + "AAAA"), "Invalid requestState")
    # The genuine state was not burnt by the forgeries.
    assert (await _retry(wire, params, state)).json()["result"]["content"][0]["text"] \
        == "x deleted"


async def test_state_is_bound_to_params_and_method(wire: Wire) -> None:
    params, state = await _first_round(wire, "mine")
    other = {"name": "confirm", "arguments": {"item": "yours"}}
    _rejected(await _retry(wire, other, state), "another request")
    _rejected(await wire.post("prompts/get", {
        "name": "interview", "arguments": {}, "requestState": state,
        "inputResponses": ACCEPT_OK}, caps=ELICIT), "another request")


async def test_state_expires(wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    params, state = await _first_round(wire)
    later = time.time() + 601  # default state_ttl is 600 s
    monkeypatch.setattr(time, "time", lambda: later)
    _rejected(await _retry(wire, params, state), "expired")


async def test_state_is_single_use(wire: Wire) -> None:
    params, state = await _first_round(wire)
    assert (await _retry(wire, params, state)).status_code == 200
    _rejected(await _retry(wire, params, state), "already used")


async def test_state_is_bound_to_the_principal() -> None:
    async def authenticate(info: RequestInfo) -> str | None:
        return info.headers.get("x-user")

    async with client_for(Server(CurrentFixture(), authenticate=authenticate)) as http:
        wire = Wire(http)
        params: dict[str, Any] = {"name": "confirm", "arguments": {"item": "x"}}
        first = await wire.result("tools/call", params, caps=ELICIT,
                                  headers={"x-user": "alice"})
        stolen = await wire.post("tools/call", {
            **params, "requestState": first["requestState"], "inputResponses": ACCEPT_OK},
            caps=ELICIT, headers={"x-user": "mallory"})
        _rejected(stolen, "another request")
        own = await wire.result("tools/call", {
            **params, "requestState": first["requestState"], "inputResponses": ACCEPT_OK},
            caps=ELICIT, headers={"x-user": "alice"})
        assert own["content"][0]["text"] == "x deleted"


@pytest.mark.parametrize(("alice", "mallory"), [
    ({"tenant": "t1", "user": "alice"}, {"tenant": "t1", "user": "mallory"}),
    (Ident(sub="alice"), Ident(sub="mallory")),
])
def test_principal_keys_tell_callers_apart(alice: Any, mallory: Any) -> None:
    assert principal_key(alice) != principal_key(mallory)
    assert principal_key(alice) == principal_key(alice)


def test_opaque_principals_fail_closed() -> None:
    """An object with no identity binds its states to itself, never to its class."""
    class Opaque:
        pass

    one = Opaque()
    assert principal_key(one) != principal_key(Opaque())
    assert principal_key(one) != principal_key(one)  # not even a second request of its own


async def test_state_from_another_secret_is_rejected() -> None:
    """Two servers with different secrets do not accept each other's states."""
    async with client_for(Server(CurrentFixture(),
                                 config=ServerConfig(state_secret=b"a" * 32))) as one, \
            client_for(Server(CurrentFixture(),
                              config=ServerConfig(state_secret=b"b" * 32))) as two:
        params, state = await _first_round(Wire(one))
        _rejected(await _retry(Wire(two), params, state), "Invalid requestState")


# ---------------------------------------------------------------------- tracing


async def test_traceparent_in_meta_is_the_span_parent() -> None:
    """TRACE-1, TRACE-2: one span per call, its parent the W3C trace context in _meta."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    parent_id = "00f067aa0ba902b7"
    async with client_for(Server(CurrentFixture(), tracer_provider=provider)) as http:
        await Wire(http).result("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}},
                                meta={"traceparent": f"00-{trace_id}-{parent_id}-01"})
    (span,) = exporter.get_finished_spans()
    assert span.name == "tools/call add"
    assert span.context is not None and span.parent is not None
    assert format(span.context.trace_id, "032x") == trace_id
    assert format(span.parent.span_id, "016x") == parent_id
    assert span.attributes is not None
    assert span.attributes["mcp.tool.name"] == "add"
    assert span.attributes["mcp.tool.arg_count"] == 2
    assert span.attributes["mcp.protocol.version"] == V


async def test_traceparent_header_is_used_when_meta_has_none() -> None:
    """TRACE-1: an HTTP traceparent header (OpenTelemetry-instrumented clients) is the
    parent when _meta carries none, although _meta is never empty in this era."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace_id = "0af7651916cd43dd8448eb211c80319c"
    async with client_for(Server(CurrentFixture(), tracer_provider=provider)) as http:
        await Wire(http).result("tools/call", {"name": "add", "arguments": {"a": 1}},
                                meta={"progressToken": 1}, headers={
                                    "traceparent": f"00-{trace_id}-b7ad6b7169203331-01"})
    (span,) = exporter.get_finished_spans()
    assert span.context is not None and format(span.context.trace_id, "032x") == trace_id


async def test_a_round_that_asks_is_not_an_error_span() -> None:
    """TRACE-2: mcp.tool.error stays false when a call ends input_required."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    async with client_for(Server(CurrentFixture(), tracer_provider=provider)) as http:
        first = await Wire(http).result("tools/call", {"name": "confirm",
                                                       "arguments": {"item": "x"}}, caps=ELICIT)
    assert first["resultType"] == "input_required"
    (span,) = exporter.get_finished_spans()
    assert span.attributes is not None and span.attributes["mcp.tool.error"] is False


# ---------------------------------------------------------------------- listen (buffered part)


async def test_listen_needs_sse(wire: Wire) -> None:
    response = await wire.post("subscriptions/listen", {"notifications": {}},
                               headers={"accept": "application/json"})
    assert response.status_code == 406


async def test_replay_guard_forgets_only_expired_nonces() -> None:
    guard = MemoryReplayGuard()
    past, future = time.time() - 1, time.time() + 60
    assert all([await guard.use(f"old{i}", past) for i in range(10_000)])
    assert await guard.use("live", future)  # this call prunes the 10,000 expired nonces
    assert await guard.use("old1", past)  # forgotten: its state could not verify (expired)
    assert not await guard.use("live", future)


async def test_replay_guard_is_per_process_unless_shared() -> None:
    """Two servers with one state_secret accept each other's states. With their own
    (default, in-memory) guards a state used on one can be replayed once on the other;
    with one shared guard it cannot."""
    config = ServerConfig(state_secret=b"k" * 32)
    shared = MemoryReplayGuard()
    for guard_one, guard_two, replay_status in ((None, None, 200), (shared, shared, 400)):
        async with client_for(Server(CurrentFixture(), config=config,
                                     replay_guard=guard_one)) as one, \
                client_for(Server(CurrentFixture(), config=config,
                                  replay_guard=guard_two)) as two:
            params, state = await _first_round(Wire(one))
            assert (await _retry(Wire(one), params, state)).status_code == 200
            assert (await _retry(Wire(two), params, state)).status_code == replay_status
