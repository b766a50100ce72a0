"""The service's MCP tools: thin adapters that read the caller from `ctx.principal`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from typing_extensions import TypedDict

from mcpcast import Context, ToolError, mcp_server, tool
from pacekeeper import __version__
from pacekeeper.auth import Principal
from pacekeeper.errors import AUTHENTICATION_REQUIRED, INVALID_TOKEN, Unauthenticated
from pacekeeper.mcp._gate import checked_by_gate
from pacekeeper.services import Services

PROVIDERS = ("strava", "fitbit", "garmin")


class WhoAmI(TypedDict):
    user_id: str
    email: str
    tenant_id: str
    role: str


class PacekeeperToolsBase:
    """Every tool asks `await self.caller(ctx)` for the user it acts for."""

    def __init__(self, services: Callable[[], Services]) -> None:
        self._services = services

    async def caller(self, ctx: Context) -> Principal:
        """The caller, re-checked when the connection outlives one request.

        A POST was checked by the gate for this very request. A WebSocket or SSE
        connection was checked once, at its start: each call re-checks the token,
        the user's status (ACC-8: a disable applies at once) and the tenant's bucket.
        """
        principal = ctx.principal
        if not isinstance(principal, Principal):
            raise ToolError(AUTHENTICATION_REQUIRED)
        if checked_by_gate(principal):
            return principal
        resolver = self._services().resolver
        try:
            fresh = await resolver.resolve({"authorization": f"Bearer {principal.token}"})
        except Unauthenticated:
            raise ToolError(INVALID_TOKEN) from None
        if fresh is None:
            raise ToolError(INVALID_TOKEN)
        if fresh.rate is not None and not fresh.rate.allowed:
            raise ToolError(f"rate limit exceeded: retry after {fresh.rate.retry_after} s")
        return fresh


@mcp_server(
    name="pacekeeper",
    path="/mcp",
    version=__version__,
    instructions="Fitness data for the signed-in user. Call whoami to see who that is.",
)
class PacekeeperTools(PacekeeperToolsBase):
    @tool(name="whoami", description="The signed-in user: id, email, tenant and role.")
    async def whoami(self, ctx: Context) -> WhoAmI:
        principal = await self.caller(ctx)
        return WhoAmI(
            user_id=str(principal.user_id),
            email=principal.email,
            tenant_id=str(principal.tenant_id),
            role=principal.role.value,
        )

    @tool(
        name="get_connection_status",
        description="Which fitness providers (strava, fitbit, garmin) the user has connected.",
    )
    async def get_connection_status(self, ctx: Context) -> dict[str, Any]:
        await self.caller(ctx)
        # No provider connections exist yet: every provider reports not connected.
        status: dict[str, Any] = {"connected_providers": []}
        for provider in PROVIDERS:
            status[provider] = {"connected": False}
        return status


__all__ = ["PROVIDERS", "PacekeeperTools", "PacekeeperToolsBase", "WhoAmI"]
