"""The server the tasks tests drive (test_tasks.py, test_tasks_current.py)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from mcpcast import Ask, Context, InternalError, ToolError, mcp_server, tool


def _form(field: str, typ: str = "string") -> dict[str, Any]:
    return {"type": "object", "properties": {field: {"type": typ}}, "required": [field]}


@mcp_server(name="jobs", path="/mcp", version="1.0.0")
class Jobs:
    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.cancelled = 0
        self.done = 0
        self.threads: list[int] = []

    @tool(description="An ordinary tool.")
    def greet(self, name: str) -> str:
        return f"Hello, {name}!"

    @tool(description="Waits until released.", task="optional")
    async def wait(self, label: str = "x") -> str:
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.done += 1
        return f"released {label}"

    @tool(description="Reports progress, then ends.", task="optional")
    async def reporting(self, ctx: Context) -> str:
        await ctx.report_progress(1, 2, "half way")
        await self.release.wait()
        return "reported"

    @tool(description="Fails as a tool.", task="required")
    async def tool_error(self) -> str:
        raise ToolError("bad input")

    @tool(description="Fails as the protocol.", task="optional")
    async def protocol_error(self) -> str:
        raise InternalError("worker lost")

    @tool(description="Crashes.", task="optional")
    async def crash(self) -> str:
        raise RuntimeError("secret /etc/passwd detail")

    @tool(description="Asks two questions at once.", task="optional")
    async def two_questions(self, ctx: Context) -> str:
        name, ok = await ctx.ask(Ask.elicit("Name?", _form("name"), key="name"),
                                 Ask.elicit("Sure?", _form("ok", "boolean"), key="ok"))
        return f"{name['content']['name']} {ok['content']['ok']}"

    @tool(description="Asks the same question twice.", task="optional")
    async def twice(self, ctx: Context) -> str:
        answers = [await ctx.elicit("Again?", _form("ok", "boolean"), key="again")
                   for _ in range(2)]
        return " ".join(str(a["content"]["ok"]) for a in answers)

    @tool(description="Asks first, then goes on as a task.", task="required",
          task_start="tool")
    async def ask_then_task(self, ctx: Context) -> str:
        answer = await ctx.elicit("Name?", _form("name"), key="user_name")
        await ctx.start_task()
        await self.release.wait()
        return f"Hello, {answer['content']['name']}! task={ctx.task_id is not None}"

    @tool(description="A sync tool run as a task.", task="optional")
    def sync_job(self, n: int) -> int:
        self.threads.append(threading.get_ident())
        time.sleep(0.01)
        return n * 2
