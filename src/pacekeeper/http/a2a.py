"""A2A over HTTP (A2A-1..3): the agent card, the tool listing and tool execution.

Listing and execution use the very registry `/mcp` serves, and a tool runs through
mcpcast's own `tools/call` handler (argument validation, timeout, tracing, error
results), with the key's owner as the call's principal (the tool's injected `caller` or
`owner`): the same `Principal` type a JWT caller gives it over MCP (`via == "api_key"`).
No MCP session exists here, so a tool that asks the client something (elicitation,
sampling) gets an error result.
"""

from __future__ import annotations

import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mcpcast import ProtocolError, Server
from mcpcast.protocol.exchange import Exchange
from mcpcast.protocol.session import Session
from mcpcast.protocol.versions import LATEST_LEGACY
from pacekeeper.apikeys import API_KEY_HEADER, KeyCaller
from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.http._common import JSONResponse, read_json_object, services
from pacekeeper.http.a2a_card import agent_card


class ToolNotFound(ApiError):
    status = 404
    code = "not_found"


async def _caller(request: Request) -> KeyCaller:
    # Starlette's headers are case-insensitive (RFC 9110): X-API-Key in any case (KEY-4).
    return await services(request).api_keys.authenticate(request.headers.get(API_KEY_HEADER))


def _tool_listing(server: Server) -> list[dict[str, Any]]:
    return [
        {
            "name": entry.name,
            "description": entry.listing.get("description", ""),
            "inputSchema": entry.listing["inputSchema"],
        }
        for entry in server.registry.tools.values()
    ]


def a2a_routes(server: Server) -> list[Route]:
    card_cache: dict[str, dict[str, Any]] = {}

    async def card(request: Request) -> Response:
        base = services(request).settings.public_base_url
        body = card_cache.get(base) or card_cache.setdefault(base, agent_card(server, base))
        return JSONResponse(body, headers={"Cache-Control": "public, max-age=300"})

    async def tools(request: Request) -> Response:
        caller = await _caller(request)
        return JSONResponse({"tools": _tool_listing(server)}, headers=caller.headers())

    async def execute(request: Request) -> Response:
        caller = await _caller(request)
        try:
            return await _run(request, caller)
        except ApiError as exc:  # errors after a good key still carry the limits
            exc.headers = {**caller.headers(), **exc.headers}
            raise

    async def _run(request: Request, caller: KeyCaller) -> Response:
        data = await read_json_object(request)
        name = data.get("tool")
        if not isinstance(name, str) or not name:
            raise ValidationFailed("tool is required (a tool name from GET /a2a/tools)")
        arguments = data.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ValidationFailed("arguments must be a JSON object")
        if name not in server.registry.tools:
            raise ToolNotFound(f"unknown tool: {name}")
        exchange = Exchange(
            Session(None, LATEST_LEGACY), f"a2a-{secrets.token_hex(6)}", caller.principal
        )
        # The key check just now was this request's one resolution: the tool gets its
        # principal as it is (`pacekeeper.mcp._caller`), checked nowhere else.
        try:
            result = await server.methods.call_tool(
                {"name": name, "arguments": arguments}, exchange
            )
        except ProtocolError as exc:  # bad arguments: the message names the argument
            body = {"error": "validation_error", "message": exc.message}
            if isinstance(exc.data, dict) and "argument" in exc.data:
                body["argument"] = exc.data["argument"]
            return JSONResponse(body, 400, headers=caller.headers())
        return JSONResponse({"tool": name, **result}, headers=caller.headers())

    return [
        Route("/.well-known/agent-card.json", card, methods=["GET"]),
        Route("/a2a/tools", tools, methods=["GET"]),
        Route("/a2a/execute", execute, methods=["POST"]),
    ]


__all__ = ["ToolNotFound", "a2a_routes"]
