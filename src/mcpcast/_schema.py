"""Type hints -> JSON Schema, argument validation and coercion, result rendering.

``analyse(func, injectables=...)`` reads a tool/resource/prompt function once, at
registration, and returns a ``Signature``: the JSON Schema (draft 2020-12) of its
arguments, the schema of its result, which parameters are injected, and two fast
per-call operations, ``bind`` (wire arguments -> Python keyword arguments) and
``render`` (return value -> MCP content blocks + ``structuredContent``).

Validation is pydantic v2 in lax mode (``"3"`` becomes ``3`` for an ``int``) through one
model built here, whose fields are named ``f0, f1...`` with the wire names as aliases:
Python parameter names such as ``json`` or ``model_config`` would clash with
``BaseModel``, and aliases let ``Param(name=...)`` rename an argument for free.

Schemas are tidied for MCP clients: no pydantic ``title`` on properties or at the top,
``$defs`` inlined wherever the type is not recursive and used once (many clients do not
follow ``$ref``), and the few recursive or repeated definitions left under a root
``$defs`` (a shape said once, however often it is used). They are also compacted
(``_schema_tidy``), since every tools/list rides along in a model's context: an argument that
may be left out and defaults to null is advertised as its plain type (left out, it is
None; null itself is still accepted), what JSON Schema says by default is left out
(``"default": null``, ``"additionalProperties": true``, the ``"items": {}`` of a
``list[Any]``), and an outputSchema lists no ``required`` keys (``results``). Nullable
values stay ``anyOf [X, null]``: a ``"type"`` array is legal but less portable (the MCP
Inspector's ``--strict`` flags it: Gemini's dialect has one type per schema).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import re
import types
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic_core import PydanticSerializationError, to_jsonable_python
from typing_extensions import is_typeddict

from ._content import Content, Message
from ._errors import InvalidParams, RegistrationError
from ._jsonrpc import dumps
from ._params import Param
from ._schema_tidy import CleanJsonSchema, results, tidy

__all__ = ["Signature", "analyse"]

_EMPTY = inspect.Parameter.empty


class _Output(Enum):
    DYNAMIC = "dynamic"  # no (or Any) annotation: decided per value
    TEXT = "text"        # str: one text block
    NONE = "none"        # -> None: empty content
    CONTENT = "content"  # content helpers: their blocks
    OBJECT = "object"    # dict / dataclass / model / TypedDict: structuredContent as is
    WRAPPED = "wrapped"  # any other type: structuredContent = {"result": value}


@dataclass(frozen=True, eq=False)
class Signature:
    """What the registry needs of one function; built by ``analyse``.

    ``input_schema``: the ``inputSchema`` (tools) / source of prompt arguments.
    ``output_schema``: the tool's ``outputSchema``, or ``None`` when results are unstructured.
    ``injected``: Python parameter name -> the entry of ``injectables`` it matched.
    ``wire_names``: argument name on the wire -> Python parameter name.
    """

    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    injected: dict[str, type]
    wire_names: dict[str, str]
    _validate: Callable[[Any], BaseModel] = field(repr=False)
    _fields: tuple[tuple[str, str], ...] = field(repr=False)  # (model field, python name)
    _renamed: bool = field(repr=False, default=True)  # model fields are not python names
    # (wire, python, type) when every argument is a required int/str/float/bool, else None
    _exact: tuple[tuple[str, str, type], ...] | None = field(repr=False, default=None)
    _output: _Output = field(repr=False, default=_Output.DYNAMIC)
    _adapter: TypeAdapter[Any] | None = field(repr=False, default=None)
    _none_ok: bool = field(repr=False, default=False)
    _unions: frozenset[str] = field(repr=False, default=frozenset())  # wire names
    _scalar: type | None = field(repr=False, default=None)  # a result type of int or bool
    # {key: type} of a TypedDict result whose keys are all required str/int/bool
    _record: dict[str, type] | None = field(repr=False, default=None)

    def bind(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate and coerce wire arguments; keyword arguments keyed by Python names.

        Arguments that are all plain ``int``/``str``/``float``/``bool`` and arrive with
        exactly those types are taken as they are: pydantic would return them unchanged, and
        skipping it makes binding ``add(a: int, b: int)`` 0.2 us instead of 0.7 us on this
        box. Anything else, coercions and errors included, goes to pydantic.
        """
        exact = self._exact
        if exact is not None and type(arguments) is dict and len(arguments) == len(exact):
            kwargs: dict[str, Any] = {}
            for wire, python, typ in exact:
                value = arguments.get(wire)
                if type(value) is not typ:
                    break
                kwargs[python] = value
            else:
                return kwargs
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, dict):
            if not isinstance(arguments, Mapping):
                raise InvalidParams("Arguments must be an object")
            arguments = dict(arguments)
        try:
            values: dict[str, Any] = self._validate(arguments).__dict__
        except ValidationError as exc:
            raise _invalid_params(exc, self._unions) from None
        if self._renamed:
            return {python: values[name] for name, python in self._fields}
        return values  # the model's own dict: the model itself is thrown away

    def prompt_arguments(self) -> list[dict[str, Any]]:
        """The ``arguments`` of a ``prompts/list`` entry: name, description, required."""
        required = set(self.input_schema.get("required", ()))
        arguments: list[dict[str, Any]] = []
        for wire, schema in self.input_schema["properties"].items():
            argument: dict[str, Any] = {"name": wire}
            if "description" in schema:
                argument["description"] = schema["description"]
            argument["required"] = wire in required
            arguments.append(argument)
        return arguments

    def render(self, value: Any) -> tuple[list[dict[str, Any]], Any]:
        """``(content blocks, structuredContent or None)`` for a returned value."""
        kind = self._output
        if kind is _Output.TEXT and isinstance(value, str):
            return [{"type": "text", "text": value}], None
        if type(value) is self._scalar:  # int or bool as declared: no serializer round trip
            text = str(value) if type(value) is int else ("true" if value else "false")
            return [{"type": "text", "text": text}], {"result": value}
        if value is None and not (kind is _Output.WRAPPED and self._none_ok):
            return [], None
        record = self._record
        if record is not None and type(value) is dict and len(value) == len(record):
            # Each key declared and its value exactly the key's type: what pydantic-core's
            # serializer gives (a copy, in the value's own order), without its code (issue
            # 19). Anything else (a missing, extra or other-typed key) takes the serializer.
            for key, item in value.items():
                if type(item) is not record.get(key):
                    break
            else:
                structured = dict(value)
                return [_json_text(structured)], structured
        blocks = _content_blocks(value, allow_empty=kind is _Output.CONTENT)
        if blocks is not None:
            return blocks, None
        if self._adapter is not None:
            # dump_python's own work, without its Python wrapper (fourteen keywords a call).
            dumped = self._adapter.serializer.to_python(value, mode="json", warnings=False)
            if kind is _Output.WRAPPED:
                return [_json_text(dumped)], {"result": dumped}
            if isinstance(dumped, dict):
                return [_json_text(dumped)], dumped
        return _render_dynamic(value)


