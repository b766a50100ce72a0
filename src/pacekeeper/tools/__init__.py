"""The service's MCP tools, one module per group, thin adapters onto the services.

The server class (``pacekeeper.mcp.PacekeeperTools``) inherits every group; A2A serves
the same registry.
"""

from pacekeeper.tools._base import ToolGroup
from pacekeeper.tools.activities import ActivityTools
from pacekeeper.tools.athlete import AthleteTools
from pacekeeper.tools.sync import SyncTools

__all__ = ["ActivityTools", "AthleteTools", "SyncTools", "ToolGroup"]
