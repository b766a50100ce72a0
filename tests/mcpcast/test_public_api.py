"""The public surface: what `mcpcast` exports, and decorators that leave functions alone."""

from __future__ import annotations

import inspect

import pytest

import mcpcast
from mcpcast import RegistrationError, Server, mcp_server, prompt, resource, tool


def test_all_is_explicit_and_importable() -> None:
    assert sorted(mcpcast.__all__) == sorted(set(mcpcast.__all__))
    for name in mcpcast.__all__:
        assert hasattr(mcpcast, name), name
    # Private modules stay private: nothing starting with an underscore is exported.
    assert all(not n.startswith("_") or n == "__version__" for n in mcpcast.__all__)


def test_decorators_return_the_function_unchanged() -> None:
    """DECL-1: decorators only register."""
    def plain(self: object, x: int) -> int:
        return x

    for decorate in (tool(), prompt(), resource("x://y")):
        fresh = lambda self, x: x  # noqa: E731
        assert decorate(fresh) is fresh
    marked = tool(description="d")(plain)
    assert marked is plain
    assert marked(None, 3) == 3
    assert inspect.signature(marked) == inspect.signature(plain)


def test_registration_errors_fail_fast() -> None:
    class NotAServer:
        pass

    with pytest.raises(RegistrationError):
        Server(NotAServer())

    @mcp_server("dup")
    class Duplicate:
        @tool(name="same", description="a")
        def a(self) -> str:
            return "a"

        @tool(name="same", description="b")
        def b(self) -> str:
            return "b"

    with pytest.raises(RegistrationError, match="same"):
        Server(Duplicate())

    @mcp_server("template")
    class BadTemplate:
        @resource(uri="thing://{id}", name="thing")
        def thing(self) -> str:
            return "no id parameter"

    with pytest.raises(RegistrationError, match="id"):
        Server(BadTemplate())

    with pytest.raises(RegistrationError):
        mcp_server("x", path="no-slash")
