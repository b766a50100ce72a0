"""What the analysis tool groups share: the analysis service, its refusals as tool errors."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from pacekeeper.fitness.analysis import AnalysisService
from pacekeeper.tools._base import ToolGroup, service_errors

T = TypeVar("T")


class AnalysisGroup(ToolGroup):
    def analysis(self) -> AnalysisService:
        return self.fitness().analysis

    @staticmethod
    async def answer(result: Awaitable[T]) -> T:
        """The service's typed result (the tool's output schema) as it is; a service
        refusal becomes the tool's error."""
        async with service_errors():
            return await result


__all__ = ["AnalysisGroup"]
