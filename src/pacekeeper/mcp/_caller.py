"""The caller, handed to every tool as an injected argument (issue 19).

The caller is resolved once per request, where the request enters: the gate for a POST
(`_gate.McpGate`), the key check for A2A, the authentication hook when a WebSocket or
SSE stream opens. mcpcast's protocol core carries that principal to the call, and these
injectors give it to a tool that names `caller: Principal` or `owner: Owner` (never in
the input schema). They read nothing but the principal, so such a tool keeps mcpcast's
short path (no exchange or session work). A POST's or A2A call's principal was resolved
for this very request and is handed on as it is. A stream's (`Principal.stream`) was
resolved when the stream opened, so each call on it is checked once more, here and only
here: the token, the user's status (ACC-8: a disable applies at once) and the tenant's
bucket.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from mcpcast import FromPrincipal, ToolError
from mcpcast.protocol.dispatch import Injector
from pacekeeper.auth import Principal
from pacekeeper.errors import AUTHENTICATION_REQUIRED, INVALID_TOKEN, Unauthenticated
from pacekeeper.metrics import RATE_LIMITED
from pacekeeper.owner import Owner
from pacekeeper.services import Services

MCP_ROUTE = "/mcp"  # the route label of /mcp's requests (metrics, spans: _edge)


def caller_injectors(services: Callable[[], Services]) -> dict[type, Injector]:
    """mcpcast injectors for `Principal` and `Owner` (`Server(injectors=...)`).

    They need only the principal mcpcast carries (`FromPrincipal`), so a tool naming
    them keeps mcpcast's short path; a stream's call gets a coroutine (the re-check),
    which mcpcast awaits before the tool runs.
    """

    def principal(found: Any, args: dict[str, Any]
                  ) -> Principal | Coroutine[Any, Any, Principal]:
        if not isinstance(found, Principal):  # mcpcast lets no anonymous tools/call in
            raise ToolError(AUTHENTICATION_REQUIRED)
        return _recheck(services(), found) if found.stream else found

    def owner(found: Any, args: dict[str, Any]) -> Owner | Coroutine[Any, Any, Owner]:
        given = principal(found, args)
        if isinstance(given, Principal):
            return _reader(services(), given)
        return _owner(services(), given)

    return {Principal: FromPrincipal(principal), Owner: FromPrincipal(owner)}


async def _recheck(services: Services, principal: Principal) -> Principal:
    """A stream's call: the stream's token resolved again (status, revocation, bucket)."""
    try:
        fresh = await services.resolver.resolve(
            {"authorization": f"Bearer {principal.token}"}, delegated=True)
    except Unauthenticated:
        raise ToolError(INVALID_TOKEN) from None
    if fresh is None:
        raise ToolError(INVALID_TOKEN)
    if fresh.rate is not None and not fresh.rate.allowed:
        # No HTTP 429 goes out on an open stream (the ops middleware counts those):
        # the refusal is counted here, under the MCP endpoint's route.
        RATE_LIMITED.labels(MCP_ROUTE).inc()
        raise ToolError(f"rate limit exceeded: retry after {fresh.rate.retry_after} s")
    return fresh


def _reader(services: Services, principal: Principal) -> Owner:
    """The owner as this caller may read them: an assistant (every MCP and A2A call)
    does not see what the providers' terms keep from assistants (issue 31 item 2); the
    person's own HTTP API calling a tool (`Principal.direct`) sees everything. The one
    place tools get their reader: the stores filter by it."""
    withheld = frozenset() if principal.direct else services.policies.withheld
    return Owner(principal.user_id, principal.tenant_id, withheld)


async def _owner(services: Services, pending: Coroutine[Any, Any, Principal]) -> Owner:
    return _reader(services, await pending)


__all__ = ["caller_injectors"]
