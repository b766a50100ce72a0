"""The tools/list answer, as a client receives it, in both revisions the service speaks."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from tests.pacekeeper.conftest import Harness

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LEGACY, CURRENT = "2025-11-25", "2026-07-28"


async def tools_list_bodies(client: httpx.AsyncClient) -> dict[str, bytes]:
    """The raw JSON body of every page of tools/list, per revision, concatenated."""
    init = await client.post("/mcp", headers=ACCEPT, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}})
    assert init.status_code == 200, init.text
    legacy = {**ACCEPT, "mcp-session-id": init.headers["mcp-session-id"],
              "mcp-protocol-version": LEGACY}
    current = {**ACCEPT, "mcp-protocol-version": CURRENT, "mcp-method": "tools/list"}
    meta = {"io.modelcontextprotocol/protocolVersion": CURRENT,
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    bodies: dict[str, bytes] = {}
    for version, headers, extra in ((LEGACY, legacy, {}), (CURRENT, current, {"_meta": meta})):
        raw, cursor = b"", None
        while True:
            params: dict[str, Any] = {**extra, **({"cursor": cursor} if cursor else {})}
            response = await client.post("/mcp", headers=headers, json={
                "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params})
            assert response.status_code == 200, response.text
            raw += response.content
            cursor = response.json()["result"].get("nextCursor")
            if not cursor:
                break
        bodies[version] = raw
    return bodies


# Issue 27 item 14 measured (JSON bytes of every tools/list page, as received): 51,319 /
# 51,463 bytes before (2025-11-25 / 2026-07-28), 34,678 / 34,822 after. The guard is the
# "after" with room for a tool or two; the goal of 25 KB is not reached (docs/performance.md).
MAX_BYTES = 36_000


async def test_tools_list_is_compact_in_both_revisions(harness: Harness) -> None:
    """The whole tools/list answer, measured as a client receives it in each revision the
    service speaks, stays under MAX_BYTES with every tool listed (a guard against the
    51 KB it was: titles, default nulls, anyOf [X, null] of optional arguments, repeated
    required lists, long descriptions)."""
    bodies = await tools_list_bodies(harness.client)
    for version, raw in bodies.items():
        tools = orjson.loads(raw)["result"]["tools"]
        assert len(tools) >= 41, version
        assert len(raw) < MAX_BYTES, (version, len(raw))


def _portability(node: Any, path: str, keyword: str | None, found: list[str]) -> None:
    """The MCP Inspector's --strict tool-schema rules (inspector 2.12, lintToolSchemas):
    a bare boolean schema, a "type" array, a schema with no validation keyword (a bare
    {} or a description alone), a $ref outside the document."""
    if isinstance(node, bool):
        found.append(f"{path}: boolean schema")
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("type"), list):
        found.append(f"{path}: type array")
    ref = node.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        found.append(f"{path}: remote $ref")
    if keyword != "not" and not set(node) & CONSTRAINING:
        found.append(f"{path}: untyped schema")
    for key in ("properties", "patternProperties", "$defs", "dependentSchemas"):
        for name, sub in (node.get(key) or {}).items():
            _portability(sub, f"{path}.{key}.{name}", key, found)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for index, sub in enumerate(node.get(key) or []):
            _portability(sub, f"{path}.{key}[{index}]", key, found)
    for key in ("items", "additionalProperties", "not", "contains", "propertyNames", "if",
                "then", "else", "unevaluatedProperties", "unevaluatedItems"):
        if key in node and not (key in ("additionalProperties", "unevaluatedProperties",
                                        "unevaluatedItems") and isinstance(node[key], bool)):
            _portability(node[key], f"{path}.{key}", key, found)


CONSTRAINING = {
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "format", "contentMediaType",
    "contentEncoding", "contentSchema", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "allOf",
    "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "properties",
    "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
    "dependentSchemas", "$ref"}


async def test_tool_schemas_pass_the_inspectors_strict_rules(harness: Harness) -> None:
    """MCP Inspector --strict was clean when run by hand against this branch (2.12.0:
    "0 errors, 0 warnings"; main had 5 warnings, output-schema items given as a bare {}).
    The same rules here, on both revisions' listings, so the check runs without Node."""
    bodies = await tools_list_bodies(harness.client)
    for version, raw in bodies.items():
        found: list[str] = []
        for tool in orjson.loads(raw)["result"]["tools"]:
            for kind in ("inputSchema", "outputSchema"):
                if kind in tool:
                    _portability(tool[kind], f"{tool['name']}.{kind}", None, found)
        assert found == [], version
