"""What the analysis tool groups share: the analysis service, its refusals as tool errors."""

from __future__ import annotations

from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from mcpcast import ToolError
from pacekeeper.errors import ApiError
from pacekeeper.fitness.analysis import AnalysisService
from pacekeeper.tools._base import ToolGroup

T = TypeVar("T")

# The service's refusals of the calls an HTTP twin makes (``fitness.analysis_routes``):
# a tool error carries only its message, and the twin answers with the refusal's own
# status and code (404 for another person's activity, as before the twins were tools).
_REFUSED: ContextVar[list[ApiError] | None] = ContextVar("analysis_refused", default=None)


@contextmanager
def refusals() -> Iterator[list[ApiError]]:
    """Collect the refusals of the tool calls made inside (the list is shared with the
    tool's task, whatever context copy it runs in)."""
    found: list[ApiError] = []
    token = _REFUSED.set(found)
    try:
        yield found
    finally:
        _REFUSED.reset(token)


class AnalysisGroup(ToolGroup):
    def analysis(self) -> AnalysisService:
        return self.fitness().analysis

    @staticmethod
    async def answer(result: Awaitable[T]) -> T:
        """The service's typed result (the tool's output schema) as it is; a service
        refusal becomes the tool's error (and is told to an HTTP twin calling)."""
        try:
            return await result
        except ApiError as exc:
            sink = _REFUSED.get()
            if sink is not None:
                sink.append(exc)
            raise ToolError(exc.message) from None


__all__ = ["AnalysisGroup", "refusals"]
