"""The MCP endpoint of the service: mcpcast server, JWT gate, tools."""

from pacekeeper.mcp._caller import caller_injectors
from pacekeeper.mcp._edge import McpEdge
from pacekeeper.mcp._gate import judge, make_authenticate
from pacekeeper.mcp._mount import build_mcp
from pacekeeper.mcp._tools import PROVIDERS, PacekeeperTools, PacekeeperToolsBase, WhoAmI

__all__ = [
    "PROVIDERS",
    "McpEdge",
    "PacekeeperTools",
    "PacekeeperToolsBase",
    "WhoAmI",
    "build_mcp",
    "caller_injectors",
    "judge",
    "make_authenticate",
]
