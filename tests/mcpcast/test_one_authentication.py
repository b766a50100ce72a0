"""The entry point authenticates once: the ``authenticate`` hook runs exactly once per
request (a POST, a GET stream, a DELETE) or connection (a WebSocket, an HTTP+SSE stream:
its frames and messages run under the principal of that one call), and the principal it
returns is the one the tool sees (``ctx.principal``)."""

from __future__ import annotations

from typing import Any

import httpx

from mcpcast import Context, RequestInfo, Server, Unauthorized, mcp_server, tool
from tests.mcpcast.asgi_peers import Socket, Stream, call, init

URL = "http://127.0.0.1:8000/mcp"
JSON = {"accept": "application/json, text/event-stream", "content-type": "application/json",
        "authorization": "Bearer good"}
CURRENT_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}


@mcp_server("who")
class Who:
    @tool()
    async def whoami(self, ctx: Context) -> str:
        return str(ctx.principal)


class Hook:
    """Counts its calls and what each was told."""

    def __init__(self) -> None:
        self.calls: list[RequestInfo] = []

    async def __call__(self, info: RequestInfo) -> str | None:
        self.calls.append(info)
        auth = info.headers.get("authorization")
        if auth is None:
            return None
        if auth != "Bearer good":
            raise Unauthorized("invalid token")
        return f"ada#{len(self.calls)}"  # a new principal per call: a second call would show


def _server(hook: Hook) -> Server:
    # Sessions belong to the user, whichever call's principal made them.
    return Server(Who(), authenticate=hook, identify=lambda p: str(p).partition("#")[0])


def _result_text(body: dict[str, Any]) -> str:
    text: str = body["result"]["content"][0]["text"]
    return text


async def test_streamable_http_calls_the_hook_once_per_request() -> None:
    hook = Hook()
    server = _server(hook)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app())) as http:
        opened = await http.post(URL, headers=JSON, json=init("2025-03-26"))  # has batches
        assert len(hook.calls) == 1
        headers = {**JSON, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-03-26"}
        one = await http.post(URL, headers=headers, json=call(2, "whoami"))
        assert len(hook.calls) == 2
        assert _result_text(one.json()) == "ada#2"  # the principal of this request's one call
        batch = await http.post(URL, headers=headers, json=[call(3, "whoami"), call(4, "whoami"),
                                      {"jsonrpc": "2.0", "id": 5, "method": "ping"}])
        assert len(hook.calls) == 3 and hook.calls[-1].calls == 2  # ping is public
        assert {_result_text(r) for r in batch.json() if r["id"] != 5} == {"ada#3"}
        stream = Stream(server.asgi_app(), [(k.encode(), v.encode()) for k, v in {
            "host": "127.0.0.1:8000", "accept": "text/event-stream",
            "authorization": "Bearer good",
            "mcp-session-id": headers["mcp-session-id"]}.items()])
        assert (await stream.start())["status"] == 200
        assert len(hook.calls) == 4
        await stream.hang_up()
        assert (await http.delete(URL, headers=headers)).status_code == 200
        assert len(hook.calls) == 5


async def test_current_era_calls_the_hook_once_per_request() -> None:
    hook = Hook()
    server = _server(hook)
    message = call(1, "whoami", **CURRENT_META)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app())) as http:
        answer = await http.post(URL, json=message, headers={
            **JSON, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
            "mcp-name": "whoami"})
    assert answer.status_code == 200, answer.text
    assert len(hook.calls) == 1 and hook.calls[0].calls == 1
    assert _result_text(answer.json()) == "ada#1"


async def test_a_websocket_connection_calls_the_hook_once() -> None:
    hook = Hook()
    socket = Socket(_server(hook).asgi_app(), headers=[
        (b"host", b"127.0.0.1:8000"), (b"authorization", b"Bearer good")])
    await socket.handshake()
    for rid in (2, 3, 4):
        socket.send(call(rid, "whoami"))
        assert _result_text(await socket.recv_until(lambda f: f.get("id") == rid)) == "ada#1"
    assert len(hook.calls) == 1 and hook.calls[0].calls == 0
    await socket.hang_up()


async def test_http_sse_calls_the_hook_once_for_the_stream_and_once_per_post() -> None:
    hook = Hook()
    server = _server(hook)
    stream = Stream(server.asgi_app(), [(b"host", b"127.0.0.1:8000"),
                                        (b"accept", b"text/event-stream"),
                                        (b"authorization", b"Bearer good")])
    endpoint = await stream.endpoint()
    assert len(hook.calls) == 1
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()),
                                 base_url="http://127.0.0.1:8000",
                                 headers={"authorization": "Bearer good"}) as http:
        assert (await http.post(endpoint, json=init())).status_code == 202
        assert (await stream.message())["id"] == 1
        assert (await http.post(endpoint, json=call(2, "whoami"))).status_code == 202
        assert _result_text(await stream.message()) == "ada#3"  # the POST's own principal
    assert len(hook.calls) == 3
    await stream.hang_up()


async def test_the_hook_reads_what_an_outer_layer_left_in_the_scope() -> None:
    """An ASGI layer in front that already judged the request hands its verdict on in the
    request's scope (``RequestInfo.scope``), not through a context variable."""

    def hook(info: RequestInfo) -> str | None:
        verdict: str | None = info.scope.get("example.verdict")
        return verdict

    app = Server(Who(), authenticate=hook).asgi_app()

    async def judged(scope: Any, receive: Any, send: Any) -> None:
        scope["example.verdict"] = "judged-outside"
        await app(scope, receive, send)

    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "whoami", "arguments": {}, "_meta": CURRENT_META}}
    headers = {**JSON, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
               "mcp-name": "whoami"}
    for target, expected in ((judged, 200), (app, 401)):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=target)) as http:
            answer = await http.post(URL, headers=headers, json=request)
        assert answer.status_code == expected
        if expected == 200:
            assert _result_text(answer.json()) == "judged-outside"
