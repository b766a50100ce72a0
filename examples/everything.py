"""Every fixture the official MCP conformance suite expects, written with mcpcast.

Run it and point the suite at it (docs/conformance.md says what each scenario checks):

    python -m mcpcast run examples.everything:Everything --port 8123
    node .../conformance/dist/index.js server --url http://127.0.0.1:8123/mcp --suite all
"""

from __future__ import annotations

import asyncio
import io
import json
import struct
import wave
import zlib
from typing import Annotated, Any

from mcpcast import (
    Audio,
    Context,
    EmbeddedResource,
    Image,
    Message,
    Param,
    Server,
    Text,
    ToolError,
    completion,
    mcp_server,
    prompt,
    resource,
    tool,
)


def _png_1x1_red() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte + one red pixel
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)
            + chunk(b"IEND", b""))


def _wav_silence() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 80)  # 10 ms of silence
    return buffer.getvalue()


PNG = _png_1x1_red()
WAV = _wav_silence()

# SEP-1613: JSON Schema 2020-12 keywords must reach the client untouched.
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        },
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
    },
    "additionalProperties": False,
}

# SEP-1034: a default for every primitive type.
DEFAULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status",
                   "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status",
                     "default": True},
    },
}

# SEP-1330: the five enum shapes.
ENUMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": [
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"},
        ]},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array",
                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": [
            {"const": "value1", "title": "First Choice"},
            {"const": "value2", "title": "Second Choice"},
            {"const": "value3", "title": "Third Choice"},
        ]}},
    },
}

USER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}

CITIES = ("paris", "park", "party", "portland", "prague", "test", "testing")


@mcp_server(name="everything", path="/mcp", version="1.0.0",
            instructions="Fixtures for the MCP conformance suite.")
