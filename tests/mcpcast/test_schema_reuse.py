"""Servers built from one class read its functions once (``analyse`` keeps what it read),
yet each server's schemas are its own."""

from __future__ import annotations

import pytest

from mcpcast import _schema, mcp_server, tool
from mcpcast._registry import collect


@mcp_server("reuse")
class _Reuse:
    @tool()
    def add(self, a: int, b: int = 2) -> dict[str, int]:
        return {"sum": a + b}


def test_a_second_server_of_a_class_reads_no_function_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    read = _schema._read

    def counted(func: object, **kwargs: object) -> _schema.Signature:
        reads.append(getattr(func, "__name__", "?"))
        return read(func, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_schema, "_read", counted)
    monkeypatch.setattr(_schema, "_READ", type(_schema._READ)())
    first, second = collect(_Reuse(), ()), collect(_Reuse(), ())
    assert reads == ["add"]
    assert first.tools["add"].signature.input_schema == second.tools["add"].signature.input_schema
    # Another set of injectables is another reading (a parameter may become injected).
    collect(_Reuse(), (int,))
    assert reads == ["add", "add"]


def test_each_server_has_schemas_of_its_own() -> None:
    first, second = collect(_Reuse(), ()), collect(_Reuse(), ())
    first.tools["add"].listing["inputSchema"]["properties"]["a"]["minimum"] = 0
    first.tools["add"].signature.output_schema["x-changed"] = True  # type: ignore[index]
    assert "minimum" not in second.tools["add"].listing["inputSchema"]["properties"]["a"]
    assert "x-changed" not in second.tools["add"].signature.output_schema  # type: ignore[operator]
    assert "minimum" not in collect(_Reuse(), ()).tools["add"].listing["inputSchema"][
        "properties"]["a"]
