"""Argument schemas, binding (validation + coercion) and result rendering (mcpcast._schema)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, Optional, Protocol, TypeVar

import jsonschema  # type: ignore[import-untyped]
import mcp.types as sdk
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from mcpcast._content import Content, Image, Message, Text
from mcpcast._errors import InvalidParams, RegistrationError
from mcpcast._params import Param
from mcpcast._schema import Signature, analyse

UTC = dt.UTC
NO_DEFAULT = inspect.Parameter.empty
SKIP = object()  # "no such value" in the tables below


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int = 0


@dataclass
class Run:
    name: str
    when: dt.datetime


class Split(TypedDict):
    km: int
    seconds: float


class Node(BaseModel):
    value: int
    children: list[Node] = []


# Injectables stand-ins: the registry passes the real Context, Broadcaster, ... classes.
class Context:
    pass


class Broadcaster:
    pass


class LoudContext(Context):
    pass


T = TypeVar("T")


class Box(Generic[T]):
    pass


INJECTABLES: tuple[type, ...] = (Context, Broadcaster, Box)


def one_arg(annotation: Any, default: Any = NO_DEFAULT, returns: Any = NO_DEFAULT
            ) -> Signature:
    """Analyse ``def f(x: annotation = default) -> returns``."""
    def f(x):  # type: ignore[no-untyped-def]  # annotations are set below, on purpose
        return x
    f.__annotations__ = {"x": annotation}
    if returns is not NO_DEFAULT:
        f.__annotations__["return"] = returns
    if default is not NO_DEFAULT:
        f.__defaults__ = (default,)
    return analyse(f, injectables=INJECTABLES, skip_self=False)


def returning(annotation: Any) -> Signature:
    def f():  # type: ignore[no-untyped-def]
        return None
    if annotation is not NO_DEFAULT:
        f.__annotations__ = {"return": annotation}
    return analyse(f, injectables=INJECTABLES, skip_self=False)


# --- schema shape, and the schema agreeing with bind() --------------------------------------

# (annotation, property schema, a valid wire value, what bind gives for it, an invalid one)
TYPES: list[tuple[Any, dict[str, Any], Any, Any, Any]] = [
    (str, {"type": "string"}, "hi", "hi", 5),
    (int, {"type": "integer"}, 5, 5, 1.5),
    (float, {"type": "number"}, 1.5, 1.5, "fast"),
    (bool, {"type": "boolean"}, True, True, "maybe"),
    (Literal["easy", "hard"], {"enum": ["easy", "hard"], "type": "string"}, "easy", "easy", "x"),
    (Color, {"enum": ["red", "blue"], "type": "string"}, "red", Color.RED, "green"),
    (list[int], {"type": "array", "items": {"type": "integer"}}, [1, 2], [1, 2], ["x"]),
    (tuple[int, str],
     {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
      "minItems": 2, "maxItems": 2},
     [1, "a"], (1, "a"), [1]),
    (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
     ["a", "b"], {"a", "b"}, [1]),
    (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}},
     {"a": 1}, {"a": 1}, {"a": "x"}),
    (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}, None, None, "x"),  # noqa: UP045
    (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}, 3, 3, [3]),
    (dt.datetime, {"type": "string", "format": "date-time"},
     "2026-11-21T10:00:00Z", dt.datetime(2026, 11, 21, 10, tzinfo=UTC), [1]),
    (dt.date, {"type": "string", "format": "date"}, "2026-11-21", dt.date(2026, 11, 21), [1]),
    (Point,
     {"type": "object", "properties": {"x": {"type": "integer"},
                                       "y": {"type": "integer", "default": 0}},
      "required": ["x"]},
     {"x": 1}, Point(x=1), {"y": 1}),
    (Run,
     {"type": "object", "properties": {"name": {"type": "string"},
                                       "when": {"type": "string", "format": "date-time"}},
      "required": ["name", "when"], "additionalProperties": False},
     {"name": "tempo", "when": "2026-11-21T06:30:00Z"},
     Run("tempo", dt.datetime(2026, 11, 21, 6, 30, tzinfo=UTC)), {"name": "tempo"}),
    (Split,
     {"type": "object", "properties": {"km": {"type": "integer"}, "seconds": {"type": "number"}},
      "required": ["km", "seconds"], "additionalProperties": False},
     {"km": 1, "seconds": 301.5}, {"km": 1, "seconds": 301.5}, {"km": "one", "seconds": 1}),
    (Any, {}, {"any": ["json"]}, {"any": ["json"]}, SKIP),
    (Annotated[int, Field(ge=0, le=10)], {"type": "integer", "minimum": 0, "maximum": 10},
     10, 10, 11),
]
TYPE_IDS = [str(row[0]) for row in TYPES]


@pytest.mark.parametrize(("annotation", "schema", "good", "bound", "bad"), TYPES, ids=TYPE_IDS)
def test_schema_shape_for_each_supported_type(annotation: Any, schema: dict[str, Any], good: Any,
                                              bound: Any, bad: Any) -> None:
    """DECL-2: each supported type becomes its plain JSON Schema (no titles, no $ref)."""
    sig = one_arg(annotation)
    assert sig.input_schema == {"type": "object", "properties": {"x": schema},
                                "required": ["x"], "additionalProperties": False}
    jsonschema.Draft202012Validator.check_schema(sig.input_schema)


@pytest.mark.parametrize(("annotation", "schema", "good", "bound", "bad"), TYPES, ids=TYPE_IDS)
def test_schema_and_bind_agree(annotation: Any, schema: dict[str, Any], good: Any, bound: Any,
                               bad: Any) -> None:
    """MCP-3: what the schema accepts binds; what it rejects is -32602 naming the argument."""
    sig = one_arg(annotation)
    jsonschema.validate({"x": good}, sig.input_schema, cls=jsonschema.Draft202012Validator)
    assert sig.bind({"x": good}) == {"x": bound}
    if bad is SKIP:
        return
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"x": bad}, sig.input_schema, cls=jsonschema.Draft202012Validator)
    with pytest.raises(InvalidParams) as caught:
        sig.bind({"x": bad})
    assert caught.value.code == -32602
    assert caught.value.message.startswith("Invalid argument 'x': ")
    assert caught.value.data == {"argument": "x"}


def test_recursive_model_keeps_a_valid_defs_reference() -> None:
    sig = one_arg(Node)
    schema = sig.input_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["x"] == {"$ref": "#/$defs/Node"}
    assert schema["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    tree = {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}
    jsonschema.validate({"x": tree}, schema, cls=jsonschema.Draft202012Validator)
    assert sig.bind({"x": tree})["x"].children[0].children[0].value == 3


def test_defaults_appear_in_the_schema_and_in_bind() -> None:
    """DECL-2: arguments with a default are optional and show the default."""
    def plan(self: object, weeks: int = 12, level: Color = Color.BLUE,
             start: dt.date = dt.date(2027, 1, 4), note: str = None) -> str:  # type: ignore[assignment]
        return ""
    sig = analyse(plan, injectables=INJECTABLES)
    assert sig.input_schema["properties"] == {
        "weeks": {"type": "integer", "default": 12},
        "level": {"enum": ["red", "blue"], "type": "string", "default": "blue"},
        "start": {"type": "string", "format": "date", "default": "2027-01-04"},
        # "x: str = None" accepts null too, as the function will see None
        "note": {"type": "string"},
    }
    assert "required" not in sig.input_schema
    assert sig.bind({}) == {"weeks": 12, "level": Color.BLUE, "start": dt.date(2027, 1, 4),
                            "note": None}
    assert sig.bind({"note": None, "weeks": "3"})["weeks"] == 3


def test_a_tool_without_arguments_has_an_empty_object_schema() -> None:
    def ping(self: object) -> str:
        return "pong"
    sig = analyse(ping, injectables=INJECTABLES)
    assert sig.input_schema == {"type": "object", "properties": {}, "additionalProperties": False}
    assert sig.bind(None) == {}
    assert sig.bind({}) == {}


def test_unannotated_parameter_is_any() -> None:
    def echo(self: object, value, times: int = 1):  # type: ignore[no-untyped-def]
        return value
    sig = analyse(echo, injectables=INJECTABLES)
    assert sig.input_schema["properties"]["value"] == {}
    assert sig.input_schema["required"] == ["value"]
    assert sig.bind({"value": [1, {"a": None}]}) == {"value": [1, {"a": None}], "times": 1}


# --- Param ----------------------------------------------------------------------------------

def test_param_names_describes_and_requires() -> None:
    """DECL-2: Param(name, description, required) shapes the schema; required ones are listed."""
    def log_run(
        self: object,
        athlete_id: Annotated[str, Param(name="athlete", description="Who ran.")],
        km: Annotated[float, Param(description="Distance in km.")],
        note: Annotated[str, Param(required=False, description="Free text.")],
        pace: Annotated[int, Param(required=True)] = 300,
        shoes: str = "default",
    ) -> str:
        return ""
    sig = analyse(log_run, injectables=INJECTABLES)
    assert sig.input_schema["properties"] == {
        "athlete": {"type": "string", "description": "Who ran."},
        "km": {"type": "number", "description": "Distance in km."},
        "note": {"type": "string",
                 "description": "Free text."},
        "pace": {"type": "integer"},
        "shoes": {"type": "string", "default": "default"},
    }
    assert sig.input_schema["required"] == ["athlete", "km", "pace"]
    assert sig.wire_names == {"athlete": "athlete_id", "km": "km", "note": "note",
                              "pace": "pace", "shoes": "shoes"}
    assert sig.bind({"athlete": "ann", "km": "5", "pace": 290}) == {
        "athlete_id": "ann", "km": 5.0, "note": None, "pace": 290, "shoes": "default"}
    with pytest.raises(InvalidParams, match="Missing required argument 'pace'"):
        sig.bind({"athlete": "ann", "km": 5})
    with pytest.raises(InvalidParams, match="Unexpected argument 'athlete_id'"):
        sig.bind({"athlete_id": "ann", "athlete": "ann", "km": 5, "pace": 1})


def test_prompt_arguments_follow_param() -> None:
    """DECL-2: prompt arguments carry Param's name, description and required flag."""
    def coach(self: object,
              goal: Annotated[str, Param(name="goal", description="The race.", required=True)],
              ctx: Context,
              weeks: Annotated[int, Param(description="Weeks left.")] = 12,
              tone: Annotated[str, Param(required=False)] = "kind") -> list[Message]:
        return []
    sig = analyse(coach, injectables=INJECTABLES)
    assert sig.prompt_arguments() == [
        {"name": "goal", "description": "The race.", "required": True},
        {"name": "weeks", "description": "Weeks left.", "required": False},
        {"name": "tone", "required": False},
    ]
    arguments = sig.prompt_arguments()
    prompt = sdk.Prompt.model_validate({"name": "coach", "arguments": arguments})
    assert [a.name for a in prompt.arguments or []] == ["goal", "weeks", "tone"]
    # prompts/get sends strings: they are coerced like tool arguments
    assert sig.bind({"goal": "sub-3", "weeks": "8"}) == {"goal": "sub-3", "weeks": 8,
                                                         "tone": "kind"}


