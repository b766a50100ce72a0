"""The current revision, 2026-07-28: stateless, every request carries its own envelope.

No handshake and no session: each request's ``params._meta`` names the protocol version
and the client's capabilities; ``server/discover`` says what the server supports;
results carry ``resultType`` and the server's info; elicitation and sampling become
input-required round trips; ``subscriptions/listen`` is the one long-lived stream.
Sans-IO like the legacy era: the transport passes the routing headers in and gets a
response message (and the HTTP status it implies) back.
"""

from __future__ import annotations

import base64
import binascii
import logging
from typing import TYPE_CHECKING, Any

from .._errors import (
    HeaderMismatch,
    InternalError,
    InvalidParams,
    MethodNotFound,
    ProtocolError,
    UnsupportedVersion,
)
from .._jsonrpc import Message, error, result
from ._eager import Later
from .exchange import Exchange, Send
from .legacy import capabilities
from .roundtrip import ROUND_TRIP_METHODS, InputRequired, RoundTrip, StateCodec
from .session import Session
from .versions import CURRENT_VERSIONS, LOG_LEVELS

if TYPE_CHECKING:
    from .._config import ServerConfig
    from .._registry import ToolEntry
    from .dispatch import Methods

log = logging.getLogger("mcpcast")

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG = "io.modelcontextprotocol/logLevel"
META_SERVER = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"

# Methods this era removed: -32601 with HTTP 404, as for any unknown method.
REMOVED = frozenset({"initialize", "notifications/initialized", "ping", "logging/setLevel",
                     "resources/subscribe", "resources/unsubscribe"})
CACHED = frozenset({"server/discover", "tools/list", "prompts/list", "resources/list",
                    "resources/templates/list", "resources/read"})
_NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
               "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
_NO_LOGS = 99  # above every level: logs only when the request opts in with logLevel
_STATUS = {-32700: 400, -32600: 400, -32602: 400, -32601: 404, -32020: 400, -32021: 400,
           -32022: 400}


_ROUTING = frozenset({b"mcp-protocol-version", b"mcp-method", b"mcp-name"})


def _repeats_routing(raw: list[tuple[bytes, bytes]]) -> bool:
    names = [name for name, _ in raw if name in _ROUTING]
    return len(names) != len(set(names))


