"""mcpcast: a decorator-driven MCP server framework.

Mark a class with ``@mcp_server``, its methods with ``@tool``, ``@resource`` and
``@prompt``, and serve it with ``Server(instance).asgi_app()``.
"""

from ._auth import RequestInfo
from ._config import ServerConfig
from ._content import Audio, EmbeddedResource, Image, Message, ResourceLink, Text
from ._errors import (
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpcastError,
    MethodNotFound,
    ParseError,
    ProtocolError,
    RegistrationError,
    ToolError,
    Unauthorized,
)
from ._params import Param
from ._registry import completion, mcp_server, prompt, resource, tool
from ._server import Server
from .broadcast import Broadcaster, BroadcasterFactory, StreamingSession
from .context import Ask, Context
from .protocol.dispatch import FromPrincipal

__version__ = "0.1.0"

__all__ = [
    "Ask",
    "Audio",
    "Broadcaster",
    "BroadcasterFactory",
    "Context",
    "EmbeddedResource",
    "FromPrincipal",
    "Image",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "McpcastError",
    "Message",
    "MethodNotFound",
    "Param",
    "ParseError",
    "ProtocolError",
    "RegistrationError",
    "RequestInfo",
    "ResourceLink",
    "Server",
    "ServerConfig",
    "StreamingSession",
    "Text",
    "ToolError",
    "Unauthorized",
    "__version__",
    "completion",
    "mcp_server",
    "prompt",
    "resource",
    "tool",
]