def test_param_keeps_other_annotated_metadata() -> None:
    sig = one_arg(Annotated[int, Field(gt=0), Param(name="n", description="count")])
    assert sig.input_schema["properties"] == {
        "n": {"type": "integer", "exclusiveMinimum": 0, "description": "count"}}
    with pytest.raises(InvalidParams, match="Invalid argument 'n': Input should be greater than 0"):
        sig.bind({"n": 0})


def test_description_on_an_enum_or_model_argument_is_kept_when_inlined() -> None:
    sig = one_arg(Annotated[Color, Param(description="shirt colour")], Color.RED)
    assert sig.input_schema["properties"]["x"] == {
        "enum": ["red", "blue"], "type": "string", "description": "shirt colour", "default": "red"}


# --- injection ------------------------------------------------------------------------------

def test_injectables_never_appear_in_the_schema() -> None:
    """DECL-4: injectable parameters are injected, not part of the JSON Schema."""
    def shout(
        self: object,
        topic: Annotated[str, Param(name="topic")],
        broadcaster: Broadcaster,
        ctx: Context,
        maybe: Optional[Context] = None,  # noqa: UP045
        loud: Annotated[LoudContext, "metadata"] = None,  # type: ignore[assignment]
        box: Box[int] | None = None,
    ) -> str:
        return ""
    sig = analyse(shout, injectables=INJECTABLES)
    assert sig.injected == {"broadcaster": Broadcaster, "ctx": Context, "maybe": Context,
                            "loud": Context, "box": Box}
    assert list(sig.input_schema["properties"]) == ["topic"]
    assert sig.input_schema["required"] == ["topic"]
    assert sig.bind({"topic": "runs"}) == {"topic": "runs"}
    with pytest.raises(InvalidParams, match="Unexpected argument 'ctx'"):
        sig.bind({"topic": "runs", "ctx": {}})


