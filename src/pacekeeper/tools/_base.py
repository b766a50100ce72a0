"""What every tool group shares: the services, and errors as tool errors.

Tool groups are mixins; the one server class (``pacekeeper.mcp.PacekeeperTools``)
inherits them all. A tool names whom it acts for as a parameter, ``owner: Owner`` (or
``caller: Principal``): mcpcast injects it from the request's one resolution of the
caller (``pacekeeper.mcp._caller``), never in the input schema. A tool never opens a
database session: it calls a service.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from mcpcast import ToolError
from pacekeeper.errors import ApiError
from pacekeeper.fitness import FitnessService, withheld_reason
from pacekeeper.oauth2 import READ as SCOPE_READ
from pacekeeper.oauth2 import WRITE as SCOPE_WRITE
from pacekeeper.owner import Owner
from pacekeeper.services import Services

# OAuth scopes a tool declares (docs/oauth.md): reading needs fitness:read; anything that
# changes the person's data or connections fitness:write (which includes read).
READ, WRITE = SCOPE_READ, SCOPE_WRITE
# Tool annotations (MCP): what a client may assume about a call.
READ_ONLY = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
WRITES = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
          "openWorldHint": False}
IDEMPOTENT_WRITE = {**WRITES, "idempotentHint": True}
DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True,
               "openWorldHint": False}


class ToolGroup:
    _services: Callable[[], Services]

    def fitness(self) -> FitnessService:
        return self._services().fitness

    async def withheld_note(self, owner: Owner) -> str | None:
        """What an assistant's answer must say when the providers' terms kept some of the
        person's activities from it (issue 31 item 2): how many, why, how to bring them
        in as their own. None when nothing was withheld (no query for the person's own
        reads, whose ``withheld`` is empty)."""
        if not owner.withheld:
            return None
        count = await self.fitness().withheld(owner)
        return withheld_reason(owner.withheld, count) if count else None


@asynccontextmanager
async def service_errors() -> AsyncIterator[None]:
    """A service's refusal (bad input, not found) becomes the tool's error message."""
    try:
        yield
    except ApiError as exc:
        raise ToolError(exc.message) from None


__all__ = ["DESTRUCTIVE", "IDEMPOTENT_WRITE", "READ", "READ_ONLY", "WRITE", "WRITES",
           "ToolGroup", "service_errors"]
