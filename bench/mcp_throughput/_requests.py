"""The one request every server gets (``tools/call add(2, 3)``), per protocol era, and the
check that a response to it is right."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import orjson

Era = Literal["legacy", "current"]
ERAS: tuple[Era, ...] = ("legacy", "current")
LEGACY_VERSION = "2025-11-25"
CURRENT_VERSION = "2026-07-28"
EXPECTED_SUM = 5


@dataclass(frozen=True)
class BenchRequest:
    """What goes over the wire: an HTTP POST body and the headers the era requires."""

    era: Era
    body: bytes
    headers: dict[str, str]


def build_request(era: Era) -> BenchRequest:
    """The tools/call request for ``era``: legacy 2025-11-25 (no session, stateless) or the
    2026-07-28 current era (``_meta`` envelope plus the routing headers)."""
    return tool_call(era, "add", {"a": 2, "b": 3}, client="mcp-throughput")


def tool_call(era: Era, tool: str, arguments: dict[str, Any], *, client: str,
              extra_headers: dict[str, str] | None = None) -> BenchRequest:
    """A ``tools/call`` of ``tool`` as ``era`` sends it; ``extra_headers`` are added as is."""
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **(extra_headers or {}),
    }
    if era == "legacy":
        headers["MCP-Protocol-Version"] = LEGACY_VERSION
    else:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": CURRENT_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
        }
        headers["MCP-Protocol-Version"] = CURRENT_VERSION
        headers["Mcp-Method"] = "tools/call"
        headers["Mcp-Name"] = tool
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    return BenchRequest(era=era, body=body, headers=headers)


def _json_payload(content_type: str, raw: bytes) -> Any:
    """The JSON-RPC message in a response body, whether plain JSON or one SSE event."""
    if content_type.startswith("text/event-stream"):
        data = [
            line[5:].strip()
            for line in raw.decode().splitlines()
            if line.startswith("data:") and line[5:].strip()
        ]
        if not data:
            raise ValueError("SSE response carried no data line")
        return orjson.loads(data[-1])  # notifications may come first; the result is last
    return orjson.loads(raw)


def check_response(era: Era, status: int, content_type: str, raw: bytes) -> str | None:
    """``None`` when the response is a correct ``add`` result, else why it is not."""
    if not 200 <= status < 300:
        return f"HTTP {status}: {raw[:200]!r}"
    try:
        message = _json_payload(content_type, raw)
    except ValueError as exc:  # orjson.JSONDecodeError is a ValueError
        return f"unparseable body ({exc}): {raw[:200]!r}"
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict):
        return f"no JSON-RPC result: {raw[:200]!r}"
    if result.get("isError"):
        return f"tool error: {result.get('content')!r}"
    structured = result.get("structuredContent")
    value = structured.get("result") if isinstance(structured, dict) else None
    if value is None:
        blocks = result.get("content") or [{}]
        text = blocks[0].get("text") if isinstance(blocks[0], dict) else None
        value = int(text) if isinstance(text, str) and text.strip().lstrip("-").isdigit() else None
    if value != EXPECTED_SUM:
        return f"expected {EXPECTED_SUM}, got {value!r}"
    if era == "current" and result.get("resultType") != "complete":
        return f"current-era result without resultType 'complete': {result.get('resultType')!r}"
    return None