# Signatures already read, per function (a bound method's: per its class's function).
# A Signature depends only on the function's code, yet reading one costs pydantic's
# schema generation: about 150 ms of CPU for pacekeeper's fifty tools, again for every
# server built from the same class (the service's test suite builds about a thousand).
# Weak keys: a function defined and dropped (tests do) takes its entry with it.
_READ: weakref.WeakKeyDictionary[Callable[..., Any],
                                 dict[tuple[bool, tuple[type, ...], bool], Signature]] = \
    weakref.WeakKeyDictionary()


def analyse(func: Callable[..., Any], *, injectables: tuple[type, ...],
            skip_self: bool = True) -> Signature:
    """Read ``func`` once; raise ``RegistrationError`` for what cannot be served."""
    method = inspect.ismethod(func)
    try:
        known = _READ.setdefault(func.__func__ if method else func, {})  # type: ignore[attr-defined]
    except TypeError:  # a callable object that cannot be weakly referenced: read it anew
        return _read(func, injectables=injectables, skip_self=skip_self)
    key = (method, injectables, skip_self)
    sig = known.get(key)
    if sig is None:
        sig = known[key] = _read(func, injectables=injectables, skip_self=skip_self)
    # Each server gets schemas of its own: a registry may copy them into listings that a
    # caller changes, which must not reach another server of the same class.
    return dataclasses.replace(sig, input_schema=copy.deepcopy(sig.input_schema),
                               output_schema=copy.deepcopy(sig.output_schema))


