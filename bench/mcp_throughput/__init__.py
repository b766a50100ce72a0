"""Throughput of one trivial MCP tool call (``add(2, 3)``) on mcpcast, FastMCP, the
official SDK and a bare Starlette ceiling, each under uvicorn + uvloop + httptools."""

from ._requests import ERAS, BenchRequest, Era, build_request, check_response
from ._servers import SERVERS, ServerSpec
from ._wrk import WrkResult, lua_script, parse_output

__all__ = [
    "ERAS",
    "SERVERS",
    "BenchRequest",
    "Era",
    "ServerSpec",
    "WrkResult",
    "build_request",
    "check_response",
    "lua_script",
    "parse_output",
]
