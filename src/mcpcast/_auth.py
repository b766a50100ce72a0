"""The authentication hook's view of a request, and how its verdict is applied."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

from ._errors import Unauthorized


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """What an authentication hook sees: lower-case header names, the peer, the method."""

    headers: dict[str, str]
    method: str
    path: str
    client: tuple[str, int] | None = None
    query_string: str = ""
    # POSTs: how many requests in the body need a principal (a batch counts each one);
    # 0 for a WebSocket upgrade or a GET.
    calls: int = 0


Authenticate = Callable[[RequestInfo], Awaitable[Any]]
# principal -> the identity key its sessions are bound to.
Identify = Callable[[Any], Hashable]
# (principal, scopes the request's tools declare) -> None, or the refusal to answer with.
CheckScopes = Callable[[Any, tuple[str, ...]], Unauthorized | None]


def request_info(scope: dict[str, Any], calls: int = 0) -> RequestInfo:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        headers[name.decode("latin-1").lower()] = value.decode("latin-1")
    client = scope.get("client")
    return RequestInfo(headers, scope.get("method", "GET"), scope.get("path", "/"),
                       tuple(client) if client else None,
                       scope.get("query_string", b"").decode("latin-1"), calls)


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
