"""Which of mcpcast's two ways a tools/call took: the general path (``Methods._call_tool``)
or the short one (``Methods.call_plain``), counted by wrapping both."""

from __future__ import annotations

from typing import Any, Protocol

import pytest

from mcpcast.protocol.dispatch import Methods


class PathCounts(Protocol):
    general: int
    short: int


def count_tool_paths(monkeypatch: pytest.MonkeyPatch, counts: PathCounts) -> None:
    general, short = Methods._call_tool, Methods.call_plain

    async def counted_general(self: Methods, *args: Any, **kwargs: Any) -> Any:
        counts.general += 1
        return await general(self, *args, **kwargs)

    def counted_short(self: Methods, *args: Any, **kwargs: Any) -> Any:
        counts.short += 1
        return short(self, *args, **kwargs)

    monkeypatch.setattr(Methods, "_call_tool", counted_general)
    monkeypatch.setattr(Methods, "call_plain", counted_short)
