"""The methods both protocol eras share: listing, calling, reading, prompting, completing.

Handlers take the request's ``params`` and its ``Exchange`` and return the result
object (a dict); they raise ``ProtocolError`` subclasses for JSON-RPC errors. No I/O
happens here except through the exchange.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextvars
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from types import CoroutineType
from typing import TYPE_CHECKING, Any

import orjson

from .._content import EmbeddedResource, Message
from .._errors import InvalidParams, McpcastError, ProtocolError, ToolError
from .._registry import Entry, Registry, ToolEntry
from ..tasks import MemoryTaskStore, TaskStore
from ..tracing import NO_SPAN
from ._eager import Later, first_step, resume
from .deadlines import Watchdog
from .exchange import Exchange
from .roundtrip import InputRequired
from .tasks import TaskEngine, missing_extension, negotiated

if TYPE_CHECKING:
    from .._config import ServerConfig
    from ..tracing import SpanHandle, Tracing

log = logging.getLogger("mcpcast")

Handler = Callable[[dict[str, Any], Exchange], Awaitable[dict[str, Any]]]
# An injector gives the value of one injected parameter. It may return a coroutine
# (the value needs I/O, e.g. a caller re-checked on a long-lived connection): it is
# awaited before the call; what it raises is the call's error, like the tool's own.
# An injector gives the value, or a coroutine (what an ``async def`` returns) that gives it,
# which is awaited before the tool runs. Told apart by exact type (``type(v) is
# CoroutineType``): free, where ``asyncio.iscoroutine`` pays an ABC check per call.
Injector = Callable[[Exchange, dict[str, Any]], Any]
# observe(tool name, outcome, seconds, principal): told of every tools/call as it starts
# (outcome "started", 0 s) and as it ends (Server(observe_tool=...)). The principal is
# the authentication hook's (None when anonymous), so a server can tell its caller.
ToolObserver = Callable[[str, str, float, Any], None]
# A FromPrincipal's function: (principal, arguments by wire name) -> value or coroutine.
Given = Callable[[Any, dict[str, Any]], Any]


class FromPrincipal:
    """An injector that needs only the request's principal and the arguments (by wire
    name), never its ``Exchange``: ``FromPrincipal(lambda principal, args: ...)``.

    A tool whose injected parameters all come from such injectors still takes the short
    path of a plain call (no exchange, session or streaming responder): the transport
    hands the principal the entry point resolved. The function may return a coroutine
    (e.g. a caller re-checked on a long-lived connection); it is awaited before the call
    on either path, as any ``Injector``'s is. On the general path it is an ordinary
    ``Injector``.
    """

    __slots__ = ("func",)

    def __init__(self, func: Given) -> None:
        self.func = func

    def __call__(self, ex: Exchange, args: dict[str, Any]) -> Any:
        return self.func(ex.principal, args)


def _page(items: Sequence[dict[str, Any]], params: dict[str, Any], size: int,
          key: str) -> dict[str, Any]:
    """Cursor pagination: the cursor is an opaque base64 offset."""
    cursor = params.get("cursor")
    start = 0
    if cursor is not None:
        try:
            start = int(base64.urlsafe_b64decode(str(cursor).encode()).decode())
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise InvalidParams("Invalid cursor", {"cursor": cursor}) from None
        if start < 0 or start > len(items):
            raise InvalidParams("Invalid cursor", {"cursor": cursor})
    end = start + size
    result: dict[str, Any] = {key: list(items[start:end])}
    if end < len(items):
        result["nextCursor"] = base64.urlsafe_b64encode(str(end).encode()).decode()
    return result


def _name(params: dict[str, Any], key: str, what: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidParams(f"Missing {what} {key!r}", {"argument": key})
    return value


class Methods:
    """The shared method table, bound to one server's registry and configuration."""

    def __init__(self, registry: Registry, config: ServerConfig, tracing: Tracing,
                 injectors: dict[type, Injector], task_store: TaskStore | None = None) -> None:
        self.registry = registry
        self.config = config
        self.tracing = tracing
        self.injectors = injectors
        self.watchdog = Watchdog(config.tool_timeout)
        self.task_watchdog = Watchdog(config.task_timeout)
        self.tasks = TaskEngine(task_store or MemoryTaskStore(), config, self._run_task_tool,
                                lambda: registry.has_tasks)
        # Told of every tools/call on either path (e.g. metrics); set by the Server.
        self.observe: ToolObserver | None = None
        # Moves when the injector table changes: each tool's short-path verdict is remade.
        self.generation = 0
        self.table: dict[str, Handler] = {
            "tools/list": self.list_tools,
            "tools/call": self.call_tool,
            "resources/list": self.list_resources,
            "resources/templates/list": self.list_templates,
            "resources/read": self.read_resource,
            "prompts/list": self.list_prompts,
            "prompts/get": self.get_prompt,
            "completion/complete": self.complete,
            **self.tasks.table,
        }

    # ------------------------------------------------------------------ listing

    async def list_tools(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        items = [t.listing for t in self.registry.tools.values()]
        return _page(items, params, self.config.page_size, "tools")

    async def list_resources(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        items = [r.listing for r in self.registry.resources.values()]
        return _page(items, params, self.config.page_size, "resources")

    async def list_templates(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        items = [r.listing for r in self.registry.templates.values()]
        return _page(items, params, self.config.page_size, "resourceTemplates")

    async def list_prompts(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        items = [p.listing for p in self.registry.prompts.values()]
        return _page(items, params, self.config.page_size, "prompts")

    # ------------------------------------------------------------------ invoking

    async def invoke(self, entry: Entry, kwargs: dict[str, Any], ex: Exchange,
                     watchdog: Watchdog | None = None) -> Any:
        if entry.signature.injected:
            # Injectors see the arguments by their wire names (a Broadcaster needs `topic`).
            wire = {w: kwargs[p] for w, p in entry.signature.wire_names.items() if p in kwargs}
            for pname, typ in entry.signature.injected.items():
                value = self._inject(typ, ex, wire)
                kwargs[pname] = await value if type(value) is CoroutineType else value
        if entry.is_async:
            coro = entry.func(**kwargs)
        elif self._threaded(entry):
            coro = self._in_thread(entry, kwargs)
        else:
            return self._inline(entry, kwargs)
        return await (watchdog or self.watchdog).run(coro)

    def _threaded(self, entry: Entry) -> bool:
        """Must this sync method run in a worker thread (see ``ServerConfig``)?"""
        return self.config.sync_tools_in_thread and (
            not entry.inline or self.config.inline_sync_budget <= 0)

    @staticmethod
    def _in_thread(entry: Entry, kwargs: dict[str, Any]) -> Awaitable[Any]:
        call = functools.partial(contextvars.copy_context().run, entry.func, **kwargs)
        return asyncio.get_running_loop().run_in_executor(None, call)

    def _inline(self, entry: Entry, kwargs: dict[str, Any]) -> Any:
        """Run a sync method on the loop; one that overran its budget twice goes to a
        thread from its next call on (said once in the log). Twice, not once: a short
        tool can overrun once by bad luck (a GC pass, the process descheduled)."""
        if not self.config.sync_tools_in_thread:
            return entry.func(**kwargs)
        start = time.perf_counter()
        try:
            return entry.func(**kwargs)
        finally:
            took = time.perf_counter() - start
            if took > self.config.inline_sync_budget:
                entry.overruns += 1
                entry.inline = entry.overruns < 2
                if not entry.inline:
                    log.warning("sync %r took %.1f ms on the event loop; it runs in a "
                                "worker thread from now on", entry.name, took * 1000)

    def _inject(self, typ: type, ex: Exchange, kwargs: dict[str, Any]) -> Any:
        injector = self._injector(typ)
        if injector is None:
            raise McpcastError(f"nothing can be injected for {typ.__name__}")
        return injector(ex, kwargs)

    def _injector(self, typ: type) -> Injector | None:
        for base in typ.__mro__:
            injector = self.injectors.get(base)
            if injector is not None:
                return injector
        return None

    def _span(self, kind: str, label: str, arguments: Any,
              ex: Exchange) -> AbstractContextManager[SpanHandle]:
        count = len(arguments) if isinstance(arguments, dict) else 0
        return self.tracing.span(kind, label, count, request_id=ex.request_id,
                                 session_id=ex.session.id, version=ex.session.version,
                                 carrier=ex.trace_carrier)

    async def _run_plain(self, kind: str, label: str, entry: Entry, arguments: Any,
                         ex: Exchange, where: dict[str, str]) -> Any:
        """Run a resource or prompt method; its ToolError is the client's -32602."""
        with self._span(kind, label, arguments, ex) as span:
            kwargs = entry.signature.bind(arguments)
            try:
                return await self.invoke(entry, kwargs, ex)
            except ToolError as exc:
                span.failed("tool_error")
                raise InvalidParams(exc.message, where) from None

    async def call_tool(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        name = _name(params, "name", "tool")
        entry = self.registry.tools.get(name)
        if entry is None:
            raise InvalidParams(f"Unknown tool: {name}", {"name": name})
        arguments = params.get("arguments")
        if self.observe is not None:
            return await self._observed_call(entry, arguments, ex)
        return await self._traced_call(entry, arguments, ex)

    async def _traced_call(self, entry: ToolEntry, arguments: Any, ex: Exchange
                           ) -> dict[str, Any]:
        if self.tracing.tracer() is None:  # no span machinery at all when tracing is off
            return await self._call_tool(entry, arguments, ex, NO_SPAN)
        with self._span("tool", entry.name, arguments, ex) as span:
            return await self._call_tool(entry, arguments, ex, span)

    async def _observed_call(self, entry: ToolEntry, arguments: Any, ex: Exchange
                             ) -> dict[str, Any]:
        """A call reported to the observer (``_observed``)."""
        principal = ex.principal
        start = self._starting(entry.name, principal)
        outcome = "rejected"
        try:
            result = await self._traced_call(entry, arguments, ex)
            outcome = _outcome(result)
            return result
        finally:
            self._observed(entry.name, outcome, start, principal)

    def _starting(self, name: str, principal: Any) -> float:
        """The one place a starting ``tools/call`` is told to the observer (outcome
        "started"); the clock's start for ``_observed``."""
        observe = self.observe
        if observe is not None:
            observe(name, "started", 0.0, principal)
        return time.perf_counter()

    def _observed(self, name: str, outcome: str, start: float, principal: Any) -> None:
        """The one place a finished ``tools/call`` is told to ``observe(tool, outcome,
        seconds, principal)``, on either path: "ok", "error" (an ``isError`` result) or
        "rejected" (a protocol error, e.g. invalid arguments)."""
        observe = self.observe
        if observe is not None:
            observe(name, outcome, time.perf_counter() - start, principal)

    def plain_tool(self, params: dict[str, Any]) -> ToolEntry | None:
        """The tool of a ``tools/call`` that needs no ``Exchange``, else None.

        Plain: a tool that runs no task and whose injected parameters (if any) all come
        from ``FromPrincipal`` injectors, called while tracing is off. It can say nothing
        before its result, so the transports may answer it without a session, an
        exchange or a streaming responder (the hot path), handing ``call_plain`` the
        request's principal. The observer hears of it as of any other call.
        """
        name = params.get("name")
        entry = self.registry.tools.get(name) if type(name) is str else None
        if entry is None or self.tracing.tracer() is not None:
            return None
        if entry.judged != self.generation:
            entry.short = self._judge(entry)
            entry.judged = self.generation
        return None if entry.short is None else entry

    def _judge(self, entry: ToolEntry) -> tuple[tuple[str, Given], ...] | None:
        """The short-path verdict for ``entry`` (see ``ToolEntry.short``)."""
        if entry.task != "forbidden":
            return None  # a task outlives the request: it needs the exchange
        found: list[tuple[str, Given]] = []
        for pname, typ in entry.signature.injected.items():
            injector = self._injector(typ)
            if not isinstance(injector, FromPrincipal):
                return None
            found.append((pname, injector.func))
        return tuple(found)

    def call_plain(self, entry: ToolEntry, arguments: Any, principal: Any = None
                   ) -> dict[str, Any] | Later[dict[str, Any]]:
        """``tools/call`` of a ``plain_tool``: what ``call_tool`` answers, minus the exchange
        (both run the tool with ``_run_tool``; this path only skips the exchange).

        Synchronous first: a tool that finishes without waiting (most do) gives its result
        at once, with no coroutine around it; one that waits gives a coroutine that ends
        the call under the tool deadline. Invalid arguments raise ``InvalidParams``.
        ``principal`` is the caller the entry point resolved, for the injectors (the
        short path's whole difference: they read only the principal).
        """
        if self.observe is None:
            return self._run_tool(entry, entry.signature.bind(arguments), principal,
                                  entry.short or (), NO_SPAN, self.watchdog)
        start = self._starting(entry.name, principal)  # one clock pair per observed call
        try:
            answer = self._run_tool(entry, entry.signature.bind(arguments), principal,
                                    entry.short or (), NO_SPAN, self.watchdog)
        except BaseException:
            self._observed(entry.name, "rejected", start, principal)
            raise
        if isinstance(answer, dict):
            self._observed(entry.name, _outcome(answer), start, principal)
            return answer
        return self._observe_later(entry.name, answer, start, principal)

    async def _observe_later(self, name: str, answer: Later[dict[str, Any]], start: float,
                             principal: Any) -> dict[str, Any]:
        outcome = "rejected"
        try:
            result = await answer
            outcome = _outcome(result)
            return result
        finally:
            self._observed(name, outcome, start, principal)

    async def _call_tool(self, entry: ToolEntry, arguments: Any, ex: Exchange,
                         span: SpanHandle) -> dict[str, Any]:
        kwargs = entry.signature.bind(arguments)
        watchdog = self.watchdog
        if entry.task != "forbidden":
            if negotiated(ex):
                return await self.tasks.call(entry, kwargs, ex)
            if entry.task == "required":
                raise missing_extension(f"Tool {entry.name!r}")
            watchdog = self.task_watchdog  # an ordinary call of a long-running tool
        given = tuple((pname, functools.partial(self._inject, typ))
                      for pname, typ in entry.signature.injected.items())
        answer = self._run_tool(entry, kwargs, ex, given, span, watchdog)
        return answer if isinstance(answer, dict) else await answer

    def _run_tool(self, entry: ToolEntry, kwargs: dict[str, Any], subject: Any,
                  given: Sequence[tuple[str, Given]], span: SpanHandle, watchdog: Watchdog
                  ) -> dict[str, Any] | Later[dict[str, Any]]:
        """The one run of a ``tools/call``, on either path: each injected value
        (``give(subject, arguments by wire name)``; ``subject`` is the principal on the
        short path, the exchange on the general one), then the tool. Synchronous first:
        a tool that finishes without waiting (most do) gives its result at once, with no
        coroutine around it; one that waits gives a coroutine that ends the call under
        ``watchdog``. A tool's failure is the ``isError`` result (``_tool_failed``)."""
        if given:
            # Injectors see the arguments by their wire names (a Broadcaster needs `topic`).
            wire = {w: kwargs[p] for w, p in entry.signature.wire_names.items() if p in kwargs}
            for index, (pname, give) in enumerate(given):
                try:
                    value = give(subject, wire)
                except Exception as exc:
                    return self._tool_failed(entry, exc, span)
                if type(value) is CoroutineType:  # needs I/O: the rest after awaiting it
                    return self._run_after(entry, kwargs, wire, subject, given[index:],
                                           value, span, watchdog)
                kwargs[pname] = value
        if not entry.is_async:
            if self._threaded(entry):
                return self._finish(entry, self._in_thread(entry, kwargs), span, watchdog)
            try:
                value = self._inline(entry, kwargs)
            except Exception as exc:
                return self._tool_failed(entry, exc, span)
            return _tool_result(entry, value)
        try:
            done, value = first_step(entry.func(**kwargs))
        except Exception as exc:
            return self._tool_failed(entry, exc, span)
        if done:
            return _tool_result(entry, value)
        return self._finish(entry, resume(value), span, watchdog)

    async def _finish(self, entry: ToolEntry, running: Awaitable[Any], span: SpanHandle,
                      watchdog: Watchdog) -> dict[str, Any]:
        try:
            value = await watchdog.run(running)
        except Exception as exc:
            return self._tool_failed(entry, exc, span)
        return _tool_result(entry, value)

    async def _run_after(self, entry: ToolEntry, kwargs: dict[str, Any],
                         wire: dict[str, Any], subject: Any,
                         given: Sequence[tuple[str, Given]], pending: Awaitable[Any],
                         span: SpanHandle, watchdog: Watchdog) -> dict[str, Any]:
        """A call whose injector ``given[0]`` gave a coroutine (``pending``): the
        injections from there on awaited in order, then the tool."""
        try:
            kwargs[given[0][0]] = await pending
            for pname, give in given[1:]:
                value = give(subject, wire)
                kwargs[pname] = await value if type(value) is CoroutineType else value
            if entry.is_async:
                value = await watchdog.run(entry.func(**kwargs))
            elif self._threaded(entry):
                value = await watchdog.run(self._in_thread(entry, kwargs))
            else:
                value = self._inline(entry, kwargs)
        except Exception as exc:
            return self._tool_failed(entry, exc, span)
        return _tool_result(entry, value)

    async def _run_task_tool(self, entry: ToolEntry, kwargs: dict[str, Any], ex: Exchange
                             ) -> dict[str, Any]:
        """A task's run, under ``task_timeout``: its result, ``isError`` for a tool error
        or timeout; protocol errors, input requests and crashes go on up (the task ends
        ``failed`` on them)."""
        try:
            value = await self.invoke(entry, dict(kwargs), ex, self.task_watchdog)
        except ToolError as exc:
            return {"content": [{"type": "text", "text": exc.message}], "isError": True}
        except TimeoutError:
            return _tool_failure(
                f"Tool {entry.name!r} timed out after {self.config.task_timeout:g} s")
        return _tool_result(entry, value)

    def _tool_failed(self, entry: ToolEntry, exc: Exception, span: SpanHandle
                     ) -> dict[str, Any]:
        """A tool's failure as the ``isError`` result the model reads (protocol errors and
        input requests go on up)."""
        name = entry.name
        if isinstance(exc, ToolError):
            span.failed("tool_error")
            return {"content": [{"type": "text", "text": exc.message}], "isError": True}
        if isinstance(exc, TimeoutError):
            span.failed("timeout")
            limit = self.config.tool_timeout
            return _tool_failure(f"Tool {name!r} timed out after {limit:g} s")
        if isinstance(exc, ProtocolError | InputRequired):
            raise exc
        expected = self.config.expected_failure
        message = expected(exc) if expected is not None else None
        if message is not None:
            span.failed("expected")
            log.warning("tool %r failed: %s (%s)", name, message, type(exc).__name__)
            return _tool_failure(message)
        span.failed("exception")
        log.error("tool %r raised", name, exc_info=exc)
        return _tool_failure(f"Tool {name!r} failed with an internal error")

    async def read_resource(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        uri = _name(params, "uri", "resource")
        entry = self.registry.resources.get(uri)
        variables: dict[str, str] = {}
        if entry is None:
            for candidate in self.registry.templates.values():
                assert candidate.template is not None
                found = candidate.template.match(uri)
                if found is not None:
                    entry, variables = candidate, found
                    break
        if entry is None:
            raise InvalidParams(f"Resource not found: {uri}", {"uri": uri})
        value = await self._run_plain("resource", uri, entry, variables, ex, {"uri": uri})
        return {"contents": _resource_contents(uri, entry.mime_type, value)}

    async def get_prompt(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        name = _name(params, "name", "prompt")
        entry = self.registry.prompts.get(name)
        if entry is None:
            raise InvalidParams(f"Unknown prompt: {name}", {"name": name})
        value = await self._run_plain("prompt", name, entry, params.get("arguments"), ex,
                                      {"name": name})
        if isinstance(value, str | Message):
            value = [value]
        messages = [m.to_wire() if isinstance(m, Message) else Message.user(str(m)).to_wire()
                    for m in value]
        result: dict[str, Any] = {"messages": messages}
        if entry.description:
            result["description"] = entry.description
        return result

    async def complete(self, params: dict[str, Any], ex: Exchange) -> dict[str, Any]:
        ref = params.get("ref")
        argument = params.get("argument")
        if not isinstance(ref, dict) or not isinstance(argument, dict):
            raise InvalidParams("completion/complete needs 'ref' and 'argument' objects")
        arg_name, value = argument.get("name"), argument.get("value", "")
        if not isinstance(arg_name, str) or not isinstance(value, str):
            raise InvalidParams("argument needs a string 'name' and 'value'")
        if ref.get("type") == "ref/prompt":
            key = _name(ref, "name", "prompt")
            target: Entry | None = self.registry.prompts.get(key)
        elif ref.get("type") == "ref/resource":
            key = _name(ref, "uri", "resource")
            target = self.registry.templates.get(key) or self.registry.resources.get(key)
        else:
            raise InvalidParams("ref.type must be 'ref/prompt' or 'ref/resource'")
        if target is None:
            raise InvalidParams(f"Unknown completion target: {key}", {"ref": key})
        context = params.get("context")
        context_args = context.get("arguments") if isinstance(context, dict) else None
        values = await self._suggest(key, target, arg_name, value, context_args or {}, ex)
        return {"completion": {"values": values[:100], "total": len(values),
                               "hasMore": len(values) > 100}}

    async def _suggest(self, key: str, target: Entry, arg_name: str, value: str,
                       context_args: dict[str, Any], ex: Exchange) -> list[str]:
        custom = self.registry.completions.get((key, arg_name))
        if custom is not None:
            call_args: dict[str, Any] = {"value": value}
            if "context" in custom.signature.wire_names:
                call_args["context"] = context_args
            kwargs = custom.signature.bind(call_args)
            if custom.is_async:
                found = await custom.func(**kwargs)
            else:
                found = custom.func(**kwargs)
            return [str(v) for v in found]
        # Without a completer, offer the argument's enum values that start with the input.
        schema = target.signature.input_schema.get("properties", {}).get(arg_name, {})
        choices = schema.get("enum", [])
        return [str(c) for c in choices if str(c).startswith(value)]


def _outcome(result: dict[str, Any]) -> str:
    return "error" if result.get("isError") else "ok"


def _tool_result(entry: ToolEntry, value: Any) -> dict[str, Any]:
    content, structured = entry.signature.render(value)
    result: dict[str, Any] = {"content": content, "isError": False}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def _tool_failure(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _resource_contents(uri: str, mime_type: str | None, value: Any) -> list[dict[str, Any]]:
    items = value if isinstance(value, list) else [value]
    contents: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, EmbeddedResource):
            contents.append(item.to_block()["resource"])
            continue
        entry: dict[str, Any] = {"uri": uri}
        if isinstance(item, bytes | bytearray):
            entry["mimeType"] = mime_type or "application/octet-stream"
            entry["blob"] = base64.b64encode(item).decode()
        elif isinstance(item, str):
            if mime_type:
                entry["mimeType"] = mime_type
            entry["text"] = item
        else:
            entry["mimeType"] = mime_type or "application/json"
            entry["text"] = orjson.dumps(item, default=str).decode()
        contents.append(entry)
    return contents
