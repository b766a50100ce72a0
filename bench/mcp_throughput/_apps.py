"""The servers under test: one ASGI factory each, all serving the same ``add`` tool at ``/mcp``.

uvicorn loads them with ``--factory`` (``bench.mcp_throughput._apps:fastmcp_app``), so each
library is imported only in the process that serves it, never in the driver.
"""

from __future__ import annotations

from typing import Any

import orjson

MCP_PATH = "/mcp"


def mcpcast_app() -> Any:
    """mcpcast, legacy stateless JSON mode (the current era is picked per request)."""
    from mcpcast import Server, ServerConfig, mcp_server, tool

    @mcp_server(name="bench", path=MCP_PATH, version="1.0.0")
    class Bench:
        @tool(description="Add two integers.")
        async def add(self, a: int, b: int) -> int:
            return a + b

    return Server(Bench(), config=ServerConfig(stateless=True)).asgi_app()


def mcpcast_sync_app() -> Any:
    """mcpcast as above, with the tool written as a plain ``def`` (the seed's style)."""
    from mcpcast import Server, ServerConfig, mcp_server, tool

    @mcp_server(name="bench", path=MCP_PATH, version="1.0.0")
    class Bench:
        @tool(description="Add two integers.")
        def add(self, a: int, b: int) -> int:
            return a + b

    return Server(Bench(), config=ServerConfig(stateless=True)).asgi_app()


def fastmcp_app() -> Any:
    """FastMCP (the standalone package), stateless HTTP with JSON responses."""
    from fastmcp import FastMCP

    mcp = FastMCP("bench")

    @mcp.tool
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return mcp.http_app(path=MCP_PATH, stateless_http=True, json_response=True)


def sdk_app() -> Any:
    """The official MCP Python SDK (``MCPServer``), stateless HTTP with JSON responses."""
    from mcp.server.mcpserver import MCPServer

    # Its default INFO level logs a line per legacy stateless request ("Terminating
    # session"); every server here runs at WARNING, as uvicorn does.
    mcp = MCPServer("bench", log_level="WARNING")

    @mcp.tool()
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return mcp.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True
    )


# The ceiling: what any of them answers, pre-encoded. The extra modern-era keys are harmless
# on a legacy request and let the same endpoint pass the current-era check.
_FIXED_RESULT = orjson.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [{"type": "text", "text": "5"}],
            "structuredContent": {"result": 5},
            "isError": False,
            "resultType": "complete",
        },
    }
)


def starlette_app() -> Any:
    """A bare Starlette route that reads the body and returns a fixed JSON-RPC result."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def endpoint(request: Request) -> Response:
        await request.body()  # every real server must at least read the request
        return Response(_FIXED_RESULT, media_type="application/json")

    return Starlette(routes=[Route(MCP_PATH, endpoint, methods=["POST"])])


def minimal_app() -> Any:
    """A lower bound: raw ASGI doing only what each era requires of this one call.

    Not a framework: one tool, hard-wired. It checks the media type, parses the body,
    checks the era's headers against the body (current: the ``_meta`` envelope, version,
    ``Mcp-Method`` and ``Mcp-Name``), validates the arguments with a compiled pydantic
    model, calls the tool and encodes the result. What an MCP server cannot skip, so the
    gap between eras here is the protocol's, not any implementation's.
    """
    from pydantic import ConfigDict, create_model

    validate = create_model(
        "Arguments", __config__=ConfigDict(extra="forbid"), a=(int, ...), b=(int, ...)
    ).__pydantic_validator__.validate_python
    server_meta = {"io.modelcontextprotocol/serverInfo": {"name": "bench", "version": "1.0.0"}}
    json_type = (b"content-type", b"application/json")

    async def add(a: int, b: int) -> int:
        return a + b

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise RuntimeError("no lifespan")
        headers = dict(scope["headers"])
        if not headers.get(b"content-type", b"").startswith(b"application/json"):
            raise RuntimeError("415")
        message = await receive()
        request = orjson.loads(message["body"])
        params = request["params"]
        meta = params.get("_meta")
        current = meta is not None
        if current and (
            meta.get("io.modelcontextprotocol/protocolVersion")
            != headers[b"mcp-protocol-version"].decode()
            or headers[b"mcp-method"].decode() != request["method"]
            or headers[b"mcp-name"].decode() != params["name"]
        ):
            raise RuntimeError("-32020")
        value = await add(**validate(params["arguments"]).__dict__)
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": str(value)}],
            "isError": False,
            "structuredContent": {"result": value},
        }
        if current:
            result["resultType"] = "complete"
            result["_meta"] = server_meta
        body = orjson.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result})
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(len(body)).encode()), json_type]})
        await send({"type": "http.response.body", "body": body})

    return app
