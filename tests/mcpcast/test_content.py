"""Content helpers and prompt messages: their wire form, checked against the MCP SDK types."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import mcp.types as sdk
import pytest

from mcpcast._content import (
    SYSTEM_META_KEY,
    Audio,
    Content,
    EmbeddedResource,
    Image,
    Message,
    ResourceLink,
    Text,
    prompt_messages,
    resource_contents,
)

PNG = b"\x89PNG\r\n\x1a\n\x00binary\xff"


def _sdk_round_trip(model: type[Any], wire: dict[str, Any]) -> dict[str, Any]:
    """What the official SDK reads from ``wire`` and writes back (aliases, no Nones)."""
    parsed = model.model_validate(wire)
    dumped: dict[str, Any] = parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


@pytest.mark.parametrize(("helper", "block"), [
    (Text("hello"), {"type": "text", "text": "hello"}),
    (Text(""), {"type": "text", "text": ""}),
    (Image(PNG, "image/png"),
     {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}),
    (Audio(b"RIFF....WAVE", "audio/wav"),
     {"type": "audio", "data": base64.b64encode(b"RIFF....WAVE").decode(),
      "mimeType": "audio/wav"}),
    (EmbeddedResource("activity://42", text='{"id": 42}', mime_type="application/json"),
     {"type": "resource",
      "resource": {"uri": "activity://42", "mimeType": "application/json", "text": '{"id": 42}'}}),
    (EmbeddedResource("file:///a.fit", blob=b"\x00\x01"),
     {"type": "resource", "resource": {"uri": "file:///a.fit", "blob": "AAE="}}),
    (ResourceLink("activity://42", "activity 42"),
     {"type": "resource_link", "uri": "activity://42", "name": "activity 42"}),
    (ResourceLink("activity://42", "a", description="run", mime_type="application/json"),
     {"type": "resource_link", "uri": "activity://42", "name": "a", "description": "run",
      "mimeType": "application/json"}),
    (Text("hi", audience=("user",), priority=0.5, meta={"x/y": 1}),
     {"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5},
      "_meta": {"x/y": 1}}),
])
def test_to_block_is_the_mcp_wire_form(helper: Content, block: dict[str, Any]) -> None:
    """DECL-3: helpers render to exactly the MCP content block, which the SDK accepts unchanged."""
    assert helper.to_block() == block
    result = _sdk_round_trip(sdk.CallToolResult, {"content": [helper.to_block()]})
    assert result["content"] == [block]


def test_binary_data_survives_base64() -> None:
    block = Image(PNG, "image/png").to_block()
    assert base64.b64decode(block["data"]) == PNG


@pytest.mark.parametrize("kwargs", [{}, {"text": "t", "blob": b"b"}])
def test_embedded_resource_needs_exactly_one_of_text_or_blob(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="exactly one of text or blob"):
        EmbeddedResource("x://1", **kwargs)


def test_embedded_resource_contents_are_the_resources_read_form() -> None:
    contents = EmbeddedResource("x://1", text="body", mime_type="text/plain").to_contents()
    assert contents == {"uri": "x://1", "mimeType": "text/plain", "text": "body"}
    read = _sdk_round_trip(sdk.ReadResourceResult, {"contents": [contents]})
    assert read["contents"] == [contents]


def test_helpers_are_frozen_and_hashable_even_with_meta() -> None:
    text = Text("a", meta={"k": "v"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        text.text = "b"  # type: ignore[misc]
    assert hash(text) == hash(Text("a", meta={"other": 1}))  # meta is left out of the hash
    assert Text("a") == Text("a")
    assert Text("a") != Text("b")


def test_to_block_returns_a_fresh_dict_each_time() -> None:
    meta = {"k": "v"}
    text = Text("a", meta=meta)
    text.to_block()["_meta"]["k"] = "changed"
    assert text.to_block()["_meta"] == {"k": "v"}


@pytest.mark.parametrize(("message", "wire"), [
    (Message.user("My goal: a marathon"),
     {"role": "user", "content": {"type": "text", "text": "My goal: a marathon"}}),
    (Message.assistant("Sure."),
     {"role": "assistant", "content": {"type": "text", "text": "Sure."}}),
    (Message.user(Image(PNG, "image/png")),
     {"role": "user", "content": Image(PNG, "image/png").to_block()}),
    (Message.assistant(EmbeddedResource("x://1", text="t")),
     {"role": "assistant",
      "content": {"type": "resource", "resource": {"uri": "x://1", "text": "t"}}}),
])
def test_user_and_assistant_messages(message: Message, wire: dict[str, Any]) -> None:
    """DECL-3: Message.user()/assistant() give MCP PromptMessages."""
    assert message.to_wire() == wire
    assert _sdk_round_trip(sdk.PromptMessage, wire) == wire


def test_system_message_is_a_spec_valid_user_message_marked_for_the_model() -> None:
    """DECL-3: Message.system() on the wire: role user (MCP has no system role), text unchanged,
    audience assistant and our _meta marker so mcpcast-aware clients restore the system role."""
    message = Message.system("You are a coach.")
    assert message.role == "system"
    wire = message.to_wire()
    assert wire == {
        "role": "user",
        "content": {"type": "text", "text": "You are a coach.",
                    "annotations": {"audience": ["assistant"]},
                    "_meta": {SYSTEM_META_KEY: "system"}},
    }
    assert _sdk_round_trip(sdk.PromptMessage, wire) == wire
    result = _sdk_round_trip(sdk.GetPromptResult, {"messages": [wire, Message.user("x").to_wire()]})
    assert [m["role"] for m in result["messages"]] == ["user", "user"]


def test_message_rejects_what_is_not_content() -> None:
    with pytest.raises(TypeError, match="str or a content helper"):
        Message.user(42)  # type: ignore[arg-type]


def test_prompt_messages_from_what_a_prompt_returns() -> None:
    """DECL-3: a prompt's Message.system()/Message.user() list becomes GetPromptResult.messages."""
    messages = prompt_messages([Message.system("You are a coach."), Message.user("Goal: 10k"),
                                "plain text", Text("helper")])
    assert [m["role"] for m in messages] == ["user", "user", "user", "user"]
    assert [m["content"]["text"] for m in messages] == [
        "You are a coach.", "Goal: 10k", "plain text", "helper"]
    assert prompt_messages("one") == [Message.user("one").to_wire()]
    assert prompt_messages(Message.assistant("a")) == [Message.assistant("a").to_wire()]
    result = _sdk_round_trip(sdk.GetPromptResult, {"messages": messages})
    assert result["messages"] == messages


