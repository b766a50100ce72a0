"""Content helpers: what a tool, resource or prompt may return besides plain values.

Each helper is a frozen dataclass whose ``to_block()`` gives the MCP content block
(``TextContent``, ``ImageContent``, ``AudioContent``, ``EmbeddedResource``,
``ResourceLink``). Binary data is held as ``bytes`` and base64-encoded on the wire.
Every block may carry MCP ``annotations`` (``audience``, ``priority``) and ``_meta``
through the keyword-only fields ``audience``, ``priority`` and ``meta``.

Prompt messages and the ``system`` role
---------------------------------------
MCP's ``PromptMessage.role`` is only ``"user"`` or ``"assistant"``; there is no system
role on the wire. ``Message.system(text)`` is therefore sent as::

    {"role": "user",
     "content": {"type": "text", "text": "<text, unchanged>",
                 "annotations": {"audience": ["assistant"]},
                 "_meta": {"mcpcast/role": "system"}}}

Why this form: it is valid for every MCP revision (``annotations`` and ``_meta`` are
allowed on every content block), ``audience: ["assistant"]`` is the spec's own way of
saying "meant for the model, not for display", and the ``_meta`` key (our own prefix,
as the spec asks) lets a client that knows mcpcast restore a real system message. The
text itself is left untouched: a "[system] " prefix would be noise for such clients,
and a client that ignores both hints still hands the model a plain instruction.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal

from pydantic_core import to_json

Audience = Literal["user", "assistant"]

SYSTEM_META_KEY = "mcpcast/role"


@dataclass(frozen=True)
class Content:
    """Base of every content helper: the optional annotations and ``_meta`` of a block."""

    _: KW_ONLY
    audience: tuple[Audience, ...] | None = None
    priority: float | None = None
    meta: Mapping[str, Any] | None = field(default=None, hash=False)

    def to_block(self) -> dict[str, Any]:
        raise NotImplementedError

    def _finish(self, block: dict[str, Any]) -> dict[str, Any]:
        annotations: dict[str, Any] = {}
        if self.audience is not None:
            annotations["audience"] = list(self.audience)
        if self.priority is not None:
            annotations["priority"] = self.priority
        if annotations:
            block["annotations"] = annotations
        if self.meta is not None:
            block["_meta"] = dict(self.meta)
        return block


@dataclass(frozen=True)
class Text(Content):
    text: str

    def to_block(self) -> dict[str, Any]:
        return self._finish({"type": "text", "text": self.text})


@dataclass(frozen=True)
class Image(Content):
    data: bytes
    mime_type: str

    def to_block(self) -> dict[str, Any]:
        return self._finish({"type": "image", "data": _b64(self.data), "mimeType": self.mime_type})


@dataclass(frozen=True)
class Audio(Content):
    data: bytes
    mime_type: str

    def to_block(self) -> dict[str, Any]:
        return self._finish({"type": "audio", "data": _b64(self.data), "mimeType": self.mime_type})


@dataclass(frozen=True)
class EmbeddedResource(Content):
    """A resource's contents inside a result: exactly one of ``text`` or ``blob``."""

    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError("EmbeddedResource needs exactly one of text or blob")

    def to_contents(self) -> dict[str, Any]:
        """The ``TextResourceContents`` / ``BlobResourceContents`` object (``resources/read``)."""
        contents: dict[str, Any] = {"uri": self.uri}
        if self.mime_type is not None:
            contents["mimeType"] = self.mime_type
        if self.blob is not None:
            contents["blob"] = _b64(self.blob)
        else:
            contents["text"] = self.text
        return contents

    def to_block(self) -> dict[str, Any]:
        return self._finish({"type": "resource", "resource": self.to_contents()})


@dataclass(frozen=True)
class ResourceLink(Content):
    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None

    def to_block(self) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.description is not None:
            block["description"] = self.description
        if self.mime_type is not None:
            block["mimeType"] = self.mime_type
        return self._finish(block)


Role = Literal["user", "assistant", "system"]


@dataclass(frozen=True)
class Message:
    """One prompt message. Build it with ``Message.user/assistant/system``.

    ``role`` keeps ``"system"`` in Python so code can tell the messages apart; only
    ``to_wire()`` folds it into the spec's ``"user"`` form (see the module docstring).
    """

    role: Role
    content: Content

    @classmethod
    def user(cls, content: str | Content) -> Message:
        return cls("user", _as_content(content))

    @classmethod
    def assistant(cls, content: str | Content) -> Message:
        return cls("assistant", _as_content(content))

    @classmethod
    def system(cls, text: str) -> Message:
        return cls("system", Text(text))

    def to_wire(self) -> dict[str, Any]:
        if self.role != "system":
            return {"role": self.role, "content": self.content.to_block()}
        block = self.content.to_block()
        block["annotations"] = {**block.get("annotations", {}), "audience": ["assistant"]}
        block["_meta"] = {**block.get("_meta", {}), SYSTEM_META_KEY: "system"}
        return {"role": "user", "content": block}


def prompt_messages(value: Any) -> list[dict[str, Any]]:
    """A prompt function's return -> ``GetPromptResult.messages``.

    Takes a ``Message``, a ``str`` or content helper (a user message), or a list of those.
    """
    items = value if isinstance(value, list | tuple) else [value]
    messages: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, Message):
            messages.append(item.to_wire())
        elif isinstance(item, str | Content):
            messages.append(Message.user(item).to_wire())
        else:
            raise TypeError(f"a prompt returns Message, str or content helpers, "
                            f"not {type(item).__name__}")
    return messages


def resource_contents(uri: str, value: Any, mime_type: str | None = None
                      ) -> list[dict[str, Any]]:
    """A resource function's return -> ``ReadResourceResult.contents``.

    ``str`` is the text content, ``bytes`` a blob, ``EmbeddedResource`` (or a list of
    them) its own contents; anything else is sent as JSON text (``application/json``).
    """
    if isinstance(value, EmbeddedResource):
        return [value.to_contents()]
    if isinstance(value, list) and value and all(isinstance(v, EmbeddedResource) for v in value):
        return [v.to_contents() for v in value]
    if isinstance(value, bytes):
        return [EmbeddedResource(uri, blob=value, mime_type=mime_type).to_contents()]
    if not isinstance(value, str):
        value = to_json(value).decode()
        mime_type = mime_type or "application/json"
    return [EmbeddedResource(uri, text=value, mime_type=mime_type).to_contents()]


def _as_content(content: str | Content) -> Content:
    if isinstance(content, str):
        return Text(content)
    if isinstance(content, Content):
        return content
    raise TypeError(f"a message holds a str or a content helper, not {type(content).__name__}")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