def test_a_protocol_among_injectables_does_not_break_analysis() -> None:
    class Clock(Protocol):  # not runtime-checkable: issubclass() raises TypeError
        def now(self) -> float: ...

    def f(self: object, ctx: Context, n: int) -> int:
        return n
    sig = analyse(f, injectables=(Clock, Context))
    assert sig.injected == {"ctx": Context}
    assert list(sig.input_schema["properties"]) == ["n"]


# --- self -----------------------------------------------------------------------------------

class Demo:
    def add(self, a: int, b: int = 0) -> int:
        return a + b


def test_self_is_skipped_for_functions_and_absent_on_bound_methods() -> None:
    from_class = analyse(Demo.add, injectables=INJECTABLES)
    bound = analyse(Demo().add, injectables=INJECTABLES)  # skip_self must not drop "a"
    assert from_class.input_schema == bound.input_schema
    assert list(bound.input_schema["properties"]) == ["a", "b"]

    def free(a: int) -> int:
        return a
    assert list(analyse(free, injectables=(), skip_self=False).input_schema["properties"]) == ["a"]


def test_parameter_names_that_clash_with_pydantic_are_fine() -> None:
    def f(self: object, json: str, model_config: int, copy: bool = False,
          schema: Annotated[str, Param(name="model_fields")] = "s") -> str:
        return json
    sig = analyse(f, injectables=INJECTABLES)
    assert list(sig.input_schema["properties"]) == ["json", "model_config", "copy", "model_fields"]
    assert sig.bind({"json": "j", "model_config": "1", "model_fields": "m"}) == {
        "json": "j", "model_config": 1, "copy": False, "schema": "m"}


def test_prompt_and_resource_functions_analyse_without_a_result_schema() -> None:
    """DECL-3: prompts return Message lists and resources text: neither has an outputSchema."""
    def coach(self: object, goal: Annotated[str, Param(required=True)]) -> list[Message]:
        return [Message.system("You are a coach."), Message.user(goal)]

    def activity(self: object, id: str) -> str:
        return id
    prompt_sig = analyse(coach, injectables=INJECTABLES)
    assert prompt_sig.output_schema is None
    assert prompt_sig.input_schema["required"] == ["goal"]
    assert prompt_sig.prompt_arguments() == [{"name": "goal", "required": True}]
    resource_sig = analyse(activity, injectables=INJECTABLES)
    assert resource_sig.output_schema is None
    assert resource_sig.bind({"id": "42"}) == {"id": "42"}


def test_string_annotations_are_resolved() -> None:
    """This module uses ``from __future__ import annotations``: every hint is a string."""
    assert isinstance(Demo.add.__annotations__["a"], str)
    assert analyse(Demo.add, injectables=()).bind({"a": "2"}) == {"a": 2, "b": 0}


# --- coercion -------------------------------------------------------------------------------

@pytest.mark.parametrize(("annotation", "wire", "python"), [
    (int, "3", 3),
    (int, 3.0, 3),
    (int, True, 1),
    (float, "2.5", 2.5),
    (float, 2, 2.0),
    (bool, "true", True),
    (bool, "no", False),
    (bool, 0, False),
    (str, "  kept  ", "  kept  "),
    (list[int], ["1", 2], [1, 2]),
    (list[int], (1, 2), [1, 2]),
    (tuple[int, ...], [1, "2"], (1, 2)),
    (set[int], [1, 1, "2"], {1, 2}),
    (dict[str, float], {"a": "1.5"}, {"a": 1.5}),
    (Color, "blue", Color.BLUE),
    (Literal[1, 2], 2, 2),
    (dt.datetime, "2026-11-21T10:00:00+01:00",
     dt.datetime(2026, 11, 21, 10, tzinfo=dt.timezone(dt.timedelta(hours=1)))),
    (dt.date, "2026-11-21", dt.date(2026, 11, 21)),
    (Point, {"x": "4"}, Point(x=4, y=0)),
    (Point, Point(x=1), Point(x=1)),
    (Run, {"name": "z2", "when": "2026-01-01T00:00:00Z"},
     Run("z2", dt.datetime(2026, 1, 1, tzinfo=UTC))),
])
def test_lax_coercion(annotation: Any, wire: Any, python: Any) -> None:
    """Lax mode, as pydantic defines it: JSON-ish strings and numbers become the declared type."""
    bound = one_arg(annotation).bind({"x": wire})["x"]
    assert bound == python
    assert type(bound) is type(python)


