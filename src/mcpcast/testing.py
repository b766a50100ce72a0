"""An in-memory client for tests: drives a ``Server``'s protocol core with no sockets.

>>> async with TestClient(Server(MyTools())) as client:
...     result = await client.call_tool("add", {"a": 1, "b": 2})

It speaks the handshake era over an in-memory session: server notifications land in
``client.notifications``; elicitation and sampling requests go to the handlers given.
``capabilities`` declares more, e.g. ``{"extensions": {"io.modelcontextprotocol/tasks":
{}}}`` for the tasks extension.
For tests over real HTTP use the ASGI app (``server.asgi_app()``) with an HTTP client.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from ._errors import ProtocolError
from ._jsonrpc import Message, notification, request
from ._server import Server
from .protocol.session import Session, StreamLog
from .protocol.versions import LATEST_LEGACY

ClientHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class RemoteError(ProtocolError):
    """The server answered with a JSON-RPC error; ``code``, ``message`` and ``data`` say which."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(str(error.get("message", "")), error.get("data"))
        self.code = int(error.get("code", 0))


class TestClient:
    __test__ = False  # not a pytest test class

    def __init__(self, server: Server, *, principal: Any = None,
                 protocol_version: str = LATEST_LEGACY,
                 elicitation: ClientHandler | None = None,
                 sampling: ClientHandler | None = None,
                 capabilities: dict[str, Any] | None = None) -> None:
        self.server = server
        self.capabilities = capabilities or {}  # declared besides the handlers' ones
        self.principal = principal
        self.protocol_version = protocol_version
        self.handlers: dict[str, ClientHandler] = {}
        if elicitation is not None:
            self.handlers["elicitation/create"] = elicitation
        if sampling is not None:
            self.handlers["sampling/createMessage"] = sampling
        self.notifications: list[Message] = []
        self.server_requests: list[Message] = []
        self.session: Session | None = None
        self.initialize_result: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._seen = 0

    async def __aenter__(self) -> TestClient:
        await self.initialize()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.session is not None and self.session.id is not None:
            self.server.sessions.remove(self.session.id)

    async def initialize(self) -> dict[str, Any]:
        # In memory: no client address, so no per-address bound on anonymous sessions.
        session = self.server.sessions.new(self.protocol_version,
                                           self.server.owner(self.principal))
        caps: dict[str, Any] = dict(self.capabilities)
        if "elicitation/create" in self.handlers:
            caps["elicitation"] = {}
        if "sampling/createMessage" in self.handlers:
            caps["sampling"] = {}
        reply = self.server.legacy.initialize(request(0, "initialize", {
            "protocolVersion": self.protocol_version, "capabilities": caps,
            "clientInfo": {"name": "mcpcast-testclient", "version": "1"}}), session)
        if "error" in reply:
            raise RemoteError(reply["error"])
        self.server.sessions.add(session)
        session.server_log = StreamLog("g", self.server.config.event_store_size)
        self.session = session
        self.server.legacy.handle_notification(notification("notifications/initialized"), session)
        self.initialize_result = reply["result"]
        return self.initialize_result

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request; returns its result or raises ``RemoteError``."""
        assert self.session is not None, "use `async with TestClient(...)` or call initialize()"
        message = request(next(self._ids), method, params)
        reply = await self.server.legacy.run_cancellable(
            message, self.session, principal=self.principal, send=self._from_server)
        if "error" in reply:
            raise RemoteError(reply["error"])
        return reply["result"]

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        assert self.session is not None
        self.server.legacy.handle_notification(notification(method, params), self.session)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,
                        progress_token: str | int | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        result: dict[str, Any] = await self.request("tools/call", params)
        return result

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self._list("tools/list", "tools")

    async def list_resources(self) -> list[dict[str, Any]]:
        return await self._list("resources/list", "resources")

    async def list_prompts(self) -> list[dict[str, Any]]:
        return await self._list("prompts/list", "prompts")

    async def read_resource(self, uri: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.request("resources/read", {"uri": uri})
        return result

    async def get_prompt(self, name: str,
                         arguments: dict[str, str] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        result: dict[str, Any] = await self.request("prompts/get", params)
        return result

    def server_stream(self) -> list[Message]:
        """Messages the server queued for the session's stream since the last look."""
        assert self.session is not None
        assert self.session.server_log is not None
        events = self.session.server_log.after(self._seen)
        if events:
            self._seen = events[-1][0]
        return [orjson.loads(payload) for _, payload in events]

    async def _list(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = await self.request(method, params)
            items.extend(page[key])
            if "nextCursor" not in page:
                return items
            params = {"cursor": page["nextCursor"]}

    async def _from_server(self, message: Message) -> None:
        if "id" not in message:
            self.notifications.append(message)
            return
        self.server_requests.append(message)
        handler = self.handlers.get(message["method"])
        if handler is None:
            reply: Message = {"jsonrpc": "2.0", "id": message["id"],
                              "error": {"code": -32601, "message": "not supported"}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "result": await handler(message.get("params") or {})}
        assert self.session is not None
        session = self.session
        # Deliver on the next loop turn, as a response arriving over a socket would.
        asyncio.get_running_loop().call_soon(self.server.legacy.handle_response, reply, session)
