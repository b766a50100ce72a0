"""``Server``: one decorated class instance, served. The framework instance tools may ask for."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import TracerProvider

from ._asgi import Entry
from ._auth import Authenticate, CheckScopes, Gate, Identify
from ._config import ServerConfig
from ._errors import InvalidParams, Unauthorized
from ._jsonrpc import dumps, notification
from ._registry import PromptDecl, Registry, ToolDecl, collect
from .broadcast import Broadcaster, BroadcasterFactory, StreamingSession
from .context import Context
from .protocol.current import CurrentProtocol
from .protocol.dispatch import FromPrincipal, Injector, Methods, ToolObserver
from .protocol.exchange import Exchange, PendingRequests
from .protocol.legacy import LegacyProtocol
from .protocol.listeners import Listener
from .protocol.roundtrip import MemoryReplayGuard, ReplayGuard, StateCodec
from .protocol.session import SessionStore
from .tasks import TaskStore
from .tracing import Tracing

if TYPE_CHECKING:
    from .transports._http import Receive, Scope, Send
    from .transports.subscribe import Authorize


def _topic(open_topic: Callable[[str], Any], args: dict[str, Any]) -> Any:
    try:
        return open_topic(str(args["topic"]))
    except ValueError as exc:  # an invalid topic name
        raise InvalidParams(f"Invalid argument 'topic': {exc}", {"argument": "topic"}) from None


class Server:
    """Serve the ``@mcp_server`` class instance ``target``.

    >>> app = Server(MyTools()).asgi_app()          # mount it, or run it with uvicorn

    ``authenticate`` is a callable receiving a ``RequestInfo``; it returns (or, as an
    ``async def``, its coroutine gives) a principal (any object; tools see it as
    ``ctx.principal``), ``None`` for anonymous, or raises ``Unauthorized``. Methods
    outside ``config.public_methods`` need a principal.
    ``replay_guard`` remembers used 2026-07-28 ``requestState`` nonces (default: in this
    process only); give every process serving the same clients one shared guard, as they
    share ``config.state_secret``.

    Sessions belong to the caller that created them: ``identify(principal)`` gives the
    identity key a session is bound to (default: the principal itself, which must then be
    hashable and equal across requests of one caller); a session created without a
    principal belongs to ``"anonymous"``. Anyone else gets 404 for it, as for an unknown id.

    ``check_scopes(principal, scopes)`` is asked before a request runs whose tool declares
    ``@tool(scopes=...)``: it returns ``None`` to let it run or the ``Unauthorized`` to
    answer with (a POST gets its status and ``WWW-Authenticate``; a WebSocket or HTTP+SSE
    stream a JSON-RPC error naming the scopes). mcpcast gives the scopes no meaning.

    ``task_store`` keeps the tasks of ``@tool(task=...)`` tools (default: in this
    process's memory); a task is visible only to the principal that created it.

    ``injectors`` give the values of injected parameters, by type: ``injector(exchange,
    arguments)``, or ``FromPrincipal(lambda principal, arguments: ...)`` for one that
    needs only the caller (a tool whose injected parameters all come from those keeps
    the short path of a plain call). Either may return a coroutine, awaited first.

    ``observe_tool(name, outcome, seconds, principal)`` is told of every ``tools/call``
    as it starts (outcome "started") and when it ends: "ok", "error" (an ``isError``
    result) or "rejected" (a protocol error such as invalid arguments); ``principal`` is
    the authentication hook's. Metrics and activity feeds hang here; it must not block.
    """

    def __init__(self, target: Any, *, config: ServerConfig | None = None,
                 tracer_provider: TracerProvider | None = None,
                 authenticate: Authenticate | None = None,
                 injectors: dict[type, Injector] | None = None,
                 replay_guard: ReplayGuard | None = None,
                 broadcasters: BroadcasterFactory | None = None,
                 authorize_topic: Authorize | None = None,
                 identify: Identify | None = None,
                 check_scopes: CheckScopes | None = None,
                 task_store: TaskStore | None = None,
                 observe_tool: ToolObserver | None = None) -> None:
        self.target = target
        self.config = config or ServerConfig()
        self.broadcasters = broadcasters or BroadcasterFactory()
        self.authorize_topic = authorize_topic
        # Only Context needs the request's Exchange; a tool injecting nothing else takes
        # the short path of a plain call (``FromPrincipal``).
        self.injectors: dict[type, Injector] = {
            Context: lambda ex, args: Context(ex),
            ServerConfig: FromPrincipal(lambda principal, args: self.config),
            Server: FromPrincipal(lambda principal, args: self),
            BroadcasterFactory: FromPrincipal(lambda principal, args: self.broadcasters),
            Broadcaster: FromPrincipal(
                lambda principal, args: _topic(self.broadcasters.lookup, args)),
            StreamingSession: FromPrincipal(
                lambda principal, args: _topic(self.broadcasters.streaming_session, args)),
            **(injectors or {}),
        }
        self.registry: Registry = collect(target, tuple(self.injectors))
        self.path = self.config.path or self.registry.server.path
        self.tracing = Tracing(tracer_provider)
        # The hooks are applied in one place, once per request or connection.
        self.gate = Gate(authenticate, identify, check_scopes, self.config.public_methods,
                         self._scopes_of)
        self.pending = PendingRequests()
        self.methods = Methods(self.registry, self.config, self.tracing, self.injectors,
                               task_store)
        self.methods.observe = observe_tool
        self.legacy = LegacyProtocol(self.methods, self.pending, self.config.client_request_timeout)
        self.sessions = SessionStore(
            self.config.session_ttl, self.config.max_sessions,
            per_owner=self.config.max_sessions_per_principal,
            anonymous_per_minute=self.config.anonymous_sessions_per_minute)
        codec = StateCodec(self.config.state_secret or secrets.token_bytes(32),
                           self.config.state_ttl, replay_guard or MemoryReplayGuard())
        self.current = CurrentProtocol(self.methods, self.config, codec)
        self.listeners: set[Listener] = set()
        self.methods.tasks.listeners = self.listeners  # task status goes to listen streams
        # tasks/* on a task need its tool's scopes: the gate's hook, as it is when asked.
        self.methods.tasks.check_scopes = self._check_task_scopes
        self._app: Entry | None = None

    def _check_task_scopes(self, principal: Any, scopes: tuple[str, ...]
                           ) -> Unauthorized | None:
        hook = self.gate.check_scopes
        return hook(principal, scopes) if hook is not None else None

    # The hooks live on the gate; these keep them readable and replaceable here.
    @property
    def authenticate(self) -> Authenticate | None:
        return self.gate.hook

    @authenticate.setter
    def authenticate(self, hook: Authenticate | None) -> None:
        self.gate.hook = hook

    @property
    def identify(self) -> Identify | None:
        return self.gate.identify

    @identify.setter
    def identify(self, hook: Identify | None) -> None:
        self.gate.identify = hook

    @property
    def check_scopes(self) -> CheckScopes | None:
        return self.gate.check_scopes

    @check_scopes.setter
    def check_scopes(self, hook: CheckScopes | None) -> None:
        self.gate.check_scopes = hook

    @property
    def name(self) -> str:
        return self.registry.server.name

    @property
    def version(self) -> str:
        return self.registry.server.version

    def asgi_app(self) -> Callable[[Scope, Receive, Send], Any]:
        """The ASGI application serving this server at ``self.path`` (``mcpcast._asgi``)."""
        if self._app is None:
            self._app = Entry(self)
        return self._app

    def owner(self, principal: Any) -> Hashable:
        """The identity key sessions created by ``principal`` are bound to."""
        return self.gate.owner(principal)

    def refuse_scopes(self, principal: Any, requests: Iterable[dict[str, Any]]
                      ) -> Unauthorized | None:
        """``check_scopes``'s refusal for the scopes ``requests`` declare, if any."""
        return self.gate.refuse_scopes(principal, requests)

    def _scopes_of(self, name: Any) -> tuple[str, ...]:
        entry = self.registry.tools.get(name) if type(name) is str else None
        return entry.scopes if entry is not None else ()

    # ------------------------------------------------------------------ changes at run time

    def add_tool(self, func: Callable[..., Any], *, name: str | None = None,
                 description: str | None = None, scopes: tuple[str, ...] = ()) -> None:
        """Publish another tool now; connected clients hear ``tools/list_changed``."""
        self.registry.add(func, ToolDecl(name, description, scopes=tuple(scopes)),
                          tuple(self.injectors))
        self.notify_list_changed("tools")

    def remove_tool(self, name: str) -> bool:
        removed = self.registry.remove_tool(name)
        if removed:
            self.notify_list_changed("tools")
        return removed

    def add_prompt(self, func: Callable[..., Any], *, name: str | None = None,
                   description: str | None = None) -> None:
        """Publish another prompt now; connected clients hear ``prompts/list_changed``."""
        self.registry.add(func, PromptDecl(name, description), tuple(self.injectors))
        self.notify_list_changed("prompts")

    def remove_prompt(self, name: str) -> bool:
        removed = self.registry.remove_prompt(name)
        if removed:
            self.notify_list_changed("prompts")
        return removed

    def notify_list_changed(self, kind: str) -> None:
        """Tell all listeners that the ``tools``/``prompts``/``resources`` list changed."""
        if kind not in ("tools", "prompts", "resources"):
            raise ValueError(f"no list named {kind!r}")
        if kind == "tools":
            self.current.tools_changed()
        payload = dumps(notification(f"notifications/{kind}/list_changed"))
        for session in self.sessions.all():
            session.deliver(payload)
        for listener in self.listeners:
            listener.list_changed(kind)

    def notify_resource_updated(self, uri: str) -> None:
        """Tell the sessions subscribed to ``uri`` that it changed."""
        payload = dumps(notification("notifications/resources/updated", {"uri": uri}))
        for session in self.sessions.all():
            if uri in session.subscriptions:
                session.deliver(payload)
        for listener in self.listeners:
            listener.resource_updated(uri)

    def end_streams(self) -> None:
        """End every long-lived stream gracefully (shutdown): listen streams get their
        final result, session streams end, running tasks end ``failed``. Servers such as
        uvicorn wait for open responses before the ASGI lifespan shutdown, so call this
        first (the CLI does)."""
        self.sessions.close()
        for listener in list(self.listeners):
            listener.log.finish()
        self.methods.tasks.stop()

    async def stop_tasks(self) -> None:
        """Stop the running tasks (they end ``failed``) and wait until each has saved
        that: call it at shutdown before closing what the tools use (a database)."""
        await asyncio.gather(*self.methods.tasks.stop(), return_exceptions=True)

    def register_injector(self, typ: type,
                          injector: Callable[[Exchange, dict[str, Any]], Any]) -> None:
        self.injectors[typ] = injector
        self.methods.generation += 1  # each tool's short-path verdict is made again
