"""What the OAuth 2.0 endpoints share, built once per app (services.py wires it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request

from pacekeeper.oauth2._ratelimit import EndpointLimiter
from pacekeeper.oauth2._server import AuthorizationServer

if TYPE_CHECKING:
    from pacekeeper.services import Services


@dataclass(frozen=True, slots=True)
class OAuth2Components:
    server: AuthorizationServer
    limits: EndpointLimiter
    base_url: str


def request_services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


def components(request: Request) -> OAuth2Components:
    found = request_services(request).oauth
    if found is None:
        raise RuntimeError("the OAuth 2.0 server is not configured")
    return found


__all__ = ["OAuth2Components", "components", "request_services"]
