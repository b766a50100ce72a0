"""The authentication hooks: what they see of a request (``RequestInfo``), and the one
place they are applied (``Gate``), whose answer the transports get (``Caller``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping
from types import CoroutineType
from typing import Any

from ._errors import AuthRequired, Unauthorized
from ._jsonrpc import Message
from .protocol.session import ANONYMOUS


class RequestInfo:
    """What an authentication hook sees: lower-case header names, the peer, the method.

    ``headers`` is decoded from the ASGI scope on first use, not before: a hook that
    answers without reading them (one handing on a verdict an outer layer reached for
    this very request) costs no header decoding. ``scope`` is the request's ASGI scope
    (empty when there is none): where an outer ASGI layer leaves what it found out about
    this very request, under an extension key of its own, for the hook to read.
    """

    __slots__ = ("_headers", "_raw", "calls", "client", "method", "path", "query_string",
                 "scope")

    def __init__(self, headers: dict[str, str] | None, method: str, path: str,
                 client: tuple[str, int] | None = None, query_string: str = "",
                 calls: int = 0, *, raw: Iterable[tuple[bytes, bytes]] = (),
                 scope: Mapping[str, Any] | None = None) -> None:
        self._headers = headers
        self._raw = raw
        self.scope: Mapping[str, Any] = {} if scope is None else scope
        self.method = method
        self.path = path
        self.client = client
        self.query_string = query_string
        # POSTs: how many requests in the body need a principal (a batch counts each
        # one); 0 for a WebSocket upgrade or a GET.
        self.calls = calls

    @property
    def headers(self) -> dict[str, str]:
        if self._headers is None:
            self._headers = {name.decode("latin-1").lower(): value.decode("latin-1")
                             for name, value in self._raw}
        return self._headers

    def __repr__(self) -> str:
        return (f"RequestInfo(method={self.method!r}, path={self.path!r}, "
                f"client={self.client!r}, calls={self.calls})")


# RequestInfo -> the principal (None: anonymous), or a coroutine giving it; raises
# Unauthorized to refuse. A hook that can answer without I/O (a verdict an outer layer
# already reached) returns the value itself and costs no coroutine.
Authenticate = Callable[[RequestInfo], Awaitable[Any] | Any]
# principal -> the identity key its sessions are bound to.
Identify = Callable[[Any], Hashable]
# (principal, scopes the request's tools declare) -> None, or the refusal to answer with.
CheckScopes = Callable[[Any, tuple[str, ...]], Unauthorized | None]


def request_info(scope: dict[str, Any], calls: int = 0) -> RequestInfo:
    client = scope.get("client")
    return RequestInfo(None, scope.get("method", "GET"), scope.get("path", "/"),
                       tuple(client) if client else None,
                       scope.get("query_string", b"").decode("latin-1"), calls,
                       raw=scope.get("headers", ()), scope=scope)


class Caller:
    """Who sent a request or opened a connection, as the one authentication pass found.

    The entry point makes one per request (a POST) or connection (an upgrade, a stream)
    and hands it to the transport, which never calls the hook itself. ``refusal`` is set
    for an anonymous connection when a hook exists: each request it sends outside
    ``public_methods`` is refused with it.
    """

    __slots__ = ("gate", "principal", "refusal")

    def __init__(self, gate: Gate, principal: Any = None,
                 refusal: Unauthorized | None = None) -> None:
        self.gate = gate
        self.principal = principal
        self.refusal = refusal

    def owner(self) -> Hashable:
        """The identity key the sessions this caller creates are bound to."""
        return self.gate.owner(self.principal)

    def screen(self, message: Message) -> AuthRequired | None:
        """A request on a connection (no HTTP status per message): the JSON-RPC error that
        refuses it, if the caller may not make it."""
        method = message["method"]
        if self.refusal is not None and method not in self.gate.public:
            return AuthRequired(self.refusal.message)
        if method == "tools/call":
            # The refusal (e.g. insufficient scope) names what the hook said.
            refused = self.gate.refuse_scopes(self.principal, (message,))
            if refused is not None:
                return AuthRequired(refused.message, {
                    **(refused.data or {}), "status": refused.status,
                    "www_authenticate": refused.www_authenticate})
        return None


class Gate:
    """The one application of the hooks ``Server`` was given (``authenticate``,
    ``identify``, ``check_scopes``): the entry point asks it once per request or
    connection."""

    __slots__ = ("check_scopes", "hook", "identify", "nobody", "public", "scopes_of")

    def __init__(self, hook: Authenticate | None, identify: Identify | None,
                 check_scopes: CheckScopes | None, public: frozenset[str],
                 scopes_of: Callable[[Any], tuple[str, ...]]) -> None:
        self.hook = hook
        self.identify = identify
        self.check_scopes = check_scopes
        self.public = public
        self.scopes_of = scopes_of  # a tool name -> the scopes it declares
        self.nobody = Caller(self)  # every caller when there is no hook

    async def admit(self, scope: dict[str, Any], requests: list[Message]
                    ) -> Caller | Unauthorized:
        """A POST's caller, or the refusal to answer it with: its requests outside
        ``public_methods`` need a principal, and their tools' scopes."""
        if self.hook is None:
            return self.nobody
        guarded = [m for m in requests if m["method"] not in self.public]
        # The hook hears how many requests need a principal: a batch is that many calls.
        try:
            principal = self.hook(request_info(scope, len(guarded)))
            if type(principal) is CoroutineType:
                principal = await principal
        except Unauthorized as exc:
            if guarded:
                return exc
            principal = None  # public methods only: the verdict does not matter
        if guarded:
            if principal is None:
                return Unauthorized("authentication required")
            refused = self.refuse_scopes(principal, guarded)
            if refused is not None:
                return refused
        return Caller(self, principal)

    async def connect(self, scope: dict[str, Any]) -> Caller | Unauthorized:
        """The caller opening a connection or stream (WebSocket, HTTP+SSE, GET, DELETE):
        a bad credential refuses it; an anonymous one may open it, refused per request."""
        if self.hook is None:
            return self.nobody
        try:
            principal = self.hook(request_info(scope))
            if type(principal) is CoroutineType:
                principal = await principal
        except Unauthorized as exc:
            return exc
        if principal is None:
            return Caller(self, None, Unauthorized("authentication required"))
        return Caller(self, principal)

    def owner(self, principal: Any) -> Hashable:
        """The identity key sessions created by ``principal`` are bound to."""
        if principal is None:
            return ANONYMOUS
        return self.identify(principal) if self.identify is not None else principal

    def refuse_scopes(self, principal: Any, requests: Iterable[Message]) -> Unauthorized | None:
        """``check_scopes``'s refusal for the scopes ``requests`` declare, if any."""
        if self.check_scopes is None:
            return None
        needed: tuple[str, ...] = ()
        for message in requests:
            if message["method"] != "tools/call":
                continue
            params = message.get("params")
            scopes = self.scopes_of(params.get("name") if isinstance(params, dict) else None)
            if scopes:
                needed = scopes if not needed else tuple(dict.fromkeys((*needed, *scopes)))
        return self.check_scopes(principal, needed) if needed else None