class Everything:
    """All conformance fixtures; state is per instance so tests can build their own."""

    def __init__(self) -> None:
        self.watched = "Watched resource content"

    # ------------------------------------------------------------------ tools

    @tool()
    def test_simple_text(self) -> str:
        """Return one text block."""
        return "This is a simple text response for testing."

    @tool()
    def test_image_content(self) -> Image:
        """Return one image block (a 1x1 red PNG)."""
        return Image(PNG, "image/png")

    @tool()
    def test_audio_content(self) -> Audio:
        """Return one audio block (10 ms of silent WAV)."""
        return Audio(WAV, "audio/wav")

    @tool()
    def test_embedded_resource(self) -> EmbeddedResource:
        """Return one embedded text resource."""
        return EmbeddedResource("test://embedded-resource",
                                text="This is an embedded resource content.",
                                mime_type="text/plain")

    @tool()
    def test_multiple_content_types(self) -> list[Text | Image | EmbeddedResource]:
        """Return text, image and embedded resource blocks together."""
        return [
            Text("Multiple content types test:"),
            Image(PNG, "image/png"),
            EmbeddedResource("test://mixed-content-resource",
                             text=json.dumps({"test": "data", "value": 123}),
                             mime_type="application/json"),
        ]

    @tool()
    async def test_tool_with_logging(self, ctx: Context) -> str:
        """Send three info log messages while running."""
        await ctx.log("info", "Tool execution started")
        await asyncio.sleep(0.05)
        await ctx.log("info", "Tool processing data")
        await asyncio.sleep(0.05)
        await ctx.log("info", "Tool execution completed")
        return "Tool with logging executed successfully"

    @tool()
    def test_error_handling(self) -> str:
        """Always fail with an isError result."""
        raise ToolError("This tool intentionally returns an error for testing")

    @tool()
    async def test_tool_with_progress(self, ctx: Context) -> str:
        """Report progress 0, 50 and 100 of 100."""
        for step in (0, 50, 100):
            await ctx.report_progress(step, 100, f"Completed step {step} of 100")
            if step < 100:
                await asyncio.sleep(0.05)
        return "Progress tool executed successfully"

    @tool()
    async def test_sampling(
        self, prompt: Annotated[str, Param(description="The prompt to send to the LLM")],
        ctx: Context,
    ) -> str:
        """Ask the client's LLM to answer the prompt."""
        result = await ctx.sample(prompt, max_tokens=100)
        content = result.get("content")
        text = content.get("text") if isinstance(content, dict) else None
        return f"LLM response: {text if text is not None else 'No response'}"

    @tool()
    async def test_elicitation(
        self, message: Annotated[str, Param(description="The message to show the user")],
        ctx: Context,
    ) -> str:
        """Ask the user for a username and an email address."""
        answer = await ctx.elicit(message, USER_SCHEMA)
        content = json.dumps(answer.get("content", {}))
        return f"User response: action={answer.get('action')}, content={content}"

    @tool()
    async def test_elicitation_sep1034_defaults(self, ctx: Context) -> str:
        """Elicit a form whose fields all carry default values (SEP-1034)."""
        answer = await ctx.elicit("Please provide user information", DEFAULTS_SCHEMA)
        return _elicited(answer)

    @tool()
    async def test_elicitation_sep1330_enums(self, ctx: Context) -> str:
        """Elicit a form with every enum shape (SEP-1330)."""
        answer = await ctx.elicit("Please select values using each enum schema type",
                                  ENUMS_SCHEMA)
        return _elicited(answer)

    @tool(description="Tool with JSON Schema 2020-12 features",
          input_schema=JSON_SCHEMA_2020_12)
    def json_schema_2020_12_tool(self, name: str | None = None,
                                 address: dict[str, str] | None = None) -> str:
        where = ", ".join(f"{k}={v}" for k, v in (address or {}).items())
        return f"name={name}, address={where or '-'}"

    @tool()
    async def update_watched_resource(self, content: str, server: Server) -> str:
        """Replace the watched resource's text and tell its subscribers."""
        self.watched = content
        server.notify_resource_updated("test://watched-resource")
        return "updated"

    @tool()
    async def test_reconnection(self, ctx: Context) -> str:
        """Close this call's SSE stream mid-call; the result arrives after the client resumes."""
        await ctx.close_sse_stream()
        await asyncio.sleep(0.1)
        return "Reconnection test completed successfully"

    # -------------------------------------------------------------- resources

    @resource(uri="test://static-text", name="static-text", mime_type="text/plain",
              description="A static text resource.")
    def static_text(self) -> str:
        return "This is the content of the static text resource."

    @resource(uri="test://static-binary", name="static-binary", mime_type="image/png",
              description="A static binary resource (a 1x1 PNG).")
    def static_binary(self) -> bytes:
        return PNG

    @resource(uri="test://template/{id}/data", name="template-data",
              mime_type="application/json", description="Data for one id.")
    def template_data(self, id: str) -> str:
        return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})

    @resource(uri="test://watched-resource", name="watched-resource", mime_type="text/plain",
              description="A resource clients may subscribe to.")
    def watched_resource(self) -> str:
        return self.watched

    # ---------------------------------------------------------------- prompts

    @prompt()
    def test_simple_prompt(self) -> list[Message]:
        """A prompt without arguments."""
        return [Message.user("This is a simple prompt for testing.")]

    @prompt()
    def test_prompt_with_arguments(
        self,
        arg1: Annotated[str, Param(description="First test argument")],
        arg2: Annotated[str, Param(description="Second test argument")],
    ) -> list[Message]:
        """A prompt with two required arguments."""
        return [Message.user(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")]

    @prompt()
    def test_prompt_with_embedded_resource(
        self,
        resource_uri: Annotated[str, Param(name="resourceUri",
                                           description="URI of the resource to embed")],
    ) -> list[Message]:
        """A prompt that embeds a resource."""
        embedded = EmbeddedResource(resource_uri, text="Embedded resource content for testing.",
                                    mime_type="text/plain")
        return [
            Message.user(embedded),
            Message.user("Please process the embedded resource above."),
        ]

    @prompt()
    def test_prompt_with_image(self) -> list[Message]:
        """A prompt that carries an image."""
        return [Message.user(Image(PNG, "image/png")),
                Message.user("Please analyze the image above.")]

    @completion(ref="test_prompt_with_arguments", argument="arg1")
    def complete_arg1(self, value: str) -> list[str]:
        return [city for city in CITIES if city.startswith(value.lower())]


def _elicited(answer: dict[str, Any]) -> str:
    return (f"Elicitation completed: action={answer.get('action')}, "
            f"content={json.dumps(answer.get('content', {}))}")


def create_app() -> Any:
    """ASGI app factory (``uvicorn examples.everything:create_app --factory``)."""
    return Server(Everything()).asgi_app()
