"""The public A2A agent card (A2A-1): who we are, our skills, how to authenticate.

Shape of the A2A specification's AgentCard (protocol 0.3): skills come from the same
mcpcast registry as `tools/list` on /mcp, one skill per tool; the one security scheme is
an API key in the `X-API-Key` header.
"""

from __future__ import annotations

from typing import Any

from mcpcast import Server

A2A_PROTOCOL_VERSION = "0.3.0"
SCHEME = "apiKey"


def agent_card(server: Server, base_url: str) -> dict[str, Any]:
    skills = [
        {
            "id": entry.name,
            "name": entry.name,
            "description": entry.listing.get("description", entry.name),
            "tags": ["mcp-tool"],
            "inputModes": ["application/json"],
            "outputModes": ["application/json"],
        }
        for entry in server.registry.tools.values()
    ]
    return {
        "protocolVersion": A2A_PROTOCOL_VERSION,
        "name": server.name,
        "description": server.registry.server.instructions
        or "Pacekeeper fitness data service",
        "version": server.version,
        "url": f"{base_url}/a2a",
        "provider": {"organization": "Pacekeeper", "url": base_url},
        "documentationUrl": f"{base_url}/openapi.json",
        "capabilities": {"streaming": False, "pushNotifications": False},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": skills,
        "securitySchemes": {
            SCHEME: {
                "type": "apiKey",
                "in": "header",
                "name": "X-API-Key",
                "description": "An API key from POST /api/keys",
            }
        },
        "security": [{SCHEME: []}],
        "endpoints": {"tools": f"{base_url}/a2a/tools", "execute": f"{base_url}/a2a/execute"},
    }


__all__ = ["A2A_PROTOCOL_VERSION", "SCHEME", "agent_card"]
