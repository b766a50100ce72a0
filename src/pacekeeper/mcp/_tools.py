"""The service's MCP tools: thin adapters that read the caller from `ctx.principal`."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from mcpcast import Context, ToolError, mcp_server, tool
from pacekeeper import __version__
from pacekeeper.auth import Principal

PROVIDERS = ("strava", "fitbit", "garmin")


class WhoAmI(TypedDict):
    user_id: str
    email: str
    tenant_id: str
    role: str


def _principal(ctx: Context) -> Principal:
    principal = ctx.principal
    if not isinstance(principal, Principal):  # the auth gate guarantees one; be explicit
        raise ToolError("authentication required")
    return principal


@mcp_server(
    name="pacekeeper",
    path="/mcp",
    version=__version__,
    instructions="Fitness data for the signed-in user. Call whoami to see who that is.",
)
class PacekeeperTools:
    @tool(name="whoami", description="The signed-in user: id, email, tenant and role.")
    async def whoami(self, ctx: Context) -> WhoAmI:
        principal = _principal(ctx)
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
        _principal(ctx)
        # No provider connections exist yet: every provider reports not connected.
        status: dict[str, Any] = {"connected_providers": []}
        for provider in PROVIDERS:
            status[provider] = {"connected": False}
        return status


__all__ = ["PROVIDERS", "PacekeeperTools", "WhoAmI"]
