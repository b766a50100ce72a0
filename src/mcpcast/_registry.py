"""Declaring a server: ``@mcp_server``, ``@tool``, ``@resource``, ``@prompt``, ``@completion``.

The decorators only attach a small frozen record to the function (or class) under the
attribute ``__mcpcast__`` and return it unchanged, so a decorated method stays an
ordinary method. ``collect`` turns an instance of a decorated class into a ``Registry``:
that is where signatures are analysed and bad declarations are refused, once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ._errors import RegistrationError
from ._outline import field_list, outline
from ._schema import Signature, analyse
from ._uritemplate import UriTemplate, is_template
from .tasks._record import TaskSupport

TaskStart = Literal["call", "tool"]
Schemas = Literal["full", "compact", "minimal"]
_TASK_SUPPORT = ("forbidden", "optional", "required")

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)

MARK = "__mcpcast__"


@dataclass(frozen=True, slots=True)
class ServerDecl:
    name: str
    path: str = "/mcp"
    version: str = "0.1.0"
    instructions: str | None = None
    title: str | None = None
    schemas: Schemas = "full"


@dataclass(frozen=True, slots=True)
class ToolDecl:
    name: str | None = None
    description: str | None = None
    title: str | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    input_schema: dict[str, Any] | None = None
    scopes: tuple[str, ...] = ()
    task: TaskSupport = "forbidden"
    task_start: TaskStart = "call"


@dataclass(frozen=True, slots=True)
class ResourceDecl:
    uri: str
    name: str | None = None
    description: str | None = None
    mime_type: str | None = None
    title: str | None = None
    ttl_ms: int | None = None  # None: the server's ServerConfig.cache_ttl_ms
    cache_scope: Literal["public", "private"] | None = None


@dataclass(frozen=True, slots=True)
class PromptDecl:
    name: str | None = None
    description: str | None = None
    title: str | None = None


@dataclass(frozen=True, slots=True)
class CompletionDecl:
    ref: str  # a prompt name, a resource URI or a resource template
    argument: str


def mcp_server(name: str, path: str = "/mcp", version: str = "0.1.0", *,
               instructions: str | None = None, title: str | None = None,
               schemas: Schemas = "full") -> Callable[[C], C]:
    """Mark a class as an MCP server published at ``path``.

    ``schemas`` other than ``"full"``, for servers whose tools/list must stay small (it
    rides along in every conversation of a model): an inputSchema that has arguments does
    not say ``"additionalProperties": false`` (an unknown argument is still refused,
    -32602; a tool without arguments keeps it, as MCP recommends; a hand-written
    ``input_schema`` is published as written), and each outputSchema
    is published as an outline (``"compact"``: every field of the result and its type,
    nested shapes as ``object``/``array``) or as the list of its fields' names
    (``"minimal"``); see ``mcpcast._outline``. Results are the same and validate.
    """
    if not path.startswith("/"):
        raise RegistrationError(f"mcp_server path must start with '/': {path!r}")
    if schemas not in ("full", "compact", "minimal"):
        raise RegistrationError(f"schemas must be 'full', 'compact' or 'minimal': {schemas!r}")

    def mark(cls: C) -> C:
        setattr(cls, MARK, ServerDecl(name, path.rstrip("/") or "/", version, instructions, title,
                                      schemas))
        return cls
    return mark


def tool(name: str | None = None, description: str | None = None, *, title: str | None = None,
         annotations: dict[str, Any] | None = None, meta: dict[str, Any] | None = None,
         input_schema: dict[str, Any] | None = None,
         scopes: tuple[str, ...] = (), task: TaskSupport = "forbidden",
         task_start: TaskStart = "call") -> Callable[[F], F]:
    """Publish a method as a tool (``tools/call``).

    ``input_schema`` publishes a hand-written JSON Schema instead of the generated one
    (arguments are still validated against the method's signature). ``scopes`` are the
    authorization scopes a call needs: mcpcast hands them to the server's
    ``check_scopes`` hook before the call runs and gives them no meaning of its own.

    ``task`` (the tasks extension): ``"optional"`` runs a call as a task when the client
    negotiated ``io.modelcontextprotocol/tasks`` and as an ordinary call otherwise;
    ``"required"`` refuses clients without it (-32021). A task starts when the call
    arrives, or with ``task_start="tool"`` when the tool calls ``ctx.start_task()``
    (what it asks before that is asked within the call itself).
    """
    if isinstance(scopes, str) or not all(isinstance(s, str) and s for s in scopes):
        raise RegistrationError(f"tool {name!r}: scopes must be a tuple of non-empty strings")
    if task not in _TASK_SUPPORT:
        raise RegistrationError(f"tool {name!r}: task must be one of {_TASK_SUPPORT}")
    if task_start not in ("call", "tool"):
        raise RegistrationError(f"tool {name!r}: task_start must be 'call' or 'tool'")
    return _marker(ToolDecl(name, description, title, annotations, meta, input_schema,
                            tuple(scopes), task, task_start))


def resource(uri: str, name: str | None = None, description: str | None = None, *,
             mime_type: str | None = None, title: str | None = None, ttl_ms: int | None = None,
             cache_scope: Literal["public", "private"] | None = None) -> Callable[[F], F]:
    """Publish a method as a read-only resource; ``uri`` may be an RFC 6570 template.

    ``ttl_ms`` / ``cache_scope`` override the server's caching hints for ``resources/read``
    of this resource (2026-07-28 ``ttlMs`` / ``cacheScope``).
    """
    if ttl_ms is not None and ttl_ms < 0:
        raise RegistrationError(f"resource {uri!r}: ttl_ms must be >= 0")
    if cache_scope not in (None, "public", "private"):
        raise RegistrationError(f"resource {uri!r}: cache_scope must be 'public' or 'private'")
    return _marker(ResourceDecl(uri, name, description, mime_type, title, ttl_ms, cache_scope))


def prompt(name: str | None = None, description: str | None = None, *,
           title: str | None = None) -> Callable[[F], F]:
    """Publish a method as a prompt template (``prompts/get``)."""
    return _marker(PromptDecl(name, description, title))


def completion(ref: str, argument: str) -> Callable[[F], F]:
    """Complete ``argument`` of a prompt (by name) or resource template (by URI template).

    The method gets the partial value (and ``context`` arguments if it declares them) and
    returns a list of suggestions.
    """
    return _marker(CompletionDecl(ref, argument))


def _marker(decl: Any) -> Callable[[F], F]:
    def mark(func: F) -> F:
        if getattr(func, MARK, None) is not None:
            raise RegistrationError(
                f"{func.__qualname__} is already declared as {getattr(func, MARK)}")
        setattr(func, MARK, decl)
        return func
    return mark


# --------------------------------------------------------------------------- entries


@dataclass(slots=True)
class Entry:
    name: str
    description: str | None
    func: Callable[..., Any]
    signature: Signature
    is_async: bool
    title: str | None = None
    # The short-path verdict of a tool (``Methods.plain_tool``), for the injector table
    # of generation ``judged``: the functions giving its injected parameters from the
    # principal alone, as (parameter, function) pairs (empty: nothing injected), or None
    # when a call needs its Exchange.
    short: tuple[tuple[str, Callable[[Any, dict[str, Any]], Any]], ...] | None = field(
        init=False, default=None)
    judged: int = field(init=False, default=-1)
    # A sync method runs on the event loop while its calls stay short; once two took
    # longer than ServerConfig.inline_sync_budget it runs in a worker thread.
    inline: bool = field(init=False, default=True)
    overruns: int = field(init=False, default=0)


@dataclass(slots=True)
class ToolEntry(Entry):
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    listing: dict[str, Any] = field(default_factory=dict)
    scopes: tuple[str, ...] = ()  # what check_scopes is asked about before a call
    task: TaskSupport = "forbidden"
    task_start: TaskStart = "call"

    def __post_init__(self) -> None:
        # A sync task tool always runs in a thread: it is expected to take long.
        self.inline = self.task == "forbidden"


@dataclass(slots=True)
class ResourceEntry(Entry):
    uri: str = ""
    mime_type: str | None = None
    template: UriTemplate | None = None
    listing: dict[str, Any] = field(default_factory=dict)
    ttl_ms: int | None = None
    cache_scope: Literal["public", "private"] | None = None


@dataclass(slots=True)
class PromptEntry(Entry):
    listing: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class CompletionEntry:
    ref: str
    argument: str
    func: Callable[..., Any]
    is_async: bool
    signature: Signature


@dataclass
class Registry:
    server: ServerDecl
    tools: dict[str, ToolEntry] = field(default_factory=dict)
    resources: dict[str, ResourceEntry] = field(default_factory=dict)
    templates: dict[str, ResourceEntry] = field(default_factory=dict)
    prompts: dict[str, PromptEntry] = field(default_factory=dict)
    completions: dict[tuple[str, str], CompletionEntry] = field(default_factory=dict)

    def add(self, func: Callable[..., Any], decl: Any, injectables: tuple[type, ...]) -> None:
        if isinstance(decl, ToolDecl):
            self._add_tool(func, decl, injectables)
        elif isinstance(decl, ResourceDecl):
            self._add_resource(func, decl, injectables)
        elif isinstance(decl, PromptDecl):
            self._add_prompt(func, decl, injectables)
        elif isinstance(decl, CompletionDecl):
            sig = analyse(func, injectables=injectables, skip_self=False)
            self.completions[(decl.ref, decl.argument)] = CompletionEntry(
                decl.ref, decl.argument, func, _is_async(func), sig)

    def _add_tool(self, func: Callable[..., Any], decl: ToolDecl,
                  injectables: tuple[type, ...]) -> None:
        name = decl.name or func.__name__
        _unique(name, self.tools, "tool")
        sig = analyse(func, injectables=injectables, skip_self=False)
        _check_topic(name, sig)
        description = decl.description or _doc(func)
        schema = decl.input_schema if decl.input_schema is not None else sig.input_schema
        if schema.get("type") != "object":
            raise RegistrationError(f"tool {name!r}: an input schema must have type 'object'")
        if self.server.schemas != "full" and decl.input_schema is None \
                and schema.get("properties") and schema.get("additionalProperties") is False:
            schema = {k: v for k, v in schema.items() if k != "additionalProperties"}
        listing: dict[str, Any] = {"name": name, "inputSchema": schema}
        if decl.title:
            listing["title"] = decl.title
        if description:
            listing["description"] = description
        if sig.output_schema is not None:
            listing["outputSchema"] = _OUTPUT_SCHEMAS[self.server.schemas](sig.output_schema)
        hints = _meaningful_hints(decl.annotations or {})
        if hints:
            listing["annotations"] = hints
        if decl.meta:
            listing["_meta"] = decl.meta
        if decl.task != "forbidden":
            listing["execution"] = {"taskSupport": decl.task}
        self.tools[name] = ToolEntry(name, description, func, sig, _is_async(func), decl.title,
                                     decl.annotations, decl.meta, listing, decl.scopes,
                                     decl.task, decl.task_start)

    def _add_resource(self, func: Callable[..., Any], decl: ResourceDecl,
                      injectables: tuple[type, ...]) -> None:
        name = decl.name or func.__name__
        sig = analyse(func, injectables=injectables, skip_self=False)
        description = decl.description or _doc(func)
        listing: dict[str, Any] = {"name": name}
        for key, value in (("title", decl.title), ("description", description),
                           ("mimeType", decl.mime_type)):
            if value:
                listing[key] = value
        if is_template(decl.uri):
            template = UriTemplate(decl.uri)
            missing = set(template.variables) - set(sig.wire_names)
            if missing:
                raise RegistrationError(
                    f"resource template {decl.uri!r}: {func.__qualname__} has no parameter for "
                    f"{sorted(missing)}")
            _unique(decl.uri, self.templates, "resource template")
            listing["uriTemplate"] = decl.uri
            self.templates[decl.uri] = ResourceEntry(
                name, description, func, sig, _is_async(func), decl.title, decl.uri,
                decl.mime_type, template, listing, decl.ttl_ms, decl.cache_scope)
        else:
            _unique(decl.uri, self.resources, "resource")
            listing["uri"] = decl.uri
            self.resources[decl.uri] = ResourceEntry(
                name, description, func, sig, _is_async(func), decl.title, decl.uri,
                decl.mime_type, None, listing, decl.ttl_ms, decl.cache_scope)

    def _add_prompt(self, func: Callable[..., Any], decl: PromptDecl,
                    injectables: tuple[type, ...]) -> None:
        name = decl.name or func.__name__
        _unique(name, self.prompts, "prompt")
        sig = analyse(func, injectables=injectables, skip_self=False)
        description = decl.description or _doc(func)
        listing: dict[str, Any] = {"name": name}
        if decl.title:
            listing["title"] = decl.title
        if description:
            listing["description"] = description
        props = sig.input_schema.get("properties", {})
        required = set(sig.input_schema.get("required", ()))
        listing["arguments"] = [
            {k: v for k, v in (("name", arg), ("description", props[arg].get("description")),
                               ("required", arg in required)) if v is not None}
            for arg in props
        ]
        self.prompts[name] = PromptEntry(name, description, func, sig, _is_async(func),
                                         decl.title, listing)

    def resource_for(self, uri: str) -> ResourceEntry | None:
        """The resource serving ``uri``: an exact URI first, then the first matching template."""
        entry = self.resources.get(uri)
        if entry is None:
            entry = next((t for t in self.templates.values()
                          if t.template is not None and t.template.match(uri) is not None), None)
        return entry

    @property
    def has_tasks(self) -> bool:
        """Some tool can run as a task (the server then offers the tasks extension)."""
        return any(t.task != "forbidden" for t in self.tools.values())

    def remove_tool(self, name: str) -> bool:
        return self.tools.pop(name, None) is not None

    def remove_prompt(self, name: str) -> bool:
        return self.prompts.pop(name, None) is not None


def collect(instance: Any, injectables: tuple[type, ...]) -> Registry:
    """Build the registry of a decorated class instance (or of a bare ``ServerDecl``)."""
    decl = getattr(type(instance), MARK, None)
    if not isinstance(decl, ServerDecl):
        raise RegistrationError(
            f"{type(instance).__qualname__} is not decorated with @mcp_server(name=...)")
    registry = Registry(decl)
    for _, member in _members(instance):
        func_decl = getattr(member, MARK, None)
        if func_decl is not None:
            registry.add(member, func_decl, injectables)
    for ref, argument in registry.completions:
        if ref not in registry.prompts and ref not in registry.templates \
                and ref not in registry.resources:
            raise RegistrationError(f"completion for unknown prompt or resource {ref!r}")
        del argument
    return registry


def _members(instance: Any) -> Iterable[tuple[str, Any]]:
    # Walk the class (not the instance) so properties are never evaluated, then bind.
    for name in dir(type(instance)):
        if name.startswith("__"):
            continue
        raw = inspect.getattr_static(type(instance), name)
        target = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
        if getattr(target, MARK, None) is not None:
            yield name, getattr(instance, name)


def _is_async(func: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(func)


def _doc(func: Callable[..., Any]) -> str | None:
    doc = inspect.getdoc(func)
    return doc.strip() if doc else None


_OUTPUT_SCHEMAS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "full": lambda schema: schema, "compact": outline, "minimal": field_list}

# Hints the MCP spec (ToolAnnotations) calls meaningful only when readOnlyHint is false.
_WRITE_HINTS = ("destructiveHint", "idempotentHint")
# The value a client assumes for a hint left out (ToolAnnotations' defaults), but for
# destructiveHint: true is always said, since a client that does not apply the spec's
# default must still see that a tool destroys data (its confirmation depends on it).
_HINT_DEFAULTS = {"readOnlyHint": False, "idempotentHint": False, "openWorldHint": True}


def _meaningful_hints(annotations: dict[str, Any]) -> dict[str, Any]:
    """The annotations a client needs to be told: none that only describe writes on a
    read-only tool, none at the value a client assumes when it is left out (a client
    reads the same hints either way, and every tools/list carries them)."""
    read_only = annotations.get("readOnlyHint") is True
    return {k: v for k, v in annotations.items()
            if not (read_only and k in _WRITE_HINTS) and _HINT_DEFAULTS.get(k, ...) != v}


def _unique(key: str, table: dict[str, Any], what: str) -> None:
    if key in table:
        raise RegistrationError(f"two {what}s are named {key!r}")


def _check_topic(name: str, sig: Signature) -> None:
    # Broadcaster and StreamingSession are looked up by the call's `topic` argument.
    needs_topic = [t.__name__ for t in sig.injected.values()
                   if getattr(t, "__mcpcast_needs_topic__", False)]
    if needs_topic and "topic" not in sig.wire_names:
        raise RegistrationError(
            f"tool {name!r} takes {', '.join(needs_topic)} but declares no argument named "
            "'topic' (add `topic: Annotated[str, Param(name=\"topic\")]`)")