def test_prompt_messages_refuses_other_values() -> None:
    with pytest.raises(TypeError, match="not int"):
        prompt_messages([Message.user("a"), 3])


@pytest.mark.parametrize(("value", "mime_type", "contents"), [
    ("text body", None, [{"uri": "r://1", "text": "text body"}]),
    ("a,b", "text/csv", [{"uri": "r://1", "mimeType": "text/csv", "text": "a,b"}]),
    (b"\x00\x01", "application/octet-stream",
     [{"uri": "r://1", "mimeType": "application/octet-stream", "blob": "AAE="}]),
    ({"id": 1}, None, [{"uri": "r://1", "mimeType": "application/json", "text": '{"id":1}'}]),
    ([1, 2], "application/json", [{"uri": "r://1", "mimeType": "application/json",
                                   "text": "[1,2]"}]),
    (EmbeddedResource("r://other", text="x"), None, [{"uri": "r://other", "text": "x"}]),
    ([EmbeddedResource("r://a", text="a"), EmbeddedResource("r://b", blob=b"b")], None,
     [{"uri": "r://a", "text": "a"}, {"uri": "r://b", "blob": "Yg=="}]),
])
def test_resource_contents(value: Any, mime_type: str | None,
                           contents: list[dict[str, Any]]) -> None:
    """DECL-3: a resource method's return is its text content (bytes: a blob)."""
    assert resource_contents("r://1", value, mime_type) == contents
    read = _sdk_round_trip(sdk.ReadResourceResult, {"contents": contents})
    assert read["contents"] == contents
