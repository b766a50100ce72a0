"""A tool whose injected parameters all come from ``FromPrincipal`` injectors keeps the
short path of a plain call (issue 19): the transport hands the principal the entry point
resolved to ``call_plain``, the injector runs there, and the general path (exchange,
session work, streaming responder) is never entered. The observer hears of those calls
like of any other. A stream's call (a WebSocket here) takes the general path, and an
injector that gives a coroutine (a re-check) is awaited on either path.

Each test counts the entries of the general path (``Methods._call_tool``) and of the
short one (``Methods.call_plain``), so a right answer from the wrong path fails.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from mcpcast import (
    Context,
    FromPrincipal,
    RequestInfo,
    Server,
    ServerConfig,
    ToolError,
    mcp_server,
    tool,
)
from tests._tool_paths import count_tool_paths
from tests.mcpcast.asgi_peers import Socket, call, init

URL = "http://127.0.0.1:8000/mcp"
LEGACY, CURRENT = "2025-11-25", "2026-07-28"
JSON = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
CURRENT_META = {"io.modelcontextprotocol/protocolVersion": CURRENT,
                "io.modelcontextprotocol/clientCapabilities": {}}


@dataclass(frozen=True)
class Who:
    """A principal; ``stream`` marks one resolved when a connection opened."""

    name: str
    stream: bool = False


@dataclass(frozen=True)
class Caller:
    name: str


@mcp_server(name="injected", path="/mcp", version="1.0.0")
class Tools:
    @tool(description="Greet the caller.")
    async def greet(self, caller: Caller, greeting: str = "hello") -> str:
        if greeting == "refuse":
            raise ToolError("no greeting for you")
        return f"{greeting} {caller.name}"

    @tool(description="Greet after waiting a moment.")
    async def slow_greet(self, caller: Caller) -> str:
        await asyncio.sleep(0.01)
        return f"hello {caller.name}"

    @tool(description="Name the caller through the context.")
    async def by_context(self, ctx: Context) -> str:
        return str(ctx.principal)


class Seen:
    """What the injector, the observer and the two paths saw."""

    def __init__(self) -> None:
        self.injected: list[str] = []  # "now" or "rechecked", per injection
        self.observed: list[tuple[str, str]] = []  # ends
        self.started: list[tuple[str, Any]] = []  # starts, with the caller's principal
        self.general = 0
        self.short = 0


async def _hook(info: RequestInfo) -> Who | None:
    name = info.headers.get("x-user")
    if name is None:
        return None
    # A WebSocket's principal was resolved when it opened: its calls re-check it.
    return Who(name, stream=info.headers.get("upgrade") == "websocket")


def _server(seen: Seen, **config: Any) -> Server:
    def caller(principal: Any, args: dict[str, Any]) -> Any:
        if not isinstance(principal, Who):
            raise ToolError("authentication required")
        if principal.name == "mallory":
            raise ToolError("invalid token")
        if principal.stream or principal.name == "slow":
            return _recheck(seen, principal)
        seen.injected.append("now")
        return Caller(principal.name)

    return Server(Tools(), config=ServerConfig(**config), authenticate=_hook,
                  injectors={Caller: FromPrincipal(caller)},
                  observe_tool=lambda name, outcome, seconds, principal: (
                      seen.started.append((name, getattr(principal, "name", None)))
                      if outcome == "started" else seen.observed.append((name, outcome))))


async def _recheck(seen: Seen, principal: Who) -> Caller:
    await asyncio.sleep(0)  # I/O, as a real re-check does
    seen.injected.append("rechecked")
    return Caller(principal.name)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Seen:
    found = Seen()
    count_tool_paths(monkeypatch, found)
    return found


def _headers(era: str, name: str, user: str = "ada") -> dict[str, str]:
    headers = {**JSON, "mcp-protocol-version": era, "x-user": user}
    if era == CURRENT:
        headers |= {"mcp-method": "tools/call", "mcp-name": name}
    return headers


def _message(era: str, rid: int, name: str, args: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    return call(rid, name, args or {}, **(CURRENT_META if era == CURRENT else {}))


def _text(body: dict[str, Any]) -> str:
    text: str = body["result"]["content"][0]["text"]
    return text


ERAS = pytest.mark.parametrize("era", [LEGACY, CURRENT])


@ERAS
@pytest.mark.parametrize("stateless", [True, False])
async def test_a_caller_injected_tool_takes_the_short_path(seen: Seen, era: str,
                                                          stateless: bool) -> None:
    server = _server(seen, stateless=stateless)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app())) as http:
        headers = _headers(era, "greet")
        if era == LEGACY and not stateless:  # the call runs on the caller's session
            opened = await http.post(URL, headers=headers, json=init(LEGACY))
            headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        answer = await http.post(URL, headers=headers,
                                 json=_message(era, 2, "greet", {"greeting": "hi"}))
        slow = await http.post(URL, headers=_headers(era, "slow_greet") | {
            k: v for k, v in headers.items() if k == "mcp-session-id"},
            json=_message(era, 3, "slow_greet"))
    assert answer.status_code == 200, answer.text
    assert _text(answer.json()) == "hi ada"
    assert _text(slow.json()) == "hello ada"
    assert (seen.short, seen.general) == (2, 0)
    assert seen.injected == ["now", "now"]
    assert seen.observed == [("greet", "ok"), ("slow_greet", "ok")]
    assert seen.started == [("greet", "ada"), ("slow_greet", "ada")]  # told who, up front


@ERAS
async def test_the_short_path_answers_as_the_general_one(seen: Seen, era: str) -> None:
    """The same calls through a tool with a Context (general path) and the short one:
    a refused caller and a ToolError are isError results, bad arguments -32602, and the
    observer hears "error" and "rejected" from the short path too."""
    server = _server(seen, stateless=True)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app())) as http:
        async def post(name: str, args: dict[str, Any], user: str = "ada") -> Any:
            return await http.post(URL, headers=_headers(era, name, user),
                                   json=_message(era, 4, name, args))

        refused = await post("greet", {}, user="mallory")
        failed = await post("greet", {"greeting": "refuse"})
        bad = await post("greet", {"greeting": 3})
        general = await post("by_context", {})
    assert refused.json()["result"]["isError"] is True
    assert _text(refused.json()) == "invalid token"
    assert failed.json()["result"]["isError"] is True
    assert _text(failed.json()) == "no greeting for you"
    assert bad.json()["error"]["code"] == -32602
    assert bad.status_code == (400 if era == CURRENT else 200)
    assert _text(general.json()) == "Who(name='ada', stream=False)"
    assert (seen.short, seen.general) == (3, 1)
    assert seen.observed == [("greet", "error"), ("greet", "error"), ("greet", "rejected"),
                             ("by_context", "ok")]


@ERAS
async def test_a_coroutine_injector_is_awaited_on_the_short_path(seen: Seen, era: str) -> None:
    server = _server(seen, stateless=True)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app())) as http:
        answer = await http.post(URL, headers=_headers(era, "greet", "slow"),
                                 json=_message(era, 5, "greet"))
    assert _text(answer.json()) == "hello slow"
    assert seen.injected == ["rechecked"]
    assert (seen.short, seen.general) == (1, 0)
    assert seen.observed == [("greet", "ok")]


async def test_a_stream_call_takes_the_general_path_and_rechecks(seen: Seen) -> None:
    """A WebSocket's principal was resolved when it opened: each call re-checks it once
    (the injector's coroutine), through the general path."""
    socket = Socket(_server(seen).asgi_app(), headers=[
        (b"host", b"127.0.0.1:8000"), (b"x-user", b"ada"), (b"upgrade", b"websocket")])
    await socket.handshake()
    for rid in (2, 3):
        socket.send(call(rid, "greet"))
        assert _text(await socket.recv_until(lambda f: f.get("id") == rid)) == "hello ada"
    await socket.hang_up()
    assert seen.injected == ["rechecked", "rechecked"]
    assert (seen.short, seen.general) == (0, 2)
    assert seen.observed == [("greet", "ok"), ("greet", "ok")]


async def test_a_replaced_injector_is_judged_again(seen: Seen) -> None:
    """register_injector with an Exchange injector sends the tool to the general path."""
    server = _server(seen, stateless=True)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app())) as http:
        first = await http.post(URL, headers=_headers(LEGACY, "greet"),
                                json=_message(LEGACY, 6, "greet"))
        server.register_injector(Caller, lambda ex, args: Caller(f"{ex.principal.name}!"))
        second = await http.post(URL, headers=_headers(LEGACY, "greet"),
                                 json=_message(LEGACY, 7, "greet"))
    assert (_text(first.json()), _text(second.json())) == ("hello ada", "hello ada!")
    assert (seen.short, seen.general) == (1, 1)
