"""The tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663), in both eras.

A client that declares the extension (``capabilities.extensions`` at ``initialize``, or
in a request's ``_meta`` client capabilities) and calls a tool declared with
``@tool(task=...)`` gets a ``CreateTaskResult`` (``resultType: "task"`` and the task's
fields, flat) instead of the tool's result; the tool goes on running here. The client
polls ``tasks/get`` (the result or error is inlined once the task ends), answers the
task's questions with ``tasks/update`` and stops it with ``tasks/cancel``. A tool error
ends a task ``completed`` with ``isError``; a protocol error or a crash ends it
``failed`` with a JSON-RPC error. ``tasks/result`` and ``tasks/list`` (the 2025-11-25
experimental surface) are gone: -32601.

A task belongs to the principal that created it (``principal_key``: a principal's
``mcp_subject`` when it has one, so an application may key tasks by person *and* client):
for anyone else it does not exist (-32602, as for an unknown id). Its owner's calls on it
also need the scopes of the tool that created it (the server's ``check_scopes``): a
token that could not call the tool cannot read its result or cancel it either.
Status changes are pushed as ``notifications/tasks`` (the task as ``tasks/get`` would
answer): to ``subscriptions/listen`` streams whose ``taskIds`` name the task (its
owner's only), and to the handshake-era session that created it (on its GET stream).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import (
    AuthRequired,
    InternalError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    MissingCapability,
    ProtocolError,
    Unauthorized,
)
from .._jsonrpc import dumps, notification
from ..tasks._record import TaskRecord, TaskStatus
from ..tasks._store import TaskStore
from .exchange import Exchange, Questions
from .listeners import Listener
from .roundtrip import check_answer, principal_key

if TYPE_CHECKING:
    from .._config import ServerConfig
    from .._registry import ToolEntry

log = logging.getLogger("mcpcast")

EXTENSION = "io.modelcontextprotocol/tasks"
_META_CAPS = "io.modelcontextprotocol/clientCapabilities"
STATUS_NOTIFICATION = "notifications/tasks"
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})

# Runs a task tool's bound call to its tool result; raises on a protocol error or crash.
Runner = Callable[["ToolEntry", dict[str, Any], Exchange], Awaitable[dict[str, Any]]]


def negotiated(ex: Exchange) -> bool:
    """Did the client declare the extension, for its session or for this request?"""
    for caps in (ex.session.client_capabilities, ex.meta.get(_META_CAPS)):
        if isinstance(caps, dict):
            extensions = caps.get("extensions")
            if isinstance(extensions, dict) and EXTENSION in extensions:
                return True
    return False


def missing_extension(what: str) -> MissingCapability:
    return MissingCapability(f"{what} needs the client extension {EXTENSION!r}",
                             {"requiredCapabilities": {"extensions": {EXTENSION: {}}}})


@dataclass(eq=False)
class _Live:
    """What only this process has of a running task."""

    record: TaskRecord
    ex: Exchange
    runner: asyncio.Task[Any] | None = None
    answers: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    index: int = 0  # numbers unnamed questions r0, r1, ... like a round trip does
    used: set[str] = field(default_factory=set)  # keys are never reused within a task


@dataclass(eq=False)
class _Start:
    """A call whose tool starts its task itself (``task_start="tool"``)."""

    started: asyncio.Future[_Live]


class TaskEngine:
    def __init__(self, store: TaskStore, config: ServerConfig, run: Runner,
                 offered: Callable[[], bool]) -> None:
        self.store = store
        self.config = config
        self._run = run
        self._offered = offered  # a server without task tools has no tasks/* methods
        self._live: dict[str, _Live] = {}
        self._running = Counter[str]()  # owner -> tasks running now
        self.listeners: set[Listener] = set()  # the server's listen streams (set by Server)
        self._stopping = False
        self.table = {"tasks/get": self.get, "tasks/update": self.update,
                      "tasks/cancel": self.cancel}
        # (principal, scopes) -> None or the refusal; set by the Server (its gate's hook).
        self.check_scopes: Callable[[Any, tuple[str, ...]], Unauthorized | None] | None = None

    # ------------------------------------------------------------------ tools/call

    async def call(self, entry: ToolEntry, kwargs: dict[str, Any], ex: Exchange
                   ) -> dict[str, Any]:
        """``tools/call`` of a task tool from a client that negotiated the extension: a
        ``CreateTaskResult`` (``Methods`` runs it as an ordinary call for other clients)."""
        if entry.task_start == "call":
            live = await self._create(ex, entry)
            live.runner = asyncio.ensure_future(self._drive(entry, kwargs, ex, live))
            return _created(live.record)
        return await self._call_until_started(entry, kwargs, ex)

    async def _call_until_started(self, entry: ToolEntry, kwargs: dict[str, Any],
                                  ex: Exchange) -> dict[str, Any]:
        """Run the tool as the call until it calls ``ctx.start_task()``: its result, its
        questions (an input-required round) and its errors are the call's own until then."""
        start = _Start(asyncio.get_running_loop().create_future())

        async def start_task() -> None:
            if start.started.done():
                return
            live = await self._create(ex, entry)
            live.runner = runner
            start.started.set_result(live)

        ex.start_task = start_task
        runner = asyncio.ensure_future(self._drive(entry, kwargs, ex, None, start))
        try:
            await asyncio.wait((runner, start.started), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            if not start.started.done():
                runner.cancel()  # the caller left before the task existed
            raise
        if start.started.done():
            return _created(start.started.result().record)
        return runner.result()

    async def _create(self, ex: Exchange, entry: ToolEntry) -> _Live:
        owner = principal_key(ex.principal)
        if self._running[owner] >= self.config.max_running_tasks_per_principal:
            raise InvalidRequest("Too many running tasks: wait for one to finish",
                                 http_status=429)
        now = time.time()
        record = TaskRecord(secrets.token_urlsafe(24), owner, now, self.config.task_ttl_ms,
                            self.config.task_poll_interval_ms, scopes=tuple(entry.scopes))
        live = _Live(record, ex)
        # Durable before the handle goes out: an immediate tasks/get must find it.
        await self.store.save(record)
        self._live[record.task_id] = live
        self._running[owner] += 1
        ex.task_id = record.task_id
        ex.inputs = lambda questions: self._ask(live, questions)
        ex.send = lambda message: self._from_tool(live, message)
        ex.close_stream = None  # the call's stream has ended: nothing to close
        self._announce(live)
        return live

    async def _drive(self, entry: ToolEntry, kwargs: dict[str, Any], ex: Exchange,
                     live: _Live | None, start: _Start | None = None) -> dict[str, Any]:
        """Run the tool; once its task exists, settle the task with the outcome."""
        try:
            body = await self._run(entry, kwargs, ex)
        except asyncio.CancelledError:
            live = live or _started(start)
            if live is None:
                raise
            if self._stopping:
                await self._settle(live, "failed", error=InternalError(
                    "The server stopped before the task ended").to_error())
            else:
                await self._settle(live, "cancelled")
            return {}
        except BaseException as exc:
            live = live or _started(start)
            if live is None:
                raise  # before the task: the call answers it (input required, an error)
            if isinstance(exc, ProtocolError):
                await self._settle(live, "failed", error=exc.to_error())
            elif isinstance(exc, Exception):
                log.error("task of tool %r raised", entry.name, exc_info=exc)
                await self._settle(live, "failed", error=InternalError(
                    f"Tool {entry.name!r} failed with an internal error").to_error())
            else:
                await self._settle(live, "failed", error=InternalError(
                    f"Tool {entry.name!r} stopped").to_error())
                raise
            return {}
        live = live or _started(start)
        if live is not None:
            await self._settle(live, "completed", result=body)
        return body

    async def _settle(self, live: _Live, status: TaskStatus, *,
                      result: dict[str, Any] | None = None,
                      error: dict[str, Any] | None = None) -> None:
        """End a task (once: a cancelled task stays cancelled)."""
        if self._live.pop(live.record.task_id, None) is None:
            return
        self._running[live.record.owner] -= 1
        if self._running[live.record.owner] <= 0:
            del self._running[live.record.owner]
        for pending in live.answers.values():
            pending.cancel()
        record = live.record
        record.result, record.error = result, error
        if error is not None:
            record.status_message = str(error.get("message", "failed"))
        record.input_requests = {}
        record.touch(status)
        await self.store.save(record)
        self._announce(live)

    def stop(self) -> list[asyncio.Task[Any]]:
        """Shutdown: stop every running task; each ends ``failed`` (the server stopped).
        Gives the runners, to await until they have saved that."""
        self._stopping = True
        runners = [live.runner for live in self._live.values() if live.runner is not None]
        for runner in runners:
            runner.cancel()
        return runners

    # ------------------------------------------------------------------ inside the task

    async def _ask(self, live: _Live, questions: Questions) -> list[Any]:
        """A task's questions become its ``inputRequests``; wait for ``tasks/update``."""
        loop = asyncio.get_running_loop()
        waiting: list[asyncio.Future[Any]] = []
        for key, method, params in questions:
            if key is None:
                key = f"r{live.index}"
                live.index += 1
            base, n = key, 1
            while key in live.used:  # a key asked again (a loop): a new key each time
                n += 1
                key = f"{base}.{n}"
            live.used.add(key)
            live.answers[key] = loop.create_future()
            live.record.input_requests[key] = {"method": method, "params": params}
            waiting.append(live.answers[key])
        live.record.touch("input_required")
        await self.store.save(live.record)
        self._announce(live)
        return list(await asyncio.gather(*waiting))

    async def _from_tool(self, live: _Live, message: dict[str, Any]) -> None:
        """What a task's tool sends: its progress message becomes the statusMessage; the
        rest has no stream left to go to."""
        params = message.get("params") or {}
        text = params.get("message") if message.get("method") == "notifications/progress" \
            else None
        if isinstance(text, str) and text != live.record.status_message \
                and live.record.task_id in self._live:
            live.record.status_message = text
            live.record.touch()
            await self.store.save(live.record)

    def _announce(self, live: _Live) -> None:
        """Push the new state to the listen streams that asked for it (their filters hold
        only their owner's task ids) and to the creating handshake-era session."""
        task = live.record.detailed()
        for listener in self.listeners:
            listener.task_status(live.record.task_id, task)
        if live.ex.session.id is not None:
            live.ex.session.deliver(dumps(notification(STATUS_NOTIFICATION, task)))

    def listen_ids(self, wanted: list[Any], caps: Any, principal: Any) -> list[str]:
        """The task ids of a ``subscriptions/listen`` filter to honour: the caller's own
        running tasks (an ended one has nothing more to say); -32021 without the
        extension."""
        extensions = caps.get("extensions") if isinstance(caps, dict) else None
        if not isinstance(extensions, dict) or EXTENSION not in extensions:
            raise missing_extension("Task status notifications")
        owner = principal_key(principal)
        honoured = []
        for task_id in wanted:
            live = self._live.get(task_id) if isinstance(task_id, str) else None
            if live is not None and secrets.compare_digest(live.record.owner, owner):
                honoured.append(task_id)
        return honoured

    # ------------------------------------------------------------------ tasks/* methods

    async def _find(self, params: dict[str, Any], ex: Exchange, method: str) -> TaskRecord:
        if not self._offered():
            raise MethodNotFound("Method not found", method, http_status=404)
        if not negotiated(ex):
            raise missing_extension(method)
        task_id = params.get("taskId")
        if not isinstance(task_id, str) or not task_id:
            raise InvalidParams("Missing task 'taskId'", {"argument": "taskId"})
        live = self._live.get(task_id)
        record = live.record if live is not None else await self.store.load(task_id)
        # Another caller's task is as unknown as one that never existed.
        if record is None or not secrets.compare_digest(record.owner,
                                                         principal_key(ex.principal)):
            raise InvalidParams(f"Unknown task: {task_id}", {"taskId": task_id})
        check = self.check_scopes
        refused = check(ex.principal, record.scopes) if check and record.scopes else None
        if refused is not None:
            # As the tool's own call would be refused (e.g. 403 insufficient_scope).
            raise AuthRequired(refused.message, {
                **(refused.data or {}), "status": refused.status,
                "www_authenticate": refused.www_authenticate}, http_status=refused.status)
        return record

    async def get(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        record = await self._find(params, ex, "tasks/get")
        return {**record.detailed(), "resultType": "complete"}

    async def update(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        """Answers to some or all of a task's questions; unknown keys are ignored."""
        record = await self._find(params, ex, "tasks/update")
        responses = params.get("inputResponses")
        if not isinstance(responses, dict):
            raise InvalidParams("inputResponses must be an object",
                                {"argument": "inputResponses"}, http_status=400)
        live = self._live.get(record.task_id)
        if live is None:
            return {"resultType": "complete"}  # nothing waits for answers any more
        asked = live.record.input_requests
        answered = {key: check_answer(key, str(asked[key]["method"]), value)
                    for key, value in responses.items() if key in asked}
        if answered:
            for key, value in answered.items():
                del asked[key]
                pending = live.answers.pop(key)
                if not pending.done():
                    pending.set_result(value)
            live.record.touch("input_required" if asked else "working")
            await self.store.save(live.record)
            self._announce(live)
        return {"resultType": "complete"}

    async def cancel(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        """Stop a running task (it ends ``cancelled``); an ended one is left as it is."""
        record = await self._find(params, ex, "tasks/cancel")
        live = self._live.get(record.task_id)
        if live is not None:
            await self._settle(live, "cancelled")
            if live.runner is not None:
                live.runner.cancel()
        return {"resultType": "complete"}


def _created(record: TaskRecord) -> dict[str, Any]:
    return {**record.handle(), "resultType": "task"}


def _started(start: _Start | None) -> _Live | None:
    if start is None or not start.started.done() or start.started.cancelled():
        return None
    return start.started.result()

