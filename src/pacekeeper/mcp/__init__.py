"""The MCP endpoint of the service: mcpcast server, JWT gate, tools."""

from pacekeeper.mcp._gate import McpGate, judge, make_authenticate
from pacekeeper.mcp._mount import build_mcp
from pacekeeper.mcp._tools import PROVIDERS, PacekeeperTools, WhoAmI

__all__ = ["PROVIDERS", "McpGate", "PacekeeperTools", "WhoAmI", "build_mcp", "judge",
           "make_authenticate"]