def _read(func: Callable[..., Any], *, injectables: tuple[type, ...],
          skip_self: bool) -> Signature:
    where = getattr(func, "__qualname__", repr(func))
    try:
        parameters = list(inspect.signature(func).parameters.values())
        hints = get_type_hints(func, include_extras=True)
    except Exception as exc:
        raise RegistrationError(f"{where}: cannot read its signature: {exc}") from exc
    if (skip_self and parameters and not inspect.ismethod(func)
            and parameters[0].kind is not inspect.Parameter.KEYWORD_ONLY):
        parameters = parameters[1:]  # the method's self: a bound method has none

    injected: dict[str, type] = {}
    wire_names: dict[str, str] = {}
    model_fields: dict[str, Any] = {}
    fields: list[tuple[str, str]] = []
    exact: list[tuple[str, str, type]] | None = []
    unions: set[str] = set()
    headers: set[str] = set()
    for parameter in parameters:
        name = parameter.name
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            star = "*" if parameter.kind is inspect.Parameter.VAR_POSITIONAL else "**"
            raise RegistrationError(
                f"{where}: '{star}{name}' is not supported; declare each argument by name")
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise RegistrationError(f"{where}: argument {name!r} must not be positional-only")
        annotation = hints.get(name, Any)  # unannotated: accept any JSON value
        injectable = _injectable(annotation, injectables)
        if injectable is not None:
            injected[name] = injectable
            continue
        base, param = _split_param(annotation)
        wire = param.name if param.name is not None else name
        if not wire:
            raise RegistrationError(f"{where}: Param(name=...) of {name!r} is empty")
        if wire in wire_names:
            raise RegistrationError(f"{where}: two arguments are named {wire!r} on the wire")
        wire_names[wire] = name
        if _is_union(_strip(base)):
            unions.add(wire)
        if param.header is not None:
            _check_header(where, name, base, param.header, headers)
        fields.append((f"f{len(fields)}", name))
        model_fields[name] = _model_field(base, parameter.default, param, wire)
        required = parameter.default is _EMPTY if param.required is None else param.required
        if base in _EXACT_TYPES and required and exact is not None:
            exact.append((wire, name, base))
        else:
            exact = None
    if not all(_plain_field_name(python) for _, python in fields):
        # Model fields by position, so no argument name can clash with BaseModel's own.
        model_fields = {f: model_fields[python] for f, python in fields}
    else:
        fields = [(python, python) for _, python in fields]  # bind() maps nothing

    try:
        model = create_model("Arguments", __config__=ConfigDict(extra="forbid"), **model_fields)
        input_schema = tidy(model.model_json_schema(
            by_alias=True, mode="validation", schema_generator=CleanJsonSchema),
            arguments=True)
    except Exception as exc:
        raise RegistrationError(f"{where}: cannot build its argument schema: {exc}") from exc
    input_schema = {"type": "object", "properties": input_schema.get("properties", {}),
                    **input_schema, "additionalProperties": False}

    output, adapter, output_schema, none_ok = _output_of(hints.get("return", _EMPTY), where)
    return Signature(input_schema=input_schema, output_schema=output_schema, injected=injected,
                     wire_names=wire_names, _validate=model.__pydantic_validator__.validate_python,
                     _fields=tuple(fields), _renamed=any(f != p for f, p in fields),
                     _output=output, _adapter=adapter, _none_ok=none_ok,
                     _unions=frozenset(unions),
                     _exact=tuple(exact) if exact is not None else None,
                     _scalar=_strip(hints["return"]) if output is _Output.WRAPPED
                     and _strip(hints["return"]) in (int, bool) else None,
                     _record=_record_of(hints["return"]) if output is _Output.OBJECT
                     else None)


_EXACT_TYPES = (int, str, float, bool)


