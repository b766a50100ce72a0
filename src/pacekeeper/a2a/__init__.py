"""Agent-to-agent endpoints: the agent card, /a2a/tools and /a2a/execute."""

from pacekeeper.a2a._card import A2A_PROTOCOL_VERSION, agent_card
from pacekeeper.a2a._openapi import A2A_PATHS, API_KEY_SCHEME
from pacekeeper.a2a._routes import ToolNotFound, a2a_routes

__all__ = [
    "A2A_PATHS",
    "A2A_PROTOCOL_VERSION",
    "API_KEY_SCHEME",
    "ToolNotFound",
    "a2a_routes",
    "agent_card",
]
