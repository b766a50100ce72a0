"""``Context``: what a tool may ask of the client while it runs.

Annotate a parameter with ``Context`` to receive one; it never appears in the input
schema. The same calls work in every protocol era: in the handshake era elicitation and
sampling are server-to-client requests on the call's stream.
"""

from __future__ import annotations

from typing import Any

from ._errors import MissingCapability, ToolError
from .protocol.exchange import Exchange
from .protocol.versions import LOG_LEVELS


class Ask:
    """One question for the client, for ``Context.ask`` (several in one round).

    ``Ask.elicit(message, schema)``, ``Ask.sample(messages, max_tokens=...)`` and
    ``Ask.roots()``; ``key`` names it in a 2026-07-28 ``inputRequests`` map.
    """

    __slots__ = ("capability", "empty", "key", "method", "params")

    def __init__(self, method: str, params: dict[str, Any], capability: str,
                 key: str | None = None, empty: dict[str, Any] | None = None) -> None:
        self.method = method
        self.params = params
        self.capability = capability
        self.key = key
        self.empty = empty or {}  # the answer when the client sent none usable

    @classmethod
    def elicit(cls, message: str, requested_schema: dict[str, Any], *,
               key: str | None = None) -> Ask:
        return cls("elicitation/create",
                   {"message": message, "requestedSchema": requested_schema},
                   "elicitation", key, {"action": "cancel"})

    @classmethod
    def sample(cls, messages: list[dict[str, Any]] | str, *, max_tokens: int = 512,
               system_prompt: str | None = None, key: str | None = None,
               **extra: Any) -> Ask:
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        params: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens, **extra}
        if system_prompt is not None:
            params["systemPrompt"] = system_prompt
        return cls("sampling/createMessage", params, "sampling", key)

    @classmethod
    def roots(cls, *, key: str | None = None) -> Ask:
        return cls("roots/list", {}, "roots", key, {"roots": []})


class Context:
    __slots__ = ("_exchange",)

    def __init__(self, exchange: Exchange) -> None:
        self._exchange = exchange

    @property
    def principal(self) -> Any:
        """What the server's authentication hook returned for this request (or None)."""
        return self._exchange.principal

    @property
    def request_id(self) -> Any:
        return self._exchange.request_id

    @property
    def session_id(self) -> str | None:
        return self._exchange.session.id

    @property
    def client_capabilities(self) -> dict[str, Any]:
        return self._exchange.session.client_capabilities

    @property
    def meta(self) -> dict[str, Any]:
        """The request's ``params._meta``."""
        return self._exchange.meta

    async def report_progress(self, progress: float, total: float | None = None,
                              message: str | None = None) -> None:
        """Send a progress notification, if the client asked for progress on this request."""
        token = self._exchange.progress_token
        if token is None:
            return
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._exchange.notify("notifications/progress", params)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send a log message to the client at ``level`` (filtered by its chosen level)."""
        rank = LOG_LEVELS.get(level)
        if rank is None:
            raise ValueError(f"unknown log level {level!r}; use one of {list(LOG_LEVELS)}")
        wanted = self._exchange.session.log_level
        if wanted is not None and rank < wanted:
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._exchange.notify("notifications/message", params)

    async def debug(self, data: Any) -> None:
        await self.log("debug", data)

    async def info(self, data: Any) -> None:
        await self.log("info", data)

    async def warning(self, data: Any) -> None:
        await self.log("warning", data)

    async def error(self, data: Any) -> None:
        await self.log("error", data)

    async def elicit(self, message: str, requested_schema: dict[str, Any], *,
                     key: str | None = None) -> dict[str, Any]:
        """Ask the person for input.

        Returns ``{"action": "accept" | "decline" | "cancel", "content": {...}}``. ``key``
        names the question in a 2026-07-28 ``inputRequests`` map (default ``r0``, ``r1``, ...
        in call order).
        """
        return (await self.ask(Ask.elicit(message, requested_schema, key=key)))[0]

    async def sample(self, messages: list[dict[str, Any]] | str, *, max_tokens: int = 512,
                     system_prompt: str | None = None, key: str | None = None,
                     **extra: Any) -> dict[str, Any]:
        """Ask the client's model for a completion (``sampling/createMessage``)."""
        return (await self.ask(Ask.sample(messages, max_tokens=max_tokens,
                                          system_prompt=system_prompt, key=key, **extra)))[0]

    async def list_roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        """The client's roots (``roots/list``): ``[{"uri": ..., "name": ...}, ...]``."""
        roots = (await self.ask(Ask.roots(key=key)))[0].get("roots")
        return [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []

    async def ask(self, *questions: Ask) -> list[dict[str, Any]]:
        """Ask the client several questions at once; their answers, in order.

        In the 2026-07-28 era they make one ``input_required`` round (so the client can
        answer them together); in the handshake era they are sent one after another.
        Every capability they need must have been declared by the client.
        """
        for question in questions:
            self._require(question.capability)
        answers = await self._exchange.ask([(q.key, q.method, q.params) for q in questions])
        return [a if isinstance(a, dict) else dict(q.empty)
                for q, a in zip(questions, answers, strict=True)]

    @property
    def task_id(self) -> str | None:
        """The id of the task this call runs as (tasks extension), or None."""
        return self._exchange.task_id

    async def start_task(self) -> None:
        """Go on as a task: the caller gets its handle now and polls for the outcome.

        For a tool declared ``@tool(task=..., task_start="tool")``: what it asked before
        was asked within the call (input-required rounds, or requests on the call's
        stream); what it asks afterwards waits in the task for ``tasks/update``. Does
        nothing when the call cannot become a task (the client lacks the extension) or
        already is one.
        """
        if self._exchange.start_task is not None and self._exchange.task_id is None:
            await self._exchange.start_task()

    async def close_sse_stream(self) -> None:
        """End this call's SSE response now; the client resumes it with ``Last-Event-ID``.

        What the tool sends afterwards, its result included, is kept in the session's
        event store and replayed on the client's resumed stream. Without a resumable
        stream (stateless mode, a JSON-only client) this does nothing.
        """
        if self._exchange.close_stream is not None:
            await self._exchange.close_stream()

    def _require(self, capability: str) -> None:
        if capability in self._exchange.session.client_capabilities:
            return
        if self._exchange.era == "current":
            raise MissingCapability(f"This request needs the client capability {capability!r}",
                                    {"requiredCapabilities": {capability: {}}})
        raise ToolError(f"The client does not support {capability}")