def test_bind_accepts_any_mapping_and_leaves_it_untouched() -> None:
    sig = analyse(Demo.add, injectables=())
    arguments = {"a": "1"}
    assert sig.bind(types.MappingProxyType(arguments)) == {"a": 1, "b": 0}
    assert sig.bind(arguments) == {"a": 1, "b": 0}
    assert arguments == {"a": "1"}


# --- error messages -------------------------------------------------------------------------

def _book(self: object, a: int, name: Annotated[str, Param(name="athlete")],
          tags: list[int] = [], point: Point | None = None) -> str:  # noqa: B006
    return ""


BOOK = analyse(_book, injectables=INJECTABLES)
INT_REASON = "Input should be a valid integer, unable to parse string as an integer"


@pytest.mark.parametrize(("arguments", "message", "argument"), [
    ({}, "Missing required argument 'a'", "a"),
    ({"a": 1}, "Missing required argument 'athlete'", "athlete"),
    ({"a": 1, "athlete": "x", "zzz": 1}, "Unexpected argument 'zzz'", "zzz"),
    ({"a": 1, "name": "x"}, "Missing required argument 'athlete'", "athlete"),
    ({"a": 1, "athlete": "x", "name": "x"}, "Unexpected argument 'name'", "name"),
    ({"a": "x", "athlete": "x"}, f"Invalid argument 'a': {INT_REASON}", "a"),
    ({"a": None, "athlete": "x"}, "Invalid argument 'a': Input should be a valid integer", "a"),
    ({"a": 1, "athlete": 7}, "Invalid argument 'athlete': Input should be a valid string",
     "athlete"),
    ({"a": 1, "athlete": "x", "tags": [1, "x"]},
     f"Invalid argument 'tags': {INT_REASON} (at [1])", "tags"),
    ({"a": 1, "athlete": "x", "tags": "1,2"},
     "Invalid argument 'tags': Input should be a valid list", "tags"),
    ({"a": 1, "athlete": "x", "point": {"x": "y"}},
     f"Invalid argument 'point': {INT_REASON} (at x)", "point"),
    ({"a": 1, "athlete": "x", "point": {}}, "Invalid argument 'point': Field required (at x)",
     "point"),
])
def test_error_messages_name_the_argument(arguments: dict[str, Any], message: str,
                                          argument: str) -> None:
    """MCP-3: a missing, unknown or wrong-typed argument is -32602 with a message naming it."""
    with pytest.raises(InvalidParams) as caught:
        BOOK.bind(arguments)
    assert caught.value.message == message
    assert caught.value.code == -32602
    assert caught.value.to_error() == {"code": -32602, "message": message,
                                       "data": {"argument": argument}}
    assert caught.value.__cause__ is None  # the pydantic traceback is not chained


def test_union_errors_list_what_each_member_type_said() -> None:
    sig = one_arg(int | list[int])
    assert sig.input_schema["properties"]["x"] == {
        "anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]}
    assert sig.bind({"x": "7"}) == {"x": 7}
    assert sig.bind({"x": [1, "2"]}) == {"x": [1, 2]}
    with pytest.raises(InvalidParams) as caught:
        sig.bind({"x": {"a": 1}})
    assert caught.value.message == (
        "Invalid argument 'x': no allowed type matches (int: Input should be a valid integer; "
        "list[int]: Input should be a valid list)")


@pytest.mark.parametrize("arguments", [[1, 2], "a=1", 42, True])
def test_arguments_that_are_not_an_object(arguments: Any) -> None:
    """MCP-3: non-object arguments are -32602."""
    with pytest.raises(InvalidParams) as caught:
        BOOK.bind(arguments)
    assert caught.value.to_error() == {"code": -32602, "message": "Arguments must be an object"}


def test_error_message_never_echoes_the_value() -> None:
    with pytest.raises(InvalidParams) as caught:
        BOOK.bind({"a": "sk_live_SECRET", "athlete": "x"})
    assert "SECRET" not in str(caught.value.to_error())


# --- registration errors --------------------------------------------------------------------

class Opaque:
    pass


def _star_args(self: object, *runs: int) -> str:
    return ""


def _star_kwargs(self: object, **options: int) -> str:
    return ""


def _positional_only(self: object, a: int, /) -> str:
    return ""


def _twice(self: object, a: int, b: Annotated[int, Param(name="a")]) -> str:
    return ""


def _empty_name(self: object, a: Annotated[int, Param(name="")]) -> str:
    return ""


def _opaque_arg(self: object, thing: Opaque) -> str:
    return ""


def _opaque_result(self: object) -> Opaque:
    return Opaque()


def _unresolvable(self: object, a: NoSuchType) -> str:  # type: ignore[name-defined]  # noqa: F821
    return ""


class PlainTypedDict(typing.TypedDict):  # pydantic wants typing_extensions' on Python 3.11
    k: int


def _typing_typeddict(self: object, a: PlainTypedDict) -> str:
    return ""


@pytest.mark.parametrize(("func", "message"), [
    (_star_args, "'*runs' is not supported; declare each argument by name"),
    (_star_kwargs, "'**options' is not supported"),
    (_positional_only, "argument 'a' must not be positional-only"),
    (_twice, "two arguments are named 'a' on the wire"),
    (_empty_name, "Param(name=...) of 'a' is empty"),
    (_opaque_arg, "cannot build its argument schema"),
    (_opaque_result, "cannot build its result schema"),
    (_unresolvable, "cannot read its signature: name 'NoSuchType' is not defined"),
    (_typing_typeddict, "typing_extensions.TypedDict"),
])
def test_bad_declarations_fail_at_registration(func: Callable[..., Any], message: str) -> None:
    with pytest.raises(RegistrationError, match=None) as caught:
        analyse(func, injectables=INJECTABLES)
    assert message in str(caught.value)
    assert str(caught.value).startswith(func.__qualname__ + ": ")


# --- render ---------------------------------------------------------------------------------

WHEN = dt.datetime(2026, 11, 21, 6, 30, tzinfo=UTC)
PNG = b"\x89PNG"


def _object_schema(cls: Any) -> dict[str, Any]:
    return returning(cls).output_schema or {}


def _wrap(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"result": schema}}  # no "required" in results


