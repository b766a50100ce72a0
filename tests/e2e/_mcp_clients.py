"""Small MCP callers over real sockets for the process tests: one tools/call over
Streamable HTTP (the 2025-11-25 handshake) and over the WebSocket transport."""

from __future__ import annotations

import json
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

VERSION = "2025-11-25"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": VERSION, "capabilities": {},
                   "clientInfo": {"name": "pacekeeper-tests", "version": "1"}}}


def call(name: str, arguments: dict[str, Any] | None = None, request_id: int = 2
         ) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}}}


async def open_http_session(client: httpx.AsyncClient, base: str, token: str
                            ) -> dict[str, str]:
    """Initialize a session; the headers for its later requests."""
    auth = {"authorization": f"Bearer {token}"}
    response = await client.post(f"{base}/mcp", headers={**ACCEPT, **auth}, json=INIT)
    response.raise_for_status()
    headers = {**ACCEPT, **auth, "mcp-session-id": response.headers["mcp-session-id"],
               "mcp-protocol-version": VERSION}
    await client.post(f"{base}/mcp", headers=headers,
                      json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


async def http_tool(base: str, token: str, name: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as client:
        headers = await open_http_session(client, base, token)
        response = await client.post(f"{base}/mcp", headers=headers, json=call(name))
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body


async def ws_open(base: str, token: str) -> ClientConnection:
    """An initialized MCP WebSocket connection."""
    ws = await connect(base.replace("http", "ws", 1) + "/mcp", subprotocols=["mcp"],
                       additional_headers={"authorization": f"Bearer {token}"})
    await ws.send(json.dumps(INIT))
    await ws_reply(ws, 1)
    await ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return ws


async def ws_reply(ws: ClientConnection, request_id: int) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message.get("id") == request_id:
            return message


async def ws_tool(base: str, token: str, name: str) -> dict[str, Any]:
    ws = await ws_open(base, token)
    try:
        await ws.send(json.dumps(call(name, request_id=7)))
        return await ws_reply(ws, 7)
    finally:
        await ws.close()
