"""Every fixture the official MCP conformance suite expects, written with mcpcast.

Run it and point the suite at it (docs/conformance.md says what each scenario checks):

    python -m mcpcast run examples.everything:Everything --port 8123
    node .../conformance/dist/index.js server --url http://127.0.0.1:8123/mcp \
        --requirements 2026-07-28          # or 2025-11-25, or --suite all

One class serves both protocol eras: the same ``ctx.elicit`` is a request on the call's
stream for a handshake-era client and an ``input_required`` round trip for a 2026-07-28
one.
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
    Ask,
    Audio,
    Context,
    EmbeddedResource,
    Image,
    InternalError,
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

# SEP-1613 and SEP-2106: JSON Schema 2020-12 keywords must reach the client untouched
# ($anchor, composition and conditional keywords included).
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        },
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
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

def _form(field: str, typ: str = "string") -> dict[str, Any]:
    """A one-field elicitation form."""
    return {"type": "object", "properties": {field: {"type": typ}}, "required": [field]}


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
    def json_schema_2020_12_tool(
        self, name: str | None = None, address: dict[str, str] | None = None,
        contact_method: Annotated[str | None, Param(name="contactMethod")] = None,
        phone: str | None = None, email: str | None = None,
    ) -> str:
        where = ", ".join(f"{k}={v}" for k, v in (address or {}).items())
        contact = phone if contact_method == "phone" else email
        return f"name={name}, address={where or '-'}, contact={contact}"

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

    # ------------------------------------------- 2026-07-28: per-request envelope

    @tool()
    async def test_missing_capability(self, ctx: Context) -> str:
        """Needs the client's sampling capability: without it, -32021 (HTTP 400)."""
        reply = await ctx.sample("Say hello", max_tokens=10)
        return f"The model said: {_said(reply)}"

    @tool()
    async def test_streaming_elicitation(self, ctx: Context) -> str:
        """Elicits while the call's response stream is open (never a request on it)."""
        await ctx.report_progress(0, 1, "asking")
        answer = await ctx.elicit("Pick a colour", _form("colour"), key="colour")
        return f"colour={answer.get('content', {}).get('colour')}"

    @tool()
    async def test_logging_tool(self, ctx: Context) -> str:
        """Logs at info; only a request that set a log level hears it."""
        await ctx.info("test_logging_tool ran")
        return "logged"

    @tool()
    async def test_trigger_tool_change(self, server: Server) -> str:
        """Adds (or removes again) a tool: listeners hear tools/list_changed."""
        if server.remove_tool("test_dynamic_tool"):
            return "removed test_dynamic_tool"
        server.add_tool(lambda: "dynamic", name="test_dynamic_tool",
                        description="Added by test_trigger_tool_change.")
        return "added test_dynamic_tool"

    @tool()
    async def test_trigger_prompt_change(self, server: Server) -> str:
        """Adds (or removes again) a prompt: listeners hear prompts/list_changed."""
        if server.remove_prompt("test_dynamic_prompt"):
            return "removed test_dynamic_prompt"
        server.add_prompt(lambda: [Message.user("A prompt added at run time.")],
                          name="test_dynamic_prompt",
                          description="Added by test_trigger_prompt_change.")
        return "added test_dynamic_prompt"

    @tool()
    def test_custom_headers(
        self,
        region: Annotated[str, Param(header="Region", description="Routed on by proxies")],
        query: Annotated[str, Param(description="Not mirrored in a header")],
        priority: Annotated[int | None, Param(header="Priority")] = None,
        verbose: Annotated[bool | None, Param(header="Verbose")] = None,
    ) -> str:
        """Mirrors arguments in Mcp-Param-* headers, which the server checks (SEP-2243)."""
        return f"region={region}, priority={priority}, verbose={verbose}, query={query}"

    # ------------------------------ 2026-07-28: input-required (multi-round trips)
    # In this era the tool stops at its first unanswered question; the client answers
    # and retries, and the tool runs again from the top with the answers in hand.

    @tool()
    async def test_input_required_result_elicitation(self, ctx: Context) -> str:
        """Asks the user's name, then greets them."""
        answer = await ctx.elicit("What is your name?", _form("name"), key="user_name")
        return f"Hello, {answer.get('content', {}).get('name', 'stranger')}!"

    @tool()
    async def test_input_required_result_sampling(self, ctx: Context) -> str:
        """Asks the client's model a question."""
        reply = await ctx.sample("What is the capital of France?", max_tokens=100,
                                 key="capital_question")
        return f"The model said: {_said(reply)}"

    @tool()
    async def test_input_required_result_list_roots(self, ctx: Context) -> str:
        """Asks for the client's roots."""
        roots = await ctx.list_roots(key="client_roots")
        return "Roots: " + ", ".join(str(root.get("uri")) for root in roots)

    @tool()
    async def test_input_required_result_request_state(self, ctx: Context) -> str:
        """Asks for a confirmation; the retry must echo the signed requestState."""
        answer = await ctx.elicit("Please confirm", _form("ok", "boolean"), key="confirm")
        return f"state-ok: confirmed={answer.get('content', {}).get('ok')}"

    @tool()
    async def test_input_required_result_multiple_inputs(self, ctx: Context) -> str:
        """Asks three questions of three kinds in one round."""
        name, greeting, roots = await ctx.ask(
            Ask.elicit("What is your name?", _form("name"), key="user_name"),
            Ask.sample("Generate a greeting", max_tokens=50, key="greeting"),
            Ask.roots(key="client_roots"))
        return (f"name={name.get('content', {}).get('name')}, greeting={_said(greeting)}, "
                f"roots={len(roots.get('roots', []))}")

    @tool()
    async def test_input_required_result_multi_round(self, ctx: Context) -> str:
        """Asks twice, the second question only after the first is answered."""
        first = await ctx.elicit("Step 1: What is your name?", _form("name"), key="step1")
        name = first.get("content", {}).get("name")
        second = await ctx.elicit("Step 2: What is your favorite color?", _form("color"),
                                  key="step2")
        return f"{name} likes {second.get('content', {}).get('color')}"

    @tool()
    async def test_input_required_result_tampered_state(self, ctx: Context) -> str:
        """Asks for a confirmation; a tampered requestState is refused (-32602)."""
        answer = await ctx.elicit("Please confirm", _form("ok", "boolean"), key="confirm")
        return f"confirmed={answer.get('content', {}).get('ok')}"

    @tool()
    async def test_input_required_result_capabilities(self, ctx: Context) -> str:
        """Asks only what the request's declared capabilities allow."""
        declared = ctx.client_capabilities
        questions = []
        if "elicitation" in declared:
            questions.append(Ask.elicit("What is your name?", _form("name"), key="user_name"))
        if "sampling" in declared:
            questions.append(Ask.sample("Generate a greeting", max_tokens=50, key="greeting"))
        if "roots" in declared:
            questions.append(Ask.roots(key="client_roots"))
        answers = await ctx.ask(*questions)
        return f"{len(answers)} answer(s) for the declared capabilities"

    # ------------------------------ the tasks extension (io.modelcontextprotocol/tasks)
    # A client that declared the extension gets a task handle at once and polls
    # tasks/get; other clients get an ordinary call (or -32021 for task="required").
    # (confirm_delete lists first, and http-header-validation calls the first tool with
    # no arguments: hence its default filename.)

    @tool()
    def greet(self, name: str) -> str:
        """Greets someone (an ordinary tool: never a task)."""
        return f"Hello, {name}!"

    @tool(task="optional")
    async def slow_compute(self, seconds: float = 1.0, label: str = "") -> str:
        """Works for `seconds` seconds, then reports; tasks/cancel stops it."""
        await asyncio.sleep(max(0.0, min(seconds, 600.0)))
        return f"computed {label or 'result'} after {seconds:g} s"

    @tool(task="required")
    async def failing_job(self) -> str:
        """Works for a second, then fails the way a tool fails (an isError result)."""
        await asyncio.sleep(1.0)
        raise ToolError("The job failed: the input could not be processed")

    @tool(task="optional")
    async def protocol_error_job(self) -> str:
        """Fails below the tool's level: the task ends `failed` with a JSON-RPC error."""
        await asyncio.sleep(0.1)
        raise InternalError("The job's worker was lost")

    @tool(task="optional")
    async def confirm_delete(self, ctx: Context, filename: str = "notes.txt") -> str:
        """Asks for confirmation (the task waits in input_required), then deletes."""
        answer = await ctx.elicit(f"Delete {filename}?", _form("confirm", "boolean"),
                                  key="confirm")
        if answer.get("action") == "accept" and answer.get("content", {}).get("confirm"):
            return f"Deleted {filename}"
        return f"Kept {filename}"

    @tool(task="optional")
    async def multi_input(self, ctx: Context) -> str:
        """Asks two questions at once; the task waits until both are answered."""
        name, confirm = await ctx.ask(
            Ask.elicit("What is your name?", _form("name"), key="name"),
            Ask.elicit("Proceed?", _form("confirm", "boolean"), key="confirm"))
        return (f"name={name.get('content', {}).get('name')}, "
                f"confirm={confirm.get('content', {}).get('confirm')}")

    @tool(task="required", task_start="tool")
    async def test_tool_with_task(self, ctx: Context) -> str:
        """Asks the user's name within the call, then goes on as a task to greet them."""
        answer = await ctx.elicit("What is your name?", _form("name"), key="user_name")
        name = answer.get("content", {}).get("name", "stranger")
        await ctx.start_task()  # the caller gets the task handle now
        await asyncio.sleep(0.5)
        return f"Hello, {name}! (from a task)"

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

    @prompt()
    async def test_input_required_result_prompt(self, ctx: Context) -> list[Message]:
        """A prompt that asks the user for context first (2026-07-28: a round trip)."""
        answer = await ctx.elicit("What context should the prompt use?", _form("context"),
                                  key="user_context")
        context = answer.get("content", {}).get("context", "none")
        return [Message.user(f"Answer with this context in mind: {context}")]

    @completion(ref="test_prompt_with_arguments", argument="arg1")
    def complete_arg1(self, value: str) -> list[str]:
        return [city for city in CITIES if city.startswith(value.lower())]


def _said(reply: dict[str, Any]) -> str:
    """The text of a sampling reply."""
    content = reply.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    return str(text) if text is not None else "No response"


def _elicited(answer: dict[str, Any]) -> str:
    return (f"Elicitation completed: action={answer.get('action')}, "
            f"content={json.dumps(answer.get('content', {}))}")


def create_app() -> Any:
    """ASGI app factory (``uvicorn examples.everything:create_app --factory``)."""
    return Server(Everything()).asgi_app()