# (return annotation, returned value, content blocks, structuredContent, outputSchema)
RENDERS: list[tuple[Any, Any, list[dict[str, Any]], Any, Any]] = [
    (str, "done", [{"type": "text", "text": "done"}], None, None),
    (str, "", [{"type": "text", "text": ""}], None, None),
    (str | None, None, [], None, None),
    (None, None, [], None, None),
    (int, 5, [{"type": "text", "text": "5"}], {"result": 5}, _wrap({"type": "integer"})),
    (float, 2.5, [{"type": "text", "text": "2.5"}], {"result": 2.5}, _wrap({"type": "number"})),
    (bool, True, [{"type": "text", "text": "true"}], {"result": True},
     _wrap({"type": "boolean"})),
    (list[int], [1, 2], [{"type": "text", "text": "[1,2]"}], {"result": [1, 2]},
     _wrap({"type": "array", "items": {"type": "integer"}})),
    (list[int], [], [{"type": "text", "text": "[]"}], {"result": []},
     _wrap({"type": "array", "items": {"type": "integer"}})),
    (int | None, None, [{"type": "text", "text": "null"}], {"result": None},
     _wrap({"anyOf": [{"type": "integer"}, {"type": "null"}]})),
    (int | None, 3, [{"type": "text", "text": "3"}], {"result": 3},
     _wrap({"anyOf": [{"type": "integer"}, {"type": "null"}]})),
    (Color, Color.RED, [{"type": "text", "text": '"red"'}], {"result": "red"},
     _wrap({"enum": ["red", "blue"], "type": "string"})),
    (dict, {"a": 1, "when": WHEN},
     [{"type": "text", "text": '{"a":1,"when":"2026-11-21T06:30:00Z"}'}],
     {"a": 1, "when": "2026-11-21T06:30:00Z"}, {"type": "object"}),
    (dict[str, int], {"a": 1}, [{"type": "text", "text": '{"a":1}'}], {"a": 1},
     {"type": "object", "additionalProperties": {"type": "integer"}}),
    (Point, Point(x=1), [{"type": "text", "text": '{"x":1,"y":0}'}], {"x": 1, "y": 0},
     {"type": "object", "properties": {"x": {"type": "integer"},
                                       "y": {"type": "integer", "default": 0}}}),
    (Run, Run("z2", WHEN),
     [{"type": "text", "text": '{"name":"z2","when":"2026-11-21T06:30:00Z"}'}],
     {"name": "z2", "when": "2026-11-21T06:30:00Z"},
     {"type": "object", "properties": {"name": {"type": "string"},
                                       "when": {"type": "string", "format": "date-time"}}}),
    (Split, {"km": 1, "seconds": 300.0}, [{"type": "text", "text": '{"km":1,"seconds":300.0}'}],
     {"km": 1, "seconds": 300.0},
     {"type": "object", "properties": {"km": {"type": "integer"}, "seconds": {"type": "number"}}}),
    (Point | None, Point(x=2), [{"type": "text", "text": '{"x":2,"y":0}'}],
     {"result": {"x": 2, "y": 0}},
     _wrap({"anyOf": [_object_schema(Point), {"type": "null"}]})),
    (list[Point], [Point(x=1)], [{"type": "text", "text": '[{"x":1,"y":0}]'}],
     {"result": [{"x": 1, "y": 0}]}, _wrap({"type": "array", "items": _object_schema(Point)})),
    (Text, Text("hi"), [{"type": "text", "text": "hi"}], None, None),
    (list[Text | Image], [Text("a"), Image(PNG, "image/png")],
     [{"type": "text", "text": "a"},
      {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}],
     None, None),
    (list[Content], [], [], None, None),
    # untyped: decided by the value
    (NO_DEFAULT, "plain", [{"type": "text", "text": "plain"}], None, None),
    (NO_DEFAULT, None, [], None, None),
    (NO_DEFAULT, {"a": [1]}, [{"type": "text", "text": '{"a":[1]}'}], {"a": [1]}, None),
    (NO_DEFAULT, Point(x=3), [{"type": "text", "text": '{"x":3,"y":0}'}], {"x": 3, "y": 0}, None),
    (NO_DEFAULT, Run("r", WHEN),
     [{"type": "text", "text": '{"name":"r","when":"2026-11-21T06:30:00Z"}'}],
     {"name": "r", "when": "2026-11-21T06:30:00Z"}, None),
    (NO_DEFAULT, 5, [{"type": "text", "text": "5"}], None, None),
    (NO_DEFAULT, [1, "a"], [{"type": "text", "text": '[1,"a"]'}], None, None),
    (NO_DEFAULT, [], [{"type": "text", "text": "[]"}], None, None),
    (NO_DEFAULT, Text("t"), [{"type": "text", "text": "t"}], None, None),
    (NO_DEFAULT, (Text("a"), Text("b")),
     [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], None, None),
    (NO_DEFAULT, Opaque, [{"type": "text", "text": str(Opaque)}], None, None),
    (Any, {"k": "v"}, [{"type": "text", "text": '{"k":"v"}'}], {"k": "v"}, None),
    # a helper returned where the annotation said otherwise still renders as its blocks
    (str, Text("x"), [{"type": "text", "text": "x"}], None, None),
]


