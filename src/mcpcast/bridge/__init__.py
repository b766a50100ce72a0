"""The stdio bridge (MCP-7): relays stdin/stdout JSON-RPC to a Streamable HTTP server.

Standard library only, so ``scripts/build-bridge`` can pack this package alone into
``dist/mcpcast-bridge.pyz``. Run: ``python mcpcast-bridge.pyz --url http://host/mcp``.
"""

from ._bridge import Bridge
from ._cli import TOKEN_ENV, main
from ._http import HttpError, StreamableHttp
from ._sse import Event, iter_events

__all__ = ["TOKEN_ENV", "Bridge", "Event", "HttpError", "StreamableHttp", "iter_events", "main"]
