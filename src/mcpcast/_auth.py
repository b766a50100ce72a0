"""The authentication hook's view of a request, and how its verdict is applied."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
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


Authenticate = Callable[[RequestInfo], Awaitable[Any]]


def request_info(scope: dict[str, Any]) -> RequestInfo:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        headers[name.decode("latin-1").lower()] = value.decode("latin-1")
    client = scope.get("client")
    return RequestInfo(headers, scope.get("method", "GET"), scope.get("path", "/"),
                       tuple(client) if client else None,
                       scope.get("query_string", b"").decode("latin-1"))


@dataclass(slots=True)
class Verdict:
    """The hook's answer: a principal, or the rejection to send if one is needed."""

    principal: Any = None
    rejection: Unauthorized | None = None

    def refusal(self) -> Unauthorized:
        return self.rejection or Unauthorized("authentication required")


async def judge(hook: Authenticate | None, scope: dict[str, Any]) -> Verdict:
    if hook is None:
        return Verdict()
    try:
        return Verdict(await hook(request_info(scope)))
    except Unauthorized as exc:
        return Verdict(None, exc)