@pytest.mark.parametrize(("annotation", "value", "blocks", "structured", "output_schema"),
                         RENDERS, ids=[f"{row[0]}-{row[1]!r}"[:60] for row in RENDERS])
def test_render(annotation: Any, value: Any, blocks: list[dict[str, Any]], structured: Any,
                output_schema: Any) -> None:
    """DECL-3: a string is one text block; typed values get structuredContent + outputSchema."""
    sig = returning(annotation)
    assert sig.output_schema == output_schema
    assert sig.render(value) == (blocks, structured)
    result: dict[str, Any] = {"content": blocks}
    if structured is not None:
        result["structuredContent"] = structured
    sdk.CallToolResult.model_validate(result)  # the official SDK accepts it
    if output_schema is not None:
        jsonschema.Draft202012Validator.check_schema(output_schema)
        assert output_schema["type"] == "object"  # MCP: outputSchema is an object schema
        jsonschema.validate(structured, output_schema, cls=jsonschema.Draft202012Validator)


def test_recursive_result_schema_is_an_object_with_defs() -> None:
    sig = returning(Node)
    schema = sig.output_schema
    assert schema is not None
    assert schema["type"] == "object"
    assert schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    jsonschema.Draft202012Validator.check_schema(schema)
    _, structured = sig.render(Node(value=1, children=[Node(value=2)]))
    jsonschema.validate(structured, schema, cls=jsonschema.Draft202012Validator)


def test_input_schemas_are_valid_tool_definitions_for_the_sdk() -> None:
    for sig in (BOOK, one_arg(Node), analyse(Demo.add, injectables=())):
        tool = sdk.Tool.model_validate({"name": "t", "inputSchema": sig.input_schema,
                                        "outputSchema": sig.output_schema})
        assert tool.input_schema["type"] == "object"


# ---------------------------------------------------------------- the exact-type fast path

def _plain_args(a: int, s: str, f: float, flag: bool) -> None: ...


def _renamed_args(n: Annotated[int, Param(name="count")], json: str) -> None: ...


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(), inner, max_size=2),
    max_leaves=4)


def _outcome(sig: Signature, arguments: Any) -> tuple[str, Any]:
    try:
        return "ok", sig.bind(arguments)
    except InvalidParams as exc:
        return "invalid", exc.message


@pytest.mark.parametrize("func", [_plain_args, _renamed_args])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_exact_types_bind_as_pydantic_would(func: Callable[..., Any], data: Any) -> None:
    """Arguments taken as they are (exact int/str/float/bool) bind exactly as the pydantic
    model binds them, for well-typed, coercible, missing, extra and wrong values alike."""
    sig = analyse(func, injectables=(), skip_self=False)
    assert sig._exact is not None
    names = [wire for wire, _, _ in sig._exact]
    arguments = data.draw(st.dictionaries(
        st.sampled_from([*names, "extra"]), _JSON_VALUES, max_size=len(names) + 1))
    if data.draw(st.booleans()):  # half the time: every argument, with its own type
        arguments = {wire: data.draw(st.from_type(typ)) for wire, _, typ in sig._exact}
    reference = dataclasses.replace(sig, _exact=None)
    assert _outcome(sig, arguments) == _outcome(reference, arguments)


def test_exact_path_only_for_required_plain_types() -> None:
    def optional(a: int, b: int = 2) -> None: ...
    def constrained(a: Annotated[int, Field(gt=0)]) -> None: ...
    def model_arg(a: int, p: Point) -> None: ...

    for func in (optional, constrained, model_arg):
        assert analyse(func, injectables=(), skip_self=False)._exact is None
    sig = analyse(_renamed_args, injectables=(), skip_self=False)
    assert sig.bind({"count": 3, "json": "x"}) == {"n": 3, "json": "x"}
    assert sig.bind({"count": True, "json": "x"}) == {"n": 1, "json": "x"}  # pydantic's lax int


def _header_tool(header: str, typ: Any) -> Callable[..., Any]:
    def tool(value: Annotated[typ, Param(header=header)]) -> str:  # type: ignore[valid-type]
        return str(value)
    return tool


@pytest.mark.parametrize(("header", "typ"), [
    ("", str), ("My Region", str), ("Region:Primary", str), ("Région", str),
    ("Region\t1", str), ("Score", float), ("Items", list[str]), ("Data", dict[str, int]),
])
def test_param_header_must_be_a_token_on_a_primitive(header: str, typ: Any) -> None:
    """SEP-2243: x-mcp-header names are HTTP tokens, on string, integer or boolean only."""
    with pytest.raises(RegistrationError, match="header"):
        analyse(_header_tool(header, typ), injectables=(), skip_self=False)


def test_param_header_names_are_unique_case_insensitively() -> None:
    def tool(a: Annotated[str, Param(header="MyField")],
             b: Annotated[int | None, Param(header="myfield")] = None) -> str:
        return a
    with pytest.raises(RegistrationError, match="two arguments use the header"):
        analyse(tool, injectables=(), skip_self=False)


def test_param_header_on_optional_primitives() -> None:
    def tool(flag: Annotated[bool | None, Param(header="Flag")] = None) -> str:
        return str(flag)
    schema = analyse(tool, injectables=(), skip_self=False).input_schema
    assert schema["properties"]["flag"]["x-mcp-header"] == "Flag"


def _scalars(a: int, b: bool, c: float, d: dt.date) -> None: ...