def _record_of(annotation: Any) -> dict[str, type] | None:
    """A TypedDict whose keys are all required and plainly str, int or bool (no
    constraints, no pydantic config): each key's type, for ``render``'s fast path.
    Floats stay on pydantic's path (NaN and infinities), as does anything else."""
    if not is_typeddict(annotation) or hasattr(annotation, "__pydantic_config__"):
        return None
    hints = get_type_hints(annotation, include_extras=True)
    if set(hints) != set(annotation.__required_keys__):
        return None
    if not all(typ in (str, int, bool) for typ in hints.values()):
        return None  # Annotated metadata, unions, floats, nested types
    return dict(hints)


def _plain_field_name(name: str) -> bool:
    """Can a model field carry this argument's own name (nothing of BaseModel's)?"""
    return not name.startswith(("_", "model_")) and not hasattr(BaseModel, name)


_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)


def _check_header(where: str, name: str, base: Any, header: str, seen: set[str]) -> None:
    """``Param(header=...)``: a valid, unique header name on a str, int or bool argument."""
    if not _HEADER_NAME.match(header):
        raise RegistrationError(
            f"{where}: Param(header={header!r}) of {name!r} is not a valid header name")
    if header.lower() in seen:
        raise RegistrationError(f"{where}: two arguments use the header {header!r}")
    seen.add(header.lower())
    plain = _strip(base)
    if _is_union(plain):
        members = [m for m in get_args(plain) if m is not type(None)]
        plain = members[0] if len(members) == 1 else None
    if plain not in (str, int, bool):
        raise RegistrationError(
            f"{where}: Param(header=...) needs a str, int or bool argument, not {name!r}")


def _model_field(base: Any, default: Any, param: Param, wire: str) -> tuple[Any, Any]:
    """``(type, FieldInfo)`` of one argument; ``Param.required`` overrides the signature."""
    required = default is _EMPTY if param.required is None else param.required
    extra: dict[str, Any] | None = {"x-mcp-header": param.header} \
        if param.header is not None else None
    if required:
        return base, Field(alias=wire, description=param.description,
                           json_schema_extra=extra)
    if default is _EMPTY or default is None:
        # Param(required=False) without a default, or "x: int = None": absent or null
        # arrives as None, so the schema says null is fine.
        default = None
        base = base if _allows_none(base) else base | None
    return base, Field(default=default, alias=wire, description=param.description,
                       json_schema_extra=extra)


def _split_param(annotation: Any) -> tuple[Any, Param]:
    """``Annotated[T, Param(...), *rest]`` -> ``(Annotated[T, *rest] or T, Param)``."""
    if get_origin(annotation) is not Annotated:
        return annotation, Param()
    base, *metadata = get_args(annotation)
    params = [m for m in metadata if isinstance(m, Param)]
    rest = [m for m in metadata if not isinstance(m, Param)]
    typ = Annotated.__class_getitem__((base, *rest)) if rest else base
    return typ, params[0] if params else Param()


def _strip(annotation: Any) -> Any:
    """Drop ``Annotated`` and a ``| None``: the type the value really has."""
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if _is_union(annotation):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return _strip(rest[0])
    return annotation


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _injectable(annotation: Any, injectables: tuple[type, ...]) -> type | None:
    typ = _strip(annotation)
    cls = get_origin(typ) or typ  # Broadcaster[str] -> Broadcaster
    if not isinstance(cls, type):
        return None
    for injectable in injectables:
        try:
            if issubclass(cls, injectable):
                return injectable
        except TypeError:  # e.g. a non-runtime Protocol
            continue
    return None


