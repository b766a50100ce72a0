"""What the analysis tool groups share: the analysis service, its refusals as tool errors."""

from __future__ import annotations

from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from mcpcast import ToolError
from pacekeeper.errors import ApiError
from pacekeeper.fitness._figures import rounded_answer
from pacekeeper.fitness.analysis import AnalysisService
from pacekeeper.owner import Owner
from pacekeeper.tools._base import ToolGroup

T = TypeVar("T")

# How the tool calls an HTTP twin makes failed (``http.analysis``): a tool error
# carries only its message, and the twin answers as the HTTP routes always did, with the
# refusal's own status and code (404 for another person's activity) or, for anything
# else (a database out of reach), the app's own handling of that exception (503, 500).
_FAILED: ContextVar[list[Exception] | None] = ContextVar("analysis_failed", default=None)


@contextmanager
def failures() -> Iterator[list[Exception]]:
    """Collect what the analysis tools called inside raised (the list is shared with the
    tool's task, whatever context copy it runs in)."""
    found: list[Exception] = []
    token = _FAILED.set(found)
    try:
        yield found
    finally:
        _FAILED.reset(token)


@contextmanager
def refusing() -> Iterator[None]:
    """A service refusal becomes the tool's error (anything else goes on to mcpcast, as
    before); either is told to an HTTP twin calling."""
    try:
        yield
    except Exception as exc:
        sink = _FAILED.get()
        if sink is not None:
            sink.append(exc)
        if isinstance(exc, ApiError):
            raise ToolError(exc.message) from None
        raise


class AnalysisGroup(ToolGroup):
    def analysis(self) -> AnalysisService:
        return self.fitness().analysis

    async def answer(self, owner: Owner, result: Awaitable[T]) -> T:
        """The service's typed result (the tool's output schema), every figure rounded by
        its name's unit (issue 27 item 14: the one place; the service keeps full
        precision for what it computes from its own results); a service refusal becomes
        the tool's error. When the providers' terms kept activities from the assistant
        asking (issue 31 item 2), its summary ends saying so."""
        with refusing():
            found = rounded_answer(await result)
            note = await self.withheld_note(owner)
        if note and isinstance(found, dict) and isinstance(found.get("summary"), str):
            found["summary"] = f"{found['summary']} {note}"
        return found


__all__ = ["AnalysisGroup", "failures", "refusing"]