@pytest.mark.parametrize(("given", "bound"), [
    ({"a": "42"}, {"a": 42}), ({"c": 7}, {"c": 7.0}), ({"d": "2026-01-02"},
                                                       {"d": dt.date(2026, 1, 2)})])
def test_values_readable_exactly_as_the_type_are_taken(given: dict[str, Any],
                                                        bound: dict[str, Any]) -> None:
    """MCP-3, as docs/mcpcast.md settles it: lax binding takes a quoted number."""
    base = {"a": 1, "b": True, "c": 1.0, "d": "2026-01-01"}
    kwargs = analyse(_scalars, injectables=(), skip_self=False).bind({**base, **given})
    assert {k: kwargs[k] for k in bound} == bound


@pytest.mark.parametrize("given", [{"a": "abc"}, {"a": 3.5}, {"b": "yes please"},
                                   {"d": "soon"}])
def test_values_not_readable_as_the_type_are_minus_32602(given: dict[str, Any]) -> None:
    """MCP-3: a wrong-typed argument is -32602, naming it."""
    base = {"a": 1, "b": True, "c": 1.0, "d": "2026-01-01"}
    with pytest.raises(InvalidParams) as refused:
        analyse(_scalars, injectables=(), skip_self=False).bind({**base, **given})
    assert refused.value.code == -32602
    assert repr(next(iter(given))) in str(refused.value)


# ------------------------------------------------- the exact-record fast path (rendering)

class Identity(TypedDict):
    user_id: str
    role: str
    visits: int
    admin: bool


class Partial(TypedDict, total=False):
    name: str


class Measured(TypedDict):
    km: float  # floats keep pydantic's path (NaN and infinities)


class Tagged(TypedDict):
    name: Annotated[str, Field(max_length=3)]


_RECORD_VALUES = st.none() | st.booleans() | st.integers() | st.floats() | st.text() | \
    st.lists(st.integers(), max_size=2)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_exact_records_render_as_pydantic_would(data: Any) -> None:
    """A TypedDict result whose fields are all required str/int/bool is rendered without
    pydantic when each value has exactly its field's type: the same blocks and
    structuredContent as pydantic-core's serializer gives, for exact, missing, extra,
    reordered and wrongly typed values alike (issue 19)."""
    sig = returning(Identity)
    assert sig._record is not None
    keys = list(sig._record)
    value = data.draw(st.dictionaries(st.sampled_from([*keys, "extra"]), _RECORD_VALUES,
                                      max_size=len(keys) + 1))
    if data.draw(st.booleans()):  # half the time: every field with its own type, any order
        value = {key: data.draw(st.from_type(typ)) for key, typ in sig._record.items()}
        value = dict(data.draw(st.permutations(list(value.items()))))
    reference = dataclasses.replace(sig, _record=None)
    assert sig.render(value) == reference.render(value)


@pytest.mark.parametrize("odd", [float("nan"), float("inf"), 2.5, b"raw", WHEN,
                                 dt.date(2026, 11, 28), ("a", 1)],
                         ids=repr)
def test_a_value_of_another_type_takes_pydantics_path(odd: Any) -> None:
    """A value pydantic's JSON mode converts (NaN and infinities to null, bytes, dates,
    tuples) in a plain key: the serializer's answer, not the value as it is."""
    sig = returning(Identity)
    value = {"user_id": "u1", "role": odd, "visits": 1, "admin": True}
    assert sig.render(value) == dataclasses.replace(sig, _record=None).render(value)


def test_exact_record_is_a_copy_in_its_own_order_and_only_for_plain_records() -> None:
    sig = returning(Identity)
    value = {"admin": False, "visits": 2, "role": "user", "user_id": "u1"}
    blocks, structured = sig.render(value)
    assert blocks == [{"type": "text", "text":
                       '{"admin":false,"visits":2,"role":"user","user_id":"u1"}'}]
    assert structured == value and structured is not value  # as pydantic's: a new dict
    for annotation in (Partial, Measured, Tagged, Split, Identity | None, dict[str, str]):
        assert returning(annotation)._record is None, annotation


# --- compact schemas (issue 27 item 14: every tools/list rides along in a model's context) --


class _Lap(TypedDict):
    default: int | None  # a property named like a keyword: must survive the compaction
    extra: dict[str, Any]
    anything: list[Any]
    when: dt.date | None


def _schemas_of(sig: Signature) -> list[Any]:
    return [sig.input_schema, sig.output_schema]