def _param_values(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """The ``Mcp-Param-*`` headers by name (read only for tools that mirror arguments)."""
    params: dict[str, str] = {}
    for key, value in raw:
        if key.startswith(b"mcp-param-"):
            name = key[10:].decode("latin-1")
            if name in params:  # readers of either copy would disagree
                raise HeaderMismatch(f"Mcp-Param-{name} appears more than once")
            params[name] = value.decode("latin-1")
    return params


def decode_header(value: str) -> str:
    """Header values may be sent as ``=?base64?...?=`` (non-ASCII names); the whitespace
    around a field value is not part of it (RFC 9110, section 5.5)."""
    value = value.strip(" \t")
    if value.startswith("=?base64?") and value.endswith("?="):
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise HeaderMismatch("Malformed base64 header value") from None
    return value


def _header_matches(sent: str | None, expected: Any) -> bool:
    """A routing header names the body's value, as sent or ``=?base64?...?=`` encoded."""
    if sent is None:
        return False
    return bool(decode_header(sent) == expected)


class CurrentProtocol:
    def __init__(self, methods: Methods, config: ServerConfig, codec: StateCodec) -> None:
        self.methods = methods
        self.registry = methods.registry
        self.config = config
        self.codec = codec
        decl = self.registry.server
        self._server_info = {"name": decl.name, "version": decl.version}
        self._param_specs: dict[Any, tuple[tuple[str, str], ...]] = {}

    def tools_changed(self) -> None:
        self._param_specs.clear()

    # ------------------------------------------------------------------ envelope

    def check_envelope(self, message: Message, headers: dict[bytes, bytes],
                       raw: list[tuple[bytes, bytes]], sent_version: str | None
                       ) -> dict[str, Any]:
        """Validate ``_meta`` and the routing headers, in the order the SDK checks them;
        returns ``_meta``.

        ``headers`` is the request's header dict (last value wins), ``raw`` its list, and
        ``sent_version`` the MCP-Protocol-Version header as latin-1 text (the transport
        decoded it to pick the era), or None.
        """
        params = message.get("params") or {}
        meta = params.get("_meta")
        if not isinstance(meta, dict) or not isinstance(meta.get(META_VERSION), str) \
                or not isinstance(meta.get(META_CAPS), dict):
            raise InvalidParams(
                f"params._meta must carry {META_VERSION!r} and {META_CAPS!r}",
                {"argument": "_meta"}, http_status=400)
        version: str = meta[META_VERSION]
        if len(raw) != len(headers) and _repeats_routing(raw):
            raise HeaderMismatch("A routing header appears more than once")
        if sent_version != version:
            raise HeaderMismatch("MCP-Protocol-Version header does not match params._meta")
        self._check_routing(message, params, headers, raw)
        if version not in CURRENT_VERSIONS:
            raise UnsupportedVersion("Unsupported protocol version",
                                     {"supported": list(CURRENT_VERSIONS), "requested": version})
        level = meta.get(META_LOG)
        if level is not None and level not in LOG_LEVELS:
            raise InvalidParams(f"Invalid log level: {level!r}", {"argument": META_LOG},
                                http_status=400)
        return meta

    @staticmethod
    def session_for(meta: dict[str, Any]) -> Session:
        """The one-request session of a checked envelope."""
        session = Session(None, meta[META_VERSION])
        session.client_capabilities = meta[META_CAPS]
        info = meta.get(META_INFO)
        session.client_info = info if isinstance(info, dict) else {}
        level = meta.get(META_LOG)
        session.log_level = _NO_LOGS if level is None else LOG_LEVELS[level]
        return session

    def _check_routing(self, message: Message, params: dict[str, Any],
                       headers: dict[bytes, bytes], raw: list[tuple[bytes, bytes]]) -> None:
        """Mcp-Method, Mcp-Name and the Mcp-Param-* headers against the body."""
        # Inline and allocation-free: this runs on every request of the era.
        method: str = message["method"]
        value = headers.get(b"mcp-method")
        sent = None if value is None else value.decode("latin-1")
        # Equal as sent settles it, unless the value may be =?base64?...?= encoded (a test
        # for "=" anywhere is wider than needed and cheaper than slicing off the first).
        if (sent != method or "=" in method) and not _header_matches(sent, method):
            raise HeaderMismatch("Mcp-Method header does not match the request method")
        key = _NAME_PARAM.get(method)
        if key is None:
            return
        # Without a name in the body the request is invalid params, reported as such later.
        target = params.get(key)
        if target is None:
            return
        value = headers.get(b"mcp-name")
        sent = None if value is None else value.decode("latin-1")
        if (sent != target or "=" in target) and not _header_matches(sent, target):
            raise HeaderMismatch(f"Mcp-Name header does not match params.{key}")
        if key == "name" and method == "tools/call":
            specs = self._param_specs.get(target)
            if specs is None:
                specs = self._param_headers(target)
            if specs:
                self._check_param_headers(params, _param_values(raw), specs)

    def _param_headers(self, name: Any) -> tuple[tuple[str, str], ...]:
        """The (argument, header) pairs a tool mirrors in ``Mcp-Param-*`` headers (cached)."""
        found = self._param_specs.get(name)
        if found is None:
            entry = self.registry.tools.get(str(name))
            props = entry.listing["inputSchema"].get("properties", {}) if entry else {}
            found = tuple((arg, str(schema["x-mcp-header"])) for arg, schema in props.items()
                          if isinstance(schema, dict) and schema.get("x-mcp-header"))
            if entry is not None:
                self._param_specs[name] = found
        return found

    def _check_param_headers(self, params: dict[str, Any], sent_params: dict[str, str],
                             specs: tuple[tuple[str, str], ...]) -> None:
        arguments = params.get("arguments") or {}
        for arg, header in specs:
            sent = sent_params.get(str(header).lower())
            value = arguments.get(arg) if isinstance(arguments, dict) else None
            if value is None:
                if sent is not None:
                    raise HeaderMismatch(f"Mcp-Param-{header} sent for an absent argument")
                continue
            if sent is None or not _same_value(decode_header(sent), value):
                raise HeaderMismatch(f"Mcp-Param-{header} header does not match '{arg}'")

    # ------------------------------------------------------------------ requests

    async def handle_request(self, message: Message, session: Session, *, principal: Any,
                             send: Send, http_headers: dict[str, str] | None = None,
                             ) -> tuple[Message, int]:
        """Answer one request; also says which HTTP status the answer implies."""
        try:
            return await self._handle(message, session, principal, send, http_headers), 200
        except Exception as exc:
            return self._failed(message, exc)

    def plain_tool(self, message: Message) -> ToolEntry | None:
        """The tool when ``message`` calls one needing no session or exchange (see
        ``Methods.plain_tool``) and carries no round-trip state; else None."""
        params = message.get("params") or {}
        if message["method"] != "tools/call" or "requestState" in params:
            return None
        return self.methods.plain_tool(params)

    def answer_plain(self, message: Message, entry: ToolEntry, principal: Any = None
                     ) -> tuple[Message, int] | Later[tuple[Message, int]]:
        """``handle_request`` for a ``plain_tool`` (after ``check_envelope``) from
        ``principal``; synchronous first, like ``Methods.call_plain``: the answer now, or
        a coroutine for it."""
        try:
            body = self.methods.call_plain(entry, message["params"].get("arguments"),
                                           principal)
            if isinstance(body, dict):
                # A call's result has no cache hints: _complete is all _decorate would do.
                return result(message["id"], self._complete(body)), 200
        except Exception as exc:
            return self._failed(message, exc)
        return self._answer_later(message, body)

    async def _answer_later(self, message: Message, body: Later[dict[str, Any]]
                            ) -> tuple[Message, int]:
        try:
            return result(message["id"], self._complete(await body)), 200
        except Exception as exc:
            return self._failed(message, exc)

    @staticmethod
    def _failed(message: Message, exc: Exception) -> tuple[Message, int]:
        if isinstance(exc, ProtocolError):
            # This era maps error codes to HTTP statuses (invalid params 400, unknown 404).
            return error(message["id"], exc), _STATUS.get(exc.code, exc.http_status)
        log.error("%s failed", message["method"], exc_info=exc)
        return error(message["id"], InternalError(
            f"Internal error while handling {message['method']}")), 500

    async def _handle(self, message: Message, session: Session, principal: Any,
                      send: Send, http_headers: dict[str, str] | None) -> Message:
        method: str = message["method"]
        rid = message["id"]
        params = message.get("params") or {}
        if method in REMOVED:
            raise MethodNotFound("Method not found", method, http_status=404)
        if method == "server/discover":
            return result(rid, self._decorate(method, params, self.discover()))
        handler = self.methods.table.get(method)
        if handler is None:
            raise MethodNotFound("Method not found", method, http_status=404)
        round_trip = None
        if method in ROUND_TRIP_METHODS:
            round_trip = await self._round_trip(method, params, principal)
        exchange = Exchange(session, rid, principal, params["_meta"], send,
                            http_headers=http_headers, round_trip=round_trip)
        try:
            body = await handler(params, exchange)
        except InputRequired as needed:
            assert round_trip is not None
            return result(rid, self._input_required(method, params, principal, round_trip,
                                                     needed))
        return result(rid, self._decorate(method, params, body))

    async def _round_trip(self, method: str, params: dict[str, Any],
                          principal: Any) -> RoundTrip:
        """The answers this request brings: earlier rounds' from the sealed state, and this
        round's ``inputResponses`` for the questions that state asked (without a state,
        for the tool's first questions only). Unknown keys are ignored."""
        fresh = params.get("inputResponses")
        if "inputResponses" in params and not isinstance(fresh, dict):
            raise InvalidParams("inputResponses must be an object",
                                {"argument": "inputResponses"}, http_status=400)
        if "requestState" not in params:
            return RoundTrip({}, fresh, first_round_only=True)
        responses, asked = await self.codec.open(params["requestState"], method, params,
                                                 principal)
        if fresh:
            fresh = {k: v for k, v in fresh.items() if k in asked}
        return RoundTrip(responses, fresh)

    def discover(self) -> dict[str, Any]:
        body: dict[str, Any] = {"supportedVersions": list(CURRENT_VERSIONS),
                                "capabilities": self.capabilities()}
        if self.registry.server.instructions:
            body["instructions"] = self.registry.server.instructions
        return body

    def capabilities(self) -> dict[str, Any]:
        caps = capabilities(self.registry)
        resources = caps.get("resources")
        if resources is not None:
            # resources/subscribe is gone; updates come through subscriptions/listen.
            caps["resources"] = {"subscribe": True, "listChanged": True}
        return caps

    def server_meta(self) -> dict[str, Any]:
        return {META_SERVER: self._server_info}

    def _complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """Mark a result complete (unless it is a task's handle) and add the server's info
        to its ``_meta`` (kept)."""
        if body.get("resultType") != "task":
            body["resultType"] = "complete"
        meta = body.get("_meta")
        body["_meta"] = {**meta, META_SERVER: self._server_info} if isinstance(meta, dict) \
            else {META_SERVER: self._server_info}
        return body

    def _decorate(self, method: str, params: dict[str, Any],
                  body: dict[str, Any]) -> dict[str, Any]:
        self._complete(body)
        if method in CACHED:
            ttl, scope = self.config.cache_ttl_ms, self.config.cache_scope
            if method == "resources/read":
                # A resource may override the server's hints for its own reads.
                entry = self.registry.resource_for(str(params.get("uri")))
                if entry is not None:
                    ttl = entry.ttl_ms if entry.ttl_ms is not None else ttl
                    scope = entry.cache_scope or scope
            body.setdefault("ttlMs", ttl)
            body.setdefault("cacheScope", scope)
        return body

    def _input_required(self, method: str, params: dict[str, Any], principal: Any,
                        round_trip: RoundTrip, needed: InputRequired) -> dict[str, Any]:
        state = self.codec.seal(method, params, principal, round_trip.responses,
                                list(needed.requests))
        return {"resultType": "input_required", "inputRequests": needed.requests,
                "requestState": state, "_meta": self.server_meta()}

    def listen_filter(self, params: dict[str, Any], principal: Any = None) -> dict[str, Any]:
        """The subset of a ``subscriptions/listen`` filter this server will honour (task
        ids: the caller's own running tasks, for a client with the tasks extension)."""
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            raise InvalidParams("subscriptions/listen needs a 'notifications' object",
                                {"argument": "notifications"}, http_status=400)
        caps = capabilities(self.registry)
        honoured: dict[str, Any] = {}
        for flag, cap in (("toolsListChanged", "tools"), ("promptsListChanged", "prompts"),
                          ("resourcesListChanged", "resources")):
            if wanted.get(flag) is True and cap in caps:
                honoured[flag] = True
        uris = wanted.get("resourceSubscriptions")
        if isinstance(uris, list) and "resources" in caps:
            honoured["resourceSubscriptions"] = [u for u in uris if isinstance(u, str)]
        task_ids = wanted.get("taskIds")
        if isinstance(task_ids, list) and self.registry.has_tasks:
            meta = params.get("_meta")
            honoured["taskIds"] = self.methods.tasks.listen_ids(
                task_ids, meta.get(META_CAPS) if isinstance(meta, dict) else None, principal)
        return honoured


def _same_value(sent: str, value: Any) -> bool:
    if isinstance(value, bool):
        return sent == ("true" if value else "false")
    if isinstance(value, int):
        try:
            return int(sent) == value
        except ValueError:
            return False
    return sent == str(value)
