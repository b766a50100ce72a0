"""What the analysis tool groups share: the analysis service, results as their shapes."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar, cast

from pacekeeper.fitness.analysis import AnalysisService
from pacekeeper.tools._base import ToolGroup, service_errors

T = TypeVar("T")


class AnalysisGroup(ToolGroup):
    def analysis(self) -> AnalysisService:
        return self.fitness().analysis

    @staticmethod
    async def shaped(shape: type[T], result: Awaitable[dict[str, Any]]) -> T:
        """The service's result (a plain dict, the HTTP twin's body too) as the tool's
        shape; a service refusal becomes the tool's error."""
        async with service_errors():
            return cast(T, await result)


__all__ = ["AnalysisGroup"]