def test_optional_arguments_are_their_plain_type_and_json_schema_defaults_are_left_out(
        ) -> None:
    """An argument that may be left out and defaults to null is advertised as its plain
    type, null still accepted; a required nullable one and nullable results keep
    anyOf [X, null] (no "type" array: the MCP Inspector's --strict flags it as unportable).
    "default": null, "additionalProperties": true and "items": {} (JSON Schema's
    defaults) are not said; the schemas still validate what they did."""
    def log(self: object, lap: _Lap, maybe: int | None,
            level: Literal["easy", "hard"] | None = None,
            limit: Annotated[int | None, Field(ge=1, le=9)] = None,
            note: Annotated[str | None, Param(description="Free text.")] = None) -> _Lap:
        return lap
    sig = analyse(log, injectables=INJECTABLES)
    props = sig.input_schema["properties"]
    assert props["level"] == {"enum": ["easy", "hard"], "type": "string"}
    assert props["limit"] == {"type": "integer", "minimum": 1, "maximum": 9}
    assert props["note"] == {"type": "string", "description": "Free text."}
    nullable = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert props["maybe"] == nullable
    assert sig.input_schema["required"] == ["lap", "maybe"]
    lap = props["lap"]["properties"]
    assert lap == {"default": nullable, "extra": {"type": "object"},
                   "anything": {"type": "array"},
                   "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]}}
    assert sig.output_schema is not None and sig.output_schema["properties"] == lap
    assert "'default': None" not in str(_schemas_of(sig))
    for schema in _schemas_of(sig):
        jsonschema.Draft202012Validator.check_schema(schema)
    good = {"default": None, "extra": {"a": [1]}, "anything": [1, "a", None], "when": None}
    jsonschema.validate({"lap": good, "maybe": None}, sig.input_schema,
                        cls=jsonschema.Draft202012Validator)
    jsonschema.validate(good, sig.output_schema, cls=jsonschema.Draft202012Validator)
    assert sig.bind({"lap": good, "maybe": None, "level": None, "limit": None})["limit"] is None
    for bad in ({"level": "medium"}, {"limit": 10}, {"maybe": "x"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"lap": good, "maybe": 1, **bad}, sig.input_schema,
                                cls=jsonschema.Draft202012Validator)


def test_no_type_arrays_and_no_untyped_schemas() -> None:
    """The MCP Inspector's --strict rules (type-union, untyped-schema) on generated
    schemas: a list[Any]'s items and a dict[str, Any]'s values are not advertised as a
    bare {} (an argument typed Any itself, "x" here, has nothing better to say)."""
    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            assert not isinstance(node.get("type"), list), path
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for name, sub in value.items():
                        assert sub != {} or name == "x", f"{path}.{key}.{name}"
                        walk(sub, f"{path}.{key}.{name}")
                elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
                    assert value != {}, f"{path}.{key}"
                    walk(value, f"{path}.{key}")
                elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
                    for i, sub in enumerate(value):
                        assert sub != {}, f"{path}.{key}[{i}]"
                        walk(sub, f"{path}.{key}[{i}]")
    for annotation in (list[Any], dict[str, Any], list[dict[str, Any]], _Lap, int | None,
                       dict[str, list[Any]]):
        sig = one_arg(annotation, returns=annotation)
        walk(sig.input_schema, "input")
        walk(sig.output_schema, "output")


def test_tools_list_only_the_hints_a_client_must_be_told() -> None:
    """MCP ToolAnnotations: destructiveHint and idempotentHint are meaningful only when
    readOnlyHint is false, so a read-only tool's listing leaves them out; a hint at the
    value a client assumes when it is missing (readOnlyHint false, idempotentHint false,
    openWorldHint true) is left out too: the client reads the same. destructiveHint true is
    always said: a client that does not apply the spec's default must still see it."""
    from mcpcast import mcp_server, tool
    from mcpcast._registry import collect

    @mcp_server("hints")
    class Hints:
        @tool(annotations={"readOnlyHint": True, "idempotentHint": True,
                           "destructiveHint": False, "openWorldHint": False})
        def look(self) -> str:
            return ""

        @tool(annotations={"readOnlyHint": False, "idempotentHint": True,
                           "destructiveHint": True, "openWorldHint": False})
        def wipe(self) -> str:
            return ""

        @tool(annotations={"readOnlyHint": False, "idempotentHint": False,
                           "destructiveHint": False, "openWorldHint": True, "title": "Add"})
        def add(self) -> str:
            return ""

        @tool(annotations={"readOnlyHint": False, "openWorldHint": True})
        def fetch(self) -> str:
            return ""

    tools = collect(Hints(), ()).tools
    assert tools["look"].listing["annotations"] == {"readOnlyHint": True,
                                                    "openWorldHint": False}
    assert tools["wipe"].listing["annotations"] == {"idempotentHint": True,
                                                    "destructiveHint": True,
                                                    "openWorldHint": False}
    assert tools["add"].listing["annotations"] == {"destructiveHint": False, "title": "Add"}
    assert "annotations" not in tools["fetch"].listing  # nothing a client does not assume


class _Item(TypedDict):
    id: str
    km: float


class _Once(TypedDict):
    item: _Item


class _Twice(TypedDict):
    item: _Item
    items: list[_Item]
    once: _Once


def test_a_shape_used_twice_is_one_shared_definition() -> None:
    """A type that appears twice in one schema is said once, under $defs, and referenced;
    a type used once is still inlined (many clients do not follow $ref)."""
    sig = returning(_Twice)
    schema = sig.output_schema
    assert schema is not None
    item = {"type": "object", "properties": {"id": {"type": "string"},
                                             "km": {"type": "number"}}}
    assert schema["$defs"] == {"_Item": item}
    ref = {"$ref": "#/$defs/_Item"}
    assert schema["properties"]["item"] == ref
    assert schema["properties"]["items"] == {"type": "array", "items": ref}
    assert schema["properties"]["once"]["properties"]["item"] == ref  # _Once: inlined
    jsonschema.Draft202012Validator.check_schema(schema)
    value = {"item": {"id": "a", "km": 1.0}, "items": [{"id": "b", "km": 2.0}],
             "once": {"item": {"id": "c", "km": 3.0}}}
    jsonschema.validate(sig.render(value)[1], schema, cls=jsonschema.Draft202012Validator)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**value, "items": [{"id": 1, "km": 2.0}]}, schema,
                            cls=jsonschema.Draft202012Validator)
    assert "$defs" not in (returning(_Once).output_schema or {})


class _Required(TypedDict):
    required: int  # a field named like the keyword stays
    rows: list[_Item]


def test_result_schemas_list_no_required_keys() -> None:
    """An outputSchema types every field but does not list "required" (at any depth): it
    rides along in every tools/list. A property named "required" is kept."""
    schema = returning(_Required).output_schema
    assert schema == {"type": "object", "properties": {
        "required": {"type": "integer"},
        "rows": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "km": {"type": "number"}}}}}}
    assert returning(int).output_schema == {"type": "object",
                                            "properties": {"result": {"type": "integer"}}}