def _output_of(annotation: Any, where: str
               ) -> tuple[_Output, TypeAdapter[Any] | None, dict[str, Any] | None, bool]:
    """Classify the return annotation: (kind, serializer, outputSchema, None allowed)."""
    if annotation is _EMPTY or annotation is Any or annotation is object:
        return _Output.DYNAMIC, None, None, False
    if annotation is None or annotation is type(None):
        return _Output.NONE, None, None, False
    typ = _strip(annotation)
    if typ is str:  # str | None too: None renders as no content
        return _Output.TEXT, None, None, False
    if _is_content_type(typ):
        return _Output.CONTENT, None, None, False
    none_ok = _allows_none(annotation)
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        if typ is dict or typ is Mapping:
            return _Output.OBJECT, adapter, {"type": "object"}, False
        schema = adapter.json_schema(mode="serialization", schema_generator=CleanJsonSchema)
    except Exception as exc:
        raise RegistrationError(f"{where}: cannot build its result schema: {exc}") from exc
    if not none_ok and _is_object_type(typ):
        return _Output.OBJECT, adapter, results(tidy(schema)), False
    defs = schema.pop("$defs", None)
    schema.pop("title", None)  # e.g. an Enum's class name, now nested under "result"
    wrapped: dict[str, Any] = {"type": "object", "properties": {"result": schema},
                               "required": ["result"]}
    if defs is not None:
        wrapped["$defs"] = defs  # refs are "#/$defs/..." and must stay at the root
    return _Output.WRAPPED, adapter, results(tidy(wrapped)), none_ok


def _allows_none(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if annotation in (None, Any, object):
        return True
    return _is_union(annotation) and type(None) in get_args(annotation)


def _is_object_type(typ: Any) -> bool:
    origin = get_origin(typ) or typ
    if origin is dict or origin is Mapping or is_typeddict(typ):
        return True
    return isinstance(typ, type) and (issubclass(typ, BaseModel) or dataclasses.is_dataclass(typ))


def _is_content_type(typ: Any) -> bool:
    if _is_union(typ):
        return all(_is_content_type(a) for a in get_args(typ) if a is not type(None))
    origin = get_origin(typ)
    if origin in (list, tuple, Sequence):
        return all(_is_content_type(a) for a in get_args(typ) if a is not Ellipsis)
    return isinstance(typ, type) and issubclass(typ, (Content, Message))


def _content_blocks(value: Any, *, allow_empty: bool) -> list[dict[str, Any]] | None:
    if isinstance(value, Content):
        return [value.to_block()]
    # A tuple of types, not `list | tuple`: that builds a union object on every call,
    # and every structured result passes here.
    if isinstance(value, (list, tuple)) and (value or allow_empty) and all(
            isinstance(item, Content) for item in value):
        return [item.to_block() for item in value]
    return None


def _render_dynamic(value: Any) -> tuple[list[dict[str, Any]], Any]:
    """No usable annotation: str -> text, objects -> structured, anything else -> JSON text."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}], None
    try:
        jsonable = to_jsonable_python(value)
    except PydanticSerializationError:
        return [{"type": "text", "text": str(value)}], None
    is_object = isinstance(value, Mapping | BaseModel) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type))
    if is_object and isinstance(jsonable, dict):
        return [_json_text(jsonable)], jsonable
    return [_json_text(jsonable)], None


def _json_text(value: Any) -> dict[str, Any]:
    # orjson, as for the message around it: the same text as pydantic-core's for JSON-mode
    # values (NaN and infinities as null, valid JSON), and one serializer's code per call
    # instead of two (issue 19: what a call touches is what a real server pays for).
    return {"type": "text", "text": dumps(value).decode()}


def _invalid_params(exc: ValidationError, unions: frozenset[str]) -> InvalidParams:
    """One clear message naming the first bad argument (never echoing its value)."""
    errors = exc.errors(include_url=False, include_input=False)
    error = errors[0]
    location = error["loc"]
    if not location:
        return InvalidParams(f"Invalid arguments: {error['msg']}")
    name = str(location[0])
    if error["type"] == "missing" and len(location) == 1:
        message = f"Missing required argument {name!r}"
    elif error["type"] == "extra_forbidden" and len(location) == 1:
        message = f"Unexpected argument {name!r}"
    elif name in unions and len(location) > 1:
        # pydantic tries each member type; loc[1] names the member, not a field.
        tried = [f"{e['loc'][1]}: {e['msg']}" for e in errors
                 if len(e["loc"]) > 1 and e["loc"][0] == location[0]]
        message = f"Invalid argument {name!r}: no allowed type matches ({'; '.join(tried[:3])})"
    else:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in location[1:])
        where = f" (at {path.lstrip('.')})" if path else ""
        message = f"Invalid argument {name!r}: {error['msg']}{where}"
    return InvalidParams(message, {"argument": name})
