"""The authentication hook's view of a request, and how its verdict is applied."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from ._errors import Unauthorized


class RequestInfo:
    """What an authentication hook sees: lower-case header names, the peer, the method.

    ``headers`` is decoded from the ASGI scope on first use, not before: a hook that
    answers without reading them (one handing on a verdict an outer layer reached for
    this very request) costs no header decoding.
    """

    __slots__ = ("_headers", "_raw", "calls", "client", "method", "path", "query_string")

    def __init__(self, headers: dict[str, str] | None, method: str, path: str,
                 client: tuple[str, int] | None = None, query_string: str = "",
                 calls: int = 0, *, raw: Iterable[tuple[bytes, bytes]] = ()) -> None:
        self._headers = headers
        self._raw = raw
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


Authenticate = Callable[[RequestInfo], Awaitable[Any]]
# principal -> the identity key its sessions are bound to.
Identify = Callable[[Any], Hashable]
# (principal, scopes the request's tools declare) -> None, or the refusal to answer with.
CheckScopes = Callable[[Any, tuple[str, ...]], Unauthorized | None]


def request_info(scope: dict[str, Any], calls: int = 0) -> RequestInfo:
    client = scope.get("client")
    return RequestInfo(None, scope.get("method", "GET"), scope.get("path", "/"),
                       tuple(client) if client else None,
                       scope.get("query_string", b"").decode("latin-1"), calls,
                       raw=scope.get("headers", ()))


@dataclass(slots=True)
class Verdict:
    """The hook's answer: a principal, or the rejection to send if one is needed."""

    principal: Any = None
    rejection: Unauthorized | None = None

    def refusal(self) -> Unauthorized:
        return self.rejection or Unauthorized("authentication required")


async def judge(hook: Authenticate | None, scope: dict[str, Any], calls: int = 0) -> Verdict:
    if hook is None:
        return Verdict()
    try:
        return Verdict(await hook(request_info(scope, calls)))
    except Unauthorized as exc:
        return Verdict(None, exc)
