"""The sync tool: pull a connected provider's new activities and daily health now."""

from __future__ import annotations

from typing import Annotated

from typing_extensions import TypedDict

from mcpcast import Context, Param, ToolError, tool
from pacekeeper.owner import Owner
from pacekeeper.providers.registry import ProviderName
from pacekeeper.tools._base import WRITE, WRITES, ToolGroup


class SyncResult(TypedDict):
    summary: str
    provider: str
    status: str
    imported: int
    merged: int
    duplicates: int
    with_streams: int
    days: int


class SyncTools(ToolGroup):
    @tool(
        name="sync_activities",
        description="Pull new activities (with streams) and daily health from a connected provider "
                    "since the last sync (a year at first). Safe to repeat; takes minutes (a task "
                    "if the client has tasks).",
        annotations=WRITES,
        scopes=(WRITE,),
        # A first sync pulls a year of history: let clients that can poll do so. The
        # progress messages become the task's statusMessage.
        task="optional",
    )
    async def sync_activities(
        self,
        ctx: Context,
        owner: Owner,
        provider: Annotated[ProviderName, Param()],
    ) -> SyncResult:
        syncs = self._services().syncs
        if syncs is None:
            raise ToolError("provider sync is not available on this server")

        async def progress(done: float, total: float | None, message: str) -> None:
            await ctx.report_progress(done, total, message)

        report = await syncs.sync(owner, provider, progress=progress)
        if report.status in ("failed", "busy"):
            raise ToolError(report.message)
        return SyncResult(summary=f"{provider} sync {report.status}: {report.message}",
                          provider=provider, status=report.status, imported=report.imported,
                          merged=report.merged, duplicates=report.duplicates,
                          with_streams=report.with_streams, days=report.days)


__all__ = ["SyncResult", "SyncTools"]
