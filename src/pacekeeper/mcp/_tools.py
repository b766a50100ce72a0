"""The service's MCP tools: thin adapters that read the caller from `ctx.principal`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from typing_extensions import TypedDict

from mcpcast import Context, ToolError, mcp_server, tool
from pacekeeper import __version__
from pacekeeper.auth import Principal
from pacekeeper.connections import PROVIDERS, ConnectionProblem, ConnectionService
from pacekeeper.errors import AUTHENTICATION_REQUIRED, INVALID_TOKEN, Unauthenticated
from pacekeeper.mcp._gate import checked_by_gate
from pacekeeper.oauth2 import READ, WRITE
from pacekeeper.providers import ProviderClient, TokenSet
from pacekeeper.services import Services
from pacekeeper.tools import (
    ActivityTools,
    AppViews,
    AthleteTools,
    CompareTools,
    CurveTools,
    GoalTools,
    LoadTools,
    PhysiologyTools,
    PlanningTools,
    RunningTools,
    SyncTools,
)

_ONE_OF = ", ".join(list(PROVIDERS)[:-1]) + f" or {list(PROVIDERS)[-1]}"  # "a, b or c"


class WhoAmI(TypedDict):
    user_id: str
    email: str
    tenant_id: str
    role: str


class AuthorizationUrl(TypedDict):
    provider: str
    authorization_url: str


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
            fresh = await resolver.resolve({"authorization": f"Bearer {principal.token}"},
                                           delegated=True)
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
    instructions="Fitness data for the signed-in user: activities with their streams and "
    "metrics, athlete settings, daily health, provider connections and file import, and "
    "analysis of it all (fitness chart, curves, critical power, race predictions, goals, "
    "a suggested week). Start with get_training_summary; call whoami to see who the user "
    "is.",
)
class PacekeeperTools(PacekeeperToolsBase, ActivityTools, AthleteTools, SyncTools, LoadTools,
                      CurveTools, PhysiologyTools, RunningTools, CompareTools, GoalTools,
                      PlanningTools, AppViews):
    # Every tool declares the OAuth scopes it needs (docs/oauth.md); reading needs
    # fitness:read, anything that changes the user's data or connections fitness:write.
    @tool(name="whoami", description="The signed-in user: id, email, tenant and role.",
          scopes=(READ,))
    async def whoami(self, ctx: Context) -> WhoAmI:
        principal = await self.caller(ctx)
        return WhoAmI(
            user_id=str(principal.user_id),
            email=principal.email,
            tenant_id=str(principal.tenant_id),
            role=principal.role.value,
        )

    def _connections(self) -> ConnectionService:
        found = self._services().connections
        if found is None:
            raise ToolError("provider connections are not available on this server")
        return found

    @tool(
        name="get_connection_status",
        description=f"Which fitness providers ({', '.join(PROVIDERS)}) the user has connected, "
        "when their tokens expire, and which need to be reconnected.",
        scopes=(READ,),
    )
    async def get_connection_status(self, ctx: Context) -> dict[str, Any]:
        principal = await self.caller(ctx)
        return await self._connections().status(principal.user_id)

    @tool(
        name="connect_provider",
        description=f"Start connecting a fitness provider ({_ONE_OF}): returns "
        "the URL the user opens in a browser to grant access.",
        scopes=(WRITE,),
    )
    async def connect_provider(self, ctx: Context, provider: str) -> AuthorizationUrl:
        """SMCP-5: the authorization URL for the user in the JWT."""
        principal = await self.caller(ctx)
        try:
            url = await self._connections().authorize(
                principal.tenant_id, principal.user_id, provider.strip().lower()
            )
        except ConnectionProblem as problem:
            raise ToolError(problem.message) from None
        return AuthorizationUrl(provider=provider.strip().lower(), authorization_url=url)

    @tool(
        name="get_provider_profile",
        description=f"The athlete profile at a connected provider ({_ONE_OF}).",
        scopes=(READ,),
    )
    async def get_provider_profile(self, ctx: Context, provider: str) -> dict[str, Any]:
        principal = await self.caller(ctx)

        async def fetch(client: ProviderClient, tokens: TokenSet) -> dict[str, Any]:
            athlete = await client.fetch_athlete(tokens)
            return athlete.model_dump(mode="json")

        try:
            return await self._connections().call(
                principal.user_id, provider.strip().lower(), fetch, principal.tenant_id
            )
        except ConnectionProblem as problem:
            raise ToolError(problem.message) from None


__all__ = ["PROVIDERS", "AuthorizationUrl", "PacekeeperTools", "PacekeeperToolsBase", "WhoAmI"]
