"""The service's MCP tools: thin adapters, each handed its caller as an injected argument
(`caller: Principal` or `owner: Owner`, see `_caller`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from typing_extensions import TypedDict

from mcpcast import ToolError, mcp_server, tool
from pacekeeper import __version__
from pacekeeper.auth import Principal
from pacekeeper.connections import PROVIDERS, ConnectionProblem, ConnectionService
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
    PlanTools,
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
    """The services every tool group reaches through `self._services()`."""

    def __init__(self, services: Callable[[], Services]) -> None:
        self._services = services


@mcp_server(
    name="pacekeeper",
    path="/mcp",
    version=__version__,
    instructions="Fitness data for the signed-in user: activities with their streams and "
    "metrics, athlete settings, daily health, provider connections and file import, and "
    "analysis of it all (fitness chart, curves, critical power, race predictions, goals, "
    "a suggested week). Start with get_training_summary; call whoami to see who the user "
    "is.",
    # Each outputSchema as the list of its fields, no additionalProperties: false said of
    # arguments (still enforced): the tools/list rides along in every conversation
    # (issue 27 item 14; docs/performance.md has what each level costs).
    schemas="minimal",
)
class PacekeeperTools(PacekeeperToolsBase, ActivityTools, AthleteTools, SyncTools, LoadTools,
                      CurveTools, PhysiologyTools, RunningTools, CompareTools, GoalTools,
                      PlanningTools, PlanTools, AppViews):
    # Every tool declares the OAuth scopes it needs (docs/oauth.md); reading needs
    # fitness:read, anything that changes the user's data or connections fitness:write.
    @tool(name="whoami", description="The signed-in user: id, email, tenant and role.",
          scopes=(READ,))
    async def whoami(self, caller: Principal) -> WhoAmI:
        return WhoAmI(
            user_id=str(caller.user_id),
            email=caller.email,
            tenant_id=str(caller.tenant_id),
            role=caller.role.value,
        )

    def _connections(self) -> ConnectionService:
        found = self._services().connections
        if found is None:
            raise ToolError("provider connections are not available on this server")
        return found

    @tool(
        name="get_connection_status",
        description=f"Which providers ({', '.join(PROVIDERS)}) are connected or need "
                    "reconnecting; check before a sync.",
        scopes=(READ,),
    )
    async def get_connection_status(self, caller: Principal) -> dict[str, Any]:
        return await self._connections().status(caller.user_id)

    @tool(
        name="connect_provider",
        description=f"Start connecting {_ONE_OF}: the URL the user opens to grant access.",
        scopes=(WRITE,),
    )
    async def connect_provider(self, caller: Principal, provider: str) -> AuthorizationUrl:
        """SMCP-5: the authorization URL for the user in the JWT."""
        try:
            url = await self._connections().authorize(
                caller.tenant_id, caller.user_id, provider.strip().lower()
            )
        except ConnectionProblem as problem:
            raise ToolError(problem.message) from None
        return AuthorizationUrl(provider=provider.strip().lower(), authorization_url=url)

    @tool(
        name="get_provider_profile",
        description="The athlete's profile at a connected provider.",
        scopes=(READ,),
    )
    async def get_provider_profile(self, caller: Principal, provider: str) -> dict[str, Any]:

        async def fetch(client: ProviderClient, tokens: TokenSet) -> dict[str, Any]:
            athlete = await client.fetch_athlete(tokens)
            return athlete.model_dump(mode="json")

        try:
            return await self._connections().call(
                caller.user_id, provider.strip().lower(), fetch, caller.tenant_id
            )
        except ConnectionProblem as problem:
            raise ToolError(problem.message) from None


__all__ = ["PROVIDERS", "AuthorizationUrl", "PacekeeperTools", "PacekeeperToolsBase", "WhoAmI"]
