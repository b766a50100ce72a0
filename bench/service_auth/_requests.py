"""The authenticated request (``tools/call whoami`` with a bearer JWT) per protocol era,
and the check that the answer names the user who logged in."""

from __future__ import annotations

import orjson

from bench.mcp_throughput import BenchRequest, Era
from bench.mcp_throughput._requests import LEGACY_VERSION, _json_payload, tool_call

TOOL = "whoami"
MCP_PATH = "/mcp"


def initialize_body() -> bytes:
    """A legacy-era ``initialize``: the service's /mcp keeps sessions, so the legacy row
    opens one first and sends its ``Mcp-Session-Id`` on every call."""
    params = {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "service-auth-bench", "version": "1"},
    }
    return orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})


def whoami_request(era: Era, token: str, session_id: str | None = None) -> BenchRequest:
    """``tools/call whoami`` with ``Authorization: Bearer <token>``: legacy 2025-11-25 (on a
    session when one is given) or 2026-07-28 (``_meta`` envelope and routing headers)."""
    extra = {"Authorization": f"Bearer {token}"}
    if era == "legacy" and session_id is not None:
        extra["Mcp-Session-Id"] = session_id
    return tool_call(era, TOOL, {}, client="service-auth-bench", extra_headers=extra)


def check_whoami(era: Era, status: int, content_type: str, raw: bytes, email: str) -> str | None:
    """``None`` when the response is a whoami result for ``email``, else why it is not."""
    if not 200 <= status < 300:
        return f"HTTP {status}: {raw[:200]!r}"
    try:
        message = _json_payload(content_type, raw)
    except ValueError as exc:
        return f"unparseable body ({exc}): {raw[:200]!r}"
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict):
        return f"no JSON-RPC result: {raw[:200]!r}"
    if result.get("isError"):
        return f"tool error: {result.get('content')!r}"
    structured = result.get("structuredContent")
    got = structured.get("email") if isinstance(structured, dict) else None
    if got != email:
        return f"expected whoami email {email!r}, got {got!r}"
    if era == "current" and result.get("resultType") != "complete":
        return f"current-era result without resultType 'complete': {result.get('resultType')!r}"
    return None
